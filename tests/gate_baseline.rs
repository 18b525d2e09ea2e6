//! CLI tests for baselines: adopt with --update-baseline, survive lines inserted above, report new
//! findings, report stale entries in every format, and --strict-baseline.

#[path = "gate_fixtures/common.rs"]
mod common;

use common::{Project, TOOLS};

fn adopted() -> Project {
    let p = Project::new();
    let r = p.run(&[
        "--baseline",
        "mcp-lint-baseline.json",
        "--update-baseline",
        "src",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains("wrote 3 findings (3 entries)"),
        "{}",
        r.stderr
    );
    p
}

#[test]
fn baseline_file_is_sorted_stable_and_line_free() {
    let p = adopted();
    let first = p.read("mcp-lint-baseline.json");
    let b: serde_json::Value = serde_json::from_str(&first).unwrap();
    let entries = b["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 3);
    assert_eq!(entries[0]["code"], "MCP001");
    assert_eq!(entries[0]["item"], "Deployer::deploy");
    assert_eq!(
        entries[0]["snippet"],
        ".elicit::<Confirm>(\"Deploy to production?\".to_string())"
    );
    assert!(!first.contains("\"line\""));
    p.run(&[
        "--baseline",
        "mcp-lint-baseline.json",
        "--update-baseline",
        "--threads",
        "1",
        "src",
    ]);
    assert_eq!(p.read("mcp-lint-baseline.json"), first);
}

#[test]
fn baseline_survives_lines_inserted_above_and_reports_only_new_findings() {
    let p = adopted();
    let shifted = TOOLS.replacen(
        "pub struct Deployer;",
        "pub struct Deployer;\n\n// Ten new lines above every finding.\n\n\n\n\n\n\n\n",
        1,
    );
    p.write("src/tools.rs", &shifted);
    let r = p.run(&[
        "--baseline",
        "mcp-lint-baseline.json",
        "--format",
        "concise",
        "src",
    ]);
    assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{}", r.stderr);
    assert!(
        r.stderr.contains("3 findings hidden by baseline"),
        "{}",
        r.stderr
    );
    // A new legacy call in a new tool is reported; the recorded ones stay hidden.
    let added = shifted.replace(
        "    #[tool(description = \"List the client's roots\")]",
        "    #[tool(description = \"Ask again\")]\n    async fn again(&self, context: RequestContext<RoleServer>) -> String {\n        let again = context.peer.list_roots().await;\n        format!(\"{again:?}\")\n    }\n\n    #[tool(description = \"List the client's roots\")]",
    );
    p.write("src/tools.rs", &added);
    let r = p.run(&[
        "--baseline",
        "mcp-lint-baseline.json",
        "--format",
        "concise",
        "src",
    ]);
    assert_eq!(r.code, 1);
    assert_eq!(
        r.concise(),
        vec![("src/tools.rs".to_string(), 50, "MCP003".to_string())],
        "{}",
        r.stdout
    );
}

#[test]
fn stale_entries_are_noted_in_every_format_and_fail_only_when_strict() {
    let p = adopted();
    // The sampling call is migrated away: its entry no longer matches anything.
    p.write(
        "src/tools.rs",
        &TOOLS.replace("context.peer.create_message(params).await", "params"),
    );
    let base = ["--baseline", "mcp-lint-baseline.json", "src"];
    let run = |extra: &[&str]| p.run(&[&base[..], extra].concat());

    let r = run(&["--format", "concise"]);
    assert_eq!(r.code, 0);
    assert!(r.stdout.contains("note: baseline mcp-lint-baseline.json has 1 stale entry that no longer match (src/tools.rs MCP002 in Deployer::summarize)"), "{}", r.stdout);
    let r = run(&["--format", "github"]);
    assert!(
        r.stdout.starts_with(
            "::notice title=mcp-lint::baseline mcp-lint-baseline.json has 1 stale entry"
        ),
        "{}",
        r.stdout
    );
    let r = run(&["--format", "sarif"]);
    let log: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let notes = &log["runs"][0]["invocations"][0]["toolExecutionNotifications"];
    assert!(
        notes[0]["message"]["text"]
            .as_str()
            .unwrap()
            .contains("1 stale entry"),
        "{notes}"
    );
    for format in ["human", "json"] {
        let r = run(&["--format", format]);
        assert!(r.stderr.contains("1 stale entry"), "{format}: {}", r.stderr);
    }
    let r = run(&["--statistics"]);
    assert!(r.stdout.contains("1 stale entry"), "{}", r.stdout);

    let r = run(&["--format", "concise", "--strict-baseline"]);
    assert_eq!(r.code, 1, "stale entries fail a strict run");
    p.run(&[
        "--baseline",
        "mcp-lint-baseline.json",
        "--update-baseline",
        "src",
    ]);
    let r = run(&["--format", "concise", "--strict-baseline"]);
    assert_eq!((r.code, r.stdout.as_str()), (0, ""));
    let b: serde_json::Value = serde_json::from_str(&p.read("mcp-lint-baseline.json")).unwrap();
    assert_eq!(b["entries"].as_array().unwrap().len(), 2);
}

#[test]
fn duplicates_are_counted_and_a_bad_baseline_is_a_clear_error() {
    let p = Project::new();
    p.write("src/twice.rs", "use rmcp::service::RequestContext;\nuse rmcp::{tool, tool_router, RoleServer};\npub struct S;\n#[tool_router]\nimpl S {\n    #[tool(description = \"x\")]\n    async fn t(&self, context: RequestContext<RoleServer>) {\n        let _ = context.peer.list_roots().await;\n        let _ = context.peer.list_roots().await;\n    }\n}\n");
    p.run(&["--baseline", "b.json", "--update-baseline", "src/twice.rs"]);
    let b: serde_json::Value = serde_json::from_str(&p.read("b.json")).unwrap();
    assert_eq!(b["entries"][0]["count"], 2);
    let r = p.run(&[
        "--baseline",
        "b.json",
        "--format",
        "concise",
        "src/twice.rs",
    ]);
    assert_eq!((r.code, r.stdout.as_str()), (0, ""));

    p.write("b.json", "{ not json");
    let r = p.run(&["--baseline", "b.json", "src"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("b.json is not a valid baseline file"),
        "{}",
        r.stderr
    );
    let r = p.run(&["--baseline", "missing.json", "src"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("cannot read baseline missing.json"),
        "{}",
        r.stderr
    );
    let r = p.run(&["--update-baseline", "src"]);
    assert_eq!(r.code, 2, "--update-baseline needs --baseline");
}

#[test]
fn prune_drops_fixed_entries_but_never_absorbs_new_findings() {
    let p = adopted();
    // The sampling call is migrated, and a new elicitation appears in the roots tool.
    let edited = TOOLS
        .replace("context.peer.create_message(params).await", "params")
        .replace(
            "let roots = context.peer.list_roots().await;",
            "let roots = context.peer.list_roots().await;\n        let again = context.peer.elicit::<Confirm>(\"Again?\".to_string()).await;",
        );
    p.write("src/tools.rs", &edited);
    let r = p.run(&[
        "--baseline",
        "mcp-lint-baseline.json",
        "--prune-baseline",
        "--format",
        "concise",
        "src",
    ]);
    assert_eq!(r.code, 1, "the new finding is still reported");
    assert_eq!(r.codes(), vec!["MCP001"], "{}", r.stdout);
    assert!(
        r.stderr
            .contains("pruned baseline mcp-lint-baseline.json: 2 entries left"),
        "{}",
        r.stderr
    );
    let b: serde_json::Value = serde_json::from_str(&p.read("mcp-lint-baseline.json")).unwrap();
    let codes: Vec<&str> = b["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, vec!["MCP001", "MCP003"]);
    let r = p.run(&[
        "--baseline",
        "mcp-lint-baseline.json",
        "--prune-baseline",
        "--update-baseline",
        "src",
    ]);
    assert_eq!(r.code, 2, "prune and update conflict");
}

#[test]
fn entries_are_relative_to_the_baseline_so_any_directory_can_use_it() {
    let p = adopted();
    let b: serde_json::Value = serde_json::from_str(&p.read("mcp-lint-baseline.json")).unwrap();
    assert_eq!(b["entries"][0]["path"], "src/tools.rs");
    // From src/, the same findings are `tools.rs` to the user and still match the baseline.
    let r = common::run_in(
        &p.path("src"),
        &[
            "--baseline",
            "../mcp-lint-baseline.json",
            "--format",
            "concise",
            "tools.rs",
        ],
    );
    assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{}", r.stderr);
    assert!(r.stderr.contains("3 findings hidden"), "{}", r.stderr);
    // A baseline written from src/ names the files relative to where the baseline lives.
    let r = common::run_in(
        &p.path("src"),
        &[
            "--baseline",
            "../from-src.json",
            "--update-baseline",
            "tools.rs",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(p.read("from-src.json"), p.read("mcp-lint-baseline.json"));
}
