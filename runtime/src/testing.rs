//! A test client that drives MRTR rounds against a handler in plain unit tests.
//!
//! ```no_run
//! # use mrtr::testing::{Answer, TestClient};
//! # use mrtr::{Mrtr, MrtrError, Outcome};
//! # async fn handler(_: Mrtr) -> Result<Outcome<serde_json::Value>, MrtrError> { unimplemented!() }
//! # async fn demo() {
//! let transcript = TestClient::tool("deploy", serde_json::json!({"version": "1.2.3"}))
//!     .answer("confirm", Answer::accept(serde_json::json!({"confirm": true})))
//!     .run(handler)
//!     .await;
//! assert_eq!(transcript.rounds.len(), 2);
//! # }
//! ```

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::ask::{Root, SamplingResponse};
use crate::config::{Clock, MrtrConfig, SystemClock};
use crate::context::{IncomingRequest, Mrtr};
use crate::error::MrtrError;
use crate::keys::{KeyRing, SecretKey};
use crate::wire::{InputRequired, Outcome};

/// Rounds the client drives before giving up (the same default as the SDK clients).
pub const DEFAULT_MAX_ROUNDS: usize = 10;

/// A configuration with a fresh random key and no warning, for tests.
pub fn test_config(server_name: &str) -> MrtrConfig {
    let key = SecretKey::random("test").unwrap_or_else(|_| {
        SecretKey::new("test", vec![0x5a; 32]).expect("a 32-byte key with a valid id")
    });
    MrtrConfig::new(server_name, KeyRing::single(key))
}

/// A clock the test moves by hand.
#[derive(Debug)]
pub struct ManualClock(AtomicU64);

impl ManualClock {
    /// Starts at the current system time.
    pub fn new() -> Arc<ManualClock> {
        Arc::new(ManualClock(AtomicU64::new(SystemClock.now_unix())))
    }

    pub fn advance(&self, by: Duration) {
        self.0.fetch_add(by.as_secs(), Ordering::SeqCst);
    }

    pub fn rewind(&self, by: Duration) {
        let _ = self
            .0
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |now| {
                Some(now.saturating_sub(by.as_secs()))
            });
    }

    pub fn set(&self, unix_seconds: u64) {
        self.0.store(unix_seconds, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now_unix(&self) -> u64 {
        self.0.load(Ordering::SeqCst)
    }
}

/// A scripted answer to one `inputRequests` key.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// `{"action":"accept","content":..}` (form) or `{"action":"accept"}` (URL, content None).
    Accept(Option<Value>),
    Decline,
    Cancel,
    Sampling(SamplingResponse),
    Roots(Vec<Root>),
    /// Sent as is (malformed answers).
    Raw(Value),
    /// Left out of this round's inputResponses.
    Missing,
}

impl Answer {
    /// A form accept with this content.
    pub fn accept(content: impl Serialize) -> Answer {
        Answer::Accept(Some(serde_json::to_value(content).unwrap_or(Value::Null)))
    }

    /// A URL-mode accept (consent, no content).
    pub fn consent() -> Answer {
        Answer::Accept(None)
    }

    fn to_wire(&self) -> Option<Value> {
        Some(match self {
            Answer::Accept(Some(content)) => json!({ "action": "accept", "content": content }),
            Answer::Accept(None) => json!({ "action": "accept" }),
            Answer::Decline => json!({ "action": "decline" }),
            Answer::Cancel => json!({ "action": "cancel" }),
            Answer::Sampling(response) => serde_json::to_value(response).unwrap_or(Value::Null),
            Answer::Roots(roots) => json!({ "roots": roots }),
            Answer::Raw(value) => value.clone(),
            Answer::Missing => return None,
        })
    }
}

/// A JSON-RPC error as the client would see it.
#[derive(Debug, Clone, PartialEq)]
pub struct WireError {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

impl From<MrtrError> for WireError {
    fn from(error: MrtrError) -> Self {
        WireError {
            code: error.code(),
            message: error.message(),
            data: error.data(),
        }
    }
}

#[cfg(feature = "rmcp")]
impl From<rmcp::ErrorData> for WireError {
    fn from(error: rmcp::ErrorData) -> Self {
        WireError {
            code: i64::from(error.code.0),
            message: error.message.to_string(),
            data: error.data,
        }
    }
}

/// A handler's success type, seen as the client sees it.
pub trait TestResponse {
    fn into_outcome(self) -> Result<Outcome<Value>, String>;
}

impl<T: Serialize> TestResponse for Outcome<T> {
    fn into_outcome(self) -> Result<Outcome<Value>, String> {
        match self {
            Outcome::Complete(value) => serde_json::to_value(value)
                .map(Outcome::Complete)
                .map_err(|e| format!("the complete result does not serialize: {e}")),
            Outcome::InputRequired(result) => Ok(Outcome::InputRequired(result)),
        }
    }
}

#[cfg(feature = "rmcp")]
mod rmcp_responses {
    use super::*;
    use rmcp::model::{CallToolResponse, GetPromptResponse, ReadResourceResponse};

    fn complete(value: impl Serialize) -> Result<Outcome<Value>, String> {
        serde_json::to_value(value)
            .map(Outcome::Complete)
            .map_err(|e| format!("the complete result does not serialize: {e}"))
    }

    impl TestResponse for CallToolResponse {
        fn into_outcome(self) -> Result<Outcome<Value>, String> {
            match self {
                CallToolResponse::Complete(result) => complete(result),
                CallToolResponse::InputRequired(result) => Ok(Outcome::InputRequired(
                    crate::rmcp::from_rmcp_input_required(&result),
                )),
                other => Err(format!("unexpected tools/call response: {other:?}")),
            }
        }
    }

    impl TestResponse for GetPromptResponse {
        fn into_outcome(self) -> Result<Outcome<Value>, String> {
            match self {
                GetPromptResponse::Complete(result) => complete(result),
                GetPromptResponse::InputRequired(result) => Ok(Outcome::InputRequired(
                    crate::rmcp::from_rmcp_input_required(&result),
                )),
                other => Err(format!("unexpected prompts/get response: {other:?}")),
            }
        }
    }

    impl TestResponse for ReadResourceResponse {
        fn into_outcome(self) -> Result<Outcome<Value>, String> {
            match self {
                ReadResourceResponse::Complete(result) => complete(result),
                ReadResourceResponse::InputRequired(result) => Ok(Outcome::InputRequired(
                    crate::rmcp::from_rmcp_input_required(&result),
                )),
                other => Err(format!("unexpected resources/read response: {other:?}")),
            }
        }
    }
}

/// What one round returned.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    InputRequired(InputRequired),
    Complete(Value),
    Error(WireError),
}

/// One request the client sent and what came back.
#[derive(Debug, Clone, PartialEq)]
pub struct Round {
    pub request: IncomingRequest,
    pub reply: Reply,
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub enum End {
    /// The handler completed with this result.
    Complete(Value),
    /// The handler answered with a JSON-RPC error.
    Error(WireError),
    /// The server asked for a key the test scripted no answer for.
    Unanswered { key: String, request: Value },
    /// Still `input_required` after the round cap.
    TooManyRounds,
    /// The handler returned something that is not a valid response.
    BadResponse(String),
}

/// Everything a run did.
#[derive(Debug, Clone, PartialEq)]
pub struct Transcript {
    pub rounds: Vec<Round>,
    pub end: End,
}

impl Transcript {
    /// The complete result, if the run completed.
    pub fn complete(&self) -> Option<&Value> {
        match &self.end {
            End::Complete(value) => Some(value),
            _ => None,
        }
    }

    /// The error, if the run ended in one.
    pub fn error(&self) -> Option<&WireError> {
        match &self.end {
            End::Error(error) => Some(error),
            _ => None,
        }
    }

    /// The inputRequests of round `index` (0-based), if that round asked.
    pub fn asked(&self, index: usize) -> Option<&InputRequired> {
        match &self.rounds.get(index)?.reply {
            Reply::InputRequired(result) => Some(result),
            _ => None,
        }
    }
}

type RoundHook = Box<dyn FnMut(usize, &mut IncomingRequest) + Send>;

/// Drives a handler round by round like an MRTR client: call, collect inputRequests, answer,
/// retry with the new inputResponses and the byte-identical requestState.
pub struct TestClient {
    config: MrtrConfig,
    request: IncomingRequest,
    answers: HashMap<String, VecDeque<Answer>>,
    fallback: Option<Answer>,
    max_rounds: usize,
    before_round: Option<RoundHook>,
}

/// The capabilities a full-featured client declares.
pub fn all_capabilities() -> Value {
    json!({
        "elicitation": { "form": {}, "url": {} },
        "sampling": { "tools": {}, "context": {} },
        "roots": { "listChanged": true }
    })
}

impl TestClient {
    /// A client for `request`, with a fresh test key ring.
    pub fn new(request: IncomingRequest) -> TestClient {
        let request = IncomingRequest {
            client_capabilities: request
                .client_capabilities
                .or_else(|| Some(all_capabilities())),
            ..request
        };
        TestClient {
            config: test_config("mrtr-test-server"),
            request,
            answers: HashMap::new(),
            fallback: None,
            max_rounds: DEFAULT_MAX_ROUNDS,
            before_round: None,
        }
    }

    /// `tools/call name arguments`.
    pub fn tool(name: &str, arguments: Value) -> TestClient {
        TestClient::new(IncomingRequest::call_tool(name, arguments))
    }

    /// `prompts/get name arguments`.
    pub fn prompt(name: &str, arguments: Value) -> TestClient {
        TestClient::new(IncomingRequest::get_prompt(name, arguments))
    }

    /// `resources/read uri`.
    pub fn resource(uri: &str) -> TestClient {
        TestClient::new(IncomingRequest::read_resource(uri))
    }

    /// Uses this server configuration (keys, audience, clock) instead of a fresh one.
    pub fn config(mut self, config: &MrtrConfig) -> Self {
        self.config = config.clone();
        self
    }

    /// The capabilities every request declares: exactly `capabilities`, replacing the default
    /// ([`all_capabilities`]), not merged with it.
    pub fn capabilities(mut self, capabilities: Value) -> Self {
        self.request.client_capabilities = Some(capabilities);
        self
    }

    /// Requests declare no capabilities at all (no client capabilities in `_meta`), like a
    /// client that supports none of elicitation, sampling and roots.
    pub fn no_capabilities(mut self) -> Self {
        self.request.client_capabilities = None;
        self
    }

    pub fn principal(mut self, principal: &str) -> Self {
        self.request.principal = Some(principal.to_string());
        self
    }

    /// Scripts the answer to `key`. Several answers to one key are used in order, one per round
    /// the key is asked in; the last one repeats.
    pub fn answer(mut self, key: &str, answer: Answer) -> Self {
        self.answers
            .entry(key.to_string())
            .or_default()
            .push_back(answer);
        self
    }

    /// The answer to any key without a scripted one (default: stop with `End::Unanswered`).
    pub fn answer_any(mut self, answer: Answer) -> Self {
        self.fallback = Some(answer);
        self
    }

    /// Round cap (default 10).
    pub fn max_rounds(mut self, rounds: usize) -> Self {
        self.max_rounds = rounds;
        self
    }

    /// Runs before each request is sent (`round` counts from 1) and may change it: tamper with
    /// the state, switch principal or arguments, drop capabilities.
    pub fn before_round(
        mut self,
        hook: impl FnMut(usize, &mut IncomingRequest) + Send + 'static,
    ) -> Self {
        self.before_round = Some(Box::new(hook));
        self
    }

    fn next_answer(&mut self, key: &str) -> Option<Answer> {
        match self.answers.get_mut(key) {
            Some(queue) if queue.len() > 1 => queue.pop_front(),
            Some(queue) => queue.front().cloned(),
            None => self.fallback.clone(),
        }
    }

    /// Drives `handler` to the end (complete, error, or the round cap).
    pub async fn run<F, Fut, R, E>(mut self, mut handler: F) -> Transcript
    where
        F: FnMut(Mrtr) -> Fut,
        Fut: Future<Output = Result<R, E>>,
        R: TestResponse,
        E: Into<WireError>,
    {
        let mut rounds = Vec::new();
        let mut next = self.request.clone();
        for round in 1..=self.max_rounds {
            let mut request = next.clone();
            if let Some(hook) = self.before_round.as_mut() {
                hook(round, &mut request);
            }
            let mrtr = Mrtr::new(request.clone(), &self.config);
            let reply = match handler(mrtr).await {
                Err(error) => Reply::Error(error.into()),
                Ok(response) => match response.into_outcome() {
                    Ok(Outcome::Complete(value)) => Reply::Complete(value),
                    Ok(Outcome::InputRequired(result)) => Reply::InputRequired(result),
                    Err(problem) => {
                        return Transcript {
                            rounds,
                            end: End::BadResponse(problem),
                        }
                    }
                },
            };
            rounds.push(Round {
                request,
                reply: reply.clone(),
            });
            let result = match reply {
                Reply::Complete(value) => {
                    return Transcript {
                        rounds,
                        end: End::Complete(value),
                    }
                }
                Reply::Error(error) => {
                    return Transcript {
                        rounds,
                        end: End::Error(error),
                    }
                }
                Reply::InputRequired(result) => result,
            };
            let mut responses = Map::new();
            for (key, input_request) in &result.input_requests {
                match self.next_answer(key) {
                    None => {
                        return Transcript {
                            rounds,
                            end: End::Unanswered {
                                key: key.clone(),
                                request: input_request.clone(),
                            },
                        }
                    }
                    Some(answer) => {
                        if let Some(wire) = answer.to_wire() {
                            responses.insert(key.clone(), wire);
                        }
                    }
                }
            }
            // Each retry carries only this round's answers, and the state exactly as received.
            next = IncomingRequest {
                request_state: result.request_state.clone().map(Value::String),
                input_responses: if result.input_requests.is_empty() {
                    None
                } else {
                    Some(Value::Object(responses))
                },
                ..self.request.clone()
            };
        }
        Transcript {
            rounds,
            end: End::TooManyRounds,
        }
    }

    /// [`TestClient::run`] on the current thread, for `#[test]` functions whose handler needs
    /// no async runtime (no timers, sockets or `tokio::spawn`).
    pub fn run_blocking<F, Fut, R, E>(self, handler: F) -> Transcript
    where
        F: FnMut(Mrtr) -> Fut,
        Fut: Future<Output = Result<R, E>>,
        R: TestResponse,
        E: Into<WireError>,
    {
        block_on(self.run(handler))
    }
}

/// Tampering helpers for the hook of [`TestClient::before_round`].
pub mod tamper {
    use serde_json::Value;

    use crate::context::IncomingRequest;

    /// Applies `f` to the request's state string, if it has one.
    pub fn map_state(request: &mut IncomingRequest, f: impl FnOnce(&str) -> String) {
        if let Some(Value::String(state)) = request.request_state.as_ref() {
            request.request_state = Some(Value::String(f(state)));
        }
    }

    /// Flips one bit of the character at `index` (counted from the end when past the length),
    /// keeping it in the base64url alphabet so decoding still succeeds.
    pub fn flip_char(state: &str, index: usize) -> String {
        let mut chars: Vec<char> = state.chars().collect();
        if chars.is_empty() {
            return String::from("A");
        }
        let i = index.min(chars.len() - 1);
        chars[i] = match chars[i] {
            'A' => 'B',
            'a' => 'b',
            '0' => '1',
            '-' => '_',
            '_' => '-',
            c if c.is_ascii_alphanumeric() => 'A',
            _ => 'A',
        };
        chars.into_iter().collect()
    }

    /// Cuts the state to `len` characters.
    pub fn truncate(state: &str, len: usize) -> String {
        state.chars().take(len).collect()
    }
}

fn block_on<F: Future>(future: F) -> F::Output {
    use std::task::{Context, Poll, Wake, Waker};
    use std::thread::Thread;

    struct ThreadWaker(Thread);
    impl Wake for ThreadWaker {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }

    let mut future = std::pin::pin!(future);
    let waker = Waker::from(Arc::new(ThreadWaker(std::thread::current())));
    let mut context = Context::from_waker(&waker);
    loop {
        match future.as_mut().poll(&mut context) {
            Poll::Ready(output) => return output,
            Poll::Pending => std::thread::park(),
        }
    }
}
