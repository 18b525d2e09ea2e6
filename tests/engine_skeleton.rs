//! The engine parses only the fn bodies that can matter (`src/reading/skeleton.rs`): the findings are the
//! same as a full parse's, at the same positions, and what is not read is not reported.

use mcp_lint::lint::{lint_source, Settings};

const HANDLER: &str = r#"use rmcp::{RoleServer, service::RequestContext, model::*};

/// A helper with no trigger token: its body is not parsed.
fn summarize(items: &[String]) -> String {
    let mut out = String::new();
    for (n, item) in items.iter().enumerate() {
        if n > 0 { out.push_str(", "); }
        out.push_str(item.trim()); // "é" wide chars before the next finding's line
    }
    out
}

async fn ask(ctx: RequestContext<RoleServer>) -> String {
    let roots = ctx.peer.list_roots().await;
    summarize(&[format!("{roots:?}")])
}

async fn entry(ctx: RequestContext<RoleServer>) { let é = 1; let _ = ask(ctx).await; }
"#;

fn codes_at(text: &str, prefilter: bool) -> Vec<(String, usize, usize, String)> {
    let settings = Settings {
        prefilter,
        ..Settings::default()
    };
    lint_source("src/server.rs", text.as_bytes(), &settings)
        .findings
        .into_iter()
        .map(|f| (f.code, f.line, f.column, f.message))
        .collect()
}

#[test]
fn findings_and_positions_match_a_full_parse() {
    let skeleton = codes_at(HANDLER, true);
    assert!(
        skeleton.iter().any(|(c, ..)| c == "MCP003"),
        "the legacy call in `ask` is found: {skeleton:?}"
    );
    assert_eq!(skeleton, codes_at(HANDLER, false));
}

#[test]
fn a_syntax_error_is_reported_where_the_rules_read() {
    // In a body with a trigger token: the file is reported as not parsing.
    let broken_handler = HANDLER.replace("let roots = ctx", "let roots = = ctx");
    let found = codes_at(&broken_handler, true);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "MCP900");
    // In a helper no rule reads: the rest of the file is still linted; a full parse
    // (`--no-prefilter`) reports the error.
    let broken_helper = HANDLER.replace("let mut out = String::new();", "let mut out = = 1;");
    let found = codes_at(&broken_helper, true);
    assert!(found.iter().any(|(c, ..)| c == "MCP003"), "{found:?}");
    assert!(!found.iter().any(|(c, ..)| c == "MCP900"), "{found:?}");
    let full = codes_at(&broken_helper, false);
    assert_eq!(full.len(), 1, "{full:?}");
    assert_eq!(full[0].0, "MCP900");
}

/// A macro body with no trigger token is not parsed, unless a local name used in it carries a
/// request from outside: here the request literal is bound before `select!` and sent inside it.
#[test]
fn a_macro_body_using_a_name_that_carries_a_request_is_read() {
    let src = r#"use rmcp::{ServerHandler, model::*, service::RequestContext, RoleServer};
struct S;
impl ServerHandler for S {
    async fn call_tool(&self, request: CallToolRequestParams, context: RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let req = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "roots/list"});
        let mut out = std::io::stdout();
        tokio::select! {
            _ = async { serde_json::to_writer(&mut out, &req) } => {}
        }
        Ok(CallToolResult::success(vec![]))
    }
}
"#;
    let found = codes_at(src, true);
    assert!(found.iter().any(|(c, ..)| c == "MCP004"), "{found:?}");
    assert_eq!(found, codes_at(src, false));
}

/// A constant holding a method's name keeps the bodies that use it (`"method": ROOTS` is no
/// trigger token): the default run finds what `--no-prefilter` finds.
#[test]
fn a_body_using_a_constant_that_holds_a_method_is_read() {
    let src = r#"use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;

pub const ROOTS: &str = "roots/list";
static ASK: &str = "elicitation/create";
const VERSION: &str = "2.0";

fn roots_req(id: u64) -> Value {
    json!({"jsonrpc": VERSION, "id": id, "method": ROOTS})
}

async fn refresh() -> std::io::Result<()> {
    let line = roots_req(1).to_string();
    tokio::io::stdout().write_all(line.as_bytes()).await
}

struct Message { id: u64, method: String }
impl Message {
    fn new(id: u64, method: &str) -> Message { Message { id, method: method.to_string() } }
}

async fn confirm(tx: tokio::sync::mpsc::Sender<Message>) {
    let _ = tx.send(Message::new(2, ASK)).await;
}
"#;
    let full = codes_at(src, false);
    let lines: Vec<usize> = full.iter().map(|f| f.1).collect();
    assert_eq!(
        lines,
        [9, 23],
        "the builder's constant and the constructor's: {full:?}"
    );
    assert!(full.iter().all(|f| f.0 == "MCP004"), "{full:?}");
    assert_eq!(codes_at(src, true), full);
}
