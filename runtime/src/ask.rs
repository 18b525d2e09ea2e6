//! Asks (elicitation, URL elicitation, sampling, roots) and the decoding of their answers.

use std::marker::PhantomData;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::error::MrtrError;

/// One thing the handler needs from the client: becomes one `inputRequests` entry.
pub struct Ask<T> {
    key: Option<String>,
    request: Value,
    capability: Value,
    problem: Option<String>,
    decoder: fn(&str, &Value) -> Result<T, MrtrError>,
    /// Checks an answer against the request before decoding (a run-time schema), giving the
    /// answer to decode.
    conform: Option<Conform>,
    _answer: PhantomData<fn() -> T>,
}

/// `(request, key, answer) -> answer`: see [`Ask::decode`].
pub(crate) type Conform = fn(&Value, &str, &Value) -> Result<Value, MrtrError>;

impl<T> Clone for Ask<T> {
    fn clone(&self) -> Self {
        Ask {
            key: self.key.clone(),
            request: self.request.clone(),
            capability: self.capability.clone(),
            problem: self.problem.clone(),
            decoder: self.decoder,
            conform: self.conform,
            _answer: PhantomData,
        }
    }
}

impl<T> std::fmt::Debug for Ask<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ask")
            .field("key", &self.key)
            .field("request", &self.request)
            .field("capability", &self.capability)
            .finish()
    }
}

impl<T> Ask<T> {
    pub(crate) fn new(
        request: Value,
        capability: Value,
        decoder: fn(&str, &Value) -> Result<T, MrtrError>,
    ) -> Ask<T> {
        Ask {
            key: None,
            request,
            capability,
            problem: None,
            decoder,
            conform: None,
            _answer: PhantomData,
        }
    }

    pub(crate) fn with_conform(mut self, conform: Conform) -> Self {
        self.conform = Some(conform);
        self
    }

    pub(crate) fn with_problem(mut self, problem: Option<String>) -> Self {
        self.problem = problem;
        self
    }

    /// Sets the `inputRequests` key explicitly (otherwise the flow picks a stable one per step).
    pub fn key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }

    /// The key given with [`Ask::key`], if any.
    pub fn explicit_key(&self) -> Option<&str> {
        self.key.as_deref()
    }

    /// The `inputRequests` entry: `{"method": "...", "params": {...}}`.
    pub fn input_request(&self) -> Value {
        self.request.clone()
    }

    /// The client capability this ask needs, as a ClientCapabilities object.
    pub fn required_capability(&self) -> Value {
        self.capability.clone()
    }

    /// Err when the ask itself cannot be sent (e.g. a form type whose schema is not flat):
    /// a server bug, reported as `Internal` before anything reaches the client.
    pub fn check(&self) -> Result<(), MrtrError> {
        if let Some(problem) = &self.problem {
            return Err(MrtrError::Internal(problem.clone()));
        }
        // The rmcp adapter converts entries into rmcp's typed InputRequest; an entry it cannot
        // represent would be dropped on the way out and re-asked forever, so refuse it here.
        #[cfg(feature = "rmcp")]
        if let Err(e) = serde_json::from_value::<::rmcp::model::InputRequest>(self.request.clone())
        {
            return Err(MrtrError::Internal(format!(
                "rmcp cannot represent this input request: {e}"
            )));
        }
        Ok(())
    }

    /// This ask as it is sent on a pre-2026 session, under its explicit key or `default_key`.
    pub fn outgoing(&self, default_key: &str) -> crate::carrier::Outgoing {
        crate::carrier::Outgoing {
            key: self.explicit_key().unwrap_or(default_key).to_string(),
            explicit_key: self.explicit_key().is_some(),
            request: self.input_request(),
            capability: self.required_capability(),
            check: self.check(),
        }
    }

    /// Decodes the client's answer under `key` into `T`; a wrong shape is `InvalidAnswer`.
    pub fn decode(&self, key: &str, answer: &Value) -> Result<T, MrtrError> {
        match self.conform {
            Some(conform) => (self.decoder)(key, &conform(&self.request, key, answer)?),
            None => (self.decoder)(key, answer),
        }
    }
}

/// A type that can be asked for with a form elicitation.
pub trait ElicitForm: DeserializeOwned {
    /// The flat `requestedSchema` (type object, primitive properties, required list).
    fn requested_schema() -> Value;
}

impl<T: schemars::JsonSchema + DeserializeOwned> ElicitForm for T {
    fn requested_schema() -> Value {
        crate::schema::flat_schema_for::<T>().0
    }
}

/// The user's answer to a form elicitation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Elicitation<T> {
    Accept(T),
    Decline,
    Cancel,
}

impl<T> Elicitation<T> {
    /// The accepted content, if the user accepted.
    pub fn accepted(self) -> Option<T> {
        match self {
            Elicitation::Accept(value) => Some(value),
            _ => None,
        }
    }
}

/// The user's answer to a URL-mode elicitation. `Accept` means consent to open the URL, not
/// that the out-of-band step is done.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum UrlElicitation {
    Accept,
    Decline,
    Cancel,
}

/// One message of a sampling request: `{role, content}` where content is a block or blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SamplingMessage {
    pub role: String,
    pub content: Value,
}

impl SamplingMessage {
    /// A user message with one text block.
    pub fn user_text(text: impl Into<String>) -> SamplingMessage {
        SamplingMessage {
            role: "user".into(),
            content: json!({ "type": "text", "text": text.into() }),
        }
    }

    /// An assistant message with one text block.
    pub fn assistant_text(text: impl Into<String>) -> SamplingMessage {
        SamplingMessage {
            role: "assistant".into(),
            content: json!({ "type": "text", "text": text.into() }),
        }
    }
}

/// `sampling/createMessage` params (2026-07-28 shape).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SamplingRequest {
    pub messages: Vec<SamplingMessage>,
    pub max_tokens: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_context: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<Value>,
}

impl SamplingRequest {
    /// A request with one user text message.
    pub fn new(prompt: impl Into<String>, max_tokens: u32) -> SamplingRequest {
        SamplingRequest {
            messages: vec![SamplingMessage::user_text(prompt)],
            max_tokens,
            system_prompt: None,
            temperature: None,
            stop_sequences: None,
            model_preferences: None,
            include_context: None,
            metadata: None,
            tools: None,
            tool_choice: None,
        }
    }

    pub fn system_prompt(mut self, system_prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(system_prompt.into());
        self
    }

    /// The capability the client must declare for this request (spec capability mapping).
    pub fn required_capability(&self) -> Value {
        let mut sampling = Map::new();
        if self.tools.is_some() || self.tool_choice.is_some() {
            sampling.insert("tools".into(), json!({}));
        }
        if matches!(
            self.include_context.as_deref(),
            Some("thisServer") | Some("allServers")
        ) {
            sampling.insert("context".into(), json!({}));
        }
        json!({ "sampling": Value::Object(sampling) })
    }
}

/// `CreateMessageResult`: the client's sampling answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SamplingResponse {
    pub role: String,
    pub content: Value,
    pub model: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
}

impl SamplingResponse {
    /// An assistant text answer (handy in tests).
    pub fn text(model: impl Into<String>, text: impl Into<String>) -> SamplingResponse {
        SamplingResponse {
            role: "assistant".into(),
            content: json!({ "type": "text", "text": text.into() }),
            model: model.into(),
            stop_reason: Some("endTurn".into()),
        }
    }

    /// The text of the first text block, if any.
    pub fn first_text(&self) -> Option<&str> {
        let block = match &self.content {
            Value::Array(blocks) => blocks
                .iter()
                .find(|b| b.get("type").and_then(Value::as_str) == Some("text"))?,
            block => block,
        };
        if block.get("type").and_then(Value::as_str) == Some("text") {
            block.get("text").and_then(Value::as_str)
        } else {
            None
        }
    }
}

/// One client root (`roots/list`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Root {
    pub uri: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

pub(crate) fn invalid(key: &str, reason: impl Into<String>) -> MrtrError {
    MrtrError::InvalidAnswer {
        key: key.to_string(),
        reason: reason.into(),
    }
}

/// Reads the `action` of an ElicitResult.
pub(crate) fn elicit_action<'a>(
    key: &str,
    answer: &'a Value,
) -> Result<(&'a str, Option<&'a Value>), MrtrError> {
    let object = answer
        .as_object()
        .ok_or_else(|| invalid(key, "an elicitation answer must be an object"))?;
    let action = object
        .get("action")
        .ok_or_else(|| invalid(key, "an elicitation answer needs an `action`"))?
        .as_str()
        .ok_or_else(|| invalid(key, "`action` must be a string"))?;
    match action {
        "accept" | "decline" | "cancel" => Ok((action, object.get("content"))),
        other => Err(invalid(
            key,
            format!("unknown action `{other}` (expected accept, decline or cancel)"),
        )),
    }
}

pub(crate) fn decode_form<T: DeserializeOwned>(
    key: &str,
    answer: &Value,
) -> Result<Elicitation<T>, MrtrError> {
    match elicit_action(key, answer)? {
        ("accept", content) => {
            let content = match content {
                None | Some(Value::Null) => Value::Object(Map::new()),
                Some(Value::Object(map)) => Value::Object(map.clone()),
                Some(_) => return Err(invalid(key, "`content` must be an object")),
            };
            serde_json::from_value(content)
                .map(Elicitation::Accept)
                .map_err(|e| {
                    invalid(
                        key,
                        format!("content does not match the requested form: {e}"),
                    )
                })
        }
        ("decline", _) => Ok(Elicitation::Decline),
        _ => Ok(Elicitation::Cancel),
    }
}

pub(crate) fn decode_url(key: &str, answer: &Value) -> Result<UrlElicitation, MrtrError> {
    Ok(match elicit_action(key, answer)?.0 {
        "accept" => UrlElicitation::Accept,
        "decline" => UrlElicitation::Decline,
        _ => UrlElicitation::Cancel,
    })
}

pub(crate) fn decode_sampling(key: &str, answer: &Value) -> Result<SamplingResponse, MrtrError> {
    serde_json::from_value(answer.clone())
        .map_err(|e| invalid(key, format!("not a CreateMessageResult: {e}")))
}

pub(crate) fn decode_roots(key: &str, answer: &Value) -> Result<Vec<Root>, MrtrError> {
    let roots = answer
        .get("roots")
        .ok_or_else(|| invalid(key, "a roots answer needs `roots`"))?;
    serde_json::from_value(roots.clone())
        .map_err(|e| invalid(key, format!("not a list of roots: {e}")))
}

pub(crate) fn form_ask<T: ElicitForm>(message: String) -> Ask<Elicitation<T>> {
    let schema = T::requested_schema();
    let problem = crate::schema::flatness_problem(&schema);
    Ask::new(
        json!({
            "method": "elicitation/create",
            "params": { "mode": "form", "message": message, "requestedSchema": schema }
        }),
        json!({ "elicitation": {} }),
        decode_form::<T>,
    )
    .with_problem(problem)
}

pub(crate) fn url_ask(message: String, url: String) -> Ask<UrlElicitation> {
    Ask::new(
        json!({
            "method": "elicitation/create",
            "params": { "mode": "url", "message": message, "url": url }
        }),
        json!({ "elicitation": { "url": {} } }),
        decode_url,
    )
}

pub(crate) fn sampling_ask(request: SamplingRequest) -> Ask<SamplingResponse> {
    let capability = request.required_capability();
    let (params, problem) = match serde_json::to_value(&request) {
        Ok(params) => (params, None),
        Err(e) => (
            Value::Null,
            Some(format!("serializing the sampling request: {e}")),
        ),
    };
    Ask::new(
        json!({ "method": "sampling/createMessage", "params": params }),
        capability,
        decode_sampling,
    )
    .with_problem(problem)
}

pub(crate) fn roots_ask() -> Ask<Vec<Root>> {
    Ask::new(
        json!({ "method": "roots/list", "params": {} }),
        json!({ "roots": {} }),
        decode_roots,
    )
}
