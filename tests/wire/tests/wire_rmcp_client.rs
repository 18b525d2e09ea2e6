//! The rmcp 3.x client, with its own automatic MRTR loop, drives the conformance server's
//! two-round `#[mrtr_handler]` tool to completion over streamable HTTP. The server-side recorder
//! shows what really crossed the wire.

use std::sync::{Arc, Mutex};

use rmcp::{
    model::{
        CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientConfig,
        ElicitRequestParams, ElicitResult, ElicitationAction, Implementation, InputResponses,
        ProtocolVersion,
    },
    service::{RequestContext, RoleClient, RunningService, ServiceError},
    transport::{
        streamable_http_client::StreamableHttpClientTransportConfig, StreamableHttpClientTransport,
    },
    ClientHandler, ClientLifecycleMode, ClientServiceExt, ErrorData,
};
use serde_json::{json, Value};
use wire_tests::{assert_retry_chain, WireServer};

const TOOL: &str = "test_input_required_result_multi_round";

/// Answers each form from a script, keyed by the field it asks for, and logs the questions.
#[derive(Clone, Default)]
struct ScriptedUser {
    asked: Arc<Mutex<Vec<String>>>,
}

impl ClientHandler for ScriptedUser {
    fn get_info(&self) -> ClientConfig {
        let capabilities: ClientCapabilities =
            serde_json::from_value(json!({"elicitation": {}})).expect("capabilities literal");
        ClientConfig::new(
            capabilities,
            Implementation::new("wire-rmcp-client", "1.0.0"),
        )
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } = request
        else {
            return Err(ErrorData::invalid_params(
                "only form elicitation is scripted",
                None,
            ));
        };
        let schema = serde_json::to_value(&requested_schema).unwrap_or(Value::Null);
        let field = schema["properties"]
            .as_object()
            .and_then(|properties| properties.keys().next().cloned())
            .unwrap_or_default();
        self.asked.lock().unwrap().push(field.clone());
        let content = match field.as_str() {
            "name" => json!({"name": "Ferris"}),
            "color" => json!({"color": "orange"}),
            other => {
                return Err(ErrorData::invalid_params(
                    format!("unscripted field {other:?} ({message})"),
                    None,
                ))
            }
        };
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(content))
    }
}

async fn connect(url: &str, user: ScriptedUser) -> RunningService<RoleClient, ScriptedUser> {
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(url.to_string()),
    );
    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    user.serve_with_lifecycle(transport, lifecycle)
        .await
        .expect("the client discovers the server")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rmcp_client_drives_two_rounds_to_completion() {
    let server = WireServer::start().await.expect("server starts");
    let user = ScriptedUser::default();
    let client = connect(&server.url, user.clone()).await;

    let result = client
        .call_tool(CallToolRequestParams::new(TOOL))
        .await
        .expect("the automatic MRTR loop completes the call");
    let text: Vec<String> = result
        .content
        .iter()
        .filter_map(|block| block.as_text().map(|text| text.text.clone()))
        .collect();
    assert_eq!(text, vec!["Ferris likes orange.".to_string()]);
    assert_ne!(result.is_error, Some(true));
    assert_eq!(
        *user.asked.lock().unwrap(),
        vec!["name", "color"],
        "one question per round"
    );

    let calls = server.recorder.calls("tools/call", TOOL);
    assert_retry_chain(&calls, 2);
    let _ = client.cancel().await;
}

/// One character changed in the middle of the state: same length, same alphabet.
fn forge(state: &str) -> String {
    let middle = state.len() / 2;
    let replacement = if &state[middle..=middle] == "A" {
        "B"
    } else {
        "A"
    };
    format!("{}{replacement}{}", &state[..middle], &state[middle + 1..])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rmcp_client_gets_invalid_params_for_a_tampered_state() {
    let server = WireServer::start().await.expect("server starts");
    let client = connect(&server.url, ScriptedUser::default()).await;
    let CallToolResponse::InputRequired(first) = client
        .call_tool_once(CallToolRequestParams::new(TOOL))
        .await
        .expect("first round")
    else {
        panic!("the first round asks for input");
    };
    let state = first.request_state.expect("the first round seals a state");
    let key = first
        .input_requests
        .expect("the first round asks")
        .into_keys()
        .next()
        .unwrap();
    let answer: InputResponses = serde_json::from_value(
        json!({ key: {"action": "accept", "content": {"name": "Mallory"}} }),
    )
    .expect("input responses literal");
    let retry = |request_state: String| {
        let mut params = CallToolRequestParams::new(TOOL);
        params.input_responses = Some(answer.clone());
        params.request_state = Some(request_state);
        client.call_tool_once(params)
    };

    let forged = forge(&state);
    assert_ne!(forged, state);
    match retry(forged.clone()).await {
        Err(ServiceError::McpError(error)) => {
            assert_eq!(error.code.0, -32602, "{error:?}");
            assert_eq!(error.message, "Invalid or expired requestState");
        }
        other => panic!("a tampered state must be refused with -32602, got {other:?}"),
    }
    // The same answer under the genuine state moves on: the refusal was about the state alone.
    let genuine = retry(state.clone())
        .await
        .expect("the genuine state is accepted");
    assert!(
        matches!(genuine, CallToolResponse::InputRequired(_)),
        "round 2 asks for the colour"
    );

    let calls = server.recorder.calls("tools/call", TOOL);
    assert_eq!(calls.len(), 3, "{calls:#?}");
    assert_eq!(
        calls[1].sent_state().and_then(Value::as_str),
        Some(forged.as_str())
    );
    assert_eq!(calls[1].error_code(), Some(-32602));
    assert_eq!(
        calls[2].sent_state().and_then(Value::as_str),
        Some(state.as_str())
    );
    let ids: std::collections::BTreeSet<String> = calls
        .iter()
        .map(|call| format!("{:?}", call.id()))
        .collect();
    assert_eq!(ids.len(), 3, "every request has its own JSON-RPC id");
    let _ = client.cancel().await;
}
