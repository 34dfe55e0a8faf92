# Shared by interop/install.sh, start.sh and stop.sh (sourced, not run): the folder layout under
# target/interop/, the peer versions, timing and logging helpers. It starts and installs nothing.

INTEROP_SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "${INTEROP_SRC}/.." && pwd)"
INTEROP_DIR="${KIPCHECK_INTEROP_DIR:-${REPO_ROOT}/target/interop}"
INTEROP_LOGS="${INTEROP_DIR}/logs"
INTEROP_RUN="${INTEROP_DIR}/run"
mkdir -p "${INTEROP_LOGS}" "${INTEROP_RUN}"

KAFKA_VERSION=4.4.0
TANSU_VERSION=0.6.0
KAFKA_LIB="${INTEROP_DIR}/kafka/lib"
JAVA_CLIENTS_LIB="${INTEROP_DIR}/java-clients/lib"
JAVA_CLIENTS_CLASSES="${INTEROP_DIR}/java-clients/classes"
GO_BIN="${INTEROP_DIR}/go/bin"
PY_VENV="${INTEROP_DIR}/python/venv"
TANSU_ROOT="${INTEROP_DIR}/tansu"

# Seconds since the epoch, for step timings.
now() { date +%s; }

# log MESSAGE: one line on standard error, prefixed so CI output shows where it came from.
log() { echo "interop: $*" >&2; }

# die MESSAGE: log and exit 1.
die() { log "ERROR: $*"; exit 1; }

# stamp_of FILE...: a digest of the inputs of a cached step (the step reruns when it changes).
stamp_of() { cat "$@" | sha256sum | cut -c1-16; }

# tail_log FILE: the last lines of a peer's log, for a failure message.
tail_log() { [ -f "$1" ] && { echo "---- last lines of $1" >&2; tail -n 30 "$1" >&2; }; return 0; }
