//! The peer held in a newtype, which a tool builds from its context and hands to the code that
//! decides; the newtype's method asks.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::*;
use rmcp::service::{Peer, RequestContext};
use rmcp::{tool, tool_handler, tool_router, ErrorData, RoleServer, ServerHandler};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Approve {
    pub decision: String,
}

rmcp::elicit_safe!(Approve);

/// Who to ask, if anyone.
pub struct Asking(pub Option<Peer<RoleServer>>);

impl Asking {
    pub async fn approves(&self, what: &str) -> bool {
        let Some(peer) = &self.0 else {
            return false;
        };
        matches!(
            peer.elicit::<Approve>(format!("Approve {what}?")).await,
            Ok(Some(answer)) if answer.decision == "approve"
        )
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Spend {
    pub amount: u32,
}

#[derive(Clone, Default)]
pub struct Wallet;

#[tool_router]
impl Wallet {
    #[tool(description = "Spend after approval above 100")]
    async fn spend(
        &self,
        Parameters(spend): Parameters<Spend>,
        context: RequestContext<RoleServer>,
    ) -> Result<String, ErrorData> {
        let asking = Asking(Some(context.peer.clone()));
        if spend.amount > 100 && !asking.approves(&format!("{} credits", spend.amount)).await {
            return Ok("refused".into());
        }
        Ok(format!("spent {}", spend.amount))
    }
}

#[tool_handler]
impl ServerHandler for Wallet {}
