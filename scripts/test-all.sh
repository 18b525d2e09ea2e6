#!/usr/bin/env bash
# The whole test suite: the README's test command. .ci/run installs what this needs, then calls it.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --workspace --locked
# The official MCP conformance suite against examples/conformance-server (installs what it needs).
bash scripts/conformance.sh
