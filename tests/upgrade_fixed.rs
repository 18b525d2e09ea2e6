//! `cargo mcp-lint --fix --unsafe-fixes --upgrade-rmcp` on the rmcp 1.x and 2.x servers of
//! `tests/upgrade_fixtures` writes exactly their `src/lib.fixed` and `Cargo.toml.fixed`, which
//! `tests/fix_compile` builds against rmcp 3.x (and `scripts/test-all.sh` checks the inputs on
//! their own rmcp). A change to the upgrade table or its fixes that changes the output fails here
//! until the `.fixed` files are regenerated, and then `tests/fix_compile` proves they still build.
//!
//! Regenerate after an intended change: copy a fixture's `Cargo.toml` and `src/lib.rs` somewhere,
//! run `cargo mcp-lint --fix --unsafe-fixes --upgrade-rmcp src` there, and copy them back as
//! `Cargo.toml.fixed` and `src/lib.fixed`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const FIXTURES: &[&str] = &["rmcp1", "rmcp2", "literals_rmcp0", "rmcp0_8"];

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/upgrade_fixtures")
        .join(name)
}

/// A scratch copy of a fixture's manifest and source (no lock, no `.fixed` files).
fn scratch(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::copy(
        fixture(name).join("Cargo.toml"),
        dir.path().join("Cargo.toml"),
    )
    .unwrap();
    std::fs::copy(
        fixture(name).join("src/lib.rs"),
        dir.path().join("src/lib.rs"),
    )
    .unwrap();
    dir
}

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-mcp-lint"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("binary runs")
}

fn read(p: PathBuf) -> String {
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn one_run_upgrades_each_fixture_to_its_fixed_files_byte_for_byte() {
    for name in FIXTURES {
        let dir = scratch(name);
        let out = run(
            dir.path(),
            &["--fix", "--unsafe-fixes", "--upgrade-rmcp", "src"],
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            read(dir.path().join("src/lib.rs")) == read(fixture(name).join("src/lib.fixed")),
            "{name}: src/lib.rs after the run differs from src/lib.fixed; regenerate it (see this file's header)\n{err}"
        );
        assert_eq!(
            read(dir.path().join("Cargo.toml")),
            read(fixture(name).join("Cargo.toml.fixed")),
            "{name}: {err}"
        );
        assert!(err.contains("Cargo.toml: upgraded rmcp "), "{name}: {err}");
        // Nothing of the upgrade is left: the remaining findings are MRTR ones.
        let again = run(dir.path(), &["--format", "concise", "src"]);
        let left = String::from_utf8_lossy(&again.stdout);
        assert!(!left.contains("MCP20"), "{name}: {left}");
    }
}

#[test]
fn the_fixed_files_changed_what_the_old_rmcp_needed() {
    // The inputs are really on the old API (else the byte test above proves little).
    let one = read(fixture("rmcp1").join("src/lib.rs"));
    for old in [
        "Content::text",
        "PromptMessageRole::User",
        ".no_annotation()",
        "PaginatedRequestParam>",
    ] {
        assert!(one.contains(old), "{old}");
    }
    let fixed = read(fixture("rmcp1").join("src/lib.fixed"));
    for new in [
        "ContentBlock::text",
        "Role::User",
        "PaginatedRequestParams>",
        "ReadResourceResponse",
    ] {
        assert!(fixed.contains(new), "{new}");
    }
    // rmcp 0.x struct literals become constructors and setters, or `default()` and assignments.
    let literals = read(fixture("literals_rmcp0").join("src/lib.rs"));
    assert_eq!(literals.matches("\n    CallToolResult {").count(), 3);
    let built = read(fixture("literals_rmcp0").join("src/lib.fixed"));
    for new in [
        "ServerInfo::new(ServerCapabilities::builder().enable_tools().build())",
        ".with_server_info(Implementation::new(\"notes\", env!(\"CARGO_PKG_VERSION\").to_string()))",
        ".with_instructions(\"Add and list notes.\")",
        "CallToolResult::error(vec![ContentBlock::text(message)])",
        "CallToolResult::success(vec![ContentBlock::text(\"done\")])",
        "ListRootsResult::new(vec![])",
    ] {
        assert!(squash(&built).contains(&squash(new)), "{new}");
    }
    // The flag held in a variable: built from `default()`, as are the 2.0 capability structs.
    assert_eq!(built.matches("\n    CallToolResult {").count(), 0);
    for new in [
        "let mut ctr = CallToolResult::default();",
        "ctr.is_error = is_error;",
        "let mut pc = PromptsCapability::default();",
    ] {
        assert!(built.contains(new), "{new}");
    }
    // rmcp 0.8: the 0.x param names, a literal server info and tool result, the SSE feature
    // named in `[features]` too.
    let eight = read(fixture("rmcp0_8").join("src/lib.rs"));
    for old in [
        "request: CallToolRequestParam,",
        "ServerInfo {",
        "CallToolResult {",
    ] {
        assert!(eight.contains(old), "{old}");
    }
    let eight = read(fixture("rmcp0_8").join("src/lib.fixed"));
    for new in [
        "request: CallToolRequestParams,",
        "ServerInfo::new(",
        "-> Result<CallToolResponse, ErrorData>",
        "CallToolResult::error(",
    ] {
        assert!(eight.contains(new), "{new}");
    }
    assert!(read(fixture("rmcp0_8").join("Cargo.toml.fixed"))
        .contains("sse = [\"rmcp/transport-streamable-http-server\"]"));
    assert!(read(fixture("rmcp2").join("Cargo.toml")).contains("version = \"2.2\""));
    assert!(read(fixture("rmcp2").join("Cargo.toml.fixed")).contains("version = \"3.11\""));
}

#[test]
fn diff_with_upgrade_prints_the_manifest_change_and_writes_nothing() {
    let dir = scratch("rmcp2");
    let before = read(dir.path().join("Cargo.toml"));
    let out = run(dir.path(), &["--diff", "--upgrade-rmcp", "src"]);
    let diff = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{diff}");
    assert!(diff.contains("-rmcp = { version = \"2.2\""), "{diff}");
    assert!(diff.contains("+rmcp = { version = \"3.11\""), "{diff}");
    assert_eq!(read(dir.path().join("Cargo.toml")), before);
}

#[test]
fn without_the_flag_the_manifest_is_left_alone() {
    let dir = scratch("rmcp2");
    let before = read(dir.path().join("Cargo.toml"));
    run(dir.path(), &["--fix", "src"]);
    assert_eq!(read(dir.path().join("Cargo.toml")), before);
    // The safe renames were applied all the same.
    assert!(
        read(dir.path().join("src/lib.rs")).contains("ElicitRequestParams::FormElicitationParams")
    );
}

/// A workspace root with one member crate: `root` and `member` are the two manifests' texts.
fn workspace(root: &str, member: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("Cargo.toml"), root).unwrap();
    std::fs::create_dir_all(dir.path().join("srv/src")).unwrap();
    std::fs::write(dir.path().join("srv/Cargo.toml"), member).unwrap();
    std::fs::write(
        dir.path().join("srv/src/lib.rs"),
        "use rmcp::model::*;\n\npub fn t() -> ContentBlock {\n    Content::text(\"x\")\n}\n",
    )
    .unwrap();
    dir
}

const MEMBER: &str =
    "[package]\nname = \"srv\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n";

#[test]
fn a_member_crate_s_own_requirement_is_bumped_from_the_workspace_root() {
    let root = "[workspace]\nmembers = [\"srv\"]\n";
    let dir = workspace(root, &format!("{MEMBER}rmcp = \"2.2\" # the SDK\n"));
    let out = run(dir.path(), &["--fix", "--upgrade-rmcp", "."]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(read(dir.path().join("Cargo.toml")), root, "{err}");
    assert_eq!(
        read(dir.path().join("srv/Cargo.toml")),
        format!("{MEMBER}rmcp = \"3.11\" # the SDK\n"),
        "{err}"
    );
    assert!(read(dir.path().join("srv/src/lib.rs")).contains("ContentBlock::text(\"x\")"));
}

#[test]
fn a_member_crate_without_findings_is_bumped_too() {
    // Left on the old major, it would build both rmcp majors and pass their types between crates.
    let root = "[workspace]\nmembers = [\"srv\", \"auth\"]\n";
    let dir = workspace(root, &format!("{MEMBER}rmcp = \"2.2\"\n"));
    let auth = "[package]\nname = \"auth\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies.rmcp-client]\npackage = \"rmcp\"\nversion = \"2.2\"\nfeatures = [\"client\"]\n"
        .to_string();
    std::fs::create_dir_all(dir.path().join("auth/src")).unwrap();
    std::fs::write(dir.path().join("auth/Cargo.toml"), &auth).unwrap();
    std::fs::write(
        dir.path().join("auth/src/lib.rs"),
        "pub fn token() -> u32 {\n    7\n}\n",
    )
    .unwrap();
    let out = run(dir.path(), &["--fix", "--upgrade-rmcp", "."]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        read(dir.path().join("auth/Cargo.toml")),
        auth.replace("version = \"2.2\"", "version = \"3.11\""),
        "{err}"
    );
    assert!(
        read(dir.path().join("srv/Cargo.toml")).contains("rmcp = \"3.11\""),
        "{err}"
    );
}

#[test]
fn an_inherited_requirement_is_bumped_in_the_workspace_manifest() {
    let root = "[workspace]\nmembers = [\"srv\"]\n\n[workspace.dependencies]\nrmcp = { version = \"1.7\", features = [\"server\", \"transport-sse-server\"] }\n";
    let member = format!("{MEMBER}rmcp = {{ workspace = true }}\n");
    let dir = workspace(root, &member);
    let out = run(dir.path(), &["--fix", "--upgrade-rmcp", "srv"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(read(dir.path().join("srv/Cargo.toml")), member, "{err}");
    assert_eq!(
        read(dir.path().join("Cargo.toml")),
        "[workspace]\nmembers = [\"srv\"]\n\n[workspace.dependencies]\nrmcp = { version = \"3.11\", features = [\"server\", \"transport-streamable-http-server\"] }\n",
        "{err}"
    );
    assert!(err.contains("rmcp feature `transport-sse-server` -> `transport-streamable-http-server` (rmcp PR #562)"), "{err}");
}

#[test]
fn the_flag_alone_is_refused_and_writes_nothing() {
    let dir = scratch("rmcp2");
    let before = read(dir.path().join("Cargo.toml"));
    let out = run(dir.path(), &["--upgrade-rmcp", "src"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("use it with --fix"));
    assert_eq!(read(dir.path().join("Cargo.toml")), before);
}

#[test]
fn a_crate_rmcp_shares_types_with_follows_rmcp_s_major_beside_it_only() {
    // `TokioChildProcess::builder` takes process-wrap 10's `CommandWrap` on rmcp 3.x: a 9.x one
    // of the server's own is another type to rustc.
    let root = "[workspace]\nmembers = [\"srv\", \"tool\", \"gw\"]\n\n[workspace.dependencies]\nrmcp = \"1.7\"\n";
    let srv = format!(
        "{MEMBER}rmcp = {{ version = \"1.7\", features = [\"transport-child-process\"] }}\nprocess-wrap = {{ version = \"9.1.0\", default-features = false, features = [\"tokio1\"] }}\n"
    );
    // A member whose rmcp is the workspace's is beside rmcp too.
    let inherits = "[package]\nname = \"gw\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nrmcp.workspace = true\nprocess-wrap = \"9.1.0\"\n";
    let dir = workspace(root, &srv);
    // A package without rmcp keeps its own.
    let tool = "[package]\nname = \"tool\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nprocess-wrap = \"9.1.0\"\n";
    std::fs::create_dir_all(dir.path().join("tool/src")).unwrap();
    std::fs::write(dir.path().join("tool/Cargo.toml"), tool).unwrap();
    std::fs::write(dir.path().join("tool/src/lib.rs"), "pub fn t() {}\n").unwrap();
    std::fs::create_dir_all(dir.path().join("gw/src")).unwrap();
    std::fs::write(dir.path().join("gw/Cargo.toml"), inherits).unwrap();
    std::fs::write(dir.path().join("gw/src/lib.rs"), "pub fn g() {}\n").unwrap();
    let out = run(dir.path(), &["--fix", "--upgrade-rmcp", "."]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        read(dir.path().join("srv/Cargo.toml")),
        srv.replace("\"1.7\"", "\"3.11\"")
            .replace("\"9.1.0\"", "\"10.0\""),
        "{err}"
    );
    assert!(err.contains("process-wrap 9.1.0 -> 10.0"), "{err}");
    assert_eq!(read(dir.path().join("tool/Cargo.toml")), tool, "{err}");
    assert_eq!(
        read(dir.path().join("gw/Cargo.toml")),
        inherits.replace("\"9.1.0\"", "\"10.0\""),
        "{err}"
    );
}

/// rmcp's macro crate named beside it (pinned, as after a release whose macros outran rmcp)
/// follows rmcp's requirement, whether the tool raises rmcp or the requirement was raised by
/// hand with the pin left behind.
#[test]
fn a_pinned_rmcp_macros_follows_rmcp() {
    for rmcp in ["\"=1.7.0\"", "\"3.11\""] {
        let member = format!(
            "{MEMBER}rmcp = {{ version = {rmcp}, features = [\"server\"] }}\nrmcp-macros = \"=1.7.0\"\n"
        );
        let dir = workspace("[workspace]\nmembers = [\"srv\"]\n", &member);
        let out = run(dir.path(), &["--fix", "--upgrade-rmcp", "."]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            read(dir.path().join("srv/Cargo.toml")),
            member
                .replace(rmcp, "\"3.11\"")
                .replace("rmcp-macros = \"=1.7.0\"", "rmcp-macros = \"3.11\""),
            "{err}"
        );
        assert!(err.contains("rmcp-macros =1.7.0 -> 3.11"), "{err}");
    }
}

/// The fixture's manifest as Dependabot or Renovate leaves it: the requirement raised to 3.11,
/// nothing else (the code is as it was).
fn bumped_by_hand(name: &str) -> tempfile::TempDir {
    let dir = scratch(name);
    let manifest = dir.path().join("Cargo.toml");
    let text = read(manifest.clone());
    let bumped = ["=0.8.5", "=0.14.0", "1.7", "2.2"]
        .iter()
        .fold(text, |t, v| {
            t.replace(&format!("version = \"{v}\""), "version = \"3.11\"")
        });
    assert!(bumped.contains("version = \"3.11\""), "{name}");
    std::fs::write(&manifest, bumped).unwrap();
    dir
}

#[test]
fn a_manifest_bumped_by_hand_first_gets_the_same_upgrade() {
    // The usual way a server meets rmcp 3.x: the bump comes first, the build breaks, then the
    // tool runs. The code shows which rmcp it was written for, so the outcome is the same.
    for name in FIXTURES {
        let dir = bumped_by_hand(name);
        let out = run(
            dir.path(),
            &["--fix", "--unsafe-fixes", "--upgrade-rmcp", "src"],
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            read(dir.path().join("src/lib.rs")) == read(fixture(name).join("src/lib.fixed")),
            "{name}: src/lib.rs after a hand bump differs from src/lib.fixed\n{err}"
        );
        assert_eq!(
            read(dir.path().join("Cargo.toml")),
            read(fixture(name).join("Cargo.toml.fixed")),
            "{name}: {err}"
        );
        let again = run(dir.path(), &["--format", "concise", "src"]);
        let left = String::from_utf8_lossy(&again.stdout);
        assert!(!left.contains("MCP20"), "{name}: {left}");
    }
}

#[test]
fn a_dropped_feature_is_renamed_where_the_package_s_features_name_it_too() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    let manifest = "[package]\nname = \"srv\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[features]\ndefault = [\"sse\"]\nsse = [\"rmcp/transport-sse-server\", \"mcp?/transport-sse-client\"] # the old transport\n\n[dependencies]\nrmcp = { version = \"0.10\", features = [\"server\", \"transport-sse-server\"] }\n\n[dev-dependencies]\nmcp = { package = \"rmcp\", version = \"0.10\", optional = true }\n";
    std::fs::write(dir.path().join("Cargo.toml"), manifest).unwrap();
    std::fs::write(dir.path().join("src/lib.rs"), "pub fn f() {}\n").unwrap();
    let out = run(dir.path(), &["--fix", "--upgrade-rmcp", "."]);
    let err = String::from_utf8_lossy(&out.stderr);
    let want = manifest
        .replace("\"0.10\"", "\"3.11\"")
        .replace(
            "\"rmcp/transport-sse-server\"",
            "\"rmcp/transport-streamable-http-server\"",
        )
        .replace(
            "\"mcp?/transport-sse-client\"",
            "\"mcp?/transport-streamable-http-client\"",
        )
        .replace(
            "[\"server\", \"transport-sse-server\"]",
            "[\"server\", \"transport-streamable-http-server\"]",
        );
    assert_eq!(read(dir.path().join("Cargo.toml")), want, "{err}");
    assert!(
        err.contains("rmcp feature `transport-sse-server` -> `transport-streamable-http-server`"),
        "{err}"
    );
}

#[test]
fn a_path_or_git_rmcp_is_left_alone_and_the_run_says_so() {
    for (entry, kind) in [
        (
            "rmcp = { path = \"../rust-sdk/crates/rmcp\", features = [\"server\"] }",
            "path",
        ),
        (
            "rmcp = { git = \"https://example.invalid/rust-sdk\", branch = \"main\" }",
            "git",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        let manifest = format!("[package]\nname = \"srv\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n{entry}\n");
        std::fs::write(dir.path().join("Cargo.toml"), &manifest).unwrap();
        std::fs::write(dir.path().join("src/lib.rs"), "pub fn f() {}\n").unwrap();
        let out = run(dir.path(), &["--fix", "--upgrade-rmcp", "."]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(read(dir.path().join("Cargo.toml")), manifest, "{err}");
        assert!(
            err.contains(&format!(
                "rmcp is a {kind} dependency: its requirement is left as it is"
            )),
            "{err}"
        );
    }
}

#[test]
fn a_renamed_rmcp_keeps_its_name_in_the_paths_the_upgrade_writes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(
        dir.path().join("Cargo.toml"),
        "[package]\nname = \"srv\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nmcp = { package = \"rmcp\", version = \"2.2\", features = [\"server\"] }\n",
    )
    .unwrap();
    let src = "use mcp::model::{CallToolRequestParams, CallToolResult};\nuse mcp::service::RequestContext;\nuse mcp::transport::auth::OAuthState;\nuse mcp::{ErrorData, RoleServer, ServerHandler};\n\npub struct S;\n\nimpl ServerHandler for S {\n    async fn call_tool(\n        &self,\n        _request: CallToolRequestParams,\n        _context: RequestContext<RoleServer>,\n    ) -> Result<CallToolResult, ErrorData> {\n        Ok(CallToolResult::success(vec![]))\n    }\n}\n\npub async fn login(state: &mut OAuthState, uri: &str) {\n    let _ = state.start_authorization(&[], uri, None).await;\n}\n";
    std::fs::write(dir.path().join("src/lib.rs"), src).unwrap();
    let out = run(dir.path(), &["--fix", "--unsafe-fixes", "src"]);
    let err = String::from_utf8_lossy(&out.stderr);
    let fixed = read(dir.path().join("src/lib.rs"));
    assert!(
        fixed.contains("-> Result<mcp::model::CallToolResponse, ErrorData>"),
        "{fixed}\n{err}"
    );
    assert!(
        squash(&fixed).contains(&squash(
            "state.start_authorization(mcp::transport::AuthorizationRequest::new(uri))"
        )),
        "{fixed}\n{err}"
    );
    assert!(!fixed.contains("rmcp::"), "{fixed}");
}

/// `s` without whitespace and trailing commas: what a fix wrote, compared whatever layout rustfmt
/// gave it (a fixed file that was rustfmt-clean is formatted again).
fn squash(s: &str) -> String {
    let bare: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    bare.replace(",)", ")")
        .replace(",]", "]")
        .replace(",}", "}")
}

/// A package whose `answers.rs` builds an elicitation result through the crate's own re-export
/// of rmcp's 0.x names, which `lib.rs` declares (and `kinds`, when given, holds as `kinds.rs`).
fn re_exporting_package(lib: &str, kinds: Option<&str>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("Cargo.toml"),
        "[package]\nname = \"re\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nrmcp = { version = \"0.14.0\", features = [\"server\", \"elicitation\"] }\nserde_json = \"1\"\n",
    )
    .unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/lib.rs"), lib).unwrap();
    if let Some(kinds) = kinds {
        std::fs::write(dir.path().join("src/kinds.rs"), kinds).unwrap();
    }
    std::fs::write(
        dir.path().join("src/answers.rs"),
        "use crate::kinds::{CreateElicitationRequestParams, CreateElicitationResult, ElicitationAction};\n\npub fn accepted() -> CreateElicitationResult {\n    CreateElicitationResult {\n        action: ElicitationAction::Accept,\n        content: Some(serde_json::json!({\"ok\": true})),\n    }\n}\n\npub fn form(p: CreateElicitationRequestParams) -> bool {\n    matches!(p, CreateElicitationRequestParams::FormElicitationParams { .. })\n}\n",
    )
    .unwrap();
    dir
}

/// The upgrade of [`re_exporting_package`]: the literal is reported, then built with the renamed
/// struct's constructor, and nothing of MCP20x is left.
fn upgrades_the_re_exported_literal(dir: &Path) {
    let before = run(dir, &["--format", "concise", "src"]);
    assert!(
        String::from_utf8_lossy(&before.stdout).contains(
            "answers.rs:4:5: error[MCP204] a struct literal of `CreateElicitationResult`"
        ),
        "{}",
        String::from_utf8_lossy(&before.stdout)
    );
    let out = run(dir, &["--fix", "--unsafe-fixes", "--upgrade-rmcp", "src"]);
    let answers = read(dir.join("src/answers.rs"));
    assert!(
        answers.contains(
            "    CreateElicitationResult::new(ElicitationAction::Accept)\n        .with_content(serde_json::json!({\"ok\": true}))\n"
        ),
        "{answers}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let after = run(dir, &["--format", "concise", "src"]);
    let left = String::from_utf8_lossy(&after.stdout);
    assert!(!left.contains("MCP20"), "{left}");
}

const KINDS: &str = "pub use rmcp::model::{CreateElicitationRequestParams, CreateElicitationResult, ElicitationAction};\n";

#[test]
fn a_literal_of_an_old_name_the_crate_re_exports_is_built_by_the_renamed_struct_s_row() {
    // The crate re-exports rmcp's elicitation types under their 0.x names for its own modules;
    // the upgrade keeps those names as aliases (`ElicitResult as CreateElicitationResult`), and
    // a literal under the old name in another module is built with the renamed struct's
    // constructor. The struct that became an enum's variant, written as the variant under the
    // kept name, is then quiet.
    let dir = re_exporting_package("pub mod answers;\npub mod kinds;\n", Some(KINDS));
    upgrades_the_re_exported_literal(dir.path());
    assert!(
        read(dir.path().join("src/kinds.rs")).contains("ElicitResult as CreateElicitationResult")
    );
}

#[test]
fn a_re_export_in_an_inline_module_is_followed_too() {
    let dir = re_exporting_package(
        &format!("pub mod answers;\npub mod kinds {{\n    {KINDS}}}\n"),
        None,
    );
    upgrades_the_re_exported_literal(dir.path());
    assert!(read(dir.path().join("src/lib.rs")).contains("ElicitResult as CreateElicitationResult"));
}
