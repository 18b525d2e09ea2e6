//! How a round reaches a client that speaks a protocol older than 2026-07-28.
//!
//! The state machine `#[mrtr_handler]` compiles does not know which era it serves. On a
//! 2026-07-28 request a round ends the request with an `InputRequiredResult`. On an older session
//! (2025-06-18, 2025-11-25, ...) the client cannot retry with `inputResponses`, but it does accept
//! server-to-client requests in the middle of a request. There the runtime carries the round in
//! process: at each ask site the expansion awaits [`Flow::carry`](crate::flow::Flow::carry),
//! which sends the round's asks as real `elicitation/create` / `sampling/createMessage` /
//! `roots/list` requests through a [`LegacyCarrier`] (all the asks of a `join` at once), and
//! the answers are read by the same decoding code the MRTR retry uses. The handler runs once, to
//! completion, inside the one request: nothing is sealed and no `requestState` leaves the server.
//!
//! An SDK adapter supplies the carrier (the rmcp adapter wraps the session's `Peer`); a server
//! without an adapter implements [`LegacyCarrier`] over its own transport.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use serde_json::Value;

use crate::error::MrtrError;

/// What one carried request came back with: the client's result object (the same JSON a
/// 2026-07-28 client puts in `inputResponses`), or why there is none.
pub type CarriedAnswer = Result<Value, CarryError>;

/// Why a carried request has no answer.
#[derive(Debug, Clone, PartialEq)]
pub enum CarryError {
    /// The client answered with a JSON-RPC error, or the request never reached it.
    Failed(String),
    /// No answer within the configured ask timeout.
    TimedOut,
}

impl CarryError {
    /// The author-facing error for the ask under `key` whose request was `request`.
    pub fn for_ask(self, key: &str, request: &Value) -> MrtrError {
        let key = key.to_string();
        let method = request
            .get("method")
            .and_then(Value::as_str)
            .unwrap_or("the request")
            .to_string();
        match self {
            CarryError::Failed(reason) => MrtrError::ClientRequestFailed {
                key,
                method,
                reason,
            },
            CarryError::TimedOut => MrtrError::ClientRequestTimedOut { key, method },
        }
    }
}

/// The answers of one round, in the order of its requests.
pub type CarriedRound<'a> = Pin<Box<dyn Future<Output = Vec<CarriedAnswer>> + Send + 'a>>;

/// Sends a round's asks to a pre-2026 client as real requests over its session.
pub trait LegacyCarrier: Send + Sync {
    /// Sends every request (`{"method": .., "params": ..}`, exactly an `inputRequests` entry)
    /// concurrently and returns one answer per request, in order. Each request that is not
    /// answered within `timeout` (when set) is [`CarryError::TimedOut`].
    fn send_round(&self, requests: Vec<Value>, timeout: Option<Duration>) -> CarriedRound<'_>;
}

/// One ask as it leaves the handler on a pre-2026 session: its key, its request and what it
/// needs, without its answer type (a round may mix asks of several types).
#[derive(Debug, Clone)]
pub struct Outgoing {
    /// The explicit key, or the step's default key (which a helper's flow prefixes).
    pub key: String,
    /// True when the key was given with `Ask::key`, and so is used as it is.
    pub explicit_key: bool,
    pub request: Value,
    pub capability: Value,
    /// Err when the ask itself cannot be sent (a server bug, e.g. a form that is not flat).
    pub check: Result<(), MrtrError>,
}
