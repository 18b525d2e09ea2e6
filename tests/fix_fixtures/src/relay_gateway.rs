//! A gateway: each `tools/call` is forwarded to an upstream server over a dedicated connection,
//! and the upstream's questions (elicitation, sampling, roots) are relayed to the agent.

use std::sync::Arc;

use rmcp::model::*;
use rmcp::service::{Peer, RequestContext, RoleClient, RoleServer};
use rmcp::{ClientHandler, ErrorData, ServerHandler};

/// Opens a transport to the upstream server.
pub type Dial = Arc<dyn Fn() -> tokio::io::DuplexStream + Send + Sync>;

/// Relays the upstream's server-to-client requests to the agent that made the call.
#[derive(Clone)]
pub struct Relay {
    downstream: Peer<RoleServer>,
    upstream_name: Arc<str>,
}

impl Relay {
    pub fn new(downstream: Peer<RoleServer>, upstream_name: &str) -> Self {
        Relay {
            downstream,
            upstream_name: Arc::from(upstream_name),
        }
    }
}

fn relay_error(upstream: &str, what: &str, error: &rmcp::service::ServiceError) -> ErrorData {
    ErrorData::internal_error(format!("relay of {what} from {upstream} failed: {error}"), None)
}

impl ClientHandler for Relay {
    fn get_info(&self) -> ClientConfig {
        // Claims only what the agent can do.
        let mut capabilities = ClientCapabilities::default();
        if let Some(agent) = self.downstream.peer_info() {
            capabilities.elicitation = agent.capabilities.elicitation.clone();
            capabilities.sampling = agent.capabilities.sampling.clone();
            capabilities.roots = agent.capabilities.roots.clone();
        }
        ClientConfig::new(capabilities, Implementation::new("relay-gateway", "0.1.0"))
            .with_protocol_version(ProtocolVersion::V_2025_11_25)
    }

    async fn create_elicitation(
        &self,
        params: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.downstream
            .create_elicitation(params)
            .await
            .map_err(|e| relay_error(&self.upstream_name, "elicitation", &e))
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        self.downstream
            .create_message(params)
            .await
            .map_err(|e| relay_error(&self.upstream_name, "sampling", &e))
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        self.downstream
            .list_roots()
            .await
            .map_err(|e| relay_error(&self.upstream_name, "roots", &e))
    }
}

#[derive(Clone)]
pub struct Gateway {
    pub dial: Dial,
}

impl Gateway {
    /// Calls the tool upstream with the relay installed on a connection of its own.
    async fn call_upstream(
        &self,
        request: CallToolRequestParams,
        downstream: Peer<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let relay = Relay::new(downstream, "upstream");
        let upstream = rmcp::serve_client(relay, (self.dial)())
            .await
            .map_err(|e| ErrorData::internal_error(format!("upstream connect: {e}"), None))?;
        let result = upstream
            .call_tool(request)
            .await
            .map_err(|e| ErrorData::internal_error(format!("upstream call: {e}"), None));
        let _ = upstream.cancel().await;
        result
    }
}

impl ServerHandler for Gateway {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.call_upstream(request, context.peer.clone())
            .await
            .map(Into::into)
    }
}
