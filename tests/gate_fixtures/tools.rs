//! A server written for the 2025 protocol: its tools ask the client mid-request.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CreateMessageRequestParams, SamplingMessage};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, RoleServer};

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct Confirm {
    pub yes: bool,
}

pub struct Deployer;

#[tool_router]
impl Deployer {
    #[tool(description = "Deploy after the user confirms")]
    async fn deploy(&self, context: RequestContext<RoleServer>) -> Result<String, String> {
        let answer = context
            .peer
            .elicit::<Confirm>("Deploy to production?".to_string())
            .await
            .map_err(|e| e.to_string())?;
        Ok(format!("deployed: {answer:?}"))
    }

    #[tool(description = "Summarize with the client's model")]
    async fn summarize(&self, context: RequestContext<RoleServer>) -> String {
        let params = CreateMessageRequestParams::new(
            vec![SamplingMessage::user_text("summarize")],
            200,
        )
        .with_temperature(0.2);
        let reply = context.peer.create_message(params).await;
        format!("{reply:?}")
    }

    #[tool(description = "List the client's roots")]
    async fn roots(&self, context: RequestContext<RoleServer>) -> String {
        let roots = context.peer.list_roots().await;
        format!("{roots:?}")
    }
}
