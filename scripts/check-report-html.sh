#!/usr/bin/env bash
# Headless-Chromium check of report.html and mutants.html: fails when a page throws (an
# uncaught error or a console error), when report.html of a run with findings does not list
# a finding first (and link it from the header), or when mutants.html has no matrix.
# Writes a screenshot of each page next to it (report.png, mutants.png) to look at.
#
# usage: scripts/check-report-html.sh [DIR]
#   DIR holds report.html and/or mutants.html to check. Without DIR, the script builds
#   kipcheck, runs it against a faulty variant (so there are findings) and a small kill
#   matrix into a fresh temporary folder, and checks those.
set -euo pipefail
cd "$(dirname "$0")/.."

chromium_bin=${CHROMIUM:-chromium}
command -v "$chromium_bin" >/dev/null || { echo "check-report-html: $chromium_bin not found" >&2; exit 2; }

dir=${1:-}
if [ -z "$dir" ]; then
  dir=$(mktemp -d "${TMPDIR:-/tmp}/kipcheck-html.XXXXXX")
  cargo build -q -p kipcheck
  bin=target/debug/kipcheck
  # A variant that two scenarios catch: the run has findings (exit 1 is expected).
  "$bin" run --target mutant:sends-undefined-keys --seed 1 --report-dir "$dir" --color never \
    >"$dir/run.txt" 2>&1 && { echo "check-report-html: expected findings" >&2; exit 1; } || true
  "$bin" mutants --mutant no-size-check --mutant sends-undefined-keys --mutant size-limit-inclusive \
    --kip KIP-1324 --report-dir "$dir" --color never >"$dir/mutants.txt" 2>&1 || true
fi

profile=$(mktemp -d "${TMPDIR:-/tmp}/kipcheck-chromium.XXXXXX")
trap 'rm -rf "$profile"' EXIT
chrome() {
  timeout 90 "$chromium_bin" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --window-size=1300,900 --virtual-time-budget=3000 "$@"
}

# A copy of the page with a first script that writes every error into the DOM.
probe_copy() {
  python3 - "$1" "$2" <<'PY'
import sys
src, dst = sys.argv[1], sys.argv[2]
html = open(src, encoding="utf-8").read()
probe = ("<script>(function(){function note(m){var d=document.documentElement;"
         "d.setAttribute('data-kipcheck-errors',(d.getAttribute('data-kipcheck-errors')||'')+m+' | ');}"
         "window.addEventListener('error',function(e){note('error: '+e.message);});"
         "var ce=console.error;console.error=function(){note('console.error: '+Array.prototype.join.call(arguments,' '));"
         "return ce.apply(console,arguments);};}());</script>")
i = html.index("<head>") + len("<head>")
open(dst, "w", encoding="utf-8").write(html[:i] + probe + html[i:])
PY
}

failed=0
check_page() {
  local name=$1 page=$dir/$1.html
  [ -f "$page" ] || return 0
  local probe=$dir/.$name.probe.html
  probe_copy "$page" "$probe"
  chrome --dump-dom "file://$(realpath "$probe")" >"$dir/$name.dom.html" 2>"$dir/$name.chromium.log"
  chrome --enable-logging=stderr --v=0 --screenshot="$dir/$name.png" "file://$(realpath "$page")" \
    >/dev/null 2>"$dir/$name.screenshot.log" || true
  rm -f "$probe"
  if grep -q 'data-kipcheck-errors=' "$dir/$name.dom.html" || grep -q 'Uncaught' "$dir/$name.screenshot.log"; then
    echo "FAIL $name.html throws:" >&2
    grep -o 'data-kipcheck-errors="[^"]*"' "$dir/$name.dom.html" >&2 || true
    grep 'Uncaught' "$dir/$name.screenshot.log" >&2 || true
    failed=1
  fi
  python3 - "$name" "$dir/$name.dom.html" <<'PY' || failed=1
import re, sys
name, dom = sys.argv[1], open(sys.argv[2], encoding="utf-8").read()
def fail(msg):
    print(f"FAIL {name}.html: {msg}", file=sys.stderr)
    sys.exit(1)
if not dom.strip():
    fail("chromium rendered nothing")
if name == "report":
    verdicts = re.findall(r'<details class="scenario v-([a-z_]+)"', dom)
    if not verdicts:
        fail("no scenario listed")
    findings = [v for v in verdicts if v in ("failed", "errored", "unexpected_pass")]
    if findings:
        if verdicts[0] not in ("failed", "errored", "unexpected_pass"):
            fail(f"the first scenario listed is {verdicts[0]}, not a finding")
        first = re.search(r'<p class="first-finding">.*?href="#s-([^"]+)"', dom)
        if not first:
            fail("no link to the first finding in the header")
        if f'id="s-{first.group(1)}"' not in dom:
            fail(f"the first-finding link points at a missing scenario {first.group(1)}")
        shown = re.search(r'<span id="shown-count">(\d+)</span>', dom)
        if not shown or int(shown.group(1)) != len(verdicts):
            fail("the filter script did not count the scenarios shown")
    print(f"ok   report.html: {len(verdicts)} scenarios, {len(findings)} findings, first listed: {verdicts[0]}")
else:
    rows = len(re.findall(r'<tr id="m-', dom))
    cols = len(re.findall(r'<th class="var', dom))
    if rows == 0 or cols == 0:
        fail("no variant x scenario matrix")
    if "`" in re.sub(r"<script>.*?</script>", "", dom, flags=re.S):
        fail("literal Markdown backticks in the page")
    print(f"ok   mutants.html: {rows} scenarios x {cols} variants")
PY
  echo "     screenshot: $dir/$name.png"
}

check_page report
check_page mutants
exit $failed
