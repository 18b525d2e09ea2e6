//! A 200 KB single line with two thousand legacy calls, as minified or generated code has: every
//! format's output, and the baseline file, stay proportional to the findings, not to the findings
//! times the line. (Whole, each snippet repeated the line: 640 MB of human output, a 430 MB
//! baseline.) Time and memory are measured by hand (`/usr/bin/time -v`, see docs/performance.md), not here.

use std::path::Path;
use std::process::{Command, Output};

const CALLS: usize = 2_000;

/// One line: `CALLS` fns, each with a legacy call, then a comment up to 200 KB.
fn long_line() -> String {
    let mut s = String::from("use rmcp::service::RequestContext; ");
    for i in 0..CALLS {
        s.push_str(&format!(
            "async fn t{i}(ctx: RequestContext<RoleServer>, p: u8) {{ ctx.peer.create_message(p); }} "
        ));
    }
    let pad = (200usize << 10).saturating_sub(s.len() + 5);
    format!("{s}/*{}*/\n", "é".repeat(pad / 2))
}

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-mcp-lint"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("binary runs")
}

#[test]
fn a_long_line_costs_each_format_a_window_per_finding() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    let line = long_line();
    assert!(line.len() > 200_000);
    std::fs::write(dir.path().join("src/lib.rs"), &line).unwrap();

    let json = run(dir.path(), &["--format", "json", "."]);
    assert_eq!(json.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let findings = report["findings"].as_array().unwrap();
    assert!(findings.len() >= CALLS, "{}", findings.len());
    // About a kilobyte a finding in every format (SARIF's fix objects, each with its one edit
    // and message, another kilobyte); the line alone is 200.
    let budget = findings.len() * 3_000;
    assert!(
        json.stdout.len() < budget,
        "json: {} bytes",
        json.stdout.len()
    );
    for format in ["human", "concise", "github", "sarif"] {
        let o = run(dir.path(), &["--format", format, "."]);
        assert_eq!(o.status.code(), Some(1), "{format}");
        assert!(
            o.stdout.len() < budget,
            "{format}: {} bytes for {} findings",
            o.stdout.len(),
            findings.len()
        );
    }

    // The human format shows a window of the line, cut on char boundaries and marked, under the
    // real line and column.
    let human = run(dir.path(), &["--format", "human", "."]);
    let text = String::from_utf8(human.stdout).expect("cut on char boundaries");
    let last = findings.last().unwrap();
    let place = format!("src/lib.rs:1:{}", last["column"]);
    assert!(text.contains(&place), "no {place}");
    let source_lines: Vec<&str> = text.lines().filter(|l| l.starts_with("1 │ ")).collect();
    assert_eq!(source_lines.len(), findings.len());
    for l in &source_lines {
        assert!(l.chars().count() < 220, "{l}");
        assert!(
            l.contains("create_message"),
            "the window holds the call: {l}"
        );
        assert!(l.starts_with("1 │ …"), "{l}");
    }

    let baseline = dir.path().join("baseline.json");
    let b = baseline.to_str().unwrap();
    let o = run(dir.path(), &["--baseline", b, "--update-baseline", "."]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let size = std::fs::metadata(&baseline).unwrap().len();
    assert!(size < 1 << 20, "baseline: {size} bytes");
    // The windowed keys still tell the findings apart and still match them.
    let o = run(dir.path(), &["--baseline", b, "--format", "json", "."]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
}

/// A `#[tool]` handler with `n` legacy requests, in a package that depends on rmcp.
fn handler_with_calls(n: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(
        dir.path().join("Cargo.toml"),
        "[package]\nname = \"p\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n[dependencies]\n\
rmcp = { version = \"3.11\", features = [\"server\"] }\n",
    )
    .unwrap();
    let calls: String = (0..n)
        .map(|i| format!("        let r{i} = ctx.peer.list_roots().await;\n"))
        .collect();
    let src = format!(
        "use rmcp::model::*;\nuse rmcp::service::RequestContext;\nuse rmcp::{{tool, tool_router, ErrorData, RoleServer}};\npub struct S;\n#[tool_router]\nimpl S {{\n    #[tool(description = \"x\")]\n    async fn ask(&self, ctx: RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {{\n{calls}        Ok(CallToolResult::success(vec![]))\n    }}\n}}\n"
    );
    std::fs::write(dir.path().join("src/lib.rs"), src).unwrap();
    dir
}

fn fixes_of(dir: &Path) -> (usize, Vec<serde_json::Value>) {
    let o = run(dir, &["--format", "json", "."]);
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let fixes = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["fix"].clone())
        .collect();
    (o.stdout.len(), fixes)
}

#[test]
fn a_handler_with_a_thousand_requests_is_not_rewritten_into_a_quadratic_report() {
    // Each finding carried its whole handler's edits: 1,000 requests made 860 MB of JSON. Past
    // the compiled rewrite's limit each request takes the deferred form, with its own edit only.
    let (size, fixes) = fixes_of(handler_with_calls(1_000).path());
    assert_eq!(fixes.len(), 1_000);
    assert!(size < 5 << 20, "{size} bytes");
    for fix in &fixes {
        assert_eq!(fix["applicability"], "unsafe", "{fix}");
        assert_eq!(fix["edits"].as_array().unwrap().len(), 1, "{fix}");
        assert!(fix["message"]
            .as_str()
            .unwrap()
            .contains("becomes `mrtr::rmcp::deferred::list_roots`"));
    }
    // A handler within the limit is still rewritten.
    let limit = mcp_lint::fix::rmcp::MAX_REWRITTEN_CALLS;
    let (_, fixes) = fixes_of(handler_with_calls(limit).path());
    assert_eq!(fixes.len(), limit);
    assert!(
        fixes.iter().all(|f| f["applicability"] == "unsafe"),
        "{}",
        fixes[0]
    );
}
