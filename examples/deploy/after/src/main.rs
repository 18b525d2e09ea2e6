//! The deploy server on rmcp 3.x and the 2026-07-28 protocol: the same straight-line tool as
//! `../before`, but each question is an ask that `#[mrtr_handler]` turns into an
//! `InputRequiredResult` round; the plan is computed once and travels in the sealed
//! `requestState`.
//!
//! Run it over stdio: `cargo run -p deploy-after`. Set `MRTR_KEYS=k1:<64 hex chars>` so that
//! several instances (or a restart) can resume each other's flows; without it a per-process key
//! is used and a warning printed.

use mrtr::{mrtr_handler, Ask, Elicitation, Mrtr, MrtrConfig, MrtrServer};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::*;
use rmcp::{tool, tool_handler, tool_router, ErrorData as McpError, ServerHandler, ServiceExt};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct DeployArgs {
    /// The version to deploy, e.g. "1.4.2".
    pub version: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Confirm {
    pub confirm: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Ticket {
    pub id: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReleaseNotes {
    pub text: String,
}

/// Kept across asks, so it travels in the sealed state: it must be `Serialize + Deserialize`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Plan {
    pub version: String,
    pub hosts: Vec<String>,
}

#[derive(Clone)]
pub struct Deployer {
    config: MrtrConfig,
}

impl MrtrServer for Deployer {
    fn mrtr_config(&self) -> &MrtrConfig {
        &self.config
    }
}

fn ask_ticket(mrtr: &Mrtr) -> Ask<Elicitation<Ticket>> {
    mrtr.elicit::<Ticket>("Change ticket?")
}

fn ask_notes(mrtr: &Mrtr) -> Ask<Elicitation<ReleaseNotes>> {
    mrtr.elicit::<ReleaseNotes>("Release notes?")
}

fn text(message: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(message.into())])
}

impl Deployer {
    pub fn new(config: MrtrConfig) -> Self {
        Deployer { config }
    }

    async fn compute_plan(&self, args: &DeployArgs) -> Result<Plan, McpError> {
        Ok(Plan {
            version: args.version.clone(),
            hosts: vec!["web-1".into(), "web-2".into()],
        })
    }

    async fn deploy(
        &self,
        plan: &Plan,
        ticket: &str,
        notes: &str,
    ) -> Result<CallToolResult, McpError> {
        Ok(text(format!(
            "deployed {} to {} hosts (ticket {ticket}): {notes}",
            plan.version,
            plan.hosts.len()
        )))
    }
}

#[tool_router]
impl Deployer {
    #[tool(description = "Deploy a version to production")]
    #[mrtr_handler]
    async fn deploy_production(
        &self,
        Parameters(args): Parameters<DeployArgs>,
        mrtr: Mrtr,
    ) -> Result<CallToolResult, McpError> {
        let plan = self.compute_plan(&args).await?; // runs once, in round 1
        let ok = mrtr.elicit::<Confirm>("Deploy to production?").await?; // round boundary
        let Elicitation::Accept(Confirm { confirm: true }) = ok else {
            return Ok(text("cancelled"));
        };
        // One round, two inputRequests.
        let (ticket, notes) = mrtr.join(ask_ticket(&mrtr), ask_notes(&mrtr)).await?;
        let Elicitation::Accept(ticket) = ticket else {
            return Err(McpError::invalid_params(
                "a change ticket is required",
                None,
            ));
        };
        let notes = notes.accepted().map(|n| n.text).unwrap_or_default();
        self.deploy(&plan, &ticket.id, &notes).await
    }
}

#[tool_handler]
impl ServerHandler for Deployer {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.protocol_version = ProtocolVersion::V_2026_07_28;
        info
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let config = MrtrConfig::from_env("deploy-after")?;
    let service = Deployer::new(config)
        .serve(rmcp::transport::stdio())
        .await?;
    service.waiting().await?;
    Ok(())
}
