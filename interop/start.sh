#!/usr/bin/env bash
# Starts every server peer on loopback (Apache Kafka 4.4.0 KRaft combined mode, franz-go kfake,
# librdkafka's mock cluster, tansu), waits until each answers, and writes target/interop/env.sh
# exporting their addresses, versions and the client commands ({bootstrap} is the address
# placeholder of `--target client-cmd:"..."`). Run interop/install.sh first; stop with stop.sh.
# On any failure it stops what it started and exits 1. tansu is started when it is installed
# (bash interop/install.sh builds it), unless KIPCHECK_SKIP_TANSU=1.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

STARTED_OK=0
cleanup_on_failure() { [ "${STARTED_OK}" = 1 ] || bash "${INTEROP_SRC}/stop.sh" || true; }
trap cleanup_on_failure EXIT

# free_port: a loopback port nothing listens on right now.
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# answers HOST:PORT: true when a TCP connection to it succeeds.
answers() {
  python3 - "$1" <<'PY'
import socket, sys
host, port = sys.argv[1].rsplit(":", 1)
try:
    socket.create_connection((host, int(port)), timeout=1).close()
except OSError:
    sys.exit(1)
PY
}

# wait_for NAME SECONDS CHECK...: polls CHECK every 0.5 s until it succeeds or SECONDS pass.
wait_for() {
  local name="$1" secs="$2"; shift 2
  local deadline=$(( $(now) + secs ))
  until "$@" >/dev/null 2>&1; do
    [ "$(now)" -lt "${deadline}" ] || { tail_log "${INTEROP_LOGS}/${name}.log"; die "${name} did not answer within ${secs} s"; }
    sleep 0.5
  done
}

# spawn NAME COMMAND...: starts COMMAND in the background (its own process group), standard
# output to run/NAME.out, standard error to logs/NAME.log, its pid to run/NAME.pid.
spawn() {
  local name="$1"; shift
  setsid "$@" > "${INTEROP_RUN}/${name}.out" 2> "${INTEROP_LOGS}/${name}.log" < /dev/null &
  echo $! > "${INTEROP_RUN}/${name}.pid"
}

# first_line_addr NAME: the HOST:PORT a peer printed as its first output line.
first_line_addr() { head -n 1 "${INTEROP_RUN}/$1.out" | grep -E '^[0-9.]+:[0-9]+$'; }

[ -d "${KAFKA_LIB}" ] || die "run interop/install.sh first (${KAFKA_LIB} is missing)"
bash "${INTEROP_SRC}/stop.sh" >/dev/null 2>&1 || true
T0=$(now)

# --- Apache Kafka 4.4.0, KRaft combined mode ---------------------------------------------------
t=$(now)
KAFKA_PORT=$(free_port)
KAFKA_CONTROLLER_PORT=$(free_port)
while [ "${KAFKA_CONTROLLER_PORT}" = "${KAFKA_PORT}" ]; do KAFKA_CONTROLLER_PORT=$(free_port); done
KAFKA_RUN="${INTEROP_RUN}/kafka"
rm -rf "${KAFKA_RUN}" && mkdir -p "${KAFKA_RUN}/data"
sed -e "s/@BROKER_PORT@/${KAFKA_PORT}/g" -e "s/@CONTROLLER_PORT@/${KAFKA_CONTROLLER_PORT}/g" \
    -e "s#@LOG_DIR@#${KAFKA_RUN}/data#g" "${INTEROP_SRC}/kafka/server.properties" > "${KAFKA_RUN}/server.properties"
KAFKA_JAVA=(java -Xms256m -Xmx512m -XX:+UseG1GC -XX:TieredStopAtLevel=1
  "-Dlog4j2.configurationFile=${INTEROP_SRC}/kafka/log4j2.properties" -cp "${KAFKA_LIB}/*")
CLUSTER_ID=$("${KAFKA_JAVA[@]}" kafka.tools.StorageTool random-uuid 2>>"${INTEROP_LOGS}/kafka-format.log")
"${KAFKA_JAVA[@]}" kafka.tools.StorageTool format -t "${CLUSTER_ID}" -c "${KAFKA_RUN}/server.properties" \
  > "${INTEROP_LOGS}/kafka-format.log" 2>&1 || { tail_log "${INTEROP_LOGS}/kafka-format.log"; die "kafka storage format failed"; }
spawn kafka "${KAFKA_JAVA[@]}" kafka.Kafka "${KAFKA_RUN}/server.properties"
# The server logs to standard output; keep it with the other logs.
ln -sf "${INTEROP_RUN}/kafka.out" "${INTEROP_LOGS}/kafka.out.log"
kafka_up() { grep -q "Kafka Server started" "${INTEROP_RUN}/kafka.out" && answers "127.0.0.1:${KAFKA_PORT}"; }
wait_for kafka 120 kafka_up
log "kafka ${KAFKA_VERSION}: 127.0.0.1:${KAFKA_PORT} (controller 127.0.0.1:${KAFKA_CONTROLLER_PORT}) in $(( $(now) - t )) s"

# --- franz-go kfake ------------------------------------------------------------------------------
t=$(now)
spawn kfake "${GO_BIN}/kfake"
wait_for kfake 30 first_line_addr kfake
KFAKE_ADDR=$(first_line_addr kfake)
wait_for kfake 10 answers "${KFAKE_ADDR}"
log "kfake: ${KFAKE_ADDR} in $(( $(now) - t )) s"

# --- librdkafka mock cluster -------------------------------------------------------------------
t=$(now)
spawn rdkafka-mock "${PY_VENV}/bin/python" "${INTEROP_SRC}/python/rdkafka_mock.py"
wait_for rdkafka-mock 30 first_line_addr rdkafka-mock
RDKAFKA_MOCK_ADDR=$(first_line_addr rdkafka-mock)
wait_for rdkafka-mock 10 answers "${RDKAFKA_MOCK_ADDR}"
log "librdkafka mock: ${RDKAFKA_MOCK_ADDR} in $(( $(now) - t )) s"

# --- tansu (in-memory storage) -----------------------------------------------------------------
TANSU_ADDR=""
if [ "${KIPCHECK_SKIP_TANSU:-0}" != 1 ] && [ -x "${TANSU_ROOT}/bin/tansu" ]; then
  t=$(now)
  TANSU_PORT=$(free_port)
  TANSU_ADDR="127.0.0.1:${TANSU_PORT}"
  spawn tansu "${TANSU_ROOT}/bin/tansu" broker --listener-url "tcp://${TANSU_ADDR}" \
    --advertised-listener-url "tcp://${TANSU_ADDR}" --storage-engine "memory://tansu/"
  wait_for tansu 30 answers "${TANSU_ADDR}"
  log "tansu ${TANSU_VERSION}: ${TANSU_ADDR} in $(( $(now) - t )) s"
fi

# --- the environment file ----------------------------------------------------------------------
JAVA_CLIENT="bash ${INTEROP_SRC}/java-clients/run.sh"
PYTHON="${PY_VENV}/bin/python"
RDKAFKA_VERSION=$("${PYTHON}" -c 'import confluent_kafka as c; print(c.libversion()[0])')
KAFKA_PYTHON_VERSION=$("${PYTHON}" -c 'import kafka; print(kafka.__version__)')
AIOKAFKA_VERSION=$("${PYTHON}" -c 'import aiokafka; print(aiokafka.__version__)')
FRANZ_GO_VERSION=$(cd "${INTEROP_SRC}/go" && go list -m -f '{{.Version}}' github.com/twmb/franz-go)
KFAKE_VERSION=$(cd "${INTEROP_SRC}/go" && go list -m -f '{{.Version}}' github.com/twmb/franz-go/pkg/kfake)
ENV_FILE="${INTEROP_DIR}/env.sh"
{
  echo "# Written by interop/start.sh at $(date -u +%Y-%m-%dT%H:%M:%SZ); source it. Server peers on loopback:"
  echo "export KIPCHECK_KAFKA='127.0.0.1:${KAFKA_PORT}'"
  echo "export KIPCHECK_KAFKA_CONTROLLER='127.0.0.1:${KAFKA_CONTROLLER_PORT}'"
  echo "export KIPCHECK_KAFKA_VERSION='${KAFKA_VERSION}'"
  echo "export KIPCHECK_KFAKE='${KFAKE_ADDR}'"
  echo "export KIPCHECK_KFAKE_VERSION='${KFAKE_VERSION}'"
  echo "export KIPCHECK_RDKAFKA_MOCK='${RDKAFKA_MOCK_ADDR}'"
  echo "export KIPCHECK_RDKAFKA_VERSION='${RDKAFKA_VERSION}'"
  echo "export KIPCHECK_TANSU='${TANSU_ADDR}'"
  echo "export KIPCHECK_TANSU_VERSION='${TANSU_VERSION}'"
  echo "# Client programs: {bootstrap} is replaced by the address to bootstrap against."
  echo "export KIPCHECK_PYTHON='${PYTHON}'"
  echo "export KIPCHECK_CLIENT_JAVA_PRODUCER='${JAVA_CLIENT} ProduceOne {bootstrap}'"
  echo "export KIPCHECK_CLIENT_JAVA_CONSUMER='${JAVA_CLIENT} ConsumeOne {bootstrap}'"
  echo "export KIPCHECK_CLIENT_JAVA_ADMIN='${JAVA_CLIENT} AdminListTopics {bootstrap}'"
  echo "export KIPCHECK_CLIENT_JAVA_STREAMS='${JAVA_CLIENT} StreamsApp {bootstrap}'"
  for c in PRODUCER CONSUMER ADMIN STREAMS; do echo "export KIPCHECK_CLIENT_JAVA_${c}_VERSION='${KAFKA_VERSION}'"; done
  echo "export KIPCHECK_CLIENT_FRANZ_GO='${GO_BIN}/client {bootstrap}'"
  echo "export KIPCHECK_CLIENT_FRANZ_GO_VERSION='${FRANZ_GO_VERSION}'"
  echo "export KIPCHECK_CLIENT_LIBRDKAFKA='${PYTHON} ${INTEROP_SRC}/python/rdkafka_client.py {bootstrap}'"
  echo "export KIPCHECK_CLIENT_LIBRDKAFKA_VERSION='${RDKAFKA_VERSION}'"
  echo "export KIPCHECK_CLIENT_KAFKA_PYTHON='${PYTHON} ${INTEROP_SRC}/python/kafka_python_client.py {bootstrap}'"
  echo "export KIPCHECK_CLIENT_KAFKA_PYTHON_VERSION='${KAFKA_PYTHON_VERSION}'"
  echo "export KIPCHECK_CLIENT_AIOKAFKA='${PYTHON} ${INTEROP_SRC}/python/aiokafka_client.py {bootstrap}'"
  echo "export KIPCHECK_CLIENT_AIOKAFKA_VERSION='${AIOKAFKA_VERSION}'"
  echo "# Live forms (client-cmd:, docs/live-clients.md): {config}/{profile} are the files kipcheck"
  echo "# writes per scenario; each program builds the client type the scenario names."
  echo "export KIPCHECK_LIVE_CLIENT_JAVA='${JAVA_CLIENT} LiveClient --bootstrap {bootstrap} --config {config} --profile {profile}'"
  echo "export KIPCHECK_LIVE_CLIENT_JAVA_VERSION='${KAFKA_VERSION}'"
  echo "export KIPCHECK_LIVE_CLIENT_FRANZ_GO='${GO_BIN}/client -bootstrap {bootstrap} -config {config} -profile {profile}'"
  echo "export KIPCHECK_LIVE_CLIENT_FRANZ_GO_VERSION='${FRANZ_GO_VERSION}'"
  echo "export KIPCHECK_LIVE_CLIENT_LIBRDKAFKA='${PYTHON} ${INTEROP_SRC}/python/rdkafka_client.py --bootstrap {bootstrap} --config {config} --profile {profile}'"
  echo "export KIPCHECK_LIVE_CLIENT_LIBRDKAFKA_VERSION='${RDKAFKA_VERSION}'"
  echo "export KIPCHECK_LIVE_CLIENT_KAFKA_PYTHON='${PYTHON} ${INTEROP_SRC}/python/kafka_python_client.py --bootstrap {bootstrap} --config {config} --profile {profile}'"
  echo "export KIPCHECK_LIVE_CLIENT_KAFKA_PYTHON_VERSION='${KAFKA_PYTHON_VERSION}'"
  echo "export KIPCHECK_LIVE_CLIENT_AIOKAFKA='${PYTHON} ${INTEROP_SRC}/python/aiokafka_client.py --bootstrap {bootstrap} --config {config} --profile {profile}'"
  echo "export KIPCHECK_LIVE_CLIENT_AIOKAFKA_VERSION='${AIOKAFKA_VERSION}'"
} > "${ENV_FILE}"
STARTED_OK=1
log "start: every peer answers ($(( $(now) - T0 )) s); environment in ${ENV_FILE}"
