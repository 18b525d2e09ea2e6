//! Diagnostic tools `server-stateless` calls that involve no client input.

use rmcp::{
    model::{CallToolResult, ContentBlock},
    tool, tool_router, ErrorData,
};

use crate::server::ConformanceServer;

#[tool_router(router = diagnostics_router, vis = "pub(crate)")]
impl ConformanceServer {
    /// `server-stateless` checks that a request without `_meta` logLevel gets no
    /// `notifications/message`. Logging is deprecated (SEP-2577), so this server never logs to the
    /// client; the tool still has to exist so the check can observe a real response stream.
    #[tool(description = "Does some work; sends no log notifications (none were requested)")]
    async fn test_logging_tool(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![ContentBlock::text(
            "done, without logging",
        )]))
    }
}
