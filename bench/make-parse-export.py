#!/usr/bin/env python3
"""Writes a synthetic Parse export for timing `pacenote import-parse` at scale.

usage: make-parse-export.py DIR [SCALE]   (SCALE 1.0 = 20,000 users, 100,000 videos,
1,000,000 likes, 200,000 comments, 600,000 follows; deterministic for a given SCALE)

Then: pacenote import-parse DIR --data-dir /tmp/somewhere  (release build). Measured on the
shared 2-core development machine, another import running beside it: 237 s wall, 617 MB
peak RSS; 75 s loading the files, 23 s building the deferred indexes, 2 s counters, 136 s
timelines (20 million following_timeline rows at depth 1000 are most of it).
"""
import json, random, string, sys, os

out = sys.argv[1]
scale = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
rng = random.Random(42)
os.makedirs(out, exist_ok=True)
HASH = "$2b$10$GEJQL85jLoFTvKgaCbdkRexqpdEz7F/BaKg9VQuJ1LE27ONXJJV4."  # "password123"
ALNUM = string.ascii_letters + string.digits
YT = ALNUM + "-_"
T0, T1 = 1370000000000, 1420000000000

def oid(prefix, i):
    return f"{prefix}{i:09d}"

def iso(ms):
    import datetime
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"

def ptr(cls, i):
    return {"__type": "Pointer", "className": cls, "objectId": i}

def write(name, objects):
    with open(os.path.join(out, name), "w") as f:
        f.write('{"results": [\n')
        first = True
        for o in objects:
            if not first:
                f.write(",\n")
            first = False
            f.write(json.dumps(o, ensure_ascii=False, separators=(",", ":")))
        f.write("\n]}\n")

n_users = int(20000 * scale)
n_videos = int(100000 * scale)
n_likes = int(1000000 * scale)
n_comments = int(200000 * scale)
n_follows = int(600000 * scale)
n_rallies = 13

write("_User.json", ({"objectId": oid("u", i), "username": f"user_{i}", "email": f"user{i}@example.com",
                      "emailVerified": True, "displayName": f"User {i}", "bcryptPassword": HASH,
                      "createdAt": iso(T0 + i), "updatedAt": iso(T0 + i)} for i in range(n_users)))
write("Rallye.json", ({"objectId": oid("r", i), "name": f"Rally {i}", "country": "Finland",
                       "iniDate": {"__type": "Date", "iso": f"2014-{i % 12 + 1:02d}-05T00:00:00.000Z"},
                       "endDate": {"__type": "Date", "iso": f"2014-{i % 12 + 1:02d}-08T00:00:00.000Z"}} for i in range(n_rallies)))
yts = set()
def videos():
    for i in range(n_videos):
        while True:
            y = "".join(rng.choice(YT) for _ in range(11))
            if y not in yts:
                yts.add(y)
                break
        t = rng.randrange(T0, T1)
        yield {"objectId": oid("v", i), "youtubeID": y, "title": f"Stage {i} onboard", "description": "Onboard camera, full stage.",
               "nDay": rng.randint(1, 4), "rallyId": ptr("Rallye", oid("r", rng.randrange(n_rallies))),
               "owner": ptr("_User", oid("u", rng.randrange(n_users))), "nLikes": 0, "nComments": 0,
               "createdAt": iso(t), "updatedAt": iso(t)}
write("Video.json", videos())
def activities():
    k = 0
    seen = set()
    while len(seen) < n_likes:
        u, v = rng.randrange(n_users), rng.randrange(n_videos)
        if (u, v) in seen: continue
        seen.add((u, v)); k += 1
        yield {"objectId": oid("a", k), "type": 1, "fromUser": ptr("_User", oid("u", u)), "toUser": ptr("_User", oid("u", rng.randrange(n_users))),
               "video": ptr("Video", oid("v", v)), "createdAt": iso(rng.randrange(T0, T1))}
    seen = None
    for _ in range(n_comments):
        k += 1
        yield {"objectId": oid("a", k), "type": 2, "fromUser": ptr("_User", oid("u", rng.randrange(n_users))), "toUser": ptr("_User", oid("u", rng.randrange(n_users))),
               "video": ptr("Video", oid("v", rng.randrange(n_videos))), "content": "Great stage {with} [brackets] and \"quotes\"", "createdAt": iso(rng.randrange(T0, T1))}
    seen = set()
    while len(seen) < n_follows:
        a, b = rng.randrange(n_users), rng.randrange(n_users)
        if a == b or (a, b) in seen: continue
        seen.add((a, b)); k += 1
        yield {"objectId": oid("a", k), "type": 4, "fromUser": ptr("_User", oid("u", a)), "toUser": ptr("_User", oid("u", b)), "createdAt": iso(rng.randrange(T0, T1))}
write("Activity.json", activities())
