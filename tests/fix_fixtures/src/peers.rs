//! The peer reaching the request another way: a `Peer` tool parameter, and a local moved out of
//! the context (`let peer = context.peer;`). `cargo mcp-lint --fix --unsafe-fixes` asks through
//! `mrtr` and drops the local the asks were its only use of.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::*;
use rmcp::service::RequestContext;
use rmcp::{
    tool, tool_handler, tool_router, ErrorData as McpError, Peer, RoleServer, ServerHandler,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Confirm {
    pub confirm: bool,
}

rmcp::elicit_safe!(Confirm);

fn text(message: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(message.into())])
}

#[derive(Clone)]
pub struct Desk {
    tool_router: ToolRouter<Desk>,
}

impl Default for Desk {
    fn default() -> Self {
        Desk {
            tool_router: Self::tool_router(),
        }
    }
}

#[tool_router]
impl Desk {
    #[tool(description = "Archive, confirmed through a peer parameter")]
    async fn archive(&self, peer: Peer<RoleServer>) -> Result<CallToolResult, McpError> {
        match peer.elicit::<Confirm>("Archive everything?").await {
            Ok(Some(Confirm { confirm: true })) => Ok(text("archived")),
            _ => Ok(text("kept")),
        }
    }

    #[tool(description = "Reset, confirmed through a local peer")]
    async fn reset(&self, context: RequestContext<RoleServer>) -> Result<CallToolResult, McpError> {
        let peer = context.peer;
        let answer = peer.elicit::<Confirm>("Reset the desk?").await;
        match answer {
            Ok(Some(Confirm { confirm })) if confirm => Ok(text("reset")),
            _ => Ok(text("kept")),
        }
    }
}

#[tool_handler]
impl ServerHandler for Desk {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.protocol_version = ProtocolVersion::V_2026_07_28;
        info
    }
}
