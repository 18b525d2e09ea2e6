//! A helper that takes the peer as an option: callers without a client pass `None`, and the
//! helper falls back to a default.

use rmcp::model::*;
use rmcp::service::{Peer, RequestContext};
use rmcp::{tool, tool_handler, tool_router, ErrorData, RoleServer, ServerHandler};

/// The client's roots, or the working directory when there is no client to ask.
async fn workspace_roots(peer: Option<&Peer<RoleServer>>) -> Vec<String> {
    let Some(peer) = peer else {
        return vec!["file:///cwd".to_string()];
    };
    match peer.list_roots().await {
        Ok(listed) => listed.roots.into_iter().map(|r| r.uri).collect(),
        Err(_) => vec!["file:///cwd".to_string()],
    }
}

#[derive(Clone, Default)]
pub struct Indexer;

#[tool_router]
impl Indexer {
    #[tool(description = "Index the workspace")]
    async fn index(&self, context: RequestContext<RoleServer>) -> Result<String, ErrorData> {
        let roots = workspace_roots(Some(&context.peer)).await;
        Ok(format!("indexed {}", roots.join(",")))
    }

    #[tool(description = "Index the default workspace")]
    async fn index_default(&self) -> Result<String, ErrorData> {
        let roots = workspace_roots(None).await;
        Ok(format!("indexed {}", roots.join(",")))
    }
}

#[tool_handler]
impl ServerHandler for Indexer {}
