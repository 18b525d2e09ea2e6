//! Asking helpers end to end: a confirmation helper method shared by three destructive
//! `#[tool] #[mrtr_handler]` tools of a real rmcp 3.x server, driven by the real rmcp 3.x client
//! over `tokio::io::duplex` (its automatic MRTR loop and its manual `call_tool_once`).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use mrtr::{
    mrtr_handler, mrtr_helper, Elicitation, KeyRing, Mrtr, MrtrConfig, MrtrServer, SecretKey,
};
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::*;
use rmcp::service::{serve_directly, RequestContext, RoleClient, RoleServer, RunningService};
use rmcp::{tool, tool_handler, tool_router, ClientHandler, ServerHandler};
use serde::Deserialize;
use serde_json::json;

type McpError = ErrorData;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct Confirm {
    confirm: bool,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct TypedName {
    name: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct Target {
    name: String,
}

#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
struct Census {
    tables: u32,
}

#[derive(Clone)]
struct Ops {
    config: MrtrConfig,
    /// Side effects before the confirmation, per tool call.
    lookups: Arc<AtomicUsize>,
    /// Side effects inside the helper, before its first ask.
    audits: Arc<AtomicUsize>,
    done: Arc<Mutex<Vec<String>>>,
}

impl MrtrServer for Ops {
    fn mrtr_config(&self) -> &MrtrConfig {
        &self.config
    }
}

fn text_result(text: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text.into())])
}

impl Ops {
    fn new() -> Ops {
        Ops {
            config: MrtrConfig::new(
                "ops",
                KeyRing::single(SecretKey::new("k1", vec![7; 32]).expect("key")),
            ),
            lookups: Arc::default(),
            audits: Arc::default(),
            done: Arc::default(),
        }
    }

    /// The confirmation every destructive tool shares: asks twice (a yes/no, then the name typed
    /// back), and refuses on a mismatch.
    #[mrtr_helper]
    async fn confirm_destructive(&self, mrtr: &Mrtr, what: &str) -> Result<bool, McpError> {
        self.audits.fetch_add(1, Ordering::SeqCst);
        let ok = mrtr.elicit::<Confirm>(format!("Really {what}?")).await?;
        if !ok.accepted().is_some_and(|c| c.confirm) {
            return Ok(false);
        }
        let typed = mrtr.elicit::<TypedName>("Type the name to confirm").await?;
        Ok(matches!(typed, Elicitation::Accept(TypedName { name }) if what.ends_with(&name)))
    }

    fn finish(&self, action: &str, confirmed: bool) -> CallToolResult {
        if confirmed {
            self.done.lock().unwrap().push(action.to_string());
            text_result(format!("{action}: done"))
        } else {
            text_result(format!("{action}: cancelled"))
        }
    }
}

#[tool_router]
impl Ops {
    #[tool(description = "Drop a table")]
    #[mrtr_handler]
    async fn drop_table(
        &self,
        Parameters(target): Parameters<Target>,
        mrtr: Mrtr,
    ) -> Result<CallToolResult, McpError> {
        self.lookups.fetch_add(1, Ordering::SeqCst);
        let what = format!("drop table {}", target.name);
        let confirmed = self.confirm_destructive(&mrtr, &what).await?;
        Ok(self.finish(&what, confirmed))
    }

    #[mrtr_handler]
    #[tool(description = "Delete a user")]
    async fn delete_user(
        &self,
        mrtr: Mrtr,
        Parameters(target): Parameters<Target>,
    ) -> Result<CallToolResult, McpError> {
        self.lookups.fetch_add(1, Ordering::SeqCst);
        let what = format!("delete user {}", target.name);
        let confirmed = self.confirm_destructive(&mrtr, &what).await?;
        if !confirmed {
            return Ok(self.finish(&what, false));
        }
        Ok(self.finish(&what, true))
    }

    /// rmcp's `Json<T>` result: structured content once the confirmation is answered.
    #[tool(description = "Count what a drop would remove")]
    #[mrtr_handler]
    async fn census(&self, mrtr: Mrtr) -> Result<Json<Census>, McpError> {
        let confirmed = self.confirm_destructive(&mrtr, "count everything").await?;
        Ok(Json(Census {
            tables: if confirmed { 3 } else { 0 },
        }))
    }

    #[tool(description = "Purge two caches, one confirmation each")]
    #[mrtr_handler]
    async fn purge(&self, mrtr: Mrtr) -> Result<CallToolResult, McpError> {
        self.lookups.fetch_add(1, Ordering::SeqCst);
        let mut purged = Vec::new();
        for cache in ["purge cache a".to_string(), "purge cache b".to_string()] {
            let confirmed = self.confirm_destructive(&mrtr, &cache).await?;
            if confirmed {
                purged.push(cache);
            }
        }
        Ok(text_result(purged.join(",")))
    }
}

#[tool_handler]
impl ServerHandler for Ops {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.protocol_version = ProtocolVersion::V_2026_07_28;
        info
    }
}

/// Answers yes, then types back the last word of the question it was asked before.
#[derive(Clone, Default)]
struct Client {
    asked: Arc<Mutex<Vec<String>>>,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder().enable_elicitation().build(),
            Implementation::new("mrtr-helper-e2e", "0.0.0"),
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
        let mut asked = self.asked.lock().unwrap();
        let accept = |content| ElicitResult::new(ElicitationAction::Accept).with_content(content);
        let result = if message == "Type the name to confirm" {
            let previous = asked.last().cloned().unwrap_or_default();
            let name = previous
                .trim_end_matches('?')
                .rsplit(' ')
                .next()
                .unwrap_or("");
            accept(json!({ "name": name }))
        } else {
            accept(json!({ "confirm": true }))
        };
        asked.push(message);
        Ok(result)
    }
}

fn connect(server: Ops, client: Client) -> RunningService<RoleClient, Client> {
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

fn call(tool: &'static str, name: Option<&str>) -> CallToolRequestParams {
    let params = CallToolRequestParams::new(tool);
    match name {
        Some(name) => params.with_arguments(json!({ "name": name }).as_object().unwrap().clone()),
        None => params,
    }
}

fn text(result: &CallToolResult) -> String {
    result.content[0]
        .as_text()
        .expect("a text block")
        .text
        .clone()
}

#[tokio::test]
async fn one_helper_shared_by_three_tools_asks_twice_per_call_through_the_automatic_loop() {
    let server = Ops::new();
    let (lookups, audits, done) = (
        server.lookups.clone(),
        server.audits.clone(),
        server.done.clone(),
    );
    let client = connect(server, Client::default());

    let dropped = client
        .call_tool(call("drop_table", Some("users")))
        .await
        .expect("completes");
    assert_eq!(text(&dropped), "drop table users: done");
    let deleted = client
        .call_tool(call("delete_user", Some("ada")))
        .await
        .expect("completes");
    assert_eq!(text(&deleted), "delete user ada: done");
    let purged = client
        .call_tool(call("purge", None))
        .await
        .expect("completes");
    assert_eq!(text(&purged), "purge cache a,purge cache b");

    assert_eq!(
        *client.service().asked.lock().unwrap(),
        [
            "Really drop table users?",
            "Type the name to confirm",
            "Really delete user ada?",
            "Type the name to confirm",
            "Really purge cache a?",
            "Type the name to confirm",
            "Really purge cache b?",
            "Type the name to confirm",
        ],
        "one question per round, none asked twice"
    );
    assert_eq!(
        lookups.load(Ordering::SeqCst),
        3,
        "a tool's first segment ran again"
    );
    assert_eq!(
        audits.load(Ordering::SeqCst),
        4,
        "the helper's first segment ran again"
    );
    assert_eq!(
        *done.lock().unwrap(),
        ["drop table users", "delete user ada"]
    );
}

fn input_required(response: CallToolResponse) -> InputRequiredResult {
    match response {
        CallToolResponse::InputRequired(result) => result,
        other => panic!("expected input_required, got {other:?}"),
    }
}

#[tokio::test]
async fn manual_rounds_use_nested_keys_and_a_wrong_typed_name_cancels() {
    let server = Ops::new();
    let done = server.done.clone();
    let client = connect(server, Client::default());
    let params = || call("drop_table", Some("users"));

    let round1 = input_required(client.call_tool_once(params()).await.unwrap());
    let keys = |r: &InputRequiredResult| -> Vec<String> {
        r.input_requests
            .as_ref()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default()
    };
    assert_eq!(keys(&round1), ["s1.s1.ok"]);
    let answer = |key: &str, content: serde_json::Value| -> BTreeMap<String, serde_json::Value> {
        BTreeMap::from([(
            key.to_string(),
            json!({ "action": "accept", "content": content }),
        )])
    };
    let round2 = input_required(
        client
            .call_tool_once(
                params()
                    .with_request_state(round1.request_state.clone().unwrap())
                    .with_input_responses(answer("s1.s1.ok", json!({ "confirm": true }))),
            )
            .await
            .unwrap(),
    );
    assert_eq!(keys(&round2), ["s1.s2.typed"]);
    let last = client
        .call_tool_once(
            params()
                .with_request_state(round2.request_state.clone().unwrap())
                .with_input_responses(answer("s1.s2.typed", json!({ "name": "orders" }))),
        )
        .await
        .unwrap();
    let CallToolResponse::Complete(result) = last else {
        panic!("expected a complete result, got {last:?}");
    };
    assert_eq!(text(&result), "drop table users: cancelled");
    assert!(done.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_json_result_completes_with_structured_content_after_the_rounds() {
    let client = connect(Ops::new(), Client::default());
    let result = client
        .call_tool(call("census", None))
        .await
        .expect("completes");
    assert_eq!(result.structured_content, Some(json!({ "tables": 3 })));
    assert_eq!(
        *client.service().asked.lock().unwrap(),
        ["Really count everything?", "Type the name to confirm"]
    );
}
