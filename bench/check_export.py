#!/usr/bin/env python3
"""Checks a Parse export written by bench/generate.py: counts, unique ids, pointers that
resolve, no self-follow, no duplicate follow or like pairs, ISO dates, activities after
their video, toUser = the video's owner, nLikes/nComments equal to the activities.

Usage: bench/check_export.py DIR [small|large]   (exit 1 on the first kind of defect found)
"""
import collections
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from generate import SCALES  # noqa: E402

ISO = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")
OBJECT_ID = re.compile(r"^[A-Za-z0-9]{10}$")
YOUTUBE_ID = re.compile(r"^[A-Za-z0-9_-]{11}$")


def main():
    folder = sys.argv[1]
    scale = sys.argv[2] if len(sys.argv) > 2 else None
    problems = []

    def check(ok, message):
        if not ok and len(problems) < 20:
            problems.append(message)

    def load(name):
        with open(os.path.join(folder, name), encoding="utf-8") as f:
            return json.load(f)["results"]

    def ptr(value, cls):
        check(isinstance(value, dict) and value.get("__type") == "Pointer" and value.get("className") == cls,
              f"bad pointer {value!r}")
        return value["objectId"]

    all_ids = set()

    def new_id(oid):
        check(bool(OBJECT_ID.match(oid)), f"objectId {oid!r} is not 10 of [A-Za-z0-9]")
        check(oid not in all_ids, f"objectId {oid} used twice")
        all_ids.add(oid)

    users = {}
    names = set()
    for u in load("_User.json"):
        new_id(u["objectId"])
        users[u["objectId"]] = u["createdAt"]
        check(ISO.match(u["createdAt"]) and ISO.match(u["updatedAt"]), f"user date {u['createdAt']}")
        check(u["username"].lower() not in names, f"username {u['username']} twice")
        names.add(u["username"].lower())
        check(u["email"] == u["username"] + "@example.com", f"email {u['email']}")
        check(u["bcryptPassword"].startswith("$2b$10$"), "bcrypt hash")

    rallies = {}
    for r in load("Rallye.json"):
        new_id(r["objectId"])
        for key in ("iniDate", "endDate"):
            check(r[key]["__type"] == "Date" and ISO.match(r[key]["iso"]), f"rally date {r[key]}")
        check(3 <= r["nDays"] <= 5, f"rally {r['objectId']} has {r['nDays']} days")
        rallies[r["objectId"]] = r["nDays"]

    videos = {}
    youtube = set()
    expected = collections.Counter()
    for v in load("Video.json"):
        new_id(v["objectId"])
        check(bool(YOUTUBE_ID.match(v["youtubeID"])), f"youtubeID {v['youtubeID']}")
        check(v["youtubeID"] not in youtube, f"youtubeID {v['youtubeID']} twice")
        youtube.add(v["youtubeID"])
        owner = ptr(v["owner"], "_User")
        rally = ptr(v["rallyId"], "Rallye")
        check(owner in users, f"video {v['objectId']}: owner {owner} missing")
        check(rally in rallies and 1 <= v["nDay"] <= rallies.get(rally, 0), f"video {v['objectId']}: rally/day")
        check(ISO.match(v["createdAt"]) and ISO.match(v["updatedAt"]), f"video date {v['createdAt']}")
        check(v["createdAt"] > users.get(owner, ""), f"video {v['objectId']} before its owner")
        check(1 <= len(v["title"]) <= 100, f"title {v['title']!r}")
        videos[v["objectId"]] = (owner, v["createdAt"])
        expected[(v["objectId"], 1)] = v["nLikes"]
        expected[(v["objectId"], 2)] = v["nComments"]

    kinds = collections.Counter()
    follows, likes = set(), set()
    actual = collections.Counter()
    followers = collections.Counter()
    for a in load("Activity.json"):
        new_id(a["objectId"])
        kind = a["type"]
        kinds[kind] += 1
        src, dst = ptr(a["fromUser"], "_User"), ptr(a["toUser"], "_User")
        check(src in users and dst in users, f"activity {a['objectId']}: user pointer dangles")
        check(ISO.match(a["createdAt"]) and ISO.match(a["updatedAt"]), f"activity date {a['createdAt']}")
        check(a["createdAt"] > users.get(src, ""), f"activity {a['objectId']} before its author")
        if kind == 4:
            check("video" not in a, f"follow {a['objectId']} has a video")
            check(src != dst, f"self-follow {a['objectId']}")
            check((src, dst) not in follows, f"follow {src}->{dst} twice")
            follows.add((src, dst))
            followers[dst] += 1
        elif kind in (1, 2):
            video = ptr(a["video"], "Video")
            check(video in videos, f"activity {a['objectId']}: video {video} missing")
            owner, created = videos.get(video, (None, ""))
            check(dst == owner, f"activity {a['objectId']}: toUser is not the owner")
            check(a["createdAt"] > created, f"activity {a['objectId']} before its video")
            actual[(video, kind)] += 1
            if kind == 1:
                check((src, video) not in likes, f"like {src}->{video} twice")
                likes.add((src, video))
            else:
                check(isinstance(a.get("content"), str) and 1 <= len(a["content"]) <= 500, "comment content")
        else:
            check(False, f"activity {a['objectId']}: type {kind}")
    for key in set(expected) | set(actual):
        check(expected[key] == actual[key], f"video {key[0]}: n{'Likes' if key[1] == 1 else 'Comments'} "
                                            f"{expected[key]} but {actual[key]} activities")

    counts = dict(users=len(users), videos=len(videos), follows=kinds[4], likes=kinds[1], comments=kinds[2])
    print(f"{folder}: {counts}, rallies {len(rallies)}")
    print("top-5 follower counts:", sorted(followers.values(), reverse=True)[:5])
    # Home feeds (own videos and those of the accounts followed): the deep-page scenario
    # needs users with more than 50 pages of 20.
    per_owner = collections.Counter(owner for owner, _ in videos.values())
    feed = collections.Counter(per_owner)
    for src, dst in follows:
        feed[src] += per_owner[dst]
    sizes = sorted(feed.values(), reverse=True)
    print(f"home feeds: {sum(1 for n in sizes if n > 1000)} users over 1,000 videos; "
          f"median {sizes[len(sizes) // 2] if sizes else 0}, 50th largest {sizes[49] if len(sizes) > 49 else '-'}")
    if scale:
        check(counts == SCALES[scale], f"counts {counts} != {SCALES[scale]}")
    if problems:
        print("FAILED:\n  " + "\n  ".join(problems))
        sys.exit(1)
    print("OK")


if __name__ == "__main__":
    main()
