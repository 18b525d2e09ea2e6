#!/usr/bin/env python3
"""Build the fuzz seed corpus from the linter's own test material: every `.rs` file under
tests/fixtures, tests/gate_fixtures and examples/, every example (`code`, `fixed`) of the rule
catalog (rules/*.toml), and a few generated benchmark servers. Files are named by content hash,
as libFuzzer names its own, so re-seeding adds nothing twice.

usage: fuzz/seed.py [OUT_DIR]   (default fuzz/seeds; `cargo fuzz cmin` then keeps what adds coverage)
"""

import glob
import hashlib
import os
import subprocess
import sys
import tempfile
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def examples(value):
    """Every string under a catalog table's example arrays ([[fire]], [[quiet]], ...)."""
    if isinstance(value, dict):
        for k, v in value.items():
            if k in ("code", "fixed") and isinstance(v, str):
                yield v
            else:
                yield from examples(v)
    elif isinstance(value, list):
        for v in value:
            yield from examples(v)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "fuzz", "seeds")
    os.makedirs(out, exist_ok=True)
    texts = []
    for pattern in ("tests/fixtures/**/*.rs", "tests/gate_fixtures/**/*.rs", "examples/**/*.rs"):
        for p in sorted(glob.glob(os.path.join(ROOT, pattern), recursive=True)):
            texts.append(open(p, "rb").read())
    for p in sorted(glob.glob(os.path.join(ROOT, "rules", "*.toml"))):
        with open(p, "rb") as f:
            table = tomllib.load(f)
        texts.extend(t.encode() for t in examples({k: v for k, v in table.items() if isinstance(v, list)}))
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, os.path.join(ROOT, "bench", "gen_mcp_tree.py"), tmp, "--files", "12"], check=True)
        for p in sorted(glob.glob(os.path.join(tmp, "**", "*.rs"), recursive=True)):
            texts.append(open(p, "rb").read())
    for t in texts:
        with open(os.path.join(out, hashlib.sha1(t).hexdigest()), "wb") as f:
            f.write(t)
    print(f"{len(texts)} seeds in {out}")


if __name__ == "__main__":
    main()
