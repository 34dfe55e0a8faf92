#!/usr/bin/env bash
# Fuzzing throughput: exec/s of each fuzz target over its committed corpus,
# stable Rust, `--sanitizer none`, release, one job. It builds the targets with
# `cargo fuzz build --sanitizer none --release`, then for each target runs the binary that
# `cargo fuzz run --sanitizer none --release -j1` would, as
#   fuzz/target/x86_64-unknown-linux-gnu/release/TARGET WORK corpus/TARGET -runs=N
# twice, with -runs=0 (load and run the corpus only) and -runs=N, and reports
# (units(N) - units(0)) / (time(N) - time(0)): the rate after the corpus is loaded, without
# process start. New units go to a temporary WORK directory; corpus/ is only read.
#
#   scripts/fuzz-throughput.sh                    every target in fuzz/fuzz_targets
#   scripts/fuzz-throughput.sh decode_request …   the targets named
#
# It also reports the rate per CPU-second of the fuzzing process (user + sys, from
# /usr/bin/time, the same subtraction): on a shared machine, other processes lengthen the wall
# time but not the CPU time, so that column moves less between runs; on a quiet machine the two
# agree.
#
# Environment: KIPCHECK_FUZZ_RUNS (default 2000000 for decode_*, 200000 for the others;
# set it to override all); KIPCHECK_FUZZ_NO_BUILD=1 uses the release binaries already built.
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
if [ "${KIPCHECK_FUZZ_NO_BUILD:-0}" != 1 ]; then
  nice -n 10 cargo fuzz build --fuzz-dir fuzz --sanitizer none --release >"$tmp/build.log" 2>&1 || {
    tail -30 "$tmp/build.log" >&2; exit 1; }
fi
bindir=fuzz/target/x86_64-unknown-linux-gnu/release

# run TARGET RUNS -> "units wall_seconds cpu_seconds": the release binary itself (what
# `cargo fuzz run --release --sanitizer none -j1` runs), so cargo's own start-up is not timed.
run() {
  local t=$1 n=$2 work="$tmp/work-$1-$2"
  mkdir -p "$work"
  /usr/bin/time -f '%e %U %S' -o "$tmp/$t-$n.time" nice -n 10 "$bindir/$t" "$work" "corpus/$t" \
    -runs="$n" -print_final_stats=1 -rss_limit_mb=2048 -malloc_limit_mb=512 -timeout=10 \
    >"$tmp/$t-$n.log" 2>&1 || { tail -30 "$tmp/$t-$n.log" >&2; return 1; }
  local units wall user sys
  units=$(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/$t-$n.log")
  read -r wall user sys < "$tmp/$t-$n.time"
  echo "$units $wall $(python3 -c "print($user + $sys)")"
}

echo "| target | corpus files | runs | exec/s after loading | exec per CPU-second |"
echo "|---|---:|---:|---:|---:|"
for t in "${targets[@]}"; do
  case "$t" in
    decode_request|decode_response) n=${KIPCHECK_FUZZ_RUNS:-2000000} ;;
    *) n=${KIPCHECK_FUZZ_RUNS:-200000} ;;
  esac
  read -r u0 w0 c0 < <(run "$t" 0)
  read -r u1 w1 c1 < <(run "$t" "$n")
  files=$(find "corpus/$t" -type f | wc -l)
  python3 -c "
import sys
u0, w0, c0, u1, w1, c1 = map(float, sys.argv[3:])
print(f'| \`{sys.argv[1]}\` | {sys.argv[2]} | {int(u1 - u0):,} | {(u1 - u0) / (w1 - w0):,.0f} | {(u1 - u0) / (c1 - c0):,.0f} |')
" "$t" "$files" "$u0" "$w0" "$c0" "$u1" "$w1" "$c1"
done
