#!/usr/bin/env python3
"""The benchmark's helper, called by bench/run.sh (stdlib only).

  prepare.py setup URL DB STATE [--users 200] [--deep 50] [--pages 50] [--videos 2000] [--seed 1]
      Picks the users, logs them in (in parallel), and writes the files the wrk scripts
      read into STATE: tokens.txt, logins.txt, videos.txt, rally.txt, deep.txt, parse-home.txt and search.txt.
  prepare.py login-time URL STATE [-n 20]
      Sequential logins of one user; prints and stores (login_time.json) the median seconds.
  prepare.py counters DB
      Checks every video's likes_count and comments_count against its activities
      (and every user's followers and following counts); prints OK or the drift, as JSON.
  prepare.py drain DB LABEL
      Waits (up to 5 minutes) until the outbox has no job pending or leased; prints the CSV
      row LABEL,backlog,seconds,left for outbox.csv.
  prepare.py wrk FILE
      Reads wrk --latency output; prints JSON: rps, p50_ms, p99_ms, requests, non2xx, errors.
  prepare.py photo OUT [--width 4000] [--height 3000] [--seed 1]
      Draws a photo-like JPEG (smooth colour gradients, blotches at two scales and fine noise,
      quality 90: a 12-megapixel one is about 4 MB, as a phone's photo) with `vips` (Debian's
      libvips-tools), so no multi-megabyte file is committed.
  prepare.py upload-time URL STATE PHOTO --pid PID [-n 7] [--warm-up SMALL_PHOTO]
      Sequential uploads of PHOTO as one user's profile picture (PUT /v1/users/me/avatar); stores
      (upload_time.json) and prints the median seconds, the server's CPU time per upload
      (/proc/PID/stat, all its threads) and its VmHWM (/proc/PID/status) before the first upload,
      after it and after the last. With --warm-up, SMALL_PHOTO is uploaded once first (and its
      VmHWM recorded), so that libvips's start is not counted in the first upload's memory.
  prepare.py pictures URL STATE PHOTO [--users 100] [--uploaders 4]
      Uploads PHOTO as the picture of the first --users users of tokens.txt (two at a time, as
      the media pool has two threads) and writes avatars.txt (each one's 400 px and 100 px
      rendition names) and uploaders.txt (the tokens of --uploaders other users, for the
      uploads scenario, so its uploads never replace a picture another scenario reads).

DB is the server's SQLite file, opened read-only, or a postgres:// URL, read through psql
(the client installed with PostgreSQL; no Python driver needed). The queries are written
once for both: booleans are tested with NOT, which SQLite's 0/1 flags understand too.
"""
import argparse
import concurrent.futures
import json
import os
import random
import re
import sqlite3
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

PASSWORD = "password123"


def fail(message):
    print(f"prepare.py: error: {message}", file=sys.stderr)
    sys.exit(1)


class Postgres:
    """The few calls of sqlite3 this script makes (execute, fetchone, fetchall, iteration),
    over psql: each query's rows come back as one JSON document, so numbers stay numbers.
    A row is a JSON object, so the columns of a query need distinct names."""

    def __init__(self, url):
        self.url = url
        self.rows = []

    def execute(self, sql):
        query = f"SELECT COALESCE(json_agg(q), '[]') FROM ({sql}) q"
        done = subprocess.run(["psql", self.url, "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-c", query],
                              capture_output=True, text=True)
        if done.returncode != 0:
            fail(f"psql failed: {done.stderr.strip()}")
        self.rows = [tuple(row.values()) for row in json.loads(done.stdout)]
        return self

    def fetchone(self):
        return self.rows[0] if self.rows else None

    def fetchall(self):
        return self.rows

    def __iter__(self):
        return iter(self.rows)


def connect(db):
    if db.startswith(("postgres://", "postgresql://")):
        return Postgres(db)
    if not os.path.exists(db):
        fail(f"no database at {db}")
    return sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)


def http(url, method="GET", body=None, token=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method)
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=120) as resp:
            return resp.status, json.loads(resp.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")


def login(url, name):
    status, answer = http(f"{url}/v1/sessions", "POST", {"login": name, "password": PASSWORD})
    if status != 201:
        fail(f"login of {name} answered {status}: {answer}")
    return answer["sessionToken"]


def write_lines(path, lines):
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def setup(args):
    os.makedirs(args.state, exist_ok=True)
    rng = random.Random(args.seed)
    db = connect(args.db)
    # Users with the longest home feeds (videos of the accounts they follow, and their own)
    # go first: the deep-page scenario needs feeds of more than pages x 20 videos.
    per_owner = dict(db.execute("SELECT owner_id, COUNT(*) AS videos FROM videos WHERE NOT hidden GROUP BY owner_id"))
    feed = dict(per_owner)
    for follower, followed in db.execute("SELECT from_user_id, to_user_id FROM activities WHERE type = 4"):
        feed[follower] = feed.get(follower, 0) + per_owner.get(followed, 0)
    by_id = dict(db.execute("SELECT id, username FROM users WHERE banned_at IS NULL"))
    feed_sizes = sorted(((by_id[u], n) for u, n in feed.items() if u in by_id), key=lambda r: (-r[1], r[0]))
    everyone = [r[0] for r in db.execute("SELECT username FROM users WHERE banned_at IS NULL ORDER BY seq")]
    if len(everyone) < args.users:
        fail(f"only {len(everyone)} users in {args.db}, {args.users} wanted")
    heavy = [name for name, size in feed_sizes if size > args.pages * 20][:args.deep]
    others = [name for name in everyone if name not in set(heavy)]
    names = heavy + rng.sample(others, args.users - len(heavy))

    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        tokens = list(pool.map(lambda n: login(args.url, n), names))
    print(f"prepare.py: logged in {len(tokens)} users in {time.monotonic() - started:.1f} s", file=sys.stderr)
    write_lines(os.path.join(args.state, "tokens.txt"), tokens)
    write_lines(os.path.join(args.state, "logins.txt"), names)

    videos = [r[0] for r in db.execute("SELECT id FROM videos WHERE NOT hidden")]
    if not videos:
        fail("no videos in the database")
    write_lines(os.path.join(args.state, "videos.txt"), rng.sample(videos, min(args.videos, len(videos))))
    rally = db.execute("""SELECT rally_id, day, COUNT(*) AS videos FROM videos WHERE NOT hidden
                          GROUP BY rally_id, day ORDER BY 3 DESC LIMIT 1""").fetchone()
    write_lines(os.path.join(args.state, "rally.txt"), [f"{rally[0]} {rally[1]}"])
    print(f"prepare.py: {len(videos)} videos; rally {rally[0]} day {rally[1]} has {rally[2]} videos", file=sys.stderr)

    # The cursor of page `pages` of each heavy user's home feed (limit 20), walked page by page.
    def deep_cursor(token):
        cursor = None
        for page in range(1, args.pages):
            query = "limit=20" + (f"&cursor={urllib.parse.quote(cursor, safe='')}" if cursor else "")
            status, answer = http(f"{args.url}/v1/feed/home?{query}", token=token)
            if status != 200:
                fail(f"GET /v1/feed/home page {page} answered {status}: {answer}")
            cursor = answer.get("nextCursor")
            if not cursor:
                return None
        return urllib.parse.quote(cursor, safe="")

    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        cursors = list(pool.map(deep_cursor, tokens[:len(heavy)]))
    deep = [f"{t} {c}" for t, c in zip(tokens, cursors) if c]
    print(f"prepare.py: {len(deep)} home feeds reach page {args.pages} "
          f"({time.monotonic() - started:.1f} s to walk them)", file=sys.stderr)
    if len(deep) < min(10, args.deep):
        fail(f"only {len(deep)} users have a home feed {args.pages} pages deep; the dataset is too small")
    write_lines(os.path.join(args.state, "deep.txt"), deep)
    # The same users with their ids, for the Parse facade's home feed (parse-home: a `$select` on
    # the user's follows names the user by id, as the app does).
    id_of = dict(db.execute("SELECT username, id FROM users"))
    write_lines(os.path.join(args.state, "parse-home.txt"), [f"{t} {id_of[n]}" for t, n, c in zip(tokens, names, cursors) if c])
    write_lines(os.path.join(args.state, "search.txt"), search_queries(db, rng))


def search_queries(db, rng, count=2000):
    """`kind q` lines (q URL-encoded) for the search scenarios: what people type into a search
    box, made of the dataset's own words: whole words, the prefixes typed on the way to them
    (1 to 5 letters, so the shortest and most expensive prefixes are included), two words with
    the last one a prefix, usernames and their prefixes; users and videos half each."""
    titles = [r[0] for r in db.execute("SELECT title FROM videos WHERE NOT hidden ORDER BY random() LIMIT 5000")]
    people = db.execute("SELECT username, display_name FROM users ORDER BY random() LIMIT 2000").fetchall()
    words = lambda text: [w for w in re.split(r"[^\w]+", text) if w]
    out = []
    while len(out) < count:
        kind = "videos" if len(out) % 2 == 0 else "users"
        if kind == "videos":
            text = words(rng.choice(titles))
        else:
            username, display = rng.choice(people)
            text = [username] if rng.random() < 0.3 else words(display)
        if not text:
            continue
        shape = rng.random()
        if shape < 0.35:    # a whole word, sometimes lower-cased (accents and case fold in the index)
            q = rng.choice(text)
            q = q.lower() if rng.random() < 0.5 else q
        elif shape < 0.75:  # a prefix of 1 to 5 characters, as typed letter by letter
            w = rng.choice(text)
            q = w[:rng.randint(1, min(5, len(w)))].lower()
        else:               # two words, the last one a prefix
            i = rng.randrange(len(text))
            first, second = text[i], text[(i + 1) % len(text)]
            q = f"{first} {second[:rng.randint(1, len(second))]}"
        out.append(f"{kind} {urllib.parse.quote(q, safe='')}")
    return out


def login_time(args):
    names = open(os.path.join(args.state, "logins.txt")).read().split()
    times = []
    for i in range(args.n):
        started = time.monotonic()
        login(args.url, names[i % len(names)])
        times.append(time.monotonic() - started)
    median = statistics.median(times)
    with open(os.path.join(args.state, "login_time.json"), "w") as f:
        json.dump({"median_s": median, "samples_s": times}, f)
    print(f"{median:.6f}")


def counters(args):
    db = connect(args.db)
    drift = db.execute("""
        SELECT v.id, v.likes_count, COALESCE(l.n, 0) AS likes, v.comments_count, COALESCE(c.n, 0) AS comments
        FROM videos v
        LEFT JOIN (SELECT video_id, COUNT(*) AS n FROM activities WHERE type = 1 GROUP BY video_id) l ON l.video_id = v.id
        LEFT JOIN (SELECT video_id, COUNT(*) AS n FROM activities WHERE type = 2 GROUP BY video_id) c ON c.video_id = v.id
        WHERE v.likes_count <> COALESCE(l.n, 0) OR v.comments_count <> COALESCE(c.n, 0)""").fetchall()
    users = db.execute("""
        SELECT u.id, u.followers_count, COALESCE(f.n, 0) AS followers, u.following_count, COALESCE(g.n, 0) AS following
        FROM users u
        LEFT JOIN (SELECT to_user_id AS id, COUNT(*) AS n FROM activities WHERE type = 4 GROUP BY to_user_id) f ON f.id = u.id
        LEFT JOIN (SELECT from_user_id AS id, COUNT(*) AS n FROM activities WHERE type = 4 GROUP BY from_user_id) g ON g.id = u.id
        WHERE u.followers_count <> COALESCE(f.n, 0) OR u.following_count <> COALESCE(g.n, 0)""").fetchall()
    totals = db.execute("""SELECT (SELECT COUNT(*) FROM videos) AS videos, (SELECT SUM(likes_count) FROM videos) AS likes_counts,
                                  (SELECT SUM(comments_count) FROM videos) AS comments_counts,
                                  (SELECT COUNT(*) FROM activities WHERE type = 1) AS likes,
                                  (SELECT COUNT(*) FROM activities WHERE type = 2) AS comments""").fetchone()
    result = {
        "ok": not drift and not users,
        "videos": totals[0], "likes": totals[3], "comments": totals[4],
        "videos_drifting": len(drift), "users_drifting": len(users),
        "examples": [dict(zip(("video", "likes_count", "likes", "comments_count", "comments"), r)) for r in drift[:5]]
                  + [dict(zip(("user", "followers_count", "followers", "following_count", "following"), r))
                     for r in users[:5]],
    }
    print(json.dumps(result))


def drain(args):
    db = connect(args.db)
    pending = lambda: db.execute("SELECT COUNT(*) AS jobs FROM outbox WHERE state IN ('pending', 'leased')").fetchone()[0]
    backlog, started = pending(), time.monotonic()
    while pending() and time.monotonic() - started < 300:
        time.sleep(0.1)
    print(f"{args.label},{backlog},{time.monotonic() - started:.1f},{pending()}")


def photo(args):
    """The photo-like JPEG, drawn with the `vips` command in a temporary folder: a colour
    gradient, large soft blotches (noise 64 times enlarged), smaller ones (8 times), and fine
    per-pixel noise, so it compresses as a photo does rather than as a flat colour."""
    import shutil
    import tempfile
    if not shutil.which("vips"):
        fail("`vips` is missing (scripts/deps libvips-tools)")
    w, h, seed = args.width, args.height, args.seed
    work = tempfile.mkdtemp(prefix="pacenote-photo.")

    def vips(*argv):
        done = subprocess.run(["vips", *map(str, argv)], cwd=work, capture_output=True, text=True)
        if done.returncode != 0:
            fail(f"vips {' '.join(map(str, argv))} failed: {done.stderr.strip()}")

    try:
        vips("xyz", "xy.v", w, h)
        vips("extract_band", "xy.v", "x.v", 0)
        vips("extract_band", "xy.v", "y.v", 1)
        vips("linear", "x.v", "r.v", 120 / w, 60)
        vips("linear", "y.v", "g.v", 120 / h, 50)
        vips("add", "x.v", "y.v", "s.v")
        vips("linear", "s.v", "b.v", 80 / (w + h), 40)
        vips("bandjoin", "r.v g.v b.v", "gradient.v")
        big, mid = 64, 8
        for band in range(3):
            vips("gaussnoise", f"big{band}.v", -(-w // big), -(-h // big), "--sigma", 45, "--mean", 0, "--seed", seed * 10 + band)
            vips("gaussnoise", f"mid{band}.v", -(-w // mid), -(-h // mid), "--sigma", 10, "--mean", 0, "--seed", seed * 10 + 3 + band)
        vips("gaussnoise", "fine.v", w, h, "--sigma", 4, "--mean", 0, "--seed", seed * 10 + 6)
        for scale, factor in (("big", big), ("mid", mid)):
            vips("bandjoin", f"{scale}0.v {scale}1.v {scale}2.v", f"{scale}.v")
            vips("resize", f"{scale}.v", f"{scale}-up.v", factor, "--kernel", "cubic")
            vips("crop", f"{scale}-up.v", f"{scale}-crop.v", 0, 0, w, h)
        vips("add", "gradient.v", "big-crop.v", "a.v")
        vips("add", "a.v", "mid-crop.v", "b.v")
        vips("add", "b.v", "fine.v", "c.v")
        vips("cast", "c.v", "c8.v", "uchar")
        vips("copy", "c8.v", "srgb.v", "--interpretation", "srgb")
        vips("jpegsave", "srgb.v", "photo.jpg", "--Q", 90)
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        shutil.move(os.path.join(work, "photo.jpg"), args.out)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"prepare.py: {args.out}: {w}x{h} JPEG, {os.path.getsize(args.out):,} bytes", file=sys.stderr)


def put_picture(url, token, body):
    """PUT /v1/users/me/avatar; answers (status, seconds, the parsed answer or its text)."""
    req = urllib.request.Request(f"{url}/v1/users/me/avatar", data=body, method="PUT")
    req.add_header("Content-Type", "image/jpeg")
    req.add_header("Authorization", f"Bearer {token}")
    started = time.monotonic()
    try:
        with urllib.request.urlopen(req, timeout=120) as resp:
            answer = json.loads(resp.read())
            return resp.status, time.monotonic() - started, answer
    except urllib.error.HTTPError as e:
        return e.code, time.monotonic() - started, e.read().decode(errors="replace")


def vmhwm_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(next(line.split()[1] for line in f if line.startswith("VmHWM")))


def cpu_s(pid):
    """User and system CPU seconds of the process so far (all its threads)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def upload_time(args):
    body = open(args.photo, "rb").read()
    token = open(os.path.join(args.state, "tokens.txt")).read().split()[0]
    cold = vmhwm_kb(args.pid)
    if args.warm_up:
        status, _, answer = put_picture(args.url, token, open(args.warm_up, "rb").read())
        if status != 200:
            fail(f"PUT /v1/users/me/avatar of {args.warm_up} answered {status}: {answer}")
    before, cpu_before = vmhwm_kb(args.pid), cpu_s(args.pid)
    times, after_first = [], None
    for i in range(args.n):
        status, seconds, answer = put_picture(args.url, token, body)
        if status != 200:
            fail(f"PUT /v1/users/me/avatar answered {status}: {answer}")
        times.append(seconds)
        if i == 0:
            after_first = vmhwm_kb(args.pid)
    after, cpu = vmhwm_kb(args.pid), (cpu_s(args.pid) - cpu_before) / args.n
    median = statistics.median(times)
    with open(os.path.join(args.state, "upload_time.json"), "w") as f:
        json.dump({"median_s": median, "samples_s": times, "photo_bytes": len(body), "server_cpu_s_per_upload": cpu,
                   "warm_up": os.path.basename(args.warm_up) if args.warm_up else None, "vmhwm_cold_kb": cold,
                   "vmhwm_before_kb": before, "vmhwm_after_first_kb": after_first, "vmhwm_after_kb": after}, f)
    print(f"prepare.py: {args.n} uploads of {len(body):,} bytes: median {median * 1000:.0f} ms "
          f"(min {min(times) * 1000:.0f}, max {max(times) * 1000:.0f}), server CPU {cpu * 1000:.0f} ms each; "
          f"server VmHWM {cold / 1024:.1f} MiB at first"
          + (f", {before / 1024:.1f} after the warm-up, " if args.warm_up else ", ") +
          f"{after_first / 1024:.1f} after the first, {after / 1024:.1f} after the last", file=sys.stderr)
    print(f"{median:.6f}")


def pictures(args):
    body = open(args.photo, "rb").read()
    tokens = open(os.path.join(args.state, "tokens.txt")).read().split()
    if len(tokens) < args.users + args.uploaders:
        fail(f"{len(tokens)} tokens, {args.users} + {args.uploaders} wanted")

    def upload(token):
        status, _, answer = put_picture(args.url, token, body)
        if status != 200:
            fail(f"PUT /v1/users/me/avatar answered {status}: {answer}")
        return [answer[k].rsplit("/", 1)[1] for k in ("avatarUrl", "avatarThumbnailUrl")]

    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        names = list(pool.map(upload, tokens[:args.users]))
    print(f"prepare.py: {len(names)} pictures uploaded in {time.monotonic() - started:.1f} s", file=sys.stderr)
    write_lines(os.path.join(args.state, "avatars.txt"), [" ".join(pair) for pair in names])
    write_lines(os.path.join(args.state, "uploaders.txt"), tokens[-args.uploaders:])


UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0}


def parse_wrk(args):
    text = open(args.file).read()

    def latency(pct):
        m = re.search(rf"^\s*{pct}%\s+([\d.]+)(us|ms|s|m)\s*$", text, re.M)
        return round(float(m.group(1)) * UNITS[m.group(2)], 3) if m else None

    rps = re.search(r"Requests/sec:\s+([\d.]+)", text)
    total = re.search(r"(\d+) requests in", text)
    non2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", text)
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
    if not rps or not total:
        fail(f"{args.file} is not wrk output:\n{text}")
    print(json.dumps({
        "rps": float(rps.group(1)), "p50_ms": latency(50), "p99_ms": latency(99),
        "requests": int(total.group(1)), "non2xx": int(non2xx.group(1)) if non2xx else 0,
        "errors": sum(map(int, errors.groups())) if errors else 0,
    }))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("setup")
    p.add_argument("url"), p.add_argument("db"), p.add_argument("state")
    p.add_argument("--users", type=int, default=200)
    p.add_argument("--deep", type=int, default=50)
    p.add_argument("--pages", type=int, default=50)
    p.add_argument("--videos", type=int, default=2000)
    p.add_argument("--seed", type=int, default=1)
    p = sub.add_parser("login-time")
    p.add_argument("url"), p.add_argument("state")
    p.add_argument("-n", type=int, default=20)
    p = sub.add_parser("counters")
    p.add_argument("db")
    p = sub.add_parser("drain")
    p.add_argument("db"), p.add_argument("label")
    p = sub.add_parser("wrk")
    p.add_argument("file")
    p = sub.add_parser("photo")
    p.add_argument("out")
    p.add_argument("--width", type=int, default=4000)
    p.add_argument("--height", type=int, default=3000)
    p.add_argument("--seed", type=int, default=1)
    p = sub.add_parser("upload-time")
    p.add_argument("url"), p.add_argument("state"), p.add_argument("photo")
    p.add_argument("--pid", type=int, required=True)
    p.add_argument("-n", type=int, default=7)
    p.add_argument("--warm-up")
    p = sub.add_parser("pictures")
    p.add_argument("url"), p.add_argument("state"), p.add_argument("photo")
    p.add_argument("--users", type=int, default=100)
    p.add_argument("--uploaders", type=int, default=4)
    args = ap.parse_args()
    {"setup": setup, "login-time": login_time, "counters": counters, "drain": drain, "wrk": parse_wrk,
     "photo": photo, "upload-time": upload_time, "pictures": pictures}[args.command](args)


if __name__ == "__main__":
    main()
