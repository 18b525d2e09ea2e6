#!/usr/bin/env bash
# The whole test suite: the README's test command. .ci/run installs what this needs, then calls it.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --workspace --locked
