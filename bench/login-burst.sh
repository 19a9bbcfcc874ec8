#!/usr/bin/env bash
# Does a burst of logins stall other traffic? Measures the p99 latency of
# GET /v1/users/me alone, then while 16 connections log in as fast as they can
# (bcrypt cost 10, the default). The server is pinned to CPU 0, wrk to CPU 1.
# Usage: bench/login-burst.sh [runs=3] [seconds=10]
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
runs=${1:-3}
seconds=${2:-10}
scripts/deps wrk
work=$(mktemp -d)
SERVER_PID=
trap 'stop_pid "$SERVER_PID"; rm -rf "$work"' EXIT
build_release "$work/build.log"

port=$(free_port)
start_server "$work/data" "$port" "$work/server.log"

body='{"username":"bench_user","email":"bench@example.com","password":"password123"}'
token=$(curl -fs -X POST "http://127.0.0.1:$port/v1/users" -d "$body" | python3 -c 'import json,sys; print(json.load(sys.stdin)["sessionToken"])')

cat >"$work/login.lua" <<'LUA'
wrk.method = "POST"
wrk.body = '{"login":"bench_user","password":"password123"}'
wrk.headers["Content-Type"] = "application/json"
LUA

p99() { wrk_p99; }
rate() { wrk_rate; }

me() { taskset -c 1 wrk -t1 -c8 -d${seconds}s --latency -H "Authorization: Bearer $token" "http://127.0.0.1:$port/v1/users/me"; }

echo "run,me_p99_alone_ms,me_rps_alone,me_p99_with_logins_ms,me_rps_with_logins,logins_per_s"
for run in $(seq "$runs"); do
    alone=$(me)
    taskset -c 1 wrk -t1 -c16 -d$((seconds + 2))s -s "$work/login.lua" "http://127.0.0.1:$port/v1/sessions" >"$work/logins.txt" &
    logins=$!
    sleep 1
    busy=$(me)
    wait $logins
    echo "$run,$(echo "$alone" | p99),$(echo "$alone" | rate),$(echo "$busy" | p99),$(echo "$busy" | rate),$(rate <"$work/logins.txt")"
done
