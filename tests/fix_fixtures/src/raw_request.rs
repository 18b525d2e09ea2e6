//! A raw `ServerRequest` sent with the peer's `send_request`, its `ClientResult` matched.

use rmcp::model::*;
use rmcp::service::RequestContext;
use rmcp::{tool, tool_handler, tool_router, ErrorData, RoleServer, ServerHandler};

#[derive(Clone, Default)]
pub struct Explorer;

#[tool_router]
impl Explorer {
    #[tool(description = "Count the client's roots")]
    async fn count_roots(&self, context: RequestContext<RoleServer>) -> Result<String, ErrorData> {
        let answer = context
            .peer
            .send_request(ServerRequest::ListRootsRequest(ListRootsRequest::default()))
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        match answer {
            ClientResult::ListRootsResult(listed) => Ok(format!("{} roots", listed.roots.len())),
            _ => Err(ErrorData::internal_error("not a roots answer", None)),
        }
    }
}

#[tool_handler]
impl ServerHandler for Explorer {}
