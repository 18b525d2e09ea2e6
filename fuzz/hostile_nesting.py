#!/usr/bin/env python3
"""Hostile nesting: every shape that recurses in syn's parser or in the linter's walks, at a chosen
depth, as one file per shape, each next to an ordinary file with a legacy call (which must still be
linted). A shape is (prefix, unit, middle, closer, suffix): prefix + unit*N + middle + closer*N +
suffix. The same table is in tests/nesting_shapes.rs; keep them in step.

usage: fuzz/hostile_nesting.py OUT_DIR [N] [SHAPE...]   (N defaults to 100000)
then:  for d in OUT_DIR/*/; do (cd $d && cargo-mcp-lint --format json .); done
"""
import os
import sys

SHAPES = {
    # types
    "generic-args": ("type T = ", "A<u8, ", "u8", ">", ";"),
    "generic-nested": ("type T = ", "Vec<", "u8", ">", ";"),
    "generic-shifts": ("type T = ", "A<A<", "u8", ">>", ";"),
    "turbofish": ("fn f() { g::<", "A<", "u8", ">", ">(); }"),
    "qualified-path": ("type T = ", "<", "u8", " as A>::B", ";"),
    "fn-pointer": ("type T = ", "fn(u8, u8) -> ", "u8", "", ";"),
    "impl-fn": ("fn f() -> ", "impl Fn(u8) -> ", "u8", "", " { loop {} }"),
    "dyn-fn": ("type T = Box<", "dyn Fn(u8) -> ", "u8", "", ">;"),
    "ref-type": ("type T = ", "&", "u8", "", ";"),
    "ptr-type": ("type T = ", "*const ", "u8", "", ";"),
    "slice-type": ("type T = ", "[", "u8", "]", ";"),
    "tuple-type": ("type T = ", "(", "u8", ",)", ";"),
    # prefix expressions
    "break": ("fn f() { loop { ", "break ", "", "", "} }"),
    "return": ("fn f() { ", "return ", "", "", "}"),
    "yield": ("fn f() { ", "yield ", "1", "", "; }"),
    "ref-expr": ("fn f() { let x = ", "& ", "1", "", "; }"),
    "refref-expr": ("fn f() { let x = ", "&&", "1", "", "; }"),
    "ref-mut-expr": ("fn f() { let x = ", "&mut ", "1", "", "; }"),
    "deref": ("fn f() { let x = ", "*", "a", "", "; }"),
    "neg": ("fn f() { let x = ", "- ", "1", "", "; }"),
    "not": ("fn f() { let x = ", "!", "a", "", "; }"),
    "closure": ("fn f() { let c = ", "|| ", "1", "", "; }"),
    "closure-params": ("fn f() { let c = ", "|a, b| ", "1", "", "; }"),
    "move-closure": ("fn f() { let c = ", "move |x| ", "1", "", "; }"),
    "range": ("fn f() { let r = ", ".. ", "", "", "; }"),
    "attr-expr": ("fn f() { let x = ", "#[a] ", "1", "", "; }"),
    # binary and postfix chains (deep trees, built in a loop by syn, walked by recursion)
    "assign": ("fn f() { ", "a = ", "1", "", "; }"),
    "add": ("fn f() { let x = ", "1 + ", "1", "", "; }"),
    "add-blocks": ("fn f() { let x = ", "{ 1 } + ", "1", "", "; }"),
    "add-tuples": ("fn f() { let x = ", "(1, 1).0 + ", "1", "", "; }"),
    "let-chain": ("fn f() { if ", "let x = 1 && ", "true", "", " {} }"),
    "cast": ("fn f() { let x = 1", "", "", " as u8", "; }"),
    "try": ("fn f() { let x = a", "", "", "?", "; }"),
    "await": ("async fn f() { let x = a", "", "", ".await", "; }"),
    "method": ("fn f() { let x = a", "", "", ".f()", "; }"),
    "field": ("fn f() { let x = a", "", "", ".b", "; }"),
    "call": ("fn f() { let x = a", "", "", "()", "; }"),
    "index": ("fn f() { let x = a", "", "", "[0]", "; }"),
    "paren-args": ("fn f() { let x = ", "f(1, ", "1", ")", "; }"),
    "else-if": ("fn f(a: bool) -> u8 { ", "if a { 1 } else ", "{ 2 }", "", " }"),
    # patterns
    "ref-pattern": ("fn f() { let ", "&", "x", "", " = 1; }"),
    "binding-pattern": ("fn f() { match 1 { ", "x @ ", "1", "", " => {} } }"),
    "tuple-pattern": ("fn f() { let ", "(", "x", ",)", " = 1; }"),
    "or-pattern": ("fn f() { match 1 { 1", "", "", " | 1", " => {} } }"),
    # brackets
    "parens": ("fn f() { let x = ", "(", "1", ")", "; }"),
    "blocks": ("fn f() ", "{", "", "}", ""),
    "macro-body": ("fn f() { m!", "(", "1", ")", "; }"),
    "attr-args": ("#[a", "(", "b", ")", "] fn f() {}"),
}

TRIGGER = "fn t(ctx: RequestContext<RoleServer>) { ctx.peer.list_roots(); }\n"


def text(shape, n):
    """The shape at depth n, in a file that holds a legacy call (so the prefilter admits it) inside
    the fn the shape is in (so its body is parsed, not blanked)."""
    prefix, unit, middle, closer, suffix = SHAPES[shape]
    prefix = prefix.replace("fn f() {", "fn f() { ctx.peer.list_roots();", 1)
    prefix = prefix.replace("u8 { ", "u8 { ctx.peer.list_roots(); ", 1)
    return TRIGGER + prefix + unit * n + middle + closer * n + suffix + "\n"


def main():
    out = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    names = sys.argv[3:] or list(SHAPES)
    for name in names:
        src = os.path.join(out, name, "src")
        os.makedirs(src, exist_ok=True)
        with open(os.path.join(src, "deep.rs"), "w") as f:
            f.write(text(name, n))
        with open(os.path.join(src, "ok.rs"), "w") as f:
            f.write(TRIGGER)


if __name__ == "__main__":
    main()
