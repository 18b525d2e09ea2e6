#!/usr/bin/env bash
# By hand, not CI: `rmcp-upgrade-corpus.sh` over every repository of a dev-corpus TSV, in both ways a
# server meets the upgrade (the tool bumps the manifest; the manifest was bumped by hand first).
#   scripts/rmcp-upgrade-corpus-all.sh TSV MIRRORS [REPO_SUBSTRING...]
# TSV is `../shared/dev-corpus.tsv` (repo, commit, path, ... per call site); MIRRORS holds a bare
# mirror per repository at MIRRORS/<owner>+<name>/repo. Only repositories whose name contains one of
# the REPO_SUBSTRINGs run (all without any). The package checked is the one whose manifest is nearest
# above the first listed call site, so nothing here knows a repository by name. Prints one block per
# repository; the trees and logs stay under $WORK (default /tmp/rmcp-upgrade-all).
set -u
tsv=${1:?tsv}; mirrors=${2:?mirrors}; shift 2
here=$(cd "$(dirname "$0")" && pwd)
work=${WORK:-/tmp/rmcp-upgrade-all}
mkdir -p "$work"
# One target dir for every repository: each rmcp release and its dependencies are built once.
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$work/target}
wanted() {
  [ $# -eq 1 ] && return 0
  local repo=$1; shift
  for s in "$@"; do case $repo in *"$s"*) return 0 ;; esac; done
  return 1
}
# The first site of each repository: repo, commit, path.
tail -n +2 "$tsv" | awk -F'\t' '!seen[$1]++ {print $1 "\t" $2 "\t" $3}' |
  while IFS=$'\t' read -r repo commit path; do
    wanted "$repo" "$@" || continue
    key=${repo/\//+}
    git_dir=$mirrors/$key/repo
    echo "== $repo ${commit:0:8}"
    if ! git --git-dir="$git_dir" cat-file -e "$commit^{commit}" 2>/dev/null; then
      echo "   no mirror or commit at $git_dir"; continue
    fi
    tree=$work/$key/tree
    rm -rf "$tree"; mkdir -p "$tree"
    git --git-dir="$git_dir" archive "$commit" | tar -x -C "$tree"
    # The nearest manifest above the site with a [package] name.
    dir=$(dirname "$path"); pkg=
    while :; do
      manifest=$tree/$dir/Cargo.toml
      [ "$dir" = . ] && manifest=$tree/Cargo.toml
      if [ -f "$manifest" ]; then
        pkg=$(awk '/^\[package\]/{p=1; next} /^\[/{p=0} p && /^name *=/ {gsub(/.*= *"|".*/, ""); print; exit}' "$manifest")
        [ -n "$pkg" ] && break
      fi
      [ "$dir" = . ] && break
      dir=$(dirname "$dir")
    done
    if [ -z "$pkg" ]; then echo "   no package above $path"; continue; fi
    echo "   package $pkg"
    for hand in 0 1; do
      label=tool; [ $hand = 1 ] && label=hand
      echo "   -- bumped by the $label"
      HAND=$hand WORK=$work/$key/$label bash "$here/rmcp-upgrade-corpus.sh" "$tree" "$pkg" 2>&1 | sed 's/^/   /'
    done
  done
