#!/usr/bin/env bash
# The whole test suite: the README's test command. .ci/run installs what this needs, then calls it.
set -euo pipefail
cd "$(dirname "$0")/.."
# The wire tests drive these binaries as servers: the migrated deploy example, and its legacy
# rmcp 2.x original (a standalone crate, so its own target dir).
cargo build --locked -p deploy-after
cargo build --locked --manifest-path examples/deploy/before/Cargo.toml \
    --target-dir "${CARGO_TARGET_DIR:-target}/deploy-before"
cargo test --workspace --locked
# No fix adds an unused import, variable or `mut`: the fixed fixtures' warnings against their
# originals' (only the fix-compile crate is rebuilt, with the crate's allow lifted).
cargo rustc --locked -p fix-compile --lib --profile check --message-format json --quiet \
    -- --cfg fix_warnings > "${CARGO_TARGET_DIR:-target}/fix-warnings.json"
python3 scripts/fix-warnings.py "${CARGO_TARGET_DIR:-target}/fix-warnings.json"
# A server that speaks JSON-RPC itself gets the runtime without its rmcp feature (the fix writes
# `default-features = false` there): the SDK-neutral forms must build that way.
cargo clippy --locked -p mrtr --no-default-features -- -D warnings
# The upgrade assistant's fixtures compile on their own rmcp (0.8, 0.14, 1.7, 2.2): checked, not built, in one
# target dir so their common dependencies are checked once. (Their fixed forms build against rmcp
# 3.x in tests/fix_compile, with the workspace.)
for f in tests/upgrade_fixtures/*/Cargo.toml; do
  CARGO_TARGET_DIR=target/upgrade-fixtures cargo check --locked --quiet --manifest-path "$f"
done
# The crates as published: packaged with cargo's verification build, the linter installed from
# its .crate (a debug build) and run on the example.
bash scripts/package-install.sh
# The official MCP conformance suite against examples/conformance-server (installs what it needs).
bash scripts/conformance.sh
