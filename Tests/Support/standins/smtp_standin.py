#!/usr/bin/env python3
"""SMTP stand-in for Pacenote's mail tests: an aiosmtpd server on loopback.

Prints one JSON line {"port": N} on stdout once it listens, then appends every message it
accepts to DIR/messages.jsonl as JSON: envelope sender and recipients, the decoded headers
(Subject decoded from RFC 2047), the text and HTML parts (decoded from quoted-printable), the
content types, and whether the client authenticated (and as whom).

Options: --port N (0: any free port; the tests restart it on the same port to end an outage),
--auth USER:PASSWORD (then MAIL is refused until the client logs in with exactly that).
"""
import argparse
import asyncio
import email
import email.header
import email.policy
import json
import os
import signal
import sys
import threading

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword


class Recorder:
    def __init__(self, directory):
        self.path = os.path.join(directory, "messages.jsonl")
        self.lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):
        raw = envelope.original_content or envelope.content
        message = email.message_from_bytes(raw, policy=email.policy.default)
        parts = {}
        for part in message.walk():
            if part.get_content_maintype() == "text":
                parts[part.get_content_type()] = {
                    "content": part.get_content(),
                    "charset": part.get_content_charset(),
                    "encoding": part.get("Content-Transfer-Encoding"),
                }
        raw_subject = message.get("Subject", "")
        record = {
            "mailFrom": envelope.mail_from,
            "rcptTos": envelope.rcpt_tos,
            "from": str(message.get("From", "")),
            "to": str(message.get("To", "")),
            "subject": str(email.header.make_header(email.header.decode_header(raw_subject))) if raw_subject else "",
            # As sent (RFC 2047 words, folded), to check the encoding itself.
            "rawSubject": str(email.message_from_bytes(raw, policy=email.policy.compat32).get("Subject", "")),
            "messageId": str(message.get("Message-ID", "")),
            "date": str(message.get("Date", "")),
            "mimeVersion": str(message.get("MIME-Version", "")),
            "contentType": message.get_content_type(),
            "parts": parts,
            "authenticated": session.authenticated,
            "login": session.auth_data.login.decode() if isinstance(session.auth_data, LoginPassword) else None,
        }
        with self.lock, open(self.path, "a", encoding="utf-8") as out:
            out.write(json.dumps(record) + "\n")
        return "250 OK"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--auth")
    args = parser.parse_args()

    kwargs = {}
    if args.auth:
        user, password = args.auth.split(":", 1)

        def authenticator(server, session, envelope, mechanism, auth_data):
            ok = isinstance(auth_data, LoginPassword) and auth_data.login.decode() == user and auth_data.password.decode() == password
            return AuthResult(success=ok, auth_data=auth_data if ok else None)

        kwargs = {"authenticator": authenticator, "auth_require_tls": False, "auth_required": True}

    port = args.port
    if port == 0:
        import socket
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
    controller = Controller(Recorder(args.dir), hostname="127.0.0.1", port=port, server_kwargs=kwargs)
    controller.start()
    print(json.dumps({"port": port}), flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        stop.wait()
    finally:
        controller.stop()


if __name__ == "__main__":
    main()
