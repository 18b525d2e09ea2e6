//! A `#[tool_router]` server on rmcp 3.x that still asks the client mid-request: the
//! elicitation shapes `cargo mcp-lint --fix --unsafe-fixes` rewrites into `#[mrtr_handler]`.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::*;
use rmcp::service::{ElicitationError, RequestContext};
use rmcp::{
    tool, tool_handler, tool_router, ErrorData as McpError, Peer, RoleServer, ServerHandler,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct DeployArgs {
    /// The version to deploy.
    pub version: String,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Confirm {
    pub confirm: bool,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Ticket {
    pub id: String,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct ReleaseNotes {
    pub text: String,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct UserInfo {
    pub name: String,
}

rmcp::elicit_safe!(Confirm, Ticket, ReleaseNotes, UserInfo);

/// Kept across the asks, so it derives `Serialize` and `Deserialize`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Plan {
    pub version: String,
    pub hosts: Vec<String>,
}

fn text(message: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(message.into())])
}

fn elicitation_failed(error: ElicitationError) -> McpError {
    McpError::internal_error(format!("elicitation failed: {error}"), None)
}

#[derive(Clone)]
pub struct Deployer {
    tool_router: ToolRouter<Deployer>,
}

impl Default for Deployer {
    fn default() -> Self {
        Deployer {
            tool_router: Self::tool_router(),
        }
    }
}

#[tool_router]
impl Deployer {
    /// A `match` on the awaited call, then two `.map_err(..)?` chains.
    #[tool(description = "Deploy a version to production")]
    async fn deploy_production(
        &self,
        Parameters(args): Parameters<DeployArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let plan = Plan {
            version: args.version.clone(),
            hosts: vec!["web-1".into(), "web-2".into()],
        };
        let ok = match context
            .peer
            .elicit::<Confirm>("Deploy to production?")
            .await
        {
            Ok(Some(answer)) => answer,
            Ok(None)
            | Err(ElicitationError::UserDeclined)
            | Err(ElicitationError::UserCancelled) => {
                return Ok(text("cancelled"));
            }
            Err(other) => return Err(elicitation_failed(other)),
        };
        if !ok.confirm {
            return Ok(text("cancelled"));
        }
        // The ticket is required.
        let ticket = context
            .peer
            .elicit::<Ticket>("Change ticket?")
            .await
            .map_err(elicitation_failed)?
            .ok_or_else(|| McpError::invalid_params("a change ticket is required", None))?;
        let notes = context
            .peer
            .elicit::<ReleaseNotes>("Release notes?")
            .await
            .map_err(elicitation_failed)?
            .map(|n| n.text)
            .unwrap_or_default();
        Ok(text(format!(
            "deployed {} to {} hosts (ticket {}): {notes}",
            plan.version,
            plan.hosts.len(),
            ticket.id
        )))
    }

    /// The answer bound first, then matched (rmcp's elicitation example).
    #[tool(description = "Greets the user by name")]
    async fn greet(&self, context: RequestContext<RoleServer>) -> Result<CallToolResult, McpError> {
        let answer = context
            .peer
            .elicit::<UserInfo>("Your name?")
            .await;
        let greeting = match answer {
            Ok(Some(UserInfo { name })) => format!("Hello, {name}"),
            Err(ElicitationError::UserDeclined) => "Hello, whoever you are".to_string(),
            _ => "Hello, stranger".to_string(),
        };
        Ok(text(greeting))
    }

    /// A timeout, and a result read in a way the rewrite has no pattern for.
    #[tool(description = "Asks for a quick yes")]
    async fn quick(&self, ctx: RequestContext<RoleServer>) -> Result<CallToolResult, McpError> {
        let reply = ctx
            .peer
            .elicit_with_timeout::<Confirm>("Quick, yes or no?", Some(std::time::Duration::from_secs(30)))
            .await;
        let yes = matches!(reply, Ok(Some(Confirm { confirm: true })));
        let label = if ctx.meta.is_empty() { "plain" } else { "with meta" };
        Ok(text(format!("{} ({label})", if yes { "yes" } else { "no" })))
    }

    /// `let .. else` on the answer.
    #[tool(description = "Asks for a ticket or gives up")]
    async fn ticket(&self, context: RequestContext<RoleServer>) -> Result<CallToolResult, McpError> {
        let Ok(Some(Ticket { id })) = context.peer.elicit::<Ticket>("Change ticket?").await else {
            return Ok(text("no ticket"));
        };
        Ok(text(format!("ticket {id}")))
    }

    /// Roots through a `Peer` parameter, read through the old result type.
    #[tool(description = "Counts the client's roots")]
    async fn count_roots(&self, peer: Peer<RoleServer>) -> Result<CallToolResult, McpError> {
        let count = peer.list_roots().await.map(|r| r.roots.len()).unwrap_or(0);
        Ok(text(format!("{count} roots")))
    }
}

#[tool_handler]
impl ServerHandler for Deployer {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.protocol_version = ProtocolVersion::V_2026_07_28;
        info
    }
}
