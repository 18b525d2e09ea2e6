//! A server that speaks JSON-RPC itself: its own request and response types, its own requester
//! for server-to-client requests, its own dispatch on the method name. No SDK.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::{json, Value};

pub struct Request {
    pub id: Option<Value>,
    pub method: String,
    pub params: Option<Value>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    pub id: Option<Value>,
    pub result: Option<Value>,
    pub error: Option<RpcError>,
}

impl Response {
    pub fn success(id: Option<Value>, result: Value) -> Self {
        Response { id, result: Some(result), error: None }
    }

    pub fn error(id: Option<Value>, error: RpcError) -> Self {
        Response { id, result: None, error: Some(error) }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
}

impl RpcError {
    pub fn invalid_params(message: impl Into<String>) -> Self {
        RpcError { code: -32602, message: message.into() }
    }

    pub fn method_not_found(method: &str) -> Self {
        RpcError { code: -32601, message: format!("no method {method}") }
    }
}

#[derive(Debug)]
pub enum AskFailed {
    Closed,
}

/// Sends a request to the client and waits for its answer: here the client is a function.
pub struct Requester {
    pub client: Box<dyn Fn(&str, &Value) -> Value + Send + Sync>,
    pub sent: AtomicUsize,
}

impl Requester {
    pub async fn send_request(&self, method: &str, params: Value) -> Result<Value, AskFailed> {
        self.sent.fetch_add(1, Ordering::SeqCst);
        Ok((self.client)(method, &params))
    }
}

pub struct Server {
    pub requester: Arc<Requester>,
}

impl Server {
    pub async fn handle(&self, request: Request) -> Response {
        let id = request.id;
        match request.method.as_str() {
            "tools/call" => self.call_tool(id, request.params).await,
            "ping" => Response::success(id, json!({})),
            _ => Response::error(id, RpcError::method_not_found(&request.method)),
        }
    }

    async fn call_tool(&self, id: Option<Value>, params: Option<Value>) -> Response {
        let name = params
            .as_ref()
            .and_then(|p| p["name"].as_str())
            .unwrap_or_default()
            .to_string();
        let text = match name.as_str() {
            "drop_table" => match self.confirm("Drop the table?").await {
                Ok(true) => "dropped".to_string(),
                Ok(false) => "kept".to_string(),
                Err(e) => format!("not asked: {e:?}"),
            },
            "summarize" => match self.summarize("a long text").await {
                Ok(summary) => summary,
                Err(e) => format!("not asked: {e:?}"),
            },
            _ => return Response::error(id, RpcError::invalid_params("unknown tool")),
        };
        Response::success(id, json!({ "content": [{ "type": "text", "text": text }] }))
    }

    /// Asks the user through the server's own requester.
    async fn confirm(&self, message: &str) -> Result<bool, AskFailed> {
        let schema = json!({
            "type": "object",
            "properties": { "confirm": { "type": "boolean" } }
        });
        let answer = self
            .requester
            .send_request(
                "elicitation/create",
                json!({ "message": message, "requestedSchema": schema }),
            )
            .await?;
        Ok(answer["action"] == "accept" && answer["content"]["confirm"] == true)
    }

    async fn summarize(&self, text: &str) -> Result<String, AskFailed> {
        let params = json!({
            "messages": [{ "role": "user", "content": { "type": "text", "text": text } }],
            "maxTokens": 50
        });
        let answer = self.requester.send_request("sampling/createMessage", params).await?;
        Ok(answer["content"]["text"].as_str().unwrap_or_default().to_string())
    }
}
