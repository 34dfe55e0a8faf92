#!/usr/bin/env bash
# The server's own CPU time per 10,000 handshakes, side by side in one run: `kipcheck serve`
# and librdkafka's mock cluster under the same `kipcheck load` driver, a new connection for
# every handshake (as a client instance makes one), at the same offered rate, with p50/p99
# latency; then serve's RSS per idle connection. CPU comes from /proc/PID/stat (utime + stime)
# read before and after each load, less what the idle server used over the same time, so
# the driver's own CPU and other processes' do not count. Not run in CI (docs/performance.md).
#
# Usage: bash scripts/serve-cpu.sh [SECONDS] [RATE] [CONNECTIONS]
#   needs the Python venv interop/install.sh makes (confluent-kafka), or KIPCHECK_PYTHON.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
rate=${2:-2000}
conns=${3:-16}
py=${KIPCHECK_PYTHON:-target/interop/python/venv/bin/python}
# shellcheck source=scripts/lib/bench-common.sh
source scripts/lib/bench-common.sh
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)

out=$(mktemp)
"$bin" serve --listen 127.0.0.1:0 --idle-timeout-ms 600000 > "$out" &
pids+=($!); serve_pid=$!
wait_line "$out" "listening on"
serve_addr=$(sed -n 's/.*listening on //p' "$out")
# The same server on one thread (`--threads 1`: no wake-ups across threads).
out1=$(mktemp)
"$bin" serve --listen 127.0.0.1:0 --idle-timeout-ms 600000 --threads 1 > "$out1" &
pids+=($!); serve1_pid=$!
wait_line "$out1" "listening on"
serve1_addr=$(sed -n 's/.*listening on //p' "$out1")
mock_out=$(mktemp)
"$py" interop/python/rdkafka_mock.py > "$mock_out" &
pids+=($!); mock_pid=$!
wait_line "$mock_out" ":"
mock_addr=$(head -1 "$mock_out")

# measure NAME PID ADDR LOAD-ARGS...: one JSON line with the server's CPU per 10k handshakes.
measure() {
  local name=$1 pid=$2 addr=$3; shift 3
  local i0 i1 t0 t1 report
  i0=$(ticks "$pid"); sleep "$secs"; i1=$(ticks "$pid")
  t0=$(ticks "$pid")
  report=$("$bin" load --connect "$addr" --connections "$conns" --duration "$secs" --new-connection "$@")
  t1=$(ticks "$pid")
  python3 - "$name" "$report" "$((i1 - i0))" "$((t1 - t0))" "$hz" "$*" <<'PY'
import json, sys
name, report, idle, busy, hz, args = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
n = report["handshakes"]
cpu_ms = max(busy - idle, 0) * 1000 / hz
per10k = cpu_ms * 10000 / n if n else float("nan")
print(json.dumps({"server": name, "load": args, "handshakes": n, "errors": report["errors"],
                  "per_second": round(report["per_second"]), "p50_us": report["p50_us"],
                  "p99_us": report["p99_us"], "server_cpu_ms": cpu_ms, "idle_cpu_ms": idle * 1000 / hz,
                  "cpu_ms_per_10k": round(per10k, 1)}))
PY
}

echo "# $(date -u +%FT%TZ) $(uname -m), $(nproc) cores; ${secs} s each, ${conns} connections, new connection per handshake"
echo "# offered rate ${rate}/s:"
a=$(measure serve "$serve_pid" "$serve_addr" --api-versions-only --rate "$rate"); echo "$a"
a1=$(measure serve-threads-1 "$serve1_pid" "$serve1_addr" --api-versions-only --rate "$rate"); echo "$a1"
b=$(measure rdkafka-mock "$mock_pid" "$mock_addr" --api-versions-only --rate "$rate"); echo "$b"
measure serve "$serve_pid" "$serve_addr" --rate "$rate"
measure serve-threads-1 "$serve1_pid" "$serve1_addr" --rate "$rate"
echo "# unpaced (as fast as answered):"
c=$(measure serve "$serve_pid" "$serve_addr" --api-versions-only); echo "$c"
c1=$(measure serve-threads-1 "$serve1_pid" "$serve1_addr" --api-versions-only); echo "$c1"
d=$(measure rdkafka-mock "$mock_pid" "$mock_addr" --api-versions-only); echo "$d"
measure serve "$serve_pid" "$serve_addr"
python3 - "$a" "$a1" "$b" "$c" "$c1" "$d" <<'PY'
import json, sys
a, a1, b, c, c1, d = (json.loads(x) for x in sys.argv[1:])
r = lambda x, y: f"{x['cpu_ms_per_10k']} / {y['cpu_ms_per_10k']} ms = {x['cpu_ms_per_10k'] / y['cpu_ms_per_10k']:.2f}"
print(f"# ApiVersions-only CPU per 10k handshakes, serve / mock: at the offered rate {r(a, b)} "
      f"(--threads 1: {r(a1, b)}); unpaced {r(c, d)} (--threads 1: {r(c1, d)})")
print(f"# p99 at the offered rate, serve / serve --threads 1 / mock: {a['p99_us']} / {a1['p99_us']} / {b['p99_us']} us")
PY

rss() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }
# Each count on a fresh server: the allocator keeps what an earlier, larger run touched. The
# largest count is what the descriptor limit allows (the goal is measured at 50,000; a process here
# may hold at most `ulimit -Hn` descriptors, 20,000 on the project's VM, and may not raise it).
most=$(( $(ulimit -n) - 200 )); [ "$most" -gt 50000 ] && most=50000
for n in 1000 10000 "$most"; do
  iout=$(mktemp)
  "$bin" serve --listen 127.0.0.1:0 --idle-timeout-ms 600000 > "$iout" &
  pids+=($!); ipid=$!
  wait_line "$iout" "listening on"
  iaddr=$(sed -n 's/.*listening on //p' "$iout")
  before=$(rss "$ipid")
  "$bin" load --connect "$iaddr" --idle "$n" --duration 10 > "$iout.load" &
  idle_pid=$!
  sleep 8
  during=$(rss "$ipid")
  wait "$idle_pid"
  opened=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["idle_connections_opened"])' "$iout.load")
  python3 -c "import sys; n, o, b, d = map(int, sys.argv[1:]); print(f'# serve RSS: {b} KiB idle, {d} KiB with {o} of {n} idle connections open: {(d - b) * 1024 / o / 1000:.2f} KB each')" "$n" "$opened" "$before" "$during"
  kill "$ipid"
done
