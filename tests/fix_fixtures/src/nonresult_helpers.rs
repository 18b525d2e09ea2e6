//! Helpers that return a plain value (`Vec<PathBuf>`, `Option<String>`, `bool`,
//! `Option<Result<String, String>>`) and handle the errors of their legacy requests themselves.
//! `cargo mcp-lint --fix --unsafe-fixes` turns each into an asking helper returning
//! `Result<T, McpError>` (every `return` and the tail wrapped in `Ok`), keeps the local handling
//! of the request's own errors, hoists calls that stood in a condition or an argument into their
//! own `let`, and walks a chain of such helpers up to the tools. The near misses at the end are
//! left as they are, each with its reason.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

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

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Region {
    pub region: String,
}

rmcp::elicit_safe!(Confirm, Region);

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Target {
    /// What the tool acts on.
    pub name: String,
}

fn text(message: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(message.into())])
}

fn describe(paths: &[PathBuf]) -> String {
    if paths.is_empty() {
        return "no roots".into();
    }
    let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    shown.join(",")
}

/// The client's roots as local paths: none when the client declared no roots or the request
/// failed.
async fn client_paths(context: &RequestContext<RoleServer>) -> Vec<PathBuf> {
    let declared = context
        .peer
        .peer_info()
        .is_some_and(|info| info.capabilities.roots.is_some());
    if !declared {
        return Vec::new();
    }
    let Ok(listed) = context.peer.list_roots().await else {
        return Vec::new();
    };
    listed
        .roots
        .iter()
        .filter_map(|root| root.uri.strip_prefix("file://"))
        .map(PathBuf::from)
        .collect()
}

/// The first root, through the helper above: an asking helper too.
async fn workspace_root(context: &RequestContext<RoleServer>) -> Option<PathBuf> {
    let paths = client_paths(context).await;
    paths.into_iter().next()
}

/// The last segment of that root: a `?` on the `Option` the helper above returns.
async fn workspace_name(context: &RequestContext<RoleServer>) -> Option<String> {
    let root = workspace_root(context).await?;
    root.file_name().map(|name| name.to_string_lossy().into_owned())
}

/// A summary from the client's model, or nothing when sampling fails.
async fn summarize(peer: &Peer<RoleServer>, notes: &str) -> Option<String> {
    let reply = match peer
        .create_message(CreateMessageRequestParams::new(
            vec![SamplingMessage::user_text(format!("Summarize: {notes}"))],
            50,
        ))
        .await
    {
        Ok(reply) => reply,
        Err(_) => return None,
    };
    let block = reply.message.content.first()?;
    block.as_text().map(|t| t.text.clone())
}

/// The region to use: `None` when the client cannot be asked, an error when the user refuses.
async fn ask_region(peer: &Peer<RoleServer>) -> Option<Result<String, String>> {
    match peer.elicit::<Region>("Which region?").await {
        Ok(Some(Region { region })) => Some(Ok(region)),
        Err(ElicitationError::UserDeclined) | Err(ElicitationError::UserCancelled) => {
            Some(Err("no region chosen".to_string()))
        }
        Ok(None) | Err(_) => None,
    }
}

/// The first root's URI: `.ok()?` on the request, then a `?` on an `Option` in a `let`.
async fn first_uri(peer: &Peer<RoleServer>) -> Option<String> {
    let listed = peer.list_roots().await.ok()?;
    let first = listed.roots.first()?;
    Some(first.uri.clone())
}

/// Near miss: a `?` on an `Option` inside an expression, which would not compile in a helper
/// that returns `Result`.
async fn first_root_uri(peer: &Peer<RoleServer>) -> Option<String> {
    let listed = peer.list_roots().await.ok()?;
    Some(listed.roots.first()?.uri.clone())
}

/// Near miss: its only caller calls it after `self.bump()`, which would then run second.
async fn root_count(peer: &Peer<RoleServer>) -> usize {
    peer.list_roots()
        .await
        .map(|listed| listed.roots.len())
        .unwrap_or(0)
}

/// A sampling-with-tools capability check: the runtime's `Mrtr::supports_sampling_tools` after the fix.
async fn can_sample_with_tools(peer: &Peer<RoleServer>) -> bool {
    if !peer.supports_sampling_tools() {
        return false;
    }
    peer.create_message(CreateMessageRequestParams::new(
        vec![SamplingMessage::user_text("Ready?")],
        5,
    ))
    .await
    .is_ok()
}

#[derive(Clone)]
pub struct Workspace {
    tool_router: ToolRouter<Workspace>,
    calls: Arc<AtomicUsize>,
}

impl Default for Workspace {
    fn default() -> Self {
        Workspace {
            tool_router: Self::tool_router(),
            calls: Arc::new(AtomicUsize::new(0)),
        }
    }
}

impl Workspace {
    fn bump(&self) -> usize {
        self.calls.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// Yes only when the user accepts and confirms; any failure is a no.
    async fn confirm(&self, peer: &Peer<RoleServer>, what: &str) -> bool {
        match peer.elicit::<Confirm>(format!("Really {what}?")).await {
            Ok(Some(Confirm { confirm })) => confirm,
            _ => false,
        }
    }
}

#[tool_router]
impl Workspace {
    #[tool(description = "Lists the client's roots as paths")]
    async fn paths(&self, context: RequestContext<RoleServer>) -> Result<CallToolResult, McpError> {
        Ok(text(describe(&client_paths(&context).await)))
    }

    #[tool(description = "Names the workspace")]
    async fn workspace(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let name = workspace_name(&context).await.unwrap_or_else(|| "unnamed".into());
        Ok(text(name))
    }

    #[tool(description = "Summarizes a target")]
    async fn summary(
        &self,
        Parameters(target): Parameters<Target>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        if let Some(summary) = summarize(&ctx.peer, &target.name).await {
            return Ok(text(summary));
        }
        Ok(text("no summary"))
    }

    #[tool(description = "Drops a table once confirmed")]
    async fn drop_table(
        &self,
        Parameters(target): Parameters<Target>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        if !self.confirm(&ctx.peer, &format!("drop {}", target.name)).await {
            return Ok(text("kept"));
        }
        Ok(text(format!("dropped {}", target.name)))
    }

    #[tool(description = "Picks a region")]
    async fn region(&self, context: RequestContext<RoleServer>) -> Result<CallToolResult, McpError> {
        let chosen = ask_region(&context.peer).await;
        Ok(text(match chosen {
            Some(Ok(region)) => region,
            Some(Err(why)) => why,
            None => "no region".to_string(),
        }))
    }

    #[tool(description = "The first root's URI, if there is one")]
    async fn root_uri(&self, ctx: RequestContext<RoleServer>) -> Result<CallToolResult, McpError> {
        match first_uri(&ctx.peer).await {
            Some(uri) => Ok(text(uri)),
            None => Ok(text("no root")),
        }
    }

    #[tool(description = "The first root's URI")]
    async fn first_root(&self, ctx: RequestContext<RoleServer>) -> Result<CallToolResult, McpError> {
        let uri = first_root_uri(&ctx.peer).await;
        Ok(text(uri.unwrap_or_default()))
    }

    #[tool(description = "Counts the roots, and the calls")]
    async fn count(&self, ctx: RequestContext<RoleServer>) -> Result<CallToolResult, McpError> {
        let total = self.bump() + root_count(&ctx.peer).await;
        Ok(text(total.to_string()))
    }

    #[tool(description = "Whether the client samples with tools")]
    async fn tools_ready(
        &self,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let ready = can_sample_with_tools(&ctx.peer).await;
        Ok(text(ready.to_string()))
    }
}

#[tool_handler]
impl ServerHandler for Workspace {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.protocol_version = ProtocolVersion::V_2026_07_28;
        info
    }
}
