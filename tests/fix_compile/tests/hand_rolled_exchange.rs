//! The server of `fix_fixtures/src/hand_rolled_exchange.rs`, which writes its own request
//! messages and awaits a oneshot per id, before and after `--fix`: on an older request both
//! write the ask mid-call and take the client's response from the read loop; on a 2026-07-28
//! request the fixed server writes nothing, answers `input_required`, and the retry with the
//! client's answer gives the legacy server's response.

use fix_compile::{hand_rolled_exchange as fixed, hand_rolled_exchange_legacy as legacy};
use serde_json::{json, Value};

fn call(revision: &str, extra: Value) -> String {
    call_tool("drop_table", revision, extra)
}

fn call_tool(tool: &str, revision: &str, extra: Value) -> String {
    let mut params = json!({
        "name": tool, "arguments": {},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": revision,
            "io.modelcontextprotocol/clientCapabilities": { "elicitation": {} }
        }
    });
    if let (Some(p), Some(extra)) = (params.as_object_mut(), extra.as_object()) {
        p.extend(extra.clone());
    }
    json!({ "jsonrpc": "2.0", "id": 41, "method": "tools/call", "params": params }).to_string()
}

/// What the client answers the server's `elicitation/create`.
fn accept() -> Value {
    json!({ "action": "accept", "content": { "confirm": true } })
}

/// The lines the server wrote to the client, taken.
macro_rules! written {
    ($server:expr) => {{
        let bytes = std::mem::take(&mut *$server.out.lock().unwrap());
        String::from_utf8(bytes)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .collect::<Vec<Value>>()
    }};
}

/// A pre-2026 exchange: the call runs while the client reads the server's output and answers
/// the request it finds there through the server's read loop.
macro_rules! old_session {
    ($m:ident) => {{
        let server = $m::Server::default();
        let client = async {
            loop {
                let asked = written!(server);
                if let Some(request) = asked.first() {
                    assert_eq!(request["method"], "elicitation/create");
                    assert_eq!(request["params"]["message"], "Drop the table?");
                    let response = json!({ "jsonrpc": "2.0", "id": request["id"], "result": accept() });
                    assert!(server.serve_line(&response.to_string()).await.is_none());
                    break;
                }
                tokio::task::yield_now().await;
            }
        };
        let line = call("2025-11-25", json!({}));
        let (response, ()) = tokio::join!(server.serve_line(&line), client);
        response.expect("a response")
    }};
}

#[tokio::test]
async fn on_an_older_request_both_write_the_ask_and_read_the_answer_from_the_loop() {
    let before = old_session!(legacy);
    let after = old_session!(fixed);
    assert_eq!(
        before["result"]["content"][0]["text"], "dropped",
        "{before}"
    );
    assert_eq!(after, before);
}

#[tokio::test]
async fn on_a_2026_request_the_fixed_server_writes_nothing_and_resumes_from_the_retry() {
    let server = fixed::Server::default();
    let first = server
        .serve_line(&call("2026-07-28", json!({})))
        .await
        .unwrap();
    assert_eq!(first["id"], 41, "{first}");
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    let (key, asked) = result["inputRequests"]
        .as_object()
        .unwrap()
        .iter()
        .next()
        .unwrap();
    assert_eq!(asked["method"], "elicitation/create");
    assert_eq!(asked["params"]["message"], "Drop the table?");
    assert!(
        written!(server).is_empty(),
        "nothing is written mid-request"
    );

    let retry = call(
        "2026-07-28",
        json!({ "requestState": result["requestState"], "inputResponses": { key.clone(): accept() } }),
    );
    let second = server.serve_line(&retry).await.unwrap();
    assert_eq!(
        second["result"]["content"][0]["text"], "dropped",
        "{second}"
    );
    assert!(written!(server).is_empty());

    // The legacy server answered the same request by writing the ask mid-call: what the
    // 2026-07-28 revision forbids, and the fix removed.
    let legacy = legacy::Server::default();
    let line = call("2026-07-28", json!({}));
    let pending = legacy.serve_line(&line);
    let asked = tokio::select! {
        biased;
        _ = pending => panic!("the legacy server cannot finish without an answer"),
        _ = tokio::task::yield_now() => written!(legacy),
    };
    assert_eq!(asked.len(), 1, "{asked:?}");
}

#[tokio::test]
async fn a_forged_state_is_refused_with_a_json_rpc_error() {
    let server = fixed::Server::default();
    let forged = call(
        "2026-07-28",
        json!({ "requestState": "forged", "inputResponses": {} }),
    );
    let response = server.serve_line(&forged).await.unwrap();
    assert_eq!(response["error"]["code"], -32602, "{response}");
    assert!(written!(server).is_empty());
}

#[tokio::test]
async fn an_answer_awaited_through_a_call_of_the_id_is_asked_too() {
    // Older request: written, then answered through the read loop.
    let server = fixed::Server::default();
    let client = async {
        loop {
            if let Some(request) = written!(server).first() {
                assert_eq!(request["params"]["message"], "Truncate?");
                let response = json!({ "jsonrpc": "2.0", "id": request["id"], "result": { "action": "decline" } });
                server.serve_line(&response.to_string()).await;
                break;
            }
            tokio::task::yield_now().await;
        }
    };
    let line = call_tool("truncate_table", "2025-11-25", json!({}));
    let (response, ()) = tokio::join!(server.serve_line(&line), client);
    assert_eq!(response.unwrap()["result"]["content"][0]["text"], "decline");

    // 2026-07-28: nothing written, the retry's answer read in the call's type.
    let first = server
        .serve_line(&call_tool("truncate_table", "2026-07-28", json!({})))
        .await
        .unwrap();
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    let key = result["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    assert!(written!(server).is_empty());
    let retry = call_tool(
        "truncate_table",
        "2026-07-28",
        json!({ "requestState": result["requestState"], "inputResponses": { key: { "action": "cancel" } } }),
    );
    let second = server.serve_line(&retry).await.unwrap();
    assert_eq!(second["result"]["content"][0]["text"], "cancel", "{second}");
}
