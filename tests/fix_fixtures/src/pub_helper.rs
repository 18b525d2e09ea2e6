//! A confirmation gate that is `pub`, shared by two modules of the crate, each with its own
//! service function; the tools call the modules, not the gate.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::*;
use rmcp::service::{Peer, RequestContext};
use rmcp::{tool, tool_handler, tool_router, ErrorData, RoleServer, ServerHandler};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Confirm {
    pub confirm: bool,
}

rmcp::elicit_safe!(Confirm);

pub mod gate {
    use super::*;

    /// Asked before anything destructive, from any module.
    pub async fn confirm_destructive(peer: &Peer<RoleServer>, what: &str) -> Result<(), ErrorData> {
        match peer.elicit::<Confirm>(format!("Really {what}?")).await {
            Ok(Some(answer)) if answer.confirm => Ok(()),
            Ok(_) => Err(ErrorData::invalid_request("not confirmed", None)),
            Err(e) => Err(ErrorData::invalid_request(format!("declined: {e}"), None)),
        }
    }
}

pub mod orders {
    use super::*;

    pub async fn cancel(peer: &Peer<RoleServer>, id: &str) -> Result<String, ErrorData> {
        super::gate::confirm_destructive(peer, &format!("cancel order {id}")).await?;
        Ok(format!("cancelled {id}"))
    }
}

pub mod users {
    use super::*;

    pub async fn remove(peer: &Peer<RoleServer>, name: &str) -> Result<String, ErrorData> {
        super::gate::confirm_destructive(peer, &format!("remove {name}")).await?;
        Ok(format!("removed {name}"))
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Target {
    pub id: String,
}

#[derive(Clone, Default)]
pub struct Admin;

#[tool_router]
impl Admin {
    #[tool(description = "Cancel an order")]
    async fn cancel_order(
        &self,
        Parameters(target): Parameters<Target>,
        context: RequestContext<RoleServer>,
    ) -> Result<String, ErrorData> {
        orders::cancel(&context.peer, &target.id).await
    }

    #[tool(description = "Remove a user")]
    async fn remove_user(
        &self,
        Parameters(target): Parameters<Target>,
        context: RequestContext<RoleServer>,
    ) -> Result<String, ErrorData> {
        users::remove(&context.peer, &target.id).await
    }
}

#[tool_handler]
impl ServerHandler for Admin {}
