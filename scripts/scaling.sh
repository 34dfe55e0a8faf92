#!/usr/bin/env bash
# How cost grows. Prints two tables:
#   1. decode time of a PushConfigRequest v0 with 10, 100, 1,000 and 10,000 configs, per byte
#      (`cargo bench -p kipcheck --bench codec -- push_config_entries`, divan medians);
#   2. wall time of `kipcheck run --scenarios DIR --jobs 2` for the shipped suite and for 10x
#      and 100x generated copies of it (each copy's files renamed `<id>-cN.yaml` with the same
#      `id:`, in a temporary directory), from the optimised binary.
#
#   scripts/scaling.sh               both tables
#   scripts/scaling.sh codec|suite   one of them
#
# Environment: KIPCHECK_SCALING_COPIES (default "1 10 100"), KIPCHECK_SCALING_JOBS (default 2),
# KIPCHECK_BIN (a kipcheck binary to time instead of building target/release/kipcheck).
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
copies=${KIPCHECK_SCALING_COPIES:-1 10 100}
jobs=${KIPCHECK_SCALING_JOBS:-2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ "$what" = all ] || [ "$what" = codec ]; then
  nice -n 10 cargo bench -q -p kipcheck --bench codec -- push_config_entries \
    > "$tmp/bench.out" 2> "$tmp/bench.err"
  python3 - "$tmp/bench.out" "$tmp/bench.err" <<'PY'
import re, sys
out, err = open(sys.argv[1]).read(), open(sys.argv[2]).read()
sizes = {int(n): int(b) for n, b in re.findall(r"push_config_entries (\d+): (\d+) B", err)}
unit = {"ns": 1.0, "µs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9}
rows = []
for line in out.splitlines():
    m = re.match(r"^[│ ]*[├╰]─ (\d+)\s+(.*)$", line)
    if not m:
        continue
    cols = [c.strip() for c in m.group(2).split("│")]
    value, u = cols[2].split()  # fastest │ slowest │ median │ mean │ samples │ iters
    rows.append((int(m.group(1)), float(value) * unit[u]))
print("| configs | bytes | decode (median) | ns per byte |")
print("|---:|---:|---:|---:|")
for n, ns in rows:
    b = sizes[n]
    print(f"| {n:,} | {b:,} | {ns / 1e3:,.1f} µs | {ns / b:.2f} |")
PY
fi

if [ "$what" = all ] || [ "$what" = suite ]; then
  # The bench build also builds the release binary (cargo builds a package's binaries for its
  # benches), with the same features as the codec table: one optimised build for both.
  if [ -n "${KIPCHECK_BIN:-}" ]; then
    bin=$(cd "$(dirname "$KIPCHECK_BIN")" && pwd)/$(basename "$KIPCHECK_BIN")
  else
    nice -n 10 cargo bench -q -p kipcheck --bench codec --no-run 2>/dev/null
    bin=$PWD/target/release/kipcheck
  fi
  echo
  echo "| suite | scenarios | wall time (--jobs $jobs) | per scenario |"
  echo "|---|---:|---:|---:|"
  for k in $copies; do
    dir="$tmp/suite-$k"
    mkdir -p "$dir"
    cp scenarios/requirements.yaml "$dir/"
    if [ "$k" = 1 ]; then
      cp -r scenarios/. "$dir/"
    else
      python3 - "$k" "$dir" <<'PY'
import pathlib, re, sys
k, out = int(sys.argv[1]), pathlib.Path(sys.argv[2])
for f in pathlib.Path("scenarios").rglob("*.yaml"):
    if f.name == "requirements.yaml" or f.name.startswith("_"):
        continue
    text, sid = f.read_text(), f.stem
    for c in range(1, k + 1):
        dest = out / f.parent.relative_to("scenarios") / f"{sid}-c{c}.yaml"
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(re.sub(rf"(?m)^id: {re.escape(sid)}$", f"id: {sid}-c{c}", text))
PY
    fi
    n=$(find "$dir" -name '*.yaml' ! -name requirements.yaml ! -name '_*' | wc -l)
    start=$(date +%s.%N)
    (cd "$tmp" && "$bin" run --scenarios "$dir" --jobs "$jobs" > "$tmp/run-$k.out" 2>&1) || {
      echo "kipcheck run failed for $k copies:" >&2; tail -20 "$tmp/run-$k.out" >&2; exit 1; }
    end=$(date +%s.%N)
    python3 -c "import sys; k, n, t = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]) - float(sys.argv[4]); print(f'| {k}x | {n:,} | {t:.2f} s | {t / n * 1e3:.2f} ms |')" "$k" "$n" "$end" "$start"
  done
fi
