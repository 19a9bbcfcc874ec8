#!/usr/bin/env bash
# The Pacenote benchmark. For each scale: generates the dataset if missing (bench/data/),
# imports it with `pacenote import-parse` (time, peak RSS), serves it pinned to CPU 0, logs
# in 200 users, and measures each scenario with wrk pinned to CPU 1 (2 threads,
# 32 connections), `runs` times, next to nginx answering a fixed JSON on the same core
# (the machine's ceiling). Then checks the counters and prints the markdown of
# bench/report.py, for BENCHMARKS.md. Raw results: bench/results/<timestamp>/.
#
# Each scale runs on every setup of BENCH_SETUPS (default: sqlite):
#   sqlite       one server on the embedded SQLite
#   postgres     one server on PostgreSQL
#   postgres-2   two servers on one PostgreSQL behind nginx (deploy/nginx-multinode.conf)
# The PostgreSQL setups import once per scale into a database of their own and run on copies
# of it (CREATE DATABASE ... TEMPLATE). Without BENCH_POSTGRES_URL, the script runs itself
# again under scripts/postgres, which starts a throwaway PostgreSQL 15 cluster and stops it
# after, here with durable settings (BENCH_POSTGRES_SETTINGS below), not the tests' fsync=off.
#
# What runs where (2 CPUs): CPU 0 holds everything that serves: the server(s), PostgreSQL
# (the postmaster, and so every backend it forks), and for postgres-2 the nginx in front;
# CPU 1 holds wrk alone. So the PostgreSQL setups share one core with their database, as
# SQLite does (it runs inside the server), and two servers on one core measure what the
# second server and nginx cost there, not a second machine's gain.
#
# Usage: bench/run.sh [small|large|both] [runs=3] [seconds=10]
#   BENCH_SCENARIOS="video-by-id news"   only these scenarios (default: all)
#   BENCH_SETUPS="sqlite postgres postgres-2"   the setups, in this order (default: sqlite)
#   BENCH_POSTGRES_URL=postgres://...    an existing server instead of a throwaway cluster (a
#                                        role that may CREATE DATABASE; unaccent installed);
#                                        it is not pinned
#   BENCH_KEEP=1                         keep the temporary data directory and logs
#   BENCH_BINARY=/path/to/pacenote       run that binary instead of building this checkout
#   BENCH_SHAPE=social                   the social-shaped dataset (generate.py --shape social),
#                                        reported as "<scale>-social"; default: the plain shape
#
# The profile-picture scenarios (issue 29: avatar, avatar-thumb, video-by-id-during-uploads)
# need a photo: prepare.py photo draws a 12-megapixel JPEG into bench/data once (with `vips`,
# Debian's libvips-tools, installed here when they are selected). Before the scenarios, one
# server's upload is timed (prepare.py upload-time: 7 in a row, the server's VmHWM around
# them) and 100 users get that picture (prepare.py pictures), whose renditions the avatar
# scenarios read; video-by-id-during-uploads runs four upload loops (uploads.lua) beside it.
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
all_scenarios="video-by-id web-video web-day home-first home-deep news rally-top parse-rally-top parse-home like-unlike comment login mix search search-light me me-during-search avatar avatar-thumb video-by-id-during-uploads"
scenarios=${BENCH_SCENARIOS:-$all_scenarios}
for s in $scenarios; do [ -f "bench/scenarios/$s.lua" ] || die "unknown scenario '$s'"; done
shape=${BENCH_SHAPE:-plain}
case $shape in plain | social) ;; *) die "BENCH_SHAPE must be plain or social, not '$shape'" ;; esac
command_line="${BENCH_BINARY:+BENCH_BINARY=$BENCH_BINARY }${BENCH_SHAPE:+BENCH_SHAPE=$BENCH_SHAPE }${BENCH_SCENARIOS:+BENCH_SCENARIOS=\"$BENCH_SCENARIOS\" }bench/run.sh $*"

setups=${BENCH_SETUPS:-sqlite}
for setup in $setups; do
    case $setup in sqlite | postgres | postgres-2) ;; *) die "unknown setup '$setup' (sqlite, postgres, postgres-2)" ;; esac
done
command_line="${BENCH_SETUPS:+BENCH_SETUPS=\"$BENCH_SETUPS\" }$command_line"
if [[ " $setups " == *" postgres"* ]] && [ -z "${BENCH_POSTGRES_URL:-}" ]; then
    if [ -z "${BENCH_IN_CLUSTER:-}" ]; then
        # Durable like SQLite's default (WAL, synchronous=NORMAL: a crash of the process loses
        # nothing, a crash of the machine may lose the last commits, and neither corrupts):
        # fsync and full-page writes on, commits not waited for. Memory and checkpoints sized
        # so that a 10 s run does not measure a checkpoint (docs/deployment.md).
        export PACENOTE_POSTGRES_SETTINGS=${BENCH_POSTGRES_SETTINGS:-"-c fsync=on -c full_page_writes=on -c synchronous_commit=off \
-c shared_buffers=2GB -c effective_cache_size=8GB -c max_wal_size=8GB -c checkpoint_timeout=30min -c max_connections=200"}
        BENCH_IN_CLUSTER=1 exec scripts/postgres bench/run.sh "$@"
    fi
    BENCH_POSTGRES_URL=$PACENOTE_TEST_POSTGRES_URL
    pin_postgres "$BENCH_POSTGRES_URL"
fi

# The profile-picture scenarios upload a photo drawn at bench time (prepare.py photo, with
# Debian's `vips`), kept in bench/data like the datasets.
pictures=
for s in $scenarios; do
    case $s in avatar | avatar-thumb | video-by-id-during-uploads) pictures=1 ;; esac
done
photo=$PWD/bench/data/photo-4000x3000.jpg
small_photo=$PWD/bench/data/photo-640x480.jpg
scripts/deps wrk nginx-light time ${pictures:+libvips-tools}
nginx=$(command -v nginx || echo /usr/sbin/nginx)
for tool in wrk "$nginx" taskset curl python3 swift /usr/bin/time; do
    command -v "$tool" >/dev/null || die "$tool is missing"
done
[ "$(nproc)" -ge 2 ] || die "needs 2 CPUs (server on CPU 0, wrk on CPU 1); this machine has $(nproc)"

stamp=$(date -u +%Y%m%dT%H%M%SZ)
results=$PWD/bench/results/$stamp
work=$(mktemp -d "${TMPDIR:-/tmp}/pacenote-bench.XXXXXX")
mkdir -p "$results/raw" "$results/logs"
SERVER_PIDS=()
NGINX_PID=
BALANCER_PID=
SEARCHERS_PID=
UPLOADERS_PID=
DATABASES=()
cleanup() {
    local status=$?
    stop_pid "$SEARCHERS_PID"
    stop_pid "$UPLOADERS_PID"
    stop_servers
    stop_pid "$BALANCER_PID"
    stop_pid "$NGINX_PID"
    for db in "${DATABASES[@]}"; do drop_database "$db"; done
    cp "$work"/*.log "$results/logs/" 2>/dev/null || true
    if [ "${BENCH_KEEP:-0}" = 1 ]; then note "kept $work"; else rm -rf "$work"; fi
    [ $status -eq 0 ] || note "FAILED (exit $status); logs in $results/logs"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

export BENCH_LUA=$PWD/bench/scenarios
echo "scale,setup,scenario,run,rps,p50_ms,p99_ms,requests,non2xx,errors" >"$results/results.csv"

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
           "server": "taskset -c 0 pacenote serve (defaults: bcrypt cost 10)",
           "postgres": os.environ.get("PACENOTE_POSTGRES_SETTINGS", "") if os.environ.get("BENCH_IN_CLUSTER") else
                       ("an existing server (BENCH_POSTGRES_URL)" if os.environ.get("BENCH_POSTGRES_URL") else "")},
          open(sys.argv[1], "w"), indent=1)
PY

build_release "$work/build.log"

if [ -n "$pictures" ] && [ ! -f "$photo" ]; then
    note "drawing the 12-megapixel photo the uploads send into $photo"
    python3 bench/prepare.py photo "$photo.tmp.jpg" && mv "$photo.tmp.jpg" "$photo" || die "prepare.py photo failed"
fi
if [ -n "$pictures" ] && [ ! -f "$small_photo" ]; then
    python3 bench/prepare.py photo "$small_photo.tmp.jpg" --width 640 --height 480 && mv "$small_photo.tmp.jpg" "$small_photo" \
        || die "prepare.py photo failed"
fi
export BENCH_PHOTO=$photo

# nginx, the ceiling: one worker on CPU 0, up for the whole run (idle while the server is measured).
nginx_port=$(free_port)
mkdir -p "$work/nginx/tmp"
sed "s/__PORT__/$nginx_port/" bench/nginx.conf >"$work/nginx/nginx.conf"
taskset -c 0 "$nginx" -p "$work/nginx" -c "$work/nginx/nginx.conf" -e stderr 2>"$work/nginx.log" &
NGINX_PID=$!
wait_http "http://127.0.0.1:$nginx_port/" "$NGINX_PID" 10 || { cat "$work/nginx.log" >&2; die "nginx did not start"; }

# measure SCALE SETUP NAME SCRIPT PORT RUN: one wrk run, raw output kept, a CSV row appended.
measure() {
    local scale=$1 setup=$2 name=$3 script=$4 port=$5 run=$6 raw="$results/raw/$1-$2-$3-$6.txt"
    taskset -c 1 wrk -t2 -c32 -d"${seconds}s" --latency --timeout 30s -s "bench/scenarios/$script.lua" \
        "http://127.0.0.1:$port" >"$raw" 2>&1 || { cat "$raw" >&2; die "wrk failed ($scale $setup $name run $run)"; }
    record "$scale" "$setup" "$name" "$run" "$raw"
}

# record SCALE SETUP NAME RUN RAW: the CSV row of one wrk output, and a line on stderr.
record() {
    local scale=$1 setup=$2 name=$3 run=$4 raw=$5 row
    row=$(python3 bench/prepare.py wrk "$raw" | python3 -c '
import json, sys; r = json.load(sys.stdin)
print(",".join(str(r[k]) for k in ("rps", "p50_ms", "p99_ms", "requests", "non2xx", "errors")))')
    echo "$scale,$setup,$name,$run,$row" >>"$results/results.csv"
    IFS=, read -r rps p50 p99 total non2xx errors <<<"$row"
    printf 'bench: %-6s %-10s %-12s run %s: %10s req/s  p50 %8s ms  p99 %8s ms' "$scale" "$setup" "$name" "$run" "$rps" "$p50" "$p99" >&2
    if [ "$non2xx" != 0 ] || [ "$errors" != 0 ]; then printf '  (%s non-2xx, %s socket errors!)' "$non2xx" "$errors" >&2; fi
    echo >&2
}

# drain SCALE SETUP NAME RUN DB: likes, comments and follows reach following feeds through the
# outbox workers, which yield to requests while they write. Waits (up to 5 minutes) until the
# backlog a scenario left is gone, so the next scenario runs on a quiet server, and records
# the backlog and how long it took in outbox.csv.
drain() {
    python3 bench/prepare.py drain "$5" "$1,$2,$3,$4" >>"$results/outbox.csv"
}
echo "scale,setup,scenario,run,backlog,drain_s,left" >"$results/outbox.csv"

# The balancer of postgres-2: deploy/nginx-multinode.conf itself, its listen address and
# upstream servers swapped for loopback ports, one worker on CPU 0 beside the servers.
# start_balancer PORT NODE_PORT... ; sets BALANCER_PID.
start_balancer() {
    local port=$1 dir=$work/balancer
    shift
    mkdir -p "$dir/tmp"
    python3 - "$dir/pacenote.conf" "$port" "$@" <<'PY'
import re, sys
out, port, nodes = sys.argv[1], sys.argv[2], sys.argv[3:]
text = open("deploy/nginx-multinode.conf").read()
text = re.sub(r"(?m)^    listen \d+;", f"    listen 127.0.0.1:{port};", text)
servers = "".join(f"    server 127.0.0.1:{n} max_fails=3 fail_timeout=10s;\n" for n in nodes)
text = re.sub(r"(?m)(^    server 127\.0\.0\.1:\d+ [^\n]*\n)+", servers, text, count=1)
open(out, "w").write(text)
PY
    cat >"$dir/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid nginx.pid;
error_log stderr warn;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path tmp/body;
    proxy_temp_path tmp/proxy;
    fastcgi_temp_path tmp/fastcgi;
    uwsgi_temp_path tmp/uwsgi;
    scgi_temp_path tmp/scgi;
    include pacenote.conf;
}
CONF
    taskset -c 0 "$nginx" -p "$dir" -c "$dir/nginx.conf" -e stderr 2>"$work/balancer.log" &
    BALANCER_PID=$!
    wait_http "http://127.0.0.1:$port/healthz" "$BALANCER_PID" 10 || { cat "$work/balancer.log" >&2; die "the balancer did not start"; }
}

# import_dataset DATASET KEY [pacenote options...]: imports the dataset, timed by
# /usr/bin/time into import-KEY.log, into the database the options name.
import_dataset() {
    local dataset=$1 key=$2
    shift 2
    note "importing $dataset (pacenote import-parse $*)"
    /usr/bin/time -v "$PACENOTE_BIN" import-parse "$dataset" "$@" \
        >"$work/import-$key.log" 2>&1 || { tail -30 "$work/import-$key.log" >&2; die "import-parse of $dataset failed ($key)"; }
}

# import_report LOG DB OUT: wall time and peak RSS from /usr/bin/time, and the database's size.
import_report() {
    python3 - "$1" "$2" "$3" <<'PY'
import json, os, re, subprocess, sys
text = open(sys.argv[1]).read()
clock = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", text).group(1)
seconds = 0.0
for part in clock.split(":"):
    seconds = seconds * 60 + float(part)
rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1))
db = sys.argv[2]
if db.startswith(("postgres://", "postgresql://")):
    size = int(subprocess.run(["psql", db, "-XAtc", "SELECT pg_database_size(current_database())"],
                              capture_output=True, text=True, check=True).stdout)
else:
    size = sum(os.path.getsize(db + s) for s in ("", "-wal") if os.path.exists(db + s))
home = re.findall(r"home_timeline: (\d+) rows", text)  # the rebuild's progress line
json.dump({"import_s": seconds, "import_peak_rss_kb": rss, "db_bytes": size,
           "home_rows": int(home[-1]) if home else None}, open(sys.argv[3], "w"))
print(f"bench: imported in {seconds:.1f} s, peak RSS {rss / 1024:.0f} MiB, database {size / 2**20:.0f} MiB"
      + (f", {int(home[-1]):,} home timeline rows" if home else ""), file=sys.stderr)
PY
}

# The cursor secret every server of a PostgreSQL setup shares.
cursor_secret=$(python3 -c 'import secrets; print(secrets.token_hex(32))')

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

    base=
    for setup in $setups; do
        # Files of the SQLite setup keep their names of before the PostgreSQL setups came.
        key=$scale
        [ "$setup" = sqlite ] || key=$scale-$setup
        data=$work/$key
        case $setup in
            sqlite)
                import_dataset "$dataset" "$key" --data-dir "$data"
                import_report "$work/import-$key.log" "$data/pacenote.sqlite" "$results/$key-import.json"
                db=$data/pacenote.sqlite
                serve_db=()
                ;;
            postgres*)
                if [ -z "$base" ]; then
                    # One import per scale; each setup serves a copy, so each starts from the same data.
                    base=bench_${scale}_imported
                    create_database "$BENCH_POSTGRES_URL" "$base"
                    DATABASES+=("$(database_url "$BENCH_POSTGRES_URL" "$base")")
                    import_dataset "$dataset" "$scale-postgres-import" --data-dir "$data" \
                        --database "$(database_url "$BENCH_POSTGRES_URL" "$base")"
                    import_report "$work/import-$scale-postgres-import.log" "$(database_url "$BENCH_POSTGRES_URL" "$base")" \
                        "$results/$scale-postgres-import.json"
                fi
                [ "$key" = "$scale-postgres" ] || cp "$results/$scale-postgres-import.json" "$results/$key-import.json"
                name=bench_${scale}_${setup//-/_}
                create_database "$BENCH_POSTGRES_URL" "$name" "$base"
                db=$(database_url "$BENCH_POSTGRES_URL" "$name")
                DATABASES+=("$db")
                serve_db=(--database "$db" --cursor-secret "$cursor_secret")
                ;;
        esac

        if [ "$setup" = postgres-2 ]; then
            # Every connection comes from nginx: its address is trusted for X-Forwarded-For, and
            # the per-address connection limit is nginx's to keep (limit_conn).
            node_ports=()
            for node in 1 2; do
                node_ports+=("$(free_port)")
                start_server "$data-$node" "${node_ports[-1]}" "$work/server-$key-$node.log" "${serve_db[@]}" \
                    --trusted-proxy 127.0.0.1 --max-connections-per-ip 1024
            done
            port=$(free_port)
            start_balancer "$port" "${node_ports[@]}"
            note "serving $scale ($setup) on 127.0.0.1:${node_ports[*]} behind nginx on 127.0.0.1:$port (all on CPU 0)"
        else
            port=$(free_port)
            # The public pages (issue 33) are served only with --public-web; the other scenarios
            # then run with it too, so video-by-id is measured beside them on the same server.
            web=()
            [[ " $scenarios " != *" web-"* ]] || web=(--public-web --public-url "http://127.0.0.1:$port")
            start_server "$data" "$port" "$work/server-$key.log" "${serve_db[@]}" ${web[@]+"${web[@]}"}
            note "serving $scale ($setup) on 127.0.0.1:$port (CPU 0)"
        fi

        state=$work/state-$key
        export BENCH_STATE=$state
        python3 bench/prepare.py setup "http://127.0.0.1:$port" "$db" "$state" \
            || die "preparing tokens and ids for $scale ($setup) failed"
        login_s=$(python3 bench/prepare.py login-time "http://127.0.0.1:$port" "$state" -n 20) || die "login timing failed"
        cp "$state/login_time.json" "$results/$key-login-time.json"
        note "one login takes $(python3 -c "print(round($login_s * 1000, 1))") ms (median of 20, sequential)"
        if [ -n "$pictures" ]; then
            # Issue 29: one upload's wall time and the server's peak memory around it (VmHWM of a
            # server that has served only the logins and one 640 x 480 upload so far, which
            # starts libvips; the client on wrk's CPU), then pictures for 100 users, whose
            # renditions the avatar scenarios read.
            [ "$setup" != postgres-2 ] || die "the picture scenarios run on one server (sqlite or postgres), not postgres-2"
            taskset -c 1 python3 bench/prepare.py upload-time "http://127.0.0.1:$port" "$state" "$photo" --pid "$SERVER_PID" -n 7 \
                --warm-up "$small_photo" >/dev/null || die "upload timing failed"
            cp "$state/upload_time.json" "$results/$key-upload-time.json"
            python3 bench/prepare.py pictures "http://127.0.0.1:$port" "$state" "$photo" --users 100 --uploaders 4 \
                || die "uploading the pictures failed"
        fi

        for run in $(seq "$runs"); do
            measure "$scale" "$setup" nginx video-by-id "$nginx_port" "$run"
            for s in $scenarios; do
                if [ "$s" = me-during-search ]; then
                    # Six people searching once a second (issue 10's load) beside the measured reads,
                    # on wrk's CPU; started first and stopped after, so it covers the whole measurement.
                    taskset -c 1 wrk -t1 -c6 -d"$((seconds + 2))s" --latency --timeout 30s -s bench/scenarios/search-paced.lua \
                        "http://127.0.0.1:$port" >"$results/raw/$scale-$setup-search-paced-$run.txt" 2>&1 &
                    SEARCHERS_PID=$!
                    sleep 1
                fi
                if [ "$s" = video-by-id-during-uploads ]; then
                    # Four clients uploading the 12 MP photo again and again (issue 29's load),
                    # on wrk's CPU like the searchers above: each waits for its answer, then sends again.
                    taskset -c 1 wrk -t1 -c4 -d"$((seconds + 2))s" --latency --timeout 30s -s bench/scenarios/uploads.lua \
                        "http://127.0.0.1:$port" >"$results/raw/$scale-$setup-uploads-$run.txt" 2>&1 &
                    UPLOADERS_PID=$!
                    sleep 1
                fi
                measure "$scale" "$setup" "$s" "$s" "$port" "$run"
                if [ -n "$UPLOADERS_PID" ]; then
                    wait "$UPLOADERS_PID" || { cat "$results/raw/$scale-$setup-uploads-$run.txt" >&2; die "the background uploads failed"; }
                    UPLOADERS_PID=
                    record "$scale" "$setup" uploads "$run" "$results/raw/$scale-$setup-uploads-$run.txt"
                fi
                if [ -n "$SEARCHERS_PID" ]; then
                    wait "$SEARCHERS_PID" || { cat "$results/raw/$scale-$setup-search-paced-$run.txt" >&2; die "the background searches failed"; }
                    SEARCHERS_PID=
                    record "$scale" "$setup" search-paced "$run" "$results/raw/$scale-$setup-search-paced-$run.txt"
                fi
                case $s in like-unlike | comment | mix) drain "$scale" "$setup" "$s" "$run" "$db" ;; esac
            done
        done

        # Peak RSS of each server (one for sqlite and postgres, two for postgres-2).
        python3 -c "
import json, sys
peaks = [int(next(l.split()[1] for l in open(f'/proc/{pid}/status') if l.startswith('VmHWM'))) for pid in sys.argv[1:]]
print(json.dumps({'server_peak_rss_kb': max(peaks), 'servers': len(peaks)}))" "${SERVER_PIDS[@]}" >"$results/$key-server.json"
        stop_servers
        stop_pid "$BALANCER_PID"
        BALANCER_PID=
        python3 bench/prepare.py counters "$db" >"$results/$key-counters.json" || die "counter check failed to run"
        if python3 -c "import json,sys; sys.exit(0 if json.load(open('$results/$key-counters.json'))['ok'] else 1)"; then
            note "$scale ($setup) counters: OK (every video's likes and comments, every user's follows)"
        else
            note "$scale ($setup) counters DRIFT: $(cat "$results/$key-counters.json")"
        fi
        # BENCH_KEEP keeps the SQLite data directory too, for bench/profile.sh and bench/sync.sh.
        [ "${BENCH_KEEP:-0}" = 1 ] && [ "$setup" = sqlite ] || rm -rf "$data" "$data"-1 "$data"-2
        [ "$setup" = sqlite ] || drop_database "$db"
    done
    [ -z "$base" ] || drop_database "$(database_url "$BENCH_POSTGRES_URL" "$base")"
done

python3 bench/report.py "$results" | tee "$results/report.md"
