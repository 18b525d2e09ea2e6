//! A hand-rolled server that writes its request *message* itself and reads the answer from its
//! own channel (`mrtr::jsonrpc::Question::message`), served through `RequestScope::for_message`:
//! the shape of a server whose whole handler maps a request message to a response message.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

use mrtr::jsonrpc::{Question, RequestScope};
use serde_json::{json, Value};
use tokio::sync::oneshot;

#[derive(Debug, serde::Deserialize)]
struct Answer {
    action: String,
}

#[derive(Default)]
struct Server {
    next_id: AtomicU64,
    /// What the server wrote to the client: its requests.
    outbox: Mutex<Vec<Value>>,
    pending: Mutex<HashMap<u64, oneshot::Sender<Answer>>>,
    /// Runs of the code after the ask: none in a round that stops there.
    after_ask: AtomicUsize,
}

impl Server {
    /// The server's whole handler: request message in, response message out.
    async fn handle(&self, request: Value) -> Value {
        let id = request.get("id").cloned();
        let result = match request["method"].as_str().unwrap_or_default() {
            "tools/call" => self.confirm().await,
            _ => Err("unknown method".to_string()),
        };
        match result {
            Ok(text) => {
                json!({ "jsonrpc": "2.0", "id": id, "result": { "content": [{ "type": "text", "text": text }] } })
            }
            Err(e) => {
                json!({ "jsonrpc": "2.0", "id": id, "error": { "code": -32000, "message": e } })
            }
        }
    }

    /// The exchange as the fix writes it: the write guarded by `sends()`, the receive asked.
    async fn confirm(&self) -> Result<String, String> {
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let request = json!({
            "jsonrpc": "2.0", "id": id, "method": "elicitation/create",
            "params": { "message": "Go?", "requestedSchema": { "type": "object", "properties": {} } }
        });
        let (tx, rx) = oneshot::channel();
        self.pending.lock().unwrap().insert(id, tx);
        if Question::message(&request).sends() {
            self.outbox.lock().unwrap().push(request.clone());
        }
        let answer = Question::message(&request)
            .or_send(|_| rx)
            .await
            .map_err(|e| e.to_string())?;
        self.after_ask.fetch_add(1, Ordering::SeqCst);
        Ok(answer.action)
    }

    /// The server's read loop, for a client's response to one of its requests.
    fn deliver(&self, response: &Value) {
        let id = response["id"].as_u64().unwrap();
        let answer = serde_json::from_value(response["result"].clone()).unwrap();
        let tx = self.pending.lock().unwrap().remove(&id).unwrap();
        tx.send(answer).unwrap();
    }
}

fn call(revision: &str, extra: Value) -> Value {
    let mut params = json!({
        "name": "confirm",
        "arguments": {},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": revision,
            "io.modelcontextprotocol/clientCapabilities": { "elicitation": {} },
        }
    });
    if let (Some(p), Some(extra)) = (params.as_object_mut(), extra.as_object()) {
        p.extend(extra.clone());
    }
    json!({ "jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params })
}

async fn serve(server: &Server, message: Value) -> Value {
    RequestScope::for_message("jsonrpc-exchange-test", &message)
        .serve(server.handle(message))
        .await
}

#[tokio::test]
async fn a_pre_2026_request_writes_the_message_and_reads_the_answer_from_its_channel() {
    let server = Server::default();
    let client = async {
        loop {
            let written = server.outbox.lock().unwrap().pop();
            if let Some(request) = written {
                assert_eq!(request["method"], "elicitation/create");
                server.deliver(&json!({ "id": request["id"], "result": { "action": "accept" } }));
                break;
            }
            tokio::task::yield_now().await;
        }
    };
    let (response, ()) = tokio::join!(serve(&server, call("2025-11-25", json!({}))), client);
    assert_eq!(response["id"], 7);
    assert_eq!(
        response["result"]["content"][0]["text"], "accept",
        "{response}"
    );
    assert_eq!(server.after_ask.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_2026_request_writes_nothing_and_resumes_from_the_retry() {
    let server = Server::default();
    let first = serve(&server, call("2026-07-28", json!({}))).await;
    assert_eq!(
        first["id"], 7,
        "the round's response answers the request's id"
    );
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    let (key, asked) = result["inputRequests"]
        .as_object()
        .unwrap()
        .iter()
        .next()
        .unwrap();
    assert_eq!(asked["method"], "elicitation/create");
    assert_eq!(asked["params"]["message"], "Go?");
    assert!(
        server.outbox.lock().unwrap().is_empty(),
        "nothing is written mid-request"
    );
    assert_eq!(server.after_ask.load(Ordering::SeqCst), 0);

    let retry = call(
        "2026-07-28",
        json!({
            "requestState": result["requestState"],
            "inputResponses": { key.clone(): { "action": "decline" } },
        }),
    );
    let second = serve(&server, retry).await;
    assert_eq!(
        second["result"]["content"][0]["text"], "decline",
        "{second}"
    );
    assert!(server.outbox.lock().unwrap().is_empty());
    assert_eq!(server.after_ask.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_refused_round_answers_with_a_json_rpc_error_message() {
    let server = Server::default();
    let retry = call(
        "2026-07-28",
        json!({ "requestState": "not a sealed state", "inputResponses": {} }),
    );
    let response = serve(&server, retry).await;
    assert_eq!(response["jsonrpc"], "2.0");
    assert_eq!(response["id"], 7);
    assert_eq!(response["error"]["code"], -32602, "{response}");
}

#[test]
fn a_message_question_is_sent_outside_any_scope() {
    let request = json!({ "jsonrpc": "2.0", "id": 1, "method": "roots/list" });
    assert!(Question::message(&request).sends());
}
