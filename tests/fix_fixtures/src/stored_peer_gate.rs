//! A confirmation gate behind a trait object: the service layer takes `&dyn Confirmer` and calls
//! it before any effect; the MCP shim builds one holding the request's peer, in a helper that
//! the hand-written `call_tool` calls. The ask sits inside `tokio::time::timeout`, and the gate
//! maps rmcp's `ElicitationError` variants itself.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::*;
use rmcp::service::{ElicitationError, Peer, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ConfirmStop {
    pub confirm: bool,
}

rmcp::elicit_safe!(ConfirmStop);

/// Asked before any effect; `Err` is a hard stop.
#[async_trait::async_trait]
pub trait Confirmer: Send + Sync {
    async fn require(&self, what: &str) -> Result<(), String>;
}

pub struct PeerConfirmer {
    peer: Peer<RoleServer>,
}

impl PeerConfirmer {
    pub fn new(peer: Peer<RoleServer>) -> Self {
        Self { peer }
    }
}

#[async_trait::async_trait]
impl Confirmer for PeerConfirmer {
    async fn require(&self, what: &str) -> Result<(), String> {
        let outcome = tokio::time::timeout(
            Duration::from_secs(10),
            self.peer.elicit::<ConfirmStop>(format!("Really stop {what}?")),
        )
        .await;
        match outcome {
            Err(_) => Err("timed out".into()),
            Ok(Ok(Some(answer))) if answer.confirm => Ok(()),
            Ok(Err(ElicitationError::UserDeclined)) => Err("declined".into()),
            Ok(Err(ElicitationError::UserCancelled)) => Err("cancelled".into()),
            Ok(Err(other)) => Err(format!("confirmation failed: {other}")),
            Ok(Ok(_)) => Err("not confirmed".into()),
        }
    }
}

/// The service layer: validation, the gate, then the effect.
#[derive(Default)]
pub struct Containers {
    pub stopped: AtomicUsize,
}

impl Containers {
    pub async fn stop(&self, confirmer: &dyn Confirmer, name: &str) -> Result<String, String> {
        if name.is_empty() {
            return Err("no container named".into());
        }
        confirmer.require(name).await?;
        self.stopped.fetch_add(1, Ordering::SeqCst);
        Ok(format!("stopped {name}"))
    }
}

fn build_confirmer(peer: &Peer<RoleServer>) -> Box<dyn Confirmer> {
    Box::new(PeerConfirmer::new(peer.clone()))
}

#[derive(Clone, Default)]
pub struct Gatekeeper {
    pub containers: Arc<Containers>,
}

impl ServerHandler for Gatekeeper {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request
            .arguments
            .as_ref()
            .and_then(|args| args.get("name"))
            .and_then(|name| name.as_str())
            .unwrap_or_default()
            .to_string();
        let confirmer = build_confirmer(&context.peer);
        match self.containers.stop(confirmer.as_ref(), &name).await {
            Ok(text) => Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into()),
            Err(reason) => Ok(CallToolResult::error(vec![ContentBlock::text(reason)]).into()),
        }
    }
}
