#!/usr/bin/env bash
# Runs the live client suite (scripts/live-client-suite.sh, the reference client) N times in a
# row (default 20, run seeds 1..N) and counts spurious failures: every failed or errored
# scenario of a run is one, since the reference client passes whatever the suite judges.
# Not for CI (about N × the suite's wall time). Prints one summary line:
#   runs, runs with a failure, failed scenarios (by id), judged (min-max), wall time, and the
#   largest deviation of a measured after_ms from its scaled expected window.
# Environment as for live-client-suite.sh; reports in KIPCHECK_REPORT_DIR/run-<i>.
set -uo pipefail
cd "$(dirname "$0")/.."
runs="${1:-20}"
base="${KIPCHECK_REPORT_DIR:-target/live-client-stability}"
scale="${KIPCHECK_TIME_SCALE:-0.1}"
mkdir -p "$base"
t0=$(date +%s)
for i in $(seq 1 "$runs"); do
  KIPCHECK_REPORT_DIR="$base/run-$i" KIPCHECK_SEED="$i" \
    bash scripts/live-client-suite.sh > "$base/run-$i.log" 2>&1
  echo "run $i: exit $? ($(tail -n 1 "$base/run-$i.log"))"
done
wall=$(( $(date +%s) - t0 ))
python3 - "$base" "$runs" "$wall" "$scale" <<'PY'
import json, os, sys
from collections import Counter
base, runs, wall, scale = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
bad_runs, spurious, judged, worst = 0, Counter(), [], None

def window(expected):
    """The scenario's expected after_ms window, scaled (None for matchers other than a
    number or a $range)."""
    try:
        v = json.loads(expected)
    except (TypeError, ValueError):
        return None
    if isinstance(v, (int, float)):
        return (v * scale, v * scale)
    if isinstance(v, dict) and list(v) == ["$range"] and len(v["$range"]) == 2:
        lo, hi = v["$range"]
        return (lo * scale, hi * scale)
    return None

for i in range(1, runs + 1):
    path = os.path.join(base, f"run-{i}", "reference", "results.json")
    if not os.path.exists(path):
        bad_runs += 1
        spurious[f"(run {i}: no results.json)"] += 1
        continue
    r = json.load(open(path))
    judged.append(r["summary"]["judged"])
    failed = [s["id"] for s in r["scenarios"] if s["verdict"] in ("failed", "errored")]
    bad_runs += bool(failed)
    spurious.update(failed)
    for s in r["scenarios"]:
        for t in s.get("timings", []):
            w = window(t.get("expected"))
            m = t.get("measured_ms")
            if t.get("check") != "after_ms" or w is None or m is None:
                continue
            dev = max(w[0] - m, m - w[1], 0)
            if worst is None or dev > worst[0]:
                worst = (dev, s["id"], t["step"], t["expected"], m)
dev = ("no after_ms timings in the reports" if worst is None else
       f"largest after_ms deviation {worst[0]:.0f} ms ({worst[1]} step {worst[2]}: expected "
       f"{worst[3]} x {scale}, measured {worst[4]} ms)")
fails = ", ".join(f"{k} x{v}" for k, v in spurious.most_common()) or "none"
jr = f"{min(judged)}-{max(judged)}" if judged else "-"
print(f"live client stability: {runs} runs, {bad_runs} with a failure, spurious failures: {fails}; "
      f"judged {jr}; wall {wall} s; {dev}")
sys.exit(1 if bad_runs else 0)
PY
