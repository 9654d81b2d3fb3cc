# Sourced by tests/setup.sh and tests/npm-deps.sh: a directory built from known inputs (an npm ci, a
# chat UI's build) is kept in the user's cache under the hash of those inputs, like Go's build cache,
# so another clone of the repository with the same inputs copies it instead of building it again.
# On a fresh machine nothing is kept yet and everything is built as before.
KEPT_DIR=${XDG_CACHE_HOME:-$HOME/.cache}/gnosis-tests

# kept_restore NAME HASH DEST: copies the kept NAME-HASH to DEST (replacing it); fails when none is kept.
kept_restore() {
  local kept=$KEPT_DIR/$1-$2
  [ -f "$kept/.gnosis-kept" ] || return 1
  rm -rf "$3" && cp -R "$kept" "$3" && rm -f "$3/.gnosis-kept"
}

# kept_store NAME HASH SRC: keeps a copy of SRC as NAME-HASH, in place of NAME's earlier ones (one copy a
# name, so the cache never grows past one node_modules). Copied beside and renamed, so a run stopped
# half-way never leaves a partial copy under the hash; a failed copy only costs the next clone a build.
kept_store() {
  local kept=$KEPT_DIR/$1-$2 old
  mkdir -p "$KEPT_DIR" && rm -rf "$kept.tmp" && cp -R "$3" "$kept.tmp" && touch "$kept.tmp/.gnosis-kept" &&
    rm -rf "$kept" && mv "$kept.tmp" "$kept" || { rm -rf "$kept.tmp"; return 0; }
  for old in "$KEPT_DIR/$1"-*; do
    [ "$old" = "$kept" ] || rm -rf "$old"
  done
}
