//! `--fix`, `--unsafe-fixes` and `--diff` as a user runs them, and the fix loop's guarantees on
//! purpose-built cases: nothing is written by `--diff`, permissions survive, a pass that would
//! break the syntax leaves the file as it was, the passes are bounded, the JSON report carries
//! the edits.

use std::path::Path;
use std::process::{Command, Output};

use mcp_lint::finding::{Applicability, Edit, Finding, Fix, Level};
use mcp_lint::fix::Allowed;
use mcp_lint::fix_driver::{fix_text, MAX_PASSES};

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-mcp-lint"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("binary runs")
}

const MANIFEST: &str = "[package]\nname = \"p\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n\
[dependencies]\nrmcp = { version = \"3.11\", features = [\"server\", \"elicitation\"] }\n";

/// One `#[tool]` whose elicitation the rewrite takes, and a stale suppression (MCP901, safe fix).
const SERVER: &str = r#"use rmcp::model::*;
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, ErrorData, RoleServer};

// mcp-lint: allow(MCP003) -- nothing asks for roots here any more
pub struct S;

#[tool_router]
impl S {
    /// Asks for a name.
    #[tool(description = "Greets")]
    async fn greet(&self, ctx: RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let name = ctx.peer.elicit::<Name>("Your name?").await; // the old way
        let text = match name {
            Ok(Some(n)) => n.name,
            _ => "stranger".to_string(),
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
    }
}
"#;

fn package(server: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("Cargo.toml"), MANIFEST).unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/lib.rs"), server).unwrap();
    dir
}

fn lib(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("src/lib.rs")).unwrap()
}

#[test]
fn diff_prints_what_fix_would_write_and_writes_nothing() {
    let dir = package(SERVER);
    let out = run(dir.path(), &["--diff", "--unsafe-fixes", "src"]);
    assert_eq!(out.status.code(), Some(1), "something to change: exit 1");
    assert_eq!(lib(dir.path()), SERVER, "--diff wrote the file");
    let diff = String::from_utf8(out.stdout).unwrap();
    assert!(
        diff.starts_with("--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ "),
        "{diff}"
    );
    assert!(
        diff.contains("\n-// mcp-lint: allow(MCP003) -- nothing asks for roots here any more\n"),
        "{diff}"
    );
    assert!(
        diff.contains(
            "\n+        let name = mrtr.elicit::<Name>(\"Your name?\").await?; // the old way\n"
        ),
        "{diff}"
    );
    assert!(
        diff.contains("\n+            Elicitation::Accept(n) => n.name,\n"),
        "{diff}"
    );
    // The manifest's diff follows: the crate now uses the runtime.
    let (diff, manifest_diff) = diff
        .split_once("--- a/Cargo.toml\n+++ b/Cargo.toml\n")
        .expect("a diff of Cargo.toml after the source's");
    assert!(
        manifest_diff.ends_with("+mrtr = \"0.1\"\n"),
        "{manifest_diff}"
    );
    // The same changes, written: every `+` line of the diff is a line of the fixed file.
    let fixed_dir = package(SERVER);
    run(fixed_dir.path(), &["--fix", "--unsafe-fixes", "src"]);
    let fixed = lib(fixed_dir.path());
    for added in diff
        .lines()
        .filter(|l| l.starts_with('+') && !l.starts_with("+++"))
    {
        assert!(
            fixed.lines().any(|l| l == &added[1..]),
            "{added:?} not in\n{fixed}"
        );
    }
}

#[test]
fn fix_applies_the_safe_fix_only_and_keeps_comments_and_permissions() {
    let dir = package(SERVER);
    let file = dir.path().join("src/lib.rs");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).unwrap();
    }
    let out = run(dir.path(), &["--fix", "src"]);
    let text = lib(dir.path());
    assert_eq!(
        text,
        SERVER.replace(
            "// mcp-lint: allow(MCP003) -- nothing asks for roots here any more\n",
            ""
        ),
        "only the unused suppression goes; the unsafe rewrite waits for --unsafe-fixes"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("src/lib.rs: fixed 1 finding"), "{err}");
    assert!(
        err.contains("remaining: 1 with an unsafe fix (add --unsafe-fixes)"),
        "{err}"
    );
    // The remaining finding is reported as usual, and decides the exit status.
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("MCP001"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
    }
    let leftovers: Vec<_> = std::fs::read_dir(dir.path().join("src")).unwrap().collect();
    assert_eq!(leftovers.len(), 1, "no temporary file left behind");

    let out = run(dir.path(), &["--fix", "--unsafe-fixes", "src"]);
    let text = lib(dir.path());
    assert!(text.contains("    #[tool(description = \"Greets\")]\n    #[mrtr_handler]\n    async fn greet(&self, mrtr: Mrtr)"), "{text}");
    assert!(
        text.contains("/// Asks for a name.\n"),
        "doc comment kept: {text}"
    );
    assert!(
        text.contains("; // the old way\n"),
        "trailing comment kept: {text}"
    );
    assert!(
        text.contains("use mrtr::{mrtr_handler, Elicitation, Mrtr};\n"),
        "{text}"
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_json_report_carries_the_edits() {
    let dir = package(SERVER);
    let out = run(dir.path(), &["--format", "json", "src"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let f = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "MCP001")
        .expect("MCP001");
    assert_eq!(f["fix"]["applicability"], "unsafe");
    let edits: Vec<Edit> = serde_json::from_value(f["fix"]["edits"].clone()).unwrap();
    assert!(edits.len() >= 4, "{edits:?}");
    // The edits are splices on the file's bytes, in order and apart; line/column agree.
    let mut text = String::new();
    let mut at = 0;
    for e in &edits {
        assert!(e.start >= at && e.end >= e.start, "{edits:?}");
        let before = &SERVER[..e.start];
        assert_eq!(e.line, before.matches('\n').count() + 1);
        text.push_str(&SERVER[at..e.start]);
        text.push_str(&e.replacement);
        at = e.end;
    }
    text.push_str(&SERVER[at..]);
    assert!(syn::parse_file(&text).is_ok());
    assert!(
        text.contains("let name = mrtr.elicit::<Name>(\"Your name?\").await?;"),
        "{text}"
    );
}

#[test]
fn a_file_that_does_not_parse_is_left_alone_and_reported() {
    let broken = SERVER.replace("pub struct S;", "pub struct S");
    let dir = package(&broken);
    let out = run(dir.path(), &["--fix", "--unsafe-fixes", "src"]);
    // Even the stale-looking suppression stays: with no parse, no finding is known.
    assert_eq!(lib(dir.path()), broken);
    assert_eq!(out.status.code(), Some(1), "the MCP900 finding decides");
    assert!(String::from_utf8_lossy(&out.stdout).contains("MCP900"));
    let diff = run(dir.path(), &["--diff", "--unsafe-fixes", "src"]);
    assert_eq!(diff.status.code(), Some(0));
    assert!(diff.stdout.is_empty());
}

fn finding(line: usize, fix: Option<Fix>) -> Finding {
    Finding {
        code: "MCP001".into(),
        name: "legacy-elicitation-request".into(),
        level: Level::Error,
        path: "src/lib.rs".into(),
        line,
        column: 1,
        end_line: line,
        end_column: 2,
        message: "m".into(),
        mcp_method: None,
        sdk: None,
        help: None,
        fix,
    }
}

fn splice(start: usize, end: usize, text: &str) -> Fix {
    Fix {
        applicability: Applicability::Unsafe,
        message: "test fix".into(),
        edits: vec![Edit {
            start,
            end,
            line: 1,
            column: start + 1,
            end_line: 1,
            end_column: end + 1,
            replacement: text.into(),
        }],
        other_files: Vec::new(),
    }
}

#[test]
fn a_pass_that_would_break_the_syntax_keeps_the_original_text() {
    let src = "fn a() {}\nfn b() {}\n";
    // The first pass is fine, the second would delete a brace.
    let mut passes = 0;
    let mut relint = |text: &str| {
        passes += 1;
        let at = text.find('}').unwrap();
        vec![finding(1, Some(splice(at, at + 1, "")))]
    };
    let first = vec![finding(1, Some(splice(3, 4, "x")))];
    let r = fix_text(
        "src/lib.rs",
        src,
        first,
        Allowed { unsafe_fixes: true },
        &mut relint,
        false,
    );
    assert_eq!(passes, 1);
    assert_eq!(r.text, src, "nothing of the earlier pass survives either");
    assert!(r.fixed.is_empty());
    let e = r.error.expect("the failure is reported");
    assert!(e.contains("pass 2 would leave the file unparsable"), "{e}");
}

#[test]
fn a_text_that_does_not_parse_gets_no_fix_at_all() {
    let src = "fn a() {\n";
    let mut relint = |_: &str| -> Vec<Finding> { panic!("nothing to lint again") };
    let first = vec![finding(1, Some(splice(0, 2, "fn")))];
    let r = fix_text(
        "src/lib.rs",
        src,
        first,
        Allowed { unsafe_fixes: true },
        &mut relint,
        false,
    );
    assert_eq!(r.text, src);
    assert_eq!(r.passes, 0);
    let e = r.error.expect("reported");
    assert!(e.starts_with("the file does not parse (1:8: "), "{e}");
}

#[test]
fn the_passes_are_bounded() {
    let src = "fn a() {}\n";
    // A fix that always yields another fix: the loop stops and says so.
    let mut relint = |text: &str| vec![finding(1, Some(splice(text.len(), text.len(), "//\n")))];
    let first = relint(src);
    let r = fix_text(
        "src/lib.rs",
        src,
        first,
        Allowed { unsafe_fixes: true },
        &mut relint,
        false,
    );
    assert!(r.unfinished);
    assert_eq!(r.passes, MAX_PASSES);
    assert_eq!(r.text.matches("//\n").count(), MAX_PASSES);
    assert!(r.error.is_none());
}

#[test]
fn display_only_and_unadmitted_fixes_are_never_applied() {
    let src = "fn a() {}\n";
    let mut shown = splice(0, 2, "");
    shown.applicability = Applicability::DisplayOnly;
    let unsafe_fix = splice(3, 4, "b");
    let first = vec![finding(1, Some(shown)), finding(1, Some(unsafe_fix))];
    let mut relint = |_: &str| Vec::new();
    let r = fix_text(
        "src/lib.rs",
        src,
        first,
        Allowed {
            unsafe_fixes: false,
        },
        &mut relint,
        false,
    );
    assert_eq!(r.text, src);
    assert_eq!(r.passes, 0);
}

#[test]
fn findings_the_baseline_hides_are_not_fixed_in_any_pass() {
    let dir = package(SERVER);
    let made = run(
        dir.path(),
        &["--baseline", "b.json", "--update-baseline", "src"],
    );
    assert_eq!(
        made.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let out = run(
        dir.path(),
        &["--fix", "--unsafe-fixes", "--baseline", "b.json", "src"],
    );
    assert_eq!(
        lib(dir.path()),
        SERVER,
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(0));
    let clash = run(dir.path(), &["--fix", "--add-suppressions", "r", "src"]);
    assert_eq!(
        clash.status.code(),
        Some(2),
        "--fix and --add-suppressions conflict"
    );
}

/// A module written for another SDK the package no longer depends on (never compiled).
const OTHER_SDK: &str = r#"
#[cfg(any())]
mod old {
    use rust_mcp_sdk::McpServer;
    pub async fn ask(runtime: &dyn McpServer, p: ElicitRequestParams) {
        let _ = runtime.request_elicitation(p).await;
    }
}
"#;

#[test]
fn later_passes_lint_with_the_package_of_the_first() {
    // Without its manifest the file would get a rust-mcp-sdk finding; with it, that SDK is out.
    let dir = package(&format!("{SERVER}{OTHER_SDK}"));
    let plain = run(dir.path(), &["--format", "concise", "src"]);
    let listed = String::from_utf8_lossy(&plain.stdout);
    assert!(!listed.contains("request_elicitation"), "{listed}");
    let out = run(dir.path(), &["--fix", "--unsafe-fixes", "src"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(lib(dir.path()).contains("mrtr.elicit"), "{err}");
    assert!(
        err.contains("fixed 2 findings in 1 file; remaining: 0 with an unsafe fix (add --unsafe-fixes), 0 with a display-only suggestion, 0 without a fix"),
        "{err}"
    );
    let after = run(dir.path(), &["--format", "concise", "src"]);
    assert_eq!(
        after.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&after.stdout)
    );
}
