//! A request context handed down by value through two helpers, its peer moved into a local
//! (`let peer = context.peer;`) that a capability check and the request read, with `anyhow`
//! errors that the tool turns into an error result. `cargo mcp-lint --fix --unsafe-fixes` drops
//! the local, turns the check into the runtime's and the request into an ask, and makes both
//! helpers asking helpers and both tools handlers.

use anyhow::{bail, Context as _, Result};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::*;
use rmcp::service::RequestContext;
use rmcp::{tool, tool_handler, tool_router, ErrorData as McpError, RoleServer, ServerHandler};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct FolderRequest {
    /// The folder to use; the client's first root when absent.
    pub folder: Option<String>,
}

/// The folder the request names, or the client's first root.
async fn resolve_folder(
    folder: Option<String>,
    context: RequestContext<RoleServer>,
) -> Result<String> {
    if let Some(folder) = folder {
        return Ok(folder);
    }

    let peer = context.peer;
    let has_roots = peer
        .peer_info()
        .is_some_and(|client| client.capabilities.roots.is_some());
    if !has_roots {
        bail!("no folder given and the client has no roots");
    }

    let listed = peer
        .list_roots()
        .await
        .context("could not list the client's roots")?;
    first_folder(&listed.roots)
}

fn first_folder(roots: &[Root]) -> Result<String> {
    let Some(root) = roots.first() else {
        bail!("the client has no roots");
    };
    Ok(root.uri.trim_start_matches("file://").to_string())
}

/// What the folder view shows, through the helper above.
async fn folder_view(request: FolderRequest, context: RequestContext<RoleServer>) -> Result<String> {
    let folder = resolve_folder(request.folder, context).await?;
    Ok(format!("folder {folder}"))
}

/// How many segments the folder has, through the same helper.
async fn folder_depth(request: FolderRequest, context: RequestContext<RoleServer>) -> Result<usize> {
    if request.folder.as_deref() == Some("") {
        bail!("an empty folder name");
    }
    let folder = resolve_folder(request.folder, context).await?;
    Ok(folder.split('/').filter(|s| !s.is_empty()).count())
}

fn shown(view: String) -> Result<CallToolResult> {
    Ok(CallToolResult::success(vec![ContentBlock::text(view)]))
}

#[derive(Clone)]
pub struct Folders {
    tool_router: ToolRouter<Folders>,
}

impl Default for Folders {
    fn default() -> Self {
        Folders {
            tool_router: Self::tool_router(),
        }
    }
}

#[tool_router]
impl Folders {
    #[tool(description = "Shows the folder")]
    async fn folder(
        &self,
        Parameters(request): Parameters<FolderRequest>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let result = folder_view(request, context).await.and_then(shown);
        Ok(match result {
            Ok(result) => result,
            Err(err) => CallToolResult::error(vec![ContentBlock::text(format!(
                "Could not show the folder: {err:#}"
            ))]),
        })
    }

    #[tool(description = "Counts the folder's segments")]
    async fn depth(
        &self,
        Parameters(request): Parameters<FolderRequest>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        match folder_depth(request, context).await {
            Ok(depth) => Ok(CallToolResult::success(vec![ContentBlock::text(
                depth.to_string(),
            )])),
            Err(err) => Ok(CallToolResult::error(vec![ContentBlock::text(format!(
                "{err:#}"
            ))])),
        }
    }
}

#[tool_handler]
impl ServerHandler for Folders {
    fn get_info(&self) -> ServerInfo {
        ServerInfo::new(ServerCapabilities::builder().enable_tools().build())
    }
}
