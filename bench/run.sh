#!/usr/bin/env bash
# Benchmark cargo-mcp-lint against the floors and a declarative rule engine, on two corpora:
#   vendor    the project's own dependency tree, laid out with `cargo vendor` (over 1.8 M lines)
#   mcp-tree  a generated tree of rmcp 3.x server files that all contain trigger tokens (all parsed)
#   mcp-tree-1x  the same servers written on rmcp 1.x: every file also feeds the upgrade rules
# Tools, side by side in one hyperfine run per corpus:
#   mcp-lint      the release binary, default settings, JSON report to /dev/null
#   mcp-lint-1t   the same with RAYON_NUM_THREADS=1 (how much the parallelism buys)
#   rg            ripgrep with a regex of the same trigger names: the floor for reading the files
#   ast-grep      `ast-grep scan` with the legacy-call rules in bench/ast-grep/rules
#   syn-floor     `syn::parse_file` of every file on one thread: the floor for parsing everything
# then peak memory (`/usr/bin/time -v`) and a table of medians and ratios against the targets.
#
# On mcp-tree, whose target is a ratio to the syn floor, both also run in turn for --interleave N
# rounds (default 10; bench/interleave.py): the target is judged on those medians, which a slow
# stretch of a noisy machine skews less than hyperfine's back-to-back rounds.
#
# usage: bench/run.sh [--runs N] [--files N] [--interleave N] [--only vendor|mcp-tree|mcp-tree-1x]
# needs: hyperfine, rg (Debian packages `hyperfine ripgrep`), ast-grep (PyPI `ast-grep-cli`), python3.
# Run it on a quiet machine: the numbers are wall-clock times on all cores.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$ROOT/bench/out
RUNS=5
FILES=3000
INTERLEAVE=10
ONLY=""
while [ $# -gt 0 ]; do
    case $1 in
        --runs) RUNS=$2; shift 2 ;;
        --files) FILES=$2; shift 2 ;;
        --only) ONLY=$2; shift 2 ;;
        --interleave) INTERLEAVE=$2; shift 2 ;;
        -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
        *) echo "unknown argument: $1" >&2; exit 2 ;;
    esac
done

for tool in hyperfine rg ast-grep python3 /usr/bin/time; do
    command -v "$tool" >/dev/null || {
        echo "missing $tool: apt-get install -y hyperfine ripgrep time; pip install ast-grep-cli" >&2
        exit 2
    }
done
mkdir -p "$OUT"

echo "== build (release)"
(cd "$ROOT" && cargo build --release --locked --bin cargo-mcp-lint)
(cd "$ROOT/bench/syn-floor" && cargo build --release --locked)
# Copies: the target dir is shared, and a rebuild in the middle of a run must not change the binary.
mkdir -p "$OUT/bin"
cp "$ROOT/target/release/cargo-mcp-lint" "$ROOT/bench/syn-floor/target/release/syn-floor" "$OUT/bin/"
LINT=$OUT/bin/cargo-mcp-lint
FLOOR=$OUT/bin/syn-floor

echo "== corpora"
# The vendored tree follows Cargo.lock: re-vendor only when the lock file changed.
lock_sum=$(sha256sum "$ROOT/Cargo.lock" | cut -d' ' -f1)
if [ "$(cat "$OUT/vendor.stamp" 2>/dev/null)" != "$lock_sum" ]; then
    rm -rf "$OUT/vendor"
    (cd "$ROOT" && cargo vendor --locked --versioned-dirs "$OUT/vendor" >/dev/null)
    echo "$lock_sum" >"$OUT/vendor.stamp"
fi
gen_sum=$(cat "$ROOT/bench/gen_mcp_tree.py" | sha256sum | cut -d' ' -f1)-$FILES
for api in 3 1; do
    tree=mcp-tree
    [ $api = 1 ] && tree=mcp-tree-1x
    if [ "$(cat "$OUT/$tree.stamp" 2>/dev/null)" != "$gen_sum" ]; then
        python3 "$ROOT/bench/gen_mcp_tree.py" "$OUT/$tree" --files "$FILES" --api $api
        echo "$gen_sum" >"$OUT/$tree.stamp"
    fi
done

# The rg floor searches for the same trigger tokens the linter's prefilter uses: every `triggers`
# entry of the rule catalog (rules/*.toml). Plain alternation, no \b: a word-boundary regex sends
# rg down a much slower path and would make the floor look worse than it is.
TRIGGERS=$(python3 -c '
import glob, os, re, sys, tomllib
tokens = set()
for p in glob.glob(os.path.join(sys.argv[1], "*.toml")):
    with open(p, "rb") as f:
        tokens.update(tomllib.load(f).get("triggers", []))
# Only the regex metacharacters: re.escape also escapes spaces and hyphens, which rg rejects
# ("unrecognized escape sequence"), and an rg that fails at once made a 2 ms floor.
meta = set(r"\.+*?()|[]{}^$")
print("|".join("".join("\\" + c if c in meta else c for c in t) for t in sorted(tokens)))
' "$ROOT/rules")
echo "trigger regex: $TRIGGERS"

cd "$OUT"
corpora="vendor mcp-tree mcp-tree-1x"
[ -n "$ONLY" ] && corpora=$ONLY
for corpus in $corpora; do
    echo
    echo "== $corpus: $(find "$corpus" -name '*.rs' | wc -l) .rs files, $(find "$corpus" -name '*.rs' -print0 | xargs -0 cat | wc -l) lines; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
    "$FLOOR" "$corpus" | tee "$corpus.floor.txt"
    "$LINT" --format json "$corpus" >"$corpus.report.json" || true
    python3 -c "import json,sys; s=json.load(open(sys.argv[1]))['summary']; print('mcp-lint summary:', s)" "$corpus.report.json"
    hyperfine --style basic --warmup 1 --runs "$RUNS" --ignore-failure --export-json "$corpus.hyperfine.json" \
        -n mcp-lint "$LINT --format json $corpus" \
        -n mcp-lint-1t "RAYON_NUM_THREADS=1 $LINT --format json $corpus" \
        -n rg "rg -c -t rust '$TRIGGERS' $corpus" \
        -n ast-grep "ast-grep scan -c $ROOT/bench/ast-grep/sgconfig.yml --json=compact $corpus" \
        -n syn-floor "$FLOOR $corpus"
    if [ "$corpus" = mcp-tree ] && [ "$INTERLEAVE" -gt 0 ]; then
        python3 "$ROOT/bench/interleave.py" "$corpus.interleaved.json" "$INTERLEAVE" \
            "mcp-lint=$LINT --format json $corpus" "syn-floor=$FLOOR $corpus"
    else
        rm -f "$corpus.interleaved.json"
    fi
    for cmd in mcp-lint mcp-lint-1t; do
        threads=""
        [ $cmd = mcp-lint-1t ] && threads="env RAYON_NUM_THREADS=1"
        /usr/bin/time -v $threads "$LINT" --format json "$corpus" 2>"$corpus.$cmd.time.txt" >/dev/null || true
    done
done

python3 "$ROOT/bench/report.py" "$OUT" $corpora
