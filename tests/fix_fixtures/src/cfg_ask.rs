//! An ask only some builds send: the roots are asked for under `#[cfg(unix)]`. Hoisting the ask
//! into a `let` of its own would leave the attribute behind, and every build would ask; the call
//! is rewritten where it stands, under its attribute.

use rmcp::model::*;
use rmcp::service::RequestContext;
use rmcp::{tool, tool_handler, tool_router, ErrorData, RoleServer, ServerHandler};

#[derive(Clone, Default)]
pub struct Files;

#[tool_router]
impl Files {
    #[tool(description = "Say where the files are")]
    async fn where_files(&self, context: RequestContext<RoleServer>) -> Result<String, ErrorData> {
        #[cfg(unix)]
        let place = match context.peer.list_roots().await {
            Ok(listed) => listed.roots.into_iter().map(|r| r.uri).collect::<Vec<_>>().join(","),
            Err(_) => "file:///cwd".to_string(),
        };
        #[cfg(not(unix))]
        let place = "file:///C:/".to_string();
        Ok(format!("files under {place}"))
    }
}

#[tool_handler]
impl ServerHandler for Files {}
