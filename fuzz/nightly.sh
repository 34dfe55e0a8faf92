#!/usr/bin/env bash
# Nightly fuzzing: runs every cargo-fuzz target (or the ones named) for SECONDS each on all
# cores (-fork), merges what it found into corpus/<target>/ and minimises that corpus, and
# writes a summary to reports/fuzz/<UTC timestamp>/ (summary.md, summary.json, one log per
# target). Exits non-zero if any target crashed, ran out of memory or timed out.
#
#   fuzz/nightly.sh [SECONDS] [TARGET...]      default: 600 seconds, every target
#
# Environment: JOBS (default: nproc), RSS_LIMIT_MB (2048), MALLOC_LIMIT_MB (512),
# UNIT_TIMEOUT (10 s per input), SANITIZER (address on nightly Rust, else none),
# MERGE (1: merge new inputs into corpus/<target>/ and minimise it; 0: leave corpus/ alone),
# PROFILE (release, the default; dev: unoptimised, a much shorter build for CI's smoke run).
set -uo pipefail
cd "$(dirname "$0")/.."

secs="${1:-600}"
shift || true
jobs="${JOBS:-$(nproc)}"
rss="${RSS_LIMIT_MB:-2048}"
malloc="${MALLOC_LIMIT_MB:-512}"
unit_timeout="${UNIT_TIMEOUT:-10}"

command -v cargo-fuzz >/dev/null 2>&1 || cargo install cargo-fuzz --locked
if [ -z "${SANITIZER:-}" ]; then
  if rustup run nightly rustc --version >/dev/null 2>&1; then
    SANITIZER=address; toolchain=(+nightly)
  else
    SANITIZER=none; toolchain=()
  fi
else
  toolchain=()
  [ "$SANITIZER" != none ] && toolchain=(+nightly)
fi

profile=()
case "${PROFILE:-release}" in
  release) ;;
  dev) profile=(--dev) ;;
  *) echo "PROFILE must be release or dev" >&2; exit 2 ;;
esac

if [ "$#" -gt 0 ]; then targets=("$@"); else mapfile -t targets < <(cargo fuzz list --fuzz-dir fuzz); fi
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
out="reports/fuzz/${stamp}"
mkdir -p "$out"
status=0
json_rows=()
{
  echo "# Fuzzing summary ${stamp}"
  echo
  echo "${secs} s per target, ${jobs} jobs, sanitizer ${SANITIZER}, rss limit ${rss} MB, malloc limit ${malloc} MB, unit timeout ${unit_timeout} s."
  echo
  echo "| target | result | execs | exec/s | coverage (cov) | features (ft) | corpus before | corpus after |"
  echo "|---|---|---|---|---|---|---|---|"
} > "$out/summary.md"

for t in "${targets[@]}"; do
  corpus="corpus/$t"
  work="fuzz/work/$t"
  artifacts="fuzz/artifacts/$t/"
  mkdir -p "$corpus" "$work" "$artifacts"
  before=$(find "$corpus" -type f | wc -l)
  log="$out/$t.log"
  cargo "${toolchain[@]}" fuzz run "$t" --fuzz-dir fuzz "${profile[@]}" --sanitizer "$SANITIZER" "$work" "$corpus" -- \
    -fork="$jobs" -max_total_time="$secs" -rss_limit_mb="$rss" -malloc_limit_mb="$malloc" \
    -timeout="$unit_timeout" -ignore_crashes=0 -ignore_ooms=0 -ignore_timeouts=0 \
    -artifact_prefix="$artifacts" -print_final_stats=1 > "$log" 2>&1
  rc=$?
  # Merge new inputs into the checked-in corpus, keeping only what adds coverage.
  if [ "${MERGE:-1}" = 1 ]; then
    min="fuzz/work/$t.min"
    rm -rf "$min" && mkdir -p "$min"
    cargo "${toolchain[@]}" fuzz run "$t" --fuzz-dir fuzz "${profile[@]}" --sanitizer "$SANITIZER" "$min" "$corpus" "$work" -- \
      -merge=1 -rss_limit_mb="$rss" >> "$log" 2>&1 && { rm -rf "$corpus"; mv "$min" "$corpus"; }
  fi
  after=$(find "$corpus" -type f | wc -l)
  # Plain runs end with "stat::number_of_executed_units" and "#N DONE cov: .. exec/s: N";
  # -fork runs print "#N: cov: .. ft: .. corp: .. exec/s N .." status lines instead.
  execs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | tail -1 | grep -Eo '[0-9]+$' || true)
  [ -z "$execs" ] && execs=$(grep -Eo '^#[0-9]+' "$log" | tail -1 | tr -d '#' || true)
  rate=$(grep -Eo 'exec/s:? [0-9]+' "$log" | tail -1 | grep -Eo '[0-9]+' || echo "?")
  cov=$(grep -Eo 'cov: [0-9]+' "$log" | tail -1 | grep -Eo '[0-9]+' || echo "?")
  ft=$(grep -Eo 'ft: [0-9]+' "$log" | tail -1 | grep -Eo '[0-9]+' || echo "?")
  crashes=$(find "$artifacts" -type f \( -name 'crash-*' -o -name 'oom-*' -o -name 'timeout-*' -o -name 'leak-*' \) | wc -l)
  if [ "$rc" -ne 0 ] || [ "$crashes" -gt 0 ]; then result="FAILED (exit $rc, $crashes artifacts in $artifacts)"; status=1; else result="ok"; fi
  echo "| $t | $result | ${execs:-?} | $rate | $cov | $ft | $before | $after |" >> "$out/summary.md"
  json_rows+=("{\"target\":\"$t\",\"ok\":$([ "$result" = ok ] && echo true || echo false),\"exit\":$rc,\"artifacts\":$crashes,\"execs\":\"${execs:-?}\",\"exec_per_s\":\"$rate\",\"cov\":\"$cov\",\"ft\":\"$ft\",\"corpus_before\":$before,\"corpus_after\":$after}")
  echo "$t: $result (exec/s $rate, cov $cov, ft $ft, corpus $before -> $after)"
done
(IFS=,; echo "{\"stamp\":\"$stamp\",\"seconds\":$secs,\"jobs\":$jobs,\"sanitizer\":\"$SANITIZER\",\"targets\":[${json_rows[*]}]}") > "$out/summary.json"
echo "summary: $out/summary.md"
exit "$status"
