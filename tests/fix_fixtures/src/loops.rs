//! Asks inside loops: one confirmation per host of a `for` loop, and a `loop` that asks until
//! it has three names. `cargo mcp-lint --fix --unsafe-fixes` keeps the loops: the macro runs them
//! across rounds, one question per round.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::*;
use rmcp::service::RequestContext;
use rmcp::{tool, tool_handler, tool_router, ErrorData as McpError, RoleServer, ServerHandler};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Confirm {
    pub confirm: bool,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Name {
    pub name: String,
}

rmcp::elicit_safe!(Confirm, Name);

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Hosts {
    /// The hosts to restart.
    pub hosts: Vec<String>,
}

fn text(message: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(message.into())])
}

#[derive(Clone)]
pub struct Fleet {
    tool_router: ToolRouter<Fleet>,
}

impl Default for Fleet {
    fn default() -> Self {
        Fleet {
            tool_router: Self::tool_router(),
        }
    }
}

#[tool_router]
impl Fleet {
    #[tool(description = "Restart hosts, each confirmed")]
    async fn restart(
        &self,
        Parameters(args): Parameters<Hosts>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let mut restarted = Vec::new();
        for host in args.hosts {
            let answer = context.peer.elicit::<Confirm>(format!("Restart {host}?")).await;
            match answer {
                Ok(Some(Confirm { confirm: true })) => restarted.push(host),
                _ => {}
            }
        }
        Ok(text(restarted.join(",")))
    }

    #[tool(description = "Collect three names")]
    async fn collect(&self, context: RequestContext<RoleServer>) -> Result<CallToolResult, McpError> {
        let mut names: Vec<String> = Vec::new();
        loop {
            if names.len() == 3 {
                break;
            }
            let answer = context.peer.elicit::<Name>(format!("Name #{}?", names.len() + 1)).await;
            match answer {
                Ok(Some(Name { name })) => names.push(name),
                _ => break,
            }
        }
        Ok(text(names.join(",")))
    }
}

#[tool_handler]
impl ServerHandler for Fleet {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.protocol_version = ProtocolVersion::V_2026_07_28;
        info
    }
}
