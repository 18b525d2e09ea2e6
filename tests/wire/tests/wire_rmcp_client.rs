//! The rmcp 3.x client, with its own automatic MRTR loop, drives the conformance server's
//! two-round `#[mrtr_handler]` tool to completion over streamable HTTP. The server-side recorder
//! shows what really crossed the wire.

use std::sync::{Arc, Mutex};

use rmcp::{
    model::{
        CallToolRequestParams, ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult,
        ElicitationAction, Implementation, ProtocolVersion,
    },
    service::{RequestContext, RoleClient},
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rmcp_client_drives_two_rounds_to_completion() {
    let server = WireServer::start().await.expect("server starts");
    let user = ScriptedUser::default();
    let client = user
        .clone()
        .serve_with_lifecycle(
            StreamableHttpClientTransport::from_config(
                StreamableHttpClientTransportConfig::with_uri(server.url.clone()),
            ),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("the client discovers the server");

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
