//! A helper that reads the request's context from a task-local the server sets around each tool
//! call (its hand-written `call_tool`), reached from the tool through a public `*_impl` function.
//! Neither the helper nor the function takes a peer: `cargo mcp-lint --fix --unsafe-fixes` gives
//! each a last `mrtr: &Mrtr` parameter, drops the `let` that read the context, and makes the tool
//! a handler that passes `&mrtr`. The tool's `impl` function is `pub`, so the pass across the
//! crate's files rewrites it.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::*;
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, ErrorData as McpError, RoleServer, ServerHandler};
use schemars::JsonSchema;
use serde::Deserialize;

tokio::task_local! {
    static REQUEST: RequestContext<RoleServer>;
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct QueryRequest {
    /// A query to run as is.
    pub query: Option<String>,
    /// What to ask for, when no query is given.
    pub question: String,
}

#[derive(Clone)]
pub struct Queries {
    tool_router: ToolRouter<Queries>,
}

impl Default for Queries {
    fn default() -> Self {
        Queries {
            tool_router: Self::tool_router(),
        }
    }
}

impl Queries {
    /// The context of the request this task serves.
    pub fn current_request_context() -> Option<RequestContext<RoleServer>> {
        REQUEST.try_with(Clone::clone).ok()
    }
}

/// A query for `question`, drafted by the client's model.
async fn draft_query(question: &str) -> Result<String, McpError> {
    let context = Queries::current_request_context()
        .ok_or_else(|| McpError::internal_error("no request context", None))?;
    let reply = context
        .peer
        .create_message(CreateMessageRequestParams::new(
            vec![SamplingMessage::user_text(format!("Query for: {question}"))],
            100,
        ))
        .await
        .map_err(|e| McpError::internal_error(e.to_string(), None))?;
    let drafted = reply
        .message
        .content
        .first()
        .and_then(|block| block.as_text())
        .map(|text| text.text.clone())
        .unwrap_or_default();
    Ok(drafted)
}

/// The tool's body, kept out of the router.
pub async fn run_query_impl(
    _service: &Queries,
    Parameters(request): Parameters<QueryRequest>,
) -> Result<CallToolResult, McpError> {
    let query = match request.query {
        Some(query) => query,
        None => draft_query(&request.question).await?,
    };
    Ok(CallToolResult::success(vec![ContentBlock::text(format!(
        "ran {query}"
    ))]))
}

#[tool_router]
impl Queries {
    #[tool(description = "Runs a query")]
    async fn run_query(
        &self,
        params: Parameters<QueryRequest>,
    ) -> Result<CallToolResult, McpError> {
        run_query_impl(self, params).await
    }
}

impl ServerHandler for Queries {
    fn get_info(&self) -> ServerInfo {
        ServerInfo::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let call = ToolCallContext::new(self, request, context.clone());
        REQUEST.scope(context, self.tool_router.call(call)).await
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.tool_router.list_all()))
    }
}
