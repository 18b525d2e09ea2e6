//! `#[mrtr_handler]` end to end: a real rmcp 3.x server (a `#[tool_router]` with
//! `#[tool] #[mrtr_handler]` methods, hand-written `get_prompt` / `read_resource`) and the real
//! rmcp 3.x client in one process over `tokio::io::duplex`: the client's automatic MRTR loop and
//! its manual `*_once` calls.

// Sampling and roots are deprecated in rmcp (SEP-2577) but still part of the protocol MRTR serves.
#![allow(deprecated)]

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use mrtr::{
    mrtr_handler, Ask, Elicitation, KeyRing, Mrtr, MrtrConfig, MrtrServer, SamplingRequest,
    SecretKey,
};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::*;
use rmcp::service::{
    serve_directly, RequestContext, RoleClient, RoleServer, RunningService, ServiceError,
};
use rmcp::{tool, tool_handler, tool_router, ClientHandler, ServerHandler};
use serde::{Deserialize, Serialize};
use serde_json::json;

type McpError = ErrorData;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct DeployArgs {
    version: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct Confirm {
    confirm: bool,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct Ticket {
    id: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct Notes {
    text: String,
}

#[derive(Debug, Serialize, Deserialize)]
struct Plan {
    version: String,
    hosts: Vec<String>,
}

fn ask_ticket(mrtr: &Mrtr) -> Ask<Elicitation<Ticket>> {
    mrtr.elicit::<Ticket>("Change ticket?")
}

fn ask_notes(mrtr: &Mrtr) -> Ask<Elicitation<Notes>> {
    mrtr.elicit::<Notes>("Release notes?")
}

fn text_result(text: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text.into())])
}

#[derive(Clone)]
struct Deployer {
    config: MrtrConfig,
    plans: Arc<AtomicUsize>,
    deploys: Arc<AtomicUsize>,
}

impl MrtrServer for Deployer {
    fn mrtr_config(&self) -> &MrtrConfig {
        &self.config
    }
}

impl Deployer {
    fn new(config: MrtrConfig) -> Deployer {
        Deployer {
            config,
            plans: Arc::default(),
            deploys: Arc::default(),
        }
    }

    async fn compute_plan(&self, args: &DeployArgs) -> Result<Plan, McpError> {
        self.plans.fetch_add(1, Ordering::SeqCst);
        Ok(Plan {
            version: args.version.clone(),
            hosts: vec!["a".into(), "b".into()],
        })
    }

    async fn deploy(
        &self,
        plan: &Plan,
        ticket: &str,
        notes: &str,
    ) -> Result<CallToolResult, McpError> {
        self.deploys.fetch_add(1, Ordering::SeqCst);
        Ok(text_result(format!(
            "deployed {} to {} hosts, ticket {ticket}, notes {notes}",
            plan.version,
            plan.hosts.len()
        )))
    }
}

#[tool_router]
impl Deployer {
    /// The issue's example, as written there (the `Mrtr` parameter after `Parameters`).
    #[tool(description = "Deploy a version to production")]
    #[mrtr_handler]
    async fn deploy_production(
        &self,
        Parameters(args): Parameters<DeployArgs>,
        mrtr: Mrtr,
    ) -> Result<CallToolResult, McpError> {
        let plan = self.compute_plan(&args).await?;
        let ok = mrtr.elicit::<Confirm>("Deploy to production?").await?;
        let Elicitation::Accept(Confirm { confirm: true }) = ok else {
            return Ok(text_result(format!("cancelled: {ok:?}")));
        };
        let (ticket, notes) = mrtr.join(ask_ticket(&mrtr), ask_notes(&mrtr)).await?;
        let (Elicitation::Accept(ticket), Elicitation::Accept(notes)) = (ticket, notes) else {
            return Ok(text_result("cancelled: no ticket"));
        };
        self.deploy(&plan, &ticket.id, &notes.text).await
    }

    /// One round, then done.
    #[tool(description = "Who is deploying")]
    #[mrtr_handler]
    async fn whoami(&self, mrtr: Mrtr) -> Result<CallToolResult, McpError> {
        let name = mrtr.elicit::<Notes>("Your name?").key("name").await?;
        Ok(text_result(match name {
            Elicitation::Accept(n) => format!("hello {}", n.text),
            other => format!("anonymous ({other:?})"),
        }))
    }

    /// Three input rounds in a row (four requests), each answer kept for the end.
    #[tool(description = "Release checklist")]
    #[mrtr_handler]
    async fn checklist(&self, mrtr: Mrtr) -> Result<CallToolResult, McpError> {
        self.plans.fetch_add(1, Ordering::SeqCst);
        let name = mrtr.elicit::<Notes>("Your name?").await?;
        let name = name.accepted().map(|n| n.text).unwrap_or_default();
        let ticket = mrtr.ask(ask_ticket(&mrtr)).await?;
        let ticket = ticket.accepted().map(|t| t.id).unwrap_or_default();
        let notes = mrtr.elicit::<Notes>("Release notes?").await?;
        let notes = notes.accepted().map(|n| n.text).unwrap_or_default();
        Ok(text_result(format!("{name} {ticket} {notes}")))
    }

    /// One confirmation per host, each in its own round.
    #[tool(description = "Restart hosts")]
    #[mrtr_handler]
    async fn restart(&self, mrtr: Mrtr) -> Result<CallToolResult, McpError> {
        let hosts = vec!["web-1".to_string(), "web-2".to_string()];
        let mut restarted = Vec::new();
        for host in hosts {
            self.deploys.fetch_add(1, Ordering::SeqCst);
            let ok = mrtr
                .elicit::<Confirm>("Deploy to production?")
                .key("confirm")
                .await?;
            if ok.accepted().is_some_and(|c| c.confirm) {
                restarted.push(host);
            }
        }
        Ok(text_result(restarted.join(",")))
    }

    /// A batch of different kinds: roots and sampling in one round.
    #[tool(description = "Inventory")]
    #[mrtr_handler]
    async fn inventory(&self, mrtr: Mrtr) -> Result<CallToolResult, McpError> {
        let (roots, summary) = mrtr
            .join(
                mrtr.list_roots(),
                mrtr.sample(SamplingRequest::new("summarize", 20)),
            )
            .await?;
        Ok(text_result(format!(
            "{} roots, summary: {}",
            roots.len(),
            summary.first_text().unwrap_or("-")
        )))
    }
}

#[tool_handler]
impl ServerHandler for Deployer {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .enable_resources()
                .build(),
        );
        info.protocol_version = ProtocolVersion::V_2026_07_28;
        info
    }

    /// A hand-written handler: the macro builds the `Mrtr` from the request and context.
    #[mrtr_handler]
    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResult, McpError> {
        let topic = request.name.clone();
        let notes = mrtr.elicit::<Notes>("Release notes?").await?;
        let text = match notes {
            Elicitation::Accept(n) => format!("{topic}: {}", n.text),
            _ => format!("{topic}: none"),
        };
        Ok(GetPromptResult::new(vec![PromptMessage::new_text(
            Role::User,
            text,
        )]))
    }

    #[mrtr_handler(ctx)]
    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResult, McpError> {
        let uri = request.uri.clone();
        let ok = ctx.elicit::<Confirm>("Show the notes?").await?;
        let text = if ok.accepted().is_some_and(|c| c.confirm) {
            "notes: ok"
        } else {
            "hidden"
        };
        Ok(ReadResourceResult::new(vec![ResourceContents::text(
            text, uri,
        )]))
    }
}

/// A client whose MRTR loop answers through these handlers.
#[derive(Clone)]
struct Client {
    confirm: ElicitationAction,
    asked: Arc<Mutex<Vec<String>>>,
}

impl Client {
    fn new(confirm: ElicitationAction) -> Client {
        Client {
            confirm,
            asked: Arc::default(),
        }
    }
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder()
                .enable_elicitation()
                .enable_sampling()
                .enable_roots()
                .build(),
            Implementation::new("mrtr-macro-e2e", "0.0.0"),
        )
        .with_protocol_version(ProtocolVersion::V_2026_07_28)
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let ElicitRequestParams::FormElicitationParams { message, .. } = request else {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        };
        self.asked.lock().unwrap().push(message.clone());
        let accept = |content| ElicitResult::new(ElicitationAction::Accept).with_content(content);
        Ok(match message.as_str() {
            "Deploy to production?" | "Show the notes?" => match self.confirm.clone() {
                ElicitationAction::Accept => accept(json!({ "confirm": true })),
                other => ElicitResult::new(other),
            },
            "Change ticket?" => accept(json!({ "id": "CHG-1" })),
            "Release notes?" => accept(json!({ "text": "fixes" })),
            "Your name?" => accept(json!({ "text": "ada" })),
            _ => ElicitResult::new(ElicitationAction::Cancel),
        })
    }

    async fn create_message(
        &self,
        _params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        Ok(
            CreateMessageResult::new(SamplingMessage::assistant_text("all green"), "m".into())
                .with_stop_reason(CreateMessageResult::STOP_REASON_END_TURN),
        )
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        let mut result = ListRootsResult::default();
        result.roots = vec![Root::new("file:///srv/app"), Root::new("file:///srv/db")];
        Ok(result)
    }
}

fn connect(server: Deployer, client: Client) -> RunningService<RoleClient, Client> {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let client_params = client.get_info();
    let mut server_params = InitializeResult::new(
        ServerCapabilities::builder()
            .enable_tools()
            .enable_prompts()
            .enable_resources()
            .build(),
    );
    server_params.protocol_version = ProtocolVersion::V_2026_07_28;
    let running = serve_directly::<RoleServer, _, _, _, _>(server, server_io, Some(client_params));
    tokio::spawn(async move {
        let _ = running.waiting().await;
    });
    serve_directly::<RoleClient, _, _, _, _>(client, client_io, Some(server_params.into()))
}

fn shared_key_config() -> MrtrConfig {
    MrtrConfig::new(
        "deployer",
        KeyRing::single(SecretKey::new("k1", vec![0x42; 32]).expect("key")),
    )
}

fn deploy_params() -> CallToolRequestParams {
    let arguments = json!({ "version": "1.2.3" }).as_object().unwrap().clone();
    CallToolRequestParams::new("deploy_production").with_arguments(arguments)
}

fn text(result: &CallToolResult) -> String {
    result.content[0]
        .as_text()
        .expect("a text block")
        .text
        .clone()
}

fn input_required(response: CallToolResponse) -> InputRequiredResult {
    match response {
        CallToolResponse::InputRequired(result) => result,
        other => panic!("expected input_required, got {other:?}"),
    }
}

fn keys(result: &InputRequiredResult) -> Vec<String> {
    result
        .input_requests
        .as_ref()
        .map(|r| r.keys().cloned().collect())
        .unwrap_or_default()
}

fn answers(pairs: &[(&str, serde_json::Value)]) -> BTreeMap<String, serde_json::Value> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

#[tokio::test]
async fn the_automatic_loop_runs_the_issue_example_in_three_rounds() {
    let server = Deployer::new(shared_key_config());
    let (plans, deploys) = (server.plans.clone(), server.deploys.clone());
    let client = connect(server, Client::new(ElicitationAction::Accept));
    let result = client.call_tool(deploy_params()).await.expect("completes");
    assert_eq!(
        text(&result),
        "deployed 1.2.3 to 2 hosts, ticket CHG-1, notes fixes"
    );
    assert_eq!(
        plans.load(Ordering::SeqCst),
        1,
        "the plan was computed again in a later round"
    );
    assert_eq!(deploys.load(Ordering::SeqCst), 1);
    let mut asked = client.service().asked.lock().unwrap().clone();
    asked.sort();
    assert_eq!(
        asked,
        ["Change ticket?", "Deploy to production?", "Release notes?"]
    );
}

#[tokio::test]
async fn three_input_rounds_through_the_automatic_loop() {
    let server = Deployer::new(shared_key_config());
    let plans = server.plans.clone();
    let client = connect(server, Client::new(ElicitationAction::Accept));
    let result = client
        .call_tool(CallToolRequestParams::new("checklist"))
        .await
        .expect("completes");
    assert_eq!(text(&result), "ada CHG-1 fixes");
    assert_eq!(plans.load(Ordering::SeqCst), 1);
    assert_eq!(
        *client.service().asked.lock().unwrap(),
        ["Your name?", "Change ticket?", "Release notes?"],
        "one question per round, in order, none asked twice"
    );
}

#[tokio::test]
async fn a_loop_asks_once_per_iteration_through_the_automatic_loop() {
    let server = Deployer::new(shared_key_config());
    let iterations = server.deploys.clone();
    let client = connect(server, Client::new(ElicitationAction::Accept));
    let result = client
        .call_tool(CallToolRequestParams::new("restart"))
        .await
        .expect("completes");
    assert_eq!(text(&result), "web-1,web-2");
    assert_eq!(
        iterations.load(Ordering::SeqCst),
        2,
        "an iteration ran twice"
    );
    assert_eq!(client.service().asked.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn one_round_and_a_batch_of_roots_and_sampling() {
    let client = connect(
        Deployer::new(shared_key_config()),
        Client::new(ElicitationAction::Accept),
    );
    let hello = client
        .call_tool(CallToolRequestParams::new("whoami"))
        .await
        .expect("completes");
    assert_eq!(text(&hello), "hello ada");
    let first = input_required(
        client
            .call_tool_once(CallToolRequestParams::new("inventory"))
            .await
            .unwrap(),
    );
    assert_eq!(
        keys(&first),
        ["s1.roots", "s1.summary"],
        "roots and sampling in one round"
    );
    let inventory = client
        .call_tool(CallToolRequestParams::new("inventory"))
        .await
        .expect("completes");
    assert_eq!(text(&inventory), "2 roots, summary: all green");
}

#[tokio::test]
async fn decline_and_cancel_reach_the_handler() {
    for (action, expected) in [
        (ElicitationAction::Decline, "cancelled: Decline"),
        (ElicitationAction::Cancel, "cancelled: Cancel"),
    ] {
        let server = Deployer::new(shared_key_config());
        let deploys = server.deploys.clone();
        let client = connect(server, Client::new(action));
        let result = client.call_tool(deploy_params()).await.expect("completes");
        assert_eq!(text(&result), expected);
        assert_eq!(deploys.load(Ordering::SeqCst), 0);
    }
}

#[tokio::test]
async fn manual_rounds_missing_answers_and_a_fresh_instance_sharing_only_the_key() {
    let first_server = Deployer::new(shared_key_config());
    let first_plans = first_server.plans.clone();
    let client = connect(first_server, Client::new(ElicitationAction::Accept));
    let round1 = input_required(client.call_tool_once(deploy_params()).await.unwrap());
    assert_eq!(keys(&round1), ["s1.ok"]);
    let state1 = round1.request_state.clone().expect("state");

    // Retried without the answer: asked again (not an error), with a fresh state.
    let again = input_required(
        client
            .call_tool_once(deploy_params().with_request_state(state1.clone()))
            .await
            .unwrap(),
    );
    assert_eq!(keys(&again), ["s1.ok"]);
    assert_ne!(again.request_state.as_deref(), Some(state1.as_str()));
    assert_eq!(first_plans.load(Ordering::SeqCst), 1);

    // Round 2 on a new instance that shares only the key.
    let second_server = Deployer::new(shared_key_config());
    let (plans, deploys) = (second_server.plans.clone(), second_server.deploys.clone());
    let second = connect(second_server, Client::new(ElicitationAction::Accept));
    let round2 = input_required(
        second
            .call_tool_once(
                deploy_params()
                    .with_request_state(state1)
                    .with_input_responses(answers(&[(
                        "s1.ok",
                        json!({ "action": "accept", "content": { "confirm": true } }),
                    )])),
            )
            .await
            .unwrap(),
    );
    assert_eq!(keys(&round2), ["s2.notes", "s2.ticket"]);

    // Round 3 answers only half the batch: the other half is asked again.
    let round3 = input_required(
        second
            .call_tool_once(
                deploy_params()
                    .with_request_state(round2.request_state.clone().unwrap())
                    .with_input_responses(answers(&[(
                        "s2.ticket",
                        json!({ "action": "accept", "content": { "id": "CHG-9" } }),
                    )])),
            )
            .await
            .unwrap(),
    );
    assert_eq!(keys(&round3), ["s2.notes"]);
    let done = second
        .call_tool_once(
            deploy_params()
                .with_request_state(round3.request_state.unwrap())
                .with_input_responses(answers(&[
                    (
                        "s2.notes",
                        json!({ "action": "accept", "content": { "text": "late" } }),
                    ),
                    ("unrelated", json!({ "whatever": true })),
                ])),
        )
        .await
        .unwrap();
    let CallToolResponse::Complete(done) = done else {
        panic!("expected a complete result, got {done:?}");
    };
    assert_eq!(
        text(&done),
        "deployed 1.2.3 to 2 hosts, ticket CHG-9, notes late"
    );
    assert_eq!(
        plans.load(Ordering::SeqCst),
        0,
        "the new instance re-ran round one"
    );
    assert_eq!(deploys.load(Ordering::SeqCst), 1);

    // An answer of the wrong shape is an invalid-params error naming its key.
    let wrong = second
        .call_tool_once(
            deploy_params()
                .with_request_state(round2.request_state.clone().unwrap())
                .with_input_responses(answers(&[
                    (
                        "s2.ticket",
                        json!({ "action": "accept", "content": { "id": 7 } }),
                    ),
                    (
                        "s2.notes",
                        json!({ "action": "accept", "content": { "text": "n" } }),
                    ),
                ])),
        )
        .await
        .unwrap_err();
    match wrong {
        ServiceError::McpError(error) => {
            assert_eq!(error.code.0, -32602);
            assert!(error.message.contains("s2.ticket"), "{}", error.message);
        }
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }

    // A tampered state is rejected with the one generic message.
    let tampered =
        deploy_params().with_request_state(format!("{}x", round2.request_state.unwrap()));
    match client.call_tool_once(tampered).await.unwrap_err() {
        ServiceError::McpError(error) => {
            assert_eq!(error.code.0, -32602);
            assert_eq!(error.message, "Invalid or expired requestState");
        }
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

#[tokio::test]
async fn hand_written_prompt_and_resource_handlers() {
    let client = connect(
        Deployer::new(shared_key_config()),
        Client::new(ElicitationAction::Accept),
    );
    let prompt = client
        .get_prompt(GetPromptRequestParams::new("release"))
        .await
        .expect("completes");
    let message = serde_json::to_value(&prompt.messages[0]).unwrap();
    assert_eq!(message["content"]["text"], "release: fixes");
    let resource = client
        .read_resource(ReadResourceRequestParams::new("deploy://notes"))
        .await
        .expect("completes");
    let contents = serde_json::to_value(&resource.contents[0]).unwrap();
    assert_eq!(contents["text"], "notes: ok");

    let declined = connect(
        Deployer::new(shared_key_config()),
        Client::new(ElicitationAction::Decline),
    );
    let resource = declined
        .read_resource(ReadResourceRequestParams::new("deploy://notes"))
        .await
        .expect("completes");
    let contents = serde_json::to_value(&resource.contents[0]).unwrap();
    assert_eq!(contents["text"], "hidden");
}

/// A server without `#[tool_router]`: a hand-written `call_tool` that dispatches on the tool
/// name in a `match` whose arms ask.
#[derive(Clone)]
struct HandWritten {
    config: MrtrConfig,
}

impl MrtrServer for HandWritten {
    fn mrtr_config(&self) -> &MrtrConfig {
        &self.config
    }
}

impl ServerHandler for HandWritten {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.protocol_version = ProtocolVersion::V_2026_07_28;
        info
    }

    #[mrtr_handler]
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let name = request.name.to_string();
        match name.as_str() {
            "greet" => {
                let who = mrtr.elicit::<Notes>("Your name?").await?;
                let who = who.accepted().map(|n| n.text).unwrap_or_default();
                Ok(text_result(format!("hello {who}")))
            }
            "ship" => {
                let (ok, ticket) = mrtr
                    .join(
                        mrtr.elicit::<Confirm>("Deploy to production?"),
                        ask_ticket(&mrtr),
                    )
                    .await?;
                let ticket = ticket.accepted().map(|t| t.id).unwrap_or_default();
                Ok(text_result(format!(
                    "{name}: {} {ticket}",
                    ok.accepted().is_some()
                )))
            }
            other => Err(McpError::invalid_params(format!("no tool {other}"), None)),
        }
    }
}

#[tokio::test]
async fn a_hand_written_call_tool_with_asks_in_match_arms() {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let client = Client::new(ElicitationAction::Accept);
    let client_params = client.get_info();
    let mut server_params =
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build());
    server_params.protocol_version = ProtocolVersion::V_2026_07_28;
    let server = HandWritten {
        config: shared_key_config(),
    };
    let running = serve_directly::<RoleServer, _, _, _, _>(server, server_io, Some(client_params));
    tokio::spawn(async move {
        let _ = running.waiting().await;
    });
    let client =
        serve_directly::<RoleClient, _, _, _, _>(client, client_io, Some(server_params.into()));
    let greet = client
        .call_tool(CallToolRequestParams::new("greet"))
        .await
        .expect("completes");
    assert_eq!(text(&greet), "hello ada");
    let first = input_required(
        client
            .call_tool_once(CallToolRequestParams::new("ship"))
            .await
            .unwrap(),
    );
    assert_eq!(keys(&first), ["s2.ok", "s2.ticket"]);
    let ship = client
        .call_tool(CallToolRequestParams::new("ship"))
        .await
        .expect("completes");
    assert_eq!(text(&ship), "ship: true CHG-1");
    match client
        .call_tool(CallToolRequestParams::new("nope"))
        .await
        .unwrap_err()
    {
        ServiceError::McpError(error) => assert_eq!(error.message, "no tool nope"),
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}
