//! The rewrite on every Rust file of the repository's lint fixtures and examples, and on every
//! example of the rule catalog (servers of every shape, legacy and migrated): whatever fixes it offers apply, keep the file parsable,
//! converge (a second run offers nothing more), and leave the file alone when there is nothing
//! to fix.

use std::path::{Path, PathBuf};

use mcp_lint::finding::Applicability;
use mcp_lint::fix::Allowed;
use mcp_lint::fix_driver::fix_source;
use mcp_lint::Settings;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn fixes_on_every_fixture_apply_parse_and_converge() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in [
        "tests/fixtures",
        "tests/fix_fixtures/src",
        "examples/deploy/before/src",
        "examples/deploy/after/src",
    ] {
        rust_files(&root.join(dir), &mut files);
    }
    assert!(files.len() > 20, "{}", files.len());
    let settings = Settings::default();
    let all = Allowed { unsafe_fixes: true };
    let (mut changed, mut fixed) = (0, 0);
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let name = f
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace("tests/", "t/");
        let r = fix_source(&name, &text, &settings, all);
        assert!(
            r.error.is_none() || syn::parse_file(&text).is_err(),
            "{name}: {:?}",
            r.error
        );
        assert!(!r.unfinished, "{name}: passes ran out");
        if r.text == text {
            assert!(
                r.fixed.is_empty(),
                "{name}: fixes counted but nothing changed"
            );
            continue;
        }
        changed += 1;
        fixed += r.fixed.len();
        syn::parse_file(&r.text)
            .unwrap_or_else(|e| panic!("{name}: the fixed text does not parse: {e}"));
        let again = fix_source(&name, &r.text, &settings, all);
        assert_eq!(
            again.text, r.text,
            "{name}: a second run changed the file again"
        );
        assert!(
            again
                .remaining
                .iter()
                .all(|f| f.fix.as_ref().is_none_or(|x| x.applicability
                    == Applicability::DisplayOnly
                    || x.edits.is_empty())),
            "{name}: fixes still offered after converging"
        );
    }
    // The catalog's examples, firing and quiet, as their own files.
    for rule in &mcp_lint::catalog::catalog().rules {
        for (k, ex) in rule.fire.iter().chain(&rule.quiet).enumerate() {
            let name = format!("src/{}_{k}.rs", rule.code);
            let r = fix_source(&name, &ex.code, &settings, all);
            assert!(
                r.error.is_none() || syn::parse_file(&ex.code).is_err(),
                "{name}: {:?}",
                r.error
            );
            if r.text != ex.code {
                syn::parse_file(&r.text)
                    .unwrap_or_else(|e| panic!("{name}: does not parse after the fix: {e}"));
                let again = fix_source(&name, &r.text, &settings, all);
                assert_eq!(again.text, r.text, "{name}: a second run changed it again");
                changed += 1;
                fixed += r.fixed.len();
            }
        }
    }
    // The fixtures hold rewritable shapes (tool router, hand-written handlers, the deploy example).
    assert!(changed >= 5, "{changed} files changed");
    assert!(fixed >= 15, "{fixed} fixes applied");
}

#[test]
fn a_crlf_file_keeps_its_line_ends() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lf = std::fs::read_to_string(root.join("tests/fix_fixtures/src/tool_elicit.rs")).unwrap();
    let crlf = lf.replace('\n', "\r\n");
    let settings = Settings::default();
    let all = Allowed { unsafe_fixes: true };
    let from_lf = fix_source("src/tool_elicit.rs", &lf, &settings, all);
    let from_crlf = fix_source("src/tool_elicit.rs", &crlf, &settings, all);
    assert_eq!(from_crlf.fixed.len(), from_lf.fixed.len());
    assert!(from_lf.text != lf);
    assert_eq!(from_crlf.text, from_lf.text.replace('\n', "\r\n"));
}

#[test]
fn the_engine_attaches_the_fixes_file_pass_gives() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("tests/fix_fixtures/src/handwritten.rs")).unwrap();
    let settings = Settings::default();
    // The engine's run: fixes come from `lint::FILE_PASSES`, on the tree it parsed.
    let engine = mcp_lint::lint_source("src/handwritten.rs", text.as_bytes(), &settings).findings;
    assert!(engine.iter().filter(|f| f.fix.is_some()).count() >= 4);
    let bare: Vec<_> = engine
        .iter()
        .cloned()
        .map(|mut f| {
            f.fix = None;
            f
        })
        .collect();
    let file = syn::parse_file(&text).unwrap();
    let mut passed = bare;
    mcp_lint::fix::file_pass(
        &mcp_lint::reading::source::LineIndex::new(&text),
        &file,
        &mut passed,
        mcp_lint::fix::Tiers::default(),
    );
    assert_eq!(passed, engine);
}
