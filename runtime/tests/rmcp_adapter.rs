//! The rmcp adapter against the real rmcp 3.x client and server, in process over a duplex pipe,
//! with hand-written handlers (no macro) that use `Mrtr` and the runtime's sealing directly.

mod common;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use mrtr::{
    Elicitation, InputRequired, KeyRing, Mrtr, MrtrConfig, MrtrError, MrtrServer, Outcome,
    SecretKey, StateBody,
};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::*;
use rmcp::service::{
    serve_directly, RequestContext, RoleClient, RoleServer, RunningService, ServiceError,
};
use rmcp::{tool, tool_handler, tool_router, ClientHandler, ServerHandler};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

const KEY: [u8; 32] = [0x42; 32];

fn shared_key_config() -> MrtrConfig {
    MrtrConfig::new(
        "deployer",
        KeyRing::single(SecretKey::new("k1", KEY.to_vec()).unwrap()),
    )
}

#[derive(Clone)]
struct Deployer {
    config: MrtrConfig,
    effects: Arc<AtomicUsize>,
    calls: Arc<AtomicUsize>,
}

impl Deployer {
    fn new(config: MrtrConfig) -> Deployer {
        Deployer {
            config,
            effects: Arc::new(AtomicUsize::new(0)),
            calls: Arc::new(AtomicUsize::new(0)),
        }
    }
}

impl MrtrServer for Deployer {
    fn mrtr_config(&self) -> &MrtrConfig {
        &self.config
    }
}

/// One form ask, then complete with its answer: for prompts and resources.
async fn one_ask(mrtr: &Mrtr) -> Result<Outcome<String>, MrtrError> {
    let ask = mrtr.elicit::<common::Notes>("Release notes?").key("notes");
    if let Some(state) = mrtr.open_state_for("one-ask")? {
        if let Some(raw) = mrtr.answer("notes") {
            return Ok(Outcome::Complete(match ask.decode("notes", raw)? {
                Elicitation::Accept(notes) => format!("notes: {}", notes.text),
                _ => "no notes".into(),
            }));
        }
        let _ = state;
    }
    mrtr.check_capability(&ask.required_capability())?;
    let state = mrtr.seal_state(&StateBody {
        flow_id: "0".repeat(32),
        step: 1,
        fingerprint: "one-ask".into(),
        data: Default::default(),
    })?;
    let mut requests = BTreeMap::new();
    requests.insert("notes".to_string(), ask.input_request());
    Ok(Outcome::InputRequired(InputRequired::new(
        requests,
        Some(state),
    )?))
}

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

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let mrtr = Mrtr::from_call_tool(self, &request, &context);
        let outcome = common::deploy(mrtr, self.effects.clone()).await?;
        Ok(outcome
            .map(|text| CallToolResult::success(vec![ContentBlock::text(text)]))
            .into_response())
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let mrtr = Mrtr::from_get_prompt(self, &request, &context);
        Ok(one_ask(&mrtr)
            .await?
            .map(|text| GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)]))
            .into_response())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let mrtr = Mrtr::from_read_resource(self, &request, &context);
        Ok(one_ask(&mrtr)
            .await?
            .map(|text| {
                ReadResourceResult::new(vec![ResourceContents::text(text, request.uri.clone())])
            })
            .into_response())
    }
}

/// A client that answers elicitations automatically (rmcp's MRTR loop calls it).
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
            ClientCapabilities::builder().enable_elicitation().build(),
            Implementation::new("mrtr-adapter-test", "0.0.0"),
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
        Ok(match message.as_str() {
            "Deploy to production?" => match self.confirm.clone() {
                ElicitationAction::Accept => ElicitResult::new(ElicitationAction::Accept)
                    .with_content(json!({"confirm": true})),
                other => ElicitResult::new(other),
            },
            "Change ticket?" => {
                ElicitResult::new(ElicitationAction::Accept).with_content(json!({"id": "T-1"}))
            }
            "Release notes?" => {
                ElicitResult::new(ElicitationAction::Accept).with_content(json!({"text": "ok"}))
            }
            _ => ElicitResult::new(ElicitationAction::Cancel),
        })
    }
}

/// Connects `client` to `server` over an in-memory pipe, both speaking 2026-07-28.
fn connect<S: ServerHandler>(server: S, client: Client) -> RunningService<RoleClient, Client> {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let client_params = client.get_info();
    let mut server_params =
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build());
    server_params.protocol_version = ProtocolVersion::V_2026_07_28;
    let running = serve_directly::<RoleServer, _, _, _, _>(server, server_io, Some(client_params));
    tokio::spawn(async move {
        let _ = running.waiting().await;
    });
    serve_directly::<RoleClient, _, _, _, _>(client, client_io, Some(server_params.into()))
}

fn deploy_params() -> CallToolRequestParams {
    let arguments = json!({"version": "1.2.3"}).as_object().unwrap().clone();
    CallToolRequestParams::new("deploy").with_arguments(arguments)
}

fn text(result: &CallToolResult) -> String {
    result.content[0].as_text().unwrap().text.clone()
}

fn assert_invalid_state(error: ServiceError) {
    match error {
        ServiceError::McpError(error) => {
            assert_eq!(error.code.0, -32602);
            assert_eq!(error.message, "Invalid or expired requestState");
            assert_eq!(error.data, None);
        }
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

fn input_required(response: CallToolResponse) -> InputRequiredResult {
    match response {
        CallToolResponse::InputRequired(result) => result,
        other => panic!("expected input_required, got {other:?}"),
    }
}

#[tokio::test]
async fn the_automatic_client_loop_drives_three_rounds() {
    let server = Deployer::new(shared_key_config());
    let (calls, effects) = (server.calls.clone(), server.effects.clone());
    let client = connect(server, Client::new(ElicitationAction::Accept));
    let result = client.call_tool(deploy_params()).await.unwrap();
    assert_eq!(text(&result), "deployed plan-1.2.3 ticket=T-1 notes=ok");
    assert_eq!(calls.load(Ordering::SeqCst), 3);
    assert_eq!(
        effects.load(Ordering::SeqCst),
        1,
        "round-one work ran again"
    );
    let mut asked = client.service().asked.lock().unwrap().clone();
    asked.sort();
    assert_eq!(
        asked,
        vec!["Change ticket?", "Deploy to production?", "Release notes?"]
    );
}

#[tokio::test]
async fn decline_and_cancel_complete_without_error() {
    for (action, expected) in [
        (ElicitationAction::Decline, "cancelled: declined"),
        (ElicitationAction::Cancel, "cancelled: cancel"),
    ] {
        let server = Deployer::new(shared_key_config());
        let calls = server.calls.clone();
        let client = connect(server, Client::new(action));
        let result = client.call_tool(deploy_params()).await.unwrap();
        assert_eq!(text(&result), expected);
        assert_eq!(calls.load(Ordering::SeqCst), 2);
    }
}

#[tokio::test]
async fn manual_rounds_see_sealed_state_and_reject_tampering() {
    let client = connect(
        Deployer::new(shared_key_config()),
        Client::new(ElicitationAction::Accept),
    );
    let first = input_required(client.call_tool_once(deploy_params()).await.unwrap());
    let requests = first.input_requests.as_ref().unwrap();
    assert_eq!(requests.keys().collect::<Vec<_>>(), vec!["confirm"]);
    let wire = serde_json::to_value(&requests["confirm"]).unwrap();
    assert_eq!(wire["method"], "elicitation/create");
    assert_eq!(
        wire["params"]["requestedSchema"]["properties"]["confirm"]["type"],
        "boolean"
    );
    let state = first.request_state.clone().unwrap();
    assert!(state.starts_with("m2.k1."), "{state}");

    for tampered in [
        format!("{state}-TAMPERED"),
        state[..state.len() - 4].to_string(),
        state.replace("m2.k1.", "m2.k2."),
    ] {
        let retry = deploy_params()
            .with_request_state(tampered)
            .with_input_responses(BTreeMap::from([(
                "confirm".to_string(),
                json!({"action": "accept", "content": {"confirm": true}}),
            )]));
        assert_invalid_state(client.call_tool_once(retry).await.unwrap_err());
    }

    // Same state, other arguments: the digest no longer matches.
    let other_args = json!({"version": "6.6.6"}).as_object().unwrap().clone();
    let retry = CallToolRequestParams::new("deploy")
        .with_arguments(other_args)
        .with_request_state(state.clone());
    assert_invalid_state(client.call_tool_once(retry).await.unwrap_err());

    // No answer yet: asked again, with a fresh state.
    let again = input_required(
        client
            .call_tool_once(deploy_params().with_request_state(state.clone()))
            .await
            .unwrap(),
    );
    assert!(again.input_requests.unwrap().contains_key("confirm"));
    assert_ne!(again.request_state.unwrap(), state);
}

#[tokio::test]
async fn a_fresh_server_sharing_only_the_key_resumes_the_flow() {
    let first_server = Deployer::new(shared_key_config());
    let first = connect(first_server, Client::new(ElicitationAction::Accept));
    let state = input_required(first.call_tool_once(deploy_params()).await.unwrap())
        .request_state
        .unwrap();

    let second_server = Deployer::new(shared_key_config());
    let effects = second_server.effects.clone();
    let second = connect(second_server, Client::new(ElicitationAction::Accept));
    let retry = deploy_params()
        .with_request_state(state.clone())
        .with_input_responses(BTreeMap::from([(
            "confirm".to_string(),
            json!({"action": "accept", "content": {"confirm": true}}),
        )]));
    let batch = input_required(second.call_tool_once(retry.clone()).await.unwrap());
    let keys: Vec<_> = batch.input_requests.unwrap().into_keys().collect();
    assert_eq!(keys, vec!["notes", "ticket"]);
    assert_eq!(
        effects.load(Ordering::SeqCst),
        0,
        "the resumed instance re-ran round one"
    );

    // An instance with its own (ephemeral) key cannot open it.
    let stranger = connect(
        Deployer::new(MrtrConfig::ephemeral("deployer")),
        Client::new(ElicitationAction::Accept),
    );
    assert_invalid_state(stranger.call_tool_once(retry).await.unwrap_err());
}

#[tokio::test]
async fn prompts_and_resources_use_the_same_loop() {
    let client = connect(
        Deployer::new(shared_key_config()),
        Client::new(ElicitationAction::Accept),
    );
    let prompt = client
        .get_prompt(GetPromptRequestParams::new("release"))
        .await
        .unwrap();
    let message = serde_json::to_value(&prompt.messages[0]).unwrap();
    assert_eq!(message["content"]["text"], "notes: ok");
    let resource = client
        .read_resource(ReadResourceRequestParams::new("deploy://notes"))
        .await
        .unwrap();
    let contents = serde_json::to_value(&resource.contents[0]).unwrap();
    assert_eq!(contents["text"], "notes: ok");

    // A prompt's state does not open on a resource read.
    let ResourceOrPrompt(state) = prompt_state(&client).await;
    let read = ReadResourceRequestParams::new("release").with_request_state(state);
    match client.read_resource_once(read).await.unwrap_err() {
        ServiceError::McpError(error) => {
            assert_eq!(error.message, "Invalid or expired requestState")
        }
        other => panic!("{other:?}"),
    }
}

struct ResourceOrPrompt(String);

async fn prompt_state(client: &RunningService<RoleClient, Client>) -> ResourceOrPrompt {
    match client
        .get_prompt_once(GetPromptRequestParams::new("release"))
        .await
        .unwrap()
    {
        GetPromptResponse::InputRequired(result) => ResourceOrPrompt(result.request_state.unwrap()),
        other => panic!("{other:?}"),
    }
}

// ---- `mrtr: Mrtr` as a #[tool] extractor ----

#[derive(Clone)]
struct Greeter {
    config: MrtrConfig,
}

impl MrtrServer for Greeter {
    fn mrtr_config(&self) -> &MrtrConfig {
        &self.config
    }
}

#[derive(Deserialize, JsonSchema)]
struct GreetArgs {
    greeting: String,
}

#[tool_router]
impl Greeter {
    #[tool(description = "Greets after asking for notes")]
    async fn greet(
        &self,
        mrtr: Mrtr,
        Parameters(args): Parameters<GreetArgs>,
    ) -> Result<CallToolResponse, ErrorData> {
        Ok(one_ask(&mrtr)
            .await?
            .map(|text| {
                CallToolResult::success(vec![ContentBlock::text(format!(
                    "{} ({text})",
                    args.greeting
                ))])
            })
            .into_response())
    }
}

#[tool_handler]
impl ServerHandler for Greeter {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.protocol_version = ProtocolVersion::V_2026_07_28;
        info
    }
}

#[tokio::test]
async fn the_tool_extractor_binds_name_arguments_and_capabilities() {
    let greeter = Greeter {
        config: shared_key_config(),
    };
    let client = connect(greeter, Client::new(ElicitationAction::Accept));
    let args = json!({"greeting": "hello"}).as_object().unwrap().clone();
    let params = CallToolRequestParams::new("greet").with_arguments(args);
    let result = client.call_tool(params.clone()).await.unwrap();
    assert_eq!(text(&result), "hello (notes: ok)");

    let state = match client.call_tool_once(params).await.unwrap() {
        CallToolResponse::InputRequired(result) => result.request_state.unwrap(),
        other => panic!("{other:?}"),
    };
    let changed = json!({"greeting": "bye"}).as_object().unwrap().clone();
    let retry = CallToolRequestParams::new("greet")
        .with_arguments(changed)
        .with_request_state(state);
    assert_invalid_state(client.call_tool_once(retry).await.unwrap_err());
}

#[tokio::test]
async fn a_client_without_elicitation_gets_missing_capability() {
    #[derive(Clone)]
    struct Bare;
    impl ClientHandler for Bare {
        fn get_info(&self) -> ClientConfig {
            ClientConfig::new(
                ClientCapabilities::default(),
                Implementation::new("bare", "0"),
            )
            .with_protocol_version(ProtocolVersion::V_2026_07_28)
        }
    }
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let mut server_params =
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build());
    server_params.protocol_version = ProtocolVersion::V_2026_07_28;
    let running = serve_directly::<RoleServer, _, _, _, _>(
        Deployer::new(shared_key_config()),
        server_io,
        Some(Bare.get_info()),
    );
    tokio::spawn(async move {
        let _ = running.waiting().await;
    });
    let client =
        serve_directly::<RoleClient, _, _, _, _>(Bare, client_io, Some(server_params.into()));
    match client.call_tool_once(deploy_params()).await.unwrap_err() {
        ServiceError::McpError(error) => {
            assert_eq!(error.code.0, -32021);
            assert_eq!(
                error.data,
                Some(json!({"requiredCapabilities": {"elicitation": {}}}))
            );
        }
        other => panic!("{other:?}"),
    }
    let _: Value = Value::Null;
}

/// Raw JSON-RPC over the pipe, for what the typed client cannot send (a non-string state).
async fn raw_call(params: Value) -> Value {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let running = serve_directly::<RoleServer, _, _, _, _>(
        mrtr::rmcp::StrictParams(Deployer::new(shared_key_config())),
        server_io,
        Some(Client::new(ElicitationAction::Accept).get_info()),
    );
    tokio::spawn(async move {
        let _ = running.waiting().await;
    });
    let (read, mut write) = tokio::io::split(client_io);
    let request = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params});
    write
        .write_all(format!("{request}\n").as_bytes())
        .await
        .unwrap();
    let mut lines = BufReader::new(read).lines();
    loop {
        let line = lines.next_line().await.unwrap().expect("a response");
        let message: Value = serde_json::from_str(&line).unwrap();
        if message["id"] == 7 {
            return message;
        }
    }
}

/// rmcp alone answers these -32601 (the params fail to parse, the request falls through to a
/// custom request); `StrictParams` answers -32602 with the one invalid-state message.
#[tokio::test]
async fn a_non_string_state_on_the_wire_is_rejected() {
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"}
    });
    let ok =
        raw_call(json!({"_meta": meta, "name": "deploy", "arguments": {"version": "1"}})).await;
    assert_eq!(ok["result"]["resultType"], "input_required", "{ok}");
    for state in [json!(12345), json!({"s": 1}), json!(["m2.k1.x"])] {
        let response = raw_call(json!({
            "_meta": meta, "name": "deploy", "arguments": {"version": "1"}, "requestState": state
        }))
        .await;
        assert_eq!(response["error"]["code"], -32602, "{response}");
        assert_eq!(
            response["error"]["message"],
            "Invalid or expired requestState"
        );
    }
    // Other unparsable params are invalid params too, not "method not found".
    let response = raw_call(json!({"_meta": meta, "name": 42})).await;
    assert_eq!(response["error"]["code"], -32602, "{response}");
}

/// Plays an auth layer: attaches the principal the way a transport would.
struct AsUser<S> {
    inner: S,
    user: &'static str,
    /// In an HTTP request's extensions (streamable HTTP) instead of the request's own.
    via_http: bool,
}

impl<S: rmcp::Service<RoleServer>> rmcp::Service<RoleServer> for AsUser<S> {
    async fn handle_request(
        &self,
        request: ClientRequest,
        mut context: RequestContext<RoleServer>,
    ) -> Result<ServerResult, ErrorData> {
        let principal = mrtr::Principal(self.user.to_string());
        if self.via_http {
            let (parts, ()) = http::Request::builder()
                .extension(principal)
                .body(())
                .unwrap()
                .into_parts();
            context.extensions.insert(parts);
        } else {
            context.extensions.insert(principal);
        }
        self.inner.handle_request(request, context).await
    }

    async fn handle_notification(
        &self,
        notification: ClientNotification,
        context: rmcp::service::NotificationContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.inner.handle_notification(notification, context).await
    }

    fn get_info(&self) -> ServerConfig {
        self.inner.get_info()
    }
}

fn connect_as(user: &'static str, via_http: bool) -> RunningService<RoleClient, Client> {
    let server = AsUser {
        inner: Deployer::new(shared_key_config()),
        user,
        via_http,
    };
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let client = Client::new(ElicitationAction::Accept);
    let running =
        serve_directly::<RoleServer, _, _, _, _>(server, server_io, Some(client.get_info()));
    tokio::spawn(async move {
        let _ = running.waiting().await;
    });
    let mut server_params =
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build());
    server_params.protocol_version = ProtocolVersion::V_2026_07_28;
    serve_directly::<RoleClient, _, _, _, _>(client, client_io, Some(server_params.into()))
}

#[tokio::test]
async fn states_are_bound_to_the_transport_principal() {
    for via_http in [false, true] {
        let alice = connect_as("alice", via_http);
        let state = input_required(alice.call_tool_once(deploy_params()).await.unwrap())
            .request_state
            .unwrap();
        let retry = deploy_params()
            .with_request_state(state)
            .with_input_responses(BTreeMap::from([(
                "confirm".to_string(),
                json!({"action": "accept", "content": {"confirm": true}}),
            )]));
        let bob = connect_as("bob", via_http);
        assert_invalid_state(bob.call_tool_once(retry.clone()).await.unwrap_err());
        let anonymous = connect(
            Deployer::new(shared_key_config()),
            Client::new(ElicitationAction::Accept),
        );
        assert_invalid_state(anonymous.call_tool_once(retry.clone()).await.unwrap_err());
        let alice_again = connect_as("alice", via_http);
        let next = input_required(alice_again.call_tool_once(retry).await.unwrap());
        assert!(next.input_requests.unwrap().contains_key("ticket"));
    }
}
