#!/usr/bin/env bash
# bench/profile.sh DATA_DIR STATE_DIR OUT_DIR [SCENARIO...]: where a request's time goes.
# Serves a copy of DATA_DIR (an imported data directory; STATE_DIR is what `bench/prepare.py
# setup` wrote for it) pinned to CPU 0, runs each scenario (all the reads and writes of
# bench/run.sh by default) for PROFILE_SECONDS (10) with wrk on CPU 1 and `perf record` on
# the server, and prints per scenario: req/s, p99, the server's CPU time per request (every
# thread: the checkpointer and the outbox worker count), and the share of its samples per
# library. OUT_DIR keeps each perf.data and its report (`perf report -i OUT_DIR/NAME.perf`).
# After a write scenario it waits for the outbox to drain, so the next one starts even.
# perf slows the server by about a tenth: compare profiles with profiles, not with run.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
[ $# -ge 3 ] || die "usage: bench/profile.sh DATA_DIR STATE_DIR OUT_DIR [SCENARIO...]"
source_dir=$1 state=$2 out=$3
shift 3
scenarios=${*:-video-by-id home-first home-deep news rally-top like-unlike comment mix}
seconds=${PROFILE_SECONDS:-10}
scripts/deps wrk linux-perf
build_release
mkdir -p "$out"
work=$(mktemp -d)
trap 'stop_servers; rm -rf "$work"' EXIT
cp -r "$source_dir" "$work/data"
port=$(free_port)
start_server "$work/data" "$port" "$out/server.log"
export BENCH_LUA=$PWD/bench/scenarios BENCH_STATE=$state

# cpu_ticks: user + system time of the server so far, in clock ticks.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$SERVER_PID/stat"; }

for s in video-by-id home-first; do   # warm the caches and the statement caches first
    taskset -c 1 wrk -t2 -c32 -d3s -s "bench/scenarios/$s.lua" "http://127.0.0.1:$port" >/dev/null
done
printf '%-12s %9s %8s %8s  %s\n' scenario req/s p99 'µs/req' 'samples per library'
for s in $scenarios; do
    before=$(cpu_ticks)
    taskset -c 1 wrk -t2 -c32 -d"${seconds}s" --latency --timeout 30s -s "bench/scenarios/$s.lua" \
        "http://127.0.0.1:$port" >"$out/$s.wrk" 2>&1 &
    wrk_pid=$!
    sleep 1
    perf record --call-graph dwarf,16384 -F 499 -p "$SERVER_PID" -o "$out/$s.perf" -- sleep $((seconds - 2)) >/dev/null 2>&1
    wait "$wrk_pid" || { cat "$out/$s.wrk" >&2; die "wrk failed ($s)"; }
    after=$(cpu_ticks)
    perf report -i "$out/$s.perf" --no-children --sort dso,sym --stdio -g none 2>/dev/null >"$out/$s.report"
    python3 - "$out/$s.wrk" "$out/$s.report" "$before" "$after" "$(getconf CLK_TCK)" "$s" <<'PY'
import collections, re, sys
wrk, report, before, after, tick, name = open(sys.argv[1]).read(), sys.argv[2], *map(float, sys.argv[3:6]), sys.argv[6]
requests = int(re.search(r"(\d+) requests in", wrk).group(1))
rate = float(re.search(r"Requests/sec:\s*([\d.]+)", wrk).group(1))
p99 = re.search(r"\s99%\s+(\S+)", wrk).group(1)
libraries = collections.Counter()
for line in open(report):
    m = re.match(r"\s*([\d.]+)%\s+(\S+)\s+\[", line)
    if m:
        libraries[m.group(2)] += float(m.group(1))
shares = ", ".join(f"{lib} {share:.1f}%" for lib, share in libraries.most_common(6))
print(f"{name:<12} {rate:9.0f} {p99:>8} {(after - before) / tick * 1e6 / requests:8.1f}  {shares}")
PY
    for _ in $(seq 120); do   # let a burst's fan-out drain before the next scenario
        left=$(python3 -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1], timeout=5).execute("SELECT count(*) FROM outbox WHERE state IN (?, ?)", ("pending", "leased")).fetchone()[0])' \
            "$work/data/pacenote.sqlite" 2>/dev/null || echo 1)
        [ "$left" = 0 ] && break
        sleep 1
    done
done
# How long checkpoints held every writer over all the scenarios (sum and count, by who held).
curl -s "http://127.0.0.1:$port/metrics" | grep -E '^pacenote_sqlite_checkpoint_hold_seconds_(sum|count)' >&2 || true
