//! The peer's asks as deferred asks (see [`crate::deferred`]), with the peer's own signatures.
//!
//! `mrtr::rmcp::deferred::elicit::<T>(&peer, message)` stands where `peer.elicit::<T>(message)`
//! stood, and returns what it returned, so a gate behind a trait object or a helper holding a
//! stored peer keeps its code:
//! - below a `#[mrtr_handler]` serving a 2026-07-28 request: the answer of this request (or of
//!   an earlier round of it); without one, the ask is queued, this call fails, and the round
//!   ends with an `InputRequiredResult` whatever the handler returns;
//! - on another task, such as a gateway's relay answering an upstream server: the same, in the
//!   2026-07-28 request in flight on the peer's connection (see [`crate::deferred`]);
//! - on a pre-2026 session, or where no `#[mrtr_handler]` runs the code: the peer's own request,
//!   sent mid-request as before.

// Sampling and roots are deprecated in rmcp 3.x (SEP-2577), and still what servers call.
#![allow(deprecated)]

use rmcp::model::{
    ClientResult, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams,
    ElicitResult, ElicitationAction, ListRootsResult, ServerRequest,
};
use rmcp::service::{ElicitationError, ElicitationSafe, Peer, ServiceError};
use rmcp::{ErrorData, RoleServer};
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

use crate::ask::{self, Ask, Elicitation};
use crate::deferred::{self as scope, Deferred};
use crate::error::MrtrError;

/// What the peer's call returns while the answer is on its way: the handler unwinds with it, and
/// the round's `InputRequiredResult` replaces whatever it returns.
fn awaiting_answer() -> ServiceError {
    ServiceError::McpError(ErrorData::internal_error(
        "input required: the client answers in its retry of this request (mrtr deferred ask)",
        None,
    ))
}

fn service_error(error: MrtrError) -> ServiceError {
    ServiceError::McpError(error.into())
}

/// [`Peer::elicit`], deferred.
pub async fn elicit<T>(
    peer: &Peer<RoleServer>,
    message: impl Into<String>,
) -> Result<Option<T>, ElicitationError>
where
    T: ElicitationSafe + DeserializeOwned,
{
    let message = message.into();
    match poll(peer, || ask::form_ask::<T>(message.clone())) {
        Deferred::Unscoped | Deferred::InProcess => peer.elicit::<T>(message).await,
        other => elicitation_answer(other),
    }
}

/// [`Peer::elicit_with_timeout`], deferred. On a 2026-07-28 request the client answers in its
/// retry, so the timeout applies only where the peer's own request is sent.
pub async fn elicit_with_timeout<T>(
    peer: &Peer<RoleServer>,
    message: impl Into<String>,
    timeout: Option<std::time::Duration>,
) -> Result<Option<T>, ElicitationError>
where
    T: ElicitationSafe + DeserializeOwned,
{
    let message = message.into();
    match poll(peer, || ask::form_ask::<T>(message.clone())) {
        Deferred::Unscoped | Deferred::InProcess => {
            peer.elicit_with_timeout::<T>(message, timeout).await
        }
        other => elicitation_answer(other),
    }
}

fn elicitation_answer<T>(found: Deferred<Elicitation<T>>) -> Result<Option<T>, ElicitationError> {
    match found {
        Deferred::Ready(Elicitation::Accept(value)) => Ok(Some(value)),
        Deferred::Ready(Elicitation::Decline) => Err(ElicitationError::UserDeclined),
        Deferred::Ready(Elicitation::Cancel) => Err(ElicitationError::UserCancelled),
        other => Err(elicitation_failed(other)),
    }
}

/// The error of an elicitation that found no answer, as the peer's own ask reports it.
fn elicitation_failed<T>(found: Deferred<T>) -> ElicitationError {
    match found {
        Deferred::Pending => ElicitationError::Service(awaiting_answer()),
        Deferred::Failed(MrtrError::MissingCapability { .. }) => {
            ElicitationError::CapabilityNotSupported
        }
        Deferred::Failed(error) => ElicitationError::Service(service_error(error)),
        Deferred::Ready(_) | Deferred::Unscoped | Deferred::InProcess => {
            unreachable!("the caller takes an answer, and sends these the legacy way")
        }
    }
}

/// [`Peer::elicit_url`], deferred: the user's action on the page (accept, decline, cancel).
pub async fn elicit_url(
    peer: &Peer<RoleServer>,
    message: impl Into<String>,
    url: impl Into<url::Url>,
    elicitation_id: impl Into<String>,
) -> Result<ElicitationAction, ElicitationError> {
    elicit_url_with_timeout(peer, message, url, elicitation_id, None).await
}

/// [`Peer::elicit_url_with_timeout`], deferred (the timeout as in [`elicit_with_timeout`]).
pub async fn elicit_url_with_timeout(
    peer: &Peer<RoleServer>,
    message: impl Into<String>,
    url: impl Into<url::Url>,
    elicitation_id: impl Into<String>,
    timeout: Option<std::time::Duration>,
) -> Result<ElicitationAction, ElicitationError> {
    let (message, url, elicitation_id) = (message.into(), url.into(), elicitation_id.into());
    let params = ElicitRequestParams::UrlElicitationParams {
        meta: None,
        message: message.clone(),
        url: url.to_string(),
        elicitation_id: elicitation_id.clone(),
    };
    match poll(peer, || elicitation_ask(&params)) {
        Deferred::Unscoped | Deferred::InProcess => {
            peer.elicit_url_with_timeout(message, url, elicitation_id, timeout)
                .await
        }
        Deferred::Ready(answer) => Ok(answer.action),
        other => Err(elicitation_failed(other)),
    }
}

/// [`Peer::create_elicitation_with_timeout`], deferred (the timeout as in
/// [`elicit_with_timeout`]).
pub async fn create_elicitation_with_timeout(
    peer: &Peer<RoleServer>,
    params: ElicitRequestParams,
    timeout: Option<std::time::Duration>,
) -> Result<ElicitResult, ServiceError> {
    match poll(peer, || elicitation_ask(&params)) {
        Deferred::Unscoped | Deferred::InProcess => {
            peer.create_elicitation_with_timeout(params, timeout).await
        }
        other => settle(other),
    }
}

fn elicitation_ask(params: &ElicitRequestParams) -> Ask<ElicitResult> {
    let request = json!({ "method": "elicitation/create", "params": params });
    let capability = if request["params"]["mode"] == "url" {
        json!({ "elicitation": { "url": {} } })
    } else {
        json!({ "elicitation": {} })
    };
    Ask::new(request, capability, decode::<ElicitResult>)
}

/// [`Peer::send_request`] with a `ServerRequest`, deferred: an `ElicitRequest`,
/// `CreateMessageRequest` or `ListRootsRequest` is asked as [`create_elicitation`],
/// [`create_message`] or [`list_roots`] would, and its answer comes back as the `ClientResult`
/// the peer's request returned. Every other request (a ping, a custom one) is sent as before.
pub async fn send_request(
    peer: &Peer<RoleServer>,
    request: ServerRequest,
) -> Result<ClientResult, ServiceError> {
    match request {
        ServerRequest::ElicitRequest(r) => create_elicitation(peer, r.params)
            .await
            .map(ClientResult::ElicitResult),
        ServerRequest::CreateMessageRequest(r) => create_message(peer, r.params)
            .await
            .map(|answer| ClientResult::CreateMessageResult(Box::new(answer))),
        ServerRequest::ListRootsRequest(_) => {
            list_roots(peer).await.map(ClientResult::ListRootsResult)
        }
        other => peer.send_request(other).await,
    }
}

/// [`Peer::create_elicitation`], deferred (form or URL mode, the schema as given).
pub async fn create_elicitation(
    peer: &Peer<RoleServer>,
    params: ElicitRequestParams,
) -> Result<ElicitResult, ServiceError> {
    match poll(peer, || elicitation_ask(&params)) {
        Deferred::Unscoped | Deferred::InProcess => peer.create_elicitation(params).await,
        other => settle(other),
    }
}

/// [`Peer::create_message`], deferred.
pub async fn create_message(
    peer: &Peer<RoleServer>,
    params: CreateMessageRequestParams,
) -> Result<CreateMessageResult, ServiceError> {
    match poll(peer, || ask::sampling_ask(params.clone().into())) {
        Deferred::Unscoped | Deferred::InProcess => peer.create_message(params).await,
        Deferred::Ready(answer) => CreateMessageResult::try_from(answer),
        Deferred::Pending => Err(awaiting_answer()),
        Deferred::Failed(error) => Err(service_error(error)),
    }
}

/// [`Peer::list_roots`], deferred.
pub async fn list_roots(peer: &Peer<RoleServer>) -> Result<ListRootsResult, ServiceError> {
    match poll(peer, ask::roots_ask) {
        Deferred::Unscoped | Deferred::InProcess => peer.list_roots().await,
        Deferred::Ready(roots) => serde_json::from_value(json!({ "roots": roots })).map_err(|e| {
            service_error(MrtrError::Internal(format!(
                "the client's roots as an rmcp ListRootsResult: {e}"
            )))
        }),
        Deferred::Pending => Err(awaiting_answer()),
        Deferred::Failed(error) => Err(service_error(error)),
    }
}

/// The ask in the scope of the handler running this code, else in the 2026-07-28 request in
/// flight on `peer`'s connection (an ask relayed from another task, see [`crate::deferred`]).
fn poll<T>(peer: &Peer<RoleServer>, ask: impl FnOnce() -> Ask<T>) -> Deferred<T> {
    scope::poll_on_session(|| crate::rmcp::session_key(peer), ask)
}

fn decode<T: DeserializeOwned>(key: &str, answer: &Value) -> Result<T, MrtrError> {
    T::deserialize(answer).map_err(|e| ask::invalid(key, e.to_string()))
}

fn settle<T>(found: Deferred<T>) -> Result<T, ServiceError> {
    match found {
        Deferred::Ready(value) => Ok(value),
        Deferred::Pending => Err(awaiting_answer()),
        Deferred::Failed(error) => Err(service_error(error)),
        Deferred::Unscoped | Deferred::InProcess => {
            unreachable!("the caller sends these the legacy way")
        }
    }
}
