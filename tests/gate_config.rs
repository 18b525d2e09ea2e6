//! CLI tests for configuration: discovery and precedence (mcp-lint.toml, package and workspace
//! metadata, --config), each key's effect, --show-settings, and errors that list what is valid.

#[path = "gate_fixtures/common.rs"]
mod common;

use common::{run_in, Project};

/// A workspace with two member crates, each holding the legacy tools.
fn workspace(root_table: &str) -> Project {
    let p = Project::new();
    p.write(
        "Cargo.toml",
        &format!(
            "[workspace]\nmembers = [\"a\", \"b\"]\n\n[workspace.metadata.mcp-lint]\n{root_table}"
        ),
    );
    std::fs::remove_file(p.path("src/tools.rs")).unwrap();
    for m in ["a", "b"] {
        p.write(
            &format!("{m}/Cargo.toml"),
            &format!(
                "[package]\nname = \"{m}\"\nversion = \"0.1.0\"\n\n[dependencies]\nrmcp = \"3\"\n"
            ),
        );
        p.write(&format!("{m}/src/tools.rs"), common::TOOLS);
    }
    p
}

#[test]
fn workspace_metadata_applies_to_members_without_their_own() {
    let p = workspace("ignore = [\"MCP002\"]\n");
    let r = p.run(&["--format", "concise", "a", "b"]);
    assert_eq!(
        r.codes(),
        vec!["MCP001", "MCP003", "MCP001", "MCP003"],
        "{}",
        r.stdout
    );
}

#[test]
fn nearest_config_wins_package_metadata_then_mcp_lint_toml() {
    let p = workspace("ignore = [\"MCP002\"]\n");
    p.write(
        "b/Cargo.toml",
        "[package]\nname = \"b\"\nversion = \"0.1.0\"\n\n[dependencies]\nrmcp = \"3\"\n\n[package.metadata.mcp-lint]\nselect = [\"MCP003\"]\n",
    );
    let r = p.run(&["--format", "concise", "a", "b"]);
    assert_eq!(
        r.concise()
            .iter()
            .map(|(p, _, c)| format!("{p} {c}"))
            .collect::<Vec<_>>(),
        vec![
            "a/src/tools.rs MCP001",
            "a/src/tools.rs MCP003",
            "b/src/tools.rs MCP003"
        ]
    );
    // mcp-lint.toml in the same directory as a Cargo.toml beats its metadata.
    p.write("b/mcp-lint.toml", "select = [\"MCP001\"]\n");
    let r = p.run(&["--format", "concise", "b"]);
    assert_eq!(r.codes(), vec!["MCP001"]);
    let r = p.run(&["--show-settings", "b/src/tools.rs"]);
    assert_eq!(r.code, 0);
    assert!(
        r.stdout.contains("b/mcp-lint.toml mcp-lint.toml"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("select = [\"MCP001\"]"), "{}", r.stdout);
}

#[test]
fn cli_overrides_beat_every_file_and_show_in_settings() {
    let p = workspace("ignore = [\"MCP002\"]\nrules = { MCP003 = \"warn\" }\n");
    let r = p.run(&["--format", "concise", "--config", "ignore=[]", "a"]);
    assert_eq!(r.codes(), vec!["MCP001", "MCP002", "MCP003"]);
    assert!(
        r.stdout.contains("warning[MCP003]"),
        "tables merge: rules.MCP003 kept\n{}",
        r.stdout
    );
    let r = p.run(&[
        "--config",
        "rules.MCP001=warn",
        "--config",
        "rules.MCP002=allow",
        "--show-settings",
        "a",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("[workspace.metadata.mcp-lint]"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("# override: --config rules.MCP001=warn"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("MCP001 = \"warn\"") && r.stdout.contains("MCP003 = \"warn\""),
        "{}",
        r.stdout
    );
}

#[test]
fn levels_decide_the_exit_status() {
    let p = Project::new();
    p.write(
        "mcp-lint.toml",
        "[rules]\nMCP001 = \"warn\"\nMCP002 = \"warn\"\nMCP003 = \"allow\"\n",
    );
    let r = p.run(&["--format", "concise", "src"]);
    assert_eq!(r.code, 0, "only warnings left: {}", r.stdout);
    assert_eq!(r.codes(), vec!["MCP001", "MCP002"]);
    assert!(r.stdout.lines().all(|l| l.contains(": warning[")));
}

#[test]
fn exclude_and_per_file_ignores_are_relative_to_the_config() {
    let p = Project::new();
    p.write("tests/it.rs", common::TOOLS);
    p.write("src/generated/api.rs", common::TOOLS);
    p.write(
        "mcp-lint.toml",
        "exclude = [\"src/generated\"]\nreport-test-code = true\n\n[per-file-ignores]\n\"tests/**\" = [\"MCP001\", \"MCP002\"]\n",
    );
    let r = p.run(&["--format", "concise", "src", "tests"]);
    let got: Vec<String> = r
        .concise()
        .iter()
        .map(|(p, _, c)| format!("{p} {c}"))
        .collect();
    assert_eq!(
        got,
        vec![
            "src/tools.rs MCP001",
            "src/tools.rs MCP002",
            "src/tools.rs MCP003",
            "tests/it.rs MCP003"
        ]
    );
    // Excluded files are not even read: the summary does not count them.
    let r = p.run(&["--format", "json", "src", "tests"]);
    let report: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(report["summary"]["files_seen"], 2, "{}", r.stdout);
    // Linting from a subdirectory resolves the same globs against the config's directory.
    let r = run_in(&p.path("tests"), &["--format", "concise", "it.rs"]);
    assert_eq!(r.codes(), vec!["MCP003"], "{}{}", r.stdout, r.stderr);
}

#[test]
fn target_protocol_before_mrtr_allows_requests() {
    let p = Project::new();
    p.write("mcp-lint.toml", "target-protocol = \"2025-11-25\"\n");
    let r = p.run(&["--format", "concise", "src"]);
    assert_eq!((r.code, r.stdout.as_str()), (0, ""));
}

#[test]
fn unknown_keys_codes_and_values_exit_2_listing_what_is_valid() {
    let p = Project::new();
    p.write("mcp-lint.toml", "selekt = [\"MCP001\"]\n");
    let r = p.run(&["src"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("unknown key `selekt`"), "{}", r.stderr);
    assert!(r.stderr.contains("valid keys: select, ignore, rules, exclude, per-file-ignores, target-protocol, require-suppression-reason"), "{}", r.stderr);

    p.write("mcp-lint.toml", "[rules]\nMCP0001 = \"warn\"\n");
    let r = p.run(&["src"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("unknown rule code `MCP0001`") && r.stderr.contains("MCP001, MCP002"),
        "{}",
        r.stderr
    );

    std::fs::remove_file(p.path("mcp-lint.toml")).unwrap();
    let r = p.run(&["--config", "ignore=[\"XYZ\"]", "src"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("unknown rule code `XYZ`"), "{}", r.stderr);
    let r = p.run(&["--config", "target-protocol=1999-01-01", "src"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("valid: 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28"),
        "{}",
        r.stderr
    );
    p.write("Cargo.toml", "[package]\nname = \"demo\"\n[package.metadata.mcp-lint]\nrequire-suppression-reason = \"yes\"\n");
    let r = p.run(&["src"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("must be true or false"), "{}", r.stderr);
}

#[test]
fn config_file_named_on_the_command_line_is_used_for_every_file() {
    let p = workspace("ignore = [\"MCP002\"]\n");
    p.write(
        "ci/strict.toml",
        "select = [\"MCP002\"]\nexclude = [\"b\"]\n",
    );
    let r = p.run(&[
        "--format",
        "concise",
        "--config",
        "ci/strict.toml",
        "a",
        "b",
    ]);
    let got: Vec<String> = r
        .concise()
        .iter()
        .map(|(p, _, c)| format!("{p} {c}"))
        .collect();
    // `exclude = ["b"]` in ci/strict.toml is relative to ci/, so it does not exclude ./b.
    assert_eq!(
        got,
        vec!["a/src/tools.rs MCP002", "b/src/tools.rs MCP002"],
        "{}",
        r.stderr
    );
    let r = p.run(&["--show-settings", "--config", "ci/strict.toml", "a"]);
    assert!(
        r.stdout.contains("ci/strict.toml mcp-lint.toml"),
        "{}",
        r.stdout
    );
    let r = p.run(&["--config", "ci/missing.toml", "a"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("cannot read"), "{}", r.stderr);
}

#[test]
fn unanchored_globs_match_names_at_any_depth() {
    let p = Project::new();
    p.write("src/legacy/old.rs", common::TOOLS);
    p.write("src/api/user_pb.rs", common::TOOLS);
    p.write("mcp-lint.toml", "exclude = [\"legacy\", \"*_pb.rs\"]\n");
    let r = p.run(&["--format", "concise", "src"]);
    let paths: std::collections::BTreeSet<String> = r.concise().into_iter().map(|c| c.0).collect();
    assert_eq!(paths.into_iter().collect::<Vec<_>>(), vec!["src/tools.rs"]);
}

/// Legacy requests in test code: a `#[cfg(test)] mod tests` in a file, and a module file
/// declared under `#[cfg(test)]` in lib.rs (nothing in the file itself says it is a test).
fn with_test_code(p: &Project) {
    p.write(
        "src/lib.rs",
        "mod tools;\n#[cfg(test)]\nmod server_tests;\n",
    );
    p.write(
        "src/server_tests.rs",
        "use rmcp::{Peer, RoleServer};\npub async fn mock(peer: Peer<RoleServer>) {\n    let _ = peer.list_roots().await;\n}\n",
    );
    p.write(
        "src/inline.rs",
        "#[cfg(test)]\nmod tests {\n    use rmcp::{Peer, RoleServer};\n    async fn mock(peer: Peer<RoleServer>) {\n        let _ = peer.list_roots().await;\n    }\n}\n",
    );
}

#[test]
fn test_code_is_quiet_by_default_and_reported_on_request() {
    let p = Project::new();
    with_test_code(&p);
    let quiet = p.run(&["--format", "concise", "."]);
    let paths = |r: &common::Run| {
        let mut v: Vec<String> = r
            .concise()
            .into_iter()
            .map(|(p, _, c)| format!("{p} {c}"))
            .collect();
        v.sort();
        v.dedup();
        v
    };
    assert!(
        paths(&quiet).iter().all(|l| l.starts_with("src/tools.rs ")),
        "{}",
        quiet.stdout
    );
    assert!(!paths(&quiet).is_empty(), "{}", quiet.stdout);
    let reported = p.run(&[
        "--format",
        "concise",
        "--config",
        "report-test-code=true",
        ".",
    ]);
    let got = paths(&reported);
    assert!(
        got.iter()
            .any(|l| l.starts_with("src/server_tests.rs MCP00")),
        "{got:?}"
    );
    assert!(
        got.iter().any(|l| l.starts_with("src/inline.rs MCP00")),
        "{got:?}"
    );
    // The same from a config file.
    p.write("mcp-lint.toml", "report-test-code = true\n");
    assert_eq!(paths(&p.run(&["--format", "concise", "."])), got);
    p.write("mcp-lint.toml", "report-test-code = \"yes\"\n");
    let bad = p.run(&["--format", "concise", "."]);
    assert!(
        bad.stderr
            .contains("`report-test-code` must be true or false"),
        "{}",
        bad.stderr
    );
}
