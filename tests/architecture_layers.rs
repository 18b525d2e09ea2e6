//! The layout of `src/` is the pipeline, and imports point down it: a module may name its own
//! stage and the stages below, never one above (see `docs/architecture.md`). This test reads every
//! source file, collects the `crate::` (and `super::`) paths it names, code and tests alike, and
//! fails on any that reaches up.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::str::FromStr;

use proc_macro2::{Delimiter, TokenStream, TokenTree};

/// The stages, lowest first, each with the top-level modules of `src/` that make it up. A module
/// may use its own stage and those listed before it. This is the one place the order is written.
const STAGES: &[(&str, &[&str])] = &[
    // What every stage may use: the report types, the rule catalog, atomic writes, phase timings,
    // and the supervisor's per-file journal.
    (
        "shared",
        &["finding", "catalog", "atomic_write", "timings", "supervise"],
    ),
    // Bytes to syntax; knows Rust, not MCP.
    ("reading", &["reading"]),
    // What code means for MCP: SDK tables, packages, prefilter, crate index, scope, call graph.
    ("model", &["model"]),
    // The rule API, the walk that drives it, and the rules.
    ("rules", &["rules"]),
    // Fix planning runs inside the engine run (`lint::FILE_PASSES`), so it sits below it.
    ("fix", &["fix"]),
    // The engine run: files in, findings with fixes out.
    ("engine run", &["lint"]),
    // Configuration, suppressions and the baseline, over the engine's report.
    ("gate", &["gate"]),
    // Output formats, over the gate's result.
    ("report", &["report"]),
    // What runs the pipeline: the `--fix` loop, the command line, the language server, `main`.
    (
        "drivers",
        &["fix_driver", "migrate", "cli", "server", "main"],
    ),
];

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("src/ is readable")
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The module path a file defines: `src/model/scope.rs` → `[model, scope]`, `mod.rs` is its
/// folder, `lib.rs` the root, `main.rs` the binary (`[main]`).
fn module_of(file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src_dir()).expect("a file under src/");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|c| c.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().expect("a file name");
    match last.as_str() {
        "mod.rs" => {}
        "lib.rs" if parts.is_empty() => {}
        name => parts.push(name.trim_end_matches(".rs").to_string()),
    }
    parts
}

/// One path a file names, resolved from the crate root, and the line it is on.
struct Reference {
    line: usize,
    path: Vec<String>,
}

/// The segments of a path that starts at token `i` (just after `crate::`, a `super::` chain, ...):
/// idents joined by `::`, stopping at the first other token. A `{..}` group fans out into one path
/// per entry.
fn path_tails(tokens: &[TokenTree], mut i: usize) -> Vec<Vec<String>> {
    let mut head = Vec::new();
    loop {
        match tokens.get(i) {
            Some(TokenTree::Ident(id)) => {
                head.push(id.to_string());
                i += 1;
            }
            Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace => {
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                let mut out = Vec::new();
                let mut start = 0;
                for (j, t) in inner.iter().enumerate() {
                    if matches!(t, TokenTree::Punct(p) if p.as_char() == ',')
                        || j + 1 == inner.len()
                    {
                        let end = if matches!(t, TokenTree::Punct(_)) {
                            j
                        } else {
                            j + 1
                        };
                        for tail in path_tails(&inner[start..end], 0) {
                            let mut p = head.clone();
                            p.extend(tail);
                            out.push(p);
                        }
                        start = j + 1;
                    }
                }
                return out;
            }
            _ => return vec![head],
        }
        if is_path_sep(tokens, i) {
            i += 2;
        } else {
            return vec![head];
        }
    }
}

fn is_path_sep(tokens: &[TokenTree], i: usize) -> bool {
    matches!(
        (tokens.get(i), tokens.get(i + 1)),
        (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
            if a.as_char() == ':' && b.as_char() == ':'
    )
}

/// Every `crate::..`, `super::..` (and, in the binary, `mcp_lint::..`) path in `tokens`, inline
/// `mod x { .. }` blocks included, resolved against `module`.
fn references(tokens: TokenStream, module: &[String], binary: bool, out: &mut Vec<Reference>) {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            TokenTree::Ident(id) if i < 2 || !is_path_sep(&tokens, i - 2) => {
                let word = id.to_string();
                let line = id.span().start().line;
                if word == "mod" {
                    if let (Some(TokenTree::Ident(name)), Some(TokenTree::Group(body))) =
                        (tokens.get(i + 1), tokens.get(i + 2))
                    {
                        let mut inner = module.to_vec();
                        inner.push(name.to_string());
                        references(body.stream(), &inner, binary, out);
                        i += 3;
                        continue;
                    }
                }
                let from_root = word == "crate" || (binary && word == "mcp_lint");
                if (from_root || word == "super") && is_path_sep(&tokens, i + 1) {
                    let mut path: Vec<String> = if from_root {
                        Vec::new()
                    } else {
                        module.to_vec()
                    };
                    let mut start = i + 3;
                    if !from_root {
                        // `super::super::x`: one level up per `super`.
                        path.pop();
                        while matches!(tokens.get(start), Some(TokenTree::Ident(s)) if s == "super")
                            && is_path_sep(&tokens, start + 1)
                        {
                            path.pop();
                            start += 3;
                        }
                    }
                    for tail in path_tails(&tokens, start) {
                        let mut full = path.clone();
                        // `use crate::gate::{self, ..}` names `gate` itself.
                        full.extend(tail.into_iter().filter(|s| s != "self"));
                        out.push(Reference { line, path: full });
                    }
                }
            }
            TokenTree::Group(g) => references(g.stream(), module, binary, out),
            _ => {}
        }
        i += 1;
    }
}

/// The root's re-exports (`pub use lint::{lint_source, ..}` in `lib.rs`): name → the top-level
/// module it comes from, so a path through the root counts as a path into that module.
fn root_reexports() -> BTreeMap<String, String> {
    let lib = std::fs::read_to_string(src_dir().join("lib.rs")).expect("lib.rs");
    let tokens: Vec<TokenTree> = TokenStream::from_str(&lib)
        .expect("lib.rs lexes")
        .into_iter()
        .collect();
    let mut out = BTreeMap::new();
    for (i, t) in tokens.iter().enumerate() {
        if matches!(t, TokenTree::Ident(u) if u == "use") {
            for path in path_tails(&tokens, i + 1) {
                if let [module, .., name] = path.as_slice() {
                    out.insert(name.clone(), module.clone());
                }
            }
        }
    }
    out
}

fn stage_of(top: &str) -> Option<usize> {
    STAGES
        .iter()
        .position(|(_, modules)| modules.contains(&top))
}

#[test]
fn imports_point_down_the_pipeline() {
    let reexports = root_reexports();
    let mut files = Vec::new();
    rust_files(&src_dir(), &mut files);
    let mut unplaced = BTreeSet::new();
    let mut upward = Vec::new();
    for file in &files {
        let module = module_of(file);
        let Some(top) = module.first() else {
            continue; // lib.rs: declares the stages and re-exports the library API.
        };
        let Some(own) = stage_of(top) else {
            unplaced.insert(top.clone());
            continue;
        };
        let text = std::fs::read_to_string(file).expect("a readable source file");
        let tokens = TokenStream::from_str(&text)
            .unwrap_or_else(|e| panic!("{} does not lex: {e:?}", file.display()));
        let mut refs = Vec::new();
        references(tokens, &module, top == "main", &mut refs);
        for r in refs {
            let Some(first) = r.path.first() else {
                continue;
            };
            let target = reexports.get(first).unwrap_or(first);
            let Some(theirs) = stage_of(target) else {
                unplaced.insert(target.clone());
                continue;
            };
            if theirs > own {
                upward.push(format!(
                    "src/{}:{}: {} names `crate::{}`, in {}",
                    file.strip_prefix(src_dir()).unwrap().display(),
                    r.line,
                    STAGES[own].0,
                    r.path.join("::"),
                    STAGES[theirs].0,
                ));
            }
        }
    }
    assert!(
        unplaced.is_empty(),
        "modules in no stage of STAGES (add each where it belongs): {unplaced:?}"
    );
    assert!(
        upward.is_empty(),
        "imports that point up the pipeline (move what they need down, or pass it in):\n{}",
        upward.join("\n")
    );
}

/// The scan itself: a path that reaches up in any of the forms above is found.
#[test]
fn the_scan_finds_every_form_of_path() {
    let text = "
        use crate::{a::b, c::{d, e}};
        use super::super::f;
        fn g() { crate::h::i(); let _ = matches!(x, crate::j::K); }
        mod tests { use super::*; use super::super::l; }
        pub(crate) fn m() {}
    ";
    let mut refs = Vec::new();
    let module = ["x".to_string(), "y".to_string()];
    references(
        TokenStream::from_str(text).unwrap(),
        &module,
        false,
        &mut refs,
    );
    let got: Vec<String> = refs.iter().map(|r| r.path.join("::")).collect();
    assert_eq!(
        got,
        ["a::b", "c::d", "c::e", "f", "h::i", "j::K", "x::y", "x::l"].map(String::from)
    );
}
