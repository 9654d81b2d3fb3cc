#!/usr/bin/env bash
# Installs what `make test` needs on a fresh Debian machine, and nothing that is already there:
# Debian's chromium and firefox-esr (end-to-end tests), wine64 and the mingw compiler (the Windows build under Wine),
# osslsigncode and openssl (signing test), unzip, wixl and msitools (the MSI), rpm (the .rpm), Xvfb,
# xterm and xdotool (the agent's desktop tests: computer-use-mcp drives an X display, and types
# through xdotool when it is there: nut-js's own typing delivers nothing under Xvfb), the npm
# packages from the committed lock file (web-ext lints the Firefox package; computer-use-mcp is the
# desktop server), and the Go modules, nfpm's too (install/release/nfpm.mod). Safe to run again;
# `make test` runs it first.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v chromium >/dev/null || need+=(chromium)
command -v firefox-esr >/dev/null || need+=(firefox-esr)
command -v wine64 >/dev/null || [ -x /usr/lib/wine/wine64 ] || need+=(wine64)
command -v x86_64-w64-mingw32-gcc >/dev/null || need+=(gcc-mingw-w64-x86-64-win32)
command -v osslsigncode >/dev/null || need+=(osslsigncode)
command -v openssl >/dev/null || need+=(openssl)
command -v unzip >/dev/null || need+=(unzip)
command -v wixl >/dev/null || need+=(wixl)
command -v msibuild >/dev/null || need+=(msitools)
command -v rpm >/dev/null || need+=(rpm)
command -v Xvfb >/dev/null || need+=(xvfb)
command -v xterm >/dev/null || need+=(xterm)
command -v xdotool >/dev/null || need+=(xdotool)
if [ ${#need[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "tests/setup.sh: installing ${need[*]}" >&2
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

# npm ci only when node_modules was not installed from this very lock file.
./tests/npm-deps.sh
go mod download
go mod download -modfile=install/release/nfpm.mod

# The real chat UIs the bridge's end-to-end tests run on, each in tests/e2e/fixtures/<name> with its own
# package.json and lock: assistant-ui (React, realchat), Gradio's chatbot (Svelte, gradiochat) and Ant Design
# X Vue (Vue, antdxchat). Each is installed with npm ci and built with its own esbuild build, again only when
# its lock or sources changed; a build is kept in the user's cache (tests/kept.sh), so another clone copies
# it instead of installing about 580 MB of packages again (about a minute of a fresh clone's make test).
. tests/kept.sh
build_chat() {
  (cd "$1" && npm ci --no-audit --no-fund --loglevel=error && node build.mjs)
}
for name in realchat gradiochat antdxchat; do
  chat=tests/e2e/fixtures/$name
  kept_ensure "chat-ui-$name" "$(cat "$chat/package-lock.json" "$chat/build.mjs" "$chat"/src/* | sha256sum | cut -d' ' -f1)" \
    "$chat/dist" .gnosis-build.sha256 build_chat "$chat"
done
