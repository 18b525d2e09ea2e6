//! The server: capabilities, protocol version, and the routing of tools and prompts to fixtures.

use std::borrow::Cow;

use rmcp::{
    model::{
        Implementation, ListPromptsResult, PaginatedRequestParams, ProtocolVersion,
        ServerCapabilities, ServerConfig,
    },
    service::RequestContext,
    tool_handler, ErrorData, RoleServer, ServerHandler,
};

pub const SERVER_NAME: &str = "mrtr-conformance-server";

#[derive(Clone, Default)]
pub struct ConformanceServer {}

impl ConformanceServer {
    pub fn new() -> Self {
        Self {}
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
