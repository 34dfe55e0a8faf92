#!/usr/bin/env bash
# kipcheck's codec against Kafka's own: the same fixture bytes decoded and
# encoded by kipcheck (divan, `cargo bench -p kipcheck --bench codec`) and by Kafka 4.4.0's
# generated Java classes (JMH, interop/java-codec-bench, JIT-warmed), one after the other in one
# run; prints a table of medians / averages and the kipcheck / Java ratios.
#
# The Rust bench writes its fixtures (KIPCHECK_FIXTURES_OUT) and the JMH benchmark reads
# them and first checks that Kafka writes back the very bytes it read.
#
# Environment: KIPCHECK_JMH_ARGS (default "-f 1 -wi 3 -w 1s -i 5 -r 1s": one fork, 3 warm-up
# and 5 measured one-second iterations per benchmark, about a minute per fixture).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
jmh_args=${KIPCHECK_JMH_ARGS:--f 1 -wi 3 -w 1s -i 5 -r 1s}

nice -n 10 cargo bench -q -p kipcheck --bench codec --no-run 2>"$tmp/build.err" || {
  cat "$tmp/build.err" >&2; exit 1; }
KIPCHECK_FIXTURES_OUT="$tmp/fixtures" nice -n 10 cargo bench -q -p kipcheck --bench codec \
  >/dev/null 2>"$tmp/fixtures.err" || { cat "$tmp/fixtures.err" >&2; exit 1; }
[ -f interop/java-codec-bench/target/kipcheck-java-bench.jar ] ||
  mvn -q -B -f interop/java-codec-bench/pom.xml package

# Rust first (divan), then Java (JMH), on the same machine state as far as possible.
nice -n 10 cargo bench -q -p kipcheck --bench codec -- \
  api_versions_response_v4_90_keys incremental_alter_configs_request_v1_50_configs \
  broker_registration_request_v4 metadata_response_v12_100_topics_10_partitions \
  >"$tmp/rust.out" 2>"$tmp/rust.err"
# shellcheck disable=SC2086
java -Dkipcheck.fixtures="$tmp/fixtures" -jar interop/java-codec-bench/target/kipcheck-java-bench.jar \
  $jmh_args -rf csv -rff "$tmp/java.csv" CodecBench >"$tmp/java.out" 2>&1 || {
  tail -40 "$tmp/java.out" >&2; exit 1; }

python3 - "$tmp/rust.out" "$tmp/java.csv" <<'PY'
import csv, re, sys
unit = {"ns": 1.0, "µs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9}
rust, group = {}, None
for line in open(sys.argv[1]):
    m = re.match(r"^([├╰])─ (\w+)\s", line)
    if m:
        group = m.group(2)
        continue
    m = re.match(r"^[│ ]\s+[├╰]─ (\w+)\s+(.*)$", line)
    if m and group:
        cols = [c.strip() for c in m.group(2).split("│")]
        if len(cols) < 3 or not cols[2]:
            continue
        value, u = cols[2].split()
        rust[(group, m.group(1))] = float(value) * unit[u]
java = {}
for row in csv.DictReader(open(sys.argv[2])):
    op = row["Benchmark"].rsplit(".", 1)[1]
    java[(row["Param: fixture"], op)] = float(row["Score"])
def fmt(ns):
    return f"{ns / 1e3:,.2f} µs" if ns >= 1e3 else f"{ns:,.0f} ns"
print("| message | op | kipcheck (median) | kafka-protocol (median) | Kafka Java (JMH avg) | kipcheck / Java | kipcheck / kafka-protocol |")
print("|---|---|---:|---:|---:|---:|---:|")
for (fixture, op), j in sorted(java.items()):
    ours = rust.get((fixture, f"{op}_ours"))
    theirs = rust.get((fixture, f"{op}_theirs"))
    if ours is None:
        continue
    kp = f"{fmt(theirs)}" if theirs else "—"
    kr = f"{ours / theirs:.2f}" if theirs else "—"
    print(f"| {fixture} | {op} | {fmt(ours)} | {kp} | {fmt(j)} | {ours / j:.2f} | {kr} |")
PY
