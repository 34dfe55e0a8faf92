#!/usr/bin/env bash
# Fuzzing throughput (issue 18 §3): exec/s of each fuzz target over its committed corpus,
# stable Rust, `--sanitizer none`, release, one job. For each target it runs
#   cargo fuzz run --sanitizer none --release -j1 TARGET WORK corpus/TARGET -- -runs=N
# twice, with -runs=0 (load and run the corpus only) and -runs=N, and reports
# (units(N) - units(0)) / (time(N) - time(0)): the rate after the corpus is loaded, without
# process start. New units go to a temporary WORK directory; corpus/ is only read.
#
#   scripts/fuzz-throughput.sh                    every target in fuzz/fuzz_targets
#   scripts/fuzz-throughput.sh decode_request …   the targets named
#
# Environment: KIPCHECK_FUZZ_RUNS (default 2000000 for decode_*, 200000 for the others;
# set it to override all).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -gt 0 ]; then
  targets=("$@")
else
  targets=()
  for f in fuzz/fuzz_targets/*.rs; do targets+=("$(basename "$f" .rs)"); done
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nice -n 10 cargo fuzz build --fuzz-dir fuzz --sanitizer none --release >"$tmp/build.log" 2>&1 || {
  tail -30 "$tmp/build.log" >&2; exit 1; }

# run TARGET RUNS -> "units seconds"
run() {
  local t=$1 n=$2 work="$tmp/work-$1-$2"
  mkdir -p "$work"
  local start end
  start=$(date +%s.%N)
  nice -n 10 cargo fuzz run --fuzz-dir fuzz --sanitizer none --release -j1 "$t" "$work" "corpus/$t" -- \
    -runs="$n" -print_final_stats=1 -rss_limit_mb=2048 -malloc_limit_mb=512 -timeout=10 \
    >"$tmp/$t-$n.log" 2>&1 || { tail -30 "$tmp/$t-$n.log" >&2; return 1; }
  end=$(date +%s.%N)
  local units
  units=$(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/$t-$n.log")
  echo "$units $start $end"
}

echo "| target | corpus files | runs | exec/s after loading |"
echo "|---|---:|---:|---:|"
for t in "${targets[@]}"; do
  case "$t" in
    decode_request|decode_response) n=${KIPCHECK_FUZZ_RUNS:-2000000} ;;
    *) n=${KIPCHECK_FUZZ_RUNS:-200000} ;;
  esac
  read -r u0 s0 e0 < <(run "$t" 0)
  read -r u1 s1 e1 < <(run "$t" "$n")
  files=$(find "corpus/$t" -type f | wc -l)
  python3 -c "
import sys
u0, s0, e0, u1, s1, e1 = map(float, sys.argv[3:])
rate = (u1 - u0) / ((e1 - s1) - (e0 - s0))
print(f'| \`{sys.argv[1]}\` | {sys.argv[2]} | {int(u1 - u0):,} | {rate:,.0f} |')
" "$t" "$files" "$u0" "$s0" "$e0" "$u1" "$s1" "$e1"
done
