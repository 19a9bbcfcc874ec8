#!/usr/bin/env bash
# bench/wal-frames.sh DATA_DIR STATE_DIR [comment|like] [N]: what N writes (200 comments by
# default), one at a time, add to the WAL, per write and per B-tree, and the server's pwrite64
# calls during them (strace -c, attached for the burst alone; with no checkpoint in so few
# writes, every one of them is a WAL write). DATA_DIR is an imported
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
command -v strace >/dev/null || apt-get install -y strace >/dev/null
strace -f -c -e trace=pwrite64 -o "$work/strace.txt" -p "$SERVER_PID" 2>/dev/null &
tracer=$!
sleep 1   # strace attaches to every thread before the burst begins
python3 bench/wal_frames.py burst "$port" "$state" "$kind" "$writes"
kill -INT "$tracer"; wait "$tracer" 2>/dev/null || true
calls=$(awk '$NF == "pwrite64" { print $4 }' "$work/strace.txt")
echo "pwrite64 calls ${calls:-0}, per write $(python3 -c "print(f'{${calls:-0} / $writes:.2f}')")"
kill -KILL "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true
SERVER_PIDS=()
python3 bench/wal_frames.py count "$work/data" "$writes"
