//! Test harness for the wire tests: the conformance server on a loopback port behind a recorder
//! that keeps every JSON-RPC request and response as the server saw them on the wire.

pub mod recorder;

use std::net::{Ipv4Addr, SocketAddr};

use conformance_server::{router, ConformanceServer, MCP_PATH};
use tokio_util::sync::CancellationToken;

pub use recorder::{Exchange, Recorder};

/// A running server; stops when dropped.
pub struct WireServer {
    pub url: String,
    pub recorder: Recorder,
    shutdown: CancellationToken,
}

impl WireServer {
    /// Serves the conformance server on a free loopback port, recording its traffic.
    pub async fn start() -> std::io::Result<WireServer> {
        let shutdown = CancellationToken::new();
        let recorder = Recorder::default();
        let app = recorder.wrap(router(ConformanceServer::new(), &shutdown));
        let listener =
            tokio::net::TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0))).await?;
        let url = format!("http://{}{MCP_PATH}", listener.local_addr()?);
        let stop = shutdown.clone();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(async move { stop.cancelled_owned().await })
                .await;
        });
        Ok(WireServer {
            url,
            recorder,
            shutdown,
        })
    }
}

impl Drop for WireServer {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}
