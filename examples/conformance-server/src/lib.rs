//! The conformance server as a library: the bin serves [`router`] on loopback, and the wire tests
//! wrap the same router with a traffic recorder.

pub mod diagnostics;
mod fixtures;
pub mod server;

use std::sync::Arc;

use rmcp::transport::streamable_http_server::{
    session::local::LocalSessionManager, StreamableHttpServerConfig, StreamableHttpService,
};
use tokio_util::sync::CancellationToken;

pub use server::ConformanceServer;

/// Where the MCP endpoint lives on the server.
pub const MCP_PATH: &str = "/mcp";

/// The HTTP router: one stateless streamable-HTTP MCP endpoint at [`MCP_PATH`]. Each request gets
/// a clone of `server`, so every clone must seal with the same keys (they share one config).
pub fn router(server: ConformanceServer, shutdown: &CancellationToken) -> axum::Router {
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default()
            // 2026-07-28 has no sessions; every request is served on its own.
            .with_legacy_session_mode(false)
            .with_stateless_protocol_metadata_required(true)
            .with_sse_keep_alive(None)
            .with_cancellation_token(shutdown.child_token()),
    );
    axum::Router::new().nest_service(MCP_PATH, service)
}
