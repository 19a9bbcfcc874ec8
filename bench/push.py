#!/usr/bin/env python3
"""Push delivery benchmark (issue 11; BENCHMARKS.md "Push delivery").

Usage: bench/push.sh [USERS]   (it builds the release binary and the Python env, then runs this)
       bench/push.py BINARY WORKDIR [--users 10000] [--backlog 20000] [--likes 7]

1. Writes a Parse export: an uploader, USERS fans who follow them, each fan with one iOS
   installation (as Parse's `_Installation` carried them), a live rally, one video by fan 1
   and a like of it by the uploader. Imports it with `pacenote import-parse`.
2. Starts the push stand-in (Tests/Support/standins/push_standin.py: HTTP/2 over TLS, JWT
   checked) on CPU 1 and the release server on CPU 0, pushing to it.
3. Broadcast: the uploader posts a video; every fan has `newVideos` on, so USERS pushes go
   out. Measured: the upload's answer time, and the time until the stand-in has received
   every push.
4. Lane isolation: BACKLOG following-feed fan-out jobs (each a real fan-out of the
   uploader's like to their USERS followers) are put in the outbox, then fans like fan 1's
   video one at a time; measured: the time from each like's answer to the push reaching
   the stand-in, while the feed backlog is still there (its size is read from /metrics).

Prints a JSON summary on stdout.
"""
import argparse
import json
import os
import signal
import sqlite3
import statistics
import subprocess
import sys
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HASH = "$2b$10$GEJQL85jLoFTvKgaCbdkRexqpdEz7F/BaKg9VQuJ1LE27ONXJJV4."  # "password123"
TEAM, KEY, TOPIC = "TEAM123456", "KEY1234567", "com.example.vidwrc"


def oid(prefix, n):
    return f"{prefix}{n:08d}"


def write_export(directory, users):
    iso = "2024-01-01T00:00:00.000Z"
    pointer = lambda cls, i: {"__type": "Pointer", "className": cls, "objectId": i}
    people = [{"objectId": oid("U", n), "username": f"fan{n}", "email": f"fan{n}@example.com", "displayName": f"Fan {n}",
               "bcryptPassword": HASH, "createdAt": iso, "updatedAt": iso} for n in range(users + 1)]
    people[0]["username"], people[0]["displayName"] = "uploader", "Uploader"
    start = {"__type": "Date", "iso": time.strftime("%Y-%m-%dT00:00:00.000Z", time.gmtime(time.time() - 86400))}
    end = {"__type": "Date", "iso": time.strftime("%Y-%m-%dT00:00:00.000Z", time.gmtime(time.time() + 86400))}
    rally = [{"objectId": "R0000001", "name": "Rally Bench", "country": "Finland", "iniDate": start, "endDate": end,
              "createdAt": iso, "updatedAt": iso}]
    video = [{"objectId": "V0000001", "youtubeID": "abcdefghijk", "title": "Fan stage", "nDay": 1,
              "rallyId": pointer("Rallye", "R0000001"), "owner": pointer("_User", oid("U", 1)), "nLikes": 1, "nComments": 0,
              "createdAt": iso, "updatedAt": iso}]
    activities = [{"objectId": oid("F", n), "type": 4, "fromUser": pointer("_User", oid("U", n)), "toUser": pointer("_User", oid("U", 0)),
                   "createdAt": iso, "updatedAt": iso} for n in range(1, users + 1)]
    activities.append({"objectId": "L0000001", "type": 1, "fromUser": pointer("_User", oid("U", 0)), "toUser": pointer("_User", oid("U", 1)),
                       "video": pointer("Video", "V0000001"), "createdAt": iso, "updatedAt": iso})
    installations = [{"objectId": oid("I", n), "deviceType": "ios", "deviceToken": f"{n:064x}", "user": pointer("_User", oid("U", n)),
                      "localeIdentifier": "es-ES" if n % 2 else "en-US", "createdAt": iso, "updatedAt": iso} for n in range(1, users + 1)]
    for name, rows in [("_User", people), ("Rallye", rally), ("Video", video), ("Activity", activities), ("_Installation", installations)]:
        with open(os.path.join(directory, f"{name}.json"), "w") as f:
            json.dump({"results": rows}, f)


def request(port, method, path, body=None, token=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method)
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(req, timeout=30) as answer:
        text = answer.read()
        return json.loads(text) if text else None


def metric(port, name, labels):
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
    for line in text.splitlines():
        if line.startswith(name + "{" + labels + "}"):
            return float(line.split()[-1])
    return 0.0


def pushed(log_path):
    try:
        with open(log_path, "rb") as f:
            return f.read().count(b"\n")
    except FileNotFoundError:
        return 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("work")
    parser.add_argument("--users", type=int, default=10_000)
    parser.add_argument("--backlog", type=int, default=20_000)
    parser.add_argument("--likes", type=int, default=7)
    options = parser.parse_args()
    work, binary = options.work, options.binary
    export, data, standin_dir = (os.path.join(work, d) for d in ("export", "data", "standin"))
    for d in (export, standin_dir):
        os.makedirs(d, exist_ok=True)
    summary = {"users": options.users, "backlog": options.backlog}

    write_export(export, options.users)
    started = time.monotonic()
    subprocess.run([binary, "import-parse", export, "--data-dir", data, "--log-level", "warning"], check=True, stdout=subprocess.DEVNULL)
    summary["import_seconds"] = round(time.monotonic() - started, 1)

    python = os.path.join(ROOT, ".build/venv/bin/python3")
    script = os.path.join(standin_dir, "script.json")
    with open(script, "w") as f:
        json.dump({"apnsTeamId": TEAM, "apnsKeyId": KEY}, f)
    standin = subprocess.Popen(["taskset", "-c", "1", python, os.path.join(ROOT, "Tests/Support/standins/push_standin.py"),
                                "--dir", standin_dir, "--script", script], stdout=subprocess.PIPE)
    server = None
    try:
        standin_port = json.loads(standin.stdout.readline())["port"]
        port = 20000 + os.getpid() % 20000
        log = open(os.path.join(work, "server.log"), "w")
        server = subprocess.Popen(["taskset", "-c", "0", binary, "serve", "--listen", f"127.0.0.1:{port}", "--data-dir", data,
                                   "--apns-key-file", os.path.join(standin_dir, "apns.p8"), "--apns-key-id", KEY, "--apns-team-id", TEAM,
                                   "--apns-topic", TOPIC, "--apns-url", f"https://127.0.0.1:{standin_port}",
                                   "--push-ca-file", os.path.join(standin_dir, "ca.pem")], stderr=log)
        for _ in range(300):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        requests_log = os.path.join(standin_dir, "requests.jsonl")
        uploader = request(port, "POST", "/v1/sessions", {"login": "uploader", "password": "password123"})["sessionToken"]
        # The import's own fan-out settles first, so the broadcast is measured alone.
        while metric(port, "pacenote_outbox_backlog", "") > 0:
            time.sleep(0.2)

        # 3. Broadcast.
        rally = request(port, "GET", "/v1/rallies", token=uploader)["items"][0]["id"]
        before = pushed(requests_log)
        t0 = time.monotonic()
        request(port, "POST", "/v1/videos", {"youtubeId": "zyxwvutsrqp", "title": "Power stage", "rallyId": rally, "day": 1}, token=uploader)
        summary["upload_answer_ms"] = round((time.monotonic() - t0) * 1000, 1)
        while pushed(requests_log) - before < options.users and time.monotonic() - t0 < 120:
            time.sleep(0.02)
        summary["broadcast_pushes"] = pushed(requests_log) - before
        summary["broadcast_seconds"] = round(time.monotonic() - t0, 2)
        while metric(port, "pacenote_outbox_backlog", "") > 0:
            time.sleep(0.2)

        # 4. A following-feed backlog of real fan-out jobs, then likes pushed through it.
        db = sqlite3.connect(os.path.join(data, "pacenote.sqlite"), timeout=30)
        now = int(time.time() * 1000)
        with db:
            db.executemany("INSERT INTO outbox (kind, payload, state, attempts, available_at, created_at, lane) VALUES (?, ?, 'pending', 0, ?, ?, 'feed')",
                           [("fanout.following", json.dumps({"activity": "L0000001", "after": 0}), now, now)] * options.backlog)
        db.close()
        latencies, backlogs = [], []
        for n in range(2, 2 + options.likes):
            token = request(port, "POST", "/v1/sessions", {"login": f"fan{n}", "password": "password123"})["sessionToken"]
            before = pushed(requests_log)
            request(port, "PUT", "/v1/videos/V0000001/like", token=token)
            t0 = time.monotonic()
            while pushed(requests_log) == before and time.monotonic() - t0 < 60:
                time.sleep(0.005)
            latencies.append(round((time.monotonic() - t0) * 1000, 1))
            backlogs.append(int(metric(port, "pacenote_outbox_lane_backlog", 'lane="feed"')))
        summary["like_push_ms"] = latencies
        summary["like_push_median_ms"] = statistics.median(latencies)
        summary["feed_backlog_during_likes"] = backlogs
    finally:
        if server:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=30)
        standin.kill()
        standin.wait()
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    sys.exit(main())
