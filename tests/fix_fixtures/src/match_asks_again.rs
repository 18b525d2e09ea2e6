//! A `match` on an answer whose arm asks again: confirm, then ask for a reason.

use rmcp::model::*;
use rmcp::service::{ElicitationError, RequestContext};
use rmcp::{tool, tool_handler, tool_router, ErrorData, RoleServer, ServerHandler};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Sure {
    pub sure: bool,
}

rmcp::elicit_safe!(Sure);

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Reason {
    pub reason: String,
}

rmcp::elicit_safe!(Reason);

#[derive(Clone, Default)]
pub struct Archive;

#[tool_router]
impl Archive {
    #[tool(description = "Archive the project after confirmation and a reason")]
    async fn archive(&self, context: RequestContext<RoleServer>) -> Result<String, ErrorData> {
        match context.peer.elicit::<Sure>("Archive the project?").await {
            Ok(Some(answer)) if answer.sure => {
                match context.peer.elicit::<Reason>("Why archive it?").await {
                    Ok(Some(why)) => Ok(format!("archived: {}", why.reason)),
                    Ok(None) => Ok("archived: no reason".into()),
                    Err(e) => Ok(format!("archived without a reason ({e})")),
                }
            }
            Ok(_) => Ok("kept".into()),
            Err(ElicitationError::UserDeclined) => Ok("declined".into()),
            Err(e) => Err(ErrorData::internal_error(e.to_string(), None)),
        }
    }
}

#[tool_handler]
impl ServerHandler for Archive {}
