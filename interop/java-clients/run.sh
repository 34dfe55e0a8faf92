#!/usr/bin/env bash
# Runs one of the Java interop programs (ProduceOne, ConsumeOne, AdminListTopics, StreamsApp,
# LiveClient: the live client-cmd: form, `run.sh LiveClient --config FILE [--profile FILE]`)
# with the jars and classes interop/install.sh put under target/interop/java-clients:
#   bash interop/java-clients/run.sh ProduceOne 127.0.0.1:9092
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
[ $# -ge 1 ] || { echo "usage: run.sh PROGRAM BOOTSTRAP [TOPIC] | run.sh LiveClient --config FILE [--profile FILE]" >&2; exit 2; }
program="$1"; shift
exec java -Xmx128m -XX:TieredStopAtLevel=1 -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
  -cp "${JAVA_CLIENTS_CLASSES}:${JAVA_CLIENTS_LIB}/*" "dev.kipcheck.interop.${program}" "$@"
