#!/usr/bin/env python3
"""Per repository, the call sites `scripts/mrtr-corpus.py` reports, by tier: compiled (the fix
puts the ask under `#[mrtr_handler]` / `#[mrtr_helper]`), deferred (`mrtr::rmcp::deferred::*`, or
`mrtr::jsonrpc::Question` in a server that speaks JSON-RPC itself, at the call site), left (with the first words of why). By hand, not in CI:

    scripts/mrtr-corpus.py ../shared/dev-corpus.tsv MIRRORS --lint BIN > OUT
    scripts/mrtr-corpus-tiers.py OUT
"""
import re
import sys

# The runtime's deferred forms: the fix rewrites the call site and the request scope replays it.
DEFERRED_FORMS = ("mrtr::rmcp::deferred::", "mrtr::jsonrpc::Question")
rows = {}
order = []
repo = None
for line in open(sys.argv[1]):
    m = re.match(r"^(\S+/\S+) @ [0-9a-f]+$", line.rstrip())
    if m:
        repo = m.group(1)
        order.append(repo)
        rows[repo] = {"compiled": 0, "deferred": 0, "left": []}
        continue
    m = re.match(r"^  (fixed|left)\s+(\S+) (\S+): (.*)$", line.rstrip())
    if not m or repo is None:
        continue
    kind, site, _method, why = m.groups()
    if kind == "left":
        rows[repo]["left"].append(f"{site}: {why[:70]}")
    elif any(form in why.split(";")[0] for form in DEFERRED_FORMS):
        rows[repo]["deferred"] += 1
    else:
        rows[repo]["compiled"] += 1
total = {"compiled": 0, "deferred": 0, "left": 0}
print("| repo | sites | compiled | deferred | left (why) |")
print("|---|---|---|---|---|")
for r in order:
    x = rows[r]
    n = x["compiled"] + x["deferred"] + len(x["left"])
    total["compiled"] += x["compiled"]
    total["deferred"] += x["deferred"]
    total["left"] += len(x["left"])
    left = "; ".join(x["left"]) if x["left"] else ""
    print(f"| {r} | {n} | {x['compiled']} | {x['deferred']} | {len(x['left'])} {left} |")
n = sum(total.values())
print(f"| **all** | **{n}** | **{total['compiled']}** | **{total['deferred']}** | **{total['left']}** |")
