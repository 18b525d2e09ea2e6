#!/usr/bin/env bash
# The crates as a user gets them: packages mrtr-macros, mrtr and mcp-lint with cargo's
# verification build (each package unpacked and built on its own), prints each .crate's size,
# then installs the linter from its .crate into a temporary root, as the README shows, and runs
# it on the example server. Called by scripts/test-all.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
version=$(sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml)
# One command for the three: cargo packages them in dependency order and verifies `mrtr` against
# the `mrtr-macros` it just packaged (a local registry of the packages being made), since neither
# is published yet. --allow-dirty: what is checked here is what the packages hold and that they
# build, on any working tree.
cargo package --locked --allow-dirty -p mrtr-macros -p mrtr -p mcp-lint
for c in mrtr-macros mrtr mcp-lint; do
  f="$target/package/$c-$version.crate"
  echo "packaged $c $version: $(wc -c <"$f") bytes ($(tar tzf "$f" | wc -l) files)"
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar xzf "$target/package/mcp-lint-$version.crate" -C "$work"
# --debug: the release profile (fat LTO, one codegen unit) takes minutes more; this checks what
# the package holds and that it installs, not its speed.
cargo install --locked --debug --path "$work/mcp-lint-$version" --root "$work/root"
status=0
"$work/root/bin/cargo-mcp-lint" --format concise examples/deploy/before >"$work/out" || status=$?
cat "$work/out"
if [ "$status" != 1 ] || [ "$(grep -c 'error\[MCP001\]' "$work/out")" != 3 ]; then
  echo "the installed linter did not report the example's three MCP001 findings (exit $status)" >&2
  exit 1
fi
# The catalog is built in: a rule's docs print without the repository around.
(cd "$work" && "$work/root/bin/cargo-mcp-lint" rule MCP001 | grep -q '^MCP001 legacy-elicitation-request')
echo "installed from the packaged crate and ran on examples/deploy/before: ok"
