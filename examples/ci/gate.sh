#!/usr/bin/env bash
# kipcheck as a CI gate for *your* implementation: run the conformance suite against it, keep
# the reports, publish the summary where the CI shows it, and exit with kipcheck's verdict.
#
# Configure with environment variables (only KIPCHECK_TARGET is required):
#   KIPCHECK_TARGET       tcp://HOST:PORT (a broker or controller you started),
#                         client-cmd:"your-client --bootstrap {bootstrap} --config {config}",
#                         or exec:"your-adapter"                         (see kipcheck run --help)
#   KIPCHECK_ARGS         extra `kipcheck run` flags, e.g. "--role broker --capability policy_control"
#   KIPCHECK_MIN_JUDGED   fail unless at least this many scenarios were judged (default 1)
#   KIPCHECK_REPORT_DIR   where report.html, results.json, junit.xml, summary.md and
#                         results.sarif (for code scanning) go (default kipcheck-reports)
#   KIPCHECK_EVENTS       a file for the live event stream (`--message-format json`: one JSON
#                         object per line, `started` first, `finished` or `aborted` last); the
#                         human output then goes to stderr (default: no stream)
#   KIPCHECK_WAIT_FOR     HOST:PORT to wait for (up to KIPCHECK_WAIT_SECS, default 60) before
#                         running: the server you started in the background (default: the
#                         tcp:// target's address)
#   KIPCHECK              the kipcheck binary (default: kipcheck on PATH)
#   GITHUB_STEP_SUMMARY   set by GitHub Actions: summary.md is appended to it
#
# Exit status: kipcheck's (0 passed; 1 findings; 2 usage or scenario error; 3 the target failed
# to start, crashed or hung; 4 nothing selected; 5 nothing judged or fewer than the minimum),
# or 3 when the server never started listening.
set -uo pipefail

kipcheck=${KIPCHECK:-kipcheck}
target=${KIPCHECK_TARGET:?set KIPCHECK_TARGET (e.g. tcp://127.0.0.1:9092)}
report_dir=${KIPCHECK_REPORT_DIR:-kipcheck-reports}
min_judged=${KIPCHECK_MIN_JUDGED:-1}
wait_secs=${KIPCHECK_WAIT_SECS:-60}
wait_for=${KIPCHECK_WAIT_FOR:-}
if [ -z "$wait_for" ] && [[ "$target" == tcp://* ]]; then
  wait_for=${target#tcp://}
fi

if [ -n "$wait_for" ]; then
  host=${wait_for%:*}
  port=${wait_for##*:}
  deadline=$((SECONDS + wait_secs))
  until (exec 3<>"/dev/tcp/${host}/${port}") 2>/dev/null; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "kipcheck gate: nothing listens on ${wait_for} after ${wait_secs} s" >&2
      exit 3
    fi
    sleep 0.5
  done
fi

events=${KIPCHECK_EVENTS:-}
# shellcheck disable=SC2086  # KIPCHECK_ARGS is a list of flags on purpose
if [ -n "$events" ]; then
  "$kipcheck" run --target "$target" --report-dir "$report_dir" --min-judged "$min_judged" \
    --message-format json ${KIPCHECK_ARGS:-} > "$events"
else
  "$kipcheck" run --target "$target" --report-dir "$report_dir" --min-judged "$min_judged" \
    ${KIPCHECK_ARGS:-}
fi
rc=$?

if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -f "$report_dir/summary.md" ]; then
  cat "$report_dir/summary.md" >> "$GITHUB_STEP_SUMMARY"
fi
case $rc in
  0) echo "kipcheck gate: passed (reports in $report_dir/)" ;;
  1) echo "kipcheck gate: findings; open $report_dir/report.html" >&2 ;;
  5) echo "kipcheck gate: too little was judged (see the unsupported causes in $report_dir/summary.md)" >&2 ;;
  *) echo "kipcheck gate: kipcheck exited $rc" >&2 ;;
esac
exit $rc
