#!/usr/bin/env bash
# Nightly fuzzing: runs every cargo-fuzz target (or the ones named) for SECONDS each on all
# cores (-fork), merges what it found into corpus/<target>/ and minimises that corpus to a
# fixpoint, replays the minimised corpus once to report its coverage (libFuzzer's edges and
# features: "corpus cov"/"corpus ft"; source-level coverage needs llvm-tools matching rustc's
# LLVM, which this machine cannot install), and
# writes a summary to reports/fuzz/<UTC timestamp>/ (summary.md, summary.json, one log per
# target, and fuzz.sarif: one SARIF 2.1.0 result per crash/oom/timeout/leak input under
# fuzz/artifacts/<target>/, for GitHub code scanning; needs python3, skipped without it).
# Exits non-zero if any target crashed, ran out of memory or timed out.
#
#   fuzz/nightly.sh [SECONDS] [TARGET...]      default: 600 seconds, every target
#
# Environment: JOBS (default: nproc), RSS_LIMIT_MB (2048), MALLOC_LIMIT_MB (512),
# UNIT_TIMEOUT (10 s per input), SANITIZER (address on nightly Rust, else none),
# MERGE (1: merge new inputs into corpus/<target>/ and minimise it to a fixpoint, at most
# MIN_PASSES passes, default 5; 0: leave corpus/ alone),
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
  echo "| target | result | execs | exec/s | coverage (cov) | features (ft) | corpus before | corpus after | corpus cov | corpus ft |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
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
  # Merge new inputs into the checked-in corpus, keeping only what adds coverage, then minimise
  # it again until a pass removes nothing (a fixpoint: one -merge=1 pass is greedy and can
  # leave inputs a second pass drops); at most MIN_PASSES passes (default 5).
  if [ "${MERGE:-1}" = 1 ]; then
    min="fuzz/work/$t.min"
    extra=("$work")
    prev=-1
    for _pass in $(seq 1 "${MIN_PASSES:-5}"); do
      rm -rf "$min" && mkdir -p "$min"
      cargo "${toolchain[@]}" fuzz run "$t" --fuzz-dir fuzz "${profile[@]}" --sanitizer "$SANITIZER" "$min" "$corpus" "${extra[@]}" -- \
        -merge=1 -rss_limit_mb="$rss" >> "$log" 2>&1 && { rm -rf "$corpus"; mv "$min" "$corpus"; } || break
      extra=()
      n=$(find "$corpus" -type f | wc -l)
      [ "$n" -eq "$prev" ] && break
      prev=$n
    done
  fi
  after=$(find "$corpus" -type f | wc -l)
  # Coverage of the corpus as committed: libFuzzer replays it once (-runs=0) and reports the
  # edges (cov) and features (ft) it reaches ("INITED cov: N ft: M").
  corpus_cov=$(cargo "${toolchain[@]}" fuzz run "$t" --fuzz-dir fuzz "${profile[@]}" --sanitizer "$SANITIZER" "$corpus" -- \
      -runs=0 -rss_limit_mb="$rss" 2>&1 | tee -a "$log" | grep -Eo 'INITED cov: [0-9]+ ft: [0-9]+' | tail -1 || true)
  ccov=$(echo "$corpus_cov" | grep -Eo 'cov: [0-9]+' | grep -Eo '[0-9]+' || echo "?")
  cft=$(echo "$corpus_cov" | grep -Eo 'ft: [0-9]+' | grep -Eo '[0-9]+' || echo "?")
  # Plain runs end with "stat::number_of_executed_units" and "#N DONE cov: .. exec/s: N";
  # -fork runs print "#N: cov: .. ft: .. corp: .. exec/s N .." status lines instead.
  execs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | tail -1 | grep -Eo '[0-9]+$' || true)
  [ -z "$execs" ] && execs=$(grep -Eo '^#[0-9]+' "$log" | tail -1 | tr -d '#' || true)
  rate=$(grep -Eo 'exec/s:? [0-9]+' "$log" | tail -1 | grep -Eo '[0-9]+' || echo "?")
  cov=$(grep -Eo 'cov: [0-9]+' "$log" | tail -1 | grep -Eo '[0-9]+' || echo "?")
  ft=$(grep -Eo 'ft: [0-9]+' "$log" | tail -1 | grep -Eo '[0-9]+' || echo "?")
  crashes=$(find "$artifacts" -type f \( -name 'crash-*' -o -name 'oom-*' -o -name 'timeout-*' -o -name 'leak-*' \) | wc -l)
  if [ "$rc" -ne 0 ] || [ "$crashes" -gt 0 ]; then result="FAILED (exit $rc, $crashes artifacts in $artifacts)"; status=1; else result="ok"; fi
  echo "| $t | $result | ${execs:-?} | $rate | $cov | $ft | $before | $after | $ccov | $cft |" >> "$out/summary.md"
  json_rows+=("{\"target\":\"$t\",\"ok\":$([ "$result" = ok ] && echo true || echo false),\"exit\":$rc,\"artifacts\":$crashes,\"execs\":\"${execs:-?}\",\"exec_per_s\":\"$rate\",\"cov\":\"$cov\",\"ft\":\"$ft\",\"corpus_before\":$before,\"corpus_after\":$after,\"corpus_cov\":\"$ccov\",\"corpus_ft\":\"$cft\"}")
  echo "$t: $result (exec/s $rate, cov $cov, ft $ft, corpus $before -> $after)"
done
(IFS=,; echo "{\"stamp\":\"$stamp\",\"seconds\":$secs,\"jobs\":$jobs,\"sanitizer\":\"$SANITIZER\",\"targets\":[${json_rows[*]}]}") > "$out/summary.json"

# SARIF 2.1.0 for code scanning: ruleId = the target, location = the artifact (relative to the
# repository root), message = the kind and how to reproduce, then the stack from the target's
# log (the lines leading to "Test unit written to <artifact>"; none when the artifact is from an
# earlier night). A panic's "panicked at FILE:LINE:COL" becomes a related location.
write_fuzz_sarif() { # OUT_DIR TARGET...
  python3 - "$@" <<'PY'
import json, os, re, sys

out, targets = sys.argv[1], sys.argv[2:]
KINDS = {"crash": "error", "oom": "error", "timeout": "warning", "leak": "warning"}
START = re.compile(r"panicked at|==\d+==\s*ERROR|ERROR: libFuzzer|ERROR: AddressSanitizer|deadly signal")
STOP = re.compile(r"Test unit written to|INFO: log from the inner process|INFO: Running with|INFO: Seed:")
PANIC = re.compile(r"panicked at ([^\s:]+\.rs):(\d+):(\d+)")
NOISE = re.compile(r"^(MS: |base unit: |0x[0-9a-fA-F]{2},|Base64: |artifact_prefix=)")

def stack(lines, artifact):
    name = os.path.basename(artifact)
    at = next((i for i in range(len(lines) - 1, -1, -1)
               if "Test unit written to" in lines[i] and name in lines[i]), None)
    if at is None:
        return None
    lo = at - 1
    while lo >= 0 and at - lo <= 400 and not STOP.search(lines[lo]):
        lo -= 1
    window = lines[lo + 1:at]
    first = next((i for i, l in enumerate(window) if START.search(l)), max(0, len(window) - 40))
    kept, after_hex = [], False
    for l in window[first:]:
        hexline = l.startswith("0x")
        if not NOISE.match(l) and not after_hex:  # the input as text follows its hex bytes
            kept.append(l.rstrip())
        after_hex = hexline
    return "\n".join(kept[:150])[:16000]

def in_repo(p):
    """A panic's file relative to the repository root, or None outside it (std, registry)."""
    root = os.getcwd()
    if os.path.isabs(p):
        p = os.path.relpath(p, root)
        if p.startswith(".."):
            return None
    for cand in (p, os.path.join("fuzz", p)):  # fuzz targets are compiled from fuzz/
        if os.path.isfile(cand):
            return cand.replace(os.sep, "/")
    return None

rules, results = [], []
for t in targets:
    adir = os.path.join("fuzz", "artifacts", t)
    files = sorted(f for f in (os.listdir(adir) if os.path.isdir(adir) else [])
                   if f.split("-", 1)[0] in KINDS and os.path.isfile(os.path.join(adir, f)))
    if not files:
        continue
    try:
        with open(os.path.join(out, t + ".log"), errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        lines = []
    rule_index = len(rules)
    rules.append({
        "id": t,
        "shortDescription": {"text": f"fuzz target {t}: an input crashed, ran out of memory, timed out or leaked"},
        "help": {"text": f"The fuzz target fuzz/fuzz_targets/{t}.rs found an input that breaks it. "
                         f"Reproduce: cargo fuzz run {t} --fuzz-dir fuzz fuzz/artifacts/{t}/<file>; "
                         "after the fix, keep the input as a regression (fuzz/README.md)."},
        "defaultConfiguration": {"level": "error"},
        "properties": {"tags": ["fuzzing"]},
    })
    for name in files:
        path = f"fuzz/artifacts/{t}/{name}"
        kind = name.split("-", 1)[0]
        trace = stack(lines, path)
        text = (f"{kind} input {path} of fuzz target {t} "
                f"({os.path.getsize(path)} bytes). Reproduce: cargo fuzz run {t} --fuzz-dir fuzz {path}")
        text += ("\n\n" + trace) if trace else "\n\n(no stack: the input is not in this run's log, it is from an earlier run)"
        result = {
            "ruleId": t,
            "ruleIndex": rule_index,
            "level": KINDS[kind],
            "message": {"text": text},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": path}}}],
            "partialFingerprints": {"kipcheckFuzzArtifact/v1": f"{t}/{name}"},
            "properties": {"kind": kind},
        }
        m = PANIC.search(trace or "")
        src = m and in_repo(m.group(1))
        if src:
            result["relatedLocations"] = [{"id": 0, "message": {"text": "where it panicked"},
                "physicalLocation": {"artifactLocation": {"uri": src},
                "region": {"startLine": int(m.group(2)), "startColumn": int(m.group(3))}}}]
        results.append(result)

log = {
    "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
    "version": "2.1.0",
    "runs": [{
        "tool": {"driver": {"name": "kipcheck-fuzz", "rules": rules}},
        "automationDetails": {"id": "kipcheck-fuzz/"},
        "results": results,
    }],
}
with open(os.path.join(out, "fuzz.sarif"), "w") as f:
    json.dump(log, f, indent=2)
    f.write("\n")
print(f"sarif: {os.path.join(out, 'fuzz.sarif')} ({len(results)} finding(s))")
PY
}
if command -v python3 >/dev/null 2>&1; then
  write_fuzz_sarif "$out" "${targets[@]}" || echo "fuzz.sarif: not written" >&2
else
  echo "fuzz.sarif: skipped (no python3)" >&2
fi
echo "summary: $out/summary.md"
exit "$status"
