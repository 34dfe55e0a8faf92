#!/usr/bin/env bash
# The controller suite against kipcheck's reference controller on real TCP ports
# (`kipcheck serve --role controller`, docs/live-targets.md "A live reference controller"),
# seven of them in one run, each scenario routed to the one it can run on: two follow the
# built-in readings at two metadata.version levels (one below the KIP-1326 persistence level
# 35, one at it); two follow the other reading of every contested controller reading
# (target/.../alt-profile.yaml: persistence level 20, INVALID_CONFIG refusals, upgrade-only
# audit, merged re-registration), at 30 and at 19; a fifth runs as node 5 (a node id is fixed
# when a controller starts: only scenarios whose controller is node 5 run there); a sixth follows
# the built-in readings but audits before validating the update itself (update_features_precedence
# invalid_config), at 30; a seventh follows the built-in readings at 45, where a list APPEND to
# cleanup.policy's default can reach a value the MV validator in force refuses. Each has its
# metadata log read over Fetch
# (`--metadata-log`) and binds scenarios through the manifest it writes for itself
# (`--write-manifest`, with the `failover:` command that makes it fail over).
#
#   scripts/live-controller-suite.sh             the reference: every judged scenario passes and
#                                                at least 90 % of the controller scenarios are
#                                                judged (KIPCHECK_MIN_JUDGED overrides)
#   scripts/live-controller-suite.sh --faults    every controller faulty variant served live
#                                                (`serve --fault NAME`) on the scenarios that
#                                                catch it in-process: a table; exit 1 when fewer
#                                                than KIPCHECK_MIN_CAUGHT (default: all) are caught
#
# Environment: KIPCHECK_BIN (default target/debug/kipcheck, built if missing),
# KIPCHECK_LOW_LEVEL / KIPCHECK_HIGH_LEVEL (the built-in-readings servers' metadata.version,
# default 30 and 35),
# KIPCHECK_SEED (default 1), KIPCHECK_REPORT_DIR (default target/live-controller).
set -euo pipefail
cd "$(dirname "$0")/.."

mode=reference
case "${1:-}" in
  --faults) mode=faults ;;
  "") ;;
  *) echo "usage: $0 [--faults]" >&2; exit 2 ;;
esac

bin="${KIPCHECK_BIN:-target/debug/kipcheck}"
[ -x "$bin" ] || cargo build -q --locked
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
low="${KIPCHECK_LOW_LEVEL:-30}"
high="${KIPCHECK_HIGH_LEVEL:-35}"
seed="${KIPCHECK_SEED:-1}"
out="${KIPCHECK_REPORT_DIR:-target/live-controller}"
mkdir -p "$out"

controller_scenarios=$(grep -rlE '^roles:.*\bcontroller\b' scenarios --include='*.yaml' | wc -l)
min_judged="${KIPCHECK_MIN_JUDGED:-$(( (controller_scenarios * 9 + 9) / 10 ))}"   # ceil(90 %)

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

# `serve LEVEL LOG [serve args...]`: starts a served controller (its pid kept for cleanup) and
# sets `addr` to its address (not in a subshell: the pid must reach `pids`).
serve() {
  local level="$1" log="$2"; shift 2
  : > "$log"   # emptied here, not by the child's redirection: a rerun must not read the old address
  "$bin" serve --role controller --listen 127.0.0.1:0 --metadata-version "$level" "$@" > "$log" 2>&1 &
  pids+=($!)
  addr=""
  for _ in $(seq 1 100); do
    addr=$(sed -n 's/^kipcheck serve: listening on //p' "$log" | head -n 1)
    [ -n "$addr" ] && break
    sleep 0.1
  done
  [ -n "$addr" ] || { echo "serve --role controller did not start:" >&2; cat "$log" >&2; exit 3; }
}

# The other reading of every contested controller reading (the built-in profile, edited).
alt_profile() {
  sed -e 's/^registration_rejection: .*/registration_rejection: invalid_config/' \
      -e 's/^incremental_invalid_value: .*/incremental_invalid_value: invalid_config/' \
      -e 's/^audit_direction: .*/audit_direction: upgrade_only/' \
      -e 's/^update_features_precedence: .*/update_features_precedence: invalid_config/' \
      -e 's/^reregistration: .*/reregistration: merge/' \
      -e 's/^static_config_persistence_level: .*/static_config_persistence_level: 20/' \
      crates/model/src/default_profile.yaml
}

# The built-in readings but the audit before the update's own validation (a scenario pinning
# that and the audit of downgrades has no other controller to run on).
audit_first_profile() {
  sed -e 's/^update_features_precedence: .*/update_features_precedence: invalid_config/' \
      crates/model/src/default_profile.yaml
}

# `live_run DIR [--fault NAME] [run args...]`: the seven controllers served afresh, the suite in
# one run routed between them.
live_run() {
  local dir="$1"; shift
  local fault=()
  if [ "${1:-}" = "--fault" ]; then fault=(--fault "$2"); shift 2; fi
  mkdir -p "$dir"
  alt_profile > "$dir/alt-profile.yaml"
  audit_first_profile > "$dir/audit-first-profile.yaml"
  local base="crates/model/src/default_profile.yaml"
  local args=() name level profile node
  for spec in "low $low $base 1" "high $high $base 1" "alt-at 30 $dir/alt-profile.yaml 1" \
              "alt-below 19 $dir/alt-profile.yaml 1" "node5 $low $base 5" \
              "audit-first $low $dir/audit-first-profile.yaml 1" "top 45 $base 1"; do
    read -r name level profile node <<< "$spec"
    serve "$level" "$dir/serve-$name.log" --profile "$profile" --node-id "$node" \
      --write-manifest "$dir/manifest-$name.yaml" "${fault[@]}"
    args+=(--target "tcp://$addr" --target-manifest "$dir/manifest-$name.yaml" --metadata-log "$addr" --profile "$profile")
  done
  local rc=0
  "$bin" run --role controller "${args[@]}" --jobs 1 --seed "$seed" --report-dir "$dir" "$@" || rc=$?
  cleanup
  pids=()
  return "$rc"
}

summary() {
  python3 - "$1/results.json" "$2" "$3" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); s = r["summary"]
print(f"{sys.argv[2]}: {s['judged']} judged, {s['passed']} passed, {s['failed']} failed, "
      f"{s['errored']} errored, {s['unsupported']} unsupported of {s['total']} in {sys.argv[3]} s")
PY
}

case "$mode" in
reference)
  t0=$(date +%s)
  rc=0
  live_run "$out/reference" --min-judged "$min_judged" || rc=$?
  summary "$out/reference" "live reference controller (levels $low and $high; other readings at 30 and 19; need $min_judged of $controller_scenarios judged)" "$(( $(date +%s) - t0 ))"
  exit "$rc"
  ;;
faults)
  # Which scenarios catch each controller variant in-process; each variant is then served live
  # and asked exactly those (only scenarios that pass live on the reference count).
  t0=$(date +%s)
  if [ ! -s "$out/reference/results.json" ]; then
    live_run "$out/reference" > "$out/reference.log" 2>&1 || true
  fi
  "$bin" mutants --seed "$seed" --report-dir "$out/mutants" > "$out/mutants.log" 2>&1 || true
  test -s "$out/mutants/mutants.json"
  : > "$out/faults.tsv"
  mkdir -p "$out/faults"
  for name in $("$bin" mutants --list | sed -n 's/^- `\([^`]*\)`: Controller: .*/\1/p'); do
    ids=$(python3 -c 'import json, sys
m = json.load(open(sys.argv[1]))
print(" ".join(i for v in m["variants"] if v["name"] == sys.argv[2] for i in v["killed_by"]))' \
      "$out/mutants/mutants.json" "$name")
    if [ -z "$ids" ]; then
      printf '%s\t0\t0\t0\tnot caught in-process\n' "$name" >> "$out/faults.tsv"
      continue
    fi
    args=()
    for id in $ids; do args+=(--id "$id"); done
    live_run "$out/faults/$name" --fault "$name" "${args[@]}" > "$out/faults/$name.log" 2>&1 || true
    python3 - "$out/faults/$name/results.json" "$out/reference/results.json" "$name" "$(wc -w <<< "$ids")" >> "$out/faults.tsv" <<'PY'
import json, os, sys
ref = {x["id"] for x in json.load(open(sys.argv[2]))["scenarios"] if x["verdict"] == "passed"}
r = json.load(open(sys.argv[1])) if os.path.exists(sys.argv[1]) else {"scenarios": []}
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
  echo "controller faulty variants caught live: $caught of $total in $(( $(date +%s) - t0 )) s"
  [ "$caught" -ge "${KIPCHECK_MIN_CAUGHT:-$total}" ]
  ;;
esac
