//! `Mrtr`: the per-request handle a handler asks through, with the request's bindings and
//! declared capabilities.

use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::ask::{
    self, Ask, ElicitForm, Elicitation, Root, SamplingRequest, SamplingResponse, UrlElicitation,
};
use crate::carrier::LegacyCarrier;
use crate::config::MrtrConfig;
use crate::error::MrtrError;
use crate::seal::{self, Binding};

/// The `_meta` key that carries a request's declared client capabilities.
pub const CLIENT_CAPABILITIES_META_KEY: &str = "io.modelcontextprotocol/clientCapabilities";

/// The three methods that may answer with `input_required`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum McpMethod {
    #[default]
    CallTool,
    GetPrompt,
    ReadResource,
}

impl McpMethod {
    /// The JSON-RPC method name.
    pub fn as_str(self) -> &'static str {
        match self {
            McpMethod::CallTool => "tools/call",
            McpMethod::GetPrompt => "prompts/get",
            McpMethod::ReadResource => "resources/read",
        }
    }
}

impl std::fmt::Display for McpMethod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What the runtime needs from one incoming request, independent of any SDK.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct IncomingRequest {
    pub method: McpMethod,
    /// Tool name, prompt name or resource URI.
    pub target: String,
    /// The arguments; `Null` when absent. Digested canonically.
    pub arguments: Value,
    /// This request's declared capabilities (`_meta` `io.modelcontextprotocol/clientCapabilities`).
    pub client_capabilities: Option<Value>,
    /// The authenticated principal, when the transport knows one.
    pub principal: Option<String>,
    /// Raw `requestState`: anything but a string fails verification.
    pub request_state: Option<Value>,
    /// Raw `inputResponses`, keyed by inputRequests key.
    pub input_responses: Option<Value>,
}

impl IncomingRequest {
    /// Reads a raw JSON-RPC request's `method` and `params`, for servers without an SDK adapter.
    /// None for methods that cannot answer `input_required`. Fields are taken as sent: a
    /// `requestState` that is not a string is kept and later fails verification.
    pub fn from_json_rpc(method: &str, params: &Value) -> Option<IncomingRequest> {
        let method = match method {
            "tools/call" => McpMethod::CallTool,
            "prompts/get" => McpMethod::GetPrompt,
            "resources/read" => McpMethod::ReadResource,
            _ => return None,
        };
        let target_field = if method == McpMethod::ReadResource {
            "uri"
        } else {
            "name"
        };
        Some(IncomingRequest {
            method,
            target: params
                .get(target_field)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            arguments: match method {
                McpMethod::ReadResource => Value::Null,
                _ => params.get("arguments").cloned().unwrap_or(Value::Null),
            },
            client_capabilities: params
                .get("_meta")
                .and_then(|meta| meta.get(CLIENT_CAPABILITIES_META_KEY))
                .cloned(),
            principal: None,
            request_state: params.get("requestState").cloned(),
            input_responses: params.get("inputResponses").cloned(),
        })
    }

    /// A `tools/call` request with these arguments.
    pub fn call_tool(name: impl Into<String>, arguments: Value) -> IncomingRequest {
        IncomingRequest {
            method: McpMethod::CallTool,
            target: name.into(),
            arguments,
            ..IncomingRequest::default()
        }
    }

    /// A `prompts/get` request with these arguments.
    pub fn get_prompt(name: impl Into<String>, arguments: Value) -> IncomingRequest {
        IncomingRequest {
            method: McpMethod::GetPrompt,
            target: name.into(),
            arguments,
            ..IncomingRequest::default()
        }
    }

    /// A `resources/read` request.
    pub fn read_resource(uri: impl Into<String>) -> IncomingRequest {
        IncomingRequest {
            method: McpMethod::ReadResource,
            target: uri.into(),
            arguments: Value::Null,
            ..IncomingRequest::default()
        }
    }

    pub fn with_capabilities(mut self, capabilities: Value) -> Self {
        self.client_capabilities = Some(capabilities);
        self
    }

    pub fn with_principal(mut self, principal: impl Into<String>) -> Self {
        self.principal = Some(principal.into());
        self
    }

    pub fn with_request_state(mut self, state: impl Into<Value>) -> Self {
        self.request_state = Some(state.into());
        self
    }

    pub fn with_input_responses(mut self, responses: Value) -> Self {
        self.input_responses = Some(responses);
        self
    }
}

/// What the flow keeps in requestState between rounds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StateBody {
    /// Random 128-bit hex, minted by Flow on the first suspension, kept after.
    pub flow_id: String,
    /// The ask site the flow is suspended at.
    pub step: u32,
    /// Handler shape fingerprint, computed by the macro.
    pub fingerprint: String,
    /// Saved bindings etc.: Flow's business.
    pub data: Map<String, Value>,
}

struct Inner {
    request: IncomingRequest,
    config: MrtrConfig,
    binding: Binding,
    /// The verdict on this request's state (every check but single use), computed once.
    verified: OnceLock<Result<Option<seal::Verified>, MrtrError>>,
    /// The replay guard's verdict, asked once: a second look must not count as a second use.
    consumed: OnceLock<Result<(), MrtrError>>,
    /// Set on a pre-2026 session: rounds go out as real requests through it, in process.
    carrier: Option<Arc<dyn LegacyCarrier>>,
    /// Which client connection the request came on, when the SDK can tell (see
    /// [`Mrtr::bind_session`]).
    session: OnceLock<usize>,
}

/// One request's MRTR handle. Cheap to clone; `Send + Sync`.
#[derive(Clone)]
pub struct Mrtr {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Mrtr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mrtr")
            .field("method", &self.inner.request.method)
            .field("target", &self.inner.request.target)
            .field("has_state", &self.inner.request.request_state.is_some())
            .field("in_process", &self.inner.carrier.is_some())
            .finish()
    }
}

impl Mrtr {
    /// A handle for a 2026-07-28 request: each round ends the request with an
    /// `InputRequiredResult` and a sealed state.
    pub fn new(request: IncomingRequest, config: &MrtrConfig) -> Mrtr {
        Mrtr::build(request, config, None)
    }

    /// A handle for a request on a pre-2026 session: the handler runs to completion inside the
    /// request, each round's asks sent to the client through `carrier` (see [`crate::carrier`]).
    /// `request.client_capabilities` must be what the client declared at `initialize`.
    pub fn in_process(
        request: IncomingRequest,
        config: &MrtrConfig,
        carrier: Arc<dyn LegacyCarrier>,
    ) -> Mrtr {
        Mrtr::build(request, config, Some(carrier))
    }

    fn build(
        request: IncomingRequest,
        config: &MrtrConfig,
        carrier: Option<Arc<dyn LegacyCarrier>>,
    ) -> Mrtr {
        let binding = Binding {
            method: request.method,
            target: request.target.clone(),
            args_digest: seal::args_digest(&request.arguments),
            principal: request.principal.clone(),
        };
        Mrtr {
            inner: Arc::new(Inner {
                request,
                config: config.clone(),
                binding,
                verified: OnceLock::new(),
                consumed: OnceLock::new(),
                carrier,
                session: OnceLock::new(),
            }),
        }
    }

    /// The carrier of a pre-2026 session; None on a 2026-07-28 request.
    pub fn carrier(&self) -> Option<&Arc<dyn LegacyCarrier>> {
        self.inner.carrier.as_ref()
    }

    /// Names the client connection this request came on: an opaque key, the same for every
    /// request of that connection, which an SDK adapter derives from its session object. A
    /// deferred ask made on another task (a gateway's relay, answering an upstream server on the
    /// upstream connection's task) finds this request's round through it; see
    /// [`crate::deferred`]. The first key holds.
    pub fn bind_session(&self, key: usize) {
        let _ = self.inner.session.set(key);
    }

    /// The key [`Mrtr::bind_session`] set.
    pub fn session(&self) -> Option<usize> {
        self.inner.session.get().copied()
    }

    /// True on a pre-2026 session, where rounds are carried in process and nothing is sealed.
    pub fn carries_in_process(&self) -> bool {
        self.inner.carrier.is_some()
    }

    /// Asks the user to fill a form of type `T` (a flat struct deriving `JsonSchema`).
    pub fn elicit<T: ElicitForm>(&self, message: impl Into<String>) -> Ask<Elicitation<T>> {
        ask::form_ask::<T>(message.into())
    }

    /// Asks the user to open `url` (URL-mode elicitation, for anything sensitive).
    pub fn elicit_url(
        &self,
        message: impl Into<String>,
        url: impl Into<String>,
    ) -> Ask<UrlElicitation> {
        ask::url_ask(message.into(), url.into())
    }

    /// Asks the client's model for a completion.
    pub fn sample(&self, request: SamplingRequest) -> Ask<SamplingResponse> {
        ask::sampling_ask(request)
    }

    /// Asks the client for its roots.
    pub fn list_roots(&self) -> Ask<Vec<Root>> {
        ask::roots_ask()
    }

    /// True when this request declared form elicitation.
    pub fn supports_form_elicitation(&self) -> bool {
        self.check_capability(&serde_json::json!({ "elicitation": {} }))
            .is_ok()
    }

    /// True when this request declared URL-mode elicitation.
    pub fn supports_url_elicitation(&self) -> bool {
        self.check_capability(&serde_json::json!({ "elicitation": { "url": {} } }))
            .is_ok()
    }

    /// True when this request declared sampling.
    pub fn supports_sampling(&self) -> bool {
        self.check_capability(&serde_json::json!({ "sampling": {} }))
            .is_ok()
    }

    /// True when this request declared sampling with tools (`sampling.tools`, 2025-11-25): the
    /// counterpart of rmcp's `Peer::supports_sampling_tools()`.
    pub fn supports_sampling_tools(&self) -> bool {
        self.check_capability(&serde_json::json!({ "sampling": { "tools": {} } }))
            .is_ok()
    }

    /// True when this request declared roots.
    pub fn supports_roots(&self) -> bool {
        self.check_capability(&serde_json::json!({ "roots": {} }))
            .is_ok()
    }

    pub fn method(&self) -> McpMethod {
        self.inner.request.method
    }

    pub fn target(&self) -> &str {
        &self.inner.request.target
    }

    /// The request's arguments (`Null` when absent).
    pub fn arguments(&self) -> &Value {
        &self.inner.request.arguments
    }

    /// The principal the state is bound to, if the transport knew one.
    pub fn principal(&self) -> Option<&str> {
        self.inner.request.principal.as_deref()
    }

    /// The request this handle was built from.
    pub fn request(&self) -> &IncomingRequest {
        &self.inner.request
    }

    pub fn config(&self) -> &MrtrConfig {
        &self.inner.config
    }

    /// True when the request carries a requestState (verified or not).
    pub fn has_state(&self) -> bool {
        self.inner.request.request_state.is_some()
    }

    /// None when the request carries no requestState; Err(InvalidState) when it fails any check.
    /// Verifies and uses up the state ([`Mrtr::verify_state`] then [`Mrtr::consume_state`]), once
    /// per request; later calls (on this handle or its clones) repeat the verdict.
    pub fn open_state(&self) -> Result<Option<StateBody>, MrtrError> {
        let body = self.verify_state()?;
        self.consume_state()?;
        Ok(body)
    }

    /// Every check of [`Mrtr::open_state`] but single use: the state stays usable until the
    /// handler calls [`Mrtr::consume_state`], which a flow does when its round advances (its
    /// answers decoded, or a successor state about to be sealed), so a rejected answer does not
    /// use up the state. Verified once per request.
    pub fn verify_state(&self) -> Result<Option<StateBody>, MrtrError> {
        self.verified()
            .map(|verified| verified.map(|verified| verified.body.clone()))
    }

    /// [`Mrtr::verify_state`] plus the handler fingerprint check (a mismatch is `InvalidState`).
    pub fn verify_state_for(&self, fingerprint: &str) -> Result<Option<StateBody>, MrtrError> {
        match self.verify_state()? {
            Some(body) if body.fingerprint != fingerprint => Err(MrtrError::InvalidState),
            other => Ok(other),
        }
    }

    /// Uses up this request's state with the configured replay guard: `InvalidState` when the
    /// state was used before (or fails verification). Ok without a state or without a guard.
    /// Asked once per request; later calls repeat the verdict.
    pub fn consume_state(&self) -> Result<(), MrtrError> {
        self.inner
            .consumed
            .get_or_init(|| match self.verified()? {
                None => Ok(()),
                Some(verified) => seal::consume(&self.inner.config, verified),
            })
            .clone()
    }

    fn verified(&self) -> Result<Option<&seal::Verified>, MrtrError> {
        self.inner
            .verified
            .get_or_init(|| match &self.inner.request.request_state {
                None => Ok(None),
                Some(raw) => seal::verify(&self.inner.config, &self.inner.binding, raw).map(Some),
            })
            .as_ref()
            .map(Option::as_ref)
            .map_err(Clone::clone)
    }

    /// Like [`Mrtr::open_state`], and also rejects a state minted by a handler of another shape.
    pub fn open_state_for(&self, fingerprint: &str) -> Result<Option<StateBody>, MrtrError> {
        match self.open_state()? {
            Some(body) if body.fingerprint != fingerprint => Err(MrtrError::InvalidState),
            other => Ok(other),
        }
    }

    /// Seals `body`, binding it to this request (method, target, args digest, audience,
    /// principal, issue time, expiry, key id). Err(StateTooLarge) over the budget.
    pub fn seal_state(&self, body: &StateBody) -> Result<String, MrtrError> {
        seal::seal(&self.inner.config, &self.inner.binding, body)
    }

    /// The raw answer under `key` in this request's inputResponses (None when absent or when
    /// inputResponses is not an object).
    pub fn answer(&self, key: &str) -> Option<&Value> {
        self.inner
            .request
            .input_responses
            .as_ref()
            .and_then(Value::as_object)
            .and_then(|answers| answers.get(key))
    }

    /// Ok when this request's declared capabilities cover `required`
    /// (e.g. `{"elicitation":{"url":{}}}`); else `MissingCapability` carrying `required`.
    pub fn check_capability(&self, required: &Value) -> Result<(), MrtrError> {
        let declared = self.inner.request.client_capabilities.as_ref();
        if declared.is_some_and(|declared| covers(declared, required)) {
            Ok(())
        } else {
            Err(MrtrError::MissingCapability {
                required: required.clone(),
            })
        }
    }
}

/// Whether `declared` (a ClientCapabilities object) covers `required`.
pub fn covers(declared: &Value, required: &Value) -> bool {
    let (Some(declared), Some(required)) = (declared.as_object(), required.as_object()) else {
        return false;
    };
    required.iter().all(|(name, needed)| {
        let Some(offered) = declared.get(name) else {
            return false;
        };
        if offered.is_null() || offered == &Value::Bool(false) {
            return false;
        }
        if name == "elicitation" && is_empty_object(needed) {
            // Form mode: `{}` means form only; a client listing modes must list `form`.
            return match offered.as_object() {
                Some(modes) => modes.is_empty() || modes.contains_key("form"),
                None => false,
            };
        }
        match needed.as_object() {
            Some(sub) if !sub.is_empty() => covers(offered, needed),
            _ => offered.is_object(),
        }
    })
}

fn is_empty_object(value: &Value) -> bool {
    value.as_object().is_some_and(Map::is_empty)
}
