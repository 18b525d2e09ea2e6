#!/usr/bin/env bash
# By hand, not CI: how much of an rmcp 0.x-2.x -> 3.x upgrade `cargo mcp-lint` does on a real server.
#   scripts/rmcp-upgrade-corpus.sh TREE PACKAGE
# TREE is a server's source tree (`git archive` of its commit: build scripts and `include_str!` may
# read files the dev-corpus lay-out leaves out), PACKAGE the cargo package that
# uses rmcp. Three copies of TREE under $WORK (default: a temp dir), each `cargo check -p PACKAGE`ed
# with one shared target dir ($CARGO_TARGET_DIR, default $WORK/target):
#   base   as it is (on its locked rmcp; must be clean for the numbers to mean anything)
#   bump   only the manifests bumped (`--upgrade-rmcp` with only MCP900 selected: no source fix)
#   fixed  `--fix --unsafe-fixes --upgrade-rmcp`
# Prints one line per copy: the rustc error count and the error codes with their counts; the
# remaining errors are in $WORK/fixed.log. Needs the registry (cargo resolves rmcp 3.x). The server's
# code is never copied into this project.
#
# HAND=1: the way most servers meet the upgrade, a bump by hand (or Dependabot, Renovate) before the
# tool runs: every `rmcp` requirement of TREE's manifests is raised to 3.11 and the lock updated
# (`cargo update -p rmcp`) first, so the tool sees a 3.x manifest and lock over old code. `base` is
# then that bumped tree, `bump` the tool's manifest pass over it (nothing left to bump: the feature
# renames only).
set -u
tree=${1:?tree}; pkg=${2:?package}
# A pinned toolchain file would ask rustup for a download; use what is installed.
export RUSTUP_TOOLCHAIN=${RUSTUP_TOOLCHAIN:-stable}
if [ "${HAND:-0}" = 1 ]; then
  hand=$(mktemp -d)/tree
  cp -r "$tree" "$hand"
  find "$hand" -name Cargo.toml -not -path '*/target/*' | while read -r m; do
    sed -i -E 's/^(rmcp *= *)"[^"]*"/\1"3.11"/; s/^(rmcp *= *\{.*version *= *)"[^"]*"/\1"3.11"/' "$m"
  done
  # (A tree with no rmcp, a server on its own JSON-RPC, has nothing to bump.)
  if grep -q '^name = "rmcp"' "$hand/Cargo.lock" 2>/dev/null; then (cd "$hand" && cargo update -p rmcp --quiet); fi
  tree=$hand
fi
here=$(cd "$(dirname "$0")/.." && pwd)
# The linter built from this checkout (`cargo build`), or $MCP_LINT.
lint=${MCP_LINT:-$here/target/debug/cargo-mcp-lint}
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$work/target}
check() { # dir log
  # --keep-going: every crate that can be checked is, so the counts cover more than the first crate
  # that fails (crates depending on a failed one are still not checked).
  (cd "$1" && nice -n 19 cargo check -p "$pkg" --keep-going --message-format short "${@:3}" >"$2" 2>&1)
  local n; n=$(grep -c ': error' "$2")
  local kinds; kinds=$(grep -oE ': error\[E[0-9]+\]' "$2" | sort | uniq -c | sort -rn | awk '{sub(/.*\[/, "", $3); sub(/\]/, "", $3); printf "%sx%s ", $3, $1}')
  # Cargo's own errors (a build script that failed, a dependency it could not fetch) stop the
  # crates after them from being checked at all: a count of 0 then means nothing. Say so.
  local blocked; blocked=$(grep -E '^error' "$2" | grep -vE '^error(\[E[0-9]+\])?: (could not compile|aborting)' | head -1)
  echo "$n errors ${kinds}${blocked:+ BLOCKED: $blocked}"
}
for v in base bump fixed; do rm -rf "${work:?}/$v"; cp -r "$tree" "$work/$v"; done
# --locked where the tree has a lock file: the numbers are then for the commit's own dependencies.
# A tree that ships none (a library-style repo) resolves the newest compatible ones.
locked=; [ "${HAND:-0}" = 1 ] || [ ! -f "$tree/Cargo.lock" ] || locked=--locked
echo "base:  $(check "$work/base" "$work/base.log" $locked)"
(cd "$work/bump" && "$lint" --fix --upgrade-rmcp --config 'select=["MCP900"]' . >/dev/null 2>&1)
echo "bump:  $(check "$work/bump" "$work/bump.log")"
# The MRTR fixes add the runtime to the manifests they migrate: this checkout's, by path.
(cd "$work/fixed" && "$lint" --fix --unsafe-fixes --upgrade-rmcp \
  --mrtr-dependency "{ path = \"$here/runtime\" }" . >"$work/lint.log" 2>&1)
echo "fixed: $(check "$work/fixed" "$work/fixed.log")"
left=$(cd "$work/fixed" && "$lint" --format concise . 2>/dev/null | grep -oE '\[MCP[0-9]+\]' | sort | uniq -c | tr -s ' []' ' ' | tr '\n' ' ')
echo "findings left after the fix: $left"
