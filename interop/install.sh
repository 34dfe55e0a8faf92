#!/usr/bin/env bash
# Installs every interop peer under target/interop/ (idempotent: a step whose inputs did not
# change since its stamp was written is skipped). Prints the seconds each step took.
#   Apache Kafka 4.4.0 server jars   (Maven, interop/kafka/pom.xml)        -> kafka/lib
#   Java clients 4.4.0 + programs    (Maven + javac, interop/java-clients) -> java-clients/
#   franz-go kfake + client          (Go module proxy, interop/go)         -> go/bin
#   confluent-kafka/kafka-python/aiokafka (PyPI, interop/python)           -> python/venv
#   tansu 0.6.0                      (crates.io, cargo install --debug)    -> tansu/bin
# Usage: install.sh [PEER...] installs only the named steps (kafka, java-clients, go, python,
# tansu); KIPCHECK_SKIP_TANSU=1 leaves tansu out of a full install. tansu is a ~14 CPU-minute
# compile (dev profile; the release profile took over 86 minutes on 2 cores), so .ci/run builds
# it as a separate, niced background job (interop/README.md).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

need() { command -v "$1" >/dev/null 2>&1 || die "$1 is not installed (needed for $2)"; }
need java "the Kafka server and Java clients (Java 17+)"
need javac "the Java client programs"
need mvn "fetching Kafka from Maven Central"
need go "franz-go / kfake"
need python3 "the Python clients"
need cargo "tansu"

# step NAME STAMP COMMAND...: runs COMMAND unless NAME's stamp equals STAMP; times it.
step() {
  local name="$1" stamp="$2"; shift 2
  local file="${INTEROP_DIR}/${name}.stamp"
  if [ -f "${file}" ] && [ "$(cat "${file}")" = "${stamp}" ]; then
    log "${name}: cached (0 s)"
    return 0
  fi
  local t0; t0=$(now)
  if ! "$@" > "${INTEROP_LOGS}/install-${name}.log" 2>&1; then
    tail_log "${INTEROP_LOGS}/install-${name}.log"
    die "${name}: install failed"
  fi
  echo "${stamp}" > "${file}"
  log "${name}: installed in $(( $(now) - t0 )) s"
}

# copy_jars POM DIR: copies the POM's runtime jars into a fresh DIR (no stale versions left).
copy_jars() {
  local pom="$1" dir="$2"
  rm -rf "${dir}.tmp" && mkdir -p "${dir}.tmp"
  mvn -B -q -f "${pom}" dependency:copy-dependencies "-Dkipcheck.lib=${dir}.tmp"
  rm -rf "${dir}" && mv "${dir}.tmp" "${dir}"
}

install_java_clients() {
  copy_jars "${INTEROP_SRC}/java-clients/pom.xml" "${JAVA_CLIENTS_LIB}"
  rm -rf "${JAVA_CLIENTS_CLASSES}" && mkdir -p "${JAVA_CLIENTS_CLASSES}"
  # shellcheck disable=SC2046
  javac --release 17 -Xlint:all -Werror -cp "${JAVA_CLIENTS_LIB}/*" -d "${JAVA_CLIENTS_CLASSES}" \
    $(find "${INTEROP_SRC}/java-clients/src" -name '*.java' | sort)
}

install_go() {
  mkdir -p "${GO_BIN}"
  (cd "${INTEROP_SRC}/go" && go build -o "${GO_BIN}/" ./kfake ./client)
}

install_python() {
  rm -rf "${PY_VENV}"
  python3 -m venv "${PY_VENV}"
  "${PY_VENV}/bin/pip" install -q --disable-pip-version-check -r "${INTEROP_SRC}/python/requirements.txt"
}

install_tansu() {
  # Dev profile without debug info: a loopback test peer needs no optimiser, and this is the
  # difference between minutes and over an hour. The build folder is dropped afterwards (1.4 GB).
  local build="${INTEROP_DIR}/tansu-build"
  CARGO_PROFILE_DEV_DEBUG=0 CARGO_TARGET_DIR="${build}" \
    cargo install tansu --version "${TANSU_VERSION}" --locked --features dynostore --debug \
    --root "${TANSU_ROOT}"
  rm -rf "${build}"
}

# wanted NAME: whether this run installs step NAME.
wanted() {
  if [ "${#ONLY[@]}" -gt 0 ]; then
    local p; for p in "${ONLY[@]}"; do [ "$p" = "$1" ] && return 0; done; return 1
  fi
  [ "$1" != tansu ] || [ "${KIPCHECK_SKIP_TANSU:-0}" != 1 ]
}

ONLY=("$@")
for p in "${ONLY[@]}"; do
  case "$p" in kafka|java-clients|go|python|tansu) ;; *) die "unknown peer step: $p" ;; esac
done

T0=$(now)
if wanted kafka; then
  step kafka "$(stamp_of "${INTEROP_SRC}/kafka/pom.xml")" \
    copy_jars "${INTEROP_SRC}/kafka/pom.xml" "${KAFKA_LIB}"
fi
if wanted java-clients; then
  step java-clients "$(stamp_of "${INTEROP_SRC}/java-clients/pom.xml" $(find "${INTEROP_SRC}/java-clients/src" -name '*.java' | sort))" \
    install_java_clients
fi
if wanted go; then
  step go "$(stamp_of "${INTEROP_SRC}/go/go.mod" "${INTEROP_SRC}/go/go.sum" $(find "${INTEROP_SRC}/go" -name '*.go' | sort))" \
    install_go
fi
if wanted python; then
  step python "$(stamp_of "${INTEROP_SRC}/python/requirements.txt")" install_python
fi
if wanted tansu; then
  step tansu "$(echo "tansu ${TANSU_VERSION} dynostore debug" | sha256sum | cut -c1-16)" install_tansu
else
  log "tansu: skipped"
fi
log "install: done in $(( $(now) - T0 )) s"
