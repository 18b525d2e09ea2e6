//! A server-side recorder: an axum middleware that buffers each POST body and its response (plain
//! JSON or an SSE stream) and keeps both as parsed JSON-RPC messages, in arrival order.

use std::sync::{Arc, Mutex};

use axum::{
    body::{to_bytes, Body},
    extract::Request,
    middleware::{self, Next},
    response::Response,
    Router,
};
use serde_json::Value;

/// Request bodies and responses of these tests are a few KiB; anything near this is a bug.
const BODY_LIMIT: usize = 4 << 20;

/// One HTTP exchange: the JSON-RPC message the client posted and what the server answered.
#[derive(Debug, Clone)]
pub struct Exchange {
    pub request: Value,
    pub status: u16,
    /// Every JSON-RPC message in the response body: one for JSON, one per `data:` event for SSE.
    pub responses: Vec<Value>,
}

impl Exchange {
    pub fn method(&self) -> Option<&str> {
        self.request.get("method").and_then(Value::as_str)
    }

    pub fn id(&self) -> Option<&Value> {
        self.request.get("id")
    }

    /// The `params.name` of a `tools/call` or `prompts/get`.
    pub fn target(&self) -> Option<&str> {
        self.request.pointer("/params/name").and_then(Value::as_str)
    }

    /// `params.requestState` exactly as it arrived (a JSON string, or whatever else was sent).
    pub fn sent_state(&self) -> Option<&Value> {
        self.request.pointer("/params/requestState")
    }

    pub fn sent_input_responses(&self) -> Option<&Value> {
        self.request.pointer("/params/inputResponses")
    }

    /// The response that answers this request's id (not a notification on the same stream).
    pub fn reply(&self) -> Option<&Value> {
        let id = self.id()?;
        self.responses
            .iter()
            .find(|message| message.get("id") == Some(id))
    }

    pub fn result(&self) -> Option<&Value> {
        self.reply()?.get("result")
    }

    pub fn error_code(&self) -> Option<i64> {
        self.reply()?.pointer("/error/code").and_then(Value::as_i64)
    }

    pub fn is_input_required(&self) -> bool {
        self.result()
            .and_then(|result| result.get("resultType"))
            .and_then(Value::as_str)
            == Some("input_required")
    }

    /// The `requestState` the server handed out in an input_required reply.
    pub fn returned_state(&self) -> Option<&str> {
        self.result()?.get("requestState")?.as_str()
    }
}

/// Shared log of exchanges; clones see the same log.
#[derive(Clone, Default)]
pub struct Recorder {
    log: Arc<Mutex<Vec<Exchange>>>,
}

impl Recorder {
    /// `router` with every request and response recorded.
    pub fn wrap(&self, router: Router) -> Router {
        let recorder = self.clone();
        router.layer(middleware::from_fn(move |request: Request, next: Next| {
            let recorder = recorder.clone();
            async move { recorder.record(request, next).await }
        }))
    }

    /// A snapshot of everything recorded so far.
    pub fn exchanges(&self) -> Vec<Exchange> {
        self.log.lock().map(|log| log.clone()).unwrap_or_default()
    }

    /// The exchanges of `method` calls to `target`, in order.
    pub fn calls(&self, method: &str, target: &str) -> Vec<Exchange> {
        self.exchanges()
            .into_iter()
            .filter(|exchange| {
                exchange.method() == Some(method) && exchange.target() == Some(target)
            })
            .collect()
    }

    async fn record(&self, request: Request, next: Next) -> Response {
        let (parts, body) = request.into_parts();
        let bytes = match to_bytes(body, BODY_LIMIT).await {
            Ok(bytes) => bytes,
            Err(error) => {
                return Response::builder()
                    .status(413)
                    .body(Body::from(format!("recorder: {error}")))
                    .unwrap_or_default()
            }
        };
        let posted: Option<Value> = serde_json::from_slice(&bytes).ok();
        let response = next
            .run(Request::from_parts(parts, Body::from(bytes)))
            .await;
        let Some(posted) = posted else {
            return response;
        };
        let (parts, body) = response.into_parts();
        let bytes = to_bytes(body, BODY_LIMIT).await.unwrap_or_default();
        let exchange = Exchange {
            request: posted,
            status: parts.status.as_u16(),
            responses: messages_in(&bytes),
        };
        if let Ok(mut log) = self.log.lock() {
            log.push(exchange);
        }
        Response::from_parts(parts, Body::from(bytes))
    }
}

/// The JSON-RPC messages in a response body: the body itself when it is JSON, else each SSE
/// `data:` payload that parses.
fn messages_in(body: &[u8]) -> Vec<Value> {
    if let Ok(message) = serde_json::from_slice::<Value>(body) {
        return vec![message];
    }
    String::from_utf8_lossy(body)
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str(data.trim()).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::messages_in;
    use serde_json::json;

    #[test]
    fn reads_json_and_sse_bodies() {
        assert_eq!(messages_in(br#"{"id":1}"#), vec![json!({"id": 1})]);
        let sse = b"id: 0\nevent: message\ndata: {\"id\":2,\"result\":{}}\n\ndata: not json\n\n";
        assert_eq!(messages_in(sse), vec![json!({"id": 2, "result": {}})]);
        assert!(messages_in(b"").is_empty());
    }
}
