#!/bin/sh
# Registers gnosis-host for the current user on Linux or macOS: copies the binary to
# $XDG_DATA_HOME/gnosis (~/.local/share/gnosis) or ~/Library/Application Support/Gnosis, and writes
# the host manifest into each browser's manifest folder (NativeMessagingHosts for the Chromium
# family, ~/.mozilla/native-messaging-hosts for Firefox): those found on this machine (profile
# present or program installed), or all of them with --all, or all of them if none is found. It writes exactly what "gnosis-host install" writes; "gnosis-host uninstall" undoes both.
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

# One line per browser: id | family | Linux data folder | macOS data folder | Linux commands |
# macOS application | Linux manifest folder | macOS manifest folder. Linux folders are under
# $XDG_CONFIG_HOME (~/.config), or under the home folder when they start with "~/"; macOS folders are
# under ~/Library/Application Support. An empty manifest folder means the data folder's
# NativeMessagingHosts. The family says which manifest the browser reads and which file shows it has
# run: chromium (allowed_origins, "Local State") or firefox (allowed_extensions, profiles.ini).
# Keep in step with host/register/browsers.go (tests/register_test.go compares the results).
browsers='chrome|chromium|google-chrome|Google/Chrome|google-chrome google-chrome-stable|Google Chrome||
chrome-beta|chromium|google-chrome-beta|Google/Chrome Beta|google-chrome-beta|Google Chrome Beta||
chrome-dev|chromium|google-chrome-unstable|Google/Chrome Dev|google-chrome-unstable|Google Chrome Dev||
chrome-canary|chromium|google-chrome-canary|Google/Chrome Canary|google-chrome-canary|Google Chrome Canary||
chromium|chromium|chromium|Chromium|chromium chromium-browser|Chromium||
edge|chromium|microsoft-edge|Microsoft Edge|microsoft-edge microsoft-edge-stable|Microsoft Edge||
edge-beta|chromium|microsoft-edge-beta|Microsoft Edge Beta|microsoft-edge-beta|Microsoft Edge Beta||
edge-dev|chromium|microsoft-edge-dev|Microsoft Edge Dev|microsoft-edge-dev|Microsoft Edge Dev||
edge-canary|chromium||Microsoft Edge Canary||Microsoft Edge Canary||
brave|chromium|BraveSoftware/Brave-Browser|BraveSoftware/Brave-Browser|brave-browser brave|Brave Browser||
vivaldi|chromium|vivaldi|Vivaldi|vivaldi vivaldi-stable|Vivaldi||
firefox|firefox|~/.mozilla/firefox|Firefox|firefox firefox-esr firefox-developer-edition firefox-nightly|Firefox|~/.mozilla/native-messaging-hosts|Mozilla/NativeMessagingHosts'

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

field() { printf '%s' "$1" | cut -d'|' -f"$2"; }

# place FOLDER: a folder of the table as a full path on this system.
place() {
  case $1 in
    "~/"*) printf '%s/%s' "$HOME" "${1#"~/"}" ;;
    *) printf '%s/%s' "$base" "$1" ;;
  esac
}

# folder ID-LINE: the browser's user data folder on this system, empty if it has none.
folder() {
  if [ $os = darwin ]; then field "$1" 4; else field "$1" 3; fi
}

# hosts ID-LINE: the full path of the folder the browser reads host manifests from.
hosts() {
  if [ $os = darwin ]; then h=$(field "$1" 8); else h=$(field "$1" 7); fi
  [ -n "$h" ] || h="$(folder "$1")/NativeMessagingHosts"
  place "$h"
}

found() {
  dir=$(folder "$1")
  [ -n "$dir" ] || return 1
  marker="Local State"
  [ "$(field "$1" 2)" = firefox ] && marker=profiles.ini
  [ -f "$(place "$dir")/$marker" ] && return 0
  if [ $os = darwin ]; then
    [ -d "/Applications/$(field "$1" 6).app" ] && return 0
  else
    for c in $(field "$1" 5); do
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
# manifest FAMILY: the host manifest a browser of that family reads (manifests/com.gnosis.host*.json).
manifest() {
  if [ "$1" = firefox ]; then
    field='allowed_extensions' entry='gnosis@gnosis.dev'
  else
    field='allowed_origins' entry='chrome-extension://mbegimjagonemgohdcndepbpfbmlmgdd/'
  fi
  cat <<JSON
{
  "name": "com.gnosis.host",
  "description": "Gnosis capability host",
  "path": "$jpath",
  "type": "stdio",
  "$field": [
    "$entry"
  ]
}
JSON
}

printf '%s\n' "$selected" | while IFS= read -r line; do
  id=${line%%|*}
  family=$(field "$line" 2)
  dir=$(hosts "$line")
  mkdir -p "$dir"
  manifest "$family" > "$dir/com.gnosis.host.json.new.$$"
  mv -f "$dir/com.gnosis.host.json.new.$$" "$dir/com.gnosis.host.json"
  manifest "$family" | cmp -s - "$dir/com.gnosis.host.json" || { echo "read back $dir failed" >&2; exit 1; }
  printf '  %-14s wrote %s\n' "$id" "$dir/com.gnosis.host.json"
done

echo
echo "Next: open chrome://extensions (edge://extensions, brave://extensions, ...), turn on"
echo "Developer mode, click \"Load unpacked\" and pick the extension folder; in Firefox open"
echo "about:debugging#/runtime/this-firefox, click \"Load Temporary Add-on...\" and pick the Firefox"
echo "package (gnosis-<version>-firefox.xpi) or the extension's manifest.json. If the host does not"
echo "connect, run: \"$host\" doctor"
