#!/usr/bin/env python3
"""Runs `cargo mcp-lint --fix --unsafe-fixes` on the legacy call sites of the dev corpus and
reports, per repository, the listed call sites found, fixed, and left (with the fix's reason).

Run by hand, not in CI:

    scripts/mrtr-corpus.py CORPUS_TSV MIRRORS [--lint PATH_TO_cargo-mcp-lint] [--keep DIR]

CORPUS_TSV is the corpus list (repo, commit, path, line, sdk, mcp_method, shape; tab-separated,
one header line). MIRRORS holds one bare git repository per corpus repository, at
`MIRRORS/<owner>+<name>/repo` (the layout of a local mirror); the script lays out each listed
package at its pinned commit with `git archive` (the package's directory, the workspace members
that depend on it, where the request handlers that reach a library's relay or helper live, and
the workspace root's `Cargo.toml` / `Cargo.lock`), so nothing is fetched and the servers' code
stays out of this repository. The fix runs once over those packages, as one
`cargo mcp-lint --fix --unsafe-fixes` at the workspace root would. A call site counts as fixed when `--fix --unsafe-fixes` rewrote its finding,
or when the run removed it (a fix that waits for another one lands in a later pass of the same
run), as left otherwise (the report says why: the display-only reason, or "no finding").
"""

import argparse
import collections
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import tomllib


def git(repo, *args):
    return subprocess.run(
        ["git", "--git-dir", repo, *args], check=True, capture_output=True
    ).stdout


def package_dir(repo, commit, path):
    """The directory of the nearest `Cargo.toml` above `path` at `commit`."""
    parts = path.split("/")[:-1]
    while True:
        candidate = "/".join(parts + ["Cargo.toml"])
        try:
            git(repo, "cat-file", "-e", f"{commit}:{candidate}")
            return "/".join(parts)
        except subprocess.CalledProcessError:
            if not parts:
                return None
            parts.pop()


def dependents(repo, commit, package):
    """The directories of the packages at `commit` whose `[dependencies]` name the package in
    `package` (a directory): a workspace's members that call into it."""
    try:
        name = tomllib.loads(git(repo, "show", f"{commit}:{package}/Cargo.toml").decode())[
            "package"]["name"]
    except (subprocess.CalledProcessError, KeyError, tomllib.TOMLDecodeError):
        return []
    found = []
    listing = git(repo, "ls-tree", "-r", "--name-only", commit).decode().splitlines()
    for manifest in listing:
        if not manifest.endswith("Cargo.toml") or manifest == f"{package}/Cargo.toml":
            continue
        try:
            doc = tomllib.loads(git(repo, "show", f"{commit}:{manifest}").decode())
        except (subprocess.CalledProcessError, tomllib.TOMLDecodeError, UnicodeDecodeError):
            continue
        deps = doc.get("dependencies", {})
        if "package" in doc and (name in deps or any(
                isinstance(d, dict) and d.get("package") == name for d in deps.values())):
            found.append(os.path.dirname(manifest))
    return found


def lay_out(repo, commit, paths, into):
    """Extracts `paths` (directories or files that exist at `commit`) under `into`."""
    existing = []
    for p in paths:
        try:
            git(repo, "cat-file", "-e", f"{commit}:{p}" if p else f"{commit}^{{tree}}")
            existing.append(p)
        except subprocess.CalledProcessError:
            pass
    data = git(repo, "archive", "--format=tar", commit, "--", *[p or "." for p in existing])
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(into, filter=safe_member)


def safe_member(member, dest):
    """The "data" filter's member, or None (skipped) for one it refuses: a link out of the tree
    (a repository's `.claude/skills` pointing at a home directory) is nothing the linter reads."""
    try:
        return tarfile.data_filter(member, dest)
    except tarfile.FilterError:
        return None


def run_lint(lint, cwd, args):
    return subprocess.run(
        [lint, *args], cwd=cwd, capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"}
    )


def findings(lint, root, package):
    out = run_lint(lint, os.path.join(root, package), ["--format", "json", "."])
    try:
        report = json.loads(out.stdout)
    except json.JSONDecodeError:
        sys.exit(f"mcp-lint gave no JSON report in {package}: {out.stderr}")
    return report["findings"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpus")
    ap.add_argument("mirrors")
    ap.add_argument("--lint", default=os.path.join(os.path.dirname(__file__), "../target/debug/cargo-mcp-lint"))
    ap.add_argument("--keep", help="lay the packages out here and keep them (default: a temp dir)")
    args = ap.parse_args()
    lint = os.path.abspath(args.lint)

    sites = collections.defaultdict(list)
    with open(args.corpus) as f:
        next(f)
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if len(cols) < 6:
                continue
            repo, commit, path, lineno, sdk, method = cols[:6]
            sites[(repo, commit)].append((path, int(lineno), method))

    base = args.keep or tempfile.mkdtemp(prefix="mrtr-corpus-")
    total = fixed_total = 0
    for (repo, commit), listed in sorted(sites.items()):
        mirror = os.path.join(args.mirrors, repo.replace("/", "+"), "repo")
        root = os.path.join(base, repo.replace("/", "+"))
        os.makedirs(root, exist_ok=True)
        packages = {}
        for path, _, _ in listed:
            pkg = package_dir(mirror, commit, path)
            if pkg is None:
                sys.exit(f"{repo}: no Cargo.toml above {path}")
            packages[path] = pkg
        listed_pkgs = sorted(set(packages.values()))
        users = sorted({d for pkg in listed_pkgs for d in dependents(mirror, commit, pkg)}
                       - set(listed_pkgs))
        lay_out(mirror, commit, listed_pkgs + users + ["Cargo.toml", "Cargo.lock"], root)

        before = {}
        for pkg in sorted(set(packages.values())):
            for f in findings(lint, root, pkg):
                rel = os.path.normpath(os.path.join(pkg, f["path"]))
                before[(rel, f["line"], f["code"])] = f
        run = run_lint(lint, root, ["--fix", "--unsafe-fixes", *(p or "." for p in listed_pkgs + users)])
        # What the run says it did at each site (`  path:line:col CODE message`): the pass across
        # files rewrites findings the JSON report shows without a fix of their own.
        said_by_run = {}
        for line in run.stderr.splitlines():
            m = re.match(r"^\s+(\S+):(\d+):\d+ (MCP\d+) (.*)$", line)
            if m:
                said_by_run.setdefault((os.path.normpath(m.group(1)), int(m.group(2))), m.group(4))
        if users:
            print(f"  (with the packages that depend on it: {', '.join(users)})")
        # A finding whose fix waited for another one (a helper's callers first) is rewritten in a
        # later pass of the same run: count, per file and rule, how many findings the run removed.
        removed = collections.Counter(k[0::2] for k in before)
        for pkg in sorted(set(packages.values())):
            for f in findings(lint, root, pkg):
                removed[(os.path.normpath(os.path.join(pkg, f["path"])), f["code"])] -= 1

        print(f"{repo} @ {commit[:12]}")
        found = fixed = 0
        for path, lineno, method in listed:
            total += 1
            hit = [f for (p, l, _), f in before.items() if p == path and l == lineno]
            if not hit:
                print(f"  left   {path}:{lineno} {method}: no finding at this line")
                continue
            found += 1
            fix = hit[0].get("fix") or {}
            key = (path, hit[0]["code"])
            if fix.get("applicability") in ("safe", "unsafe") or removed[key] > 0:
                removed[key] -= 1
                fixed += 1
                said = fix["message"] if fix.get("applicability") in ("safe", "unsafe") else (
                    said_by_run.get((path, lineno))
                    or f"rewritten in a later pass of the run (first: {fix.get('message')})"
                )
                print(f"  fixed  {path}:{lineno} {method}: {said}")
            else:
                why = fix.get("message") or f"no fix for {hit[0]['code']} ({hit[0]['name']})"
                print(f"  left   {path}:{lineno} {method}: {why}")
        fixed_total += fixed
        print(f"  found {found}/{len(listed)}, fixed {fixed}, left {len(listed) - fixed}")
    share = 100 * fixed_total / total if total else 0
    print(f"all: {fixed_total}/{total} listed call sites get an applicable fix ({share:.0f}%)")
    print(f"laid out under {base}")


if __name__ == "__main__":
    main()
