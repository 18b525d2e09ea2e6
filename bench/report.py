#!/usr/bin/env python3
"""Print bench/run.sh's results: a table of medians per corpus and the ratios against the targets.

usage: report.py OUT_DIR CORPUS...   (reads CORPUS.hyperfine.json, CORPUS.floor.txt,
                                      CORPUS.mcp-lint*.time.txt, CORPUS.report.json, and
                                      CORPUS.interleaved.json when run.sh wrote one)
"""

import json
import os
import re
import sys

TOOLS = ["mcp-lint", "mcp-lint-1t", "rg", "ast-grep", "syn-floor"]


def load(out, corpus):
    with open(os.path.join(out, f"{corpus}.hyperfine.json")) as f:
        results = {r["command"]: r for r in json.load(f)["results"]}
    with open(os.path.join(out, f"{corpus}.floor.txt")) as f:
        floor = dict(kv.split("=", 1) for kv in f.read().split())
    rss = {}
    for cmd in ("mcp-lint", "mcp-lint-1t"):
        path = os.path.join(out, f"{corpus}.{cmd}.time.txt")
        if os.path.exists(path):
            m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", open(path).read())
            if m:
                rss[cmd] = int(m.group(1)) / 1024
    summary = {}
    path = os.path.join(out, f"{corpus}.report.json")
    if os.path.exists(path):
        try:
            report = json.load(open(path))
            summary = dict(report.get("summary", {}))
            summary["errors"] = len(report.get("errors", []))
        except (ValueError, OSError):
            pass
    return results, floor, rss, summary


def verdict(ok):
    return "PASS" if ok else "MISS"


def main():
    out, corpora = sys.argv[1], sys.argv[2:]
    failures = 0
    for corpus in corpora:
        results, floor, rss, summary = load(out, corpus)
        mb = int(floor["bytes"]) / 1e6
        print(f"\n### {corpus}: {floor['files']} files, {mb:.1f} MB, {int(floor['lines']):,} lines"
              f" (syn-floor parse alone: {float(floor['parse_ms']):.0f} ms, {floor['parse_mb_per_s']} MB/s)")
        if summary:
            print(f"mcp-lint: files_seen={summary.get('files_seen')} files_parsed={summary.get('files_parsed')}"
                  f" findings={summary.get('findings')} errors={summary.get('errors')}")
        print(f"\n| tool | median | min | max | MB/s | CPU (user+sys, mean) | peak RSS |")
        print("|---|---|---|---|---|---|---|")
        med = {}
        for tool in TOOLS:
            r = results.get(tool)
            if not r:
                continue
            med[tool] = r["median"]
            mem = f"{rss[tool]:.0f} MB" if tool in rss else ""
            cpu = (r["user"] + r["system"]) * 1e3
            print(f"| {tool} | {r['median'] * 1e3:.0f} ms | {r['min'] * 1e3:.0f} ms | {r['max'] * 1e3:.0f} ms"
                  f" | {mb / r['median']:.1f} | {cpu:.0f} ms | {mem} |")
        lint = med["mcp-lint"]
        print()
        print(f"- mcp-lint / rg        = {lint / med['rg']:.2f}x the time of the read floor")
        print(f"- ast-grep / mcp-lint  = {med['ast-grep'] / lint:.1f}x faster than ast-grep")
        print(f"- syn-floor / mcp-lint = {med['syn-floor'] / lint:.2f}x the single-thread parse throughput")
        print(f"- mcp-lint-1t / mcp-lint = {med['mcp-lint-1t'] / lint:.2f}x from parallelism")
        cpu = {t: results[t]["user"] + results[t]["system"] for t in results}
        print(f"- CPU time: mcp-lint {cpu['mcp-lint']:.2f} s, syn-floor {cpu['syn-floor']:.2f} s"
              f" ({cpu['mcp-lint'] / cpu['syn-floor']:.2f}x the floor's work), rg {cpu['rg']:.2f} s")
        checks = []
        if corpus == "vendor":
            checks.append(("within 3x of rg", lint <= 3 * med["rg"]))
            checks.append(("at least 25x faster than ast-grep", med["ast-grep"] >= 25 * lint))
        elif corpus == "mcp-tree":
            ratio = med["syn-floor"] / lint
            judged = "hyperfine medians"
            path = os.path.join(out, f"{corpus}.interleaved.json")
            if os.path.exists(path):
                turns = json.load(open(path))
                floor_t, lint_t = turns["syn-floor"]["median"], turns["mcp-lint"]["median"]
                ratio = floor_t / lint_t
                judged = f"medians of {len(turns['mcp-lint']['times'])} rounds in turn"
                print(f"- in turn: syn-floor {floor_t * 1e3:.0f} ms, mcp-lint {lint_t * 1e3:.0f} ms"
                      f" = {ratio:.2f}x the single-thread parse throughput")
            checks.append((f"at least 1.6x the single-thread syn parse throughput ({judged})",
                           ratio >= 1.6))
        checks.append(("peak memory under 200 MB", max(rss.values(), default=1e9) < 200))
        for name, ok in checks:
            failures += not ok
            print(f"- target {name}: {verdict(ok)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
