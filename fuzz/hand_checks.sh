#!/usr/bin/env bash
# Hostile inputs the fuzzer cannot make: each must give a finding or an error line, never a
# crash (signal, panic, exit status other than 0/1/2) or a hang (the timeout below).
#   nested-parens / nested-blocks   100k levels of ( and { : recursion depth
#   huge-line / huge-line-dense     a 50 MB line with a few legacy calls; a 4 MB line of them
#   return-chain / else-if-chain    recursion without brackets
#   every shape of hostile_nesting.py  generics, fn pointer chains, closures, patterns, ... at 100k
#   invalid-utf8                    a .rs file with bytes that are not UTF-8, next to trigger tokens
#   unreadable                      chmod 000 (only meaningful when not root: root reads anything)
#   vanishing                       files deleted while the linter runs
#   fifo, dev-zero                  a FIFO and a symlink to /dev/zero named *.rs in the tree
# and: the same report, byte for byte, with RAYON_NUM_THREADS=1 and =8 on the given tree.
#
# usage: [LINT=BINARY] [LIMIT=SECONDS] fuzz/hand_checks.sh [TREE...]   (determinism trees; default bench/out/vendor and
#        bench/out/mcp-tree, which bench/run.sh lays out: the second has ~10k findings)
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
TREES=("$@")
[ ${#TREES[@]} -eq 0 ] && TREES=("$ROOT/bench/out/vendor" "$ROOT/bench/out/mcp-tree")
LIMIT=${LIMIT:-60}
# LINT=BINARY runs the checks on that binary (a debug build on a busy machine: raise LIMIT);
# otherwise the release build, made first (in CARGO_TARGET_DIR when that is set).
if [ -z "${LINT:-}" ]; then
    LINT=${CARGO_TARGET_DIR:-$ROOT/target}/release/cargo-mcp-lint
    (cd "$ROOT" && cargo build --release --locked --bin cargo-mcp-lint) || exit 2
fi
WORK=$(mktemp -d)
trap 'chmod -R u+rwx "$WORK"; rm -rf "$WORK"' EXIT
failures=0

# run NAME DIR: lint DIR, classify the outcome, keep the first lines of output for the report.
run() {
    local name=$1 dir=$2 start end status
    start=$(date +%s.%N)
    (cd "$dir" && timeout -k 5 "$LIMIT" /usr/bin/time -f '%M' -o "$WORK/$name.rss" \
        ${RUNAS:-} "$LINT" --format json . >"$WORK/$name.out" 2>"$WORK/$name.err")
    status=$?
    end=$(date +%s.%N)
    local verdict=ok
    if [ $status -eq 124 ] || [ $status -eq 137 ]; then verdict="HANG (killed after ${LIMIT}s)"
    elif [ $status -gt 2 ]; then verdict="CRASH (exit $status)"
    elif grep -q "panicked" "$WORK/$name.err"; then verdict="PANIC"
    elif ! python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if r["findings"] or r["errors"] else 1)' "$WORK/$name.out" 2>/dev/null
    then verdict="NO FINDING AND NO ERROR LINE"
    fi
    [ "$verdict" = ok ] || failures=$((failures + 1))
    printf '%-15s %-32s exit=%s %6.2fs rss=%sKB\n' "$name" "$verdict" "$status" "$(echo "$end - $start" | bc)" "$(tail -1 "$WORK/$name.rss" 2>/dev/null)"
    python3 - "$WORK/$name.out" <<'EOF' 2>/dev/null || head -c 300 "$WORK/$name.err"
import json, sys
r = json.load(open(sys.argv[1]))
for e in r["errors"][:2]:
    print("    error:  ", e["path"], "-", e["message"][:140])
for f in r["findings"][:2]:
    print("    finding:", f["code"], f["path"], f["line"], "-", f["message"][:120])
EOF
}

case_dir() { mkdir -p "$WORK/$1/src" && echo "$WORK/$1"; }
trigger='fn t(ctx: RequestContext<RoleServer>) { ctx.peer.list_roots(); }'

d=$(case_dir nested-parens)
python3 -c "import sys; sys.stdout.write('fn f() { let x = ' + '('*100000 + '1' + ')'*100000 + '; }\n$trigger\n')" >"$d/src/lib.rs"
run nested-parens "$d"

d=$(case_dir nested-blocks)
python3 -c "import sys; sys.stdout.write('fn f() ' + '{'*100000 + '}'*100000 + '\n$trigger\n')" >"$d/src/lib.rs"
run nested-blocks "$d"

d=$(case_dir nested-unclosed)
python3 -c "import sys; sys.stdout.write('$trigger\nfn f() { ' + '[('*60000 + '\n')" >"$d/src/lib.rs"
run nested-unclosed "$d"

# A 50 MB line of ordinary (minified-looking) code with a legacy call every ~1 MB: line length.
d=$(case_dir huge-line)
python3 -c "
import sys
filler = 'let v = [1, 2, 3].iter().map(|x| x * 2).sum::<i32>(); '
call = 'ctx.peer.create_message(p); '
chunk = filler * (1024 * 1024 // len(filler)) + call
sys.stdout.write('async fn t(ctx: RequestContext<RoleServer>) { ' + chunk * 50 + '}')" >"$d/src/lib.rs"
run huge-line "$d"

# A 4 MB line that is nothing but legacy calls (150k findings on one line): finding count.
d=$(case_dir huge-line-dense)
python3 -c "
import sys
call = 'ctx.peer.create_message(p); '
sys.stdout.write('async fn t(ctx: RequestContext<RoleServer>) { ' + call * (4 * 1024 * 1024 // len(call)) + '}')" >"$d/src/lib.rs"
run huge-line-dense "$d"

# Prefix-keyword and else-if chains: recursion without brackets.
d=$(case_dir return-chain)
python3 -c "import sys; sys.stdout.write('$trigger\nfn f() -> u8 { ' + 'return ' * 300000 + '1 }\n')" >"$d/src/lib.rs"
run return-chain "$d"

d=$(case_dir else-if-chain)
python3 -c "import sys; sys.stdout.write('$trigger\nfn f(a: bool) -> u8 { ' + 'if a { 1 } else ' * 200000 + '{ 2 } }\n')" >"$d/src/lib.rs"
run else-if-chain "$d"

# Every shape of fuzz/hostile_nesting.py at 100k levels: generics, fn pointer and impl Fn
# chains, prefix keywords, unary, closures, ranges, patterns, postfix chains.
python3 "$ROOT/fuzz/hostile_nesting.py" "$WORK/shapes" 100000
for d in "$WORK"/shapes/*/; do
    run "$(basename "$d")" "$d"
done

d=$(case_dir invalid-utf8)
{ printf '%s\n// caf\xe9 \xff\xfe\n' "$trigger"; } >"$d/src/lib.rs"
printf '%s\n' "$trigger" >"$d/src/ok.rs"
run invalid-utf8 "$d"

d=$(case_dir unreadable)
printf '%s\n' "$trigger" >"$d/src/locked.rs"
printf '%s\n' "$trigger" >"$d/src/ok.rs"
chmod 000 "$d/src/locked.rs"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
    # Root reads anything: run this case as nobody, with a copy of the binary nobody can reach.
    chmod 755 "$WORK" "$d" "$d/src"
    cp "$LINT" "$WORK/lint" && chmod 755 "$WORK/lint"
    LINT_SAVED=$LINT LINT=$WORK/lint RUNAS="setpriv --reuid=65534 --regid=65534 --clear-groups"
    run unreadable "$d"
    LINT=$LINT_SAVED RUNAS=""
else
    run unreadable "$d"
fi

d=$(case_dir fifo)
mkfifo "$d/src/pipe.rs"
printf '%s\n' "$trigger" >"$d/src/ok.rs"
run fifo "$d"

d=$(case_dir dev-zero)
ln -s /dev/zero "$d/src/zero.rs"
printf '%s\n' "$trigger" >"$d/src/ok.rs"
run dev-zero "$d"

# Vanishing files: many trigger files, a background loop deletes and re-creates them (and flips
# their mode) while the linter walks and reads. Every run must end with a report.
d=$(case_dir vanishing)
for i in $(seq 1 2000); do printf '%s\n' "$trigger" >"$d/src/f$i.rs"; done
(for _ in $(seq 1 200); do
    for i in $(seq 1 2000 | shuf -n 200 --random-source=<(yes)); do
        rm -f "$d/src/f$i.rs"; printf '%s\n' "$trigger" >"$d/src/f$i.rs"; chmod 000 "$d/src/f$i.rs"
    done
done) &
churn=$!
for n in 1 2 3; do run "vanishing-$n" "$d"; done
kill "$churn" 2>/dev/null; wait "$churn" 2>/dev/null

echo
for TREE in "${TREES[@]}"; do
    echo "== determinism on $TREE: RAYON_NUM_THREADS=1 vs 8, JSON and SARIF"
    if [ ! -d "$TREE" ]; then
        echo "skipped: $TREE does not exist (run bench/run.sh first)"
        continue
    fi
    for fmt in json sarif; do
        (cd "$TREE" && RAYON_NUM_THREADS=1 "$LINT" --format $fmt . >"$WORK/t1.$fmt" 2>/dev/null)
        (cd "$TREE" && RAYON_NUM_THREADS=8 "$LINT" --format $fmt . >"$WORK/t8.$fmt" 2>/dev/null)
        if cmp -s "$WORK/t1.$fmt" "$WORK/t8.$fmt"; then
            echo "$fmt identical ($(wc -c <"$WORK/t1.$fmt") bytes)"
        else
            echo "$fmt DIFFERENT:"
            diff <(python3 -m json.tool "$WORK/t1.$fmt") <(python3 -m json.tool "$WORK/t8.$fmt") | head -20
            failures=$((failures + 1))
        fi
    done
done
echo
echo "$failures failure(s)"
[ $failures -eq 0 ]
