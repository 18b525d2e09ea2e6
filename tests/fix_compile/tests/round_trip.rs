//! The fixed fixtures served by rmcp 3.x and called by rmcp's own client over an in-process
//! pipe: every handler `--fix` rewrote completes its MRTR rounds (the client's automatic loop
//! answers each `InputRequiredResult` and retries), and answers as the legacy handler would have.

#![allow(deprecated)]

use std::sync::{Arc, Mutex};

use fix_compile::{handwritten::Docs, tool_elicit::Deployer, tool_sampling::Assistant};
use rmcp::model::*;
use rmcp::service::{serve_directly, RequestContext, RoleClient, RoleServer, RunningService};
use rmcp::{ClientHandler, ErrorData, Service};
use serde_json::json;

/// Answers every question the fixtures ask; `decline` names the messages to decline.
#[derive(Clone, Default)]
struct Client {
    decline: Vec<&'static str>,
    asked: Arc<Mutex<Vec<String>>>,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let mut caps = ClientCapabilities::builder()
            .enable_elicitation()
            .enable_sampling()
            .enable_roots()
            .build();
        caps.elicitation = Some(
            ElicitationCapability::new()
                .with_form(Default::default())
                .with_url(Default::default()),
        );
        ClientConfig::new(caps, Implementation::new("fix-compile-client", "0.0.0"))
            .with_protocol_version(ProtocolVersion::V_2026_07_28)
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let message = match &request {
            ElicitRequestParams::FormElicitationParams { message, .. } => message.clone(),
            ElicitRequestParams::UrlElicitationParams { message, .. } => message.clone(),
            other => panic!("an elicitation the fixtures do not send: {other:?}"),
        };
        self.asked.lock().unwrap().push(message.clone());
        if self.decline.contains(&message.as_str()) {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        }
        let accept = |content| ElicitResult::new(ElicitationAction::Accept).with_content(content);
        Ok(match message.as_str() {
            "Deploy to production?"
            | "Quick, yes or no?"
            | "Show the notes?"
            | "Delete every note?" => accept(json!({ "confirm": true })),
            "Change ticket?" => accept(json!({ "id": "CHG-1" })),
            "Release notes?" => accept(json!({ "text": "fixes" })),
            "Your name?" => accept(json!({ "name": "ada" })),
            "Pick a document" => accept(json!({ "id": "doc-7" })),
            "Sign in to continue" => ElicitResult::new(ElicitationAction::Accept),
            _ => ElicitResult::new(ElicitationAction::Cancel),
        })
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        let asked = params.messages[0]
            .content
            .first()
            .and_then(|b| b.as_text())
            .map(|t| t.text.clone());
        self.asked.lock().unwrap().push(format!(
            "sample: {} / {}",
            asked.unwrap_or_default(),
            params.system_prompt.unwrap_or_default()
        ));
        Ok(
            CreateMessageResult::new(SamplingMessage::assistant_text("42"), "test-model".into())
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

fn connect<S: Service<RoleServer>>(
    server: S,
    client: Client,
) -> RunningService<RoleClient, Client> {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let client_params = ClientHandler::get_info(&client);
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

fn text(result: &CallToolResult) -> String {
    result.content[0]
        .as_text()
        .expect("a text block")
        .text
        .clone()
}

async fn call(
    client: &RunningService<RoleClient, Client>,
    name: &'static str,
    args: serde_json::Value,
) -> String {
    let mut params = CallToolRequestParams::new(name);
    if let Some(obj) = args.as_object() {
        params = params.with_arguments(obj.clone());
    }
    text(&client.call_tool(params).await.expect("the tool completes"))
}

#[tokio::test]
async fn the_rewritten_deploy_tool_runs_three_rounds() {
    let client = connect(Deployer::default(), Client::default());
    let out = call(&client, "deploy_production", json!({ "version": "1.2.3" })).await;
    assert_eq!(out, "deployed 1.2.3 to 2 hosts (ticket CHG-1): fixes");
    assert_eq!(
        *client.service().asked.lock().unwrap(),
        ["Deploy to production?", "Change ticket?", "Release notes?"]
    );
}

#[tokio::test]
async fn decline_takes_the_arm_that_handled_user_declined() {
    let declined = Client {
        decline: vec!["Deploy to production?", "Your name?"],
        ..Client::default()
    };
    let client = connect(Deployer::default(), declined);
    assert_eq!(
        call(&client, "deploy_production", json!({ "version": "1" })).await,
        "cancelled"
    );
    assert_eq!(
        call(&client, "greet", json!({})).await,
        "Hello, whoever you are"
    );
}

#[tokio::test]
async fn the_bound_then_matched_and_the_adapted_shapes_complete() {
    let client = connect(Deployer::default(), Client::default());
    assert_eq!(call(&client, "greet", json!({})).await, "Hello, ada");
    assert!(call(&client, "quick", json!({})).await.starts_with("yes ("));
}

#[tokio::test]
async fn let_else_and_roots_through_a_peer_parameter_complete() {
    let client = connect(Deployer::default(), Client::default());
    assert_eq!(call(&client, "ticket", json!({})).await, "ticket CHG-1");
    assert_eq!(call(&client, "count_roots", json!({})).await, "2 roots");
    let declined = Client {
        decline: vec!["Change ticket?"],
        ..Client::default()
    };
    let client = connect(Deployer::default(), declined);
    assert_eq!(call(&client, "ticket", json!({})).await, "no ticket");
}

#[tokio::test]
async fn the_hand_written_handlers_complete_their_rounds() {
    let client = connect(Docs, Client::default());
    assert_eq!(call(&client, "pick", json!({})).await, "doc-7");
    assert_eq!(call(&client, "login", json!({})).await, "signed in");
    let prompt = client
        .get_prompt(GetPromptRequestParams::new("layout"))
        .await
        .expect("the prompt completes");
    let text = prompt.messages[0]
        .content
        .as_text()
        .expect("a text message");
    assert_eq!(text.text, "layout: 2 roots");
    let resource = client
        .read_resource(ReadResourceRequestParams::new("notes://today"))
        .await
        .expect("the resource completes");
    let ResourceContents::TextResourceContents { text, .. } = &resource.contents[0] else {
        panic!("a text resource: {resource:?}");
    };
    assert_eq!(text, "notes: ok");
    let asked = client.service().asked.lock().unwrap().clone();
    assert_eq!(
        asked,
        ["Pick a document", "Sign in to continue", "Show the notes?"]
    );
}

#[tokio::test]
async fn the_rewritten_sampling_tool_completes_through_the_runtime_conversions() {
    let client = connect(Assistant::default(), Client::default());
    let out = call(&client, "ask", json!({ "question": "the answer?" })).await;
    assert_eq!(out, "42 (test-model)");
    assert_eq!(call(&client, "colour", json!({})).await, "by test-model");
    assert_eq!(
        *client.service().asked.lock().unwrap(),
        [
            "sample: the answer? / You are a helpful assistant.",
            "sample: A colour? / "
        ]
    );
}

/// The rmcp 1.x / 2.x servers of `../upgrade_fixtures` after one `--fix --unsafe-fixes
/// --upgrade-rmcp` run: renamed, their `read_resource` reshaped for rmcp 3.x, their asks on MRTR.
async fn drive_upgraded<S: Service<RoleServer>>(server: S) {
    let client = connect(server, Client::default());
    assert_eq!(
        call(&client, "add_note", json!({ "title": "a", "body": "x" })).await,
        "added a"
    );
    let mut empty = CallToolRequestParams::new("add_note");
    empty = empty.with_arguments(
        json!({ "title": "", "body": "" })
            .as_object()
            .unwrap()
            .clone(),
    );
    assert!(client.call_tool(empty).await.is_err(), "invalid params");
    assert_eq!(call(&client, "count", json!({})).await, r#"{"count":1}"#);
    let listed = client.list_resources(None).await.expect("resources listed");
    assert_eq!(listed.resources[0].uri, "note://a");
    // The reshaped `read_resource`: its body's result and its early `return Err` both arrive.
    let read = client
        .read_resource(ReadResourceRequestParams::new("note://a"))
        .await
        .expect("the note is read");
    let ResourceContents::TextResourceContents { text, .. } = &read.contents[0] else {
        panic!("a text resource: {read:?}");
    };
    assert_eq!(text, "x");
    let missing = client
        .read_resource(ReadResourceRequestParams::new("note://b"))
        .await;
    assert!(
        format!("{missing:?}").contains("no such note"),
        "{missing:?}"
    );
    let prompt = client
        .get_prompt(
            GetPromptRequestParams::new("summary")
                .with_arguments(json!({ "topic": "rust" }).as_object().unwrap().clone()),
        )
        .await
        .expect("the prompt completes");
    assert_eq!(
        prompt.messages[0].content.as_text().expect("text").text,
        "Summarize my notes about rust"
    );
    assert!(call(&client, "summarize", json!({})).await.contains("42"));
    assert_eq!(
        call(&client, "roots", json!({})).await,
        "file:///srv/app,file:///srv/db"
    );
    assert_eq!(call(&client, "clear", json!({})).await, "done");
    assert_eq!(call(&client, "count", json!({})).await, r#"{"count":0}"#);
    assert_eq!(
        *client.service().asked.lock().unwrap(),
        [
            "sample: a: x / Summarize these notes.",
            "Delete every note?"
        ]
    );
}

#[tokio::test]
async fn the_upgraded_rmcp1_server_answers_over_the_wire() {
    drive_upgraded(fix_compile::upgraded_rmcp1::Notes::new()).await;
}

#[tokio::test]
async fn the_upgraded_rmcp2_server_answers_over_the_wire() {
    drive_upgraded(fix_compile::upgraded_rmcp2::Notes::new()).await;
}
