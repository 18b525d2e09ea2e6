//! A `let` value is scanned for the requests it carries only when its fn's text can name one
//! (`State::let_value`): these are the ways a request reaches a `let` in a fn whose own text names
//! no request type and no method, which the shortcut must not lose, and its near misses.

use mcp_lint::lint::{lint_source, Settings};

fn codes(text: &str) -> Vec<(String, usize)> {
    lint_source("src/server.rs", text.as_bytes(), &Settings::default())
        .findings
        .into_iter()
        .map(|f| (f.code, f.line))
        .collect()
}

const BUILDER: &str = r#"use serde_json::json;
use tokio::sync::mpsc::Sender;

fn roots_req(id: u64) -> serde_json::Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "roots/list"})
}

async fn built(tx: Sender<serde_json::Value>) {
    let msg = roots_req(7);
    let again = msg;
    let _ = tx.send(again).await;
}
"#;

#[test]
fn a_request_from_a_builder_of_the_file_is_carried_through_lets() {
    // `built` names no method: the request comes from `roots_req`, through two `let`s, and is
    // reported where it is made.
    assert_eq!(codes(BUILDER), vec![("MCP004".to_string(), 9)]);
}

#[test]
fn a_request_variant_is_carried_through_lets() {
    let text = r#"use rmcp::{Peer, RoleServer, model::{ServerRequest, ListRootsRequest}};

async fn typed(peer: Peer<RoleServer>) {
    let req = ServerRequest::ListRootsRequest(ListRootsRequest::default());
    let again = req;
    let _ = peer.send_request(again).await;
}
"#;
    let found = codes(text);
    assert!(found.iter().any(|(c, l)| c == "MCP004" && *l == 6), "{found:?}");
}

#[test]
fn near_misses_stay_quiet() {
    // Another method, built the same ways.
    let other = BUILDER.replace("roots/list", "tools/list");
    assert_eq!(codes(&other), vec![]);
    // A builder's look-alike that returns no request.
    let text = r#"use serde_json::json;
use tokio::sync::mpsc::Sender;

fn roots_req(id: u64) -> serde_json::Value {
    json!({"id": id})
}

async fn built(tx: Sender<serde_json::Value>) {
    let msg = roots_req(7);
    let _ = tx.send(msg).await;
}
"#;
    assert_eq!(codes(text), vec![]);
}
