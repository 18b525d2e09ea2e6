//! Shapes of the rmcp rewrite checked on purpose-built files: requests inside helper functions
//! (what the asking-helper rewrite refuses, and why: each refusal names the caller and the
//! reason; a caller that also asks directly, migrated over two passes) and a peer kept in a
//! struct field. The shapes that build and run are in `tests/fix_fixtures` (`helpers.rs`,
//! `peers.rs`, ...), built and driven through MRTR rounds by `tests/fix_compile`.

use std::path::Path;
use std::process::{Command, Output};

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

const HEAD: &str = r#"use rmcp::model::*;
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, ErrorData, Peer, RoleServer};

pub struct S {
    stored: Peer<RoleServer>,
}
"#;

fn package(body: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("Cargo.toml"), MANIFEST).unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/lib.rs"), format!("{HEAD}{body}")).unwrap();
    dir
}

/// The fix message of the finding on the helper's request, and its applicability.
fn helper_fix(body: &str) -> (String, String) {
    let dir = package(body);
    let out = run(dir.path(), &["--format", "json", "src/lib.rs"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let f = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| ["MCP001", "MCP002", "MCP003"].contains(&f["code"].as_str().unwrap_or("")))
        .expect("the helper's request is found")
        .clone();
    (
        f["fix"]["applicability"].as_str().unwrap().to_string(),
        f["fix"]["message"].as_str().unwrap().to_string(),
    )
}

const HELPER: &str = r#"
async fn confirm(peer: &Peer<RoleServer>) -> Result<bool, ErrorData> {
    let ok = peer.elicit::<Yes>("Sure?").await;
    Ok(matches!(ok, Ok(Some(_))))
}
"#;

#[test]
fn a_chain_of_helpers_that_reaches_no_handler_is_left_and_its_last_link_named() {
    let (applicability, message) = helper_fix(&format!(
        "{HELPER}
async fn audit(peer: &Peer<RoleServer>) -> Result<bool, ErrorData> {{
    let ok = confirm(peer).await?;
    Ok(ok)
}}
"
    ));
    assert_eq!(applicability, "display-only");
    assert!(
        message.contains("`audit` is called from no request handler of this file"),
        "{message}"
    );
    let (_, message) = helper_fix(&format!(
        "{HELPER}
fn sync_caller(peer: &Peer<RoleServer>) {{
    let _ = confirm(peer);
}}
"
    ));
    assert!(
        message.contains("`sync_caller` calls `confirm`, but `sync_caller` is not an `async fn`"),
        "{message}"
    );
}

#[test]
fn a_helper_visible_outside_the_file_is_left() {
    let (applicability, message) =
        helper_fix(&HELPER.replace("async fn confirm", "pub async fn confirm"));
    assert_eq!(applicability, "display-only");
    assert!(message.contains("visible outside this file"), "{message}");
}

#[test]
fn a_caller_passing_a_stored_peer_or_calling_in_a_closure_is_named_with_the_reason() {
    let (applicability, message) = helper_fix(&format!(
        "{HELPER}
#[tool_router]
impl S {{
    #[tool(description = \"d\")]
    async fn stored(&self) -> Result<CallToolResult, ErrorData> {{
        let ok = confirm(&self.stored).await?;
        Ok(CallToolResult::success(vec![ContentBlock::text(ok.to_string())]))
    }}
}}
"
    ));
    assert_eq!(applicability, "display-only");
    assert!(
        message.contains("`stored` calls `confirm`, but the argument is not the caller's own peer"),
        "{message}"
    );
    let (_, message) = helper_fix(&format!(
        "{HELPER}
#[tool_router]
impl S {{
    #[tool(description = \"d\")]
    async fn later(&self, ctx: RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {{
        let ask = || async {{ confirm(&ctx.peer).await }};
        let ok = ask().await?;
        Ok(CallToolResult::success(vec![ContentBlock::text(ok.to_string())]))
    }}
}}
"
    ));
    assert!(
        message.contains("`later` calls `confirm`, but the call is inside a closure"),
        "{message}"
    );
}

#[test]
fn a_helper_without_a_result_is_left() {
    let (applicability, message) = helper_fix(
        "
async fn confirm(peer: &Peer<RoleServer>) -> bool {
    matches!(peer.elicit::<Yes>(\"Sure?\").await, Ok(Some(_)))
}
",
    );
    assert_eq!(applicability, "display-only");
    assert!(
        message.contains("does not return `Result<T, E>`"),
        "{message}"
    );
}

#[test]
fn a_caller_that_also_asks_directly_is_migrated_first_then_the_helper() {
    let dir = package(&format!(
        "{HELPER}
#[tool_router]
impl S {{
    #[tool(description = \"d\")]
    async fn both(&self, ctx: RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {{
        let name = ctx.peer.elicit::<Yes>(\"Name?\").await;
        let ok = confirm(&ctx.peer).await?;
        Ok(CallToolResult::success(vec![ContentBlock::text(format!(\"{{ok}} {{name:?}}\"))]))
    }}
}}
"
    ));
    let out = run(dir.path(), &["--fix", "--unsafe-fixes", "src/lib.rs"]);
    let err = String::from_utf8_lossy(&out.stderr);
    let fixed = std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap();
    assert!(err.contains("fixed 2 findings"), "{err}\n{fixed}");
    assert!(
        fixed.contains("#[mrtr_helper]\nasync fn confirm(mrtr: &Mrtr)"),
        "{fixed}"
    );
    assert!(fixed.contains("let ok = confirm(&mrtr).await?;"), "{fixed}");
    assert_eq!(fixed.matches("#[mrtr_handler]").count(), 1, "{fixed}");
    assert_eq!(fixed.matches("mrtr: Mrtr").count(), 1, "{fixed}");
    assert!(!fixed.contains(".peer"), "{fixed}");
}

#[test]
fn a_peer_kept_in_a_field_is_asked_through_mrtr_in_a_tool() {
    let dir = package(
        "
#[tool_router]
impl S {
    #[tool(description = \"d\")]
    async fn kept(&self) -> Result<CallToolResult, ErrorData> {
        let ok = self.stored.elicit::<Yes>(\"Sure?\").await;
        Ok(CallToolResult::success(vec![ContentBlock::text(format!(\"{ok:?}\"))]))
    }
}
",
    );
    let out = run(dir.path(), &["--fix", "--unsafe-fixes", "src/lib.rs"]);
    let err = String::from_utf8_lossy(&out.stderr);
    let fixed = std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap();
    assert!(err.contains("fixed 1 finding"), "{err}\n{fixed}");
    assert!(
        fixed.contains("async fn kept(&self, mrtr: Mrtr)"),
        "{fixed}"
    );
    assert!(
        fixed.contains("mrtr.elicit::<Yes>(\"Sure?\").await?"),
        "{fixed}"
    );
    assert!(!fixed.contains("self.stored.elicit"), "{fixed}");
}

#[test]
fn an_old_result_matched_in_place_gets_its_own_let_not_a_match_of_a_match() {
    let dir = package(
        r#"
#[tool_router]
impl S {
    #[tool(description = "d")]
    async fn pick(&self, ctx: RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let text = match ctx.peer.elicit::<Yes>("Sure?").await {
            Ok(answer) => format!("{answer:?}"),
            Err(e) => e.to_string(),
        };
        let roots = ctx.peer.list_roots().await.map(|r| r.roots.len()).unwrap_or(0);
        Ok(CallToolResult::success(vec![ContentBlock::text(format!("{text} {roots}"))]))
    }
}
"#,
    );
    let out = run(dir.path(), &["--fix", "--unsafe-fixes", "src/lib.rs"]);
    let err = String::from_utf8_lossy(&out.stderr);
    let fixed = std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap();
    assert!(err.contains("fixed 2 findings"), "{err}\n{fixed}");
    assert!(!fixed.contains("match match"), "{fixed}");
    assert!(
        fixed.contains("let text_result = match text_answer {"),
        "{fixed}"
    );
    assert!(fixed.contains("let text = match text_result {"), "{fixed}");
    assert!(
        fixed.contains("let roots = roots_result.map(|r| r.roots.len())"),
        "{fixed}"
    );
}

#[test]
fn a_request_after_a_call_with_effects_in_its_statement_is_left() {
    let (applicability, message) = helper_fix(
        r#"
#[tool_router]
impl S {
    #[tool(description = "d")]
    async fn count(&self, ctx: RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let total = self.bump() + ctx.peer.list_roots().await.map(|r| r.roots.len()).unwrap_or(0);
        Ok(CallToolResult::success(vec![ContentBlock::text(total.to_string())]))
    }
}
"#,
    );
    assert_eq!(applicability, "display-only");
    assert!(
        message.contains(
            "the call stands after `self.bump()` in its statement, which runs first and may have \
effects; hoisting the call into its own `let` would run it before"
        ),
        "{message}"
    );
    // Paths, literals and field reads before it do not run anything: hoisted.
    let (applicability, _) = helper_fix(
        r#"
#[tool_router]
impl S {
    #[tool(description = "d")]
    async fn count(&self, ctx: RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let total = self.base + ctx.peer.list_roots().await.map(|r| r.roots.len()).unwrap_or(0);
        Ok(CallToolResult::success(vec![ContentBlock::text(total.to_string())]))
    }
}
"#,
    );
    assert_eq!(applicability, "unsafe");
}
