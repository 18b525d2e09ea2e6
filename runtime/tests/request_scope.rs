//! The adapter's request scope end to end: `#[mrtr::mrtr_server]` on a server's
//! `impl ServerHandler` (next to rmcp's `#[tool_handler]`, in either order) opens a deferred
//! scope for every `tools/call`, so deferred asks made by code no rewrite reaches (a `pub`
//! helper taking `Option<&Peer>`, a newtype holding the peer, a raw `ServerRequest`) end the
//! round with an `InputRequiredResult` on a 2026-07-28 session and are the peer's own requests
//! on a 2025-11-25 one. Served by rmcp 3.x to rmcp's own client over `tokio::io::duplex`.

// Roots and sampling are deprecated in rmcp 3.x (SEP-2577), and still what servers ask.
#![allow(deprecated)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use mrtr::{KeyRing, MrtrConfig, MrtrServer, SecretKey};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::*;
use rmcp::service::{
    serve_directly, ElicitationError, Peer, RequestContext, RoleClient, RoleServer, RunningService,
    ServiceError,
};
use rmcp::{tool, tool_handler, tool_router, ClientHandler, ServerHandler, Service};
use serde::Deserialize;
use serde_json::json;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct Confirm {
    confirm: bool,
}
rmcp::elicit_safe!(Confirm);

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct Target {
    name: String,
}

/// A gate shared by many tools, visible to the whole crate and beyond, taking the peer as an
/// option (some callers have none).
pub async fn gate_destructive(peer: Option<&Peer<RoleServer>>, what: &str) -> Result<(), String> {
    let Some(peer) = peer else {
        return Err("no client to ask".into());
    };
    match mrtr::rmcp::deferred::elicit::<Confirm>(peer, format!("Really {what}?")).await {
        Ok(Some(answer)) if answer.confirm => Ok(()),
        Ok(_) => Err("not confirmed".into()),
        Err(ElicitationError::UserDeclined) => Err("declined".into()),
        Err(error) => Err(format!("confirmation failed: {error}")),
    }
}

/// A newtype extractor-like holder of the peer.
struct Asking(Peer<RoleServer>);

impl Asking {
    async fn roots(&self) -> Result<Vec<String>, ServiceError> {
        let listed = mrtr::rmcp::deferred::list_roots(&self.0).await?;
        Ok(listed.roots.into_iter().map(|r| r.uri).collect())
    }
}

#[derive(Default)]
struct Counts {
    before: AtomicUsize,
    effects: AtomicUsize,
}

#[derive(Clone)]
struct Shop {
    config: MrtrConfig,
    counts: Arc<Counts>,
}

impl MrtrServer for Shop {
    fn mrtr_config(&self) -> &MrtrConfig {
        &self.config
    }
}

#[tool_router]
impl Shop {
    fn new(config: MrtrConfig) -> Shop {
        Shop {
            config,
            counts: Arc::default(),
        }
    }

    #[tool(description = "Delete an item after confirmation")]
    async fn delete(
        &self,
        Parameters(target): Parameters<Target>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.counts.before.fetch_add(1, Ordering::SeqCst);
        gate_destructive(Some(&context.peer), &format!("delete {}", target.name))
            .await
            .map_err(|why| ErrorData::invalid_request(why, None))?;
        self.counts.effects.fetch_add(1, Ordering::SeqCst);
        Ok(CallToolResult::success(vec![ContentBlock::text(format!(
            "deleted {}",
            target.name
        ))]))
    }

    #[tool(description = "List the client's roots through a holder of the peer")]
    async fn roots(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let asking = Asking(context.peer.clone());
        let roots = asking
            .roots()
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(CallToolResult::success(vec![ContentBlock::text(
            roots.join(","),
        )]))
    }

    #[tool(description = "Delete two items, asking about both at once")]
    async fn delete_pair(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.counts.before.fetch_add(1, Ordering::SeqCst);
        let (a, b) = futures::future::join(
            gate_destructive(Some(&context.peer), "delete left"),
            gate_destructive(Some(&context.peer), "delete right"),
        )
        .await;
        a.and(b)
            .map_err(|why| ErrorData::invalid_request(why, None))?;
        self.counts.effects.fetch_add(1, Ordering::SeqCst);
        Ok(CallToolResult::success(vec![ContentBlock::text(
            "deleted both",
        )]))
    }

    #[tool(description = "Ask until confirmed, three times at most")]
    async fn insist(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        for attempt in 1..=3 {
            match mrtr::rmcp::deferred::elicit::<Confirm>(&context.peer, "Sure?").await {
                Ok(Some(answer)) if answer.confirm => {
                    return Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                        "confirmed at attempt {attempt}"
                    ))]))
                }
                Ok(_) => continue,
                Err(e) => return Err(ErrorData::internal_error(e.to_string(), None)),
            }
        }
        Ok(CallToolResult::success(vec![ContentBlock::text("gave up")]))
    }

    #[tool(description = "Send the user to a page")]
    async fn open_page(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let page = url::Url::parse("https://example.invalid/consent").expect("a URL");
        let action =
            mrtr::rmcp::deferred::elicit_url(&context.peer, "Open the consent page", page, "c-1")
                .await
                .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(CallToolResult::success(vec![ContentBlock::text(format!(
            "{action:?}"
        ))]))
    }

    #[tool(description = "List the roots with a raw ServerRequest")]
    async fn raw_roots(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let answer = mrtr::rmcp::deferred::send_request(
            &context.peer,
            ServerRequest::ListRootsRequest(ListRootsRequest::default()),
        )
        .await
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let ClientResult::ListRootsResult(listed) = answer else {
            return Err(ErrorData::internal_error("not a roots answer", None));
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(
            listed.roots.len().to_string(),
        )]))
    }
}

#[tool_handler]
#[mrtr::mrtr_server]
impl ServerHandler for Shop {}

/// The same tool with the attributes the other way round: `#[mrtr_server]` first.
#[derive(Clone)]
struct Kiosk {
    config: MrtrConfig,
}

impl MrtrServer for Kiosk {
    fn mrtr_config(&self) -> &MrtrConfig {
        &self.config
    }
}

#[tool_router]
impl Kiosk {
    #[tool(description = "Delete after confirmation")]
    async fn delete(&self, context: RequestContext<RoleServer>) -> Result<String, ErrorData> {
        gate_destructive(Some(&context.peer), "delete kiosk")
            .await
            .map_err(|why| ErrorData::invalid_request(why, None))?;
        Ok("deleted kiosk".into())
    }
}

#[mrtr::mrtr_server]
#[tool_handler]
impl ServerHandler for Kiosk {}

#[derive(Clone, Default)]
struct Client {
    legacy: bool,
    decline: bool,
    asked: Arc<Mutex<Vec<String>>>,
    /// How many of the first confirmations to answer `false`.
    refuse_first: Arc<AtomicUsize>,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let version = if self.legacy {
            ProtocolVersion::V_2025_11_25
        } else {
            ProtocolVersion::V_2026_07_28
        };
        ClientConfig::new(
            ClientCapabilities::builder()
                .enable_elicitation_with(
                    ElicitationCapability::new()
                        .with_form(FormElicitationCapability::default())
                        .with_url(UrlElicitationCapability::default()),
                )
                .enable_roots()
                .build(),
            Implementation::new("scope-e2e", "0.0.0"),
        )
        .with_protocol_version(version)
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        match &request {
            ElicitRequestParams::FormElicitationParams { message, .. } => {
                self.asked.lock().unwrap().push(message.clone())
            }
            ElicitRequestParams::UrlElicitationParams { message, url, .. } => self
                .asked
                .lock()
                .unwrap()
                .push(format!("{message} at {url}")),
            _ => {}
        }
        let refuse = self
            .refuse_first
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok();
        Ok(if self.decline {
            ElicitResult::new(ElicitationAction::Decline)
        } else {
            ElicitResult::new(ElicitationAction::Accept).with_content(json!({ "confirm": !refuse }))
        })
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        self.asked.lock().unwrap().push("roots".into());
        Ok(ListRootsResult::new(vec![
            Root::new("file:///a"),
            Root::new("file:///b"),
        ]))
    }
}

fn config() -> MrtrConfig {
    MrtrConfig::new(
        "shop",
        KeyRing::single(SecretKey::new("k1", vec![0x29; 32]).expect("key")),
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

fn call(name: &str, arguments: serde_json::Value) -> CallToolRequestParams {
    CallToolRequestParams::new(name.to_string())
        .with_arguments(arguments.as_object().unwrap().clone())
}

fn text(result: &CallToolResult) -> String {
    result.content[0].as_text().expect("text").text.clone()
}

#[tokio::test]
async fn a_pub_helper_with_an_optional_peer_asks_through_the_adapter_scope() {
    let shop = Shop::new(config());
    let counts = shop.counts.clone();
    let client = connect(shop, Client::default());
    let first = client
        .call_tool_once(call("delete", json!({ "name": "cart-7" })))
        .await
        .expect("a round");
    match first {
        CallToolResponse::InputRequired(result) => {
            assert_eq!(result.input_requests.as_ref().map(|r| r.len()), Some(1));
            assert!(result.request_state.is_some(), "the round is sealed");
        }
        other => panic!("expected input_required, got {other:?}"),
    }
    assert_eq!(counts.effects.load(Ordering::SeqCst), 0);
    // The client's driver answers and retries: the effect runs once, the code before the gate
    // once per round (the first round above, and the two of this call).
    let done = client
        .call_tool(call("delete", json!({ "name": "cart-7" })))
        .await
        .expect("completes");
    assert_eq!(text(&done), "deleted cart-7");
    assert_eq!(counts.effects.load(Ordering::SeqCst), 1);
    assert_eq!(counts.before.load(Ordering::SeqCst), 3);
    assert_eq!(
        *client.service().asked.lock().unwrap(),
        ["Really delete cart-7?"]
    );
}

#[tokio::test]
async fn a_decline_reaches_the_helper_as_the_peer_would_have_said_it() {
    let shop = Shop::new(config());
    let counts = shop.counts.clone();
    let client = connect(
        shop,
        Client {
            decline: true,
            ..Client::default()
        },
    );
    let error = client
        .call_tool(call("delete", json!({ "name": "x" })))
        .await
        .unwrap_err();
    match error {
        ServiceError::McpError(error) => assert_eq!(error.message, "declined"),
        other => panic!("expected the tool's error, got {other:?}"),
    }
    assert_eq!(counts.effects.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_newtype_holding_the_peer_and_a_raw_server_request_ask_for_roots() {
    let client = connect(Shop::new(config()), Client::default());
    let roots = client
        .call_tool(call("roots", json!({})))
        .await
        .expect("roots");
    assert_eq!(text(&roots), "file:///a,file:///b");
    let raw = client
        .call_tool(call("raw_roots", json!({})))
        .await
        .expect("raw roots");
    assert_eq!(text(&raw), "2");
}

#[tokio::test]
async fn a_pre_2026_session_gets_the_peer_requests_mid_call() {
    let shop = Shop::new(config());
    let counts = shop.counts.clone();
    let client = connect(
        shop,
        Client {
            legacy: true,
            ..Client::default()
        },
    );
    let done = client
        .call_tool(call("delete", json!({ "name": "old" })))
        .await
        .expect("completes");
    assert_eq!(text(&done), "deleted old");
    assert_eq!(counts.before.load(Ordering::SeqCst), 1);
    assert_eq!(counts.effects.load(Ordering::SeqCst), 1);
    let raw = client
        .call_tool(call("raw_roots", json!({})))
        .await
        .expect("raw roots");
    assert_eq!(text(&raw), "2");
    assert_eq!(
        *client.service().asked.lock().unwrap(),
        ["Really delete old?", "roots"]
    );
}

#[tokio::test]
async fn the_attribute_above_tool_handler_scopes_the_generated_call_tool_too() {
    let kiosk = Kiosk { config: config() };
    let client = connect(kiosk, Client::default());
    let first = client
        .call_tool_once(call("delete", json!({})))
        .await
        .expect("a round");
    assert!(matches!(first, CallToolResponse::InputRequired(_)));
    let done = client
        .call_tool(call("delete", json!({})))
        .await
        .expect("completes");
    assert_eq!(text(&done), "deleted kiosk");
}

#[tokio::test]
async fn a_tampered_or_foreign_state_is_invalid_params() {
    let client = connect(Shop::new(config()), Client::default());
    let first = client
        .call_tool_once(call("delete", json!({ "name": "a" })))
        .await
        .unwrap();
    let CallToolResponse::InputRequired(round) = first else {
        panic!("expected a round");
    };
    let state = round.request_state.clone().unwrap();
    let mut tampered = state.clone().into_bytes();
    let at = tampered.len() / 2;
    tampered[at] = if tampered[at] == b'A' { b'B' } else { b'A' };
    let tampered = String::from_utf8(tampered).unwrap();
    let error = client
        .call_tool_once(call("delete", json!({ "name": "a" })).with_request_state(tampered))
        .await
        .unwrap_err();
    match error {
        ServiceError::McpError(e) => assert_eq!(e.code, ErrorCode::INVALID_PARAMS, "{e:?}"),
        other => panic!("expected -32602, got {other:?}"),
    }
    // The state is bound to its request: another item's retry cannot use it.
    let error = client
        .call_tool_once(call("delete", json!({ "name": "b" })).with_request_state(state))
        .await
        .unwrap_err();
    assert!(
        matches!(&error, ServiceError::McpError(e) if e.code == ErrorCode::INVALID_PARAMS),
        "{error:?}"
    );
}

/// Two deferred asks awaited together (`join`): a 2026-07-28 round ends with both questions in
/// one `InputRequiredResult`, and the retry that answers both runs the effect once; a
/// 2025-11-25 session gets both requests mid-call.
#[tokio::test]
async fn two_asks_awaited_together_are_asked_in_one_round() {
    let shop = Shop::new(config());
    let counts = shop.counts.clone();
    let client = connect(shop, Client::default());
    let first = client
        .call_tool_once(call("delete_pair", json!({})))
        .await
        .expect("a response");
    let CallToolResponse::InputRequired(asked) = first else {
        panic!("expected input_required, got {first:?}");
    };
    assert_eq!(
        asked.input_requests.as_ref().map(|r| r.len()),
        Some(2),
        "{asked:?}"
    );
    let done = client
        .call_tool(call("delete_pair", json!({})))
        .await
        .expect("completes");
    assert_eq!(text(&done), "deleted both");
    let mut questions = client.service().asked.lock().unwrap().clone();
    questions.sort();
    assert_eq!(questions, ["Really delete left?", "Really delete right?"]);
    assert_eq!(counts.effects.load(Ordering::SeqCst), 1);

    let shop = Shop::new(config());
    let counts = shop.counts.clone();
    let legacy = connect(
        shop,
        Client {
            legacy: true,
            ..Client::default()
        },
    );
    let done = legacy
        .call_tool(call("delete_pair", json!({})))
        .await
        .expect("completes");
    assert_eq!(text(&done), "deleted both");
    assert_eq!(legacy.service().asked.lock().unwrap().len(), 2);
    assert_eq!(counts.before.load(Ordering::SeqCst), 1);
    assert_eq!(counts.effects.load(Ordering::SeqCst), 1);
}

/// The same question asked again in a loop until the answer will do: each ask is a new question
/// to the client, one per round, as each was a new request before (not the first answer
/// replayed into every later ask, which would give up, or spin in an endless loop).
#[tokio::test]
async fn a_question_asked_again_in_a_loop_is_asked_again() {
    for legacy in [false, true] {
        let client = connect(
            Shop::new(config()),
            Client {
                legacy,
                refuse_first: Arc::new(AtomicUsize::new(1)),
                ..Client::default()
            },
        );
        let done = client
            .call_tool(call("insist", json!({})))
            .await
            .expect("completes");
        assert_eq!(text(&done), "confirmed at attempt 2", "legacy: {legacy}");
        assert_eq!(
            *client.service().asked.lock().unwrap(),
            ["Sure?", "Sure?"],
            "legacy: {legacy}"
        );
    }
}

/// `Peer::elicit_url` in its deferred form: a URL-mode question in the round's `inputRequests`,
/// the user's action from the retry; on a pre-2026 session the peer's own request.
#[tokio::test]
async fn a_url_elicitation_is_deferred_like_a_form() {
    for legacy in [false, true] {
        let client = connect(
            Shop::new(config()),
            Client {
                legacy,
                ..Client::default()
            },
        );
        let done = client
            .call_tool(call("open_page", json!({})))
            .await
            .expect("completes");
        assert_eq!(text(&done), "Accept", "legacy: {legacy}");
        assert_eq!(
            *client.service().asked.lock().unwrap(),
            ["Open the consent page at https://example.invalid/consent"],
            "legacy: {legacy}"
        );
    }
}
