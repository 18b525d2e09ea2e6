//! A gateway's relay end to end: an agent calls a tool of the gateway, the gateway calls the
//! tool of an upstream server (a 2025-era server that asks `elicitation/create` in the middle of
//! the call), and the gateway's `ClientHandler` forwards the upstream's question to the agent's
//! stored `Peer` with `mrtr::rmcp::deferred::create_elicitation`. The relay answers on the
//! upstream connection's task, outside the agent's request; the deferred ask finds that request
//! by the agent's connection.
//!
//! Every hop is rmcp 3.x over `tokio::io::duplex`, and every connection is opened with rmcp's own
//! handshake (`serve_server` / `serve_client`): a 2026-07-28 agent discovers and sends its
//! version and capabilities with each request, so its peer starts with no `peer_info()`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use mrtr::{mrtr_handler, KeyRing, MrtrConfig, MrtrServer, SecretKey};
use rmcp::model::*;
use rmcp::service::{
    serve_client_with_lifecycle, ClientLifecycleMode, Peer, RequestContext, RoleClient, RoleServer,
    RunningService,
};
use rmcp::{ClientHandler, ServerHandler};
use serde_json::json;

/// The upstream: legacy code, asks the client mid-call before it deletes anything.
#[derive(Clone, Default)]
struct Upstream {
    /// Runs of the tool, the asking round included.
    runs: Arc<AtomicUsize>,
    deleted: Arc<AtomicUsize>,
}

impl ServerHandler for Upstream {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.runs.fetch_add(1, Ordering::SeqCst);
        let path = request
            .arguments
            .as_ref()
            .and_then(|a| a.get("path"))
            .and_then(|p| p.as_str())
            .unwrap_or("/tmp/x")
            .to_string();
        let schema = ElicitationSchema::builder()
            .required_bool("confirm")
            .build()
            .expect("schema");
        let asked = context
            .peer
            .create_elicitation(ElicitRequestParams::FormElicitationParams {
                meta: None,
                message: format!("Delete {path}?"),
                requested_schema: schema,
            })
            .await;
        let result = match asked {
            Ok(answer)
                if answer.action == ElicitationAction::Accept
                    && answer.content.as_ref().and_then(|c| c.get("confirm"))
                        == Some(&json!(true)) =>
            {
                self.deleted.fetch_add(1, Ordering::SeqCst);
                Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                    "deleted {path}"
                ))]))
            }
            Ok(answer) => Ok(CallToolResult::error(vec![ContentBlock::text(format!(
                "not deleted: {:?}",
                answer.action
            ))])),
            Err(error) => Ok(CallToolResult::error(vec![ContentBlock::text(format!(
                "not deleted: {error}"
            ))])),
        };
        result.map(Into::into)
    }
}

/// The gateway's relay: one per upstream connection, holding the agent's peer.
#[derive(Clone)]
struct Relay {
    downstream: Peer<RoleServer>,
}

impl ClientHandler for Relay {
    fn get_info(&self) -> ClientConfig {
        // Mirrors what the agent can do: an agent of 2026-07-28 declares it per request, and
        // the runtime records it as the connection's `peer_info()` (see `mrtr::rmcp`).
        let mut capabilities = ClientCapabilities::default();
        if let Some(agent) = self.downstream.peer_info() {
            capabilities.elicitation = agent.capabilities.elicitation.clone();
        }
        ClientConfig::new(capabilities, Implementation::new("gateway", "0.0.0"))
            .with_protocol_version(ProtocolVersion::V_2025_11_25)
    }

    async fn create_elicitation(
        &self,
        params: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        mrtr::rmcp::deferred::create_elicitation(&self.downstream, params)
            .await
            .map_err(|e| ErrorData::internal_error(format!("relay failed: {e}"), None))
    }
}

#[derive(Clone)]
struct Gateway {
    config: MrtrConfig,
    upstream: Upstream,
}

impl MrtrServer for Gateway {
    fn mrtr_config(&self) -> &MrtrConfig {
        &self.config
    }
}

impl Gateway {
    /// A dedicated upstream connection for this call, with the relay installed.
    async fn connect_upstream(
        &self,
        downstream: Peer<RoleServer>,
    ) -> RunningService<RoleClient, Relay> {
        let (up_io, gw_io) = tokio::io::duplex(64 * 1024);
        let upstream = self.upstream.clone();
        tokio::spawn(async move {
            if let Ok(running) = rmcp::serve_server(upstream, up_io).await {
                let _ = running.waiting().await;
            }
        });
        rmcp::serve_client(Relay { downstream }, gw_io)
            .await
            .expect("upstream handshake")
    }
}

impl ServerHandler for Gateway {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    #[mrtr_handler]
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let upstream = self.connect_upstream(context.peer.clone()).await;
        let result = upstream
            .call_tool(request)
            .await
            .map_err(|e| ErrorData::internal_error(format!("upstream: {e}"), None));
        let _ = upstream.cancel().await;
        result
    }
}

/// The agent: answers the gateway's questions, and says which it was asked.
#[derive(Clone)]
struct Agent {
    version: ProtocolVersion,
    asked: Arc<Mutex<Vec<String>>>,
}

impl Agent {
    fn new(version: ProtocolVersion) -> Agent {
        Agent {
            version,
            asked: Arc::default(),
        }
    }
}

impl ClientHandler for Agent {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder().enable_elicitation().build(),
            Implementation::new("agent", "0.0.0"),
        )
        .with_protocol_version(self.version.clone())
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        if let ElicitRequestParams::FormElicitationParams { message, .. } = &request {
            self.asked.lock().unwrap().push(message.clone());
        }
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(json!({ "confirm": true })))
    }
}

fn gateway() -> Gateway {
    Gateway {
        config: MrtrConfig::new(
            "gateway",
            KeyRing::single(SecretKey::new("k1", vec![0x29; 32]).expect("key")),
        ),
        upstream: Upstream::default(),
    }
}

async fn connect(gateway: Gateway, agent: Agent) -> RunningService<RoleClient, Agent> {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = rmcp::serve_server(gateway, server_io).await {
            let _ = running.waiting().await;
        }
    });
    // A 2026-07-28 agent discovers (no `initialize`), an older one initializes.
    let lifecycle = if agent.version >= ProtocolVersion::V_2026_07_28 {
        ClientLifecycleMode::Discover {
            preferred_versions: vec![agent.version.clone()],
        }
    } else {
        ClientLifecycleMode::Initialize
    };
    serve_client_with_lifecycle(agent, client_io, lifecycle)
        .await
        .expect("agent handshake")
}

fn delete(path: &str) -> CallToolRequestParams {
    CallToolRequestParams::new("delete")
        .with_arguments(json!({ "path": path }).as_object().unwrap().clone())
}

fn text(result: &CallToolResult) -> String {
    result.content[0].as_text().expect("text").text.clone()
}

#[tokio::test]
async fn a_2026_agent_answers_an_upstream_question_relayed_from_the_upstream_task() {
    let gateway = gateway();
    let upstream = gateway.upstream.clone();
    let agent = connect(gateway, Agent::new(ProtocolVersion::V_2026_07_28)).await;
    let done = agent.call_tool(delete("/srv/a")).await.expect("completes");
    assert_eq!(text(&done), "deleted /srv/a", "{done:?}");
    assert_eq!(*agent.service().asked.lock().unwrap(), ["Delete /srv/a?"]);
    // The round that asked ran the upstream tool up to its question, and its question failed
    // there (nothing deleted); the retry ran it again and got the answer.
    assert_eq!(upstream.runs.load(Ordering::SeqCst), 2);
    assert_eq!(upstream.deleted.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_2025_agent_gets_the_upstream_question_mid_call_as_before() {
    let gateway = gateway();
    let upstream = gateway.upstream.clone();
    let agent = connect(gateway, Agent::new(ProtocolVersion::V_2025_11_25)).await;
    let done = agent.call_tool(delete("/srv/b")).await.expect("completes");
    assert_eq!(text(&done), "deleted /srv/b", "{done:?}");
    assert_eq!(*agent.service().asked.lock().unwrap(), ["Delete /srv/b?"]);
    assert_eq!(upstream.runs.load(Ordering::SeqCst), 1);
    assert_eq!(upstream.deleted.load(Ordering::SeqCst), 1);
}
