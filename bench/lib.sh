# Shell helpers shared by the benchmark scripts (sourced, not run).
# The server is pinned to CPU 0 and wrk to CPU 1 (taskset), as BENCHMARKS.md describes.

die() { echo "bench: error: $*" >&2; exit 1; }
note() { echo "bench: $*" >&2; }

# A TCP port nobody listens on (random in 20000..39999, checked with a connect attempt).
free_port() {
    local port
    for _ in $(seq 50); do
        port=$((20000 + RANDOM % 20000))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "$port"; return 0; fi
    done
    die "no free TCP port found"
}

# wait_http URL PID [seconds=30]: waits until URL answers 2xx; fails if PID died or on timeout.
wait_http() {
    local url=$1 pid=$2 limit=$(( ${3:-30} * 10 ))
    for _ in $(seq "$limit"); do
        curl -fs -o /dev/null "$url" 2>/dev/null && return 0
        kill -0 "$pid" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}

# The server binary the benchmark runs: BENCH_BINARY (a copy of an earlier build, to measure
# before and after a change in one sitting), else the release build of this checkout.
PACENOTE_BIN=${BENCH_BINARY:-.build/release/pacenote}

# build_release: the optimised server binary (.build/release/pacenote); nothing with BENCH_BINARY.
build_release() {
    if [ -n "${BENCH_BINARY:-}" ]; then
        [ -x "$BENCH_BINARY" ] || die "BENCH_BINARY=$BENCH_BINARY is not an executable"
        note "using $BENCH_BINARY (BENCH_BINARY), not building"
        return 0
    fi
    note "building (swift build -c release --product pacenote)"
    swift build -c release --product pacenote >"${1:-/dev/null}" 2>&1 \
        || { [ -n "${1:-}" ] && tail -30 "$1" >&2; die "release build failed"; }
}

# start_server DATA_DIR PORT LOG [extra serve options...]: starts the release server pinned
# to CPU 0 and waits for /healthz; sets SERVER_PID and adds it to SERVER_PIDS (`stop_servers`
# stops them all). Every rate limit is off: the benchmark
# is many clients behind one loopback address doing far more than one client may by default
# (600 writes a minute per user, 60 logins a minute per address), and it measures the server,
# not the limits. Extra options come after and win.
start_server() {
    local data=$1 port=$2 log=$3
    shift 3
    taskset -c 0 "$PACENOTE_BIN" serve --listen "127.0.0.1:$port" --data-dir "$data" \
        --limit-signups off --limit-logins off --limit-mails off --limit-mails-per-ip off --limit-writes off --limit-requests off \
        --parse-app-id pacenote-bench "$@" 2>"$log" &
    SERVER_PID=$!
    SERVER_PIDS+=("$SERVER_PID")
    wait_http "http://127.0.0.1:$port/healthz" "$SERVER_PID" 120 \
        || { tail -20 "$log" >&2; die "the server did not answer /healthz on port $port (log: $log)"; }
}

# stop_servers: stops every server start_server started.
stop_servers() {
    local pid
    for pid in ${SERVER_PIDS[@]+"${SERVER_PIDS[@]}"}; do stop_pid "$pid"; done
    SERVER_PIDS=()
    SERVER_PID=
}

# database_url URL NAME: URL with its database (the path) replaced by NAME, options kept.
database_url() {
    python3 -c 'import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/" + sys.argv[2])))' "$1" "$2"
}

# create_database URL NAME [TEMPLATE]: a new database on the server of URL, with unaccent
# (search needs it), or a copy of TEMPLATE (which nobody may be connected to).
create_database() {
    local url=$1 name=$2 template=${3:-}
    psql "$url" -XqAt -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $name" \
        -c "CREATE DATABASE $name${template:+ TEMPLATE $template}" >/dev/null || die "cannot create the database $name"
    [ -n "$template" ] || psql "$(database_url "$url" "$name")" -XqAt -v ON_ERROR_STOP=1 \
        -c "CREATE EXTENSION IF NOT EXISTS unaccent" >/dev/null || die "cannot install unaccent in $name"
}

# drop_database URL: drops the database URL names (connecting to the server's `postgres` one).
drop_database() {
    local name
    name=$(python3 -c 'import sys, urllib.parse as u; print(u.urlsplit(sys.argv[1]).path.lstrip("/"))' "$1")
    psql "$(database_url "$1" postgres)" -XqAt -c "DROP DATABASE IF EXISTS $name WITH (FORCE)" >/dev/null 2>&1 || true
}

# pin_postgres URL: moves the PostgreSQL server of URL (on this machine) to CPU 0: the
# postmaster and the processes it already runs; every backend it forks later inherits it.
pin_postgres() {
    local directory pid child
    directory=$(psql "$1" -XAtc "SHOW data_directory") || die "cannot ask PostgreSQL for its data directory"
    pid=$(head -1 "$directory/postmaster.pid")
    taskset -a -p -c 0 "$pid" >/dev/null || die "cannot pin PostgreSQL (pid $pid) to CPU 0"
    for child in $(pgrep -P "$pid"); do taskset -a -p -c 0 "$child" >/dev/null || true; done
    note "PostgreSQL (postmaster $pid and its processes) pinned to CPU 0"
}

# stop_pid PID: SIGTERM, wait up to 15 s, then SIGKILL. Quiet if it is already gone.
stop_pid() {
    local pid=${1:-}
    [ -n "$pid" ] || return 0
    kill -0 "$pid" 2>/dev/null || return 0
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null || true
}

# wrk prints the 99% line of --latency in us, ms or s; these read wrk's output on stdin.
wrk_p99() { python3 -c '
import re, sys
text = sys.stdin.read()
m = re.search(r"^\s*99%\s+([\d.]+)(us|ms|s)\s*$", text, re.M)
v, unit = float(m.group(1)), m.group(2)
print(round(v / 1000 if unit == "us" else v * 1000 if unit == "s" else v, 2))'; }
wrk_rate() { python3 -c 'import re,sys; print(re.search(r"Requests/sec:\s+([\d.]+)", sys.stdin.read()).group(1))'; }
