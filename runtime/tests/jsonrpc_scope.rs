//! A hand-rolled JSON-RPC server's deferred asks (`mrtr::jsonrpc`): its own requester, its own
//! error type, its own dispatch `match`, and no SDK.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use mrtr::jsonrpc::{Question, RequestScope, Round};
use serde_json::{json, Value};

/// The server's own error type: nothing in `mrtr` can make one (and this requester never fails,
/// hence the allow).
#[derive(Debug)]
#[allow(dead_code)]
enum SendError {
    Closed,
}

/// The server's own requester: counts what it sends and answers with `reply`.
struct Requester {
    sent: AtomicUsize,
    reply: Value,
}

impl Requester {
    async fn send_request(&self, _method: &str, _params: Value) -> Result<Value, SendError> {
        self.sent.fetch_add(1, Ordering::SeqCst);
        Ok(self.reply.clone())
    }
}

struct Server {
    requester: Requester,
    /// Counts the runs of the code after the ask: it must not run in a round that stops there.
    after_ask: AtomicUsize,
}

#[derive(serde::Deserialize)]
struct Confirmation {
    action: String,
}

impl Server {
    fn new(reply: Value) -> Arc<Server> {
        Arc::new(Server {
            requester: Requester {
                sent: AtomicUsize::new(0),
                reply,
            },
            after_ask: AtomicUsize::new(0),
        })
    }

    /// A tool that asks through the server's requester, written as the fix writes the ask.
    async fn delete_tool(&self) -> Result<String, SendError> {
        let params = json!({ "message": "Delete?", "requestedSchema": { "type": "object", "properties": {} } });
        let answer = Question::new("elicitation/create", params)
            .or_send(|params| self.requester.send_request("elicitation/create", params))
            .await?;
        self.after_ask.fetch_add(1, Ordering::SeqCst);
        Ok(format!(
            "action={}",
            answer["action"].as_str().unwrap_or("?")
        ))
    }

    /// The same ask, its answer read into the server's own type.
    async fn typed_tool(&self) -> Result<String, SendError> {
        let confirmed: Result<Confirmation, SendError> = Question::new(
            "elicitation/create",
            json!({ "message": "Go?", "requestedSchema": { "type": "object", "properties": {} } }),
        )
        .or_send(|params| async {
            self.requester
                .send_request("elicitation/create", params)
                .await
                .map(|v| serde_json::from_value(v).unwrap())
        })
        .await;
        Ok(confirmed?.action)
    }

    /// The server's dispatch: a `tools/call` runs in the scope, the response is the server's own
    /// JSON (here a plain `Value`).
    async fn handle(&self, method: &str, params: Option<Value>) -> Value {
        match method {
            "tools/call" => {
                let scope = RequestScope::open("jsonrpc-scope-test", "tools/call", &params);
                let tool = params
                    .as_ref()
                    .and_then(|p| p["name"].as_str())
                    .unwrap_or_default()
                    .to_string();
                let round = scope
                    .run(async {
                        match tool.as_str() {
                            "typed" => self.typed_tool().await,
                            _ => self.delete_tool().await,
                        }
                    })
                    .await;
                round.respond(
                    |done| match done {
                        Ok(text) => {
                            json!({ "result": { "content": [{ "type": "text", "text": text }] } })
                        }
                        Err(e) => {
                            json!({ "error": { "code": -32603, "message": format!("{e:?}") } })
                        }
                    },
                    |result| json!({ "result": result }),
                    |error| json!({ "error": error }),
                )
            }
            _ => json!({ "error": { "code": -32601 } }),
        }
    }
}

fn call(tool: &str, revision: Option<&str>, caps: Value) -> Value {
    let mut params = json!({ "name": tool, "arguments": {} });
    if let Some(revision) = revision {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": revision,
            "io.modelcontextprotocol/clientCapabilities": caps,
        });
    }
    params
}

fn new_revision() -> Value {
    call("delete", Some("2026-07-28"), json!({ "elicitation": {} }))
}

#[tokio::test]
async fn a_pre_2026_request_sends_the_ask_mid_request_as_before() {
    let server = Server::new(json!({ "action": "accept" }));
    let response = server
        .handle(
            "tools/call",
            Some(call("delete", Some("2025-11-25"), json!({}))),
        )
        .await;
    assert_eq!(response["result"]["content"][0]["text"], "action=accept");
    assert_eq!(server.requester.sent.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn outside_any_scope_the_question_is_the_send() {
    let server = Server::new(json!({ "action": "decline" }));
    assert_eq!(server.delete_tool().await.unwrap(), "action=decline");
    assert_eq!(server.requester.sent.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_2026_request_ends_its_round_with_input_required_and_resumes_with_the_answer() {
    let server = Server::new(json!({ "action": "accept" }));
    let first = server.handle("tools/call", Some(new_revision())).await;
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    let requests = result["inputRequests"].as_object().expect("inputRequests");
    assert_eq!(requests.len(), 1);
    let (key, request) = requests.iter().next().unwrap();
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["message"], "Delete?");
    assert_eq!(
        server.requester.sent.load(Ordering::SeqCst),
        0,
        "nothing is sent mid-request"
    );
    assert_eq!(
        server.after_ask.load(Ordering::SeqCst),
        0,
        "the code after the ask did not run"
    );

    let mut retry = new_revision();
    retry["requestState"] = result["requestState"].clone();
    retry["inputResponses"] = json!({ key.clone(): { "action": "accept", "content": {} } });
    let second = server.handle("tools/call", Some(retry)).await;
    assert_eq!(
        second["result"]["content"][0]["text"], "action=accept",
        "{second}"
    );
    assert_eq!(server.after_ask.load(Ordering::SeqCst), 1);
    assert_eq!(server.requester.sent.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn the_answer_comes_back_in_the_type_the_send_returned() {
    let server = Server::new(json!({}));
    let params = || call("typed", Some("2026-07-28"), json!({ "elicitation": {} }));
    let first = server.handle("tools/call", Some(params())).await;
    let key = first["result"]["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    let mut retry = params();
    retry["requestState"] = first["result"]["requestState"].clone();
    retry["inputResponses"] = json!({ key.clone(): { "action": "decline" } });
    let second = server.handle("tools/call", Some(retry.clone())).await;
    assert_eq!(
        second["result"]["content"][0]["text"], "decline",
        "{second}"
    );

    // An answer that does not fit the send's result type ends the request with -32602.
    let first = server.handle("tools/call", Some(params())).await;
    retry["requestState"] = first["result"]["requestState"].clone();
    retry["inputResponses"] = json!({ key: { "no_action": true } });
    let third = server.handle("tools/call", Some(retry)).await;
    assert_eq!(third["error"]["code"], -32602, "{third}");
}

#[tokio::test]
async fn a_tampered_state_is_refused_with_invalid_params() {
    let server = Server::new(json!({}));
    let first = server.handle("tools/call", Some(new_revision())).await;
    let mut state = first["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_string();
    let last = state.pop().unwrap();
    state.push(if last == 'A' { 'B' } else { 'A' });
    let mut retry = new_revision();
    retry["requestState"] = json!(state);
    retry["inputResponses"] = json!({});
    let second = server.handle("tools/call", Some(retry)).await;
    assert_eq!(second["error"]["code"], -32602, "{second}");
    assert_eq!(server.after_ask.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn an_undeclared_capability_is_refused_not_asked() {
    let server = Server::new(json!({}));
    let response = server
        .handle(
            "tools/call",
            Some(call("delete", Some("2026-07-28"), json!({}))),
        )
        .await;
    assert_eq!(response["error"]["code"], -32021, "{response}");
    assert_eq!(server.requester.sent.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_request_that_is_not_an_ask_is_sent_inside_the_scope() {
    let requester = Requester {
        sent: AtomicUsize::new(0),
        reply: json!({}),
    };
    let scope = RequestScope::open("jsonrpc-scope-test", "tools/call", new_revision());
    let round = scope
        .run(async {
            Question::new("ping", ())
                .or_send(|_| requester.send_request("ping", Value::Null))
                .await
        })
        .await;
    assert!(matches!(round, Round::Finished(Ok(_))), "{round:?}");
    assert_eq!(requester.sent.load(Ordering::SeqCst), 1);
}
