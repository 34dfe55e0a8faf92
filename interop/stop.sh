#!/usr/bin/env bash
# Stops the peers interop/start.sh started, by the pids it recorded (each peer runs in its own
# process group): SIGTERM, up to 15 s, then SIGKILL. Safe to run twice or when nothing runs.
set -uo pipefail
source "$(dirname "$0")/lib.sh"

for pidfile in "${INTEROP_RUN}"/*.pid; do
  [ -f "${pidfile}" ] || continue
  name=$(basename "${pidfile}" .pid)
  pid=$(cat "${pidfile}")
  if [ -n "${pid}" ] && kill -0 "${pid}" 2>/dev/null; then
    kill -TERM -- "-${pid}" 2>/dev/null || kill -TERM "${pid}" 2>/dev/null
    for _ in $(seq 1 30); do kill -0 "${pid}" 2>/dev/null || break; sleep 0.5; done
    if kill -0 "${pid}" 2>/dev/null; then
      kill -KILL -- "-${pid}" 2>/dev/null || kill -KILL "${pid}" 2>/dev/null
      log "${name}: killed (pid ${pid})"
    else
      log "${name}: stopped (pid ${pid})"
    fi
  fi
  rm -f "${pidfile}"
done
rm -f "${INTEROP_DIR}/env.sh"
exit 0
