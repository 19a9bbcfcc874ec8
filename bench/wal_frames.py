#!/usr/bin/env python3
"""WAL frames per write and per B-tree (what a write costs the checkpointer and the disk).

  wal_frames.py burst PORT STATE KIND N   N comments or likes (PUT), one at a time, as the
                                          users of prepare.py's STATE directory
  wal_frames.py count DATA_DIR N          frames in DATA_DIR/pacenote.sqlite-wal, per commit
                                          and per B-tree (dbstat), divided by N writes

`count` reads the WAL a server killed with -9 left behind (bench/wal-frames.sh does all of
it); it opens the database read-only, which neither checkpoints nor removes the WAL."""
import collections
import http.client
import json
import sqlite3
import struct
import sys


def burst(port, state, kind, n):
    tokens = [line.split()[0] for line in open(f"{state}/tokens.txt") if line.strip()]
    videos = [line.split()[0] for line in open(f"{state}/videos.txt") if line.strip()]
    connection = http.client.HTTPConnection("127.0.0.1", port)
    failed = 0
    for k in range(n):
        token, video = tokens[(k * 7919) % len(tokens)], videos[(k * 31 * 7919 + k) % len(videos)]
        headers = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}
        if kind == "comment":
            body = json.dumps({"content": f"wal frames {k}"})
            connection.request("POST", f"/v1/videos/{video}/comments", body=body, headers=headers)
        else:
            connection.request("PUT", f"/v1/videos/{video}/like", headers=headers)
        response = connection.getresponse()
        response.read()
        failed += response.status >= 300
    print(f"{n} {kind} requests, {failed} not 2xx")


def count(directory, writes):
    wal = open(f"{directory}/pacenote.sqlite-wal", "rb").read()
    # The WAL format: https://sqlite.org/fileformat2.html#walformat
    page_size, salt = struct.unpack(">I", wal[8:12])[0], wal[16:24]
    pages, commits, offset = [], 0, 32
    while offset + 24 + page_size <= len(wal):
        page, size_after_commit = struct.unpack(">II", wal[offset:offset + 8])
        if wal[offset + 8:offset + 16] != salt:
            break  # frames of an earlier generation of the WAL
        pages.append(page)
        commits += size_after_commit != 0
        offset += 24 + page_size
    writes = writes or commits
    print(f"frames {len(pages)}, commits {commits}, frames per write {len(pages) / max(1, writes):.1f}, distinct pages {len(set(pages))}")
    database = sqlite3.connect(f"file:{directory}/pacenote.sqlite?mode=ro", uri=True)
    owner = dict((page, name) for name, page in database.execute("SELECT name, pageno FROM dbstat"))
    for name, frames in collections.Counter(owner.get(page, "(new or free page)") for page in pages).most_common():
        print(f"{frames:8d} {frames / max(1, writes):7.2f}  {name}")


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "burst":
        burst(int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5]))
    elif len(sys.argv) == 4 and sys.argv[1] == "count":
        count(sys.argv[2], int(sys.argv[3]))
    else:
        sys.exit(__doc__)
