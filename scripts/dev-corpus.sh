#!/usr/bin/env bash
# Runs the linter on the dev corpus (../shared/dev-corpus.tsv: public servers at pinned commits and
# their legacy call sites) and prints, per repository, the sites listed / found / missed and the
# legacy-request findings on lines the list does not name (false alarms, or sites it lacks).
# By hand, not in CI. Lay the trees out first (bare mirrors from the `fetch` tool):
#   MIRRORS=/work/.mirror OUT=/tmp/dev-corpus bash ../shared/scripts/lay-out-dev-corpus.sh
# then: scripts/dev-corpus.sh [TREES_DIR (default /tmp/dev-corpus)] [BINARY (default release)]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
trees=${1:-/tmp/dev-corpus}
bin=${2:-$root/target/release/cargo-mcp-lint}
# The project's folder sits beside `shared/` (from a worktree: the main checkout's folder).
main=$(cd "$(git -C "$root" rev-parse --git-common-dir)/.." && pwd)
tsv=${TSV:-$main/../shared/dev-corpus.tsv}
[ -x "$bin" ] || { echo "no binary at $bin: cargo build --release" >&2; exit 2; }
python3 - "$tsv" "$trees" "$bin" <<'PY'
import csv, json, os, subprocess, sys
tsv, trees, binary = sys.argv[1:4]
listed = {}
with open(tsv) as f:
    for row in csv.DictReader(f, delimiter="\t"):
        key = row["repo"].replace("/", "+") + "@" + row["commit"][:8]
        listed.setdefault(key, set()).add((row["path"], int(row["line"])))
legacy = {"MCP001", "MCP002", "MCP003", "MCP004", "MCP006"}
total = [0, 0, 0, 0]
print(f"{'repo':45} listed found missed unlisted")
for key in sorted(listed):
    tree = os.path.join(trees, key)
    if not os.path.isdir(tree):
        print(f"{key:45} (no tree)")
        continue
    out = subprocess.run([binary, "mcp-lint", "--format", "json", "."], cwd=tree,
                         capture_output=True, text=True)
    report = json.loads(out.stdout)
    got = {(f["path"], f["line"]) for f in report["findings"] if f["code"] in legacy}
    want = listed[key]
    found, missed, extra = want & got, sorted(want - got), sorted(got - want)
    row = [len(want), len(found), len(missed), len(extra)]
    total = [a + b for a, b in zip(total, row)]
    print(f"{key:45} {row[0]:6} {row[1]:5} {row[2]:6} {row[3]:8}")
    for p, l in missed:
        print(f"    missed   {p}:{l}")
    for p, l in extra:
        print(f"    unlisted {p}:{l}")
print(f"{'total':45} {total[0]:6} {total[1]:5} {total[2]:6} {total[3]:8}")
PY
