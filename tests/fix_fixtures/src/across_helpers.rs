//! A confirmation helper shared by tools of two files (this one and `across_tools.rs`): it is
//! visible to the crate (`pub(crate)`), so the file-by-file rewrite leaves it, and `--fix
//! --unsafe-fixes` rewrites it with its three callers across both files in one fix.

use std::sync::{Arc, Mutex};

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::*;
use rmcp::service::{ElicitationError, RequestContext};
use rmcp::{
    tool, tool_handler, tool_router, ErrorData as McpError, Peer, RoleServer, ServerHandler,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Confirm {
    pub confirm: bool,
}

rmcp::elicit_safe!(Confirm);

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Change {
    /// What changes.
    pub name: String,
}

/// Whether the user confirms `what`: a decline or a cancel is a no.
pub(crate) async fn confirm_change(peer: &Peer<RoleServer>, what: &str) -> Result<bool, McpError> {
    match peer.elicit::<Confirm>(format!("Really {what}?")).await {
        Ok(Some(Confirm { confirm })) => Ok(confirm),
        Ok(None) => Ok(false),
        Err(ElicitationError::UserDeclined) | Err(ElicitationError::UserCancelled) => Ok(false),
        Err(e) => Err(McpError::internal_error(e.to_string(), None)),
    }
}

pub(crate) fn done(message: String) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(message)])
}

#[derive(Clone)]
pub struct Projects {
    tool_router: ToolRouter<Projects>,
    renamed: Arc<Mutex<Vec<String>>>,
}

impl Default for Projects {
    fn default() -> Self {
        Projects {
            tool_router: Self::tool_router(),
            renamed: Arc::default(),
        }
    }
}

#[tool_router]
impl Projects {
    #[tool(description = "Renames the project")]
    async fn rename_project(
        &self,
        Parameters(change): Parameters<Change>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        if !confirm_change(&context.peer, &format!("rename to {}", change.name)).await? {
            return Ok(done("kept the name".into()));
        }
        self.renamed.lock().unwrap().push(change.name.clone());
        Ok(done(format!("renamed to {}", change.name)))
    }
}

#[tool_handler]
impl ServerHandler for Projects {
    fn get_info(&self) -> ServerInfo {
        ServerInfo::new(ServerCapabilities::builder().enable_tools().build())
    }
}
