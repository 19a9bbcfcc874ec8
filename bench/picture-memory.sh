#!/usr/bin/env bash
# The server's peak resident memory under profile-picture uploads (issue 43, BENCHMARKS.md
# "Picture memory"): runs the end-to-end class PictureBombTests, which makes its pictures with
# libvips, starts the real binary and prints one line per measurement:
#   PictureBombTests.<test>: baseline N MiB, peak +N MiB, after +N MiB, N s
# (VmHWM after `5 > /proc/PID/clear_refs`, against VmRSS just before; "after" is VmRSS once
# back within 64 MiB or 10 s later). Its assertions are the contract's, so against an earlier
# build they fail; the figures are what counts here.
#
#   bench/picture-memory.sh                           # this build
#   BENCH_BINARY=/tmp/pacenote-before bench/picture-memory.sh   # an earlier build too, first
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --build-tests >/dev/null 2>&1
echo "machine: $(nproc) CPUs, $(free -m | awk '/Mem:/ {print $2}') MiB, $(uname -sr); load $(cut -d' ' -f1-3 /proc/loadavg)"
run() {
    PACENOTE_BENCH_BIN="$1" swift test --skip-build --filter PictureBombTests 2>&1 \
        | grep -E '^PictureBombTests\.|^PictureBombTests bomb|Executed' || true
}
if [ -n "${BENCH_BINARY:-}" ]; then
    echo "== $BENCH_BINARY"
    run "$BENCH_BINARY"
fi
echo "== this build ($(git rev-parse --short HEAD))"
run ""
