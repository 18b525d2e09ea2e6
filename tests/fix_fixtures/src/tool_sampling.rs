//! Sampling from `#[tool]` methods (rmcp 3.x, before MRTR): `create_message` becomes
//! `mrtr.sample(..)` through the runtime's conversions of rmcp's sampling types.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::*;
use rmcp::service::RequestContext;
use rmcp::{tool, tool_handler, tool_router, ErrorData as McpError, RoleServer, ServerHandler};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct QuestionArgs {
    pub question: String,
}

fn text(message: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(message.into())])
}

#[derive(Clone)]
pub struct Assistant {
    tool_router: ToolRouter<Assistant>,
}

impl Default for Assistant {
    fn default() -> Self {
        Assistant {
            tool_router: Self::tool_router(),
        }
    }
}

#[tool_router]
impl Assistant {
    /// The shape of rmcp's sampling example: builder params, `.map_err(..)?` on the result.
    #[tool(description = "Answers a question with the client's model")]
    async fn ask(
        &self,
        Parameters(QuestionArgs { question }): Parameters<QuestionArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let response = ctx
            .peer
            .create_message(
                CreateMessageRequestParams::new(vec![SamplingMessage::user_text(question)], 150)
                    .with_system_prompt("You are a helpful assistant."),
            )
            .await
            .map_err(|e| McpError::internal_error(e.to_string(), None))?;
        let answer = response
            .message
            .content
            .first()
            .and_then(|block| block.as_text())
            .map(|t| t.text.clone())
            .unwrap_or_default();
        Ok(text(format!("{answer} ({})", response.model)))
    }

    /// Through a clone of the peer, the result matched as it comes.
    #[tool(description = "Names a colour")]
    async fn colour(&self, context: RequestContext<RoleServer>) -> Result<CallToolResult, McpError> {
        let peer = context.peer.clone();
        let reply = peer
            .create_message(CreateMessageRequestParams::new(vec![SamplingMessage::user_text("A colour?")], 10))
            .await;
        Ok(text(match reply {
            Ok(result) => format!("by {}", result.model),
            Err(e) => format!("failed: {e}"),
        }))
    }
}

#[tool_handler]
impl ServerHandler for Assistant {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.protocol_version = ProtocolVersion::V_2026_07_28;
        info
    }
}
