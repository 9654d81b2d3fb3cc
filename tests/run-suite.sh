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
echo "$line" >>"$logs/summary.txt"
echo "$line"
# What was skipped for a missing prerequisite, and its fix (internal/prereq's message).
grep -hE ' is missing: ' "$log" | sed -E 's/^\s*([a-z_]+\.go:[0-9]+: |skipped: )?//' | sort -u | sed 's/^/         skipped: /'
if [ "$status" -ne 0 ]; then
  # The failures themselves (go test's --- FAIL and FAIL lines, node's "not ok"), then the tail.
  grep -nE -- '^\s*--- FAIL|^FAIL|^\s*not ok ' "$log" | head -n 40
  echo "---- last 60 lines of $log ----"
  tail -n 60 "$log"
  echo "----"
fi
exit "$status"
