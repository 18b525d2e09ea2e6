//! A tool returning rmcp's `Json<T>` (structured content) that asks mid-request:
//! `cargo mcp-lint --fix --unsafe-fixes` keeps the return type, which the runtime completes.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Json;
use rmcp::model::*;
use rmcp::service::RequestContext;
use rmcp::{tool, tool_handler, tool_router, ErrorData as McpError, RoleServer, ServerHandler};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Region {
    pub region: String,
}

rmcp::elicit_safe!(Region);

#[derive(Debug, Serialize, JsonSchema)]
pub struct Quote {
    pub region: String,
    pub price: u32,
}

#[derive(Clone)]
pub struct Pricing {
    tool_router: ToolRouter<Pricing>,
}

impl Default for Pricing {
    fn default() -> Self {
        Pricing {
            tool_router: Self::tool_router(),
        }
    }
}

#[tool_router]
impl Pricing {
    #[tool(description = "Quote a price for a region")]
    async fn quote(&self, context: RequestContext<RoleServer>) -> Result<Json<Quote>, McpError> {
        let region = match context.peer.elicit::<Region>("Which region?").await {
            Ok(Some(Region { region })) => region,
            _ => "eu".to_string(),
        };
        let price = if region == "us" { 12 } else { 10 };
        Ok(Json(Quote { region, price }))
    }
}

#[tool_handler]
impl ServerHandler for Pricing {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.protocol_version = ProtocolVersion::V_2026_07_28;
        info
    }
}
