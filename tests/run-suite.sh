#!/usr/bin/env bash
# Runs one suite of `make test`: the full output goes to build/test-logs/<suite>.log, the terminal
# gets one line (pass, fail and skip counts, seconds), also appended to build/test-logs/summary.txt,
# the reasons of tests skipped for a missing prerequisite, and on failure the last lines of the log.
# Usage: tests/run-suite.sh <suite> <command> [args...]
set -uo pipefail
cd "$(dirname "$0")/.."
suite=$1
shift
logs=build/test-logs
mkdir -p "$logs"
log=$logs/$suite.log
rm -f "$logs/$suite.failures" # a run alone, without make test emptying the folder, starts clean

start=$(date +%s)
"$@" >"$log" 2>&1
status=$?
secs=$(($(date +%s) - start))

# Counts: `go test -v` marks each test and subtest with --- PASS/FAIL/SKIP; node --test ends with
# "# pass N" (tap) or "ℹ pass N" (spec); linters only succeed or fail.
count() { grep -cE -- "$1" "$log"; }
last() {
  local n
  n=$(grep -E "^(# |ℹ )$1 [0-9]+" "$log" | tail -1 | awk '{print $3}')
  echo "${n:-0}"
}
if grep -qE -- '^\s*--- (PASS|FAIL|SKIP)' "$log"; then
  counts="$(count '^\s*--- PASS') passed, $(count '^\s*--- FAIL') failed, $(count '^\s*--- SKIP') skipped"
elif grep -qE '^(# |ℹ )pass [0-9]+' "$log"; then
  counts="$(last pass) passed, $(last fail) failed, $(($(last skipped) + $(last todo))) skipped"
elif [ "$status" -eq 0 ]; then
  counts="clean"
else
  counts="problems found"
fi
if [ "$status" -eq 0 ]; then verdict=ok; else verdict=FAIL; fi
line=$(printf '%-8s %-4s %s (%ss) %s' "$suite" "$verdict" "$counts" "$secs" "$log")
echo "$line"
# What was skipped for a missing prerequisite, and its fix (internal/prereq's message).
grep -hE ' is missing: ' "$log" | sed -E 's/^\s*([a-z_]+\.go:[0-9]+: |skipped: )?//' | sort -u | sed 's/^/         skipped: /'
# What failed, with the reason each test gave: go test's --- FAIL lines with the t.Error lines
# under them, node's innermost "not ok" with its error and location. It goes into the summary
# too, which make test prints last, so a cut log still names the failures.
failures() {
  if grep -qE -- '^\s*--- FAIL' "$log"; then
    grep -E -B8 -A2 -- '^\s*--- FAIL' "$log" | grep -E -- '^\s*--- FAIL|^\s+[a-z_]+\.go:[0-9]+: ' | head -n 40
  else
    # Each "not ok" block's name, error (with a multi-line error's first lines, so a browser's
    # own log shows) and location; a suite that failed only because a subtest did, and a test
    # cancelled because its suite's set-up failed (that failure is listed), are left out.
    awk 'function flush() { if (b != "" && b !~ /subtestsFailed|cancelledByParent/) printf "%s", b; b = "" }
      /^ *not ok /{ flush(); b = $0 "\n"; m = 0; next }
      b != "" && /^ *(error|location|failureType):/{ b = b $0 "\n"; m = ($0 ~ /[|>]-?$/) ? 10 : 0; next }
      /^ *(code|stack|name|operator|expected|actual):/{ m = 0 }
      b != "" && m > 0 { b = b $0 "\n"; m--; next }
      END { flush() }' "$log" | grep -v 'failureType:' | head -n 40
  fi
}
if [ "$status" -ne 0 ]; then
  echo "---- last 60 lines of $log ----"
  tail -n 60 "$log"
  echo "---- failures ----"
  failures | tee "$logs/$suite.failures"
fi
echo "$line" >>"$logs/summary.txt"
if [ -s "$logs/$suite.failures" ]; then sed 's/^/    /' "$logs/$suite.failures" >>"$logs/summary.txt"; fi
exit "$status"
