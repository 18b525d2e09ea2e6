//! A tool server as rmcp 0.8 code writes it: the request params under their 0.x names, results
//! and the server's info as struct literals, `Content`, a hand-written `call_tool` returning
//! `CallToolResult`, a `get_prompt` written as a fn returning a future and destructuring its
//! params, a `PromptMessage` literal. `scripts/test-all.sh` checks this file on rmcp 0.8; the
//! upgrade rewrites it into `lib.fixed`, which tests/fix_compile builds against rmcp 3.x.
#![allow(deprecated, dead_code)]

use std::sync::Arc;

use rmcp::model::*;
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};

#[derive(Clone, Default)]
pub struct Echo;

fn echo_tool() -> Tool {
    Tool::new("echo", "Echo the text back", Arc::new(JsonObject::new()))
}

fn text_of(request: &CallToolRequestParam) -> String {
    request
        .arguments
        .as_ref()
        .and_then(|a| a.get("text"))
        .and_then(|t| t.as_str())
        .unwrap_or_default()
        .to_string()
}

impl ServerHandler for Echo {
    fn get_info(&self) -> ServerInfo {
        ServerInfo {
            protocol_version: ProtocolVersion::V_2025_03_26,
            capabilities: ServerCapabilities::builder().enable_tools().build(),
            server_info: Implementation {
                name: "echo".to_string(),
                title: None,
                version: "0.8.0".to_string(),
                icons: None,
                website_url: None,
            },
            instructions: Some("Echoes text.".into()),
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParam>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult {
            tools: vec![echo_tool()],
            next_cursor: None,
        })
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParam,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        if request.name != "echo" {
            return Ok(CallToolResult {
                content: vec![Content::text(format!("no tool {}", request.name))],
                structured_content: None,
                is_error: Some(true),
                meta: None,
            });
        }
        Ok(CallToolResult::success(vec![Content::text(text_of(&request))]))
    }

    // Written as rmcp's trait declares it: a plain fn returning a future.
    fn get_prompt(
        &self,
        GetPromptRequestParam { name, arguments }: GetPromptRequestParam,
        _context: RequestContext<RoleServer>,
    ) -> impl std::future::Future<Output = Result<GetPromptResult, ErrorData>> + Send + '_ {
        let text = format!("Say {name} ({} arguments)", arguments.map_or(0, |a| a.len()));
        async move {
            Ok(GetPromptResult {
                description: None,
                messages: vec![PromptMessage {
                    role: PromptMessageRole::User,
                    content: PromptMessageContent::text(text),
                }],
            })
        }
    }
}
