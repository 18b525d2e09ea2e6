#!/usr/bin/env bash
# What the CI gate costs on top of the engine: one corpus of N copies of tools.rs (three legacy
# rmcp calls each) in a package that depends on rmcp, timed with hyperfine in these modes:
#   json            the engine plus config and suppression handling (no identities computed)
#   sarif           plus finding identities (a second, items-only parse of each file with findings)
#   baseline        every finding hidden by a baseline (identities plus the baseline match)
#   suppressed      every finding suppressed by comments (suppression parse of each file)
# usage: tests/gate_fixtures/bench.sh [--files N] [--runs N]     needs: hyperfine
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FILES=1500
RUNS=5
while [ $# -gt 0 ]; do
    case $1 in
        --files) FILES=$2; shift 2 ;;
        --runs) RUNS=$2; shift 2 ;;
        *) echo "unknown argument: $1" >&2; exit 2 ;;
    esac
done
command -v hyperfine >/dev/null || { echo "missing hyperfine (apt-get install -y hyperfine)" >&2; exit 2; }
cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml" --bin cargo-mcp-lint
BIN=$ROOT/target/release/cargo-mcp-lint
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
for corpus in plain suppressed; do
    mkdir -p "$WORK/$corpus/src"
    printf '[package]\nname = "gate-bench"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\nrmcp = "3"\n' \
        > "$WORK/$corpus/Cargo.toml"
done
for i in $(seq 1 "$FILES"); do
    cp "$ROOT/tests/gate_fixtures/tools.rs" "$WORK/plain/src/t$i.rs"
done
(cd "$WORK/plain" && "$BIN" --baseline baseline.json --update-baseline src 2>/dev/null)
cp -r "$WORK/plain/src/." "$WORK/suppressed/src/"
(cd "$WORK/suppressed" && "$BIN" --add-suppressions "bench" src 2>/dev/null)
cd "$WORK/plain"
hyperfine --warmup 1 --runs "$RUNS" -i -N \
    -n json "$BIN --format json src" \
    -n sarif "$BIN --format sarif src" \
    -n baseline "$BIN --format json --baseline baseline.json src" \
    -n suppressed "$BIN --format json $WORK/suppressed/src"
