//! `--format rustc-json` read the way rust-analyzer reads `cargo check` output: with
//! `cargo_metadata`'s message parser (the crate rust-analyzer uses), checking the fields it
//! takes: `reason`, `message.code`, `message.spans[]` (`file_name`, `line_start`,
//! `column_start`, ...) and the fixes in `children[].spans[].suggested_replacement` with their
//! `suggestion_applicability`. Applying the suggestions as an editor would must give what
//! `--fix` gives.

use std::path::Path;
use std::process::Command;

use cargo_metadata::diagnostic::{Applicability, DiagnosticLevel};
use cargo_metadata::Message;

fn fixture_copy() -> tempfile::TempDir {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/editor-legacy");
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    for f in ["Cargo.toml", "src/main.rs"] {
        std::fs::copy(from.join(f), dir.path().join(f)).unwrap();
    }
    dir
}

fn run(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-mcp-lint"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

/// Applies `(start, end, replacement)` byte splices (non-overlapping) to `text`.
fn splice(text: &str, mut edits: Vec<(usize, usize, String)>) -> String {
    edits.sort();
    edits.dedup();
    let mut out = String::new();
    let mut at = 0;
    for (s, e, r) in edits {
        out.push_str(&text[at..s]);
        out.push_str(&r);
        at = e;
    }
    out.push_str(&text[at..]);
    out
}

#[test]
fn compiler_messages_carry_codes_spans_and_fixes() {
    let dir = fixture_copy();
    let text = std::fs::read_to_string(dir.path().join("src/main.rs")).unwrap();
    let out = run(dir.path(), &["--format", "rustc-json"]);
    assert_eq!(out.status.code(), Some(1), "error-level findings");
    let stdout = String::from_utf8(out.stdout).unwrap();
    // One JSON object per line, each with a `reason`.
    for line in stdout.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert!(v["reason"].is_string(), "{line}");
    }
    let messages: Vec<Message> = Message::parse_stream(stdout.as_bytes())
        .collect::<Result<_, _>>()
        .unwrap();
    assert!(
        matches!(messages.last(), Some(Message::BuildFinished(b)) if !b.success),
        "{messages:?}"
    );
    let diags: Vec<_> = messages
        .iter()
        .filter_map(|m| match m {
            Message::CompilerMessage(c) => Some(c),
            _ => None,
        })
        .collect();
    assert_eq!(diags.len(), 2, "{stdout}");
    let line_of = |needle: &str| text.lines().position(|l| l.contains(needle)).unwrap() + 1;

    let ask = diags
        .iter()
        .find(|c| c.message.code.as_ref().unwrap().code == "MCP001")
        .unwrap();
    assert_eq!(ask.target.name, "editor_legacy");
    assert!(
        ask.package_id.repr.ends_with("#editor-legacy"),
        "{}",
        ask.package_id.repr
    );
    assert_eq!(ask.message.level, DiagnosticLevel::Error);
    let span = &ask.message.spans[0];
    assert_eq!(span.file_name, "src/main.rs");
    assert!(span.is_primary);
    assert_eq!(span.line_start, line_of(".elicit::<Confirm>"));
    assert_eq!(span.column_start, 14);
    assert_eq!(
        &text[span.byte_start as usize..span.byte_end as usize],
        "elicit"
    );
    assert_eq!(
        span.text[0].text,
        "            .elicit::<Confirm>(\"Really delete the cache?\")"
    );
    assert_eq!(span.text[0].highlight_start, 14);
    let rendered = ask.message.rendered.as_deref().unwrap();
    assert!(
        rendered.starts_with("error[MCP001]: `elicit` sends"),
        "{rendered}"
    );
    assert!(rendered.contains(" --> src/main.rs:41:14\n"), "{rendered}");

    let stale = diags
        .iter()
        .find(|c| c.message.code.as_ref().unwrap().code == "MCP901")
        .unwrap();
    assert_eq!(stale.message.level, DiagnosticLevel::Warning);

    // The fixes: one help child each, its spans the edits.
    let suggestions = |c: &cargo_metadata::CompilerMessage| {
        let mut v = Vec::new();
        for child in &c.message.children {
            for s in &child.spans {
                if let Some(r) = &s.suggested_replacement {
                    v.push((
                        s.suggestion_applicability.clone().unwrap(),
                        (s.byte_start as usize, s.byte_end as usize, r.clone()),
                        child.message.clone(),
                    ));
                    assert_eq!(s.file_name, "src/main.rs");
                }
            }
        }
        v
    };
    let safe = suggestions(stale);
    assert_eq!(safe.len(), 1);
    assert_eq!(safe[0].0, Applicability::MachineApplicable);
    assert!(safe[0]
        .2
        .starts_with("fix (safe): remove the unused suppression"));
    let unsafe_ = suggestions(ask);
    assert!(unsafe_.len() > 1, "the migration edits the whole handler");
    assert!(unsafe_.iter().all(|s| s.0 == Applicability::MaybeIncorrect));
    assert!(unsafe_[0]
        .2
        .starts_with("fix (unsafe: changes behaviour): "));

    // Applied as an editor applies them: what `--fix` (then `--unsafe-fixes`) writes.
    let safe_text = splice(&text, safe.iter().map(|s| s.1.clone()).collect());
    let all_text = splice(
        &text,
        safe.iter().chain(&unsafe_).map(|s| s.1.clone()).collect(),
    );
    let fixed = fixture_copy();
    assert_eq!(
        run(fixed.path(), &["--fix", "--format", "concise"])
            .status
            .code(),
        Some(1)
    );
    assert_eq!(
        std::fs::read_to_string(fixed.path().join("src/main.rs")).unwrap(),
        safe_text
    );
    let fixed = fixture_copy();
    let done = run(
        fixed.path(),
        &["--fix", "--unsafe-fixes", "--format", "concise"],
    );
    assert_eq!(done.status.code(), Some(0));
    // `--fix` then removes the imports the fixes made unused, which no one finding's edits do
    // (applied one at a time, an import may still be needed).
    let pruned = mcp_lint::fix::unused_imports::prune(&text, &all_text, "2021");
    assert!(
        pruned.is_some(),
        "the migrated handler no longer names RoleServer"
    );
    assert_eq!(
        std::fs::read_to_string(fixed.path().join("src/main.rs")).unwrap(),
        pruned.unwrap()
    );
}

#[test]
fn a_clean_run_is_one_successful_build_finished() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("lib.rs"), "pub fn f() {}\n").unwrap();
    let out = run(dir.path(), &["--format", "rustc-json", "lib.rs"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "{\"reason\":\"build-finished\",\"success\":true}\n"
    );
}
