//! Deferred asks end to end: a confirmation gate behind a `&dyn Confirmer` that holds the
//! request's `Peer` (the shape no step rewrite can reach), asking through
//! `mrtr::rmcp::deferred::elicit`, under a hand-written `call_tool` with `#[mrtr_handler]`.
//! Served by rmcp 3.x to rmcp's own client over `tokio::io::duplex`: a 2026-07-28 client gets
//! an `InputRequiredResult` and replays, a 2025-11-25 session gets the request mid-call.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use mrtr::{mrtr_handler, InMemoryReplayGuard, KeyRing, MrtrConfig, MrtrServer, SecretKey};
use rmcp::model::*;
use rmcp::service::{
    serve_directly, ElicitationError, Peer, RequestContext, RoleClient, RoleServer, RunningService,
    ServiceError,
};
use rmcp::{ClientHandler, ServerHandler, Service};
use serde::Deserialize;
use serde_json::json;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct ConfirmDestructive {
    confirm: bool,
}
rmcp::elicit_safe!(ConfirmDestructive);

/// The service layer's gate: called before any effect, holds nothing but how to ask.
#[async_trait::async_trait]
trait Confirmer: Send + Sync {
    async fn require(&self, what: &str) -> Result<(), String>;
}

struct PeerConfirmer {
    peer: Peer<RoleServer>,
}

#[async_trait::async_trait]
impl Confirmer for PeerConfirmer {
    async fn require(&self, what: &str) -> Result<(), String> {
        let asked = mrtr::rmcp::deferred::elicit::<ConfirmDestructive>(
            &self.peer,
            format!("Really {what}?"),
        )
        .await;
        match asked {
            Ok(Some(answer)) if answer.confirm => Ok(()),
            Ok(_) => Err("not confirmed".into()),
            Err(ElicitationError::UserDeclined) => Err("declined".into()),
            Err(error) => Err(format!("confirmation failed: {error}")),
        }
    }
}

/// Counts how often the code before the gate ran, and how often the effect behind it did.
#[derive(Default)]
struct Counts {
    validated: AtomicUsize,
    stopped: AtomicUsize,
    /// Denials the handler logged: not the rounds that only wait for the answer.
    denied: AtomicUsize,
}

/// The service method: validation, the gate, then the effect.
async fn stop_container(
    counts: &Counts,
    confirmer: &dyn Confirmer,
    name: &str,
) -> Result<String, String> {
    counts.validated.fetch_add(1, Ordering::SeqCst);
    confirmer.require(&format!("stop {name}")).await?;
    counts.stopped.fetch_add(1, Ordering::SeqCst);
    Ok(format!("stopped {name}"))
}

#[derive(Clone)]
struct Fleet {
    config: MrtrConfig,
    counts: Arc<Counts>,
}

impl MrtrServer for Fleet {
    fn mrtr_config(&self) -> &MrtrConfig {
        &self.config
    }
}

impl ServerHandler for Fleet {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    #[mrtr_handler]
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let name = request
            .arguments
            .as_ref()
            .and_then(|a| a.get("name"))
            .and_then(|n| n.as_str())
            .unwrap_or("web-1")
            .to_string();
        let confirmer = PeerConfirmer {
            peer: context.peer.clone(),
        };
        match stop_container(&self.counts, &confirmer, &name).await {
            Ok(text) => Ok(CallToolResult::success(vec![ContentBlock::text(text)])),
            Err(reason) => {
                if !mrtr::deferred::awaiting_answer() {
                    self.counts.denied.fetch_add(1, Ordering::SeqCst);
                }
                Err(ErrorData::invalid_request(reason, None))
            }
        }
    }
}

#[derive(Clone, Default)]
struct Client {
    legacy: bool,
    decline: bool,
    asked: Arc<Mutex<Vec<String>>>,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let version = if self.legacy {
            ProtocolVersion::V_2025_11_25
        } else {
            ProtocolVersion::V_2026_07_28
        };
        ClientConfig::new(
            ClientCapabilities::builder().enable_elicitation().build(),
            Implementation::new("deferred-e2e", "0.0.0"),
        )
        .with_protocol_version(version)
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        if let ElicitRequestParams::FormElicitationParams { message, .. } = &request {
            self.asked.lock().unwrap().push(message.clone());
        }
        Ok(if self.decline {
            ElicitResult::new(ElicitationAction::Decline)
        } else {
            ElicitResult::new(ElicitationAction::Accept).with_content(json!({ "confirm": true }))
        })
    }
}

fn config() -> MrtrConfig {
    MrtrConfig::new(
        "fleet",
        KeyRing::single(SecretKey::new("k1", vec![0x17; 32]).expect("key")),
    )
}

fn connect<S: Service<RoleServer>>(
    server: S,
    client: Client,
) -> RunningService<RoleClient, Client> {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let client_params = ClientHandler::get_info(&client);
    let mut server_params =
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build());
    server_params.protocol_version = client_params.protocol_version.clone();
    let running = serve_directly::<RoleServer, _, _, _, _>(server, server_io, Some(client_params));
    tokio::spawn(async move {
        let _ = running.waiting().await;
    });
    serve_directly::<RoleClient, _, _, _, _>(client, client_io, Some(server_params.into()))
}

fn fleet(config: MrtrConfig) -> Fleet {
    Fleet {
        config,
        counts: Arc::default(),
    }
}

fn stop(name: &str) -> CallToolRequestParams {
    CallToolRequestParams::new("stop")
        .with_arguments(json!({ "name": name }).as_object().unwrap().clone())
}

fn text(result: &CallToolResult) -> String {
    result.content[0].as_text().expect("text").text.clone()
}

fn input_required(response: CallToolResponse) -> InputRequiredResult {
    match response {
        CallToolResponse::InputRequired(result) => result,
        other => panic!("expected input_required, got {other:?}"),
    }
}

fn only_key(result: &InputRequiredResult) -> String {
    let keys: Vec<_> = result
        .input_requests
        .as_ref()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(keys.len(), 1, "{keys:?}");
    keys[0].clone()
}

fn accepted() -> serde_json::Value {
    json!({ "action": "accept", "content": { "confirm": true } })
}

fn answers(key: &str, answer: serde_json::Value) -> BTreeMap<String, serde_json::Value> {
    BTreeMap::from([(key.to_string(), answer)])
}

#[tokio::test]
async fn a_gate_behind_a_trait_object_asks_with_input_required_and_runs_the_effect_once() {
    let server = fleet(config());
    let counts = server.counts.clone();
    let client = connect(server, Client::default());
    let done = client.call_tool(stop("web-1")).await.expect("completes");
    assert_eq!(text(&done), "stopped web-1");
    assert_eq!(
        *client.service().asked.lock().unwrap(),
        ["Really stop web-1?"]
    );
    // The round that asked ran the code before the gate, the retry ran it again; the effect
    // behind the gate ran once.
    assert_eq!(counts.validated.load(Ordering::SeqCst), 2);
    assert_eq!(counts.stopped.load(Ordering::SeqCst), 1);
    // The round that only waited for the answer is not a denial.
    assert_eq!(counts.denied.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_decline_reaches_the_gate_as_the_peer_would_have_said_it() {
    let server = fleet(config());
    let counts = server.counts.clone();
    let client = connect(
        server,
        Client {
            decline: true,
            ..Client::default()
        },
    );
    let error = client.call_tool(stop("web-1")).await.unwrap_err();
    match error {
        ServiceError::McpError(error) => assert_eq!(error.message, "declined"),
        other => panic!("expected the tool's error, got {other:?}"),
    }
    assert_eq!(counts.stopped.load(Ordering::SeqCst), 0);
    assert_eq!(
        counts.denied.load(Ordering::SeqCst),
        1,
        "the decline is one"
    );
}

#[tokio::test]
async fn a_pre_2026_session_gets_the_request_mid_call_and_runs_once() {
    let server = fleet(config());
    let counts = server.counts.clone();
    let client = connect(
        server,
        Client {
            legacy: true,
            ..Client::default()
        },
    );
    let done = client.call_tool(stop("db-2")).await.expect("completes");
    assert_eq!(text(&done), "stopped db-2");
    assert_eq!(
        *client.service().asked.lock().unwrap(),
        ["Really stop db-2?"]
    );
    assert_eq!(counts.validated.load(Ordering::SeqCst), 1);
    assert_eq!(counts.stopped.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn the_key_names_the_question_and_only_an_asked_key_counts() {
    let client = connect(fleet(config()), Client::default());
    let first = input_required(client.call_tool_once(stop("web-1")).await.unwrap());
    let key = only_key(&first);
    assert!(key.starts_with("d.") && key.len() == 18, "{key}");
    let other = input_required(client.call_tool_once(stop("web-2")).await.unwrap());
    assert_ne!(only_key(&other), key, "another question has another key");

    // An answer without the state that asked for it does not open the gate.
    let unasked = client
        .call_tool_once(stop("web-1").with_input_responses(answers(&key, accepted())))
        .await
        .unwrap();
    assert_eq!(only_key(&input_required(unasked)), key);

    // The state of web-2's question does not answer web-1's: other arguments, other binding.
    let state = other.request_state.clone().unwrap();
    let error = client
        .call_tool_once(
            stop("web-1")
                .with_request_state(state)
                .with_input_responses(answers(&key, accepted())),
        )
        .await
        .unwrap_err();
    match error {
        ServiceError::McpError(e) => assert_eq!(e.message, mrtr::INVALID_STATE_MESSAGE),
        other => panic!("expected InvalidState, got {other:?}"),
    }
}

#[tokio::test]
async fn one_confirmation_cannot_be_replayed_into_a_second_effect() {
    let guard = Arc::new(InMemoryReplayGuard::new());
    let server = fleet(config().with_replay_guard(guard));
    let counts = server.counts.clone();
    let client = connect(server, Client::default());
    let first = input_required(client.call_tool_once(stop("web-1")).await.unwrap());
    let key = only_key(&first);
    let retry = || {
        stop("web-1")
            .with_request_state(first.request_state.clone().unwrap())
            .with_input_responses(answers(&key, accepted()))
    };
    match client.call_tool_once(retry()).await.unwrap() {
        CallToolResponse::Complete(done) => assert_eq!(text(&done), "stopped web-1"),
        other => panic!("expected the tool's result, got {other:?}"),
    }
    let replayed = client.call_tool_once(retry()).await;
    assert!(
        replayed.is_err(),
        "the used state must be refused: {replayed:?}"
    );
    assert_eq!(counts.stopped.load(Ordering::SeqCst), 1);
}

/// Outside a `#[mrtr_handler]` the call is the peer's own: on a 2026-07-28 request rmcp refuses it.
#[tokio::test]
async fn without_a_handler_scope_the_peer_sends_as_before() {
    #[derive(Clone)]
    struct Unmigrated;
    impl ServerHandler for Unmigrated {
        async fn call_tool(
            &self,
            _request: CallToolRequestParams,
            context: RequestContext<RoleServer>,
        ) -> Result<CallToolResponse, ErrorData> {
            let asked =
                mrtr::rmcp::deferred::elicit::<ConfirmDestructive>(&context.peer, "Really?").await;
            let text = match asked {
                Err(ElicitationError::Service(ServiceError::McpError(e))) => e.message.to_string(),
                other => format!("{other:?}"),
            };
            Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
        }
    }
    let client = connect(Unmigrated, Client::default());
    let done = client.call_tool(stop("web-1")).await.expect("completes");
    assert!(
        text(&done).contains("not allowed on protocol 2026-07-28"),
        "{}",
        text(&done)
    );
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct Yes {
    yes: bool,
}

/// A deferred ask below a handler that has asks of its own: a question of code the macro does
/// not see, made before the handler's own ask (a gateway's relay on one branch, a rewritten
/// confirmation on another, in one handler).
fn below(mrtr: &mrtr::Mrtr, question: &str) -> Result<bool, String> {
    use mrtr::deferred::{poll, Deferred};
    match poll(&mrtr.elicit::<Yes>(question.to_string())) {
        Deferred::Ready(mrtr::Elicitation::Accept(yes)) => Ok(yes.yes),
        Deferred::Ready(_) => Ok(false),
        Deferred::Pending => Err("waiting".into()),
        Deferred::Failed(error) => Err(error.to_string()),
        Deferred::Unscoped | Deferred::InProcess => Err("not in a 2026-07-28 round".into()),
    }
}

/// Before the handler's own ask, in a round from the top, a deferred ask is taken: the first
/// round asks it alone (the step after it is dropped from that round), the retry runs from the
/// top, takes its answer and reaches the handler's own ask, and the third round completes.
#[test]
fn a_handler_with_asks_of_its_own_takes_a_deferred_ask_made_before_them() {
    use mrtr::testing::{Answer, TestClient};
    use mrtr::{Mrtr, MrtrError};

    static RAN: AtomicUsize = AtomicUsize::new(0);

    #[mrtr_handler]
    async fn mixed(mrtr: Mrtr) -> Result<serde_json::Value, MrtrError> {
        RAN.fetch_add(1, Ordering::SeqCst);
        let below = below(&mrtr, "Below?");
        let own = mrtr.elicit::<Yes>("Own?").key("own").await?;
        let own = matches!(own, mrtr::Elicitation::Accept(Yes { yes: true }));
        Ok(json!({ "below": format!("{below:?}"), "own": own }))
    }

    let transcript = TestClient::tool("mixed", json!({}))
        .answer("own", Answer::accept(json!({ "yes": true })))
        .answer_any(Answer::accept(json!({ "yes": true })))
        .run_blocking(mixed);
    assert_eq!(
        transcript.complete().expect("completes"),
        &json!({ "below": "Ok(true)", "own": true })
    );
    let first = transcript.asked(0).expect("a first round");
    let keys: Vec<_> = first.input_requests.keys().collect();
    assert_eq!(keys.len(), 1, "{keys:?}");
    assert!(
        keys[0].starts_with("d."),
        "the deferred ask alone: {keys:?}"
    );
    let second = transcript.asked(1).expect("a second round");
    assert_eq!(second.input_requests.keys().collect::<Vec<_>>(), ["own"]);
    // From the top twice (the deferred round and its retry); the third round resumed at `own`,
    // past this code.
    assert_eq!(RAN.load(Ordering::SeqCst), 2);
}

/// After one of the handler's own asks, a deferred ask is refused: the round resumed at that
/// ask, and its retry would resume there again, past the code that asked.
#[test]
fn a_deferred_ask_after_the_handlers_own_ask_is_refused() {
    use mrtr::testing::{Answer, TestClient};
    use mrtr::{Mrtr, MrtrError};

    #[mrtr_handler]
    async fn mixed(mrtr: Mrtr) -> Result<serde_json::Value, MrtrError> {
        let _own = mrtr.elicit::<Yes>("Own?").key("own").await?;
        let below = below(&mrtr, "Below?");
        Ok(json!(format!("{below:?}")))
    }

    let transcript = TestClient::tool("mixed", json!({}))
        .answer("own", Answer::accept(json!({ "yes": true })))
        .run_blocking(mixed);
    let seen = transcript
        .complete()
        .expect("completes")
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        seen.contains("after one of the #[mrtr_handler]'s own asks"),
        "{seen}"
    );
}
