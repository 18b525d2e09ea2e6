//! Work the engine skips when the text shows it cannot find anything, and what each shortcut must
//! not lose:
//! - a `let` value is scanned for the requests it carries only when its fn's text can name one
//!   (`State::let_value`): the ways a request reaches a `let` in a fn whose own text names no
//!   request type and no method, and near misses;
//! - a macro body is parsed only when a trigger stands in its code or in a string with a method's
//!   wire name (`walk::code_and_methods`), not for a trigger word in a log line.

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
    // `built` names no method: the request comes from `roots_req`, through two `let`s; it is
    // reported where it is built (the builder's literal), naming the sender.
    assert_eq!(codes(BUILDER), vec![("MCP004".to_string(), 5)]);
    let report = lint_source("src/server.rs", BUILDER.as_bytes(), &Settings::default());
    assert!(
        report.findings[0].message.contains("`roots_req`")
            && report.findings[0].message.contains("`send` (line 11)"),
        "{}",
        report.findings[0].message
    );
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
    assert!(
        found.iter().any(|(c, l)| c == "MCP004" && *l == 6),
        "{found:?}"
    );
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

#[test]
fn macro_bodies_with_a_call_or_a_wire_name_are_still_read() {
    let text = r#"use rmcp::{Peer, RoleServer};
use serde_json::json;

struct S { peer: Peer<RoleServer> }

impl S {
    async fn calls(&self, confirmed: bool) {
        tracing::info!("elicit confirmed: {confirmed}");
        // Only the trigger in its code says this body is worth reading.
        tokio::select! {
            r = self.peer.list_roots() => { let _ = r; }
        }
        println!("{}", json!({"jsonrpc": "2.0", "id": 1, "method": "sampling/createMessage"}));
    }
}

async fn sends(tx: tokio::sync::mpsc::Sender<serde_json::Value>) {
    let _ = tokio::join!(tx.send(json!({"jsonrpc": "2.0", "id": 2, "method": "roots/list"})));
}
"#;
    let found = codes(text);
    // `calls` is no handler: its roots request is one MRTR cannot reach.
    assert!(found.contains(&("MCP006".to_string(), 11)), "{found:?}");
    assert!(found.contains(&("MCP004".to_string(), 13)), "{found:?}");
    assert!(found.contains(&("MCP004".to_string(), 18)), "{found:?}");
}
