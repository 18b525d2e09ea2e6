#!/usr/bin/env python3
"""Prints `src/model/sdk/rmcp_structs.rs`, the generated half of the rmcp upgrade table, from rmcp's
own sources at every minor release since 0.8 (and the newest one):

- STRUCTS: model structs that are `#[non_exhaustive]` on the newest release, the release that made
  each so and its pull request, whether the newest gives it `Default`, its public fields there,
  and the parameters of its `new(..)` where each sets the field of its name;
- ENUMS: enums that became `#[non_exhaustive]`, with their variants on the newest release (a
  `match` that names them all needs a `_` arm);
- GONE: public items (structs, enums, traits, type aliases, fns, macros) that a release took away,
  the release and pull request, and the name a deprecated alias pointed to before (a rename);
- FEATURES_GONE: Cargo features of rmcp that a release dropped;
- MODEL_ALIASES: the newest release's plain type aliases of those structs (`pub type ServerInfo =
  InitializeResult;`): a literal under the alias is a literal of the struct.

The upgrade rules read these tables (MCP201-205 and `--upgrade-rmcp`); the hand-written rows of
`rmcp_upgrade.rs` say more where they know more (a fix, a note), and take precedence.

Where the sources come from:
- a git checkout or bare mirror of rmcp's repository with its `rmcp-v*` tags (`--git DIR`), for
  every release it has; the pull requests are read from its history (`git log` between tags);
- the cargo registry (`--registry DIR`, default `~/.cargo/registry/src/*`), for a release whose
  crate was fetched once (`rmcp-X.Y.Z`), e.g. the newest one, a dependency of tests/fix_compile.

usage: scripts/rmcp-struct-table.py [--git DIR] [--registry DIR] > src/model/sdk/rmcp_structs.rs
       cargo fmt
"""

import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile

# Every minor release since 0.8, and the newest (the upgrade's target). A release missing from
# both sources stops the script: the table must not silently skip one.
RELEASES = [
    "0.8.0", "0.9.0", "0.10.0", "0.11.0", "0.12.0", "0.13.0", "0.14.0", "0.15.0", "0.16.0",
    "0.17.0", "1.0.0", "1.1.0", "1.2.0", "1.3.0", "1.4.0", "1.5.0", "1.6.0", "1.7.0", "1.8.0",
    "2.0.0", "2.1.0", "2.2.0", "3.0.0", "3.1.4", "3.11.0",
]
# Pull requests rmcp's CHANGELOG names for a release's sweeping change, used when the history
# between two tags is not at hand (the registry's newest release) or names no single commit.
KNOWN_PR = {"1.0.0": 715, "2.0.0": 927, "3.0.0": 1066}
ITEM = re.compile(r"^[ \t]*pub (struct|enum|trait|type|fn|async fn|const fn|unsafe fn) (\w+)", re.M)
MACRO = re.compile(r"#\[macro_export\]\s*macro_rules!\s*(\w+)")
PLAIN_ALIAS = re.compile(r"^[ \t]*pub type (\w+)\s*=\s*([\w:]+)\s*;", re.M)
ALIAS = re.compile(r"#\[deprecated[^\]]*\]\s*(?:#\[[^\]]*\]\s*)*pub type (\w+)\s*(?:<[^>]*>)?\s*=\s*([\w:]+)")


def sources(root):
    for path in glob.glob(os.path.join(root, "src", "**", "*.rs"), recursive=True):
        yield path, open(path, encoding="utf-8").read()


def bodies(text, keyword):
    """(attributes, name, body) of each `pub KEYWORD Name { .. }` with at least one attribute."""
    pat = r"((?:#\[[^\]]*\]\s*)+)pub " + keyword + r" (\w+)\s*(?:<[^>{]*>)?\s*(?:where[^{]*)?\{"
    for m in re.finditer(pat, text):
        depth, i = 1, m.end()
        while depth and i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        yield m.group(1), m.group(2), text[m.end(): i - 1]


def constructor(text, name, fields):
    """The parameters of `Name::new(..)` when each is named like a field (the constructor sets that
    field from it and leaves the others empty, as rmcp's do): (names, the names taking `impl Into`).
    None without such a constructor: a literal then has no constructor form to become."""
    # A generic struct's constructor stands in a generic impl (`impl<R: ServiceRole>
    # RequestContext<R>`); its parameters are read the same way.
    m = re.search(r"impl(?:<[^>{]*>)?\s+" + name + r"(?:<[^>{]*>)?\s*\{\s*(?:#\[[^\]]*\]\s*|///[^\n]*\n\s*)*pub (?:const )?fn new\(([^)]*)\)\s*->\s*Self", text)
    if not m:
        return None
    names, into = [], []
    for param in filter(None, (p.strip() for p in m.group(1).split(","))):
        pm = re.match(r"(?:mut )?(?:r#)?(\w+)\s*:\s*(.*)", param)
        if not pm or pm.group(1) not in fields:
            return None
        names.append(pm.group(1))
        if pm.group(2).startswith("impl Into<"):
            into.append(pm.group(1))
    return names, into


def read_release(root):
    structs, enums, items, words, aliases, plain = {}, {}, set(), set(), {}, {}
    for _, text in sources(root):
        for attrs, name, body in bodies(text, "struct"):
            fields = re.findall(r"^\s*pub (?:r#)?(\w+)\s*:", body, re.M)
            default = bool(re.search(r"derive\([^)]*\bDefault\b", attrs)) or bool(
                re.search(r"impl(?:<[^>]*>)? Default for " + name + r"\b", text))
            structs[name] = ("non_exhaustive" in attrs, default, fields, constructor(text, name, fields))
        for attrs, name, body in bodies(text, "enum"):
            # rustfmt puts a variant at the body's first indentation level.
            variants = re.findall(r"^    (?:r#)?([A-Z]\w*)\b", body, re.M)
            enums[name] = ("non_exhaustive" in attrs, variants)
        items.update(m.group(2) for m in ITEM.finditer(text))
        items.update(MACRO.findall(text))
        words.update(re.findall(r"\b\w+\b", text))
        for old, new in ALIAS.findall(text):
            aliases[old] = new.split("::")[-1]
        for alias, of in PLAIN_ALIAS.findall(text):
            plain[alias] = of.split("::")[-1]
    features = set()
    manifest = os.path.join(root, "Cargo.toml")
    in_features = False
    for line in open(manifest, encoding="utf-8"):
        if line.startswith("["):
            in_features = line.strip() == "[features]"
            continue
        m = re.match(r"^([\w-]+)\s*=", line)
        if in_features and m:
            features.add(m.group(1))
    return {"structs": structs, "enums": enums, "items": items, "words": words,
            "aliases": aliases, "plain": plain, "features": features}


def unpack(git, version, into):
    """The crate's folder at tag rmcp-vVERSION, from the git mirror."""
    tag = f"rmcp-v{version}"
    if subprocess.run(["git", "--git-dir", git, "rev-parse", "-q", "--verify", tag],
                      capture_output=True).returncode:
        return None
    out = os.path.join(into, version)
    os.makedirs(out)
    archive = subprocess.run(["git", "--git-dir", git, "archive", tag, "crates/rmcp"],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", out], input=archive, check=True)
    return os.path.join(out, "crates", "rmcp")


def pr_between(git, older, newer, needle):
    """The pull request (`(#N)` in a commit's subject) between two tags whose diff adds or removes
    `needle`; the oldest such commit. None without the history."""
    if git is None:
        return None
    tags = [f"rmcp-v{older}", f"rmcp-v{newer}"]
    for t in tags:
        if subprocess.run(["git", "--git-dir", git, "rev-parse", "-q", "--verify", t],
                          capture_output=True).returncode:
            return None
    log = subprocess.run(["git", "--git-dir", git, "log", "--reverse", "--format=%s",
                          "-G", needle, f"{tags[0]}..{tags[1]}", "--", "crates/rmcp"],
                         capture_output=True, text=True).stdout
    for subject in log.splitlines():
        m = re.search(r"\(#(\d+)\)", subject)
        if m and "release" not in subject.lower():
            return int(m.group(1))
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--git")
    ap.add_argument("--registry")
    args = ap.parse_args()
    # The registry's folder that holds rmcp's releases (there may be one per index).
    found = glob.glob(os.path.expanduser("~/.cargo/registry/src/*/rmcp-3.11.0"))
    registry = args.registry or (os.path.dirname(found[0]) if found else "")
    tmp = tempfile.mkdtemp(prefix="rmcp-releases-")
    releases = []
    for version in RELEASES:
        root = os.path.join(registry, f"rmcp-{version}")
        if not os.path.isdir(root):
            root = unpack(args.git, version, tmp) if args.git else None
        if root is None:
            sys.exit(f"rmcp {version}: neither in the registry ({registry}) nor a tag of --git")
        releases.append((version, read_release(root)))

    def pr_for(i, needle):
        older, newer = releases[i - 1][0], releases[i][0]
        return pr_between(args.git, older, newer, needle) or KNOWN_PR.get(newer) or 0

    was = renames()
    latest = releases[-1][1]
    print("// @generated by scripts/rmcp-struct-table.py from rmcp's sources at each release since")
    print("// 0.8; do not edit by hand.")
    print("use super::rmcp_upgrade::{EnumRow, FeatureGone, GoneRow, StructRow};")
    print("use crate::model::manifest::Version;")
    print()

    def became(kind, name):
        """The index of the release that made `name` (or the name it had) non-exhaustive."""
        since = None
        for i in range(1, len(releases)):
            here, before = releases[i][1][kind], releases[i - 1][1][kind]
            now = name if name in here else was.get(name, name)
            then = name if name in before else was.get(name, name)
            if here.get(now, (False,))[0] and then in before and not before[then][0]:
                since = i
        return since

    def version_of(i):
        a, b, _ = releases[i][0].split(".")
        return f"Version({a}, {b}, 0)"

    print("pub static STRUCTS: &[StructRow] = &[")
    rows = set()
    for name in sorted(latest["structs"]):
        ne, default, fields, ctor = latest["structs"][name]
        i = became("structs", name)
        if not ne or i is None:
            continue
        rows.add(name)
        quoted = ", ".join(f'"{f}"' for f in fields)
        new = "None" if ctor is None else "Some(&[" + ", ".join(f'"{a}"' for a in ctor[0]) + "])"
        into = "" if ctor is None else ", ".join(f'"{a}"' for a in ctor[1])
        print(f"    StructRow {{ name: \"{name}\", since: {version_of(i)}, pr: {pr_for(i, 'non_exhaustive')}, "
              f"default: {str(default).lower()}, fields: &[{quoted}], new: {new}, new_into: &[{into}] }},")
    print("];")
    print()
    print("pub static ENUMS: &[EnumRow] = &[")
    for name in sorted(latest["enums"]):
        ne, variants = latest["enums"][name]
        i = became("enums", name)
        # An enum with no public variants (a future's state) is never matched outside rmcp.
        if not ne or i is None or not variants:
            continue
        quoted = ", ".join(f'"{v}"' for v in variants)
        print(f"    EnumRow {{ name: \"{name}\", since: {version_of(i)}, pr: {pr_for(i, 'non_exhaustive')}, "
              f"variants: &[{quoted}] }},")
    print("];")
    print()
    # A public item is gone at a release when its name no longer occurs anywhere in the crate's
    # sources (moved, re-exported or generated by a macro, it still does), and stays gone.
    print("pub static GONE: &[GoneRow] = &[")
    gone = {}
    for i in range(1, len(releases)):
        before, here = releases[i - 1][1], releases[i][1]
        for name in sorted(before["items"] - here["words"]):
            if name in gone or name.startswith("_") or len(name) < 4:
                continue
            if any(name in r[1]["words"] for r in releases[i:]):
                continue
            alias = before["aliases"].get(name)
            gone[name] = (i, alias)
    for name in sorted(gone):
        i, alias = gone[name]
        pr = pr_for(i, rf"\b{name}\b")
        new = f'Some("{alias}")' if alias and alias in latest["words"] else "None"
        print(f"    GoneRow {{ name: \"{name}\", since: {version_of(i)}, pr: {pr}, renamed_to: {new} }},")
    print("];")
    print()
    print("pub static MODEL_ALIASES: &[(&str, &str)] = &[")
    for alias in sorted(latest["plain"]):
        if latest["plain"][alias] in rows:
            print(f'    ("{alias}", "{latest["plain"][alias]}"),')
    print("];")
    print()
    print("pub static FEATURES_GONE: &[FeatureGone] = &[")
    seen = set()
    for i in range(1, len(releases)):
        for f in sorted(releases[i - 1][1]["features"] - releases[i][1]["features"]):
            if f in seen or any(f in r[1]["features"] for r in releases[i:]):
                continue
            seen.add(f)
            print(f"    FeatureGone {{ name: \"{f}\", since: {version_of(i)}, pr: {pr_for(i, re.escape(f))} }},")
    print("];")


def renames():
    """The renames of the hand-written upgrade table (`item(V2, 927, "RawResource", "Resource", ..)`):
    new name -> old. A struct the newest release names anew (`Resource`, which 1.x had as an alias
    of `Annotated<RawResource>`) is compared with the struct it was before, so a literal of the old
    one, renamed by MCP201, is still known to be non-exhaustive."""
    here = os.path.dirname(os.path.abspath(__file__))
    text = open(os.path.join(here, "..", "src", "model", "sdk", "rmcp_upgrade.rs"), encoding="utf-8").read()
    return {new: old for old, new in re.findall(r'item\(\s*V\w+,\s*\d+,\s*"(\w+)",\s*"(\w+)"', text)}


if __name__ == "__main__":
    main()
