//! An elicitation whose form is built at run time from the tool's arguments: `cargo mcp-lint
//! --fix --unsafe-fixes` asks it with `mrtr.elicit_schema(message, schema)`. A question moved
//! out of the arguments (`args.message`) gets its own `let` first, so the arguments' type need
//! not serialize.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::*;
use rmcp::service::RequestContext;
use rmcp::{tool, tool_handler, tool_router, ErrorData as McpError, RoleServer, ServerHandler};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Fields {
    /// The names of the fields to ask for.
    pub fields: Vec<String>,
}

/// A question and its form, both from the caller; only deserialized (a tool's arguments).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Survey {
    /// The question to show.
    pub message: String,
    /// The form, as a JSON schema.
    pub schema: serde_json::Value,
}

fn text(message: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(message.into())])
}

#[derive(Clone)]
pub struct Records {
    tool_router: ToolRouter<Records>,
}

impl Default for Records {
    fn default() -> Self {
        Records {
            tool_router: Self::tool_router(),
        }
    }
}

/// The form of the review tool, assembled from data.
fn review_form(items: &[String]) -> Result<ElicitRequestParams, McpError> {
    let schema = ElicitationSchema::builder()
        .required_enum_schema(
            "decision",
            EnumSchema::builder(vec!["approve".into(), "deny".into()])
                .untitled()
                .build(),
        )
        .build()
        .map_err(|e| McpError::internal_error(e.to_string(), None))?;
    Ok(ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: format!("Approve {}?", items.join(", ")),
        requested_schema: schema,
    })
}

#[tool_router]
impl Records {
    #[tool(description = "Review items")]
    async fn review(
        &self,
        Parameters(args): Parameters<Fields>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, String> {
        let form = review_form(&args.fields).map_err(|e| e.to_string())?;
        let result = context.peer.create_elicitation(form).await.map_err(|e| e.to_string())?;
        let decision = result
            .content
            .as_ref()
            .and_then(|c| c.get("decision"))
            .and_then(|d| d.as_str())
            .unwrap_or("deny")
            .to_string();
        Ok(text(decision))
    }

    #[tool(description = "Fill in a record with the given fields")]
    async fn register(
        &self,
        Parameters(args): Parameters<Fields>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let mut builder = ElicitationSchema::builder();
        for field in &args.fields {
            builder = builder.required_string(field.clone());
        }
        let schema = builder
            .build()
            .map_err(|e| McpError::invalid_params(e.to_string(), None))?;
        let result = context
            .peer
            .create_elicitation(ElicitRequestParams::FormElicitationParams {
                meta: None,
                message: "Fill in the record".into(),
                requested_schema: schema,
            })
            .await;
        match result {
            Ok(ElicitResult {
                action: ElicitationAction::Accept,
                content: Some(content),
                ..
            }) => Ok(text(content.to_string())),
            Ok(_) => Ok(text("no record")),
            Err(e) => Err(McpError::internal_error(e.to_string(), None)),
        }
    }

    #[tool(description = "Asks the caller's question with the caller's form")]
    async fn survey(
        &self,
        request: Parameters<Survey>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, String> {
        let Parameters(args) = request;
        let schema: ElicitationSchema =
            serde_json::from_value(args.schema).map_err(|e| e.to_string())?;
        let result = context
            .peer
            .create_elicitation(ElicitRequestParams::FormElicitationParams {
                meta: None,
                message: args.message,
                requested_schema: schema,
            })
            .await
            .map_err(|e| format!("elicitation failed: {e}"))?;
        let content = result.content.map(|c| c.to_string()).unwrap_or_default();
        Ok(text(format!("{:?} {content}", result.action)))
    }
}

#[tool_handler]
impl ServerHandler for Records {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.protocol_version = ProtocolVersion::V_2026_07_28;
        info
    }
}
