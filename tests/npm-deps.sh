#!/usr/bin/env bash
# Installs the npm packages from the committed lock file (npm ci) unless
# node_modules was installed from this very lock file already: the stamp
# holds the lock file's hash. make test-short and tests/setup.sh run it.
set -euo pipefail
cd "$(dirname "$0")/.."

stamp=node_modules/.gnosis-lock.sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  command -v npm >/dev/null || { echo "tests/npm-deps.sh: npm is not installed (Debian: apt-get install npm)" >&2; exit 1; }
  npm ci --no-audit --no-fund
  echo "$want" > "$stamp"
fi
