//! The conformance server as a library: the bin serves [`router`] on loopback, and the wire tests
//! wrap the same router with a traffic recorder.

pub mod diagnostics;
mod fixtures;
pub mod server;
mod tour;

use std::sync::Arc;

use rmcp::transport::streamable_http_server::{
    session::local::LocalSessionManager, StreamableHttpServerConfig, StreamableHttpService,
};
use tokio_util::sync::CancellationToken;

pub use server::ConformanceServer;

/// Where the MCP endpoint lives on the server.
pub const MCP_PATH: &str = "/mcp";

/// The HTTP router: one streamable-HTTP MCP endpoint at [`MCP_PATH`] that serves both eras.
/// A 2026-07-28 request is served on its own (that version has no sessions) and its rounds end
/// with `InputRequiredResult`; a client that negotiates 2025-06-18 or 2025-11-25 at `initialize`
/// gets a session, and the same handlers send it real elicitation, sampling and roots requests
/// on that session. Each request gets a clone of `server`, so every clone must seal with the
/// same keys (they share one config).
pub fn router(server: ConformanceServer, shutdown: &CancellationToken) -> axum::Router {
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default()
            // Sessions for pre-2026 clients only; 2026-07-28 requests are always stateless.
            .with_legacy_session_mode(true)
            .with_sse_keep_alive(None)
            .with_cancellation_token(shutdown.child_token()),
    );
    axum::Router::new().nest_service(MCP_PATH, service)
}
