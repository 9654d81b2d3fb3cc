#!/usr/bin/env bash
# Installs the npm packages from the committed lock file (npm ci) unless
# node_modules was installed from this very lock file already: the stamp
# holds the lock file's hash (and Node's version, for the packages' native
# parts). Another clone with the same lock copies the node_modules kept in the
# user's cache (tests/kept.sh) instead. make test-short and tests/setup.sh run it.
set -euo pipefail
cd "$(dirname "$0")/.."

install() {
  command -v npm >/dev/null || { echo "tests/npm-deps.sh: npm is not installed (Debian: apt-get install npm)" >&2; exit 1; }
  npm ci --no-audit --no-fund
}
. tests/kept.sh
kept_ensure node-modules "$( (cat package-lock.json; node --version) | sha256sum | cut -d' ' -f1)" node_modules .gnosis-lock.sha256 install
