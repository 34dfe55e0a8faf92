#!/usr/bin/env bash
# The kafka-python 3.0.12 KIP-1324 prototype (interop/python/kip1324_kafka_python) under kipcheck.
#
#   scripts/kafka-python-kip1324-suite.sh check   # the prototype alone: its pure parts
#                                                 # (interop/python/test_live_form.py), then against
#                                                 # `kipcheck serve`: its PushConfig decodes and
#                                                 # carries the right keys
#   scripts/kafka-python-kip1324-suite.sh suite [--min-judged N] [--min-passed N] [--max-failed N]
#                                                 # the KIP-1324 client suite through client-cmd:
#
# Needs target/debug/kipcheck (cargo build) and the interop venv (bash interop/install.sh python);
# KIPCHECK_PYTHON overrides the interpreter, KIPCHECK_BIN the kipcheck binary. Reports go to
# target/kafka-python-kip1324/. Exit 1 when a check or a gate fails. The suite runs one scenario
# at a time (KIPCHECK_SUITE_JOBS): Python's start-up (kafka-python's import, 0.3-0.5 s CPU)
# stretches past the first 1000 ms window when scenarios start their clients in parallel on 2
# cores. KIPCHECK_TIME_SCALE (default 0.1) is passed as --time-scale where kipcheck has it.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
py=${KIPCHECK_PYTHON:-$root/target/interop/python/venv/bin/python}
kipcheck=${KIPCHECK_BIN:-$root/target/debug/kipcheck}
out=$root/target/kafka-python-kip1324
prog=$root/interop/python/kafka_python_kip1324.py
mkdir -p "$out"
[ -x "$py" ] || { echo "no Python interpreter at $py (bash interop/install.sh python)" >&2; exit 1; }
[ -x "$kipcheck" ] || { echo "no kipcheck binary at $kipcheck (cargo build)" >&2; exit 1; }

serve_pid=
stop_serve() { if [ -n "$serve_pid" ]; then kill "$serve_pid" 2>/dev/null || true; wait "$serve_pid" 2>/dev/null || true; serve_pid=; fi; }
trap stop_serve EXIT

# check NAME CLIENT_TYPE ASSERTIONS PROPERTY... : serve + record, one run of the prototype (one
# user request; stdin closed after the release), then ASSERTIONS (Python over the decoded frames).
check_one() {
  local name=$1 type=$2 assertions=$3; shift 3
  local rec=$out/$name.record.jsonl serve_out=$out/$name.serve.out props=$out/$name.properties
  rm -f "$rec"
  "$kipcheck" serve --listen 127.0.0.1:0 --record "$rec" > "$serve_out" 2>&1 &
  serve_pid=$!
  for _ in $(seq 1 300); do grep -q "listening on" "$serve_out" && break; sleep 0.1; done
  local addr; addr=$(sed -n 's/.*listening on //p' "$serve_out")
  [ -n "$addr" ] || { echo "kipcheck serve did not start" >&2; exit 1; }
  { echo "# kipcheck.sh check $name"; echo "kipcheck.client.type=$type"; echo "kipcheck.client.embedded=false"
    echo "bootstrap.servers=$addr"; printf '%s\n' "$@"; } > "$props"
  local t0; t0=$(date +%s%N)
  # One user request; stdin stays open until the release line is read, then closes.
  { echo "user_request 1"; for _ in $(seq 1 200); do grep -q '^released 1$' "$out/$name.stdout" 2>/dev/null && break; sleep 0.05; done; sleep 0.3; } \
    | KIPCHECK_CLIENT_LOG=INFO timeout 30 "$py" "$prog" --config "$props" > "$out/$name.stdout" 2> "$out/$name.stderr" \
    || { echo "check $name: the prototype exited $? (stderr: $out/$name.stderr)" >&2; exit 1; }
  local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  stop_serve
  grep -q '^released 1$' "$out/$name.stdout" || { echo "check $name: no 'released 1' on stdout" >&2; exit 1; }
  # Decode every PushConfig request the client sent (kipcheck's own decoder), then assert.
  "$py" - "$rec" "$kipcheck" "$name" "$ms" "$assertions" <<'PY'
import json, subprocess, sys
rec, kipcheck, name, ms, assertions = sys.argv[1:]
frames = [json.loads(l) for l in open(rec, encoding="utf-8", errors="replace") if l.strip()]
inbound = [f for f in frames if f.get("dir") == "in"]
pushes = []
for f in inbound:
    if f.get("api_key") == 95:
        d = json.loads(subprocess.check_output([kipcheck, "decode", "--json", f["hex"]]))
        pushes.append({c["ConfigKey"]: c for c in d["body"]["Configs"]} | {"__list__": d["body"]["Configs"]})
conns = sorted({f["conn"] for f in inbound})
ok = True
def expect(cond, what):
    global ok
    if not cond:
        ok = False
        print(f"check {name}: FAILED: {what}", file=sys.stderr)
exec(assertions)
print(f"check {name}: {'ok' if ok else 'FAILED'} ({len(pushes)} PushConfig on {len(conns)} connection(s), {ms} ms)")
sys.exit(0 if ok else 1)
PY
}

check() {
  # The pure parts first: properties reader, name translation, selection, rendering, bytes.
  (cd "$root/interop/python" && "$py" test_live_form.py) || exit 1
  # A consumer: one PushConfig with exactly the KIP's 11 consumer keys, typed and flagged; the
  # connection kafka-python opens after bootstrap gets none (once per client instance).
  check_one consumer-default-keys consumer '
expect(len(pushes) == 1, f"one PushConfig, got {len(pushes)}")
expect(len(conns) >= 2, f"kafka-python reconnects after bootstrap, saw {len(conns)} connection(s)")
p = pushes[0] if pushes else {}
keys = sorted(k for k in p if k != "__list__")
expect(keys == sorted(["auto.offset.reset", "client.id", "enable.auto.commit", "fetch.min.bytes",
    "fetch.max.wait.ms", "group.id", "isolation.level", "max.poll.interval.ms", "max.poll.records",
    "request.timeout.ms", "session.timeout.ms"]), f"the consumer default keys, got {keys}")
def entry(k, v, t, d):
    e = p.get(k)
    expect(e is not None and (e["ConfigValue"], e["ConfigType"], e["IsDefault"]) == (v, t, d),
           f"{k}: expected ({v!r}, {t}, {d}), got {e}")
entry("group.id", "g1", 1, False)
entry("client.id", "c1", 1, False)
entry("max.poll.records", "42", 2, False)
entry("enable.auto.commit", "false", 0, False)
entry("session.timeout.ms", "45000", 2, True)
entry("auto.offset.reset", "latest", 1, True)
' 'group.id=  g1  ' client.id=c1 max.poll.records=42 enable.auto.commit=FALSE
  # config.push.allowed.keys replaces the list; sensitive and custom keys are never sent.
  check_one allowed-keys-sensitive producer '
expect(len(pushes) == 1, f"one PushConfig, got {len(pushes)}")
p = pushes[0] if pushes else {"__list__": []}
got = [(e["ConfigKey"], e["ConfigValue"], e["ConfigType"], e["IsDefault"]) for e in p["__list__"]]
expect(got == [("acks", "1", 1, False), ("linger.ms", "5", 4, False), ("client.id", "p1", 1, False),
               ("compression.type", "none", 1, True)], f"entries {got}")
' acks=1 linger.ms=5 client.id=p1 sasl.mechanism=PLAIN my.app.secret=x \
    'config.push.allowed.keys=acks, linger.ms,client.id,sasl.mechanism,ssl.key.password,my.app.secret,key.serializer,linger.ms,compression.type'
  # enable.config.push=false: no PushConfig at all.
  check_one disabled admin '
expect(len(pushes) == 0, f"no PushConfig, got {len(pushes)}")
expect(len(conns) >= 1, "the client connected")
' enable.config.push=False client.id=a1
}

suite() {
  local min_judged=0 min_passed=0 max_failed=-1
  while [ $# -gt 0 ]; do
    case $1 in
      --min-judged) min_judged=$2; shift 2 ;;
      --min-passed) min_passed=$2; shift 2 ;;
      --max-failed) max_failed=$2; shift 2 ;;
      *) echo "unknown option $1" >&2; exit 2 ;;
    esac
  done
  local extra=()
  # The prototype speaks the user-request channel: declare it where kipcheck knows the capability.
  local probe; probe=$("$kipcheck" run --capability user_requests --help 2>&1 || true)
  case $probe in *"invalid value 'user_requests'"*) ;; *) extra+=(--capability user_requests) ;; esac
  local help; help=$("$kipcheck" run --help 2>&1 || true)
  case $help in *--time-scale*) extra+=(--time-scale "${KIPCHECK_TIME_SCALE:-0.1}") ;; esac
  rm -rf "$out/suite"
  local rc=0
  "$kipcheck" run --target "client-cmd:$py $prog --config {config} --profile {profile} --bootstrap {bootstrap}" \
    --kip 1324 --role client --seed 1 --jobs "${KIPCHECK_SUITE_JOBS:-1}" --report-dir "$out/suite" \
    "${extra[@]}" > "$out/suite.log" 2>&1 || rc=$?
  tail -n 25 "$out/suite.log"
  "$py" - "$out/suite/results.json" "$min_judged" "$min_passed" "$max_failed" <<'PY'
import json, sys
path, min_judged, min_passed, max_failed = sys.argv[1], *map(int, sys.argv[2:])
s = json.load(open(path))["summary"]
print(f"kafka-python + KIP-1324: {s['judged']} judged of {s['total']}: {s['passed']} passed, "
      f"{s['failed']} failed, {s['errored']} errored, {s['unsupported']} unsupported")
bad = []
if s["judged"] < min_judged: bad.append(f"judged {s['judged']} < {min_judged}")
if s["passed"] < min_passed: bad.append(f"passed {s['passed']} < {min_passed}")
if max_failed >= 0 and s["failed"] + s["errored"] > max_failed:
    bad.append(f"failed+errored {s['failed'] + s['errored']} > {max_failed}")
sys.exit("gate: " + "; ".join(bad) if bad else 0)
PY
  # kipcheck's exit status 1/3/5 (findings, errored, nothing judged) is judged by the gates above;
  # 2 and 4 (usage, no scenario selected) are this script's own mistakes.
  case $rc in 2|4) echo "kipcheck run exited $rc" >&2; exit 1 ;; esac
}

case ${1:-suite} in
  check) check ;;
  suite) shift || true; suite "$@" ;;
  *) echo "usage: $0 check | suite [--min-judged N] [--min-passed N] [--max-failed N]" >&2; exit 2 ;;
esac
