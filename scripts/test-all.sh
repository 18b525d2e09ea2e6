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
# The official MCP conformance suite against examples/conformance-server (installs what it needs).
bash scripts/conformance.sh
