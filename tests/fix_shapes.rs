//! Shapes of the rmcp rewrite checked on purpose-built files: requests inside helper functions
//! (what the asking-helper rewrite refuses, and why: each refusal names the caller and the
//! reason; a caller that also asks directly, migrated over two passes) and a peer kept in a
//! struct field. The shapes that build and run are in `tests/fix_fixtures` (`helpers.rs`,
//! `peers.rs`, ...), built and driven through MRTR rounds by `tests/fix_compile`.
//!
//! These are the compiled tier's shapes (`#[mrtr_handler]`, `#[mrtr_helper]`), so every run here
//! has `--no-deferred-fixes`: what the compiled rewrite refuses stays visible with its reason.
//! The deferred tier, which takes those requests by default, is `tests/fix_deferred.rs`.

use std::path::Path;
use std::process::{Command, Output};

fn run(dir: &Path, args: &[&str]) -> Output {
    let mut all = vec!["--no-deferred-fixes"];
    all.extend_from_slice(args);
    run_with_deferred(dir, &all)
}

/// [`run`] with the deferred tier on, as it is by default.
fn run_with_deferred(dir: &Path, args: &[&str]) -> Output {
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
fn a_plain_helper_whose_request_sits_in_a_macro_is_left() {
    let (applicability, message) = helper_fix(
        "
async fn confirm(peer: &Peer<RoleServer>) -> bool {
    matches!(peer.elicit::<Yes>(\"Sure?\").await, Ok(Some(_)))
}
",
    );
    assert_eq!(applicability, "display-only");
    assert!(
        message.contains("the request sits in `confirm`") && message.contains("macro invocation"),
        "{message}"
    );
}

/// `--fix --unsafe-fixes` on a package made of `body`: the report on stderr and the fixed file.
fn fixed(body: &str) -> (String, String) {
    let dir = package(body);
    let out = run(dir.path(), &["--fix", "--unsafe-fixes", "src/lib.rs"]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    (
        err,
        std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap(),
    )
}

const TOOL: &str = r#"
#[tool_router]
impl S {
    #[tool(description = "d")]
    async fn t(&self, ctx: RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {
        CALL
        Ok(CallToolResult::success(vec![]))
    }
}
"#;

fn with_tool(helpers: &str, call: &str) -> String {
    format!("{helpers}{}", TOOL.replace("CALL", call))
}

#[test]
fn a_helper_returning_nothing_returns_ok_unit_and_its_call_gets_the_question_mark() {
    let (err, fixed) = fixed(&with_tool(
        r#"
async fn log_roots(peer: &Peer<RoleServer>) {
    let Ok(listed) = peer.list_roots().await else {
        return;
    };
    for root in &listed.roots {
        println!("{}", root.uri);
    }
}

async fn audit(peer: &Peer<RoleServer>) {
    log_roots(peer).await
}
"#,
        "audit(&ctx.peer).await;",
    ));
    assert!(err.contains("fixed 1 finding"), "{err}\n{fixed}");
    assert!(
        fixed.contains(
            "#[mrtr_helper]
async fn log_roots(mrtr: &Mrtr) -> Result<(), ErrorData> {
    let Ok(listed) = mrtr.list_roots().await else {
        return Ok(());
    };
    for root in &listed {
        println!(\"{}\", root.uri);
    }
    Ok(())
}"
        ),
        "{fixed}"
    );
    // A tail call in a function that returned `()` gets the `?` too, then `Ok(())`.
    assert!(
        fixed.contains(
            "#[mrtr_helper]
async fn audit(mrtr: &Mrtr) -> Result<(), ErrorData> {
    log_roots(mrtr).await?;
    Ok(())
}"
        ),
        "{fixed}"
    );
    assert!(fixed.contains("        audit(&mrtr).await?;\n"), "{fixed}");
}

#[test]
fn a_returned_call_of_a_chained_helper_is_hoisted_and_its_value_left_as_it_is() {
    let (err, fixed) = fixed(&with_tool(
        r#"
async fn has_roots(peer: &Peer<RoleServer>) -> bool {
    peer.list_roots().await.map(|r| !r.roots.is_empty()).unwrap_or(false)
}

async fn check(peer: &Peer<RoleServer>, strict: bool) -> bool {
    if strict {
        return has_roots(peer).await;
    }
    has_roots(peer).await
}
"#,
        "let ok = check(&ctx.peer, true).await;",
    ));
    assert!(err.contains("fixed 1 finding"), "{err}\n{fixed}");
    assert!(
        fixed.contains(
            "async fn has_roots(mrtr: &Mrtr) -> Result<bool, ErrorData> {
    let answer = mrtr.list_roots().await;
    Ok(answer.map(|r| !r.is_empty()).unwrap_or(false))
}"
        ),
        "{fixed}"
    );
    assert!(
        fixed.contains(
            "async fn check(mrtr: &Mrtr, strict: bool) -> Result<bool, ErrorData> {
    if strict {
        let has_roots_answer = has_roots(mrtr).await?;
        return Ok(has_roots_answer);
    }
    has_roots(mrtr).await
}"
        ),
        "{fixed}"
    );
    assert!(
        fixed.contains("let ok = check(&mrtr, true).await?;"),
        "{fixed}"
    );
}

#[test]
fn an_elicitation_let_else_in_a_plain_helper_stays_in_place_and_keeps_its_else() {
    let (_, fixed) = fixed(&with_tool(
        r#"
async fn sure(peer: &Peer<RoleServer>) -> bool {
    let Ok(Some(Yes { yes })) = peer.elicit::<Yes>("Sure?").await else {
        return false;
    };
    yes
}
"#,
        "let ok = sure(&ctx.peer).await;",
    ));
    assert!(
        fixed.contains(
            "async fn sure(mrtr: &Mrtr) -> Result<bool, ErrorData> {
    let Ok(Elicitation::Accept(Yes { yes })) = mrtr.elicit::<Yes>(\"Sure?\").await else {
        return Ok(false);
    };
    Ok(yes)
}"
        ),
        "{fixed}"
    );
}

#[test]
fn capability_checks_through_the_peer_become_the_runtimes() {
    let (err, fixed) = fixed(&with_tool(
        r#"
async fn confirm(peer: &Peer<RoleServer>) -> Result<bool, ErrorData> {
    if !peer.peer_info().map(|i| i.capabilities.elicitation.is_some()).unwrap_or(false) {
        return Ok(true);
    }
    let url = peer.supported_elicitation_modes().contains(&ElicitationMode::Url);
    let ok = peer.elicit::<Yes>("Sure?").await;
    Ok(url || matches!(ok, Ok(Some(_))))
}
"#,
        "let ok = confirm(&ctx.peer).await?;",
    ));
    assert!(err.contains("fixed 1 finding"), "{err}\n{fixed}");
    assert!(fixed.contains("async fn confirm(mrtr: &Mrtr)"), "{fixed}");
    assert!(
        fixed.contains(
            "if !(mrtr.supports_form_elicitation() || mrtr.supports_url_elicitation()) {"
        ),
        "{fixed}"
    );
    assert!(
        fixed.contains("let url = mrtr.supports_url_elicitation();"),
        "{fixed}"
    );
    assert!(!fixed.contains("peer"), "{fixed}");
}

#[test]
fn a_tools_capability_check_moves_to_the_mrtr_that_takes_its_contexts_place() {
    let (err, fixed) = fixed(&with_tool(
        "
async fn has_roots(peer: &Peer<RoleServer>) -> bool {
    peer.list_roots().await.is_ok()
}
",
        "let declared = ctx.peer.peer_info().is_some_and(|i| i.capabilities.roots.is_some());
        let ok = has_roots(&ctx.peer).await;",
    ));
    assert!(err.contains("fixed 1 finding"), "{err}\n{fixed}");
    assert!(fixed.contains("async fn t(&self, mrtr: Mrtr)"), "{fixed}");
    assert!(
        fixed.contains("let declared = mrtr.supports_roots();"),
        "{fixed}"
    );
    assert!(
        fixed.contains("let ok = has_roots(&mrtr).await?;"),
        "{fixed}"
    );
}

#[test]
fn helpers_whose_callers_return_different_error_types_are_left() {
    let (applicability, message) = helper_fix(&with_tool(
        "
async fn has_roots(peer: &Peer<RoleServer>) -> bool {
    peer.list_roots().await.is_ok()
}

async fn audit(peer: &Peer<RoleServer>) -> Result<bool, String> {
    Ok(has_roots(peer).await)
}
",
        "let a = audit(&ctx.peer).await; let b = has_roots(&ctx.peer).await;",
    ));
    assert_eq!(applicability, "display-only");
    assert!(
        message.contains(
            "`audit` and `t` call `has_roots` with different result types (`Result<_, String>` \
and `Result<_, ErrorData>`)"
        ),
        "{message}"
    );
}

#[test]
fn a_question_mark_in_a_typed_let_of_a_plain_helper_is_left() {
    let (applicability, message) = helper_fix(&with_tool(
        "
async fn count(peer: &Peer<RoleServer>) -> Option<usize> {
    let n: usize = peer.list_roots().await.ok().map(|r| r.roots.len())?;
    Some(n)
}
",
        "let n = count(&ctx.peer).await;",
    ));
    assert_eq!(applicability, "display-only");
    assert!(
        message.contains("applies `?` to one in a `let` with a type"),
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

#[test]
fn an_error_only_shown_is_the_runtimes_and_an_error_passed_on_keeps_its_old_type() {
    let (err, shown) = fixed(&with_tool(
        r#"
async fn shown(peer: &Peer<RoleServer>) -> Vec<String> {
    match peer.list_roots().await {
        Ok(r) => r.roots.into_iter().map(|x| x.uri).collect(),
        Err(e) => vec![e.to_string()],
    }
}
"#,
        "let y = shown(&ctx.peer).await;",
    ));
    assert!(err.contains("fixed 1 finding"), "{err}\n{shown}");
    assert!(
        shown.contains(
            "    let answer = mrtr.list_roots().await;
    match answer {
        Ok(r) => Ok(r.into_iter().map(|x| x.uri).collect()),
        Err(e) => Ok(vec![e.to_string()]),
    }"
        ),
        "{shown}"
    );
    let (_, passed) = fixed(&with_tool(
        r#"
async fn passed_on(peer: &Peer<RoleServer>) -> Option<String> {
    match peer.list_roots().await {
        Ok(r) => r.roots.first().map(|x| x.uri.clone()),
        Err(e) => describe(e),
    }
}
"#,
        "let y = passed_on(&ctx.peer).await;",
    ));
    assert!(
        passed
            .contains(".map_err(|e| rmcp::ServiceError::McpError(e.into()));\n    match result {"),
        "{passed}"
    );
    assert!(passed.contains("Ok(r) => Ok(r.roots.first()"), "{passed}");
}

#[test]
fn a_tool_returning_a_string_returns_its_text_as_a_call_tool_result_once_it_asks() {
    let body = r#"
async fn roots_of(context: &RequestContext<RoleServer>) -> Vec<String> {
    let Ok(result) = context.peer.list_roots().await else {
        return Vec::new();
    };
    result.roots.into_iter().map(|r| r.uri).collect()
}

#[tool_router]
impl S {
    #[tool(description = "roots")]
    async fn show_roots(&self, context: RequestContext<RoleServer>) -> String {
        roots_of(&context).await.join(", ")
    }
}
"#;
    let dir = package(body);
    let out = run(dir.path(), &["--fix", "--unsafe-fixes", "src/lib.rs"]);
    let fixed = std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    for want in [
        "async fn roots_of(mrtr: &Mrtr) -> Result<Vec<String>, rmcp::ErrorData> {",
        "        return Ok(Vec::new());",
        "    #[mrtr_handler]\n    async fn show_roots(&self, mrtr: Mrtr) -> Result<rmcp::model::CallToolResult, rmcp::ErrorData> {",
        "        let roots_of_answer = roots_of(&mrtr).await?;\n        Ok(rmcp::model::CallToolResult::success(vec![rmcp::model::ContentBlock::text(roots_of_answer.join(\", \"))]))",
    ] {
        assert!(squash(&fixed).contains(&squash(want)), "{want}\n---\n{fixed}\n{err}");
    }
    // A tool returning another plain type is left, with the reason.
    let (applicability, message) = helper_fix(
        &body
            .replace("-> String {", "-> usize {")
            .replace(".join(\", \")", ".len()"),
    );
    assert_eq!(applicability, "display-only", "{message}");
    assert!(message.contains("show_roots"), "{message}");
}

#[test]
fn elicitation_modes_held_in_a_local_are_tested_by_the_runtime() {
    let (err, fixed) = fixed(&with_tool(
        r#"
async fn confirm(peer: &Peer<RoleServer>) -> Result<bool, ErrorData> {
    let modes = peer.supported_elicitation_modes();
    if !modes.contains(&ElicitationMode::Form) {
        return Ok(modes.contains(&ElicitationMode::Url));
    }
    let ok = peer.elicit::<Yes>("Sure?").await;
    Ok(matches!(ok, Ok(Some(_))))
}
"#,
        "let ok = confirm(&ctx.peer).await?;",
    ));
    assert!(err.contains("fixed 1 finding"), "{err}\n{fixed}");
    assert!(fixed.contains("async fn confirm(mrtr: &Mrtr)"), "{fixed}");
    assert!(
        fixed.contains("if !mrtr.supports_form_elicitation() {"),
        "{fixed}"
    );
    assert!(
        fixed.contains("return Ok(mrtr.supports_url_elicitation());"),
        "{fixed}"
    );
    assert!(!fixed.contains("modes"), "the local goes: {fixed}");
    assert!(!fixed.contains("peer"), "{fixed}");
}

#[test]
fn a_modes_local_read_otherwise_stays_on_the_kept_peer() {
    let (err, fixed) = fixed(&with_tool(
        r#"
async fn confirm(peer: &Peer<RoleServer>) -> Result<bool, ErrorData> {
    let modes = peer.supported_elicitation_modes();
    if modes.len() > 1 && modes.contains(&ElicitationMode::Url) {
        return Ok(true);
    }
    let ok = peer.elicit::<Yes>("Sure?").await;
    Ok(matches!(ok, Ok(Some(_))))
}
"#,
        "let ok = confirm(&ctx.peer).await?;",
    ));
    assert!(err.contains("fixed 1 finding"), "{err}\n{fixed}");
    assert!(
        fixed.contains("async fn confirm(peer: &Peer<RoleServer>, mrtr: &Mrtr)"),
        "{fixed}"
    );
    assert!(
        fixed.contains("let modes = peer.supported_elicitation_modes();")
            && fixed.contains("modes.contains(&ElicitationMode::Url)"),
        "{fixed}"
    );
    assert!(
        fixed.contains("confirm(&ctx.peer, &mrtr).await?"),
        "the tool hands over both: {fixed}"
    );
}

#[test]
fn a_helper_that_also_notifies_keeps_its_peer_and_takes_the_mrtr_next_to_it() {
    let (err, fixed) = fixed(&with_tool(
        r#"
async fn confirm(peer: &Peer<RoleServer>, what: &str) -> Result<bool, ErrorData> {
    let ok = peer.elicit::<Yes>(format!("{what}?")).await;
    let _ = peer
        .notify_progress(ProgressNotificationParam::new(ProgressToken(NumberOrString::Number(1)), 1.0))
        .await;
    Ok(matches!(ok, Ok(Some(_))))
}
"#,
        r#"let ok = confirm(&ctx.peer, "Sure").await?;"#,
    ));
    assert!(err.contains("fixed 1 finding"), "{err}\n{fixed}");
    assert!(
        fixed.contains("async fn confirm(peer: &Peer<RoleServer>, mrtr: &Mrtr, what: &str)"),
        "{fixed}"
    );
    assert!(fixed.contains("mrtr.elicit::<Yes>("), "{fixed}");
    assert!(fixed.contains("peer\n        .notify_progress("), "{fixed}");
    assert!(
        fixed.contains(r#"confirm(&ctx.peer, &mrtr, "Sure").await?"#),
        "{fixed}"
    );
    assert!(
        fixed.contains("ctx: RequestContext<RoleServer>"),
        "the tool keeps its context: {fixed}"
    );
}

const ASKING_TOOL: &str = r#"
#[tool_router]
impl S {
    #[tool(description = "d")]
    async fn t(&self, ctx: RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let roots = ctx.peer.list_roots().await.map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(CallToolResult::success(vec![ContentBlock::text(roots.roots.len().to_string())]))
    }
}
"#;

#[test]
fn the_runtime_requirement_can_be_given_and_diff_shows_the_manifest() {
    let dir = package(ASKING_TOOL);
    let spec = r#"{ path = "../mrtr/runtime" }"#;
    let out = run(
        dir.path(),
        &[
            "--diff",
            "--unsafe-fixes",
            "--mrtr-dependency",
            spec,
            "src/lib.rs",
        ],
    );
    let diff = String::from_utf8_lossy(&out.stdout);
    assert!(
        diff.contains("+mrtr = { path = \"../mrtr/runtime\" }"),
        "{diff}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("Cargo.toml")).unwrap(),
        MANIFEST
    );
    let out = run(
        dir.path(),
        &[
            "--fix",
            "--unsafe-fixes",
            "--mrtr-dependency",
            spec,
            "src/lib.rs",
        ],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("Cargo.toml")).unwrap(),
        format!("{MANIFEST}mrtr = {{ path = \"../mrtr/runtime\" }}\n"),
        "{err}"
    );
    assert!(std::fs::read_to_string(dir.path().join("src/lib.rs"))
        .unwrap()
        .contains("use mrtr::"));
}

#[test]
fn a_requirement_that_is_not_toml_leaves_every_file_as_it_was() {
    let dir = package(ASKING_TOOL);
    let before = std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap();
    let out = run(
        dir.path(),
        &[
            "--fix",
            "--unsafe-fixes",
            "--mrtr-dependency",
            "{ nope",
            "src/lib.rs",
        ],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("not fixed: its Cargo.toml"), "{err}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap(),
        before
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("Cargo.toml")).unwrap(),
        MANIFEST
    );
}

/// A package of several files (`(name, text)` under `src/`).
fn files_package(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("Cargo.toml"), MANIFEST).unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join("src").join(name), text).unwrap();
    }
    dir
}

const SHARED_HELPER: &str = r#"//! The shared question.
use rmcp::{ErrorData, Peer, RoleServer};

pub(crate) async fn sure(peer: &Peer<RoleServer>) -> Result<bool, ErrorData> {
    let listed = peer.list_roots().await.map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
    Ok(!listed.roots.is_empty())
}
"#;

const CALLING_TOOL: &str = r#"use rmcp::model::*;
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, ErrorData, RoleServer};

pub struct S;

#[tool_router]
impl S {
    #[tool(description = "d")]
    async fn t(&self, ctx: RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let ok = crate::shared::sure(&ctx.peer).await?;
        Ok(CallToolResult::success(vec![ContentBlock::text(ok.to_string())]))
    }
}
"#;

fn read_src(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join("src").join(name)).unwrap()
}

#[test]
fn a_crate_visible_helper_is_rewritten_with_its_callers_in_other_files() {
    let dir = files_package(&[("shared.rs", SHARED_HELPER), ("lib.rs", CALLING_TOOL)]);
    let diff = run(dir.path(), &["--diff", "--unsafe-fixes", "src"]);
    let shown = String::from_utf8_lossy(&diff.stdout);
    assert!(
        shown.contains("+++ b/src/shared.rs") && shown.contains("+++ b/src/lib.rs"),
        "{shown}"
    );
    assert_eq!(
        read_src(dir.path(), "shared.rs"),
        SHARED_HELPER,
        "--diff writes nothing"
    );
    let out = run(dir.path(), &["--fix", "--unsafe-fixes", "src"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("fixed 1 finding across 3 files"), "{err}");
    let helper = read_src(dir.path(), "shared.rs");
    let tool = read_src(dir.path(), "lib.rs");
    assert!(
        helper.contains("#[mrtr_helper]\npub(crate) async fn sure(mrtr: &Mrtr)"),
        "{helper}"
    );
    assert!(
        helper.contains("use mrtr::{mrtr_helper, Mrtr};"),
        "{helper}"
    );
    assert!(tool.contains("crate::shared::sure(&mrtr).await?"), "{tool}");
    assert!(tool.contains("use mrtr::{mrtr_handler, Mrtr};"), "{tool}");
    assert!(tool.contains("impl mrtr::MrtrServer for S {}"), "{tool}");
    let manifest = std::fs::read_to_string(dir.path().join("Cargo.toml")).unwrap();
    assert!(manifest.ends_with("mrtr = \"0.1\"\n"), "{manifest}");
}

#[test]
fn a_helper_name_the_crate_defines_twice_is_left_with_its_reason() {
    let other = "pub(crate) async fn sure(n: u32) -> bool { n > 0 }\n";
    let dir = files_package(&[
        ("shared.rs", SHARED_HELPER),
        ("lib.rs", CALLING_TOOL),
        ("other.rs", other),
    ]);
    let out = run(dir.path(), &["--fix", "--unsafe-fixes", "src"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("across"), "{err}");
    assert_eq!(read_src(dir.path(), "shared.rs"), SHARED_HELPER);
    assert_eq!(read_src(dir.path(), "lib.rs"), CALLING_TOOL);
}

#[test]
fn a_file_that_does_not_parse_stops_only_the_rewrite_across_files() {
    let dir = files_package(&[
        ("shared.rs", SHARED_HELPER),
        ("lib.rs", CALLING_TOOL),
        ("broken.rs", "fn broken( {\n"),
    ]);
    let out = run(dir.path(), &["--fix", "--unsafe-fixes", "src"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("helpers with callers in other files not rewritten: src/broken.rs"),
        "{err}"
    );
    assert!(
        err.contains("src/broken.rs"),
        "the parse error is reported: {err}"
    );
    assert_eq!(read_src(dir.path(), "shared.rs"), SHARED_HELPER);
}

const FROM_TASK_LOCAL: &str = r#"
fn current_request_context() -> Option<RequestContext<RoleServer>> {
    None
}

async fn roots_count() -> Result<usize, ErrorData> {
    let context = GETTER.ok_or_else(|| ErrorData::internal_error("no context", None))?;
    let listed = context.peer.list_roots().await.map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
    Ok(listed.roots.len())
}
"#;

#[test]
fn a_context_read_from_the_requests_task_local_becomes_a_new_mrtr_parameter() {
    let (err, fixed) = fixed(&with_tool(
        &FROM_TASK_LOCAL.replace("GETTER", "current_request_context()"),
        "let n = roots_count().await?;",
    ));
    assert!(err.contains("fixed 1 finding"), "{err}\n{fixed}");
    assert!(
        fixed.contains("async fn roots_count(mrtr: &Mrtr)"),
        "{fixed}"
    );
    assert!(!fixed.contains("let context"), "the read goes: {fixed}");
    assert!(
        fixed.contains("let n = roots_count(&mrtr).await?;"),
        "{fixed}"
    );
}

#[test]
fn a_context_from_a_lookup_with_arguments_or_another_name_is_left() {
    for getter in ["lookup_request_context(7)", "cached_context()"] {
        let body = FROM_TASK_LOCAL
            .replace("GETTER", getter)
            .replace("fn current_request_context()", "fn unused()");
        let (applicability, message) =
            helper_fix(&with_tool(&body, "let n = roots_count().await?;"));
        assert_eq!(applicability, "display-only", "{getter}: {message}");
        assert!(
            message.contains("not reached through the handler's own"),
            "{getter}: {message}"
        );
    }
}

#[test]
fn a_generic_server_type_gets_its_impl_with_its_parameters_and_bounds() {
    let src = r#"use rmcp::model::*;
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, ErrorData, RoleServer};

pub trait Tools: Send + Sync {}
pub struct Plain;
impl Tools for Plain {}

pub struct S<T: Tools = Plain, const N: usize = 4>
where
    T: 'static,
{
    tools: T,
}

#[tool_router]
impl<T: Tools + 'static, const N: usize> S<T, N> {
    #[tool(description = "d")]
    async fn t(&self, ctx: RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let roots = ctx.peer.list_roots().await.map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(CallToolResult::success(vec![ContentBlock::text(roots.roots.len().to_string())]))
    }
}
"#;
    let dir = files_package(&[("lib.rs", src)]);
    let out = run(dir.path(), &["--fix", "--unsafe-fixes", "src"]);
    let err = String::from_utf8_lossy(&out.stderr);
    let fixed = read_src(dir.path(), "lib.rs");
    assert!(err.contains("fixed 1 finding"), "{err}\n{fixed}");
    assert!(
        fixed.contains(
            "}\n\nimpl<T: Tools, const N: usize> mrtr::MrtrServer for S<T, N> where\n    T: 'static, {}\n"
        ),
        "{fixed}"
    );
}

#[test]
fn a_question_moved_out_of_a_binding_gets_its_own_let_in_a_plain_helper_too() {
    let (err, fixed) = fixed(&with_tool(
        r#"
pub struct Form {
    pub message: String,
}

async fn agreed(peer: &Peer<RoleServer>, form: Form) -> bool {
    match peer.elicit::<Yes>(form.message).await {
        Ok(Some(_)) => true,
        _ => false,
    }
}
"#,
        r#"let ok = agreed(&ctx.peer, Form { message: "Sure?".into() }).await;"#,
    ));
    assert!(err.contains("fixed 1 finding"), "{err}\n{fixed}");
    assert!(fixed.contains("let message = form.message;"), "{fixed}");
    assert!(fixed.contains("mrtr.elicit::<Yes>(message)"), "{fixed}");
}

const GATE: &str = r#"//! The gate: asked before any effect, through the peer it holds.
use rmcp::{Peer, RoleServer};

#[async_trait::async_trait]
pub trait Confirmer: Send + Sync {
    async fn require(&self, what: &str) -> Result<(), String>;
}

pub struct PeerGate {
    peer: Peer<RoleServer>,
}

impl PeerGate {
    pub fn new(peer: Peer<RoleServer>) -> Self {
        Self { peer }
    }
}

#[async_trait::async_trait]
impl Confirmer for PeerGate {
    async fn require(&self, what: &str) -> Result<(), String> {
        match self.peer.ASK {
            Ok(Some(_)) => Ok(()),
            _ => Err(format!("{what} not confirmed")),
        }
    }
}
"#;

const GATED_TOOL: &str = r#"use rmcp::model::*;
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, ErrorData, Peer, RoleServer};

use crate::gate::{Confirmer, PeerGate};

fn gate_for(peer: &Peer<RoleServer>) -> Box<dyn Confirmer> {
    Box::new(PeerGate::new(peer.clone()))
}

async fn drop_table(gate: &dyn Confirmer) -> Result<String, String> {
    gate.require("drop").await?;
    Ok("dropped".into())
}

pub struct S;

#[tool_router]
impl S {
    #[tool(description = "d")]
    async fn drop(&self, ctx: RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let gate = gate_for(&ctx.peer);
        let text = drop_table(gate.as_ref()).await.unwrap_or_else(|e| e);
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
    }
}
"#;

fn gate_with(ask: &str) -> String {
    GATE.replace("ASK", ask)
}

/// The (only) MCP006 finding of the package, as the JSON report gives it.
fn mcp006(dir: &Path, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["--format", "json"];
    all.extend_from_slice(args);
    all.push("src");
    let out = run(dir, &all);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "MCP006")
        .expect("an MCP006 finding")
        .clone()
}

/// The fix on the gate's request: applicability and message.
fn gate_fix(dir: &Path) -> (String, String) {
    let f = mcp006(dir, &["--unsafe-fixes"]);
    (
        f["fix"]["applicability"]
            .as_str()
            .unwrap_or("none")
            .to_string(),
        f["fix"]["message"].as_str().unwrap_or("").to_string(),
    )
}

#[test]
fn a_gate_behind_a_trait_object_becomes_a_deferred_ask_and_its_tool_a_handler() {
    let gate = gate_with("elicit::<Yes>(format!(\"Really {what}?\")).await");
    let dir = files_package(&[("gate.rs", &gate), ("lib.rs", GATED_TOOL)]);
    let out = run(dir.path(), &["--fix", "--unsafe-fixes", "src"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("fixed 1 finding across 3 files"), "{err}");
    let gate = read_src(dir.path(), "gate.rs");
    let tool = read_src(dir.path(), "lib.rs");
    assert!(
        squash(&gate).contains(&squash(
            "match mrtr::rmcp::deferred::elicit::<Yes>(&self.peer, format!(\"Really {what}?\")).await {"
        )),
        "{gate}"
    );
    // The tool keeps its context (it hands the peer on) and takes the handle next to it.
    assert!(
        squash(&tool).contains(&squash(
            "#[mrtr_handler]\n    async fn drop(&self, mrtr: Mrtr, ctx: RequestContext<RoleServer>)"
        )),
        "{tool}"
    );
    assert!(tool.contains("impl mrtr::MrtrServer for S {}"), "{tool}");
    assert!(tool.contains("let gate = gate_for(&ctx.peer);"), "{tool}");
    let manifest = std::fs::read_to_string(dir.path().join("Cargo.toml")).unwrap();
    assert!(manifest.ends_with("mrtr = \"0.1\"\n"), "{manifest}");
}

#[test]
fn a_gate_no_request_handler_reaches_is_left_with_its_reason() {
    let gate = gate_with("elicit::<Yes>(\"Sure?\").await");
    let unreached = GATED_TOOL.replace("gate_for(&ctx.peer)", "Box::new(crate::NoGate)");
    let dir = files_package(&[("gate.rs", &gate), ("lib.rs", &unreached)]);
    let (applicability, message) = gate_fix(dir.path());
    assert_eq!(applicability, "display-only", "{message}");
    assert!(
        message.contains("the request handlers that reach it are in other files"),
        "{message}"
    );
    let out = run(dir.path(), &["--fix", "--unsafe-fixes", "src"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(read_src(dir.path(), "gate.rs"), gate, "{err}");
}

#[test]
fn a_stored_peer_method_without_a_deferred_form_is_left_with_its_reason() {
    let gate = gate_with(
        "send_request_with_option(ServerRequest::ListRootsRequest(Default::default()), Default::default()).await",
    );
    let dir = files_package(&[("gate.rs", &gate), ("lib.rs", GATED_TOOL)]);
    let (applicability, message) = gate_fix(dir.path());
    assert_eq!(applicability, "display-only", "{message}");
    assert!(
        message.contains("`send_request_with_option` has no deferred form"),
        "{message}"
    );
    run(dir.path(), &["--fix", "--unsafe-fixes", "src"]);
    assert_eq!(read_src(dir.path(), "gate.rs"), gate);
    // `elicit_url` has one now: the pass across files writes it as it writes `elicit`.
    let gate = gate_with("elicit_url(\"Sign in\", url(), \"sign-in\").await");
    let dir = files_package(&[("gate.rs", &gate), ("lib.rs", GATED_TOOL)]);
    let out = run(dir.path(), &["--fix", "--unsafe-fixes", "src"]);
    let err = String::from_utf8_lossy(&out.stderr);
    let gate = read_src(dir.path(), "gate.rs");
    assert!(
        squash(&gate).contains(&squash(
            "match mrtr::rmcp::deferred::elicit_url(&self.peer, \"Sign in\", url(), \"sign-in\").await {"
        )),
        "{err}\n{gate}"
    );
}

const GATED_CALL_TOOL_RMCP2: &str = r#"use rmcp::model::*;
use rmcp::service::RequestContext;
use rmcp::{ErrorData, Peer, RoleServer, ServerHandler};

use crate::gate::{Confirmer, PeerGate};

pub struct S;

impl ServerHandler for S {
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let gate = PeerGate::new(context.peer.clone());
        gate.require(&request.name).await.map_err(|e| ErrorData::invalid_request(e, None))?;
        Ok(CallToolResult::success(vec![Content::text("done")]))
    }
}
"#;

/// On rmcp 2.x, `--upgrade-rmcp` first wraps a hand-written `call_tool`'s body to return 3.x's
/// `CallToolResponse` (MCP202); the pass across files then makes it a `#[mrtr_handler]`, whose
/// expansion converts the result itself: the wrapper is taken back, the body reads as written.
#[test]
fn a_handler_the_upgrade_wrapped_gets_its_own_body_back_under_mrtr_handler() {
    let gate = gate_with("elicit::<Yes>(\"Sure?\").await");
    let dir = files_package(&[("gate.rs", &gate), ("lib.rs", GATED_CALL_TOOL_RMCP2)]);
    std::fs::write(
        dir.path().join("Cargo.toml"),
        MANIFEST.replace("\"3.11\"", "\"2.2\""),
    )
    .unwrap();
    let out = run(
        dir.path(),
        &["--fix", "--unsafe-fixes", "--upgrade-rmcp", "src"],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    let tool = read_src(dir.path(), "lib.rs");
    assert!(err.contains("across"), "{err}");
    let expected = GATED_CALL_TOOL_RMCP2
        .replace(
            "    async fn call_tool(",
            "    #[mrtr_handler]\n    async fn call_tool(",
        )
        .replace(
            "pub struct S;\n",
            "pub struct S;\n\nimpl mrtr::MrtrServer for S {}\n",
        )
        .replace(
            "use crate::gate::{Confirmer, PeerGate};\n",
            "use crate::gate::{Confirmer, PeerGate};\nuse mrtr::mrtr_handler;\n",
        )
        .replace("Content::text", "ContentBlock::text");
    assert_eq!(tool, expected, "{err}");
}

/// The MCP006 finding's message and help.
fn unreachable_finding(dir: &Path) -> (String, String) {
    let f = mcp006(dir, &[]);
    (
        f["message"].as_str().unwrap().to_string(),
        f["help"].as_str().unwrap().to_string(),
    )
}

/// A gateway's relay: a client handler forwarding the upstream's `roots/list` to the agent.
const RELAY: &str = r#"use rmcp::model::*;
use rmcp::service::RequestContext;
use rmcp::{ClientHandler, ErrorData, Peer, RoleClient, RoleServer};

#[derive(Clone)]
pub struct Relay {
    downstream: Peer<RoleServer>,
}

impl ClientHandler for Relay {
    async fn list_roots(&self, _context: RequestContext<RoleClient>) -> Result<ListRootsResult, ErrorData> {
        self.downstream.list_roots().await.map_err(|e| ErrorData::internal_error(e.to_string(), None))
    }
}
"#;

#[test]
fn a_stored_peer_and_a_relay_are_reported_with_the_deferred_form() {
    let gate = gate_with("elicit::<Yes>(\"Sure?\").await");
    let dir = files_package(&[("gate.rs", &gate), ("lib.rs", GATED_TOOL)]);
    let (message, help) = unreachable_finding(dir.path());
    assert!(
        message.ends_with(
            "no step of a request handler reaches it, but the runtime's deferred ask does"
        ),
        "{message}"
    );
    assert!(
        help.contains("`mrtr::rmcp::deferred::elicit(&peer, ..)`"),
        "{help}"
    );

    let dir = files_package(&[("lib.rs", RELAY)]);
    let (message, help) = unreachable_finding(dir.path());
    assert!(
        message.contains("a client-side handler that forwards it"),
        "{message}"
    );
    assert!(
        message.ends_with(
            "no step of a request handler reaches it, but the runtime's deferred ask does, from \
the relay's task"
        ),
        "{message}"
    );
    assert!(
        help.starts_with("relay it with `mrtr::rmcp::deferred::list_roots(&downstream, ..)`"),
        "{help}"
    );
}

/// A workspace whose gateway library holds the relay and opens the upstream connection, and
/// whose server package (depending on it by path) holds the request handler.
fn gateway_workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(
        root.join("Cargo.toml"),
        "[workspace]\nmembers = [\"crates/gw\", \"crates/srv\"]\nresolver = \"2\"\n",
    )
    .unwrap();
    let member = |name: &str, deps: &str, lib: &str| {
        let at = root.join("crates").join(name);
        std::fs::create_dir_all(at.join("src")).unwrap();
        std::fs::write(
            at.join("Cargo.toml"),
            format!(
                "[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n\
[dependencies]\nrmcp = {{ version = \"3.11\", features = [\"server\", \"client\"] }}\n{deps}"
            ),
        )
        .unwrap();
        std::fs::write(at.join("src/lib.rs"), lib).unwrap();
    };
    let opens_upstream = r#"
pub async fn call_relayed(downstream: Peer<RoleServer>, io: tokio::io::DuplexStream) -> Result<(), ErrorData> {
    let relay = Relay { downstream };
    let _upstream = rmcp::serve_client(relay, io).await.map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
    Ok(())
}
"#;
    member("gw", "", &format!("{RELAY}{opens_upstream}"));
    member(
        "srv",
        "gw = { path = \"../gw\" }\n",
        r#"use rmcp::model::*;
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};

pub struct Server;

impl ServerHandler for Server {
    async fn call_tool(
        &self,
        _request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let (io, _other) = tokio::io::duplex(1024);
        gw::call_relayed(context.peer.clone(), io).await?;
        Ok(CallToolResult::success(vec![]).into())
    }
}
"#,
    );
    dir
}

#[test]
fn a_relay_in_a_library_is_fixed_with_the_handler_of_the_package_that_depends_on_it() {
    let dir = gateway_workspace();
    let root = dir.path();
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
    let out = run(root, &["--fix", "--unsafe-fixes", "."]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "fixed 1 finding across 4 files (crates/gw/src/lib.rs, crates/srv/src/lib.rs, \
crates/gw/Cargo.toml, crates/srv/Cargo.toml)"
        ),
        "{err}"
    );
    assert!(
        read("crates/gw/src/lib.rs")
            .contains("mrtr::rmcp::deferred::list_roots(&self.downstream).await"),
        "{err}"
    );
    let server = read("crates/srv/src/lib.rs");
    assert!(
        server.contains("    #[mrtr_handler]\n    async fn call_tool("),
        "{server}"
    );
    assert!(
        server.contains("impl mrtr::MrtrServer for Server {}"),
        "{server}"
    );
    // Each package that now uses the runtime declares it.
    for manifest in ["crates/gw/Cargo.toml", "crates/srv/Cargo.toml"] {
        assert!(read(manifest).contains("\nmrtr = "), "{manifest}");
    }
}

#[test]
fn a_relay_fixed_from_inside_the_library_leaves_it_and_writes_nothing_outside_the_path_given() {
    let dir = gateway_workspace();
    let gw = dir.path().join("crates/gw");
    let before = std::fs::read_to_string(gw.join("src/lib.rs")).unwrap();
    let out = run(&gw, &["--fix", "--unsafe-fixes", "."]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        std::fs::read_to_string(gw.join("src/lib.rs")).unwrap(),
        before,
        "{err}"
    );
    // The server package is outside the path the run was given: it is not written, so neither
    // is the library (the relay alone would not get its handler's scope).
    assert!(
        err.contains("remaining: 0 with an unsafe fix (add --unsafe-fixes), 1 with a display-only"),
        "{err}"
    );
    assert!(
        !std::fs::read_to_string(dir.path().join("crates/srv/src/lib.rs"))
            .unwrap()
            .contains("mrtr"),
        "{err}"
    );
}

/// A hand-written `call_tool` that hands its context to a delegate, which asks through a
/// helper: `by_value` says whether the delegate takes the context itself or a reference.
fn delegating_server(by_value: bool) -> String {
    let (param, arg) = if by_value {
        ("context: RequestContext<RoleServer>", "context")
    } else {
        ("context: &RequestContext<RoleServer>", "&context")
    };
    format!(
        r#"use rmcp::model::*;
use rmcp::service::RequestContext;
use rmcp::{{ErrorData, RoleServer, ServerHandler}};

pub struct Server;

async fn confirm(context: &RequestContext<RoleServer>) -> Result<bool, ErrorData> {{
    let roots = context.peer.list_roots().await.map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
    Ok(!roots.roots.is_empty())
}}

impl Server {{
    async fn call_tool_impl(&self, request: CallToolRequestParams, {param}) -> Result<CallToolResult, ErrorData> {{
        let started = std::time::Instant::now();
        let ok = confirm(&context).await?;
        Ok(CallToolResult::success(vec![ContentBlock::text(format!("{{}} {{ok}} {{:?}}", request.name, started.elapsed()))]))
    }}
}}

impl ServerHandler for Server {{
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {{
        self.call_tool_impl(request, {arg}).await.map(Into::into)
    }}
}}
"#
    )
}

#[test]
fn an_ask_below_a_delegate_handed_the_whole_context_takes_the_deferred_form() {
    let dir = files_package(&[("lib.rs", &delegating_server(true))]);
    let out = run(dir.path(), &["--fix", "--unsafe-fixes", "."]);
    let err = String::from_utf8_lossy(&out.stderr);
    let fixed = read_src(dir.path(), "lib.rs");
    // One call changes; the delegate and its `Instant` stay as they are.
    assert!(
        fixed.contains("mrtr::rmcp::deferred::list_roots(&context.peer).await"),
        "{err}\n{fixed}"
    );
    assert!(!fixed.contains("#[mrtr_helper]"), "{fixed}");
    assert!(
        fixed.contains("    #[mrtr_handler]\n    async fn call_tool("),
        "{fixed}"
    );
}

#[test]
fn an_ask_below_a_delegate_handed_a_reference_is_still_rewritten_into_steps() {
    let dir = files_package(&[("lib.rs", &delegating_server(false))]);
    let out = run(dir.path(), &["--fix", "--unsafe-fixes", "."]);
    let err = String::from_utf8_lossy(&out.stderr);
    let fixed = read_src(dir.path(), "lib.rs");
    assert!(!fixed.contains("mrtr::rmcp::deferred"), "{err}\n{fixed}");
    assert!(fixed.contains("#[mrtr_helper]"), "{err}\n{fixed}");
}

#[test]
fn a_delegate_handed_the_whole_context_that_asks_itself_takes_the_deferred_form() {
    let src = delegating_server(true).replace(
        "let ok = confirm(&context).await?;",
        "let ok = !context.peer.list_roots().await.map_err(|e| ErrorData::internal_error(e.to_string(), None))?.roots.is_empty();",
    );
    assert!(src.contains("let ok = !context.peer.list_roots()"));
    let dir = files_package(&[("lib.rs", &src)]);
    let out = run(dir.path(), &["--fix", "--unsafe-fixes", "."]);
    let err = String::from_utf8_lossy(&out.stderr);
    let fixed = read_src(dir.path(), "lib.rs");
    assert!(
        fixed.contains("!mrtr::rmcp::deferred::list_roots(&context.peer).await"),
        "{err}\n{fixed}"
    );
    assert!(!fixed.contains("#[mrtr_helper]"), "{fixed}");
}

/// `s` without whitespace and trailing commas: what a fix wrote, compared whatever layout rustfmt
/// gave it (a fixed file that was rustfmt-clean is formatted again).
fn squash(s: &str) -> String {
    let bare: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    bare.replace(",)", ")")
        .replace(",]", "]")
        .replace(",}", "}")
}

#[test]
fn a_helper_also_called_where_the_rewrite_does_not_reach_is_left_to_the_deferred_form() {
    // `refresh` is called from a tool on `self`, and from a notification hook on a clone of
    // `self` in a spawned task: that call would keep passing the peer to a helper that now takes
    // the `Mrtr`, so the compiled form is refused (and the deferred one, which keeps the
    // signature, takes the request by default: `tests/fix_deferred.rs`).
    let body = "
#[derive(Clone)]
pub struct T;

impl T {
    async fn refresh(&self, peer: &Peer<RoleServer>) -> Result<usize, ErrorData> {
        let listed = peer.list_roots().await.map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(listed.roots.len())
    }

    fn on_change(&self, peer: Peer<RoleServer>) {
        let this = self.clone();
        tokio::spawn(async move {
            let _ = this.refresh(&peer).await;
        });
    }
}

#[tool_router]
impl T {
    #[tool(description = \"d\")]
    async fn count(&self, ctx: RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let n = self.refresh(&ctx.peer).await?;
        Ok(CallToolResult::success(vec![ContentBlock::text(n.to_string())]))
    }
}
";
    let (applicability, message) = helper_fix(body);
    assert_eq!(applicability, "display-only", "{message}");
    assert!(
        message
            .contains("`refresh` is also used where the rewrite does not reach (1 of its 2 uses"),
        "{message}"
    );
    // Without the spawned call, the same helper is rewritten.
    let reached = body.replace(
        "let _ = this.refresh(&peer).await;",
        "let _ = (this, peer);",
    );
    let (applicability, message) = helper_fix(&reached);
    assert_eq!(applicability, "unsafe", "{message}");
    assert!(message.contains("asking helper `refresh`"), "{message}");
}

/// A tool whose error type is not one the runtime's error converts into (here a
/// `CallToolResult`, as tools that report failures as results write): the compiled form's `?`
/// would not compile, so the helper's ask takes the deferred form and its own error handling
/// stays. With the error type rmcp's `ErrorData`, the same helper takes the compiled form.
#[test]
fn a_helper_whose_error_type_cannot_hold_the_runtime_s_error_is_deferred() {
    let helper = r#"
fn failure(why: impl ToString) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(why.to_string())])
}

async fn pick(peer: &Peer<RoleServer>) -> Result<String, CallToolResult> {
    let chosen = peer
        .elicit::<Yes>("Pick one")
        .await
        .map_err(failure)?
        .ok_or_else(|| failure("nothing picked"))?;
    Ok(format!("{chosen:?}"))
}
"#;
    let tool = r#"
#[tool_router]
impl S {
    #[tool(description = "d")]
    async fn t(&self, ctx: RequestContext<RoleServer>) -> Result<CallToolResult, CallToolResult> {
        let name = pick(&ctx.peer).await?;
        Ok(CallToolResult::success(vec![ContentBlock::text(name)]))
    }
}
"#;
    // The compiled form refuses, and says why.
    let (applicability, message) = helper_fix(&format!("{helper}{tool}"));
    assert_eq!(applicability, "display-only", "{message}");
    assert!(
        message.contains("is not known to hold the runtime's `MrtrError`"),
        "{message}"
    );
    // The deferred form (on by default; these tests turn it off) takes the ask.
    let dir = package(&format!("{helper}{tool}"));
    let out = run_with_deferred(dir.path(), &["--fix", "--unsafe-fixes", "src/lib.rs"]);
    let err = String::from_utf8_lossy(&out.stderr);
    let fixed = std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap();
    assert!(err.contains("fixed 1 finding"), "{err}\n{fixed}");
    assert!(
        fixed.contains("mrtr::rmcp::deferred::elicit::<Yes>(&peer, \"Pick one\")"),
        "{fixed}"
    );
    assert!(fixed.contains(".map_err(failure)?"), "{fixed}");
    assert!(!fixed.contains("#[mrtr_helper]"), "{fixed}");
    assert!(!fixed.contains("#[mrtr_handler]"), "{fixed}");

    let compiled = format!("{helper}{tool}")
        .replace(
            "Result<String, CallToolResult>",
            "Result<String, ErrorData>",
        )
        .replace(
            "Result<CallToolResult, CallToolResult>",
            "Result<CallToolResult, ErrorData>",
        )
        .replace(
            ".map_err(failure)?",
            ".map_err(|e| ErrorData::internal_error(e.to_string(), None))?",
        )
        .replace(
            ".ok_or_else(|| failure(\"nothing picked\"))?",
            ".ok_or_else(|| ErrorData::invalid_params(\"nothing picked\", None))?",
        );
    let (err, helper_fixed) = self::fixed(&compiled);
    assert!(err.contains("fixed 1 finding"), "{err}\n{helper_fixed}");
    assert!(helper_fixed.contains("#[mrtr_helper]"), "{helper_fixed}");
}

/// A handler arm that borrows from its arguments (`args.get(..).and_then(|v| v.as_str())`) and
/// hands the borrow to an asking helper: the compiled form would keep the borrow across the
/// helper's ask, which it cannot seal (the macro's error), so neither the helper nor its caller
/// takes that form: the reason without the deferred tier, the deferred ask with it.
#[test]
fn a_borrow_kept_across_an_ask_in_a_helper_leaves_the_compiled_form() {
    let body = r#"
async fn shout(peer: &Peer<RoleServer>, text: &str) -> Result<String, ErrorData> {
    let ok = peer.elicit::<Yes>(format!("Shout {text}?")).await;
    Ok(if matches!(ok, Ok(Some(_))) { text.to_uppercase() } else { text.to_string() })
}

#[tool_router]
impl S {
    #[tool(description = "d")]
    async fn t(&self, args: Parameters<serde_json::Map<String, serde_json::Value>>, ctx: RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let text = args.0.get("text").and_then(|v| v.as_str()).unwrap_or_default();
        let loud = shout(&ctx.peer, text).await?;
        Ok(CallToolResult::success(vec![ContentBlock::text(loud)]))
    }
}
"#;
    let (applicability, message) = helper_fix(body);
    assert_eq!(applicability, "display-only", "{message}");
    assert!(
        message.contains("`text` may borrow its value and would be kept across an ask"),
        "{message}"
    );
    // Owned, the same code takes the compiled form.
    let owned = body
        .replace(".unwrap_or_default();", ".unwrap_or_default().to_string();")
        .replace("shout(&ctx.peer, text)", "shout(&ctx.peer, &text)");
    let (applicability, message) = helper_fix(&owned);
    assert_eq!(applicability, "unsafe", "{message}");
    assert!(message.contains("#[mrtr_helper]"), "{message}");
}

/// An elicitation whose answer is read with `.accepted()` names no `Elicitation`: the fix
/// imports only what the code it writes uses (an unused import is a new warning).
#[test]
fn the_fix_imports_only_the_runtime_names_its_code_uses() {
    let (err, fixed) = fixed(&with_tool(
        "",
        r#"let go = ctx
            .peer
            .elicit::<Yes>("Proceed?")
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        if go.is_none() {
            return Err(ErrorData::invalid_params("stopped", None));
        }"#,
    ));
    assert!(err.contains("fixed 1 finding"), "{err}\n{fixed}");
    assert!(fixed.contains(".accepted()"), "{fixed}");
    assert!(fixed.contains("use mrtr::{mrtr_handler, Mrtr};"), "{fixed}");
    assert!(!fixed.contains("Elicitation,"), "{fixed}");
}

/// `elicit_url` through a stored peer takes the deferred form like the other asks (the
/// runtime's `mrtr::rmcp::deferred::elicit_url`, with the peer's own signature and result).
#[test]
fn a_url_elicitation_through_a_stored_peer_is_deferred() {
    let body = r#"
impl S {
    async fn consent(&self) -> bool {
        let page = url::Url::parse("https://example.invalid/consent").unwrap();
        matches!(
            self.stored.elicit_url("Open the page", page, "c-1").await,
            Ok(rmcp::model::ElicitationAction::Accept)
        )
    }
}
"#;
    let dir = package(body);
    let out = run_with_deferred(dir.path(), &["--fix", "--unsafe-fixes", "src/lib.rs"]);
    let err = String::from_utf8_lossy(&out.stderr);
    let fixed = std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap();
    assert!(err.contains("fixed 1 finding"), "{err}\n{fixed}");
    assert!(
        fixed.contains(
            "mrtr::rmcp::deferred::elicit_url(&self.stored, \"Open the page\", page, \"c-1\").await"
        ),
        "{fixed}"
    );
}
