//! Deferred asks for servers that speak JSON-RPC themselves, without an SDK adapter.
//!
//! A hand-rolled server sends `elicitation/create`, `sampling/createMessage` or `roots/list`
//! through its own requester (`requester.send_request("elicitation/create", params).await`)
//! and dispatches requests in its own `match` on the method name. Two pieces move it to
//! 2026-07-28, neither of which needs to know the server's types:
//!
//! - **The ask**: `Question::new(method, params).or_send(|params| requester.send_request(method,
//!   params))` stands where the send stood and returns what the send returned. On a pre-2026
//!   request, or where no scope runs the code, it *is* the send. In the scope of a 2026-07-28
//!   request it returns the client's answer from this request's `inputResponses`; when there is
//!   none yet, it queues the question and never completes, so the handler stops right there.
//! - **The scope**: [`RequestScope::open`] with the request's method and params, and
//!   [`RequestScope::run`] around the dispatch of `tools/call`, `prompts/get` or
//!   `resources/read`. When the handler stops on an unanswered question, the round ends with an
//!   `InputRequiredResult` ([`Round::InputRequired`]) and the handler's future is dropped: the
//!   code after the ask never runs in that round. The client's retry runs the handler again from
//!   the top (a replay, as for every deferred ask: see [`crate::deferred`]), and the ask finds
//!   its answer.
//!
//! Parking instead of failing is what makes the ask independent of the server's error type: a
//! send returns `Result<Value, TheirError>`, and no `TheirError` can be made here.

use std::cell::RefCell;
use std::future::Future;
use std::task::Poll;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

use crate::ask::{self, Ask};
use crate::context::{IncomingRequest, Mrtr};
use crate::deferred::{self as scope, Deferred, DeferredScope};
use crate::error::MrtrError;
use crate::flow::Flow;

/// The fingerprint this scope's states are sealed under (the rounds of a JSON-RPC request).
pub const FINGERPRINT: &str = "mrtr.jsonrpc-scope.v1";

/// The `_meta` key that names a request's protocol revision.
const PROTOCOL_VERSION_META_KEY: &str = "io.modelcontextprotocol/protocolVersion";
/// The first revision whose requests answer with `InputRequiredResult`.
const MRTR_REVISION: &str = "2026-07-28";

thread_local! {
    /// Set while a [`RequestScope`] polls its handler: an ask parks only where a scope will see
    /// it park (elsewhere it sends, as before), and a failed ask leaves its error here.
    static PARKING: RefCell<Option<Parked>> = const { RefCell::new(None) };
}

#[derive(Default)]
struct Parked {
    failed: Option<MrtrError>,
}

/// How one round of a request ended.
#[derive(Debug)]
pub enum Round<T> {
    /// The handler ran to its end: its own response.
    Finished(T),
    /// The handler waits for the client's answers: this `InputRequiredResult` is the request's
    /// `result`.
    InputRequired(Value),
    /// The request cannot go on: a tampered or foreign `requestState` (-32602), a capability
    /// the client did not declare (-32021), a malformed answer. Answer with this JSON-RPC error.
    Refused(ErrorObject),
}

/// A JSON-RPC error object, for the server's own error response.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ErrorObject {
    pub code: i64,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl From<MrtrError> for ErrorObject {
    fn from(error: MrtrError) -> Self {
        ErrorObject {
            code: error.code(),
            message: error.message(),
            data: error.data(),
        }
    }
}

impl<T> Round<T> {
    /// The server's response for this round, built with its own constructors: `finished` is the
    /// handler's response, `result` makes a success response from a result, `error` an error
    /// response from an error object.
    pub fn respond<R>(
        self,
        finished: impl FnOnce(T) -> R,
        result: impl FnOnce(Value) -> R,
        error: impl FnOnce(ErrorObject) -> R,
    ) -> R {
        match self {
            Round::Finished(response) => finished(response),
            Round::InputRequired(value) => result(value),
            Round::Refused(object) => error(object),
        }
    }
}

/// The params a request carries, as a server's own request type holds them.
pub trait RequestParams {
    fn params(&self) -> Option<&Value>;
}

impl RequestParams for Value {
    fn params(&self) -> Option<&Value> {
        Some(self)
    }
}

impl RequestParams for Option<Value> {
    fn params(&self) -> Option<&Value> {
        self.as_ref()
    }
}

impl<P: RequestParams + ?Sized> RequestParams for &P {
    fn params(&self) -> Option<&Value> {
        (**self).params()
    }
}

impl<P: RequestParams + ?Sized> RequestParams for Box<P> {
    fn params(&self) -> Option<&Value> {
        (**self).params()
    }
}

/// The scope of one request a JSON-RPC server serves (see the module doc).
pub struct RequestScope {
    /// None: not a 2026-07-28 `tools/call`, `prompts/get` or `resources/read`; the handler runs
    /// as it always did and its asks are sent mid-request.
    opened: Option<Result<Result<Flow, DeferredScope>, MrtrError>>,
}

impl RequestScope {
    /// Opens the scope of a request of `method` with `params`, for the server named
    /// `server_name` (its keys come from the environment, as for every `MrtrServer`: see
    /// [`crate::MrtrConfig::from_env`]). The params are read here, so the handler may take them.
    pub fn open(
        server_name: &'static str,
        method: &str,
        params: impl RequestParams,
    ) -> RequestScope {
        let Some(params) = params.params() else {
            return RequestScope { opened: None };
        };
        let revision = params
            .get("_meta")
            .and_then(|meta| meta.get(PROTOCOL_VERSION_META_KEY))
            .and_then(Value::as_str);
        if revision.is_none_or(|r| r < MRTR_REVISION) {
            return RequestScope { opened: None };
        }
        let Some(request) = IncomingRequest::from_json_rpc(method, params) else {
            return RequestScope { opened: None };
        };
        let mrtr = Mrtr::new(request, crate::env_config::for_server(server_name));
        RequestScope {
            opened: Some(Flow::start_adapter(&mrtr, FINGERPRINT)),
        }
    }

    /// Runs the handler's future in this scope (see [`Round`]).
    pub async fn run<F: Future>(self, body: F) -> Round<F::Output> {
        match self.opened {
            None => Round::Finished(body.await),
            Some(Err(error)) => Round::Refused(error.into()),
            // A `#[mrtr_handler]`'s state: that handler carries the rounds.
            Some(Ok(Err(refusing))) => Round::Finished(refusing.run(body).await),
            Some(Ok(Ok(mut flow))) => {
                let deferred = flow.deferred();
                let (finished, failed) = run_parking(&deferred, body).await;
                if let Some(error) = failed {
                    return Round::Refused(error.into());
                }
                let settled = flow.settle_deferred::<(), MrtrError>(Ok(()));
                let waiting = match flow.finish_response(settled.map(|()| None), Some) {
                    Ok(waiting) => waiting,
                    Err(error) => return Round::Refused(error.into()),
                };
                match (waiting, finished) {
                    (Some(input_required), _) => Round::InputRequired(input_required.to_json()),
                    (None, Some(response)) => Round::Finished(response),
                    (None, None) => Round::Refused(
                        MrtrError::Internal(
                            "the handler stopped on an ask, and no ask is waiting".into(),
                        )
                        .into(),
                    ),
                }
            }
        }
    }
}

/// The scope of one request *message*, for a server whose handler maps the whole JSON-RPC request
/// message to its whole response message (`async fn handle(&self, request: Value) -> Value`):
/// the scope reads the method, params and id from the message itself, and writes the response
/// message of a round that waits for the client, or is refused, as JSON-RPC has it.
pub struct MessageScope {
    scope: RequestScope,
    id: Value,
}

impl RequestScope {
    /// Opens the scope of the request `message` (see [`MessageScope`]); anything but a 2026-07-28
    /// `tools/call`, `prompts/get` or `resources/read` runs as it always did.
    pub fn for_message(server_name: &'static str, message: &Value) -> MessageScope {
        let method = message
            .get("method")
            .and_then(Value::as_str)
            .unwrap_or_default();
        MessageScope {
            scope: RequestScope::open(server_name, method, message.get("params").cloned()),
            id: message.get("id").cloned().unwrap_or(Value::Null),
        }
    }
}

impl MessageScope {
    /// Runs the handler's future in this scope: its own response message, or the response
    /// message this round ends with.
    pub async fn serve<F: Future<Output = Value>>(self, handler: F) -> Value {
        let id = self.id;
        self.scope.run(handler).await.respond(
            |response| response,
            |result| json!({ "jsonrpc": "2.0", "id": id, "result": result }),
            |error| json!({ "jsonrpc": "2.0", "id": id, "error": error }),
        )
    }
}

/// Polls `body` in `deferred` until it completes, or stops on an unanswered (or failed) ask:
/// its response if it completed, and the error of a failed ask.
async fn run_parking<F: Future>(
    deferred: &DeferredScope,
    body: F,
) -> (Option<F::Output>, Option<MrtrError>) {
    let mut scoped = std::pin::pin!(deferred.run(body));
    std::future::poll_fn(|cx| {
        let previous = PARKING.with(|p| p.replace(Some(Parked::default())));
        let polled = scoped.as_mut().poll(cx);
        let parked = PARKING.with(|p| std::mem::replace(&mut *p.borrow_mut(), previous));
        let failed = parked.and_then(|p| p.failed);
        match polled {
            Poll::Ready(response) => Poll::Ready((Some(response), failed)),
            Poll::Pending if failed.is_some() => Poll::Ready((None, failed)),
            Poll::Pending if deferred.has_pending() => Poll::Ready((None, None)),
            Poll::Pending => Poll::Pending,
        }
    })
    .await
}

/// A value a send returns that an answer can stand for.
pub trait FromAnswer: Sized {
    /// The send's result made from the client's answer (the `result` of its response).
    fn from_answer(answer: Value) -> Result<Self, String>;
}

impl FromAnswer for Value {
    fn from_answer(answer: Value) -> Result<Self, String> {
        Ok(answer)
    }
}

impl<T: DeserializeOwned, E> FromAnswer for Result<T, E> {
    fn from_answer(answer: Value) -> Result<Self, String> {
        serde_json::from_value(answer)
            .map(Ok)
            .map_err(|e| e.to_string())
    }
}

impl<T: DeserializeOwned> FromAnswer for Option<T> {
    fn from_answer(answer: Value) -> Result<Self, String> {
        serde_json::from_value(answer)
            .map(Some)
            .map_err(|e| e.to_string())
    }
}

/// One server-to-client request, as a hand-rolled server sends it (see the module doc).
pub struct Question<P> {
    method: String,
    params: P,
    as_json: Result<Value, String>,
}

impl<P: Serialize> Question<P> {
    /// The request of `method` with `params` (whatever the server's send takes: a `Value`, a
    /// params struct, `()` for none).
    pub fn new(method: impl Into<String>, params: P) -> Question<P> {
        let as_json = serde_json::to_value(&params).map_err(|e| e.to_string());
        Question {
            method: method.into(),
            params,
            as_json,
        }
    }

    /// Asks this question in the scope of the request running this code, else sends it with
    /// `send`, which gets the params back (see the module doc).
    pub async fn or_send<F, Fut>(self, send: F) -> Fut::Output
    where
        F: FnOnce(P) -> Fut,
        Fut: Future,
        Fut::Output: FromAnswer,
    {
        let Some(capability) = self.asked_here() else {
            return send(self.params).await;
        };
        let found = scope::poll_with(|| {
            let request = match &self.as_json {
                Ok(Value::Null) => json!({ "method": self.method }),
                Ok(params) => json!({ "method": self.method, "params": params }),
                Err(e) => json!({ "method": self.method, "params": { "unserializable": e } }),
            };
            let problem = self
                .as_json
                .as_ref()
                .err()
                .map(|e| format!("the params of `{}` do not serialize: {e}", self.method));
            Ask::new(request, capability, |_, answer: &Value| Ok(answer.clone()))
                .with_problem(problem)
        });
        match found {
            Deferred::Unscoped | Deferred::InProcess => send(self.params).await,
            Deferred::Ready(answer) => match Fut::Output::from_answer(answer) {
                Ok(result) => result,
                Err(reason) => park(Some(ask::invalid(&self.method, reason))).await,
            },
            Deferred::Pending => park(None).await,
            Deferred::Failed(error) => park(Some(error)).await,
        }
    }
}

impl Question<Value> {
    /// The question a whole request message holds (`{"jsonrpc", "id", "method", "params"}`, a
    /// `Value` or a struct that serializes to one), for a server that writes the message itself
    /// and reads the answer from its own channel: [`Question::sends`] guards its write, and
    /// [`Question::or_send`] stands at its receive (`or_send(|_| receiver)`).
    pub fn message(message: &impl Serialize) -> Question<Value> {
        let json = serde_json::to_value(message).map_err(|e| e.to_string());
        let field = |key: &str| json.as_ref().ok().and_then(|m| m.get(key)).cloned();
        let method = field("method")
            .and_then(|m| m.as_str().map(str::to_string))
            .unwrap_or_default();
        let params = field("params").unwrap_or(Value::Null);
        Question {
            method,
            as_json: json.map(|_| params.clone()),
            params,
        }
    }
}

impl<P> Question<P> {
    /// Whether this question goes out as the server's own request: on a pre-2026 request, and
    /// wherever no scope runs the code. When false, a 2026-07-28 scope asks it in
    /// `inputRequests` (its [`Question::or_send`] never calls the send), so the code that would
    /// write it to the client must not run.
    pub fn sends(&self) -> bool {
        self.asked_here().is_none()
    }

    /// The capability this question needs when the scope running this code asks it (a
    /// 2026-07-28 request's, polled by a [`RequestScope`]); None where it is sent instead. The one
    /// decision [`Question::sends`] and [`Question::or_send`] both make.
    fn asked_here(&self) -> Option<Value> {
        if !PARKING.with(|p| p.borrow().is_some()) || !scope::asks_here() {
            return None;
        }
        capability_of(&self.method, &self.as_json)
    }
}

/// The client capability a request of `method` needs; None for a method that is not an ask
/// (a ping, a notification sent as a request): that one is sent as before.
fn capability_of(method: &str, params: &Result<Value, String>) -> Option<Value> {
    match method {
        "elicitation/create" => {
            let url = params
                .as_ref()
                .is_ok_and(|p| p.get("mode").and_then(Value::as_str) == Some("url"));
            Some(if url {
                json!({ "elicitation": { "url": {} } })
            } else {
                json!({ "elicitation": {} })
            })
        }
        "sampling/createMessage" => Some(json!({ "sampling": {} })),
        "roots/list" => Some(json!({ "roots": {} })),
        _ => None,
    }
}

/// Stops the handler here for this round; `failed` ends the request with that error instead.
async fn park<T>(failed: Option<MrtrError>) -> T {
    if let Some(error) = failed {
        PARKING.with(|p| {
            if let Some(parked) = p.borrow_mut().as_mut() {
                parked.failed.get_or_insert(error);
            }
        });
    }
    std::future::pending().await
}
