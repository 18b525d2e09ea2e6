//! One server, both eras: clients that negotiate 2025-11-25 or 2025-06-18 at `initialize` (the
//! Python `mcp` SDK 1.x, and rmcp 3.x's client told to offer 2025-11-25) drive the same
//! `#[mrtr_handler]` tools a 2026-07-28 client drives through `InputRequiredResult` rounds. They
//! get real elicitation, sampling and roots requests mid-call, and the same final result.
//! (Sampling and roots are deprecated in rmcp, SEP-2577, but 2025-era clients still use them.)
#![allow(deprecated)]

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientConfig,
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    ElicitationAction, Implementation, ListRootsResult, ProtocolVersion, Root, SamplingMessage,
};
use rmcp::service::{RequestContext, RoleClient, RunningService, ServiceError};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt, ErrorData};
use serde_json::{json, Value};
use wire_tests::python::MCP_1;
use wire_tests::WireServer;

const TOUR: &str = "test_input_tour";
const TOUR_RESULT: &str = "Ferris likes orange; the model said \"Hi Ferris\"; roots: file:///srv";

/// Runs the Python 1.x client with `plan` (see `py/legacy_client.py`) and returns its report.
async fn python_client(python: &Path, plan: Value) -> Value {
    wire_tests::python::legacy_client(python, &plan).await
}

fn tour_plan(url: &str, protocol: &str, answers: Value) -> Value {
    json!({
        "transport": "http", "url": url, "protocol": protocol, "tool": TOUR,
        "answers": answers, "sample_text": "Hi Ferris", "roots": ["file:///srv"],
    })
}

/// The requests the client saw, as `method[:field]`; the batched round's two requests travel
/// concurrently, so their order within the round is not fixed: they are sorted.
fn request_sequence(report: &Value) -> Vec<String> {
    let mut sequence: Vec<String> = report["requests"]
        .as_array()
        .expect("requests")
        .iter()
        .map(|r| match r["field"].as_str() {
            Some(field) => format!("{}:{field}", r["method"].as_str().unwrap()),
            None => r["method"].as_str().unwrap().to_string(),
        })
        .collect();
    if sequence.len() >= 3 {
        sequence[1..3].sort();
    }
    sequence
}

fn tour_sequence() -> Vec<String> {
    [
        "elicitation/create:name",
        "roots/list",
        "sampling/createMessage",
        "elicitation/create:color",
    ]
    .map(String::from)
    .to_vec()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_1x_client_completes_the_three_round_tour_on_both_2025_versions() {
    let Some(python) = MCP_1.find("python_1x_client_completes_the_tour").await else {
        return;
    };
    let server = WireServer::start_unrecorded().await.expect("server starts");
    for protocol in ["2025-11-25", "2025-06-18"] {
        let answers = json!({ "name": "Ferris", "color": "orange" });
        let report = python_client(&python, tour_plan(&server.url, protocol, answers)).await;
        assert_eq!(report["protocol"], protocol, "{report:#}");
        assert_eq!(report["result"]["text"], json!([TOUR_RESULT]), "{report:#}");
        assert_eq!(report["result"]["isError"], false);
        assert_eq!(request_sequence(&report), tour_sequence(), "{report:#}");
        let sampling = report["requests"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["method"] == "sampling/createMessage")
            .expect("a sampling request");
        assert_eq!(
            sampling["prompt"], "Greet Ferris.",
            "built from round 1's answer"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_1x_client_decline_and_cancel_reach_the_handler_as_values() {
    let Some(python) = MCP_1.find("python_1x_client_decline_and_cancel").await else {
        return;
    };
    let server = WireServer::start_unrecorded().await.expect("server starts");

    let declined = json!({ "name": "decline" });
    let report = python_client(&python, tour_plan(&server.url, "2025-11-25", declined)).await;
    assert_eq!(
        report["result"]["text"],
        json!(["No name given: the tour ends here."]),
        "{report:#}"
    );
    assert_eq!(request_sequence(&report), ["elicitation/create:name"]);

    let cancelled = json!({ "name": "Ferris", "color": "cancel" });
    let report = python_client(&python, tour_plan(&server.url, "2025-11-25", cancelled)).await;
    assert_eq!(
        report["result"]["text"],
        json!(["Ferris likes (cancelled); the model said \"Hi Ferris\"; roots: file:///srv"]),
        "{report:#}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_1x_client_without_sampling_gets_minus_32021_and_with_it_completes() {
    let Some(python) = MCP_1.find("python_1x_client_capabilities").await else {
        return;
    };
    let server = WireServer::start_unrecorded().await.expect("server starts");
    let plan = |capabilities: Value| {
        json!({
            "transport": "http", "url": server.url, "tool": "test_missing_capability",
            "capabilities": capabilities, "sample_text": "Paris",
        })
    };
    let report = python_client(&python, plan(json!(["elicitation", "roots"]))).await;
    assert_eq!(report["error"]["code"], -32021, "{report:#}");
    assert_eq!(
        report["error"]["data"],
        json!({ "requiredCapabilities": { "sampling": {} } })
    );
    assert_eq!(
        report["requests"],
        json!([]),
        "nothing was sent to the client"
    );

    let report = python_client(&python, plan(json!(["sampling"]))).await;
    assert_eq!(
        report["result"]["text"],
        json!(["The model said: Paris"]),
        "{report:#}"
    );
    assert_eq!(request_sequence(&report), ["sampling/createMessage"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_1x_client_gets_a_hand_written_prompt_handler_asking_in_process() {
    let Some(python) = MCP_1.find("python_1x_client_prompt").await else {
        return;
    };
    let server = WireServer::start_unrecorded().await.expect("server starts");
    let plan = json!({
        "transport": "http", "url": server.url,
        "prompt": "test_input_required_result_prompt",
        "answers": { "context": "a sunny day" },
    });
    let report = python_client(&python, plan).await;
    assert_eq!(
        report["result"]["text"],
        json!(["Answer with this context: a sunny day"]),
        "{report:#}"
    );
    assert_eq!(request_sequence(&report), ["elicitation/create:context"]);
}

/// An rmcp 3.x client answering from a script, recording the requests it is sent.
#[derive(Clone)]
struct ScriptedUser {
    protocol: ProtocolVersion,
    color: &'static str,
    seen: Arc<Mutex<Vec<String>>>,
}

impl ScriptedUser {
    fn new(protocol: ProtocolVersion, color: &'static str) -> Self {
        ScriptedUser {
            protocol,
            color,
            seen: Arc::default(),
        }
    }
}

impl ClientHandler for ScriptedUser {
    fn get_info(&self) -> ClientConfig {
        let capabilities: ClientCapabilities =
            serde_json::from_value(json!({ "elicitation": {}, "sampling": {}, "roots": {} }))
                .expect("capabilities literal");
        let mut config = ClientConfig::new(
            capabilities,
            Implementation::new("wire-legacy-client", "1.0.0"),
        );
        config.protocol_version = self.protocol.clone();
        config
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let ElicitRequestParams::FormElicitationParams {
            requested_schema, ..
        } = request
        else {
            return Err(ErrorData::invalid_params("only forms are scripted", None));
        };
        let schema = serde_json::to_value(&requested_schema).unwrap_or(Value::Null);
        let field = schema["properties"]
            .as_object()
            .and_then(|properties| properties.keys().next().cloned())
            .unwrap_or_default();
        self.seen
            .lock()
            .unwrap()
            .push(format!("elicitation/create:{field}"));
        Ok(match (field.as_str(), self.color) {
            ("name", _) => ElicitResult::new(ElicitationAction::Accept)
                .with_content(json!({ "name": "Ferris" })),
            ("color", "decline") => ElicitResult::new(ElicitationAction::Decline),
            ("color", color) => {
                ElicitResult::new(ElicitationAction::Accept).with_content(json!({ "color": color }))
            }
            (other, _) => {
                return Err(ErrorData::invalid_params(
                    format!("unscripted field {other:?}"),
                    None,
                ))
            }
        })
    }

    async fn create_message(
        &self,
        _params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        self.seen
            .lock()
            .unwrap()
            .push("sampling/createMessage".into());
        Ok(CreateMessageResult::new(
            SamplingMessage::assistant_text("Hi Ferris"),
            "scripted-model".into(),
        ))
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        self.seen.lock().unwrap().push("roots/list".into());
        Ok(ListRootsResult::new(vec![Root::new("file:///srv")]))
    }
}

async fn connect(
    url: &str,
    user: ScriptedUser,
    lifecycle: ClientLifecycleMode,
) -> RunningService<RoleClient, ScriptedUser> {
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(url.to_string()),
    );
    user.serve_with_lifecycle(transport, lifecycle)
        .await
        .expect("the client connects")
}

fn texts(response: CallToolResponse) -> Vec<String> {
    let CallToolResponse::Complete(result) = response else {
        panic!("a pre-2026 session must never get an InputRequiredResult: {response:?}");
    };
    result
        .content
        .iter()
        .filter_map(|block| block.as_text().map(|text| text.text.clone()))
        .collect()
}

fn sorted_batch(mut seen: Vec<String>) -> Vec<String> {
    if seen.len() >= 3 {
        seen[1..3].sort();
    }
    seen
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rmcp_client_on_2025_11_25_and_on_2026_07_28_get_the_same_result() {
    let server = WireServer::start_unrecorded().await.expect("server starts");

    let old = ScriptedUser::new(ProtocolVersion::V_2025_11_25, "orange");
    let client = connect(&server.url, old.clone(), ClientLifecycleMode::Initialize).await;
    assert_eq!(
        client.peer_info().map(|info| info.protocol_version.clone()),
        Some(ProtocolVersion::V_2025_11_25)
    );
    // One request, one complete answer: `call_tool_once` does not retry.
    let legacy = client
        .call_tool_once(CallToolRequestParams::new(TOUR))
        .await
        .expect("the call completes");
    assert_eq!(texts(legacy), [TOUR_RESULT]);
    assert_eq!(
        sorted_batch(old.seen.lock().unwrap().clone()),
        tour_sequence()
    );
    let _ = client.cancel().await;

    let new = ScriptedUser::new(ProtocolVersion::V_2026_07_28, "orange");
    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    let client = connect(&server.url, new.clone(), lifecycle).await;
    let first = client
        .call_tool_once(CallToolRequestParams::new(TOUR))
        .await
        .expect("round 1");
    assert!(
        matches!(first, CallToolResponse::InputRequired(_)),
        "a 2026-07-28 request gets rounds: {first:?}"
    );
    let result = client
        .call_tool(CallToolRequestParams::new(TOUR))
        .await
        .expect("the MRTR loop completes");
    let mrtr: Vec<String> = result
        .content
        .iter()
        .filter_map(|block| block.as_text().map(|text| text.text.clone()))
        .collect();
    assert_eq!(mrtr, [TOUR_RESULT], "both eras end with the same result");
    let _ = client.cancel().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rmcp_client_on_2025_11_25_declines_and_sees_the_handler_go_on() {
    let server = WireServer::start_unrecorded().await.expect("server starts");
    let user = ScriptedUser::new(ProtocolVersion::V_2025_11_25, "decline");
    let client = connect(&server.url, user.clone(), ClientLifecycleMode::Initialize).await;
    let response = client
        .call_tool_once(CallToolRequestParams::new(TOUR))
        .await
        .expect("the call completes");
    assert_eq!(
        texts(response),
        ["Ferris likes (declined); the model said \"Hi Ferris\"; roots: file:///srv"]
    );
    let _ = client.cancel().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_rmcp_client_without_sampling_gets_minus_32021_on_2025_11_25() {
    #[derive(Clone)]
    struct FormsOnly;
    impl ClientHandler for FormsOnly {
        fn get_info(&self) -> ClientConfig {
            let capabilities: ClientCapabilities =
                serde_json::from_value(json!({ "elicitation": {} })).expect("literal");
            let mut config =
                ClientConfig::new(capabilities, Implementation::new("forms-only", "1.0.0"));
            config.protocol_version = ProtocolVersion::V_2025_11_25;
            config
        }
    }
    let server = WireServer::start_unrecorded().await.expect("server starts");
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(server.url.clone()),
    );
    let client = FormsOnly
        .serve_with_lifecycle(transport, ClientLifecycleMode::Initialize)
        .await
        .expect("connects");
    match client
        .call_tool_once(CallToolRequestParams::new("test_missing_capability"))
        .await
    {
        Err(ServiceError::McpError(error)) => {
            assert_eq!(error.code.0, -32021, "{error:?}");
            assert_eq!(
                error.data,
                Some(json!({ "requiredCapabilities": { "sampling": {} } }))
            );
        }
        other => panic!("expected -32021, got {other:?}"),
    }
    let _ = client.cancel().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2025_client_that_answers_too_late_gets_a_timeout_error_naming_the_ask() {
    #[derive(Clone)]
    struct SlowUser;
    impl ClientHandler for SlowUser {
        fn get_info(&self) -> ClientConfig {
            let capabilities: ClientCapabilities =
                serde_json::from_value(json!({ "elicitation": {} })).expect("literal");
            let mut config =
                ClientConfig::new(capabilities, Implementation::new("slow-user", "1.0.0"));
            config.protocol_version = ProtocolVersion::V_2025_11_25;
            config
        }

        async fn create_elicitation(
            &self,
            _request: ElicitRequestParams,
            _context: RequestContext<RoleClient>,
        ) -> Result<ElicitResult, ErrorData> {
            tokio::time::sleep(Duration::from_secs(3)).await;
            Ok(ElicitResult::new(ElicitationAction::Decline))
        }
    }
    let config = mrtr::MrtrConfig::ephemeral("wire-timeout")
        .with_ask_timeout(Some(Duration::from_millis(300)));
    let server = WireServer::start_unrecorded_with(
        conformance_server::ConformanceServer::with_config(config),
    )
    .await
    .expect("server starts");
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(server.url.clone()),
    );
    let client = SlowUser
        .serve_with_lifecycle(transport, ClientLifecycleMode::Initialize)
        .await
        .expect("connects");
    let call = CallToolRequestParams::new("test_input_required_result_elicitation");
    match client.call_tool_once(call).await {
        Err(ServiceError::McpError(error)) => {
            assert_eq!(error.code.0, -32603, "{error:?}");
            assert_eq!(
                error.message,
                "The client did not answer elicitation/create (ask `user_name`) in time"
            );
        }
        other => panic!("expected the ask to time out, got {other:?}"),
    }
    let _ = client.cancel().await;
}
