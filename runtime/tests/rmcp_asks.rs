//! Every ask kind (URL elicitation, sampling, roots) in one batch through the real rmcp client's
//! automatic loop: the runtime's requests must parse as rmcp's typed requests, and rmcp's typed
//! answers must decode into the runtime's answer types.

// Sampling and roots are deprecated in 2026-07-28 (earliest removal a year later) but still valid asks.
#![allow(deprecated)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use mrtr::{
    Ask, InputRequired, Mrtr, MrtrConfig, MrtrError, MrtrServer, Outcome, SamplingRequest,
    StateBody, UrlElicitation,
};
use rmcp::model::*;
use rmcp::service::{serve_directly, RequestContext, RoleClient, RoleServer};
use rmcp::{ClientHandler, ServerHandler};
use serde_json::{json, Value};

#[derive(Clone)]
struct Assistant {
    config: MrtrConfig,
}

impl MrtrServer for Assistant {
    fn mrtr_config(&self) -> &MrtrConfig {
        &self.config
    }
}

fn entry<T>(key: &str, ask: &Ask<T>) -> Result<(String, Value), MrtrError> {
    ask.check()?;
    Ok((key.to_string(), ask.input_request()))
}

/// Round 1 asks for consent (URL mode), a completion and the roots in one batch; round 2 uses
/// all three answers.
async fn summarize(mrtr: &Mrtr) -> Result<Outcome<String>, MrtrError> {
    let consent = mrtr.elicit_url("Authorize the repository", "https://example.invalid/oauth");
    let sample =
        mrtr.sample(SamplingRequest::new("Summarize the release", 200).system_prompt("Be brief"));
    let roots = mrtr.list_roots();
    if mrtr.open_state_for("summarize")?.is_some() {
        let answer = |key: &str| mrtr.answer(key).cloned().unwrap_or(Value::Null);
        let consent = consent.decode("consent", &answer("consent"))?;
        let sample = sample.decode("sample", &answer("sample"))?;
        let roots = roots.decode("roots", &answer("roots"))?;
        return Ok(Outcome::Complete(format!(
            "consent={} model={} text={} roots={}",
            consent == UrlElicitation::Accept,
            sample.model,
            sample.first_text().unwrap_or("-"),
            roots
                .iter()
                .map(|r| r.uri.as_str())
                .collect::<Vec<_>>()
                .join(",")
        )));
    }
    let mut requests = BTreeMap::new();
    for (key, request) in [
        entry("consent", &consent)?,
        entry("sample", &sample)?,
        entry("roots", &roots)?,
    ] {
        requests.insert(key, request);
    }
    for ask_capability in [
        consent.required_capability(),
        sample.required_capability(),
        roots.required_capability(),
    ] {
        mrtr.check_capability(&ask_capability)?;
    }
    let state = mrtr.seal_state(&StateBody {
        flow_id: "f".repeat(32),
        step: 1,
        fingerprint: "summarize".into(),
        data: Default::default(),
    })?;
    Ok(Outcome::InputRequired(InputRequired::new(
        requests,
        Some(state),
    )?))
}

impl ServerHandler for Assistant {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.protocol_version = ProtocolVersion::V_2026_07_28;
        info
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let mrtr = Mrtr::from_call_tool(self, &request, &context);
        Ok(match summarize(&mrtr).await? {
            Outcome::Complete(text) => {
                CallToolResult::success(vec![ContentBlock::text(text)]).into()
            }
            Outcome::InputRequired(result) => {
                CallToolResponse::InputRequired(mrtr::rmcp::to_rmcp_input_required(result))
            }
        })
    }
}

#[derive(Clone, Default)]
struct FullClient {
    seen: Arc<Mutex<Vec<String>>>,
}

impl ClientHandler for FullClient {
    fn get_info(&self) -> ClientConfig {
        let capabilities: ClientCapabilities = serde_json::from_value(json!({
            "elicitation": {"form": {}, "url": {}},
            "sampling": {},
            "roots": {}
        }))
        .unwrap();
        ClientConfig::new(capabilities, Implementation::new("full", "0"))
            .with_protocol_version(ProtocolVersion::V_2026_07_28)
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        if let ElicitRequestParams::UrlElicitationParams { url, .. } = request {
            self.seen.lock().unwrap().push(format!("url:{url}"));
            return Ok(ElicitResult::new(ElicitationAction::Accept));
        }
        Ok(ElicitResult::new(ElicitationAction::Decline))
    }

    async fn create_message(
        &self,
        request: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        self.seen.lock().unwrap().push(format!(
            "sample:{}:{}",
            request.max_tokens,
            request.system_prompt.unwrap_or_default()
        ));
        Ok(CreateMessageResult::new(
            SamplingMessage::assistant_text("Fixes and speedups."),
            "test-model".into(),
        )
        .with_stop_reason(CreateMessageResult::STOP_REASON_END_TURN))
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        self.seen.lock().unwrap().push("roots".into());
        Ok(ListRootsResult::new(vec![
            Root::new("file:///repo"),
            Root::new("file:///docs"),
        ]))
    }
}

#[tokio::test]
async fn url_sampling_and_roots_round_trip_through_rmcp() {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let client = FullClient::default();
    let server = Assistant {
        config: mrtr::testing::test_config("assistant"),
    };
    let running =
        serve_directly::<RoleServer, _, _, _, _>(server, server_io, Some(client.get_info()));
    tokio::spawn(async move {
        let _ = running.waiting().await;
    });
    let mut server_params =
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build());
    server_params.protocol_version = ProtocolVersion::V_2026_07_28;
    let seen = client.seen.clone();
    let client =
        serve_directly::<RoleClient, _, _, _, _>(client, client_io, Some(server_params.into()));

    let result = client
        .call_tool(CallToolRequestParams::new("summarize"))
        .await
        .unwrap();
    assert_eq!(
        result.content[0].as_text().unwrap().text,
        "consent=true model=test-model text=Fixes and speedups. roots=file:///repo,file:///docs"
    );
    let mut seen = seen.lock().unwrap().clone();
    seen.sort();
    assert_eq!(
        seen,
        vec![
            "roots",
            "sample:200:Be brief",
            "url:https://example.invalid/oauth"
        ]
    );
}
