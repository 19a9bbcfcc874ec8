#!/usr/bin/env bash
# bench/wal-frames.sh DATA_DIR STATE_DIR [comment|like] [N]: what N writes (200 comments by
# default), one at a time, add to the WAL, per write and per B-tree. DATA_DIR is an imported
# data directory and STATE_DIR what `bench/prepare.py setup` wrote for it; both are left as
# they are (the server runs on a copy, without its outbox workers, and is killed with -9 so
# that the WAL is still there to read).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
[ $# -ge 2 ] || die "usage: bench/wal-frames.sh DATA_DIR STATE_DIR [comment|like] [N]"
source_dir=$1 state=$2 kind=${3:-comment} writes=${4:-200}
build_release
work=$(mktemp -d)
trap 'stop_servers; rm -rf "$work"' EXIT
cp -r "$source_dir" "$work/data"
rm -f "$work/data/pacenote.sqlite-wal" "$work/data/pacenote.sqlite-shm"
port=$(free_port)
start_server "$work/data" "$port" "$work/server.log" --outbox-workers none
python3 bench/wal_frames.py burst "$port" "$state" "$kind" "$writes"
kill -KILL "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true
SERVER_PIDS=()
python3 bench/wal_frames.py count "$work/data" "$writes"
