#!/usr/bin/env bash
# Load benchmark for `kipcheck serve` (not run in CI). Needs a venv with confluent-kafka:
#   python3 -m venv target/venv && target/venv/bin/pip install confluent-kafka
# Usage: bash scripts/bench-serve.sh [CONNECTIONS] [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
conns=${1:-64}
secs=${2:-10}
py=${KIPCHECK_PYTHON:-target/venv/bin/python}
# shellcheck source=scripts/lib/bench-common.sh
source scripts/lib/bench-common.sh


out=$(mktemp)
"$bin" serve --listen 127.0.0.1:0 --idle-timeout-ms 600000 > "$out" &
pids+=($!); serve_pid=$!
wait_line "$out" "listening on"
addr=$(sed -n 's/.*listening on //p' "$out")
echo "serve, ApiVersions + PushConfig, $conns connections, $secs s:"
"$bin" load --connect "$addr" --connections "$conns" --duration "$secs"
echo "serve, ApiVersions only:"
"$bin" load --connect "$addr" --connections "$conns" --duration "$secs" --api-versions-only

mock=$(mktemp)
"$py" interop/python/rdkafka_mock.py > "$mock" &
pids+=($!)
wait_line "$mock" ":"
echo "librdkafka mock cluster ($(head -1 "$mock")), ApiVersions only:"
"$bin" load --connect "$(head -1 "$mock")" --connections "$conns" --duration "$secs" --api-versions-only

rss() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }
before=$(rss "$serve_pid")
"$bin" load --connect "$addr" --idle 10000 --duration 15 > /dev/null &
idle_pid=$!
sleep 12
during=$(rss "$serve_pid")
wait "$idle_pid"
echo "serve RSS: ${before} KiB before, ${during} KiB with 10000 idle connections"
