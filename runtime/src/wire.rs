//! The SDK-neutral shapes of an MRTR response: `InputRequired`, `Outcome` and `Completes`.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::MrtrError;

/// An `InputRequiredResult` (`resultType: "input_required"`) before it is mapped to an SDK type.
#[derive(Debug, Clone, PartialEq)]
pub struct InputRequired {
    /// `inputRequests`, keyed by server-chosen keys; may be empty when only state is carried.
    pub input_requests: BTreeMap<String, Value>,
    /// `requestState`, the sealed token the client echoes back verbatim.
    pub request_state: Option<String>,
}

impl InputRequired {
    /// Builds the result; the spec requires at least one of `inputRequests` / `requestState`.
    pub fn new(
        input_requests: BTreeMap<String, Value>,
        request_state: Option<String>,
    ) -> Result<InputRequired, MrtrError> {
        let has_state = request_state.as_deref().is_some_and(|s| !s.is_empty());
        if input_requests.is_empty() && !has_state {
            return Err(MrtrError::Internal(
                "an InputRequiredResult needs inputRequests or requestState".into(),
            ));
        }
        Ok(InputRequired {
            input_requests,
            request_state: request_state.filter(|s| !s.is_empty()),
        })
    }

    /// The wire object: `{"resultType":"input_required","inputRequests":{..}?,"requestState":".."?}`.
    pub fn to_json(&self) -> Value {
        let mut object = Map::new();
        object.insert("resultType".into(), Value::from("input_required"));
        if !self.input_requests.is_empty() {
            let requests: Map<String, Value> = self
                .input_requests
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            object.insert("inputRequests".into(), Value::Object(requests));
        }
        if let Some(state) = &self.request_state {
            object.insert("requestState".into(), Value::from(state.clone()));
        }
        Value::Object(object)
    }
}

/// The complete-result type of a handler (CallToolResult, GetPromptResult, ...) and the response
/// type that can also carry InputRequired (CallToolResponse, ...). The macro rewrites
/// `-> Result<T, E>` into `-> Result<<T as Completes>::Response, E>`.
pub trait Completes: Sized {
    type Response;
    fn complete(self) -> Self::Response;
    fn input_required(result: InputRequired) -> Self::Response;
}

/// A finished result or a request for more input: the SDK-neutral response.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome<T> {
    Complete(T),
    InputRequired(InputRequired),
}

impl<T> Outcome<T> {
    /// The complete value, if the flow finished.
    pub fn complete(self) -> Option<T> {
        match self {
            Outcome::Complete(value) => Some(value),
            Outcome::InputRequired(_) => None,
        }
    }

    /// The input-required result, if the flow suspended.
    pub fn input_required(&self) -> Option<&InputRequired> {
        match self {
            Outcome::Complete(_) => None,
            Outcome::InputRequired(result) => Some(result),
        }
    }
}

impl<T> Outcome<T> {
    /// Maps the complete value, keeping an input-required result as is.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Outcome<U> {
        match self {
            Outcome::Complete(value) => Outcome::Complete(f(value)),
            Outcome::InputRequired(result) => Outcome::InputRequired(result),
        }
    }
}

impl<T: Completes> Outcome<T> {
    /// The SDK response (e.g. rmcp's `CallToolResponse` for a `CallToolResult`).
    pub fn into_response(self) -> T::Response {
        match self {
            Outcome::Complete(value) => value.complete(),
            Outcome::InputRequired(result) => T::input_required(result),
        }
    }
}

impl Completes for Value {
    type Response = Outcome<Value>;

    fn complete(self) -> Outcome<Value> {
        Outcome::Complete(self)
    }

    fn input_required(result: InputRequired) -> Outcome<Value> {
        Outcome::InputRequired(result)
    }
}

impl<T: Serialize> Outcome<T> {
    /// The wire result: the complete value as serialized, or the input_required object.
    pub fn to_json(&self) -> Result<Value, MrtrError> {
        match self {
            Outcome::Complete(value) => serde_json::to_value(value)
                .map_err(|e| MrtrError::Internal(format!("serializing the result: {e}"))),
            Outcome::InputRequired(result) => Ok(result.to_json()),
        }
    }
}
