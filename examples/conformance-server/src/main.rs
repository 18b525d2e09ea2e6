//! The conformance server: every fixture the official MCP conformance suite's MRTR scenarios call,
//! served statelessly over streamable HTTP (protocol 2026-07-28) on loopback.
//!
//! Usage: `conformance-server [PORT]`, or set `CONFORMANCE_PORT`. Port 0 picks a free port. The
//! first line on stdout is `listening on http://127.0.0.1:<port>/mcp`, which scripts wait for.

use std::net::{Ipv4Addr, SocketAddr};
use std::process::ExitCode;

use conformance_server::{router, ConformanceServer, MCP_PATH};
use tokio_util::sync::CancellationToken;

const PORT_ENV: &str = "CONFORMANCE_PORT";
const DEFAULT_PORT: u16 = 3001;

fn port_from(arg: Option<String>, env: Option<String>) -> Result<u16, String> {
    match arg.or(env) {
        None => Ok(DEFAULT_PORT),
        Some(raw) => raw
            .trim()
            .parse::<u16>()
            .map_err(|_| format!("invalid port {raw:?}: expected a number from 0 to 65535")),
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let port = match port_from(std::env::args().nth(1), std::env::var(PORT_ENV).ok()) {
        Ok(port) => port,
        Err(message) => {
            eprintln!("conformance-server: {message}");
            return ExitCode::from(2);
        }
    };
    let address = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let listener = match tokio::net::TcpListener::bind(address).await {
        Ok(listener) => listener,
        Err(error) => {
            eprintln!("conformance-server: cannot listen on {address}: {error}");
            return ExitCode::FAILURE;
        }
    };
    let bound = listener.local_addr().unwrap_or(address);

    let shutdown = CancellationToken::new();
    let router = router(ConformanceServer::new(), &shutdown);

    println!("listening on http://{bound}{MCP_PATH}");
    let stop = shutdown.clone();
    tokio::spawn(async move {
        let _ = tokio::signal::ctrl_c().await;
        stop.cancel();
    });
    let served = axum::serve(listener, router)
        .with_graceful_shutdown(async move { shutdown.cancelled_owned().await })
        .await;
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("conformance-server: {error}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::port_from;

    #[test]
    fn argument_wins_over_environment() {
        assert_eq!(
            port_from(Some("4100".into()), Some("4200".into())),
            Ok(4100)
        );
        assert_eq!(port_from(None, Some("4200".into())), Ok(4200));
        assert_eq!(port_from(None, None), Ok(super::DEFAULT_PORT));
    }

    #[test]
    fn bad_port_is_a_clear_error() {
        let error = port_from(Some("http".into()), None).unwrap_err();
        assert!(error.contains("invalid port \"http\""), "{error}");
        assert!(port_from(Some("70000".into()), None).is_err());
    }
}
