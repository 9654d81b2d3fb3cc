# Sourced by tests/setup.sh and tests/npm-deps.sh: a directory built from known inputs (an npm ci, a
# chat UI's build) carries a stamp file with the hash of those inputs, and a copy is kept in the user's
# cache under that hash, like Go's build cache, so another clone of the repository with the same
# inputs copies it instead of building it again. On a fresh machine nothing is kept yet and everything
# is built as before.
KEPT_DIR=${XDG_CACHE_HOME:-$HOME/.cache}/gnosis-tests

# kept_ensure NAME HASH DIR STAMP BUILD...: makes DIR the build of the inputs whose hash is HASH. Nothing
# to do when DIR/STAMP already holds HASH; else the copy kept as NAME-HASH is copied in; else BUILD runs
# (its command and arguments), HASH is written to DIR/STAMP and a copy is kept in place of NAME's earlier
# ones (one copy a name, so the cache never grows past one node_modules). The copy is made beside and
# renamed, so a run stopped half-way never leaves a partial one; a failed copy only costs the next clone
# a build.
kept_ensure() {
  local name=$1 hash=$2 dir=$3 stamp=$4 kept=$KEPT_DIR/$1-$2 old
  shift 4
  [ "$(cat "$dir/$stamp" 2>/dev/null)" = "$hash" ] && return 0
  if [ "$(cat "$kept/$stamp" 2>/dev/null)" = "$hash" ]; then
    rm -rf "$dir" && cp -R "$kept" "$dir"
    return
  fi
  "$@"
  echo "$hash" > "$dir/$stamp"
  mkdir -p "$KEPT_DIR" && rm -rf "$kept.tmp" && cp -R "$dir" "$kept.tmp" && rm -rf "$kept" && mv "$kept.tmp" "$kept" ||
    { rm -rf "$kept.tmp"; return 0; }
  for old in "$KEPT_DIR/$name"-*; do
    [ "$old" = "$kept" ] || rm -rf "$old"
  done
}
