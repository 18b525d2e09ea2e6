//! The hand-rolled JSON-RPC server of `fix_fixtures/src/hand_rolled.rs`, before and after
//! `--fix`: on an older request the fixed server sends its asks mid-request as the legacy one
//! did; on a 2026-07-28 request it answers `input_required` without sending anything, and the
//! retry with the client's answers gives the legacy server's response.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use fix_compile::{hand_rolled as fixed, hand_rolled_legacy as legacy};
use serde_json::{json, Value};

/// What the client answers, for both servers.
fn client(method: &str, _params: &Value) -> Value {
    match method {
        "elicitation/create" => json!({ "action": "accept", "content": { "confirm": true } }),
        "sampling/createMessage" => json!({
            "role": "assistant", "model": "m",
            "content": { "type": "text", "text": "short" }
        }),
        other => panic!("unexpected {other}"),
    }
}

fn call(tool: &str, revision: &str) -> Value {
    json!({
        "name": tool, "arguments": {},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": revision,
            "io.modelcontextprotocol/clientCapabilities": { "elicitation": {}, "sampling": {} }
        }
    })
}

macro_rules! server {
    ($m:ident) => {{
        let requester = Arc::new($m::Requester {
            client: Box::new(client),
            sent: AtomicUsize::new(0),
        });
        (
            $m::Server {
                requester: requester.clone(),
            },
            requester,
        )
    }};
}

async fn legacy_text(tool: &str) -> Value {
    let (server, _) = server!(legacy);
    let response = server
        .handle(legacy::Request {
            id: Some(json!(1)),
            method: "tools/call".into(),
            params: Some(call(tool, "2025-11-25")),
        })
        .await;
    response.result.expect("a result")["content"][0]["text"].clone()
}

#[tokio::test]
async fn an_older_request_still_gets_its_asks_sent_mid_request() {
    for tool in ["drop_table", "summarize"] {
        let (server, requester) = server!(fixed);
        let response = server
            .handle(fixed::Request {
                id: Some(json!(1)),
                method: "tools/call".into(),
                params: Some(call(tool, "2025-11-25")),
            })
            .await;
        assert_eq!(requester.sent.load(Ordering::SeqCst), 1, "{tool}");
        assert_eq!(
            response.result.expect("a result")["content"][0]["text"],
            legacy_text(tool).await
        );
    }
}

#[tokio::test]
async fn a_2026_request_takes_rounds_and_ends_as_the_legacy_server_did() {
    for tool in ["drop_table", "summarize"] {
        let (server, requester) = server!(fixed);
        let first = server
            .handle(fixed::Request {
                id: Some(json!(7)),
                method: "tools/call".into(),
                params: Some(call(tool, "2026-07-28")),
            })
            .await;
        assert_eq!(first.id, Some(json!(7)));
        let result = first.result.expect("a result");
        assert_eq!(result["resultType"], "input_required", "{tool}: {result}");
        assert_eq!(
            requester.sent.load(Ordering::SeqCst),
            0,
            "nothing sent mid-request"
        );

        // The client answers each input request, and retries with the state.
        let mut answers = serde_json::Map::new();
        for (key, asked) in result["inputRequests"].as_object().unwrap() {
            let method = asked["method"].as_str().unwrap();
            answers.insert(key.clone(), client(method, &asked["params"]));
        }
        let mut retry = call(tool, "2026-07-28");
        retry["requestState"] = result["requestState"].clone();
        retry["inputResponses"] = Value::Object(answers);
        let second = server
            .handle(fixed::Request {
                id: Some(json!(8)),
                method: "tools/call".into(),
                params: Some(retry),
            })
            .await;
        assert_eq!(
            second.result.expect("a result")["content"][0]["text"],
            legacy_text(tool).await,
            "{tool}"
        );
        assert_eq!(requester.sent.load(Ordering::SeqCst), 0);
    }
}

#[tokio::test]
async fn a_forged_state_gets_the_servers_own_invalid_params_error() {
    let (server, _) = server!(fixed);
    let mut params = call("drop_table", "2026-07-28");
    params["requestState"] = json!("forged");
    params["inputResponses"] = json!({});
    let response = server
        .handle(fixed::Request {
            id: Some(json!(3)),
            method: "tools/call".into(),
            params: Some(params),
        })
        .await;
    assert_eq!(response.id, Some(json!(3)));
    assert_eq!(response.error.expect("an error").code, -32602);
}
