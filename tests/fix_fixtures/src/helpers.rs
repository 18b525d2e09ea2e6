//! Asks inside helper functions: a confirmation helper shared by three tools (the peer reaching
//! it through `context.peer`, a `ctx` and a `Peer` parameter), and a helper method that asks
//! twice. `cargo mcp-lint --fix --unsafe-fixes` turns each helper into a `#[mrtr_helper]` taking
//! `&Mrtr` and each caller into a `#[mrtr_handler]` that passes `&mrtr`.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::*;
use rmcp::service::{ElicitationError, RequestContext};
use rmcp::{
    tool, tool_handler, tool_router, ErrorData as McpError, Peer, RoleServer, ServerHandler,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Confirm {
    pub confirm: bool,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct TypedName {
    pub name: String,
}

rmcp::elicit_safe!(Confirm, TypedName);

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Target {
    /// What the tool acts on.
    pub name: String,
}

fn text(message: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(message.into())])
}

/// The confirmation every destructive tool shares.
async fn confirm_destructive(peer: &Peer<RoleServer>, what: &str) -> Result<bool, McpError> {
    let answer = peer.elicit::<Confirm>(format!("Really {what}?")).await;
    match answer {
        Ok(Some(Confirm { confirm })) => Ok(confirm),
        Err(ElicitationError::UserDeclined) | Err(ElicitationError::UserCancelled) => Ok(false),
        Ok(None) => Ok(false),
        Err(other) => Err(McpError::internal_error(other.to_string(), None)),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    AlwaysAsk,
    Auto,
}

/// A helper calling the helper, from the arms of a `match`: it becomes an asking helper too.
async fn check_permission(
    mode: Mode,
    context: &RequestContext<RoleServer>,
    what: &str,
) -> Result<bool, McpError> {
    match mode {
        Mode::AlwaysAsk => confirm_destructive(&context.peer, what).await,
        Mode::Auto => {
            if what.starts_with("drop") {
                confirm_destructive(&context.peer, what).await
            } else {
                Ok(true)
            }
        }
    }
}

#[derive(Clone)]
pub struct Ops {
    tool_router: ToolRouter<Ops>,
}

impl Default for Ops {
    fn default() -> Self {
        Ops {
            tool_router: Self::tool_router(),
        }
    }
}

impl Ops {
    /// Asks twice: a yes/no, then the name typed back.
    async fn confirm_by_name(&self, peer: &Peer<RoleServer>, name: &str) -> Result<bool, McpError> {
        let Ok(Some(Confirm { confirm: true })) = peer.elicit::<Confirm>(format!("Really drop {name}?")).await else {
            return Ok(false);
        };
        let Ok(Some(TypedName { name: typed })) = peer.elicit::<TypedName>("Type the name to confirm").await else {
            return Ok(false);
        };
        Ok(typed == name)
    }
}

#[tool_router]
impl Ops {
    #[tool(description = "Drop a table")]
    async fn drop_table(
        &self,
        Parameters(target): Parameters<Target>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let what = format!("drop table {}", target.name);
        let confirmed = confirm_destructive(&context.peer, &what).await?;
        Ok(text(if confirmed { "dropped" } else { "kept" }))
    }

    #[tool(description = "Delete a user")]
    async fn delete_user(
        &self,
        Parameters(target): Parameters<Target>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        if !confirm_destructive(&ctx.peer, &format!("delete user {}", target.name)).await? {
            return Ok(text("kept"));
        }
        Ok(text("deleted"))
    }

    #[tool(description = "Purge the cache")]
    async fn purge(&self, peer: Peer<RoleServer>) -> Result<CallToolResult, McpError> {
        confirm_destructive(&peer, "purge the cache").await?;
        Ok(text("purged"))
    }

    #[tool(description = "Truncate a table, confirmed in the automatic mode")]
    async fn truncate(
        &self,
        Parameters(target): Parameters<Target>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let what = format!("drop rows of {}", target.name);
        let allowed = check_permission(Mode::Auto, &context, &what).await?;
        Ok(text(if allowed { "truncated" } else { "kept" }))
    }

    #[tool(description = "Drop a database, confirmed by typing its name")]
    async fn drop_database(
        &self,
        Parameters(target): Parameters<Target>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let confirmed = self.confirm_by_name(&context.peer, &target.name).await?;
        Ok(text(if confirmed { "dropped" } else { "kept" }))
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
