#!/usr/bin/env bash
# The shell side of internal/prereq's policy, for suites that are not Go tests.
# Usage: tests/prereq.sh <what> <command or path> <fix>
# Exits 0 when the command is on PATH or the path is executable. When it is missing: under CI
# (CI=true) prints that and exits 1 (fail); elsewhere prints that the suite is skipped and how to
# fix it, and exits 3.
set -euo pipefail
what=$1 cmd=$2 fix=$3
if command -v "$cmd" >/dev/null 2>&1 || [ -x "$cmd" ]; then
  exit 0
fi
case "${CI:-}" in
  true | TRUE | True | 1)
    echo "$what ($cmd) is missing: $fix (CI=true, so a missing prerequisite fails)" >&2
    exit 1
    ;;
esac
echo "skipped: $what ($cmd) is missing: $fix"
exit 3
