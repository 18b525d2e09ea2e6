//! A hand-written `call_tool` that dispatches through its own chain: `execute_tool` picks a
//! family, `dispatch_notes` picks the tool, and the tool's helper samples.

use rmcp::model::*;
use rmcp::service::{Peer, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};

#[derive(Clone, Default)]
pub struct Notes;

impl Notes {
    async fn execute_tool(
        &self,
        name: &str,
        text: String,
        peer: &Peer<RoleServer>,
    ) -> Result<String, ErrorData> {
        match name {
            "summarize" | "title" => self.dispatch_notes(name, text, peer).await,
            other => Err(ErrorData::invalid_params(format!("no tool {other}"), None)),
        }
    }

    async fn dispatch_notes(
        &self,
        name: &str,
        text: String,
        peer: &Peer<RoleServer>,
    ) -> Result<String, ErrorData> {
        let prompt = if name == "title" {
            format!("Title for: {text}")
        } else {
            format!("Summarize: {text}")
        };
        summarize(peer, prompt).await
    }
}

async fn summarize(peer: &Peer<RoleServer>, prompt: String) -> Result<String, ErrorData> {
    let params = CreateMessageRequestParams::new(vec![SamplingMessage::user_text(prompt)], 64);
    let result = peer
        .create_message(params)
        .await
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
    Ok(result
        .message
        .content
        .first()
        .and_then(|c| c.as_text())
        .map(|t| t.text.clone())
        .unwrap_or_default())
}

impl ServerHandler for Notes {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let text = request
            .arguments
            .as_ref()
            .and_then(|a| a.get("text"))
            .and_then(|t| t.as_str())
            .unwrap_or_default()
            .to_string();
        let out = self.execute_tool(&request.name, text, &context.peer).await?;
        Ok(CallToolResult::success(vec![ContentBlock::text(out)]).into())
    }
}
