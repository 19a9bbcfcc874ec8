#!/usr/bin/env bash
# The Pacenote benchmark. For each scale: generates the dataset if missing (bench/data/),
# imports it with `pacenote import-parse` (time, peak RSS), serves it pinned to CPU 0, logs
# in 200 users, and measures each scenario with wrk pinned to CPU 1 (2 threads,
# 32 connections), `runs` times, next to nginx answering a fixed JSON on the same core
# (the machine's ceiling). Then checks the counters and prints the markdown of
# bench/report.py, for BENCHMARKS.md. Raw results: bench/results/<timestamp>/.
#
# Usage: bench/run.sh [small|large|both] [runs=3] [seconds=10]
#   BENCH_SCENARIOS="video-by-id news"   only these scenarios (default: all)
#   BENCH_KEEP=1                         keep the temporary data directory and logs
#   BENCH_BINARY=/path/to/pacenote       run that binary instead of building this checkout
#   BENCH_SHAPE=social                   the social-shaped dataset (generate.py --shape social),
#                                        reported as "<scale>-social"; default: the plain shape
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

which=${1:-small}
runs=${2:-3}
seconds=${3:-10}
case $which in
    small | large) scales=("$which") ;;
    both) scales=(small large) ;;
    *) die "usage: bench/run.sh [small|large|both] [runs=3] [seconds=10]" ;;
esac
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "runs must be a positive integer, not '$runs'"
[[ $seconds =~ ^[1-9][0-9]*$ ]] || die "seconds must be a positive integer, not '$seconds'"
all_scenarios="video-by-id home-first home-deep news rally-top like-unlike comment login mix search search-light me me-during-search"
scenarios=${BENCH_SCENARIOS:-$all_scenarios}
for s in $scenarios; do [ -f "bench/scenarios/$s.lua" ] || die "unknown scenario '$s'"; done
shape=${BENCH_SHAPE:-plain}
case $shape in plain | social) ;; *) die "BENCH_SHAPE must be plain or social, not '$shape'" ;; esac
command_line="${BENCH_BINARY:+BENCH_BINARY=$BENCH_BINARY }${BENCH_SHAPE:+BENCH_SHAPE=$BENCH_SHAPE }${BENCH_SCENARIOS:+BENCH_SCENARIOS=\"$BENCH_SCENARIOS\" }bench/run.sh $*"

scripts/deps wrk nginx-light time
nginx=$(command -v nginx || echo /usr/sbin/nginx)
for tool in wrk "$nginx" taskset curl python3 swift /usr/bin/time; do
    command -v "$tool" >/dev/null || die "$tool is missing"
done
[ "$(nproc)" -ge 2 ] || die "needs 2 CPUs (server on CPU 0, wrk on CPU 1); this machine has $(nproc)"

stamp=$(date -u +%Y%m%dT%H%M%SZ)
results=$PWD/bench/results/$stamp
work=$(mktemp -d "${TMPDIR:-/tmp}/pacenote-bench.XXXXXX")
mkdir -p "$results/raw" "$results/logs"
SERVER_PID=
NGINX_PID=
SEARCHERS_PID=
cleanup() {
    local status=$?
    stop_pid "$SEARCHERS_PID"
    stop_pid "$SERVER_PID"
    stop_pid "$NGINX_PID"
    cp "$work"/*.log "$results/logs/" 2>/dev/null || true
    if [ "${BENCH_KEEP:-0}" = 1 ]; then note "kept $work"; else rm -rf "$work"; fi
    [ $status -eq 0 ] || note "FAILED (exit $status); logs in $results/logs"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

export BENCH_LUA=$PWD/bench/scenarios
echo "scale,scenario,run,rps,p50_ms,p99_ms,requests,non2xx,errors" >"$results/results.csv"

python3 - "$results/machine.json" "$command_line" "$runs" "$seconds" <<'PY'
import json, platform, subprocess, sys, os
commit = subprocess.run(["git", "describe", "--always", "--dirty"], capture_output=True, text=True).stdout.strip()
model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "unknown")
swift = subprocess.run(["swift", "--version"], capture_output=True, text=True)
json.dump({"command": sys.argv[2], "commit": commit, "runs": int(sys.argv[3]), "seconds": int(sys.argv[4]),
           "nproc": len(os.sched_getaffinity(0)), "cpu": model, "kernel": platform.release(),
           "memory_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
           "swift": (swift.stdout or swift.stderr).splitlines()[0],
           "wrk": "taskset -c 1 wrk -t2 -c32 --latency --timeout 30s",
           "server": "taskset -c 0 pacenote serve (defaults: bcrypt cost 10)"}, open(sys.argv[1], "w"), indent=1)
PY

build_release "$work/build.log"

# nginx, the ceiling: one worker on CPU 0, up for the whole run (idle while the server is measured).
nginx_port=$(free_port)
mkdir -p "$work/nginx/tmp"
sed "s/__PORT__/$nginx_port/" bench/nginx.conf >"$work/nginx/nginx.conf"
taskset -c 0 "$nginx" -p "$work/nginx" -c "$work/nginx/nginx.conf" -e stderr 2>"$work/nginx.log" &
NGINX_PID=$!
wait_http "http://127.0.0.1:$nginx_port/" "$NGINX_PID" 10 || { cat "$work/nginx.log" >&2; die "nginx did not start"; }

# measure SCALE NAME SCRIPT PORT RUN: one wrk run, raw output kept, a CSV row appended.
measure() {
    local scale=$1 name=$2 script=$3 port=$4 run=$5 raw="$results/raw/$1-$2-$5.txt"
    taskset -c 1 wrk -t2 -c32 -d"${seconds}s" --latency --timeout 30s -s "bench/scenarios/$script.lua" \
        "http://127.0.0.1:$port" >"$raw" 2>&1 || { cat "$raw" >&2; die "wrk failed ($scale $name run $run)"; }
    record "$scale" "$name" "$run" "$raw"
}

# record SCALE NAME RUN RAW: the CSV row of one wrk output, and a line on stderr.
record() {
    local scale=$1 name=$2 run=$3 raw=$4 row
    row=$(python3 bench/prepare.py wrk "$raw" | python3 -c '
import json, sys; r = json.load(sys.stdin)
print(",".join(str(r[k]) for k in ("rps", "p50_ms", "p99_ms", "requests", "non2xx", "errors")))')
    echo "$scale,$name,$run,$row" >>"$results/results.csv"
    IFS=, read -r rps p50 p99 total non2xx errors <<<"$row"
    printf 'bench: %-6s %-12s run %s: %10s req/s  p50 %8s ms  p99 %8s ms' "$scale" "$name" "$run" "$rps" "$p50" "$p99" >&2
    if [ "$non2xx" != 0 ] || [ "$errors" != 0 ]; then printf '  (%s non-2xx, %s socket errors!)' "$non2xx" "$errors" >&2; fi
    echo >&2
}

# drain SCALE NAME RUN DB: likes, comments and follows reach following feeds through the
# outbox worker, which yields to requests while they write. Waits (up to 5 minutes) until the
# backlog a scenario left is gone, so the next scenario runs on a quiet server, and records
# the backlog and how long it took in outbox.csv.
drain() {
    python3 - "$4" >>"$results/outbox.csv" "$1,$2,$3" <<'PY'
import sqlite3, sys, time
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
pending = lambda: db.execute("SELECT COUNT(*) FROM outbox WHERE state IN ('pending', 'leased')").fetchone()[0]
backlog, started = pending(), time.monotonic()
while pending() and time.monotonic() - started < 300:
    time.sleep(0.1)
print(f"{sys.argv[2]},{backlog},{time.monotonic() - started:.1f},{pending()}")
PY
}
echo "scale,scenario,run,backlog,drain_s,left" >"$results/outbox.csv"

for size in "${scales[@]}"; do
    # The scale's name in results and reports: "large", or "large-social" for the social shape.
    scale=$size
    [ "$shape" = plain ] || scale=$size-$shape
    dataset=bench/data/$scale
    if [ ! -f "$dataset/Activity.json" ]; then
        note "generating the $scale dataset into $dataset"
        rm -rf "$dataset.tmp"
        python3 bench/generate.py "$size" "$dataset.tmp" --shape "$shape" || die "generate.py $size --shape $shape failed"
        rm -rf "$dataset" && mv "$dataset.tmp" "$dataset"
    fi

    data=$work/$scale
    note "importing $dataset (pacenote import-parse)"
    /usr/bin/time -v "$PACENOTE_BIN" import-parse "$dataset" --data-dir "$data" \
        >"$work/import-$scale.log" 2>&1 || { tail -30 "$work/import-$scale.log" >&2; die "import-parse of $dataset failed"; }
    python3 - "$work/import-$scale.log" "$data/pacenote.sqlite" "$results/$scale-import.json" <<'PY'
import json, os, re, sys
text = open(sys.argv[1]).read()
clock = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", text).group(1)
seconds = 0.0
for part in clock.split(":"):
    seconds = seconds * 60 + float(part)
rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1))
db = sys.argv[2]
size = sum(os.path.getsize(db + s) for s in ("", "-wal") if os.path.exists(db + s))
home = re.findall(r"home_timeline: (\d+) rows", text)  # the rebuild's progress line
json.dump({"import_s": seconds, "import_peak_rss_kb": rss, "db_bytes": size,
           "home_rows": int(home[-1]) if home else None}, open(sys.argv[3], "w"))
print(f"bench: imported in {seconds:.1f} s, peak RSS {rss / 1024:.0f} MiB, database {size / 2**20:.0f} MiB"
      + (f", {int(home[-1]):,} home timeline rows" if home else ""), file=sys.stderr)
PY

    port=$(free_port)
    note "serving $scale on 127.0.0.1:$port (CPU 0)"
    start_server "$data" "$port" "$work/server-$scale.log"
    state=$work/state-$scale
    export BENCH_STATE=$state
    python3 bench/prepare.py setup "http://127.0.0.1:$port" "$data/pacenote.sqlite" "$state" \
        || die "preparing tokens and ids for $scale failed"
    login_s=$(python3 bench/prepare.py login-time "http://127.0.0.1:$port" "$state" -n 20) || die "login timing failed"
    cp "$state/login_time.json" "$results/$scale-login-time.json"
    note "one login takes $(python3 -c "print(round($login_s * 1000, 1))") ms (median of 20, sequential)"

    for run in $(seq "$runs"); do
        measure "$scale" nginx video-by-id "$nginx_port" "$run"
        for s in $scenarios; do
            if [ "$s" = me-during-search ]; then
                # Six people searching once a second (issue 10's load) beside the measured reads,
                # on wrk's CPU; started first and stopped after, so it covers the whole measurement.
                taskset -c 1 wrk -t1 -c6 -d"$((seconds + 2))s" --latency --timeout 30s -s bench/scenarios/search-paced.lua \
                    "http://127.0.0.1:$port" >"$results/raw/$scale-search-paced-$run.txt" 2>&1 &
                SEARCHERS_PID=$!
                sleep 1
            fi
            measure "$scale" "$s" "$s" "$port" "$run"
            if [ -n "$SEARCHERS_PID" ]; then
                wait "$SEARCHERS_PID" || { cat "$results/raw/$scale-search-paced-$run.txt" >&2; die "the background searches failed"; }
                SEARCHERS_PID=
                record "$scale" search-paced "$run" "$results/raw/$scale-search-paced-$run.txt"
            fi
            case $s in like-unlike | comment | mix) drain "$scale" "$s" "$run" "$data/pacenote.sqlite" ;; esac
        done
    done

    python3 -c "import json; print(json.dumps({'server_peak_rss_kb': int(next(l.split()[1] for l in open('/proc/$SERVER_PID/status') if l.startswith('VmHWM'))) }))" \
        >"$results/$scale-server.json"
    stop_pid "$SERVER_PID"
    SERVER_PID=
    python3 bench/prepare.py counters "$data/pacenote.sqlite" >"$results/$scale-counters.json" || die "counter check failed to run"
    if python3 -c "import json,sys; sys.exit(0 if json.load(open('$results/$scale-counters.json'))['ok'] else 1)"; then
        note "$scale counters: OK (every video's likes and comments, every user's follows)"
    else
        note "$scale counters DRIFT: $(cat "$results/$scale-counters.json")"
    fi
    rm -rf "$data"
done

python3 bench/report.py "$results" | tee "$results/report.md"
