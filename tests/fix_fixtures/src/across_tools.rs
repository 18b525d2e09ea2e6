//! Two tools of another server that ask through `confirm_change` of `across_helpers.rs`.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::*;
use rmcp::service::RequestContext;
use rmcp::{tool, tool_handler, tool_router, ErrorData as McpError, RoleServer, ServerHandler};

use super::across_helpers::{confirm_change, done, Change};

#[derive(Clone)]
pub struct Releases {
    tool_router: ToolRouter<Releases>,
}

impl Default for Releases {
    fn default() -> Self {
        Releases {
            tool_router: Self::tool_router(),
        }
    }
}

#[tool_router]
impl Releases {
    #[tool(description = "Publishes a release")]
    async fn publish(
        &self,
        Parameters(change): Parameters<Change>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let confirmed = confirm_change(&ctx.peer, &format!("publish {}", change.name)).await?;
        Ok(done(if confirmed {
            format!("published {}", change.name)
        } else {
            "not published".into()
        }))
    }

    #[tool(description = "Yanks a release")]
    async fn yank(
        &self,
        Parameters(change): Parameters<Change>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        if confirm_change(&ctx.peer, &format!("yank {}", change.name)).await? {
            Ok(done(format!("yanked {}", change.name)))
        } else {
            Ok(done("kept".into()))
        }
    }
}

#[tool_handler]
impl ServerHandler for Releases {
    fn get_info(&self) -> ServerInfo {
        ServerInfo::new(ServerCapabilities::builder().enable_tools().build())
    }
}
