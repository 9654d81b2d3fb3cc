#!/bin/sh
# Registers gnosis-host for the current user on Linux or macOS: copies the binary to
# $XDG_DATA_HOME/gnosis (~/.local/share/gnosis) or ~/Library/Application Support/Gnosis, and writes
# the host manifest into each browser's NativeMessagingHosts folder: those found on this machine
# (profile present or program installed), or all of them with --all, or all of them if none is
# found. It writes exactly what "gnosis-host install" writes; "gnosis-host uninstall" undoes both.
#
#   install.sh [--all] [path/to/gnosis-host]
#
# The binary defaults to gnosis-host next to this script (release zip), else ../bin/gnosis-host.
set -eu

all=0
src=
for arg in "$@"; do
  case $arg in
    --all) all=1 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) src=$arg ;;
  esac
done

here=$(cd "$(dirname "$0")" && pwd)
if [ -z "$src" ]; then
  for c in "$here/gnosis-host" "$here/../bin/gnosis-host"; do
    if [ -f "$c" ]; then src=$c; break; fi
  done
fi
if [ -z "$src" ] || [ ! -f "$src" ]; then
  echo "install.sh: gnosis-host binary not found (give its path as an argument)" >&2
  exit 1
fi

# One line per browser: id | Linux folder under ~/.config | macOS folder under
# ~/Library/Application Support | Linux commands | macOS application.
# Keep in step with host/register/browsers.go (tests/register_test.go compares the results).
browsers='chrome|google-chrome|Google/Chrome|google-chrome google-chrome-stable|Google Chrome
chrome-beta|google-chrome-beta|Google/Chrome Beta|google-chrome-beta|Google Chrome Beta
chrome-dev|google-chrome-unstable|Google/Chrome Dev|google-chrome-unstable|Google Chrome Dev
chrome-canary|google-chrome-canary|Google/Chrome Canary|google-chrome-canary|Google Chrome Canary
chromium|chromium|Chromium|chromium chromium-browser|Chromium
edge|microsoft-edge|Microsoft Edge|microsoft-edge microsoft-edge-stable|Microsoft Edge
edge-beta|microsoft-edge-beta|Microsoft Edge Beta|microsoft-edge-beta|Microsoft Edge Beta
edge-dev|microsoft-edge-dev|Microsoft Edge Dev|microsoft-edge-dev|Microsoft Edge Dev
edge-canary||Microsoft Edge Canary||Microsoft Edge Canary
brave|BraveSoftware/Brave-Browser|BraveSoftware/Brave-Browser|brave-browser brave|Brave Browser
vivaldi|vivaldi|Vivaldi|vivaldi vivaldi-stable|Vivaldi'

case $(uname -s) in
  Darwin)
    os=darwin
    dest="$HOME/Library/Application Support/Gnosis"
    base="$HOME/Library/Application Support" ;;
  *)
    os=linux
    data=${XDG_DATA_HOME:-}
    case $data in /*) ;; *) data="$HOME/.local/share" ;; esac
    config=${XDG_CONFIG_HOME:-}
    case $config in /*) ;; *) config="$HOME/.config" ;; esac
    dest="$data/gnosis"
    base=$config ;;
esac

# folder ID-LINE: the browser's user data folder on this system, empty if it has none.
folder() {
  if [ $os = darwin ]; then printf '%s' "$1" | cut -d'|' -f3; else printf '%s' "$1" | cut -d'|' -f2; fi
}

found() {
  dir=$(folder "$1")
  [ -n "$dir" ] || return 1
  [ -f "$base/$dir/Local State" ] && return 0
  if [ $os = darwin ]; then
    [ -d "/Applications/$(printf '%s' "$1" | cut -d'|' -f5).app" ] && return 0
  else
    for c in $(printf '%s' "$1" | cut -d'|' -f4); do
      command -v "$c" >/dev/null 2>&1 && return 0
    done
  fi
  return 1
}

selected=
if [ $all = 0 ]; then
  selected=$(printf '%s\n' "$browsers" | while IFS= read -r line; do
    if found "$line"; then printf '%s\n' "$line"; fi
  done)
  if [ -z "$selected" ]; then
    echo "No supported browser found; registering for all of them, so one installed later finds the host."
  fi
fi
if [ -z "$selected" ]; then
  selected=$(printf '%s\n' "$browsers" | while IFS= read -r line; do
    if [ -n "$(folder "$line")" ]; then printf '%s\n' "$line"; fi
  done)
fi

echo "Installing gnosis-host (user) in $dest:"
host="$dest/gnosis-host"
mkdir -p "$dest"
if [ "$(cd "$(dirname "$src")" && pwd)/$(basename "$src")" != "$host" ]; then
  cp "$src" "$host.new.$$"
  chmod 755 "$host.new.$$"
  mv -f "$host.new.$$" "$host"
  echo "  copied $src to $host"
fi

jpath=$(printf '%s' "$host" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g')
manifest() {
  cat <<JSON
{
  "name": "com.gnosis.host",
  "description": "Gnosis capability host",
  "path": "$jpath",
  "type": "stdio",
  "allowed_origins": [
    "chrome-extension://mbegimjagonemgohdcndepbpfbmlmgdd/"
  ]
}
JSON
}

printf '%s\n' "$selected" | while IFS= read -r line; do
  id=${line%%|*}
  dir="$base/$(folder "$line")/NativeMessagingHosts"
  mkdir -p "$dir"
  manifest > "$dir/com.gnosis.host.json.new.$$"
  mv -f "$dir/com.gnosis.host.json.new.$$" "$dir/com.gnosis.host.json"
  manifest | cmp -s - "$dir/com.gnosis.host.json" || { echo "read back $dir failed" >&2; exit 1; }
  printf '  %-14s wrote %s\n' "$id" "$dir/com.gnosis.host.json"
done

echo
echo "Next: open chrome://extensions (edge://extensions, brave://extensions, ...), turn on"
echo "Developer mode, click \"Load unpacked\" and pick the extension folder. If the host does not"
echo "connect, run: \"$host\" doctor"
