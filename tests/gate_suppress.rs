//! CLI tests for suppression comments: each form, unused and invalid suppressions, the reason
//! policy, and --add-suppressions on real legacy rmcp code.

#[path = "gate_fixtures/common.rs"]
mod common;

use common::{Project, TOOLS};

fn with(edit: impl Fn(&str) -> String) -> Project {
    let p = Project::new();
    p.write("src/tools.rs", &edit(TOOLS));
    p
}

#[test]
fn trailing_comment_covers_its_line() {
    let p = with(|t| {
        t.replace(
            "context.peer.list_roots().await;",
            "context.peer.list_roots().await; // mcp-lint: allow(MCP003) -- roots stay until v2",
        )
    });
    let r = p.run(&["--format", "concise", "src"]);
    assert_eq!(r.codes(), vec!["MCP001", "MCP002"], "{}", r.stdout);
}

#[test]
fn comment_on_the_line_before_covers_the_statement() {
    // The finding is three lines below the comment, inside one `let` statement.
    let p = with(|t| {
        t.replace(
            "        let answer = context\n",
            "        // mcp-lint: allow(MCP001) -- confirmation moves to MRTR in #7\n        let answer = context\n",
        )
    });
    let r = p.run(&["--format", "concise", "src"]);
    assert_eq!(r.codes(), vec!["MCP002", "MCP003"], "{}", r.stdout);
}

#[test]
fn comment_before_an_item_covers_the_whole_item() {
    let p = with(|t| {
        t.replace(
            "    #[tool(description = \"Summarize with the client's model\")]\n",
            "    // mcp-lint: allow(MCP002) -- sampling kept for old clients\n    #[tool(description = \"Summarize with the client's model\")]\n",
        )
    });
    let r = p.run(&["--format", "concise", "src"]);
    assert_eq!(r.codes(), vec!["MCP001", "MCP003"], "{}", r.stdout);
    // Before the impl, the comment covers every fn inside it.
    let p = with(|t| {
        t.replace(
            "#[tool_router]\n",
            "// mcp-lint: allow(MCP001, MCP002, MCP003) -- legacy server\n#[tool_router]\n",
        )
    });
    let r = p.run(&["--format", "concise", "src"]);
    assert_eq!((r.code, r.stdout.as_str()), (0, ""));
}

#[test]
fn file_level_forms_cover_the_file() {
    let p = with(|t| {
        t.replacen(
            "//! A server",
            "//! mcp-lint: allow(MCP002, MCP003) -- whole module is legacy\n//! A server",
            1,
        )
    });
    let r = p.run(&["--format", "concise", "src"]);
    assert_eq!(r.codes(), vec!["MCP001"], "{}", r.stdout);
    let p = with(|t| format!("// mcp-lint: allow(MCP001) -- generated file\n\n{t}"));
    let r = p.run(&["--format", "concise", "src"]);
    assert_eq!(r.codes(), vec!["MCP002", "MCP003"], "{}", r.stdout);
}

#[test]
fn unused_suppression_is_a_finding_and_its_fix_removes_it() {
    let p = with(|t| {
        t.replace(
            "        format!(\"{roots:?}\")\n",
            "        // mcp-lint: allow(MCP002) -- nothing to silence here\n        format!(\"{roots:?}\")\n",
        )
    });
    let r = p.run(&["--format", "concise", "src"]);
    assert_eq!(
        r.codes(),
        vec!["MCP001", "MCP002", "MCP003", "MCP901"],
        "{}",
        r.stdout
    );
    let r = p.run(&["--format", "json", "src"]);
    let report: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let unused = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "MCP901")
        .unwrap();
    assert_eq!(unused["name"], "unused-suppression");
    assert_eq!(unused["level"], "warning");
    let edit = &unused["fix"]["edits"][0];
    assert_eq!(unused["fix"]["applicability"], "safe");
    let src = p.read("src/tools.rs");
    let (s, e) = (
        edit["start"].as_u64().unwrap() as usize,
        edit["end"].as_u64().unwrap() as usize,
    );
    let fixed = format!(
        "{}{}{}",
        &src[..s],
        edit["replacement"].as_str().unwrap(),
        &src[e..]
    );
    assert_eq!(fixed, TOOLS);
    // Switching the rule off silences the report about its suppressions as well.
    let r = p.run(&[
        "--format",
        "concise",
        "--config",
        "ignore=[\"MCP002\"]",
        "src",
    ]);
    assert_eq!(r.codes(), vec!["MCP001", "MCP003"], "{}", r.stdout);
}

#[test]
fn reason_policy_and_bad_directives() {
    let p = with(|t| {
        t.replace(
            "context.peer.list_roots().await;",
            "context.peer.list_roots().await; // mcp-lint: allow(MCP003)",
        )
    });
    let r = p.run(&["--format", "concise", "src"]);
    assert_eq!(r.codes(), vec!["MCP001", "MCP002"]);
    let r = p.run(&[
        "--format",
        "concise",
        "--config",
        "require-suppression-reason=true",
        "src",
    ]);
    assert_eq!(
        r.codes(),
        vec!["MCP001", "MCP002", "MCP003", "MCP902"],
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("without a reason"));
    let p = with(|t| {
        t.replace(
            "context.peer.list_roots().await;",
            "context.peer.list_roots().await; // mcp-lint: allow(MCP03) -- typo",
        )
    });
    let r = p.run(&["--format", "concise", "src"]);
    assert_eq!(
        r.codes(),
        vec!["MCP001", "MCP002", "MCP003", "MCP902"],
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("unknown rule code MCP03"));
}

#[cfg(unix)]
#[test]
fn add_suppressions_silences_every_finding_and_keeps_the_file_valid() {
    use std::os::unix::fs::PermissionsExt;
    let p = Project::new();
    std::fs::set_permissions(
        p.path("src/tools.rs"),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    let r = p.run(&["--add-suppressions", "adopting mcp-lint, see #12", "src"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains("src/tools.rs: added 3 suppressions"),
        "{}",
        r.stderr
    );
    let text = p.read("src/tools.rs");
    assert!(text.contains(
        "            // mcp-lint: allow(MCP001) -- adopting mcp-lint, see #12\n            .elicit::<Confirm>"
    ));
    syn::parse_file(&text).expect("still parses");
    let mode = std::fs::metadata(p.path("src/tools.rs"))
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o600);
    let r = p.run(&[
        "--format",
        "concise",
        "--config",
        "require-suppression-reason=true",
        "src",
    ]);
    assert_eq!((r.code, r.stdout.as_str()), (0, ""));
    // Nothing left to suppress: a second run changes nothing.
    let r = p.run(&["--add-suppressions", "again", "src"]);
    assert_eq!(r.code, 0);
    assert_eq!(p.read("src/tools.rs"), text);
}

/// The catalog's own examples for MCP901/MCP902 (the engine's example test leaves them to us):
/// fire examples yield exactly their code, quiet ones yield none of it, fixes give `fixed`.
#[test]
fn catalog_examples_of_the_suppression_rules() {
    use mcp_lint::catalog::catalog;
    use mcp_lint::gate::suppress::{apply, Policy};
    let known: std::collections::BTreeSet<String> =
        catalog().rules.iter().map(|r| r.code.clone()).collect();
    let enabled = |_: &str| true;
    let policy = Policy {
        require_reason: false,
        known_codes: &known,
        enabled: &enabled,
    };
    let settings = mcp_lint::Settings::default();
    for code in ["MCP901", "MCP902"] {
        let rule = catalog()
            .get(code)
            .unwrap_or_else(|| panic!("rules/{code}.toml"));
        assert!(!rule.fire.is_empty() && !rule.quiet.is_empty());
        let run = |src: &str| {
            let engine = mcp_lint::lint_source("example.rs", src.as_bytes(), &settings).findings;
            apply("example.rs", src, engine, &policy).findings
        };
        for ex in &rule.fire {
            let found = run(&ex.code);
            let mine: Vec<_> = found.iter().filter(|f| f.code == code).collect();
            assert_eq!(
                mine.len(),
                1,
                "{code} fire example {:?}: {found:#?}",
                ex.description
            );
            if let Some(fixed) = &ex.fixed {
                let mut text = ex.code.clone();
                let mut edits = mine[0].fix.as_ref().expect("a fix").edits.clone();
                edits.sort_by_key(|e| std::cmp::Reverse(e.start));
                for e in edits {
                    text.replace_range(e.start..e.end, &e.replacement);
                }
                assert_eq!(&text, fixed, "{code} fix");
            }
        }
        for ex in &rule.quiet {
            let found = run(&ex.code);
            assert!(
                found.iter().all(|f| f.code != code),
                "{code} quiet example {:?}: {found:#?}",
                ex.description
            );
        }
    }
}

#[test]
fn files_the_engine_could_not_analyse_report_no_unused_suppressions() {
    let p = Project::new();
    // A syntax error: the engine reports MCP900 and analyses nothing else in the file.
    p.write(
        "src/broken.rs",
        "// mcp-lint: allow(MCP003) -- roots stay\nfn t(ctx: RequestContext<RoleServer>) { ctx.peer.list_roots(); }\nfn f( {\n",
    );
    let r = p.run(&["--format", "concise", "src/broken.rs"]);
    assert_eq!(r.codes(), vec!["MCP900"], "{}", r.stdout);
    // Nested past the engine's guard: suppressing it must not re-parse it (stack) nor break it.
    let deep = format!(
        "fn t(ctx: RequestContext<RoleServer>) {{ ctx.peer.list_roots(); }}\nfn f() {{ let x = {}1{}; }}\n",
        "(".repeat(200_000),
        ")".repeat(200_000)
    );
    p.write("src/deep.rs", &deep);
    let r = p.run(&["--add-suppressions", "too deep to analyse", "src/deep.rs"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let after = p.read("src/deep.rs");
    assert!(
        after.contains("// mcp-lint: allow(MCP900) -- too deep to analyse\nfn f()"),
        "{}",
        &after[..200]
    );
    let r = p.run(&["--format", "concise", "src/deep.rs"]);
    assert_eq!((r.code, r.stdout.as_str()), (0, ""));
}
