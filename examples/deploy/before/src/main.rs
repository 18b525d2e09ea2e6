//! Legacy deploy server (rmcp 2.x): mid-request elicitations through `context.peer`.
//! Run `cargo mcp-lint examples/deploy/before` to see what has to change; `../after` is the
//! same server on rmcp 3.x with `#[mrtr_handler]`.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::*;
use rmcp::service::{ElicitationError, RequestContext};
use rmcp::{
    elicit_safe, tool, tool_handler, tool_router, ErrorData as McpError, RoleServer, ServerHandler,
    ServiceExt,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct DeployArgs {
    /// The version to deploy, e.g. "1.4.2".
    pub version: String,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Confirm {
    pub confirm: bool,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Ticket {
    pub id: String,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct ReleaseNotes {
    pub text: String,
}

elicit_safe!(Confirm, Ticket, ReleaseNotes);

#[derive(Debug, Clone)]
pub struct Plan {
    pub version: String,
    pub hosts: Vec<String>,
}

#[derive(Clone)]
pub struct Deployer;

impl Deployer {
    pub fn new() -> Self {
        Deployer
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
        Ok(CallToolResult::success(vec![ContentBlock::text(format!(
            "deployed {} to {} hosts (ticket {ticket}): {notes}",
            plan.version,
            plan.hosts.len()
        ))]))
    }
}

fn elicitation_failed(error: ElicitationError) -> McpError {
    McpError::internal_error(format!("elicitation failed: {error}"), None)
}

#[tool_router]
impl Deployer {
    #[tool(description = "Deploy a version to production")]
    async fn deploy_production(
        &self,
        Parameters(args): Parameters<DeployArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let plan = self.compute_plan(&args).await?;
        let ok = match context
            .peer
            .elicit::<Confirm>("Deploy to production?")
            .await
        {
            Ok(Some(answer)) => answer,
            Ok(None)
            | Err(ElicitationError::UserDeclined)
            | Err(ElicitationError::UserCancelled) => {
                return Ok(CallToolResult::success(vec![ContentBlock::text("cancelled")]))
            }
            Err(other) => return Err(elicitation_failed(other)),
        };
        if !ok.confirm {
            return Ok(CallToolResult::success(vec![ContentBlock::text("cancelled")]));
        }
        let ticket = context
            .peer
            .elicit::<Ticket>("Change ticket?")
            .await
            .map_err(elicitation_failed)?
            .ok_or_else(|| McpError::invalid_params("a change ticket is required", None))?;
        let notes = context
            .peer
            .elicit::<ReleaseNotes>("Release notes?")
            .await
            .map_err(elicitation_failed)?
            .map(|n| n.text)
            .unwrap_or_default();
        self.deploy(&plan, &ticket.id, &notes).await
    }
}

#[tool_handler]
impl ServerHandler for Deployer {
    fn get_info(&self) -> ServerInfo {
        ServerInfo::new(ServerCapabilities::builder().enable_tools().build())
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let service = Deployer::new().serve(rmcp::transport::stdio()).await?;
    service.waiting().await?;
    Ok(())
}
