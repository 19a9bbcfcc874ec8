#!/usr/bin/env bash
# Push delivery benchmark: a new video broadcast to USERS installations, and a like's push
# while the following-feed lane holds a backlog. See bench/push.py; figures in BENCHMARKS.md.
# Usage: bench/push.sh [USERS=10000] [BACKLOG=20000]
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
scripts/deps
scripts/python-env
build_release "$(mktemp)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod +x bench/push.py
bench/push.py .build/release/pacenote "$work" --users "${1:-10000}" --backlog "${2:-20000}"
