#!/usr/bin/env python3
"""A local stand-in for sign-in providers, for SignInProvidersTests: a JWKS endpoint (Apple's
and Google's keys) and Facebook's Graph API (debug_token and /me).

It speaks HTTP/1.1 over TLS, with a certificate for 127.0.0.1 and localhost from a CA it creates
for the run (trustme), on 127.0.0.1 and a free port; with --plain, cleartext HTTP instead.

    identity_standin.py --dir DIR [--plain]

Writes into DIR: ca.pem; k1.pem, k2.pem, k3.pem (RSA 2048 private keys, PKCS#8 PEM) with
k1_pub.pem...; rogue.pem, a key never published; small.pem, a 1024-bit key; requests.jsonl (one
JSON object per request, {"path", "query"}, written before the answer). Prints {"port": N} on
stdout once it listens. Runs until killed, or until the process that started it is gone.

Every request reads DIR/control.json (when present; the test replaces it atomically):
  "jwks": {
    "keys": ["k1"]            names of the keys published, each with its name as its kid
    "mode": "ok"              ok | slow (answer after "delay" seconds) | down (503) |
                              garbage (200, not JSON) | huge (200, 2 MiB of JSON)
    "delay": 10
    "cacheControl": "public, max-age=3600"   the Cache-Control header (null: none)
    "extra": [...]            JWK objects appended to the set as given (odd keys)
  }
  "graph": {
    "mode": "ok"              ok | slow | down (503)
    "delay": 10
    "appId": "1234", "appSecret": "s3cret"   the app whose token debug_token accepts
    "tokens": {TOKEN: {"appId", "userId", "valid": true, "type": "USER", "meId", "name", "email"}}
                              meId defaults to userId; name and email are left out when absent
  }
"""
import argparse
import base64
import hashlib
import hmac
import http.server
import json
import os
import ssl
import sys
import threading
import time
import urllib.parse

import trustme
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa


def b64url_uint(value):
    raw = value.to_bytes((value.bit_length() + 7) // 8, "big")
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def make_keys(directory):
    public = {}
    for name, bits in (("k1", 2048), ("k2", 2048), ("k3", 2048), ("rogue", 2048), ("small", 1024)):
        key = rsa.generate_private_key(public_exponent=65537, key_size=bits)
        with open(os.path.join(directory, name + ".pem"), "wb") as f:
            f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption()))
        with open(os.path.join(directory, name + "_pub.pem"), "wb") as f:
            f.write(key.public_key().public_bytes(serialization.Encoding.PEM,
                                                  serialization.PublicFormat.SubjectPublicKeyInfo))
        numbers = key.public_key().public_numbers()
        public[name] = {"kty": "RSA", "kid": name, "use": "sig", "alg": "RS256",
                        "n": b64url_uint(numbers.n), "e": b64url_uint(numbers.e)}
    return public


class StandIn:
    def __init__(self, directory):
        self.directory = directory
        self.jwks = make_keys(directory)
        self.log_lock = threading.Lock()
        self.log = open(os.path.join(directory, "requests.jsonl"), "a", encoding="utf-8")

    def control(self):
        try:
            with open(os.path.join(self.directory, "control.json"), encoding="utf-8") as f:
                return json.load(f)
        except FileNotFoundError:
            return {}

    def record(self, path, query):
        with self.log_lock:
            self.log.write(json.dumps({"path": path, "query": query}) + "\n")
            self.log.flush()


def make_handler(standin):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def answer(self, status, body, headers=None):
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
                # The client gave up (a slow mode outlived its bound).
                self.close_connection = True

        def do_GET(self):
            parsed = urllib.parse.urlsplit(self.path)
            query = {k: v[0] for k, v in urllib.parse.parse_qs(parsed.query, keep_blank_values=True).items()}
            standin.record(parsed.path, query)
            control = standin.control()
            if parsed.path == "/jwks":
                self.jwks(control.get("jwks", {}))
            elif parsed.path == "/debug_token":
                self.graph(control.get("graph", {}), self.debug_token, query)
            elif parsed.path == "/me":
                self.graph(control.get("graph", {}), self.me, query)
            else:
                self.answer(404, {"error": "no such path"})

        def jwks(self, settings):
            mode = settings.get("mode", "ok")
            if mode == "slow":
                time.sleep(settings.get("delay", 10))
            if mode == "down":
                return self.answer(503, {"error": "down"})
            if mode == "garbage":
                return self.answer(200, b"<html>not a key set</html>")
            if mode == "huge":
                return self.answer(200, {"keys": [], "padding": "x" * (2 << 20)})
            keys = [standin.jwks[name] for name in settings.get("keys", ["k1"])] + settings.get("extra", [])
            headers = {}
            cache_control = settings.get("cacheControl", "public, max-age=3600")
            if cache_control is not None:
                headers["Cache-Control"] = cache_control
            self.answer(200, {"keys": keys}, headers)

        def graph(self, settings, handler, query):
            mode = settings.get("mode", "ok")
            if mode == "slow":
                time.sleep(settings.get("delay", 10))
            if mode == "down":
                return self.answer(503, {"error": {"message": "down", "code": 2}})
            handler(settings, query)

        def debug_token(self, settings, query):
            app_token = f"{settings.get('appId', '1234')}|{settings.get('appSecret', 's3cret')}"
            if query.get("access_token") != app_token:
                return self.answer(400, {"error": {"message": "Invalid OAuth access token signature.",
                                                   "type": "OAuthException", "code": 190}})
            token = settings.get("tokens", {}).get(query.get("input_token", ""))
            if token is None:
                return self.answer(200, {"data": {"error": {"code": 190, "message": "Invalid OAuth access token."},
                                                  "is_valid": False, "scopes": []}})
            data = {"app_id": token.get("appId", settings.get("appId", "1234")), "type": token.get("type", "USER"),
                    "application": "Pacenote", "expires_at": int(time.time()) + 3600,
                    "is_valid": token.get("valid", True), "scopes": ["public_profile", "email"]}
            if token.get("userId") is not None:
                data["user_id"] = token["userId"]
            self.answer(200, {"data": data})

        def me(self, settings, query):
            access_token = query.get("access_token", "")
            token = settings.get("tokens", {}).get(access_token)
            if token is None:
                return self.answer(400, {"error": {"message": "Invalid OAuth access token.", "type": "OAuthException", "code": 190}})
            secret = settings.get("appSecret", "s3cret").encode()
            proof = hmac.new(secret, access_token.encode(), hashlib.sha256).hexdigest()
            if query.get("appsecret_proof") != proof:
                return self.answer(400, {"error": {"message": "Invalid appsecret_proof provided in the API argument",
                                                   "type": "GraphMethodException", "code": 100}})
            profile = {"id": token.get("meId", token.get("userId"))}
            fields = query.get("fields", "").split(",")
            for field in ("name", "email"):
                if field in fields and token.get(field) is not None:
                    profile[field] = token[field]
            self.answer(200, profile)

    return Handler


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address, handler, context):
        super().__init__(address, handler)
        self.context = context

    def finish_request(self, request, client_address):
        # The TLS handshake runs on the request's own thread, not the accepting one.
        if self.context is None:
            return super().finish_request(request, client_address)
        try:
            wrapped = self.context.wrap_socket(request, server_side=True)
        except (ssl.SSLError, OSError):
            return
        try:
            super().finish_request(wrapped, client_address)
        finally:
            wrapped.close()


def watch_parent():
    """Exits when the test process that started us is gone (a crashed test never kills us)."""
    parent = os.getppid()

    def watch():
        while os.getppid() == parent:
            time.sleep(1)
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--plain", action="store_true")
    args = parser.parse_args()
    standin = StandIn(args.dir)
    context = None
    if not args.plain:
        ca = trustme.CA()
        ca.cert_pem.write_to_path(os.path.join(args.dir, "ca.pem"))
        cert = ca.issue_cert("127.0.0.1", "localhost")
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        cert.configure_cert(context)
    server = Server(("127.0.0.1", 0), make_handler(standin), context)
    watch_parent()
    print(json.dumps({"port": server.server_address[1]}), flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
