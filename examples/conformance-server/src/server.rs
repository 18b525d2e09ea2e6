//! The server: capabilities, protocol version, and the routing of tools and prompts to fixtures.

use std::borrow::Cow;
use std::sync::Arc;

use mrtr::{MrtrConfig, MrtrServer};

use rmcp::{
    model::{
        Implementation, ListPromptsResult, PaginatedRequestParams, ProtocolVersion,
        ServerCapabilities, ServerConfig,
    },
    service::RequestContext,
    tool_handler, ErrorData, RoleServer, ServerHandler,
};

pub const SERVER_NAME: &str = "mrtr-conformance-server";

/// One per process; rmcp clones it per request, so the sealing config sits behind an `Arc`.
#[derive(Clone)]
pub struct ConformanceServer {
    mrtr: Arc<MrtrConfig>,
}

impl ConformanceServer {
    /// Seals requestState with a key generated for this process (states do not survive a restart,
    /// which a single-instance test server does not need).
    pub fn new() -> Self {
        Self::with_config(MrtrConfig::ephemeral(SERVER_NAME))
    }

    pub fn with_config(config: MrtrConfig) -> Self {
        Self {
            mrtr: Arc::new(config),
        }
    }
}

impl Default for ConformanceServer {
    fn default() -> Self {
        Self::new()
    }
}

impl MrtrServer for ConformanceServer {
    fn mrtr_config(&self) -> &MrtrConfig {
        &self.mrtr
    }
}

#[tool_handler(router = Self::diagnostics_router())]
impl ServerHandler for ConformanceServer {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .build(),
        )
        .with_server_info(Implementation::new(SERVER_NAME, env!("CARGO_PKG_VERSION")));
        info.protocol_version = ProtocolVersion::V_2026_07_28;
        info
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(&[ProtocolVersion::V_2026_07_28])
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::default())
    }
}
