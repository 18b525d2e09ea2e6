//! The command line as a user runs it: human and JSON output, exit codes, `rules` and `rule CODE`,
//! cargo's extra `mcp-lint` argument, the default path, and bad input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cargo-mcp-lint"))
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn run_in(dir: &Path, args: &[&str]) -> Output {
    bin()
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8 output")
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_str(&stdout(o)).unwrap_or_else(|e| panic!("not JSON ({e}): {}", stdout(o)))
}

const SERVER: &str = r#"use rmcp::{RoleServer, service::RequestContext, tool};

impl S {
    #[tool(description = "x")]
    async fn pick(&self, ctx: RequestContext<RoleServer>) -> String {
        let r = ctx
            .peer
            .create_elicitation(params())
            .await;
        format!("{r:?}")
    }
}
"#;

#[test]
fn human_output_is_rustc_like_and_exit_is_1() {
    let t = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(t.path().join("src")).unwrap();
    std::fs::write(t.path().join("src/tool.rs"), SERVER).unwrap();
    // By default the helper's request, which no compiled rewrite takes, gets the deferred form.
    let o = run_in(t.path(), &["src"]);
    let out = stdout(&o);
    assert!(
        out.contains("= fix (unsafe, --fix --unsafe-fixes; review it with --diff): `create_elicitation` becomes `mrtr::rmcp::deferred::create_elicitation`"),
        "{out}"
    );
    let o = run_in(t.path(), &["--no-deferred-fixes", "src"]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("error[MCP001]: `create_elicitation` sends `elicitation/create`"),
        "{out}"
    );
    assert!(out.contains("src/tool.rs:8:14"), "{out}");
    assert!(
        out.contains(".create_elicitation(params())"),
        "source line shown: {out}"
    );
    assert!(
        out.contains("^^^^^^^^^^^^^^^^^^ sends `elicitation/create`"),
        "span on the method name: {out}"
    );
    assert!(
        out.contains("= help: return an `InputRequiredResult`"),
        "{out}"
    );
    assert!(out.contains("#[mrtr_handler]"), "{out}");
    assert!(
        out.contains("= suggested fix (by hand): no automatic rewrite: `pick` does not return `Result<T, E>`"),
        "a fix without edits is shown as a suggestion: {out}"
    );
    assert!(out.contains("1 finding (1 error, 0 warnings)"), "{out}");
    assert!(!out.contains("fixable"), "nothing to apply: {out}");
}

/// A `#[tool]` the rewrite takes (unsafe fix) and a stale suppression (safe fix).
const FIXABLE: &str = r#"use rmcp::model::*;
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, ErrorData, RoleServer};

// mcp-lint: allow(MCP003) -- nothing asks for roots here any more
pub struct S;

#[tool_router]
impl S {
    #[tool(description = "Greets")]
    async fn greet(&self, ctx: RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let name = ctx.peer.elicit::<Name>("Your name?").await;
        Ok(CallToolResult::success(vec![ContentBlock::text(format!("{name:?}"))]))
    }
}
"#;

#[test]
fn human_output_says_which_findings_have_a_fix_and_how_to_apply_it() {
    let t = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(t.path().join("src")).unwrap();
    std::fs::write(t.path().join("src/tool.rs"), FIXABLE).unwrap();
    let o = run_in(t.path(), &["src"]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("= fix (unsafe, --fix --unsafe-fixes; review it with --diff): `elicit` becomes `mrtr.elicit::<Name>(..)`"),
        "{out}"
    );
    assert!(
        out.contains("= fix (safe, --fix): "),
        "the stale suppression's removal: {out}"
    );
    assert!(
        out.ends_with(
            "1 fixable with --fix, 1 more with --unsafe-fixes (--diff shows the edits first)\n"
        ),
        "{out}"
    );
}

#[test]
fn json_output_is_the_contract() {
    let t = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(t.path().join("src")).unwrap();
    std::fs::write(t.path().join("src/tool.rs"), SERVER).unwrap();
    std::fs::write(t.path().join("src/clean.rs"), "fn main() {}\n").unwrap();
    let o = run_in(t.path(), &["--format", "json"]);
    assert_eq!(o.status.code(), Some(1));
    let v = json(&o);
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["errors", "findings", "summary", "version"]);
    assert_eq!(v["version"], 1);
    assert_eq!(v["summary"]["files_seen"], 2);
    assert_eq!(
        v["summary"]["files_parsed"], 1,
        "the clean file is skipped by the prefilter"
    );
    assert_eq!(v["summary"]["findings"], 1);
    let f = &v["findings"][0];
    let mut fkeys: Vec<&str> = f.as_object().unwrap().keys().map(String::as_str).collect();
    fkeys.sort();
    assert_eq!(
        fkeys,
        [
            "code",
            "column",
            "end_column",
            "end_line",
            "fix",
            "help",
            "level",
            "line",
            "mcp_method",
            "message",
            "name",
            "path",
            "sdk"
        ]
    );
    assert_eq!(f["code"], "MCP001");
    assert_eq!(f["name"], "legacy-elicitation-request");
    assert_eq!(f["level"], "error");
    assert_eq!(f["path"], "src/tool.rs");
    assert_eq!(f["mcp_method"], "elicitation/create");
    assert_eq!(f["sdk"], "rmcp");
    assert_eq!(
        (f["line"].as_u64(), f["column"].as_u64()),
        (Some(8), Some(14))
    );
    assert_eq!(
        (f["end_line"].as_u64(), f["end_column"].as_u64()),
        (Some(8), Some(32))
    );
    let line = SERVER.lines().nth(7).unwrap();
    assert_eq!(&line[13..31], "create_elicitation");
    // `fix` is null or `{applicability, message, edits: [{start, end, line, column, ..}]}`.
    if !f["fix"].is_null() {
        let applicability = f["fix"]["applicability"].as_str().unwrap();
        assert!(
            ["safe", "unsafe", "display-only"].contains(&applicability),
            "{applicability}"
        );
        for e in f["fix"]["edits"].as_array().unwrap() {
            assert!(e["start"].as_u64().unwrap() <= e["end"].as_u64().unwrap());
            assert!(e["end"].as_u64().unwrap() as usize <= SERVER.len());
            assert!(e["replacement"].is_string());
        }
    }
    assert_eq!(v["errors"], serde_json::json!([]));
}

#[test]
fn clean_code_exits_0() {
    let t = tempfile::tempdir().unwrap();
    std::fs::write(
        t.path().join("lib.rs"),
        "pub fn list_roots() -> Vec<String> { vec![] }\n",
    )
    .unwrap();
    let o = run_in(t.path(), &["."]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).contains("no findings"));
}

#[test]
fn cargo_passes_the_subcommand_name_first() {
    let o = run_in(
        &fixture("handwritten-server"),
        &["mcp-lint", "--format", "json", "src/state.rs"],
    );
    assert_eq!(o.status.code(), Some(1));
    let v = json(&o);
    let codes: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["MCP006", "MCP003", "MCP006", "MCP006", "MCP006"]);
}

#[test]
fn default_path_is_the_package_root_and_paths_are_relative_to_cwd() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path();
    std::fs::write(
        root.join("Cargo.toml"),
        "[package]\nname = \"p\"\nversion = \"0.1.0\"\n\n[dependencies]\nrmcp = \"2.2\"\n",
    )
    .unwrap();
    std::fs::create_dir_all(root.join("src/deep")).unwrap();
    std::fs::create_dir_all(root.join("target/debug")).unwrap();
    std::fs::write(root.join("src/tool.rs"), SERVER).unwrap();
    std::fs::write(root.join("target/debug/gen.rs"), SERVER).unwrap();
    std::fs::write(root.join(".gitignore"), "ignored/\n").unwrap();
    std::fs::create_dir_all(root.join("ignored")).unwrap();
    std::fs::write(root.join("ignored/old.rs"), SERVER).unwrap();
    let o = run_in(&root.join("src/deep"), &["--format", "json"]);
    let v = json(&o);
    let paths: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        paths,
        ["../tool.rs"],
        "target/ and .gitignore'd files are skipped"
    );
}

#[test]
fn rules_lists_every_code_and_rule_prints_docs() {
    let o = run_in(Path::new("."), &["rules"]);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    for (code, name) in [
        ("MCP001", "legacy-elicitation-request"),
        ("MCP002", "legacy-sampling-request"),
        ("MCP003", "legacy-roots-request"),
        ("MCP004", "raw-server-request"),
        ("MCP005", "removed-url-elicitation-api"),
        ("MCP006", "request-outside-mrtr-scope"),
        ("MCP900", "parse-error"),
    ] {
        let line = out
            .lines()
            .find(|l| l.starts_with(code))
            .unwrap_or_else(|| panic!("{code} missing: {out}"));
        assert!(line.contains(name), "{line}");
    }
    let o = run_in(Path::new("."), &["rule", "MCP006"]);
    assert_eq!(o.status.code(), Some(0));
    let doc = stdout(&o);
    assert!(
        doc.starts_with("MCP006 request-outside-mrtr-scope"),
        "{doc}"
    );
    assert!(
        doc.contains("## Why") && doc.contains("## How to fix") && doc.contains("```rust"),
        "{doc}"
    );
    let by_name = run_in(Path::new("."), &["rule", "legacy-roots-request"]);
    assert!(stdout(&by_name).starts_with("MCP003"));
}

#[test]
fn usage_errors_exit_2() {
    let o = run_in(Path::new("."), &["--format", "yaml"]);
    assert_eq!(o.status.code(), Some(2));
    let o = run_in(Path::new("."), &["rule", "MCP999"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown rule `MCP999`"));
    let o = run_in(Path::new("."), &["--help"]);
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn bad_files_are_reported_and_the_rest_is_linted() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    std::fs::write(d.join("a_good.rs"), SERVER).unwrap();
    std::fs::write(d.join("b_empty.rs"), "").unwrap();
    std::fs::write(
        d.join("c_broken.rs"),
        "async fn f(peer: Peer<RoleServer>) {\n    let n = peer.list_roots().await +;\n}\n",
    )
    .unwrap();
    let mut latin1 = b"// caf".to_vec();
    latin1.push(0xe9);
    latin1.extend_from_slice(b"\nfn f() { peer.list_roots(); }\n");
    std::fs::write(d.join("d_latin1.rs"), latin1).unwrap();
    let deep = format!(
        "fn f() {{ peer.list_roots({}0{}); }}\n",
        "(".repeat(20_000),
        ")".repeat(20_000)
    );
    std::fs::write(d.join("e_deep.rs"), deep).unwrap();
    let huge = format!(
        "use rmcp::Peer;\n{}",
        "fn filler() { let x = 1 + 2; }\n".repeat(100_000)
    );
    std::fs::write(d.join("f_huge.rs"), huge).unwrap();
    let o = run_in(d, &["--format", "json", "."]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v = json(&o);
    let got: Vec<(String, u64, String)> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
                f["code"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let want = [
        ("a_good.rs", 8, "MCP001"),
        ("c_broken.rs", 2, "MCP900"),
        ("d_latin1.rs", 1, "MCP900"),
        ("e_deep.rs", 1, "MCP900"),
    ];
    let want: Vec<(String, u64, String)> = want
        .iter()
        .map(|(p, l, c)| (p.to_string(), *l, c.to_string()))
        .collect();
    assert_eq!(got, want);
    let messages: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert!(
        messages[1].starts_with("file does not parse: "),
        "{}",
        messages[1]
    );
    assert!(messages[2].contains("UTF-8"), "{}", messages[2]);
    assert!(messages[3].contains("nesting"), "{}", messages[3]);
    assert_eq!(v["summary"]["files_seen"], 6);
}

#[test]
fn a_missing_path_is_an_error_entry_and_exit_2() {
    let t = tempfile::tempdir().unwrap();
    std::fs::write(t.path().join("tool.rs"), SERVER).unwrap();
    let o = run_in(t.path(), &["--format", "json", "tool.rs", "gone.rs"]);
    assert_eq!(o.status.code(), Some(2));
    let v = json(&o);
    assert_eq!(
        v["findings"].as_array().unwrap().len(),
        1,
        "the readable file is still linted"
    );
    assert_eq!(v["errors"][0]["path"], "gone.rs");
    assert!(v["errors"][0]["message"]
        .as_str()
        .unwrap()
        .starts_with("cannot read"));
}

#[test]
fn no_prefilter_parses_every_file() {
    let t = tempfile::tempdir().unwrap();
    std::fs::write(t.path().join("broken.rs"), "fn broken( {\n").unwrap();
    let quiet = run_in(t.path(), &["--format", "json", "."]);
    assert_eq!(
        quiet.status.code(),
        Some(0),
        "a file without trigger tokens is not parsed"
    );
    let o = run_in(t.path(), &["--format", "json", "--no-prefilter", "."]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(json(&o)["findings"][0]["code"], "MCP900");
}

#[test]
fn output_does_not_depend_on_thread_count() {
    let dir = fixture("");
    let one = run_in(&dir, &["--format", "json", "--threads", "1", "."]);
    let four = run_in(&dir, &["--format", "json", "--threads", "4", "."]);
    assert_eq!(stdout(&one), stdout(&four));
    assert!(json(&one)["findings"].as_array().unwrap().len() > 40);
}

#[test]
fn threads_far_above_the_cores_are_capped_with_a_note() {
    // Each worker reserves a 256 MiB analysis stack: 100,000 of them never finished starting.
    let dir = fixture("");
    let capped = run_in(&dir, &["--format", "json", "--threads", "100000", "."]);
    let stderr = String::from_utf8_lossy(&capped.stderr);
    assert!(
        stderr.contains("note: --threads 100000 is more than 4 per core"),
        "{stderr}"
    );
    let one = run_in(&dir, &["--format", "json", "--threads", "1", "."]);
    assert_eq!(stdout(&capped), stdout(&one));
    // Within the cap: no note.
    assert!(!String::from_utf8_lossy(&one.stderr).contains("--threads"));
    // rayon's own variable is capped the same way (it once sized the JSON writer's pool).
    let env = bin()
        .args(["--format", "json", "."])
        .current_dir(&dir)
        .env("RAYON_NUM_THREADS", "100000")
        .output()
        .expect("binary runs");
    assert_eq!(stdout(&env), stdout(&one));
}

#[test]
fn a_package_under_a_tests_folder_is_not_test_code() {
    // A monorepo keeps its servers under `tests/` (as this project keeps its fixtures): only a
    // `tests` folder inside the package makes its files test code.
    let root = tempfile::tempdir().expect("temp dir");
    let pkg = root.path().join("tests/servers/s");
    std::fs::create_dir_all(pkg.join("src")).expect("dirs");
    std::fs::create_dir_all(pkg.join("tests")).expect("dirs");
    std::fs::write(
        pkg.join("Cargo.toml"),
        "[package]\nname = \"s\"\nversion = \"0.1.0\"\n\n[dependencies]\nrmcp = \"2.2\"\n",
    )
    .expect("manifest");
    std::fs::write(pkg.join("src/lib.rs"), SERVER).expect("server");
    std::fs::write(pkg.join("tests/it.rs"), SERVER).expect("test file");
    for cwd in [root.path(), pkg.as_path()] {
        let out = run_in(cwd, &["--format", "json", "."]);
        let report = json(&out);
        let paths: Vec<&str> = report["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .map(|f| f["path"].as_str().expect("path"))
            .collect();
        assert_eq!(paths.len(), 1, "from {}: {paths:?}", cwd.display());
        assert!(paths[0].ends_with("src/lib.rs"), "{paths:?}");
    }
}
