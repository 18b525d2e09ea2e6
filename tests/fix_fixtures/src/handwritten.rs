//! A hand-written `ServerHandler` on rmcp 3.x (no tool router) whose `call_tool`, `get_prompt`
//! and `read_resource` still ask the client mid-request.

use rmcp::model::*;
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Choice {
    pub id: String,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Confirm {
    pub confirm: bool,
}

rmcp::elicit_safe!(Choice, Confirm);

#[derive(Clone, Default)]
pub struct Docs;

impl ServerHandler for Docs {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .enable_resources()
                .build(),
        );
        info.protocol_version = ProtocolVersion::V_2026_07_28;
        info
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        match request.name.as_ref() {
            "pick" => {
                // Which document?
                if let Ok(Some(choice)) = context.peer.elicit::<Choice>("Pick a document").await {
                    return Ok(CallToolResult::success(vec![ContentBlock::text(choice.id)]).into());
                }
                Ok(CallToolResult::success(vec![ContentBlock::text("nothing picked")]).into())
            }
            "login" => {
                let action = context
                    .peer
                    .elicit_url(
                        "Sign in to continue",
                        url::Url::parse("https://login.example.invalid/start").expect("a valid URL"),
                        "login-1",
                    )
                    .await;
                let text = match action {
                    Ok(ElicitationAction::Accept) => "signed in",
                    Ok(_) => "not signed in",
                    Err(_) => "sign-in failed",
                };
                Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
            }
            other => Err(ErrorData::invalid_params(format!("no tool {other}"), None)),
        }
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let roots = context
            .peer
            .list_roots()
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let text = format!("{}: {} roots", request.name, roots.roots.len());
        Ok(GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)]).into())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResult, ErrorData> {
        let show = context
            .peer
            .elicit::<Confirm>("Show the notes?")
            .await
            .ok()
            .flatten()
            .is_some_and(|c| c.confirm);
        let text = if show { "notes: ok" } else { "hidden" };
        Ok(ReadResourceResult::new(vec![ResourceContents::text(text, request.uri)]))
    }
}
