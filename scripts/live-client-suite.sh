#!/usr/bin/env bash
# The client suite through `client-cmd:` with kipcheck's live reference client
# (`kipcheck client`, docs/reference-client.md) on real sockets and the real clock.
#
#   scripts/live-client-suite.sh                 the reference: every judged scenario passes and
#                                                at least 90 % of the client scenarios are judged
#   scripts/live-client-suite.sh --faults        every client faulty variant, live, on the
#                                                scenarios that catch it in-process: which are
#                                                caught live (a table; exit 1 only below
#                                                KIPCHECK_MIN_CAUGHT, default 0)
#   scripts/live-client-suite.sh --fault NAME    one variant, the whole client suite, live
#
# Environment: KIPCHECK_BIN (default target/debug/kipcheck, built if missing),
# KIPCHECK_CLIENT_STYLE (`reference`, the default, or `java`: `kipcheck client --style java`,
# which discovers the cluster with Metadata on its bootstrap connection and goes on on a new
# connection to the broker named, reconnecting by itself, as Java's NetworkClient does),
# KIPCHECK_TIME_SCALE (default 0.1), KIPCHECK_JOBS (default 48: scenarios in flight; only as many as
# there are CPUs are busy at once, the rest sit in quiet watches, see `kipcheck run --active-jobs`; KIPCHECK_ACTIVE_JOBS sets it), KIPCHECK_SEED (default 1),
# KIPCHECK_RETRIES (the reference run's --retries, default 0: a real-clock timing that slipped
# under load is run again and reported flaky),
# KIPCHECK_REPORT_DIR (default target/live-client), KIPCHECK_MIN_JUDGED (default: 90 % of the
# client scenarios, rounded up). Prints one summary line per run.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=reference fault=""
case "${1:-}" in
  --faults) mode=faults ;;
  --fault) mode=fault; fault="${2:?--fault NAME}" ;;
  "") ;;
  *) echo "usage: $0 [--faults | --fault NAME]" >&2; exit 2 ;;
esac

bin="${KIPCHECK_BIN:-target/debug/kipcheck}"
[ -x "$bin" ] || cargo build -q --locked
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
scale="${KIPCHECK_TIME_SCALE:-0.1}"
jobs="${KIPCHECK_JOBS:-48}"
active=()
[ -n "${KIPCHECK_ACTIVE_JOBS:-}" ] && active=(--active-jobs "$KIPCHECK_ACTIVE_JOBS")
seed="${KIPCHECK_SEED:-1}"
style="${KIPCHECK_CLIENT_STYLE:-reference}"
out="${KIPCHECK_REPORT_DIR:-target/live-client}"
mkdir -p "$out"

# Client scenarios: every scenario file whose roles include client.
client_scenarios=$(grep -rlE '^roles:.*\bclient\b' scenarios --include='*.yaml' | wc -l)
min_judged="${KIPCHECK_MIN_JUDGED:-$(( (client_scenarios * 9 + 9) / 10 ))}"   # default ceil(90 %)

# `live_run DIR [--fault NAME] [run args...]`: the suite through client-cmd: (exit status kept).
live_run() {
  local dir="$1"; shift
  local extra=""
  if [ "$style" != reference ]; then extra=" --style $style"; fi
  if [ "${1:-}" = "--fault" ]; then extra="$extra --fault $2"; shift 2; fi
  "$bin" run \
    --target "client-cmd:$bin client --bootstrap {bootstrap} --config {config} --profile {profile} --seed {seed}$extra" \
    --capability user_requests --capability connect_requests --time-scale "$scale" --jobs "$jobs" "${active[@]}" --seed "$seed" \
    --timeout-ms 120000 --report-dir "$dir" "$@"
}

# `summary DIR LABEL SECONDS`: one line from DIR/results.json.
summary() {
  python3 - "$1/results.json" "$2" "$3" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); s = r["summary"]
print(f"{sys.argv[2]}: {s['judged']} judged, {s['passed']} passed ({s.get('flaky', 0)} flaky), {s['failed']} failed, "
      f"{s['errored']} errored, {s['unsupported']} unsupported of {s['total']} in {sys.argv[3]} s")
PY
}

case "$mode" in
reference)
  t0=$(date +%s)
  rc=0
  live_run "$out/reference" --min-judged "$min_judged" --retries "${KIPCHECK_RETRIES:-0}" || rc=$?
  summary "$out/reference" "live reference client (style $style, scale $scale, need $min_judged of $client_scenarios judged)" "$(( $(date +%s) - t0 ))"
  exit "$rc"
  ;;
fault)
  t0=$(date +%s)
  rc=0
  live_run "$out/fault-$fault" --fault "$fault" || rc=$?
  summary "$out/fault-$fault" "live client --fault $fault" "$(( $(date +%s) - t0 ))"
  # Exit 1 = caught (a finding), 0 = survived: reported, not an error of this script.
  [ "$rc" -le 1 ] || exit "$rc"
  ;;
faults)
  # The in-process kill matrix says which scenarios catch each variant; each client variant is
  # then run live on exactly those (the question is "caught live as in-process?").
  # A scenario catches a variant live only if it passes live against the reference client: the
  # reference run of this report dir is reused (the CI step runs it first), else made here.
  t0=$(date +%s)
  if [ ! -s "$out/reference/results.json" ]; then
    live_run "$out/reference" > "$out/reference.log" 2>&1 || true
  fi
  "$bin" mutants --seed "$seed" --report-dir "$out/mutants" > "$out/mutants.log" 2>&1 || true
  test -s "$out/mutants/mutants.json"
  : > "$out/faults.tsv"
  mkdir -p "$out/faults"
  for name in $("$bin" client --list-faults); do
    ids=$(python3 -c 'import json, sys
m = json.load(open(sys.argv[1]))
print(" ".join(i for v in m["variants"] if v["name"] == sys.argv[2] for i in v["killed_by"]))' \
      "$out/mutants/mutants.json" "$name")
    if [ -z "$ids" ]; then
      printf '%s\t0\t0\t-\tnot caught in-process\n' "$name" >> "$out/faults.tsv"
      continue
    fi
    args=()
    for id in $ids; do args+=(--id "$id"); done
    rc=0
    live_run "$out/faults/$name" --fault "$name" "${args[@]}" > "$out/faults/$name.log" 2>&1 || rc=$?
    python3 - "$out/faults/$name/results.json" "$out/reference/results.json" "$name" "$(wc -w <<< "$ids")" >> "$out/faults.tsv" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
ref = {x["id"] for x in json.load(open(sys.argv[2]))["scenarios"] if x["verdict"] == "passed"}
usable = [x for x in r["scenarios"] if x["id"] in ref]
caught = [x["id"] for x in usable if x["verdict"] in ("failed", "errored")]
print(f"{sys.argv[3]}\t{sys.argv[4]}\t{len(usable)}\t{len(caught)}\t"
      f"{'caught live by ' + ', '.join(caught) if caught else 'NOT caught live'}")
PY
  done
  echo "variant | in-process killers | of them passing live on the reference | caught live | result"
  tr '\t' '|' < "$out/faults.tsv" | sed 's/|/ | /g'
  total=$(wc -l < "$out/faults.tsv")
  caught=$(grep -c 'caught live by' "$out/faults.tsv" || true)
  echo "client faulty variants caught live: $caught of $total in $(( $(date +%s) - t0 )) s (scale $scale)"
  # KIPCHECK_MIN_CAUGHT: fail (exit 1) when fewer variants are caught live (a CI gate).
  [ "$caught" -ge "${KIPCHECK_MIN_CAUGHT:-0}" ]
  ;;
esac
