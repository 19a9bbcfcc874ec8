#!/usr/bin/env python3
"""Issue 34's figures: an announcement to every user of an imported dataset, and the latency
of GET /v1/admin/stats on it.

    bench/announce.py BINARY DATA_DIR [--stats-runs 20]

DATA_DIR is a SQLite data directory made by `pacenote import-parse` (bench/run.sh makes one per
scale; `bench/generate.py large OUT` and `pacenote import-parse OUT --data-dir DATA_DIR` by
hand). It is changed: every user gets one iOS installation (a hex token), and an admin is
made. The script starts the APNs stand-in of the tests (Tests/Support/standins/push_standin.py,
with the Python of scripts/python-env), serves DATA_DIR pushing to it, POSTs an announcement
due now, and measures from the POST's answer to the last inbox row and to the last push the
stand-in received. Prints one markdown table.
"""
import argparse
import json
import os
import secrets
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV_PYTHON = os.path.join(ROOT, ".build", "venv", "bin", "python3")


def call(port, method, path, body=None, token=None):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method,
                                     data=None if body is None else json.dumps(body).encode())
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", "Bearer " + token)
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read() or b"{}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("data_dir")
    parser.add_argument("--stats-runs", type=int, default=20)
    args = parser.parse_args()
    database = os.path.join(args.data_dir, "pacenote.sqlite")

    # One device per user, as if every user had the app on an iPhone.
    with sqlite3.connect(database) as db:
        db.execute("""INSERT OR IGNORE INTO installations (id, user_id, platform, device_token, locale, created_at, updated_at)
                      SELECT 'bench' || seq, id, 'ios', lower(hex(randomblob(32))), NULL, 0, 0 FROM users""")
        users = db.execute("SELECT COUNT(*) FROM users WHERE banned_at IS NULL").fetchone()[0]
        devices = db.execute("SELECT COUNT(*) FROM installations i JOIN users u ON u.id = i.user_id WHERE u.banned_at IS NULL").fetchone()[0]
    admin = "bench_admin_" + secrets.token_hex(3)
    password = "bench-password-123"
    subprocess.run([args.binary, "user", "create", "--username", admin, "--email", admin + "@example.com", "--password", password,
                    "--role", "admin", "--bcrypt-cost", "4", "--data-dir", args.data_dir], check=True, capture_output=True)
    users += 1

    work = tempfile.mkdtemp(prefix="pacenote-announce-")
    script = os.path.join(work, "script.json")
    with open(script, "w") as f:
        json.dump({"apnsTeamId": "TEAM123456", "apnsKeyId": "KEY1234567"}, f)
    standin = subprocess.Popen([VENV_PYTHON, os.path.join(ROOT, "Tests/Support/standins/push_standin.py"), "--dir", work, "--script", script],
                               stdout=subprocess.PIPE, text=True)
    standin_port = json.loads(standin.stdout.readline())["port"]
    server = subprocess.Popen([args.binary, "serve", "--listen", "127.0.0.1:0", "--data-dir", args.data_dir,
                               "--apns-key-file", os.path.join(work, "apns.p8"), "--apns-key-id", "KEY1234567", "--apns-team-id", "TEAM123456",
                               "--apns-topic", "com.example.vidwrc", "--apns-url", f"https://127.0.0.1:{standin_port}",
                               "--push-ca-file", os.path.join(work, "ca.pem"), "--limit-logins", "off", "--limit-requests", "off"],
                              stderr=subprocess.PIPE, text=True)
    try:
        port = None
        for line in server.stderr:
            if '"listening"' in line:
                port = int(json.loads(line)["listen"].rsplit(":", 1)[1])
                break
        # Keep reading its log, so that a full pipe never stops the server.
        threading.Thread(target=lambda: [None for _ in server.stderr], daemon=True).start()
        token = call(port, "POST", "/v1/sessions", {"login": admin, "password": password})["sessionToken"]
        log = os.path.join(work, "requests.jsonl")
        reader = sqlite3.connect(f"file:{database}?mode=ro", uri=True)

        started = time.monotonic()
        created = call(port, "POST", "/v1/announcements", {"title": {"en": "Season opener", "es": "Arranca la temporada"},
                                                            "body": {"en": "Sweden starts Thursday.", "es": "Suecia empieza el jueves."}}, token)
        answered = time.monotonic()
        inbox_done = push_done = None
        while (inbox_done is None or push_done is None) and time.monotonic() - started < 300:
            if inbox_done is None and reader.execute("SELECT COUNT(*) FROM notifications WHERE announcement_id = ?",
                                                     (created["id"],)).fetchone()[0] >= users:
                inbox_done = time.monotonic()
            if push_done is None and os.path.exists(log):
                with open(log) as f:
                    if sum(1 for line in f if "/3/device/" in line) >= devices:
                        push_done = time.monotonic()
            time.sleep(0.05)

        latencies = []
        for _ in range(args.stats_runs):
            t = time.monotonic()
            call(port, "GET", "/v1/admin/stats", token=token)
            latencies.append((time.monotonic() - t) * 1000)
        latencies.sort()
        fmt = lambda t: "%.2f s" % (t - started) if t else "not within 300 s"
        print("| measure | value |\n|---|---|")
        print(f"| users (inboxes) | {users:,} |\n| devices (pushes) | {devices:,} |")
        print(f"| POST /v1/announcements answered | {(answered - started) * 1000:.0f} ms |")
        print(f"| every inbox written | {fmt(inbox_done)} |\n| every push at the stand-in | {fmt(push_done)} |")
        print(f"| GET /v1/admin/stats, median of {len(latencies)} | {latencies[len(latencies) // 2]:.1f} ms |")
        print(f"| GET /v1/admin/stats, slowest | {latencies[-1]:.1f} ms |")
    finally:
        server.terminate()
        server.wait(timeout=30)
        standin.terminate()
        standin.wait(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
