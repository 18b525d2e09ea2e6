//! A server that writes its own JSON-RPC messages, no SDK: a manager builds the request message
//! and keeps a oneshot per request id, the tool writes the message to the server's output and
//! awaits the oneshot, and the read loop hands a client's response to the manager. The whole
//! handler maps a request message to a response message.

use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use serde_json::{json, Value};
use tokio::sync::oneshot;

#[derive(Debug, serde::Deserialize)]
pub struct ElicitAnswer {
    pub action: String,
    #[serde(default)]
    pub content: Option<Value>,
}

#[derive(Default)]
pub struct Pending {
    next: AtomicU64,
    waiting: Mutex<HashMap<u64, oneshot::Sender<ElicitAnswer>>>,
}

impl Pending {
    /// The request message, and its id.
    pub fn create_request(&self, message: &str) -> (u64, Value) {
        let id = self.next.fetch_add(1, Ordering::SeqCst);
        let request = json!({
            "jsonrpc": "2.0",
            "id": id,
            "method": "elicitation/create",
            "params": {
                "message": message,
                "requestedSchema": {
                    "type": "object",
                    "properties": { "confirm": { "type": "boolean" } }
                }
            }
        });
        (id, request)
    }

    pub fn register(&self, id: u64) -> oneshot::Receiver<ElicitAnswer> {
        let (tx, rx) = oneshot::channel();
        self.waiting.lock().unwrap().insert(id, tx);
        rx
    }

    /// Waits for the answer to request `id`.
    pub async fn wait_for(&self, id: u64) -> Result<ElicitAnswer, String> {
        let rx = self.register(id);
        rx.await.map_err(|_| "the client went away".to_string())
    }

    /// A client's response to one of the server's requests.
    pub fn answer(&self, response: &Value) {
        let Some(id) = response["id"].as_u64() else { return };
        let Ok(answer) = serde_json::from_value(response["result"].clone()) else { return };
        if let Some(tx) = self.waiting.lock().unwrap().remove(&id) {
            let _ = tx.send(answer);
        }
    }
}

#[derive(Default)]
pub struct Server {
    pub pending: Pending,
    /// What the server wrote to the client: one message per line.
    pub out: Mutex<Vec<u8>>,
}

impl Server {
    /// One line from the client: a response to one of the server's requests, or a request,
    /// answered with its response message.
    pub async fn serve_line(&self, line: &str) -> Option<Value> {
        let msg: Value = serde_json::from_str(line).ok()?;
        if msg.get("method").is_none() {
            self.pending.answer(&msg);
            return None;
        }
        let response = self.handle_request(msg).await;
        Some(response)
    }

    async fn handle_request(&self, request: Value) -> Value {
        let id = request.get("id").cloned();
        let params = request.get("params").cloned().unwrap_or(json!({}));
        let result = match request["method"].as_str().unwrap_or_default() {
            "tools/call" => self.call_tool(&params).await,
            "tools/list" => Ok(json!({ "tools": [{ "name": "drop_table" }] })),
            other => Err(format!("unknown method {other}")),
        };
        match result {
            Ok(value) => json!({ "jsonrpc": "2.0", "id": id, "result": value }),
            Err(e) => json!({ "jsonrpc": "2.0", "id": id, "error": { "code": -32000, "message": e } }),
        }
    }

    async fn call_tool(&self, params: &Value) -> Result<Value, String> {
        if params["name"] == "truncate_table" {
            return self.truncate().await;
        }
        if params["name"] != "drop_table" {
            return Err("unknown tool".to_string());
        }
        let (id, request) = self.pending.create_request("Drop the table?");
        let rx = self.pending.register(id);

        // To the client.
        let line = serde_json::to_string(&request).map_err(|e| e.to_string())?;
        let mut out = self.out.lock().unwrap();
        out.write_all(line.as_bytes()).map_err(|e| e.to_string())?;
        out.write_all(b"\n").map_err(|e| e.to_string())?;
        drop(out);

        let answer = rx.await.map_err(|_| "the client went away".to_string())?;
        let confirmed = answer.action == "accept"
            && answer.content.as_ref().is_some_and(|c| c["confirm"] == true);
        let text = if confirmed { "dropped" } else { "kept" };
        Ok(json!({ "content": [{ "type": "text", "text": text }] }))
    }

    /// The same exchange, its request built here and its answer awaited through a call of the
    /// request's id.
    async fn truncate(&self) -> Result<Value, String> {
        let id = self.pending.next.fetch_add(1, Ordering::SeqCst);
        let request = json!({
            "jsonrpc": "2.0",
            "id": id,
            "method": "elicitation/create",
            "params": { "message": "Truncate?", "requestedSchema": { "type": "object", "properties": {} } }
        });
        let line = serde_json::to_string(&request).map_err(|e| e.to_string())?;
        writeln!(self.out.lock().unwrap(), "{line}").map_err(|e| e.to_string())?;
        let answer = self.pending.wait_for(id).await?;
        Ok(json!({ "content": [{ "type": "text", "text": answer.action }] }))
    }
}
