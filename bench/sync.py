#!/usr/bin/env python3
"""The measurements of issue 32 (sync), on a server bench/sync.sh started on a copy of a data
directory bench/run.sh imported (STATE is what `bench/prepare.py setup` wrote for it).

  sync.py conditional URL STATE OUT_DIR
      writes the request lists of the conditional scenarios (bench/scenarios/conditional.lua):
      `video.txt` (GET /v1/videos/{id} of many videos by many users) and `home.txt` (the first
      page of the home feeds home-first reads), each line `path token etag`, the ETag being the
      one the server answers now; and prints the bytes on the wire of one 200 and one 304.
  sync.py refresh URL STATE DB PID
      a reader with a home feed of 10,000 videos (it follows the accounts with the most videos
      until its home_timeline holds that many, then waits for the fan-out); its first page; 5
      followed users post a video each; then requests of each kind, one at a time: the
      refresh (newerThan: the 5 new), the first page again (200), the first page with the old
      ETag (200: it changed) and with the new one (304), 2,000 of each. Prints each one's median wall time, the
      server's CPU per request and the bytes on the wire.
  sync.py snapshot URL STATE PID
      a full catalogue snapshot (GET /v1/changes without `since`, pages of 500, until hasMore
      is false): time, pages, changes, bytes, and the server's resident memory before, at its
      highest during (sampled every 20 ms) and after.
"""
import http.client
import json
import os
import sqlite3
import statistics
import sys
import threading
import time
import urllib.parse


def fail(message):
    print(f"sync.py: {message}", file=sys.stderr)
    sys.exit(1)


class Client:
    """One keep-alive connection; answers (status, headers, body bytes, wire bytes)."""

    def __init__(self, url):
        parsed = urllib.parse.urlparse(url)
        self.connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=60)

    def request(self, method, path, token=None, body=None, headers=None):
        sent = dict(headers or {})
        if token:
            sent["Authorization"] = f"Bearer {token}"
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            sent["Content-Type"] = "application/json"
        self.connection.request(method, path, body=data, headers=sent)
        response = self.connection.getresponse()
        payload = response.read()
        # What came over the wire: the status line, the headers and the body.
        head = len(f"HTTP/1.1 {response.status} {response.reason}\r\n") + sum(
            len(f"{k}: {v}\r\n") for k, v in response.getheaders()) + 2
        return response.status, dict((k.lower(), v) for k, v in response.getheaders()), payload, head + len(payload)

    def json(self, method, path, token=None, body=None, headers=None, expect=(200,)):
        status, answer_headers, payload, _ = self.request(method, path, token, body, headers)
        if status not in expect:
            fail(f"{method} {path} answered {status}: {payload[:300]!r}")
        return (json.loads(payload) if payload else None), answer_headers


def lines(state, name):
    with open(os.path.join(state, name)) as f:
        return [line.split() for line in f if line.strip()]


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def conditional(url, state, out):
    client = Client(url)
    tokens, videos = [t[0] for t in lines(state, "tokens.txt")], [v[0] for v in lines(state, "videos.txt")]
    os.makedirs(out, exist_ok=True)
    wire = {}
    for name, targets in (
        ("video", [(f"/v1/videos/{videos[(k * 31) % len(videos)]}", tokens[k % len(tokens)]) for k in range(400)]),
        ("home", [("/v1/feed/home?limit=20", line[0]) for line in lines(state, "deep.txt")]),
    ):
        with open(os.path.join(out, f"{name}.txt"), "w") as f:
            for path, token in targets:
                status, headers, _, size = client.request("GET", path, token)
                if status != 200 or "etag" not in headers:
                    fail(f"GET {path} answered {status} without an ETag")
                f.write(f"{path} {token} {headers['etag']}\n")
            status, _, _, not_modified = client.request("GET", path, token, headers={"If-None-Match": headers["etag"]})
            if status != 304:
                fail(f"GET {path} with its ETag answered {status}, not 304")
            wire[name] = (size, not_modified)
    for name, (full, not_modified) in wire.items():
        print(f"wire {name} 200 {full} 304 {not_modified}")


def timed(client, pid, count, method, path, token, headers=None, expect=200):
    """`count` requests one at a time: median wall ms, server CPU µs per request, wire bytes."""
    walls, size = [], 0
    before = cpu_seconds(pid)
    for _ in range(count):
        start = time.perf_counter()
        status, _, _, size = client.request(method, path, token, headers=headers)
        walls.append((time.perf_counter() - start) * 1000)
        if status != expect:
            fail(f"{method} {path} answered {status}, not {expect}")
    cpu = (cpu_seconds(pid) - before) / count * 1e6
    return statistics.median(walls), cpu, size


def refresh(url, state, db, pid):
    client = Client(url)
    reader_name = f"sync{int(time.time())}"
    made, _ = client.json("POST", "/v1/users", body={"username": reader_name, "email": f"{reader_name}@example.com",
                                                     "password": "password123"}, expect=(201,))
    reader, reader_id = made["sessionToken"], made["user"]["id"]
    database = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    reader_seq = database.execute("SELECT seq FROM users WHERE id = ?", (reader_id,)).fetchone()[0]

    # Five posters whose tokens prepare.py kept; then the accounts with the most videos.
    posters = []
    for token in [t[0] for t in lines(state, "tokens.txt")][:5]:
        me, _ = client.json("GET", "/v1/users/me", token)
        posters.append((me["id"], token))
    followed = [p[0] for p in posters]
    for owner, in database.execute("SELECT owner_id FROM videos GROUP BY owner_id ORDER BY count(*) DESC"):
        if owner not in followed:
            followed.append(owner)
    home = 0
    for index, owner in enumerate(followed):
        client.json("PUT", f"/v1/users/{owner}/follow", reader)
        if index % 50 == 49:
            home = database.execute("SELECT count(*) FROM home_timeline WHERE user_seq = ?", (reader_seq,)).fetchone()[0]
            if home >= 10_000:
                break
    # The fan-out of older videos goes through the outbox: wait until the home holds them all.
    for _ in range(600):
        pending = database.execute("SELECT count(*) FROM outbox WHERE state IN ('pending', 'leased')").fetchone()[0]
        if pending == 0:
            break
        time.sleep(0.1)
    home = database.execute("SELECT count(*) FROM home_timeline WHERE user_seq = ?", (reader_seq,)).fetchone()[0]
    print(f"refresh: the reader follows {index + 1} accounts; its home feed holds {home} videos")

    first_path = "/v1/feed/home?limit=20"
    page, headers = client.json("GET", first_path, reader)
    old_etag, prev = headers["etag"], page["prevCursor"]
    for _, token in posters:
        rally = page["items"][0]["rallyId"]
        client.json("POST", "/v1/videos", token, body={"youtubeId": f"sync{token[:7]}", "title": "Refresh bench",
                                                        "rallyId": rally, "day": 1}, expect=(201,))
    refresh_path = f"{first_path}&newerThan={urllib.parse.quote(prev)}"
    answer, _ = client.json("GET", refresh_path, reader)
    if len(answer["items"]) != 5 or answer["hasNewer"]:
        fail(f"the refresh answered {len(answer['items'])} items, hasNewer {answer['hasNewer']}")
    _, new_headers = client.json("GET", first_path, reader)
    count = 2000
    rows = [
        ("refresh (newerThan, 5 new)", timed(client, pid, count, "GET", refresh_path, reader)),
        ("first page again", timed(client, pid, count, "GET", first_path, reader)),
        ("first page, old ETag (changed)", timed(client, pid, count, "GET", first_path, reader, {"If-None-Match": old_etag})),
        ("first page, new ETag (304)", timed(client, pid, count, "GET", first_path, reader, {"If-None-Match": new_headers["etag"]}, 304)),
    ]
    print("| request | median wall (ms) | server CPU per request (µs) | bytes on the wire |")
    print("|---|---:|---:|---:|")
    for name, (wall, cpu, size) in rows:
        print(f"| {name} | {wall:.2f} | {cpu:.0f} | {size:,} |")


def snapshot(url, state, pid):
    client = Client(url)
    token = lines(state, "tokens.txt")[0][0]
    samples, done = [], threading.Event()

    def sample():
        while not done.is_set():
            samples.append(rss_kb(pid))
            time.sleep(0.02)

    before = rss_kb(pid)
    sampler = threading.Thread(target=sample)
    sampler.start()
    start, pages, changes, size, since = time.perf_counter(), 0, 0, 0, None
    cpu_before = cpu_seconds(pid)
    while True:
        path = "/v1/changes?limit=500" + (f"&since={urllib.parse.quote(since)}" if since else "")
        status, _, payload, wire = client.request("GET", path, token)
        if status != 200:
            fail(f"GET {path} answered {status}: {payload[:200]!r}")
        answer = json.loads(payload)
        pages, changes, size, since = pages + 1, changes + len(answer["changes"]), size + wire, answer["next"]
        if not answer["hasMore"]:
            break
    elapsed = time.perf_counter() - start
    cpu = cpu_seconds(pid) - cpu_before
    done.set()
    sampler.join()
    after = rss_kb(pid)
    print(f"snapshot: {changes:,} changes in {pages} pages of 500, {elapsed:.1f} s wall, {cpu:.1f} s server CPU, "
          f"{size / 1e6:.1f} MB on the wire; server RSS {before / 1024:.0f} MiB before, "
          f"{max(samples) / 1024:.0f} MiB at most during, {after / 1024:.0f} MiB after")


def main():
    if len(sys.argv) < 2:
        fail(__doc__)
    command, args = sys.argv[1], sys.argv[2:]
    if command == "conditional" and len(args) == 3:
        conditional(*args)
    elif command == "refresh" and len(args) == 4:
        refresh(args[0], args[1], args[2], int(args[3]))
    elif command == "snapshot" and len(args) == 3:
        snapshot(args[0], args[1], int(args[2]))
    else:
        fail(__doc__)


if __name__ == "__main__":
    main()
