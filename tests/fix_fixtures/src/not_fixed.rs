//! Legacy requests the rewrite leaves alone: each finding gets a display-only suggestion (or no
//! fix at all, for MCP006) and `--fix --unsafe-fixes` changes nothing in this file.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::*;
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{prompt, tool, tool_router, ErrorData as McpError, Peer, RoleServer, ServerHandler};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Answer {
    pub yes: bool,
}

rmcp::elicit_safe!(Answer);

#[derive(Clone)]
pub struct Legacy {
    tool_router: ToolRouter<Legacy>,
    stored: Option<Peer<RoleServer>>,
}

/// A helper that takes the peer: the ask would have to move into every handler calling it.
async fn confirm(peer: &Peer<RoleServer>, message: &str) -> bool {
    matches!(peer.elicit::<Answer>(message).await, Ok(Some(Answer { yes: true })))
}

#[tool_router]
impl Legacy {
    /// An ask per loop iteration cannot survive the round trip.
    #[tool(description = "Asks about each item")]
    async fn each(&self, ctx: RequestContext<RoleServer>) -> Result<CallToolResult, McpError> {
        let mut yes = 0;
        for item in ["a", "b"] {
            if let Ok(Some(a)) = ctx.peer.elicit::<Answer>(format!("Keep {item}?")).await {
                yes += usize::from(a.yes);
            }
        }
        Ok(CallToolResult::success(vec![ContentBlock::text(yes.to_string())]))
    }

    /// Two requests raced inside a macro.
    #[tool(description = "Roots and a question at once")]
    async fn both(&self, ctx: RequestContext<RoleServer>) -> Result<CallToolResult, McpError> {
        let (roots, answer) = tokio::join!(ctx.peer.list_roots(), ctx.peer.elicit::<Answer>("Sure?"));
        Ok(CallToolResult::success(vec![ContentBlock::text(format!("{roots:?} {answer:?}"))]))
    }

    /// Through a helper; and through a peer the server keeps.
    #[tool(description = "Confirms through a helper")]
    async fn via_helper(&self, ctx: RequestContext<RoleServer>) -> Result<CallToolResult, McpError> {
        let ok = confirm(&ctx.peer, "Really?").await;
        if let Some(peer) = &self.stored {
            let again = peer.elicit::<Answer>("Really really?").await;
            return Ok(CallToolResult::success(vec![ContentBlock::text(format!("{ok} {again:?}"))]));
        }
        Ok(CallToolResult::success(vec![ContentBlock::text(ok.to_string())]))
    }

    /// Elicitation raced against a timer: the future is not awaited where it is made.
    #[tool(description = "Free-form form")]
    async fn form(&self, ctx: RequestContext<RoleServer>) -> Result<CallToolResult, McpError> {
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: "Anything?".into(),
            requested_schema: ElicitationSchema::builder().build().expect("schema"),
        };
        let result = tokio::time::timeout(std::time::Duration::from_secs(5), ctx.peer.create_elicitation(params)).await;
        Ok(CallToolResult::success(vec![ContentBlock::text(format!("{result:?}"))]))
    }

    /// A prompt method: the runtime has no `Mrtr` extractor for prompts.
    #[prompt(name = "ask")]
    async fn ask_prompt(&self, ctx: RequestContext<RoleServer>) -> Result<GetPromptResult, McpError> {
        let roots = ctx.peer.list_roots().await;
        Ok(GetPromptResult::new(vec![PromptMessage::new_text(Role::User, format!("{roots:?}"))]))
    }
}

impl ServerHandler for Legacy {
    /// A notification hook: no MRTR form exists (MCP006, no fix).
    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        let _ = context.peer.list_roots().await;
    }
}
