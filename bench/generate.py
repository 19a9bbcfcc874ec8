#!/usr/bin/env python3
"""Writes a synthetic Parse export for the benchmark, in the format `pacenote import-parse`
reads (see ../shared/fixtures/parse-export-tiny/): `_User.json`, `Rallye.json`,
`Video.json` and `Activity.json`, each `{"results": [...]}`.

Usage: bench/generate.py small|large OUTDIR [--shape plain|social] [--seed N] [--today YYYY-MM-DD]

Two shapes of the follow graph and of who posts (`--shape`):
- plain (the default, the shape of every figure before issue 15): followers drawn by a power
  law of exponent 0.72 over a popularity ranking, video owners by one of 0.5;
- social, shaped like real social graphs: whom people follow is Zipf 1.0 mixed with 20%
  uniform draws, who posts is Zipf 0.8 mixed with 50% uniform draws, over the same ranking,
  so the most followed also post most (large: the top account has ~14,300 of 20,000 users
  as followers, and the home timelines of everyone hold ~69 million rows when every video
  is fanned out to every follower).

Streaming: objects are written one by one; only a few flat arrays (ids of users and
videos, video owners, creation times and counters) are kept in memory, so the large
scale needs well under 200 MB. Deterministic for a given --seed and --today (the
rallies around "today" get live/imminent/upcoming statuses; it defaults to the UTC date).

Every password is "password123": all users share ONE bcrypt hash (cost 10), taken from the
tiny fixture, since hashing 20,000 passwords would take a quarter of an hour.
"""
import argparse
import bisect
import datetime as dt
import json
import math
import os
import random
import sys
import time
from array import array

SCALES = {
    # users, videos, follows, likes, comments
    "small": dict(users=1_000, videos=5_000, follows=30_000, likes=50_000, comments=10_000),
    "large": dict(users=20_000, videos=100_000, follows=600_000, likes=1_000_000, comments=200_000),
}

PASSWORD_HASH = "$2b$10$GEJQL85jLoFTvKgaCbdkRexqpdEz7F/BaKg9VQuJ1LE27ONXJJV4."  # "password123", cost 10

DAY_MS = 86_400_000

# Popularity exponents (weight of rank r is (r+1)^-s). The same ranking of users drives
# followers and video ownership: popular accounts post more, as on the real app.
FOLLOW_SKEW = 0.72   # large: top accounts get ~9,000, ~5,500, ~4,000... followers
OWNER_SKEW = 0.5     # "Zipf-light": the top owner has ~1/300 of all videos
VIDEO_SKEW = 0.6     # likes and comments favour some videos
FOLLOWING_SPREAD = 1.2  # sigma of the log-normal number of accounts each user follows

# --shape: (exponent, share of uniform draws) for whom people follow and for who posts, and
# the sigma of the number of accounts each user follows. The social shape's 1.0 (fewer users
# following only one or two accounts) puts ~14,300 of 20,000 users among the top account's
# followers at the large scale, issue 15's figure.
SHAPES = {
    "plain": dict(follow=(FOLLOW_SKEW, 0.0), owner=(OWNER_SKEW, 0.0), spread=FOLLOWING_SPREAD),
    "social": dict(follow=(1.0, 0.2), owner=(0.8, 0.5), spread=1.0),
}

RALLIES = [  # (name, country), in calendar order, WRC-like
    ("Rallye Automobile Monte-Carlo", "Monaco"),
    ("Rally Sweden", "Sweden"),
    ("Rally Guanajuato México", "Mexico"),
    ("Croatia Rally", "Croatia"),
    ("Rally de Portugal", "Portugal"),
    ("Rally Italia Sardegna", "Italy"),
    ("Safari Rally Kenya", "Kenya"),
    ("Acropolis Rally Greece", "Greece"),
    ("Rally Estonia", "Estonia"),
    ("Rally Finland", "Finland"),
    ("ADAC Rallye Deutschland", "Germany"),
    ("Rally Chile Bio Bío", "Chile"),
    ("Rally Catalunya – Costa Daurada", "Spain"),
    ("Rally Japan", "Japan"),
]
FIRST_SEASON, LAST_SEASON = 2013, 2026

FIRST_NAMES = ["Sébastien", "Ott", "Kalle", "Thierry", "Elfyn", "Esapekka", "Dani", "Jari-Matti",
               "Mikko", "Petter", "Andreas", "Hayden", "Craig", "Takamoto", "Gus", "Adrien",
               "Oliver", "Teemu", "Kris", "Pierre-Louis", "Yohan", "Jérémie", "Loïc", "Gonçalo",
               "Mārtiņš", "Łukasz", "Nasser", "Stéphane", "Émilie", "Zoé", "Björn", "Søren"]
LAST_NAMES = ["Ogier", "Tänak", "Rovanperä", "Neuville", "Evans", "Lappi", "Sordo", "Latvala",
              "Hirvonen", "Solberg", "Mikkelsen", "Paddon", "Breen", "Katsuta", "Greensmith",
              "Fourmaux", "Østberg", "Suninen", "Meeke", "Loubet", "Rossel", "Müller", "Hänninen",
              "Kubica", "Al-Attiyah", "Sesks", "Kajetanowicz", "Gryazin", "Lefebvre", "Camilli"]
STAGES = ["Montée de Sisteron", "Col de Turini", "Ouninpohja", "Fafe", "Sainte-Agnès", "Vargåsen",
          "Tour de Corse", "Ruuhimäki", "Panzerplatte", "Guanajuatito", "Łąka", "Kaffeetrinken",
          "El Chocolate", "Harju", "Cefalù", "Moissière – Ancelle", "Ässämäki", "Torsby",
          "Colmenar", "São Lourenço", "Arganil", "Mōsui", "Hühnerberg", "Córdoba"]
SHOTS = ["jump", "onboard", "spectator view", "big moment", "flat out", "hairpin", "water splash",
         "crest", "sideways", "helicopter shot", "near miss", "slow motion", "finish", "Montée",
         "split time", "power stage"]
DESCRIPTIONS = ["", "", "Onboard camera, full stage.", "Filmed from the hairpin.",
                "Quelle montée ! Incroyable.", "Spectator footage, sorry for the shaky camera.",
                "Best moment of the day 🔥", "Sébastien on the limit.", "Vidéo prise au virage.",
                "Full stage from the helicopter."]
COMMENTS = ["Incroyable !", "What a jump!", "Città bellissima", "Flat out 🔥", "Sébastien on the limit",
            "Quelle montée", "I was there!", "Respect to the co-driver", "Amazing footage, thanks",
            "Ce virage…", "Too fast!", "Wahnsinn!", "Qué pasada", "Best stage of the season",
            "Where was this filmed?", "Hyvä!", "Legend.", "Watch the left rear at 0:42",
            "Ça passe ou ça casse", "Unreal commitment"]

ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
YT_ALPHABET = ID_ALPHABET + "-_"


class IdMaker:
    """Unique random-looking ids without remembering them: the n-th id is the base-k
    digits of (A*n + B) mod k^len with gcd(A, k) = 1, a bijection of [0, k^len)."""

    def __init__(self, rng, alphabet, length):
        self.alphabet = list(alphabet)
        rng.shuffle(self.alphabet)
        self.base, self.length = len(alphabet), length
        self.modulus = self.base ** length
        while True:
            a = rng.randrange(self.modulus // 3, self.modulus)
            if math.gcd(a, self.base) == 1:
                break
        self.a, self.b, self.n = a, rng.randrange(self.modulus), 0
        self.base2 = self.base * self.base
        self.pairs = [x + y for y in self.alphabet for x in self.alphabet]  # index = x + base*y

    def next(self):
        v = (self.a * self.n + self.b) % self.modulus
        self.n += 1
        # Two digits at a time through a table: this runs ~2 million times at the large scale.
        pairs, base2 = self.pairs, self.base2
        out = []
        for _ in range(self.length // 2):
            v, d = divmod(v, base2)
            out.append(pairs[d])
        if self.length % 2:
            out.append(self.alphabet[v % self.base])
        return "".join(out)


_day_cache = {}
_SECONDS = [f"T{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}." for s in range(86_400)]
_MILLIS = [f"{m:03d}Z" for m in range(1000)]


def iso(ms):
    """Milliseconds since the epoch -> 2014-04-05T10:15:30.123Z (tables: millions of calls)."""
    day, rest = divmod(ms, DAY_MS)
    date = _day_cache.get(day)
    if date is None:
        date = _day_cache[day] = (dt.date(1970, 1, 1) + dt.timedelta(days=day)).isoformat()
    s, milli = divmod(rest, 1000)
    return date + _SECONDS[s] + _MILLIS[milli]


def day_ms(d):
    return (d - dt.date(1970, 1, 1)).days * DAY_MS


def zipf_cum_weights(n, s):
    cum, total = [], 0.0
    for r in range(n):
        total += (r + 1) ** -s
        cum.append(total)
    return cum


def ranked_picker(rng, n, skew, uniform):
    """A function drawing ranks in [0, n): Zipf of exponent `skew`, except a `uniform` share
    of the draws, which are uniform. With no uniform share it consumes the random stream
    exactly as the plain shape always did, so plain datasets stay identical."""
    cum = zipf_cum_weights(n, skew)
    total = cum[-1]
    if uniform == 0.0:
        return lambda: bisect.bisect(cum, rng.random() * total)
    return lambda: rng.randrange(n) if rng.random() < uniform else bisect.bisect(cum, rng.random() * total)


def split_total(rng, n, total, sigma, cap):
    """n non-negative counts summing to total, log-normally spread (a heavy tail), each <= cap."""
    raw = [rng.lognormvariate(0.0, sigma) for _ in range(n)]
    scale = total / sum(raw)
    counts = [min(cap, int(x * scale)) for x in raw]
    missing = total - sum(counts)
    while missing > 0:
        i = rng.randrange(n)
        if counts[i] < cap:
            counts[i] += 1
            missing -= 1
    return counts


class Writer:
    """Streams `{"results": [ ... ]}` one object (already serialised) at a time."""

    def __init__(self, path):
        self.file = open(path, "w", encoding="utf-8", buffering=1 << 20)
        self.file.write('{"results": [\n')
        self.count = 0

    def add(self, text):
        if self.count:
            self.file.write(",\n")
        self.file.write(text)
        self.count += 1

    def close(self):
        self.file.write("\n]}\n")
        self.file.close()


def pointer(cls, object_id):
    return f'{{"__type":"Pointer","className":"{cls}","objectId":"{object_id}"}}'


def dumps(obj):
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scale", choices=sorted(SCALES))
    ap.add_argument("outdir")
    ap.add_argument("--shape", choices=sorted(SHAPES), default="plain",
                    help="plain (default): the graph of the earlier figures; social: Zipf 1.0/0.8 mixed with uniform")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--today", type=dt.date.fromisoformat, default=dt.datetime.now(dt.timezone.utc).date(),
                    help="the date the rally statuses are arranged around (default: today, UTC)")
    args = ap.parse_args()
    cfg = SCALES[args.scale]
    shape = SHAPES[args.shape]
    n_users, n_videos = cfg["users"], cfg["videos"]
    started = time.monotonic()
    os.makedirs(args.outdir, exist_ok=True)
    out = lambda name: os.path.join(args.outdir, name)
    # One generator per stream, so changing one class leaves the others identical.
    rng_of = lambda k: random.Random(args.seed * 1_000_003 + k)
    today = args.today
    now_ms = day_ms(today) + 12 * 3_600_000  # noon today: the latest instant in the data
    ids = IdMaker(rng_of(0), ID_ALPHABET, 10)  # one sequence for every class: globally unique

    # Users: created 3..2 years before today, so everything they did comes after.
    rng = rng_of(1)
    user_ids = []
    user_created = array("q")
    w = Writer(out("_User.json"))
    span_start = now_ms - 3 * 365 * DAY_MS
    for i in range(n_users):
        oid = ids.next()
        user_ids.append(oid)
        created = span_start + rng.randrange(365 * DAY_MS)
        user_created.append(created)
        name = f"user{i + 1:06d}"
        w.add(dumps({"objectId": oid, "username": name, "email": f"{name}@example.com",
                     "emailVerified": True,
                     "displayName": f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}",
                     "bcryptPassword": PASSWORD_HASH,
                     "createdAt": iso(created), "updatedAt": iso(created)}))
    w.close()

    # Rallies: 14 per season, 3-5 days each, spread over the year; in the current season the
    # rallies nearest today are moved so that one is live, one imminent and one upcoming.
    rng = rng_of(2)
    rallies = []  # (id, start date, days)
    for season in range(FIRST_SEASON, LAST_SEASON + 1):
        for slot, (name, country) in enumerate(RALLIES):
            start = dt.date(season, 1, 15) + dt.timedelta(days=slot * 24 + rng.randrange(-3, 4))
            rallies.append([None, start, rng.randint(3, 5), name, country])
    nearest = sorted(range(len(rallies)), key=lambda i: abs((rallies[i][1] - today).days))[:3]
    nearest.sort(key=lambda i: rallies[i][1])
    for i, offset in zip(nearest, (-1, 4, 12)):  # live (started yesterday), imminent, upcoming
        rallies[i][1] = today + dt.timedelta(days=offset)
    rallies.sort(key=lambda r: r[1])
    w = Writer(out("Rallye.json"))
    for r in rallies:
        r[0] = ids.next()
        _, start, days, name, country = r
        created = day_ms(start) - 60 * DAY_MS
        w.add(dumps({"objectId": r[0], "name": name, "country": country,
                     "iniDate": {"__type": "Date", "iso": iso(day_ms(start))},
                     "endDate": {"__type": "Date", "iso": iso(day_ms(start + dt.timedelta(days=days - 1)))},
                     "nDays": days, "createdAt": iso(created), "updatedAt": iso(created)}))
    w.close()

    # Videos are filmed on rally days of the last two years (rallies that have started).
    # Their ids, owners and times are fixed now; the objects are written after the
    # activities, once their like and comment counts are known.
    rng = rng_of(3)
    window_start = today - dt.timedelta(days=730)
    rally_days = [(r[0], d, day_ms(r[1]) + (d - 1) * DAY_MS)
                  for r in rallies if window_start <= r[1] <= today
                  for d in range(1, r[2] + 1) if r[1] + dt.timedelta(days=d - 1) <= today]
    popularity = list(range(n_users))  # rank -> user index
    rng.shuffle(popularity)
    pick_owner = ranked_picker(rng, n_users, *shape["owner"])
    video_ids = []
    video_owner = array("i")
    video_day = array("i")
    video_created = array("q")
    for _ in range(n_videos):
        video_ids.append(ids.next())
        owner = popularity[pick_owner()]
        video_owner.append(owner)
        k = rng.randrange(len(rally_days))
        video_day.append(k)
        # During the day or the two days after, never in the future, never before the owner existed.
        t = rally_days[k][2] + 7 * 3_600_000 + rng.randrange(3 * DAY_MS)
        video_created.append(max(user_created[owner] + 1000, min(t, now_ms - rng.randrange(3_600_000))))

    # Activities: follows, then likes, then comments.
    rng = rng_of(4)
    likes = array("i", bytes(4 * n_videos))
    comments = array("i", bytes(4 * n_videos))
    w = Writer(out("Activity.json"))

    user_ptr = [pointer("_User", u) for u in user_ids]
    video_ptr = [pointer("Video", v) for v in video_ids]

    def activity(kind, src, dst, created, video=None, content=None):
        when = iso(created)
        text = (f'{{"objectId":"{ids.next()}","type":{kind},"fromUser":{user_ptr[src]},'
                f'"toUser":{user_ptr[dst]},"createdAt":"{when}","updatedAt":"{when}"')
        if video is not None:
            text += f',"video":{video_ptr[video]}'
        if content is not None:
            text += f',"content":{dumps(content)}'
        w.add(text + "}")

    def later(after):
        """A moment after `after`, usually soon (exponential, mean 20 days), never after now."""
        return min(now_ms, after + 1000 + int(rng.expovariate(1 / (20 * DAY_MS))))

    # Follows: each user follows a log-normally spread number of accounts (some follow
    # hundreds), targets drawn by a power law over the popularity ranking.
    pick_followed = ranked_picker(rng, n_users, *shape["follow"])
    followers = array("i", bytes(4 * n_users))
    per_user = split_total(rng, n_users, cfg["follows"], shape["spread"], n_users // 3)
    for src, k in enumerate(per_user):
        chosen = set()
        while len(chosen) < k:
            for rank in (pick_followed() for _ in range(k - len(chosen))):
                dst = popularity[rank]
                if dst != src:
                    chosen.add(dst)
        for dst in sorted(chosen):
            followers[dst] += 1
            activity(4, src, dst, later(max(user_created[src], user_created[dst])))
    n_follows = w.count

    # Likes: distinct (user, video) pairs, per user; popular videos get more.
    video_rank = list(range(n_videos))
    rng.shuffle(video_rank)
    video_cum = zipf_cum_weights(n_videos, VIDEO_SKEW)
    video_total = video_cum[-1]
    pick_video = lambda: video_rank[bisect.bisect(video_cum, rng.random() * video_total)]
    per_user = split_total(rng, n_users, cfg["likes"], 0.8, n_videos // 4)
    for src, k in enumerate(per_user):
        chosen = set()
        while len(chosen) < k:
            chosen.update(pick_video() for _ in range(k - len(chosen)))
        for v in sorted(chosen):
            likes[v] += 1
            activity(1, src, video_owner[v], later(max(video_created[v], user_created[src])), video=v)
    n_likes = w.count - n_follows

    # Comments: any user on any video (several per pair allowed).
    for _ in range(cfg["comments"]):
        v, src = pick_video(), rng.randrange(n_users)
        comments[v] += 1
        text = rng.choice(COMMENTS)
        if rng.random() < 0.3:
            text += " " + rng.choice(COMMENTS)
        activity(2, src, video_owner[v], later(max(video_created[v], user_created[src])), video=v, content=text)
    n_comments = w.count - n_follows - n_likes
    w.close()

    rng = rng_of(5)
    yt = IdMaker(rng_of(6), YT_ALPHABET, 11)
    w = Writer(out("Video.json"))
    for v in range(n_videos):
        rally_id, day, _ = rally_days[video_day[v]]
        created = video_created[v]
        title = f"{rng.choice(LAST_NAMES)} {rng.choice(SHOTS)} at {rng.choice(STAGES)}"
        w.add(dumps({"objectId": video_ids[v], "youtubeID": yt.next(), "title": title,
                     "description": rng.choice(DESCRIPTIONS), "nDay": day,
                     "rallyId": {"__type": "Pointer", "className": "Rallye", "objectId": rally_id},
                     "owner": {"__type": "Pointer", "className": "_User", "objectId": user_ids[video_owner[v]]},
                     "nLikes": likes[v], "nComments": comments[v],
                     "createdAt": iso(created), "updatedAt": iso(max(created, now_ms - rng.randrange(30 * DAY_MS)))}))
    w.close()

    top = sorted(range(n_users), key=lambda u: -followers[u])[:5]
    print(f"generate.py {args.scale} shape={args.shape} seed={args.seed} today={today} -> {args.outdir}", file=sys.stderr)
    print(f"  users {n_users}, rallies {len(rallies)} ({len(rally_days)} days with videos), videos {n_videos}",
          file=sys.stderr)
    print(f"  follows {n_follows}, likes {n_likes}, comments {n_comments}", file=sys.stderr)
    print("  top-5 follower counts: " + ", ".join(f"user{u + 1:06d}={followers[u]}" for u in top), file=sys.stderr)
    print(f"  most liked video: {max(likes)} likes; most videos by one owner: "
          f"{max_count(video_owner, n_users)}", file=sys.stderr)
    fanned = n_videos + sum(followers[o] for o in video_owner)
    print(f"  home timeline rows with every video fanned out to every follower (and its owner): {fanned:,}",
          file=sys.stderr)
    print(f"  {time.monotonic() - started:.1f} s", file=sys.stderr)


def max_count(values, n):
    counts = array("i", bytes(4 * n))
    for v in values:
        counts[v] += 1
    return max(counts)


if __name__ == "__main__":
    main()
