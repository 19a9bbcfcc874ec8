#!/usr/bin/env bash
# bench/wal-sync.sh DATA_DIR STATE_DIR [pairs=4] [seconds=10] [scenario=like-unlike]: what the
# WAL sync timer (`--sqlite-wal-sync`, 200ms) costs writes under NORMAL. Alternates runs of one
# write scenario with the timer on and off (`--sqlite-wal-sync off`), each on a fresh copy of
# DATA_DIR (an imported data directory; STATE_DIR what `bench/prepare.py setup` wrote for it),
# the server on CPU 0 and wrk on CPU 1, and prints each run and the medians of each side.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
[ $# -ge 2 ] || die "usage: bench/wal-sync.sh DATA_DIR STATE_DIR [pairs=4] [seconds=10] [scenario=like-unlike]"
source_dir=$1 state=$2 pairs=${3:-4} seconds=${4:-10} scenario=${5:-like-unlike}
build_release
work=$(mktemp -d)
trap 'stop_servers; rm -rf "$work"' EXIT
export BENCH_LUA=$PWD/bench/scenarios BENCH_STATE=$state
: >"$work/runs.csv"
for pair in $(seq "$pairs"); do
    for sync in 200ms off; do
        rm -rf "$work/data"
        cp -r "$source_dir" "$work/data"
        port=$(free_port)
        start_server "$work/data" "$port" "$work/server.log" --outbox-workers none --sqlite-wal-sync "$sync"
        taskset -c 1 wrk -t2 -c32 -d"${seconds}s" --latency --timeout 30s -s "bench/scenarios/$scenario.lua" \
            "http://127.0.0.1:$port" >"$work/wrk.txt" 2>&1 || { cat "$work/wrk.txt" >&2; die "wrk failed"; }
        stop_servers
        row=$(python3 bench/prepare.py wrk "$work/wrk.txt" | python3 -c '
import json, sys; r = json.load(sys.stdin); print(r["rps"], r["p99_ms"])')
        echo "$sync $row" >>"$work/runs.csv"
        note "pair $pair, --sqlite-wal-sync $sync: $row (req/s, p99 ms)"
    done
done
python3 - "$work/runs.csv" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
for side in ("200ms", "off"):
    rps = [float(r[1]) for r in rows if r[0] == side]
    p99 = [float(r[2]) for r in rows if r[0] == side]
    print(f"--sqlite-wal-sync {side}: median {statistics.median(rps):,.0f} req/s, p99 {statistics.median(p99):.1f} ms ({len(rps)} runs)")
PY
