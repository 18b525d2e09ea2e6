//! Test harness for the wire tests: the conformance server on a loopback port behind a recorder
//! that keeps every JSON-RPC request and response as the server saw them on the wire.

pub mod python;
pub mod recorder;

use std::net::{Ipv4Addr, SocketAddr};

use conformance_server::{router, ConformanceServer, MCP_PATH};
use tokio_util::sync::CancellationToken;

pub use recorder::{Exchange, Recorder};

use serde_json::Value;

/// A running server; stops when dropped.
pub struct WireServer {
    pub url: String,
    pub recorder: Recorder,
    shutdown: CancellationToken,
}

impl WireServer {
    /// Serves the conformance server on a free loopback port, recording its traffic.
    pub async fn start() -> std::io::Result<WireServer> {
        WireServer::serve(ConformanceServer::new(), true).await
    }

    /// The same server without the recorder, for pre-2026 clients: the recorder buffers each
    /// response to its end, and such a client must see the server's requests on the response
    /// stream while it is still open.
    pub async fn start_unrecorded() -> std::io::Result<WireServer> {
        WireServer::serve(ConformanceServer::new(), false).await
    }

    /// [`WireServer::start_unrecorded`] with a server of the test's own configuration.
    pub async fn start_unrecorded_with(server: ConformanceServer) -> std::io::Result<WireServer> {
        WireServer::serve(server, false).await
    }

    async fn serve(server: ConformanceServer, recorded: bool) -> std::io::Result<WireServer> {
        let shutdown = CancellationToken::new();
        let recorder = Recorder::default();
        let app = router(server, &shutdown);
        let app = if recorded { recorder.wrap(app) } else { app };
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

/// Checks one MRTR call chain as the server saw it: `rounds` input_required replies then a final
/// one; the first request carries no state; every retry uses a new JSON-RPC id, carries
/// inputResponses, and echoes the previous reply's requestState byte for byte; and each round
/// sealed a different state.
pub fn assert_retry_chain(calls: &[Exchange], rounds: usize) {
    assert_eq!(
        calls.len(),
        rounds + 1,
        "one request per round plus the final one: {calls:#?}"
    );
    for (index, call) in calls.iter().enumerate() {
        assert_eq!(call.status, 200, "round {index}: {call:?}");
        assert_eq!(
            call.is_input_required(),
            index < rounds,
            "round {index}: {:?}",
            call.reply()
        );
    }
    assert!(
        calls[0].sent_state().is_none(),
        "the first call carries no state"
    );
    let mut ids: Vec<String> = calls
        .iter()
        .map(|call| format!("{:?}", call.id()))
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!(
        ids.len(),
        calls.len(),
        "every retry uses a new JSON-RPC id: {ids:?}"
    );
    for pair in calls.windows(2) {
        let handed_out = pair[0]
            .returned_state()
            .expect("input_required carries requestState");
        let echoed = pair[1]
            .sent_state()
            .and_then(Value::as_str)
            .expect("retry carries requestState");
        assert_eq!(
            echoed.as_bytes(),
            handed_out.as_bytes(),
            "state echoed byte for byte"
        );
        assert!(
            pair[1].sent_input_responses().is_some(),
            "retry carries inputResponses"
        );
    }
    let mut states: Vec<&str> = calls[..rounds]
        .iter()
        .filter_map(Exchange::returned_state)
        .collect();
    states.sort_unstable();
    states.dedup();
    assert_eq!(states.len(), rounds, "each round seals a new state");
}
