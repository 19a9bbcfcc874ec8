#!/usr/bin/env bash
# bench/sync.sh DATA_DIR STATE_DIR [RUNS] [SECONDS]: the figures of issue 32 (BENCHMARKS.md,
# "Sync"). Serves a copy of DATA_DIR (a data directory bench/run.sh imported and kept:
# BENCH_KEEP=1; STATE_DIR is what `bench/prepare.py setup` wrote for it) pinned to CPU 0, and:
# 1. a 304 against a 200: GET /v1/videos/{id} and the home feed's first page, the same requests
#    with and without If-None-Match, wrk on CPU 1, RUNS runs (3) of SECONDS (10) each; req/s and
#    the server's CPU per request (all its threads), medians; and the bytes of one of each;
# 2. a refresh with 5 new videos on a home feed of 10,000 (bench/sync.py refresh);
# 3. a full catalogue snapshot of the change log (bench/sync.py snapshot).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
[ $# -ge 2 ] || die "usage: bench/sync.sh DATA_DIR STATE_DIR [RUNS] [SECONDS]"
source_dir=$1 state=$2 runs=${3:-3} seconds=${4:-10}
scripts/deps wrk
build_release
work=$(mktemp -d)
trap 'stop_servers; rm -rf "$work"' EXIT
cp -r "$source_dir" "$work/data"
port=$(free_port)
start_server "$work/data" "$port" "$work/server.log"
url=http://127.0.0.1:$port
export BENCH_LUA=$PWD/bench/scenarios BENCH_STATE=$state

cpu_ticks() { awk '{print $14 + $15}' "/proc/$SERVER_PID/stat"; }
python3 bench/sync.py conditional "$url" "$state" "$work/requests"
for list in video home; do   # warm the caches
    BENCH_REQUESTS=$work/requests/$list.txt taskset -c 1 wrk -t2 -c32 -d3s -s bench/scenarios/conditional.lua "$url" >/dev/null
done
printf '%-6s %-4s %9s %8s\n' list want req/s 'µs/req'
for run in $(seq "$runs"); do
    for list in video home; do
        for match in 0 1; do
            before=$(cpu_ticks)
            BENCH_REQUESTS=$work/requests/$list.txt BENCH_IF_NONE_MATCH=$match taskset -c 1 \
                wrk -t2 -c32 -d"${seconds}s" --timeout 30s -s bench/scenarios/conditional.lua "$url" >"$work/wrk" 2>&1
            after=$(cpu_ticks)
            python3 - "$work/wrk" "$before" "$after" "$(getconf CLK_TCK)" "$list" "$match" <<'PY'
import re, sys
wrk, before, after, tick = open(sys.argv[1]).read(), *map(float, sys.argv[2:5])
requests = int(re.search(r"(\d+) requests in", wrk).group(1))
rate = float(re.search(r"Requests/sec:\s*([\d.]+)", wrk).group(1))
if "Non-2xx" in wrk and sys.argv[6] == "0":
    sys.exit("non-2xx answers in a 200 run:\n" + wrk)
print(f"{sys.argv[5]:<6} {'304' if sys.argv[6] == '1' else '200':<4} {rate:9.0f} {(after - before) / tick * 1e6 / requests:8.1f}")
PY
        done
    done
done
python3 bench/sync.py refresh "$url" "$state" "$work/data/pacenote.sqlite" "$SERVER_PID"
python3 bench/sync.py snapshot "$url" "$state" "$SERVER_PID"
