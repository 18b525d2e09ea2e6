//! The rmcp 3.x adapter: building `Mrtr` from rmcp requests, the `#[tool]` extractor, error and
//! result conversions.

use rmcp::handler::server::common::FromContextPart;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ErrorCode, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, InputRequest, InputRequests, InputRequiredResult,
    JsonObject, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    RequestMetaObject,
};
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{InitializeRequestParams, ProtocolVersion, ServerRequest};
use rmcp::service::{Peer, PeerRequestOptions, RequestContext, ServiceError};
use rmcp::RoleServer;
use serde_json::Value;

use crate::carrier::{CarriedAnswer, CarriedRound, CarryError, LegacyCarrier};
use crate::config::MrtrConfig;
use crate::context::{IncomingRequest, McpMethod, Mrtr};
use crate::error::MrtrError;
use crate::wire::{Completes, InputRequired};

pub use crate::context::CLIENT_CAPABILITIES_META_KEY;

pub mod deferred;
pub mod scope;

/// A server whose handlers use MRTR: it owns the configuration (keys, audience, budget).
/// `impl MrtrServer for MyServer {}` is enough: the default configuration reads `MRTR_KEYS`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has `#[mrtr_handler]` handlers but does not implement `mrtr::MrtrServer`",
    label = "the server type of a handler that asks",
    note = "add `impl mrtr::MrtrServer for {Self} {{}}` (its keys then come from the `MRTR_KEYS` environment variable), or implement `mrtr_config` to return your own `MrtrConfig`"
)]
pub trait MrtrServer {
    /// The MRTR configuration. The default is one configuration per server type for the whole
    /// process, from the environment (`MRTR_KEYS`, see [`MrtrConfig::from_env`]), with the
    /// type's name as the audience states are bound to.
    fn mrtr_config(&self) -> &MrtrConfig {
        crate::env_config::for_server(std::any::type_name::<Self>())
    }

    /// The authenticated principal of a request, which states are bound to. The default reads
    /// a [`Principal`] from the request's extensions, or (feature `http`) from the extensions
    /// of the HTTP request rmcp's streamable HTTP server attaches. Override it to map your own
    /// auth type. Never derive it from anything the client merely claims.
    fn mrtr_principal(&self, context: &RequestContext<RoleServer>) -> Option<String> {
        principal(context)
    }
}

/// Compiles only when `S` implements [`MrtrServer`]; the `#[mrtr_handler]` expansion of an rmcp
/// tool calls it so that a missing impl is reported at the handler, naming the impl to write.
#[doc(hidden)]
#[inline]
pub fn assert_mrtr_server<S: MrtrServer + ?Sized>() {}

/// The authenticated principal of a request. An auth layer inserts it into the request's
/// extensions (`RequestContext::extensions`); states are then bound to it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Principal(pub String);

fn capabilities(
    context_meta: &RequestMetaObject,
    params_meta: Option<&RequestMetaObject>,
) -> Option<Value> {
    let from = |meta: &RequestMetaObject| meta.0 .0.get(CLIENT_CAPABILITIES_META_KEY).cloned();
    from(context_meta).or_else(|| params_meta.and_then(from))
}

/// The [`Principal`] in the request's extensions, or in those of its HTTP request.
pub fn principal(context: &RequestContext<RoleServer>) -> Option<String> {
    if let Some(principal) = context.extensions.get::<Principal>() {
        return Some(principal.0.clone());
    }
    #[cfg(feature = "http")]
    if let Some(parts) = context.extensions.get::<http::request::Parts>() {
        return parts.extensions.get::<Principal>().map(|p| p.0.clone());
    }
    None
}

fn arguments(arguments: Option<&JsonObject>) -> Value {
    arguments.map_or(Value::Null, |args| Value::Object(args.clone()))
}

fn input_responses(responses: Option<&rmcp::model::InputResponses>) -> Option<Value> {
    responses.map(|responses| {
        Value::Object(
            responses
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        )
    })
}

/// What varies between the rmcp requests an `Mrtr` is built from; the rest comes from the
/// request context and the server.
struct Params<'a> {
    method: McpMethod,
    target: String,
    arguments: Value,
    meta: Option<&'a RequestMetaObject>,
    request_state: Option<&'a String>,
    input_responses: Option<&'a rmcp::model::InputResponses>,
}

fn mrtr_from(
    server: &impl MrtrServer,
    params: Params<'_>,
    context: &RequestContext<RoleServer>,
) -> Mrtr {
    let pre_2026 = is_pre_2026(context);
    let client_capabilities = if pre_2026 {
        // What the client declared at `initialize`: requests of that era carry none.
        context
            .client_capabilities()
            .and_then(|declared| serde_json::to_value(declared).ok())
    } else {
        capabilities(&context.meta, params.meta)
    };
    let incoming = IncomingRequest {
        method: params.method,
        target: params.target,
        arguments: params.arguments,
        client_capabilities,
        principal: server.mrtr_principal(context),
        request_state: params.request_state.cloned().map(Value::String),
        input_responses: input_responses(params.input_responses),
    };
    if pre_2026 {
        let carrier = Arc::new(PeerCarrier(context.peer.clone()));
        Mrtr::in_process(incoming, server.mrtr_config(), carrier)
    } else {
        let mrtr = Mrtr::new(incoming, server.mrtr_config());
        if let Some(session) = session_of(context) {
            mrtr.bind_session(session);
        }
        mrtr
    }
}

/// The key of the client connection a 2026-07-28 request came on: the address of its peer's
/// `peer_info`, which every clone of the `Peer` shares (rmcp gives a peer no other identity).
/// A connection of that era never sends `initialize`, so its peer has no info; it gets one here,
/// built from this request's declared capabilities and client, once per connection. Legacy
/// code that reads what the client can do from `peer_info()` (a gateway mirroring the agent's
/// capabilities to an upstream, `supported_elicitation_modes()`) then sees it too.
fn session_of(context: &RequestContext<RoleServer>) -> Option<usize> {
    if let Some(known) = session_key(&context.peer) {
        return Some(known);
    }
    // Two requests of one new connection must not both set the info: the second would replace
    // the Arc the first request's key points at. Only a connection's first requests get here.
    static SETTING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _setting = SETTING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if context.peer.peer_info().is_none() {
        let client = context.client_info().unwrap_or_default();
        let capabilities = context.client_capabilities().unwrap_or_default();
        let version = context
            .protocol_version()
            .unwrap_or(ProtocolVersion::V_2026_07_28);
        context.peer.set_peer_info(
            InitializeRequestParams::new(capabilities, client).with_protocol_version(version),
        );
    }
    session_key(&context.peer)
}

/// See [`session_of`]; `None` only for a peer that has no info (never one a 2026-07-28 handler
/// has served).
pub(crate) fn session_key(peer: &Peer<RoleServer>) -> Option<usize> {
    peer.peer_info()
        .map(|info| Arc::as_ptr(&info) as *const () as usize)
}

/// True when the request belongs to a session negotiated below 2026-07-28, whose client
/// answers server-to-client requests and knows nothing of `InputRequiredResult`. A request
/// that names no version at all is served as 2026-07-28 (the era without a handshake).
fn is_pre_2026(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|version| version < ProtocolVersion::V_2026_07_28)
}

/// Carries a round to a pre-2026 client over its rmcp session: each ask becomes the matching
/// `ServerRequest`, sent from inside the request's task so that rmcp's streamable HTTP server
/// delivers it on that request's stream.
struct PeerCarrier(Peer<RoleServer>);

impl PeerCarrier {
    async fn send(&self, request: Value, timeout: Option<Duration>) -> CarriedAnswer {
        let request = match serde_json::from_value::<InputRequest>(request) {
            Ok(InputRequest::Elicitation(r)) => ServerRequest::ElicitRequest(r),
            Ok(InputRequest::CreateMessage(r)) => ServerRequest::CreateMessageRequest(r),
            Ok(InputRequest::ListRoots(r)) => ServerRequest::ListRootsRequest(r),
            Ok(other) => {
                return Err(CarryError::Failed(format!(
                    "rmcp has no server request for {other:?}"
                )))
            }
            Err(e) => {
                return Err(CarryError::Failed(format!(
                    "not a request rmcp can send: {e}"
                )))
            }
        };
        let options = match timeout {
            Some(timeout) => PeerRequestOptions::with_timeout(timeout),
            None => PeerRequestOptions::no_options(),
        };
        let sent = match self.0.send_request_with_option(request, options).await {
            Ok(handle) => handle.await_response().await,
            Err(error) => Err(error),
        };
        match sent {
            Ok(answer) => serde_json::to_value(answer)
                .map_err(|e| CarryError::Failed(format!("the answer does not serialize: {e}"))),
            Err(ServiceError::Timeout { .. }) => Err(CarryError::TimedOut),
            Err(ServiceError::McpError(error)) => Err(CarryError::Failed(format!(
                "the client answered with error {}: {}",
                error.code.0, error.message
            ))),
            Err(other) => Err(CarryError::Failed(other.to_string())),
        }
    }
}

impl LegacyCarrier for PeerCarrier {
    fn send_round(&self, requests: Vec<Value>, timeout: Option<Duration>) -> CarriedRound<'_> {
        Box::pin(futures::future::join_all(
            requests
                .into_iter()
                .map(move |request| self.send(request, timeout)),
        ))
    }
}

impl Mrtr {
    /// For a hand-written `ServerHandler::call_tool`.
    pub fn from_call_tool(
        server: &impl MrtrServer,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Mrtr {
        let params = Params {
            method: McpMethod::CallTool,
            target: request.name.to_string(),
            arguments: arguments(request.arguments.as_ref()),
            meta: request.meta.as_ref(),
            request_state: request.request_state.as_ref(),
            input_responses: request.input_responses.as_ref(),
        };
        mrtr_from(server, params, context)
    }

    /// For a hand-written `ServerHandler::get_prompt`.
    pub fn from_get_prompt(
        server: &impl MrtrServer,
        request: &GetPromptRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Mrtr {
        let params = Params {
            method: McpMethod::GetPrompt,
            target: request.name.clone(),
            arguments: arguments(request.arguments.as_ref()),
            meta: request.meta.as_ref(),
            request_state: request.request_state.as_ref(),
            input_responses: request.input_responses.as_ref(),
        };
        mrtr_from(server, params, context)
    }

    /// For a hand-written `ServerHandler::read_resource`.
    pub fn from_read_resource(
        server: &impl MrtrServer,
        request: &ReadResourceRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Mrtr {
        let params = Params {
            method: McpMethod::ReadResource,
            target: request.uri.clone(),
            arguments: Value::Null,
            meta: request.meta.as_ref(),
            request_state: request.request_state.as_ref(),
            input_responses: request.input_responses.as_ref(),
        };
        mrtr_from(server, params, context)
    }
}

/// `mrtr: Mrtr` as a parameter of a `#[tool]` function.
///
/// rmcp's `Parameters<P>` extractor *takes* the arguments out of the context, so an `Mrtr`
/// parameter placed after it would see no arguments and could not bind the state to them.
/// Declare `mrtr: Mrtr` before `Parameters(..)`; this extractor copies the arguments and leaves
/// them for `Parameters`.
impl<S: MrtrServer> FromContextPart<ToolCallContext<'_, S>> for Mrtr {
    fn from_context_part(context: &mut ToolCallContext<'_, S>) -> Result<Self, rmcp::ErrorData> {
        let request_context = &context.request_context;
        let params = Params {
            method: McpMethod::CallTool,
            target: context.name.to_string(),
            arguments: arguments(context.arguments.as_ref()),
            meta: None,
            request_state: context.request_state.as_ref(),
            input_responses: context.input_responses.as_ref(),
        };
        Ok(mrtr_from(context.service, params, request_context))
    }
}

impl From<MrtrError> for rmcp::ErrorData {
    fn from(error: MrtrError) -> Self {
        let code = i32::try_from(error.code()).unwrap_or(ErrorCode::INTERNAL_ERROR.0);
        rmcp::ErrorData::new(ErrorCode(code), error.message(), error.data())
    }
}

/// rmcp's `InputRequiredResult` for an [`InputRequired`].
///
/// Entries rmcp cannot represent are left out rather than sent malformed; the runtime only
/// produces entries of the three allowed methods, so this does not happen for its own asks.
pub fn to_rmcp_input_required(result: InputRequired) -> InputRequiredResult {
    let requests: InputRequests = result
        .input_requests
        .into_iter()
        .filter_map(|(key, request)| {
            serde_json::from_value::<InputRequest>(request)
                .ok()
                .map(|request| (key, request))
        })
        .collect();
    let requests = if requests.is_empty() {
        None
    } else {
        Some(requests)
    };
    InputRequiredResult::new(requests, result.request_state)
}

/// An rmcp `InputRequiredResult` back in SDK-neutral form.
pub fn from_rmcp_input_required(result: &InputRequiredResult) -> InputRequired {
    InputRequired {
        input_requests: result
            .input_requests
            .iter()
            .flatten()
            .map(|(key, request)| {
                (
                    key.clone(),
                    serde_json::to_value(request).unwrap_or(Value::Null),
                )
            })
            .collect(),
        request_state: result.request_state.clone(),
    }
}

impl Completes for CallToolResult {
    type Response = CallToolResponse;

    fn complete(self) -> CallToolResponse {
        CallToolResponse::Complete(self)
    }

    fn input_required(result: InputRequired) -> CallToolResponse {
        CallToolResponse::InputRequired(to_rmcp_input_required(result))
    }
}

/// A tool's plain text (`-> Result<String, E>`): what rmcp answers for it, one text block, so
/// such a tool becomes a handler without changing its return type.
impl Completes for String {
    type Response = CallToolResponse;

    fn complete(self) -> CallToolResponse {
        CallToolResponse::Complete(CallToolResult::success(vec![
            rmcp::model::ContentBlock::text(self),
        ]))
    }

    fn input_required(result: InputRequired) -> CallToolResponse {
        CallToolResponse::InputRequired(to_rmcp_input_required(result))
    }
}

impl Completes for GetPromptResult {
    type Response = GetPromptResponse;

    fn complete(self) -> GetPromptResponse {
        GetPromptResponse::Complete(self)
    }

    fn input_required(result: InputRequired) -> GetPromptResponse {
        GetPromptResponse::InputRequired(to_rmcp_input_required(result))
    }
}

impl Completes for ReadResourceResult {
    type Response = ReadResourceResponse;

    fn complete(self) -> ReadResourceResponse {
        ReadResourceResponse::Complete(self)
    }

    fn input_required(result: InputRequired) -> ReadResourceResponse {
        ReadResourceResponse::InputRequired(to_rmcp_input_required(result))
    }
}

/// The methods whose params carry `requestState` / `inputResponses`.
const MRTR_METHODS: [&str; 3] = ["tools/call", "prompts/get", "resources/read"];

/// Wraps a server so that `tools/call`, `prompts/get` and `resources/read` requests whose
/// params rmcp cannot parse get JSON-RPC -32602 instead of rmcp's -32601 "method not found".
///
/// rmcp types `requestState` as a string: a request carrying a number or an object there fails
/// to parse as its method, falls through to a custom request, and is answered -32601. With this
/// wrapper a non-string `requestState` gets the same error as every other state that fails
/// verification (-32602, "Invalid or expired requestState"), and other unparsable params get
/// -32602 "Invalid params". Everything else goes to the inner server untouched.
///
/// ```ignore
/// let running = mrtr::rmcp::StrictParams(MyServer::new()).serve(transport).await?;
/// ```
#[derive(Debug, Clone)]
pub struct StrictParams<S>(pub S);

impl<S: rmcp::Service<RoleServer>> rmcp::Service<RoleServer> for StrictParams<S> {
    async fn handle_request(
        &self,
        request: rmcp::model::ClientRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ServerResult, rmcp::ErrorData> {
        if let rmcp::model::ClientRequest::CustomRequest(custom) = &request {
            if MRTR_METHODS.contains(&custom.method.as_str()) {
                let state = custom.params.as_ref().and_then(|p| p.get("requestState"));
                if state.is_some_and(|s| !s.is_string()) {
                    return Err(MrtrError::InvalidState.into());
                }
                return Err(rmcp::ErrorData::invalid_params(
                    format!("Invalid params for {}", custom.method),
                    None,
                ));
            }
        }
        self.0.handle_request(request, context).await
    }

    async fn handle_notification(
        &self,
        notification: rmcp::model::ClientNotification,
        context: rmcp::service::NotificationContext<RoleServer>,
    ) -> Result<(), rmcp::ErrorData> {
        self.0.handle_notification(notification, context).await
    }

    fn get_info(&self) -> rmcp::model::ServerConfig {
        self.0.get_info()
    }

    fn supported_protocol_versions(
        &self,
    ) -> std::borrow::Cow<'static, [rmcp::model::ProtocolVersion]> {
        self.0.supported_protocol_versions()
    }
}

// Sampling: rmcp's `sampling/createMessage` types and the runtime's describe the same wire
// objects, so code rewritten from `peer.create_message(params)` to `mrtr.sample(..)` keeps
// building rmcp's params and reading rmcp's result. (rmcp marks sampling deprecated, SEP-2577.)

/// A typed rmcp value as the JSON it is on the wire. rmcp's sampling types are plain derived
/// structs and enums with string keys, which always serialize.
fn wire<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// A role or another string enum of rmcp as its wire string (`"user"`, `"thisServer"`).
fn wire_string<T: serde::Serialize>(value: &T) -> String {
    match wire(value) {
        Value::String(s) => s,
        other => other.to_string(),
    }
}

#[allow(deprecated)]
impl From<rmcp::model::SamplingMessage> for crate::ask::SamplingMessage {
    fn from(message: rmcp::model::SamplingMessage) -> Self {
        crate::ask::SamplingMessage {
            role: wire_string(&message.role),
            content: wire(&message.content),
        }
    }
}

/// rmcp's `CreateMessageRequestParams` as the runtime's ask. The request's own `_meta` (and a
/// message's) is not carried: the runtime writes the input request's envelope itself.
#[allow(deprecated)]
impl From<rmcp::model::CreateMessageRequestParams> for crate::ask::SamplingRequest {
    fn from(params: rmcp::model::CreateMessageRequestParams) -> Self {
        crate::ask::SamplingRequest {
            messages: params.messages.into_iter().map(Into::into).collect(),
            max_tokens: params.max_tokens,
            system_prompt: params.system_prompt,
            temperature: params.temperature.map(f64::from),
            stop_sequences: params.stop_sequences,
            model_preferences: params.model_preferences.as_ref().map(wire),
            include_context: params.include_context.as_ref().map(wire_string),
            metadata: params.metadata,
            tools: params.tools.map(|tools| tools.iter().map(wire).collect()),
            tool_choice: params.tool_choice.as_ref().map(wire),
        }
    }
}

/// The client's sampling answer as rmcp's `CreateMessageResult`, the type `create_message`
/// returned, with its error type (`ServiceError`), so code written for the legacy call keeps
/// working. Fallible: the answer is client input, and its `content` may be a block rmcp does not
/// know or not a block at all; that is an invalid-params error naming what did not fit.
#[allow(deprecated)]
impl TryFrom<crate::ask::SamplingResponse> for rmcp::model::CreateMessageResult {
    type Error = rmcp::ServiceError;

    fn try_from(answer: crate::ask::SamplingResponse) -> Result<Self, Self::Error> {
        serde_json::from_value(wire(&answer)).map_err(|e| {
            rmcp::ServiceError::McpError(rmcp::ErrorData::invalid_params(
                format!("the client's sampling answer is not an rmcp CreateMessageResult: {e}"),
                None,
            ))
        })
    }
}

#[cfg(test)]
#[allow(deprecated)]
mod sampling_tests {
    use rmcp::model::{
        ContextInclusion, CreateMessageRequestParams, CreateMessageResult, ModelPreferences,
        SamplingMessage,
    };
    use serde_json::json;

    use crate::ask::{SamplingRequest, SamplingResponse};

    #[test]
    fn rmcp_params_become_the_same_wire_request() {
        let params = CreateMessageRequestParams::new(
            vec![
                SamplingMessage::user_text("What is 6 x 7?"),
                SamplingMessage::assistant_text("Let me think."),
            ],
            150,
        )
        .with_system_prompt("Be brief.")
        .with_include_context(ContextInclusion::ThisServer)
        .with_temperature(0.5)
        .with_stop_sequences(vec!["END".into()])
        .with_model_preferences(ModelPreferences::new().with_speed_priority(1.0));
        let wire = serde_json::to_value(&params).unwrap();
        let request = SamplingRequest::from(params);
        assert_eq!(request.messages[0].role, "user");
        assert_eq!(request.messages[1].role, "assistant");
        assert_eq!(
            request.messages[0].content,
            json!({ "type": "text", "text": "What is 6 x 7?" })
        );
        assert_eq!(request.include_context.as_deref(), Some("thisServer"));
        assert_eq!(request.temperature, Some(0.5));
        // Every field rmcp sends is in the runtime's request, with the same JSON.
        assert_eq!(serde_json::to_value(&request).unwrap(), wire);
    }

    #[test]
    fn an_answer_becomes_rmcp_s_result() {
        let answer = SamplingResponse::text("test-model", "42");
        let result = CreateMessageResult::try_from(answer.clone()).unwrap();
        assert_eq!(result.model, "test-model");
        assert_eq!(result.stop_reason.as_deref(), Some("endTurn"));
        assert_eq!(
            result
                .message
                .content
                .first()
                .and_then(|b| b.as_text())
                .map(|t| t.text.as_str()),
            Some("42")
        );
        assert_eq!(
            serde_json::to_value(&result).unwrap(),
            serde_json::to_value(&answer).unwrap()
        );
    }

    #[test]
    fn an_answer_rmcp_cannot_hold_is_an_error_not_a_panic() {
        let mut answer = SamplingResponse::text("m", "x");
        answer.content = json!(5);
        let err = CreateMessageResult::try_from(answer).unwrap_err();
        assert!(
            err.to_string().contains("not an rmcp CreateMessageResult"),
            "{err}"
        );
        let mut answer = SamplingResponse::text("m", "x");
        answer.role = "moderator".into();
        assert!(CreateMessageResult::try_from(answer).is_err());
    }
}
