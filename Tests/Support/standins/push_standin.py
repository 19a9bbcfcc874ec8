#!/usr/bin/env python3
"""A local stand-in for APNs, FCM (token endpoint and send) and a webhook relay, for DeliveryTests.

It speaks HTTP/2 over TLS only (ALPN "h2"), with a certificate from a CA it creates for the
run (trustme), on 127.0.0.1 and a free port. It also creates the keys a test needs: an APNs
.p8 (EC P-256) and a service account's RSA key, and checks what the client signs with them.

    push_standin.py --dir DIR [--script FILE]

Writes into DIR: ca.pem, apns.p8, apns_pub.pem, fcm_key.pem, fcm_pub.pem, and requests.jsonl
(one JSON object per request, written before the answer is sent). Prints {"port": N} on stdout
once it listens. Runs until killed.

The script (JSON) says how to answer:
  "responses": {KEY: [{"status": 503, "headers": {"retry-after": "7"}, "body": {...}}, ...]}
      KEY is the device token (APNs path, FCM message.token) or the X-Pacenote-Delivery id
      (webhook), else the webhook's path (for deliveries whose id a test cannot know ahead). Each request takes the first answer; the last one repeats. Default: 200.
  "apnsTeamId", "apnsKeyId": what an APNs JWT must carry (else 403 InvalidProviderToken).
  "expiresIn": the access tokens' lifetime in seconds (default 3600).
  "rejectAccessTokens": access tokens FCM answers 401 to (they are "access-1", "access-2", ...).
  "webhookSecret": the HMAC secret webhook signatures are checked with.
  "answerDelay": seconds to hold every answer (the request is logged when it arrives), so a
      client can be stopped while its requests are in flight.
"""
import argparse
import asyncio
import hashlib
import hmac
import itertools
import json
import os
import signal
import ssl
import sys
import time
import urllib.parse

import h2.config
import h2.connection
import h2.events
import h2.exceptions
import h2.settings
import jwt
import trustme
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa


def write_keys(directory):
    def private_pem(key):
        return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                 serialization.NoEncryption())

    def public_pem(key):
        return key.public_key().public_bytes(serialization.Encoding.PEM,
                                             serialization.PublicFormat.SubjectPublicKeyInfo)

    ec_key = ec.generate_private_key(ec.SECP256R1())
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    files = {"apns.p8": private_pem(ec_key), "apns_pub.pem": public_pem(ec_key),
             "fcm_key.pem": private_pem(rsa_key), "fcm_pub.pem": public_pem(rsa_key)}
    for name, data in files.items():
        with open(os.path.join(directory, name), "wb") as f:
            f.write(data)
    return public_pem(ec_key), public_pem(rsa_key)


class StandIn:
    def __init__(self, directory, script, apns_public, fcm_public):
        self.directory = directory
        self.script = script
        self.apns_public = apns_public
        self.fcm_public = fcm_public
        self.responses = {k: list(v) for k, v in script.get("responses", {}).items()}
        self.connections = itertools.count(1)
        self.tokens_issued = itertools.count(1)
        self.issued = set()
        self.port = None
        self.log = open(os.path.join(directory, "requests.jsonl"), "a", encoding="utf-8")
        self.verdicts = {}

    def scripted(self, key):
        answers = self.responses.get(key)
        if not answers:
            return None
        return answers.pop(0) if len(answers) > 1 else answers[0]

    def record(self, entry):
        # Flushed once per batch of frames read (serve_connection), before any answer of the
        # batch is sent: a client that saw an answer finds its request in the log.
        self.log.write(json.dumps(entry) + "\n")

    # Each handler returns (entry fields, status, headers, body bytes).
    def apns(self, headers, path, body):
        token = path[len("/3/device/"):]
        verdict = {"valid": False}
        auth = headers.get("authorization", "")
        if auth.startswith("bearer ") and auth in self.verdicts:
            verdict = self.verdicts[auth]
        elif auth.startswith("bearer "):
            raw = auth[len("bearer "):]
            try:
                claims = jwt.decode(raw, self.apns_public, algorithms=["ES256"],
                                    options={"verify_iat": False, "verify_exp": False})
                header = jwt.get_unverified_header(raw)
                verdict = {"valid": header.get("kid") == self.script.get("apnsKeyId")
                           and claims.get("iss") == self.script.get("apnsTeamId"),
                           "header": header, "claims": claims}
            except jwt.PyJWTError as error:
                verdict = {"valid": False, "error": type(error).__name__}
            # A provider token is reused for many requests (that is the point of it): verified once.
            self.verdicts[auth] = verdict
        if not verdict["valid"]:
            return {"jwt": verdict}, 403, {}, json.dumps({"reason": "InvalidProviderToken"}).encode()
        answer = self.scripted(token) or {"status": 200}
        reply_headers = {"apns-id": headers.get("apns-id", "generated")}
        return {"jwt": verdict}, answer["status"], {**reply_headers, **answer.get("headers", {})}, encode(answer.get("body"))

    def token(self, headers, path, body):
        form = urllib.parse.parse_qs(body.decode(), strict_parsing=False)
        grant = form.get("grant_type", [""])[0]
        assertion = form.get("assertion", [""])[0]
        audience = f"https://127.0.0.1:{self.port}/token"
        verdict = {"valid": False}
        try:
            claims = jwt.decode(assertion, self.fcm_public, algorithms=["RS256"], audience=audience,
                                options={"verify_iat": False, "verify_exp": False})
            verdict = {"valid": claims.get("scope") == "https://www.googleapis.com/auth/firebase.messaging"
                       and claims.get("exp", 0) - claims.get("iat", 0) == 3600,
                       "claims": claims, "header": jwt.get_unverified_header(assertion)}
        except jwt.PyJWTError as error:
            verdict = {"valid": False, "error": type(error).__name__}
        entry = {"grantType": grant, "assertion": verdict}
        if grant != "urn:ietf:params:oauth:grant-type:jwt-bearer" or not verdict["valid"]:
            return entry, 400, {}, json.dumps({"error": "invalid_grant"}).encode()
        access = f"access-{next(self.tokens_issued)}"
        self.issued.add(access)
        reply = {"access_token": access, "expires_in": self.script.get("expiresIn", 3600), "token_type": "Bearer"}
        return entry, 200, {"content-type": "application/json"}, json.dumps(reply).encode()

    def fcm(self, headers, path, body):
        auth = headers.get("authorization", "")
        access = auth[len("Bearer "):] if auth.startswith("Bearer ") else ""
        if access not in self.issued or access in self.script.get("rejectAccessTokens", []):
            error = {"error": {"code": 401, "status": "UNAUTHENTICATED", "message": "Request had invalid authentication credentials."}}
            return {}, 401, {}, json.dumps(error).encode()
        try:
            token = json.loads(body)["message"]["token"]
        except (ValueError, KeyError, TypeError):
            return {}, 400, {}, json.dumps({"error": {"code": 400, "status": "INVALID_ARGUMENT", "message": "bad body"}}).encode()
        answer = self.scripted(token) or {"status": 200, "body": {"name": f"{path}/1"}}
        return {}, answer["status"], answer.get("headers", {}), encode(answer.get("body"))

    def webhook(self, headers, path, body):
        valid = False
        secret = self.script.get("webhookSecret", "").encode()
        parts = dict(p.split("=", 1) for p in headers.get("x-pacenote-signature", "").split(",") if "=" in p)
        if "t" in parts and "v1" in parts:
            expected = hmac.new(secret, parts["t"].encode() + b"." + body, hashlib.sha256).hexdigest()
            valid = hmac.compare_digest(expected, parts["v1"])
        answer = self.scripted(headers.get("x-pacenote-delivery", "")) or self.scripted(path) or {"status": 200}
        return {"signatureValid": valid}, answer["status"], answer.get("headers", {}), encode(answer.get("body"))

    def answer(self, connection, headers, body):
        path = headers.get(":path", "")
        if path.startswith("/3/device/"):
            handler = self.apns
        elif path == "/token":
            handler = self.token
        elif path.startswith("/v1/projects/"):
            handler = self.fcm
        else:
            handler = self.webhook
        fields, status, reply_headers, reply_body = handler(headers, path, body)
        self.record({"t": time.time(), "connection": connection, "method": headers.get(":method"), "path": path,
                     "headers": {k: v for k, v in headers.items() if not k.startswith(":")},
                     "body": body.decode("utf-8", "replace"), "status": status, **fields})
        return status, reply_headers, reply_body

    @staticmethod
    def reply(h2_connection, stream_id, answer):
        status, reply_headers, reply_body = answer
        response = [(":status", str(status)), ("content-length", str(len(reply_body)))]
        response += [(k.lower(), str(v)) for k, v in reply_headers.items()]
        h2_connection.send_headers(stream_id, response, end_stream=not reply_body)
        if reply_body:
            h2_connection.send_data(stream_id, reply_body, end_stream=True)

    async def reply_later(self, h2_connection, writer, stream_id, answer, delay):
        await asyncio.sleep(delay)
        try:
            self.reply(h2_connection, stream_id, answer)
            writer.write(h2_connection.data_to_send())
            await writer.drain()
        except (ConnectionError, ssl.SSLError, h2.exceptions.ProtocolError, h2.exceptions.StreamClosedError):
            pass  # the client went away meanwhile

    async def serve_connection(self, reader, writer):
        connection = next(self.connections)
        h2_connection = h2.connection.H2Connection(
            config=h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
        # APNs lets a connection carry up to 1,000 concurrent streams; so does the stand-in.
        h2_connection.local_settings = h2.settings.Settings(client=False, initial_values={h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: 1000})
        h2_connection.initiate_connection()
        writer.write(h2_connection.data_to_send())
        streams = {}
        try:
            while True:
                data = await reader.read(65535)
                if not data:
                    break
                try:
                    events = h2_connection.receive_data(data)
                except h2.exceptions.ProtocolError:
                    break
                for event in events:
                    if isinstance(event, h2.events.RequestReceived):
                        streams[event.stream_id] = (dict(event.headers), bytearray())
                    elif isinstance(event, h2.events.DataReceived):
                        if event.stream_id in streams:
                            streams[event.stream_id][1].extend(event.data)
                        h2_connection.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                    elif isinstance(event, h2.events.StreamEnded):
                        headers, body = streams.pop(event.stream_id, ({}, bytearray()))
                        answer = self.answer(connection, headers, bytes(body))
                        delay = self.script.get("answerDelay", 0)
                        if delay:
                            asyncio.get_running_loop().create_task(
                                self.reply_later(h2_connection, writer, event.stream_id, answer, delay))
                        else:
                            self.reply(h2_connection, event.stream_id, answer)
                    elif isinstance(event, h2.events.ConnectionTerminated):
                        break
                self.log.flush()
                writer.write(h2_connection.data_to_send())
                await writer.drain()
        except (ConnectionError, ssl.SSLError):
            pass
        finally:
            self.log.flush()
            writer.close()


def encode(body):
    if body is None:
        return b""
    if isinstance(body, str):
        return body.encode()
    return json.dumps(body).encode()


async def main():
    # A child of a Dispatch worker thread inherits its mask, which blocks SIGTERM and SIGINT.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--script")
    options = parser.parse_args()
    script = {}
    if options.script:
        with open(options.script, encoding="utf-8") as f:
            script = json.load(f)
    ca = trustme.CA()
    ca.cert_pem.write_to_path(os.path.join(options.dir, "ca.pem"))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ca.issue_cert("127.0.0.1", "localhost").configure_cert(context)
    context.set_alpn_protocols(["h2"])
    apns_public, fcm_public = write_keys(options.dir)
    standin = StandIn(options.dir, script, apns_public, fcm_public)
    server = await asyncio.start_server(standin.serve_connection, "127.0.0.1", 0, ssl=context)
    standin.port = server.sockets[0].getsockname()[1]
    print(json.dumps({"port": standin.port}), flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
