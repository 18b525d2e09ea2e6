//! The fixed fixtures served by rmcp 3.x and called by rmcp's own client over an in-process
//! pipe: every handler `--fix` rewrote completes its MRTR rounds (the client's automatic loop
//! answers each `InputRequiredResult` and retries), and answers as the legacy handler would have.

#![allow(deprecated)]

use std::sync::{Arc, Mutex};

use fix_compile::{
    across, across_legacy, handwritten::Docs, helpers::Ops, json_result::Pricing, loops::Fleet,
    moved_context, moved_context_legacy, nonresult_helpers, nonresult_helpers_legacy, peers::Desk,
    progress_helpers, progress_helpers_legacy, relay_gateway, relay_gateway_legacy,
    runtime_schema::Records, stored_peer_gate, stored_peer_gate_legacy, task_local_context,
    task_local_context_legacy, tool_elicit::Deployer, tool_sampling::Assistant,
};
use fix_compile::{
    dispatch_chain, dispatch_chain_legacy, macro_ask, macro_ask_legacy, match_asks_again,
    match_asks_again_legacy, newtype_peer, newtype_peer_legacy, optional_peer,
    optional_peer_legacy, pub_helper, pub_helper_legacy, raw_request, raw_request_legacy,
};
use rmcp::model::*;
use rmcp::service::{serve_directly, RequestContext, RoleClient, RoleServer, RunningService};
use rmcp::{ClientHandler, ErrorData, Service};
use serde_json::json;

/// Answers every question the fixtures ask; `decline` names the messages to decline. `legacy`:
/// a 2025-11-25 session, where requests reach the client mid-call; `no_roots`: a client that
/// declares no roots.
#[derive(Clone, Default)]
struct Client {
    decline: Vec<&'static str>,
    asked: Arc<Mutex<Vec<String>>>,
    legacy: bool,
    no_roots: bool,
    /// Declares sampling with tools.
    sampling_tools: bool,
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
        if self.no_roots {
            caps.roots = None;
        }
        if self.sampling_tools {
            if let Some(sampling) = caps.sampling.as_mut() {
                sampling.tools = Some(Default::default());
            }
        }
        let version = if self.legacy {
            ProtocolVersion::V_2025_11_25
        } else {
            ProtocolVersion::V_2026_07_28
        };
        ClientConfig::new(caps, Implementation::new("fix-compile-client", "0.0.0"))
            .with_protocol_version(version)
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
            "Type the name to confirm" => accept(json!({ "name": "orders" })),
            "Fill in the record" => accept(json!({ "host": "db-1", "owner": "ada", "extra": 1 })),
            m if m.starts_with("Really ") => accept(json!({ "confirm": true })),
            m if m.starts_with("Open the page of ") => ElicitResult::new(ElicitationAction::Accept),
            m if m.starts_with("Restart ") => accept(json!({ "confirm": true })),
            "Archive everything?" | "Reset the desk?" => accept(json!({ "confirm": true })),
            "Which region?" => accept(json!({ "region": "us" })),
            "Archive the project?" => accept(json!({ "sure": true })),
            "Why archive it?" => accept(json!({ "reason": "done" })),
            "Who is there?" => accept(json!({ "name": "bob" })),
            m if m.starts_with("Approve ") => accept(json!({ "decision": "approve" })),
            m if m.starts_with("Name #") => accept(
                json!({ "name": format!("n{}", m.trim_start_matches("Name #").trim_end_matches('?')) }),
            ),
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
        if self.no_roots {
            return Err(ErrorData::method_not_found::<ListRootsRequestMethod>());
        }
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
    server_params.protocol_version = client_params.protocol_version.clone();
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

#[tokio::test]
async fn asking_helpers_complete_their_rounds_for_every_caller() {
    let client = connect(Ops::default(), Client::default());
    let target = json!({ "name": "orders" });
    assert_eq!(call(&client, "drop_table", target.clone()).await, "dropped");
    assert_eq!(
        call(&client, "delete_user", target.clone()).await,
        "deleted"
    );
    assert_eq!(call(&client, "purge", json!({})).await, "purged");
    assert_eq!(
        call(&client, "drop_database", target.clone()).await,
        "dropped"
    );
    assert_eq!(call(&client, "truncate", target.clone()).await, "truncated");
    assert_eq!(
        *client.service().asked.lock().unwrap(),
        [
            "Really drop table orders?",
            "Really delete user orders?",
            "Really purge the cache?",
            "Really drop orders?",
            "Type the name to confirm",
            "Really drop rows of orders?",
        ],
        "one question per round, none asked twice"
    );
    let wrong_name = connect(Ops::default(), Client::default());
    assert_eq!(
        call(&wrong_name, "drop_database", json!({ "name": "users" })).await,
        "kept",
        "the helper's second ask reads the typed name"
    );
}

#[tokio::test]
async fn a_declined_helper_question_reaches_each_caller_as_the_legacy_code_read_it() {
    let declined = Client {
        decline: vec![
            "Really drop table orders?",
            "Really delete user orders?",
            "Really drop rows of orders?",
        ],
        ..Client::default()
    };
    let client = connect(Ops::default(), declined);
    let target = json!({ "name": "orders" });
    assert_eq!(call(&client, "drop_table", target.clone()).await, "kept");
    assert_eq!(call(&client, "delete_user", target.clone()).await, "kept");
    assert_eq!(
        call(&client, "truncate", target).await,
        "kept",
        "through two helpers"
    );
}

#[tokio::test]
async fn a_form_built_at_run_time_is_asked_and_checked_against_its_schema() {
    let client = connect(Records::default(), Client::default());
    let fields = json!({ "fields": ["host", "owner"] });
    assert_eq!(
        call(&client, "register", fields).await,
        r#"{"host":"db-1","owner":"ada"}"#,
        "the accepted record, its undeclared field dropped"
    );
    let declined = Client {
        decline: vec!["Fill in the record"],
        ..Client::default()
    };
    let client = connect(Records::default(), declined);
    assert_eq!(
        call(&client, "register", json!({ "fields": ["host"] })).await,
        "no record"
    );
    assert_eq!(
        call(&client, "review", json!({ "fields": ["a", "b"] })).await,
        "approve",
        "params built by a helper"
    );
    // The caller's question and form, moved out of arguments that only deserialize: the
    // question gets its own `let`, so the arguments are not kept across the ask.
    let client = connect(Records::default(), Client::default());
    let survey = json!({
        "message": "Fill in the record",
        "schema": {
            "type": "object",
            "properties": { "host": { "type": "string" }, "owner": { "type": "string" } },
            "required": ["host"]
        }
    });
    assert_eq!(
        call(&client, "survey", survey).await,
        r#"Accept {"host":"db-1","owner":"ada"}"#
    );
    // A form the client's answer does not fill: the round fails as the typed form's would.
    let client = connect(Records::default(), Client::default());
    let mut params = CallToolRequestParams::new("register");
    params = params.with_arguments(
        json!({ "fields": ["host", "ticket"] })
            .as_object()
            .unwrap()
            .clone(),
    );
    let error = client
        .call_tool(params)
        .await
        .expect_err("a required field is missing");
    assert!(format!("{error:?}").contains("ticket"), "{error:?}");
}

#[tokio::test]
async fn loops_ask_once_per_iteration_across_rounds() {
    let declined = Client {
        decline: vec!["Restart db-1?"],
        ..Client::default()
    };
    let client = connect(Fleet::default(), declined);
    let hosts = json!({ "hosts": ["web-1", "db-1", "web-2"] });
    assert_eq!(call(&client, "restart", hosts).await, "web-1,web-2");
    assert_eq!(call(&client, "collect", json!({})).await, "n1,n2,n3");
    assert_eq!(
        *client.service().asked.lock().unwrap(),
        [
            "Restart web-1?",
            "Restart db-1?",
            "Restart web-2?",
            "Name #1?",
            "Name #2?",
            "Name #3?"
        ],
        "one question per iteration and round, none asked twice"
    );
}

#[tokio::test]
async fn a_peer_parameter_and_a_local_moved_out_of_the_context_complete() {
    let client = connect(Desk::default(), Client::default());
    assert_eq!(call(&client, "archive", json!({})).await, "archived");
    assert_eq!(call(&client, "reset", json!({})).await, "reset");
    let declined = Client {
        decline: vec!["Reset the desk?"],
        ..Client::default()
    };
    let client = connect(Desk::default(), declined);
    assert_eq!(call(&client, "reset", json!({})).await, "kept");
}

#[tokio::test]
async fn a_json_result_keeps_its_structured_content_and_output_schema() {
    let client = connect(Pricing::default(), Client::default());
    let tools = client.list_all_tools().await.expect("tools");
    let quote = tools.iter().find(|t| t.name == "quote").expect("the tool");
    assert!(
        quote.output_schema.is_some(),
        "rmcp's #[tool] still sees `Json<Quote>`"
    );
    let result = client
        .call_tool(CallToolRequestParams::new("quote"))
        .await
        .expect("completes");
    assert_eq!(
        result.structured_content,
        Some(json!({ "region": "us", "price": 12 }))
    );
}

/// The tools of `nonresult_helpers`, each once, and the questions their client saw.
async fn plain_helper_answers<S: Service<RoleServer>>(
    server: S,
    client: Client,
) -> (Vec<String>, Vec<String>) {
    let client = connect(server, client);
    let mut answers = Vec::new();
    for (tool, args) in [
        ("paths", json!({})),
        ("workspace", json!({})),
        ("summary", json!({ "name": "notes" })),
        ("drop_table", json!({ "name": "orders" })),
        ("region", json!({})),
        ("root_uri", json!({})),
    ] {
        answers.push(call(&client, tool, args).await);
    }
    let asked = client.service().asked.lock().unwrap().clone();
    (answers, asked)
}

/// The fixed helpers on a 2026-07-28 client and on a 2025-11-25 session, and the legacy helpers
/// on that session (where their mid-call requests are allowed): the same answers, the same
/// questions asked once each.
async fn assert_plain_helpers_answer(client: Client, answers: [&str; 6], asked: &[&str]) {
    let runs = [
        (
            "fixed, 2026-07-28",
            plain_helper_answers(nonresult_helpers::Workspace::default(), client.clone()).await,
        ),
        (
            "fixed, 2025-11-25",
            plain_helper_answers(
                nonresult_helpers::Workspace::default(),
                Client {
                    legacy: true,
                    asked: Default::default(),
                    ..client.clone()
                },
            )
            .await,
        ),
        (
            "legacy, 2025-11-25",
            plain_helper_answers(
                nonresult_helpers_legacy::Workspace::default(),
                Client {
                    legacy: true,
                    asked: Default::default(),
                    ..client
                },
            )
            .await,
        ),
    ];
    for (run, (got, questions)) in runs {
        assert_eq!(got, answers, "{run}");
        assert_eq!(questions, asked, "{run}");
    }
}

#[tokio::test]
async fn helpers_that_returned_plain_values_answer_as_the_legacy_helpers_did() {
    let asked = [
        "sample: Summarize: notes / ",
        "Really drop orders?",
        "Which region?",
    ];
    assert_plain_helpers_answer(
        Client::default(),
        [
            "/srv/app,/srv/db",
            "app",
            "42",
            "dropped orders",
            "us",
            "file:///srv/app",
        ],
        &asked,
    )
    .await;
    // A declined elicitation reaches the helper's arms as it did: `false`, `Some(Err(..))`.
    let declining = Client {
        decline: vec!["Really drop orders?", "Which region?"],
        ..Client::default()
    };
    assert_plain_helpers_answer(
        declining,
        [
            "/srv/app,/srv/db",
            "app",
            "42",
            "kept",
            "no region chosen",
            "file:///srv/app",
        ],
        &asked,
    )
    .await;
    // No roots declared: the rewritten capability check (`mrtr.supports_roots()`) answers as
    // `peer_info()` did, and the request `first_uri` sends anyway fails (the runtime refuses it
    // before it is sent, the client refused it) into the helper's `else`.
    let no_roots = Client {
        no_roots: true,
        ..Client::default()
    };
    assert_plain_helpers_answer(
        no_roots,
        [
            "no roots",
            "unnamed",
            "42",
            "dropped orders",
            "us",
            "no root",
        ],
        &asked,
    )
    .await;
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

/// The tools of `moved_context`, and what they answer.
/// `calls` made in order on `server` by `client`: each tool's text, and the questions the client
/// was asked along the way.
async fn transcript<S: Service<RoleServer>>(
    server: S,
    client: Client,
    calls: &[(&'static str, serde_json::Value)],
) -> (Vec<String>, Vec<String>) {
    let client = connect(server, client);
    let mut answers = Vec::new();
    for (tool, args) in calls {
        answers.push(call(&client, tool, args.clone()).await);
    }
    let asked = client.service().asked.lock().unwrap().clone();
    (answers, asked)
}

async fn folder_answers<S: Service<RoleServer>>(server: S, client: Client) -> Vec<String> {
    let calls = [
        ("folder", json!({})),
        ("folder", json!({ "folder": "/given" })),
        ("depth", json!({})),
        ("depth", json!({ "folder": "" })),
    ];
    transcript(server, client, &calls).await.0
}

/// A context handed down by value through two helpers, its peer moved into a local: the fixed
/// helpers answer as the legacy ones did, on both eras, with roots and without.
#[tokio::test]
async fn a_context_moved_through_helpers_answers_as_before() {
    for (no_roots, expected) in [
        (
            false,
            [
                "folder /srv/app",
                "folder /given",
                "2",
                "an empty folder name",
            ],
        ),
        (
            true,
            [
                "Could not show the folder: no folder given and the client has no roots",
                "folder /given",
                "no folder given and the client has no roots",
                "an empty folder name",
            ],
        ),
    ] {
        let client = Client {
            no_roots,
            ..Client::default()
        };
        let legacy = Client {
            legacy: true,
            ..client.clone()
        };
        let runs = [
            (
                "fixed, 2026-07-28",
                folder_answers(moved_context::Folders::default(), client).await,
            ),
            (
                "fixed, 2025-11-25",
                folder_answers(moved_context::Folders::default(), legacy.clone()).await,
            ),
            (
                "legacy, 2025-11-25",
                folder_answers(moved_context_legacy::Folders::default(), legacy).await,
            ),
        ];
        for (run, got) in runs {
            assert_eq!(got, expected, "{run}, no_roots={no_roots}");
        }
    }
}

/// The tool of `progress_helpers` on three works, and the questions its client saw.
async fn work_text_answers<S: Service<RoleServer>>(
    server: S,
    client: Client,
) -> (Vec<String>, Vec<String>) {
    let calls = ["", "w1", "w2"].map(|id| ("work_text", json!({ "id": id })));
    transcript(server, client, &calls).await
}

/// Helpers that ask through the tool's `Peer` and send progress notifications through it: after
/// the fix they ask through the `Mrtr` and keep the peer, and the tool (`Result<String, String>`)
/// answers as before on both eras, with the model's help and without.
#[tokio::test]
async fn helpers_keeping_the_peer_for_notifications_answer_as_before() {
    let declines_w1 = Client {
        decline: vec!["Open the page of w1?"],
        ..Client::default()
    };
    let with_model = Client {
        sampling_tools: true,
        ..Client::default()
    };
    for (client, answers, asked) in [
        (
            declines_w1,
            ["no id", "no text for w1", "w2 opened by the user"],
            vec!["Open the page of w1?", "Open the page of w2?"],
        ),
        (
            with_model,
            ["no id", "w1 from 42", "w2 from 42"],
            vec![
                "sample: Find a link to w1 / ",
                "sample: Find a link to w2 / ",
            ],
        ),
    ] {
        let legacy = Client {
            legacy: true,
            asked: Default::default(),
            ..client.clone()
        };
        let runs = [
            (
                "fixed, 2026-07-28",
                work_text_answers(progress_helpers::Library::default(), client.clone()).await,
            ),
            (
                "fixed, 2025-11-25",
                work_text_answers(progress_helpers::Library::default(), legacy.clone()).await,
            ),
            (
                "legacy, 2025-11-25",
                work_text_answers(
                    progress_helpers_legacy::Library::default(),
                    Client {
                        asked: Default::default(),
                        ..legacy
                    },
                )
                .await,
            ),
        ];
        for (run, (got, questions)) in runs {
            assert_eq!(got, answers, "{run}");
            assert_eq!(questions, asked, "{run}");
        }
    }
}

/// Each tool of both servers once, the last question of each declined.
async fn across_answers<P: Service<RoleServer>, R: Service<RoleServer>>(
    projects: P,
    releases: R,
    legacy: bool,
) -> (Vec<String>, Vec<String>) {
    let client = Client {
        legacy,
        decline: vec!["Really yank 0.9?"],
        ..Client::default()
    };
    let asked = client.asked.clone();
    let p = connect(projects, client.clone());
    let r = connect(releases, client);
    let answers = vec![
        call(&p, "rename_project", json!({ "name": "atlas" })).await,
        call(&r, "publish", json!({ "name": "1.0" })).await,
        call(&r, "yank", json!({ "name": "0.9" })).await,
    ];
    let questions = asked.lock().unwrap().clone();
    (answers, questions)
}

/// A helper of one file asked from tools of two files: rewritten together, the fixed servers
/// answer as the legacy ones did, on both eras.
#[tokio::test]
async fn a_helper_with_callers_in_another_file_answers_as_before() {
    let expected = (
        vec![
            "renamed to atlas".to_string(),
            "published 1.0".to_string(),
            "kept".to_string(),
        ],
        vec![
            "Really rename to atlas?".to_string(),
            "Really publish 1.0?".to_string(),
            "Really yank 0.9?".to_string(),
        ],
    );
    let runs = [
        (
            "fixed, 2026-07-28",
            across_answers(
                across::across_helpers::Projects::default(),
                across::across_tools::Releases::default(),
                false,
            )
            .await,
        ),
        (
            "fixed, 2025-11-25",
            across_answers(
                across::across_helpers::Projects::default(),
                across::across_tools::Releases::default(),
                true,
            )
            .await,
        ),
        (
            "legacy, 2025-11-25",
            across_answers(
                across_legacy::across_helpers::Projects::default(),
                across_legacy::across_tools::Releases::default(),
                true,
            )
            .await,
        ),
    ];
    for (run, got) in runs {
        assert_eq!(got, expected, "{run}");
    }
}

/// A helper that read the request's context from a task-local, reached through a public `*_impl`
/// function: after the fix both take the `Mrtr`, and the tool answers as before on both eras.
#[tokio::test]
async fn a_context_read_from_a_task_local_answers_as_before() {
    async fn answers<S: Service<RoleServer>>(
        server: S,
        legacy: bool,
    ) -> (Vec<String>, Vec<String>) {
        let calls = [
            ("run_query", json!({ "query": "SELECT 1", "question": "" })),
            ("run_query", json!({ "question": "all users" })),
        ];
        let client = Client {
            legacy,
            ..Client::default()
        };
        transcript(server, client, &calls).await
    }
    let expected = (
        vec!["ran SELECT 1".to_string(), "ran 42".to_string()],
        vec!["sample: Query for: all users / ".to_string()],
    );
    for (run, got) in [
        (
            "fixed, 2026-07-28",
            answers(task_local_context::Queries::default(), false).await,
        ),
        (
            "fixed, 2025-11-25",
            answers(task_local_context::Queries::default(), true).await,
        ),
        (
            "legacy, 2025-11-25",
            answers(task_local_context_legacy::Queries::default(), true).await,
        ),
    ] {
        assert_eq!(got, expected, "{run}");
    }
}

/// A gate behind a `&dyn Confirmer` holding a stored peer, made a deferred ask: on 2026-07-28 the
/// round ends with an `InputRequiredResult` and the retry runs `call_tool` again up to the gate;
/// the effect behind it runs once, and a decline stops it, as the legacy gate did mid-call.
#[tokio::test]
async fn a_gate_behind_a_trait_object_answers_as_before_and_its_effect_runs_once() {
    async fn answers<S: Service<RoleServer>>(
        server: S,
        legacy: bool,
    ) -> (Vec<String>, Vec<String>) {
        let calls = [
            ("stop", json!({ "name": "web-1" })),
            ("stop", json!({ "name": "db-2" })),
            ("stop", json!({})),
        ];
        let client = Client {
            legacy,
            decline: vec!["Really stop db-2?"],
            ..Client::default()
        };
        transcript(server, client, &calls).await
    }
    let expected = (
        vec![
            "stopped web-1".to_string(),
            "declined".to_string(),
            "no container named".to_string(),
        ],
        vec![
            "Really stop web-1?".to_string(),
            "Really stop db-2?".to_string(),
        ],
    );
    let fixed_new = stored_peer_gate::Gatekeeper::default();
    let fixed_old = stored_peer_gate::Gatekeeper::default();
    let legacy = stored_peer_gate_legacy::Gatekeeper::default();
    let stopped = [fixed_new.containers.clone(), fixed_old.containers.clone()];
    let legacy_stopped = legacy.containers.clone();
    for (run, got) in [
        ("fixed, 2026-07-28", answers(fixed_new, false).await),
        ("fixed, 2025-11-25", answers(fixed_old, true).await),
        ("legacy, 2025-11-25", answers(legacy, true).await),
    ] {
        assert_eq!(got, expected, "{run}");
    }
    for containers in stopped {
        assert_eq!(
            containers.stopped.load(std::sync::atomic::Ordering::SeqCst),
            1
        );
    }
    assert_eq!(
        legacy_stopped
            .stopped
            .load(std::sync::atomic::Ordering::SeqCst),
        1
    );
}

/// The upstream behind `relay_gateway`: legacy code that asks its client mid-call. `purge` reads
/// the roots and asks before it purges the first one; `summarize` samples.
#[derive(Clone, Default)]
struct Upstream {
    runs: Arc<std::sync::atomic::AtomicUsize>,
    purged: Arc<std::sync::atomic::AtomicUsize>,
}

impl rmcp::ServerHandler for Upstream {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        use std::sync::atomic::Ordering::SeqCst;
        self.runs.fetch_add(1, SeqCst);
        let failed = |e: &dyn std::fmt::Display| {
            Ok(CallToolResult::error(vec![ContentBlock::text(format!("failed: {e}"))]).into())
        };
        if request.name == "summarize" {
            let params = CreateMessageRequestParams::new(
                vec![SamplingMessage::user_text("Summarize the log")],
                64,
            );
            return match context.peer.create_message(params).await {
                Ok(answer) => {
                    let text = answer.message.content.first().and_then(|b| b.as_text());
                    let text = text.map(|t| t.text.clone()).unwrap_or_default();
                    Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
                }
                Err(e) => failed(&e),
            };
        }
        let roots = match context.peer.list_roots().await {
            Ok(roots) => roots.roots,
            Err(e) => return failed(&e),
        };
        let Some(first) = roots.first().map(|r| r.uri.to_string()) else {
            return failed(&"no roots");
        };
        let schema = ElicitationSchema::builder()
            .required_bool("confirm")
            .build()
            .expect("schema");
        let asked = context
            .peer
            .create_elicitation(ElicitRequestParams::FormElicitationParams {
                meta: None,
                message: format!("Really purge {first}?"),
                requested_schema: schema,
            })
            .await;
        match asked {
            Ok(answer) if answer.action == ElicitationAction::Accept => {
                self.purged.fetch_add(1, SeqCst);
                Ok(
                    CallToolResult::success(vec![ContentBlock::text(format!("purged {first}"))])
                        .into(),
                )
            }
            Ok(answer) => failed(&format!("{:?}", answer.action)),
            Err(e) => failed(&e),
        }
    }
}

/// A dial that serves `upstream` in process, one connection per call.
fn dial(upstream: Upstream) -> relay_gateway::Dial {
    Arc::new(move || {
        let (gateway_io, upstream_io) = tokio::io::duplex(64 * 1024);
        let upstream = upstream.clone();
        tokio::spawn(async move {
            if let Ok(running) = rmcp::serve_server(upstream, upstream_io).await {
                let _ = running.waiting().await;
            }
        });
        gateway_io
    })
}

/// A gateway's relay made deferred asks: a 2026-07-28 agent gets the upstream's roots request,
/// its question and its sampling request in `InputRequiredResult` rounds (the upstream's tool
/// runs again up to each one), a 2025-11-25 agent gets them mid-call, and both read what the
/// legacy gateway answered its 2025 agent; the purge behind the question runs once.
#[tokio::test]
async fn a_gateway_relay_answers_as_before_on_both_eras_and_the_upstream_purges_once() {
    let calls = [("purge", json!({})), ("summarize", json!({}))];
    let expected = (
        vec!["purged file:///srv/app".to_string(), "42".to_string()],
        vec![
            "Really purge file:///srv/app?".to_string(),
            "sample: Summarize the log / ".to_string(),
        ],
    );
    let runs = |legacy: bool| {
        let upstream = Upstream::default();
        let client = Client {
            legacy,
            ..Client::default()
        };
        (upstream, client)
    };
    for (run, legacy, fixed) in [
        ("fixed, 2026-07-28", false, true),
        ("fixed, 2025-11-25", true, true),
        ("legacy, 2025-11-25", true, false),
    ] {
        let (upstream, client) = runs(legacy);
        let got = if fixed {
            let gateway = relay_gateway::Gateway {
                dial: dial(upstream.clone()),
            };
            transcript(gateway, client, &calls).await
        } else {
            let gateway = relay_gateway_legacy::Gateway {
                dial: dial(upstream.clone()),
            };
            transcript(gateway, client, &calls).await
        };
        assert_eq!(got, expected, "{run}");
        let purged = upstream.purged.load(std::sync::atomic::Ordering::SeqCst);
        assert_eq!(purged, 1, "{run}");
        // Per call: once mid-call; on 2026-07-28 once per round (roots, then the question,
        // then done; the sampling call: asked, then done).
        let upstream_runs = upstream.runs.load(std::sync::atomic::Ordering::SeqCst);
        assert_eq!(upstream_runs, if legacy { 2 } else { 5 }, "{run}");
    }
}

/// Runs `calls` on a fixed server on both eras and on its legacy original (2025-11-25), and
/// checks that all three answer alike and ask the client the same questions.
async fn same_as_legacy<F, L>(
    fixed: impl Fn() -> F,
    legacy: L,
    calls: &[(&'static str, serde_json::Value)],
    client: Client,
) where
    F: Service<RoleServer>,
    L: Service<RoleServer>,
{
    let with = |legacy: bool| Client {
        legacy,
        asked: Arc::default(),
        ..client.clone()
    };
    let new = transcript(fixed(), with(false), calls).await;
    let old = transcript(fixed(), with(true), calls).await;
    let before = transcript(legacy, with(true), calls).await;
    assert_eq!(new, before, "fixed, 2026-07-28 vs legacy");
    assert_eq!(old, before, "fixed, 2025-11-25 vs legacy");
}

/// A `pub` gate shared by two modules' service functions, deferred at its call site.
#[tokio::test]
async fn a_pub_helper_called_from_two_modules_answers_as_before() {
    let calls = [
        ("cancel_order", json!({ "id": "o-1" })),
        ("remove_user", json!({ "id": "ann" })),
    ];
    same_as_legacy(
        pub_helper::Admin::default,
        pub_helper_legacy::Admin,
        &calls,
        Client::default(),
    )
    .await;
}

/// A helper taking `Option<&Peer>`: with a peer it asks for roots, without one it falls back.
#[tokio::test]
async fn an_optional_peer_answers_as_before() {
    let calls = [("index", json!({})), ("index_default", json!({}))];
    same_as_legacy(
        optional_peer::Indexer::default,
        optional_peer_legacy::Indexer,
        &calls,
        Client::default(),
    )
    .await;
}

/// A newtype holding an optional peer, whose method asks.
#[tokio::test]
async fn a_newtype_holding_the_peer_answers_as_before() {
    let calls = [
        ("spend", json!({ "amount": 5 })),
        ("spend", json!({ "amount": 500 })),
    ];
    same_as_legacy(
        newtype_peer::Wallet::default,
        newtype_peer_legacy::Wallet,
        &calls,
        Client::default(),
    )
    .await;
}

/// A hand-written `call_tool` reaching the sampling helper through its own dispatch chain.
#[tokio::test]
async fn a_dispatch_chain_answers_as_before() {
    let calls = [
        ("summarize", json!({ "text": "a long note" })),
        ("title", json!({ "text": "notes" })),
    ];
    same_as_legacy(
        dispatch_chain::Notes::default,
        dispatch_chain_legacy::Notes,
        &calls,
        Client::default(),
    )
    .await;
}

/// An ask inside the server's own macro invocation.
#[tokio::test]
async fn an_ask_in_a_macro_body_answers_as_before() {
    same_as_legacy(
        macro_ask::Greeter::default,
        macro_ask_legacy::Greeter,
        &[("greet", json!({}))],
        Client::default(),
    )
    .await;
}

/// A raw `ServerRequest::ListRootsRequest` sent with `send_request`.
#[tokio::test]
async fn a_raw_server_request_answers_as_before() {
    same_as_legacy(
        raw_request::Explorer::default,
        raw_request_legacy::Explorer,
        &[("count_roots", json!({}))],
        Client::default(),
    )
    .await;
}

/// A `match` on an answer whose arm asks again: the compiled form would keep the old
/// `Result<_, ElicitationError>` across the second ask, so the fix takes the deferred form.
#[tokio::test]
async fn a_match_whose_arm_asks_again_answers_as_before() {
    for decline in [
        vec![],
        vec!["Archive the project?"],
        vec!["Why archive it?"],
    ] {
        let client = Client {
            decline,
            ..Client::default()
        };
        same_as_legacy(
            match_asks_again::Archive::default,
            match_asks_again_legacy::Archive,
            &[("archive", json!({}))],
            client,
        )
        .await;
    }
}
