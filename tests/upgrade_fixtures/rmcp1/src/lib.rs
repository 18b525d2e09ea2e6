//! A notes server on rmcp 1.7: tools through the router, prompts, resources, server info,
//! structured results, errors, elicitation, sampling, roots and logging.
#![allow(deprecated, dead_code)]

use std::sync::{Arc, Mutex};

use rmcp::handler::server::router::prompt::PromptRouter;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::*;
use rmcp::model::Meta;
use rmcp::service::RequestContext;
use rmcp::{
    elicit_safe, prompt, prompt_handler, prompt_router, tool, tool_handler, tool_router,
    Error as McpError, Peer, RoleServer, ServerHandler,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct AddNote {
    pub title: String,
    pub body: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct NoteCount {
    pub count: usize,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Confirm {
    pub confirm: bool,
}
elicit_safe!(Confirm);

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SummaryArgs {
    pub topic: String,
}

#[derive(Clone)]
pub struct Notes {
    notes: Arc<Mutex<Vec<(String, String)>>>,
    tool_router: ToolRouter<Notes>,
    prompt_router: PromptRouter<Notes>,
}

impl Default for Notes {
    fn default() -> Self {
        Self::new()
    }
}

#[tool_router]
impl Notes {
    pub fn new() -> Self {
        Self {
            notes: Arc::default(),
            tool_router: Self::tool_router(),
            prompt_router: Self::prompt_router(),
        }
    }

    fn joined(&self) -> String {
        let notes = self.notes.lock().unwrap();
        notes.iter().map(|(t, b)| format!("{t}: {b}")).collect::<Vec<_>>().join("\n")
    }

    #[tool(description = "Add a note")]
    async fn add_note(
        &self,
        Parameters(AddNote { title, body }): Parameters<AddNote>,
    ) -> Result<CallToolResult, McpError> {
        if title.is_empty() {
            return Err(McpError::invalid_params("a note needs a title", None));
        }
        self.notes.lock().unwrap().push((title.clone(), body));
        Ok(CallToolResult::success(vec![Content::text(format!(
            "added {title}"
        ))]))
    }

    #[tool(description = "Count the notes")]
    async fn count(&self) -> Result<Json<NoteCount>, McpError> {
        Ok(Json(NoteCount {
            count: self.notes.lock().unwrap().len(),
        }))
    }

    #[tool(description = "Count the notes as structured content")]
    async fn count_structured(&self) -> Result<CallToolResult, McpError> {
        let count = self.notes.lock().unwrap().len();
        Ok(CallToolResult::structured(serde_json::json!({ "count": count })))
    }

    #[tool(description = "Delete every note, after asking the user")]
    async fn clear(&self, context: RequestContext<RoleServer>) -> Result<CallToolResult, McpError> {
        let answer = context
            .peer
            .elicit::<Confirm>("Delete every note?")
            .await
            .map_err(|e| McpError::internal_error(e.to_string(), None))?;
        if answer.is_some_and(|a| a.confirm) {
            self.notes.lock().unwrap().clear();
        }
        Ok(CallToolResult::success(vec![Content::text("done")]))
    }

    #[tool(description = "Ask for a title through a raw elicitation")]
    async fn ask_title(&self, peer: Peer<RoleServer>) -> Result<CallToolResult, McpError> {
        let params = CreateElicitationRequestParams::FormElicitationParams {
            meta: None,
            message: "Title?".into(),
            requested_schema: ElicitationSchema::builder()
                .required_string("title")
                .build()
                .map_err(|e| McpError::internal_error(e.to_string(), None))?,
        };
        let result: CreateElicitationResult = peer
            .create_elicitation(params)
            .await
            .map_err(|e| McpError::internal_error(e.to_string(), None))?;
        Ok(CallToolResult::success(vec![Content::text(format!(
            "{:?}",
            result.action
        ))]))
    }

    #[tool(description = "Summarize the notes with the client's model")]
    async fn summarize(&self, context: RequestContext<RoleServer>) -> Result<CallToolResult, McpError> {
        let params = CreateMessageRequestParams::new(vec![SamplingMessage::user_text(self.joined())], 200)
            .with_system_prompt("Summarize these notes.");
        let reply = context
            .peer
            .create_message(params)
            .await
            .map_err(|e| McpError::internal_error(e.to_string(), None))?;
        Ok(CallToolResult::success(vec![Content::text(format!(
            "{:?}",
            reply.message.content
        ))]))
    }

    #[tool(description = "List the client's roots")]
    async fn roots(&self, context: RequestContext<RoleServer>) -> Result<CallToolResult, McpError> {
        let roots = context
            .peer
            .list_roots()
            .await
            .map_err(|e| McpError::internal_error(e.to_string(), None))?;
        let uris: Vec<String> = roots.roots.into_iter().map(|r| r.uri).collect();
        context
            .peer
            .notify_logging_message(LoggingMessageNotificationParam::new(
                LoggingLevel::Info,
                serde_json::json!({ "roots": uris.len() }),
            ))
            .await
            .ok();
        Ok(CallToolResult::success(vec![Content::text(uris.join(","))]))
    }
}

#[prompt_router]
impl Notes {
    #[prompt(name = "summary", description = "Summarize the notes on a topic")]
    async fn summary(
        &self,
        Parameters(args): Parameters<SummaryArgs>,
    ) -> Result<Vec<PromptMessage>, McpError> {
        Ok(vec![PromptMessage::new_text(
            PromptMessageRole::User,
            format!("Summarize my notes about {}", args.topic),
        )])
    }
}

#[tool_handler]
#[prompt_handler]
impl ServerHandler for Notes {
    fn get_info(&self) -> ServerInfo {
        ServerInfo::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .enable_resources()
                .enable_logging()
                .build(),
        )
        .with_server_info(Implementation::new("notes", "0.1.0"))
        .with_instructions("Keeps notes.")
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParam>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let resources = self
            .notes
            .lock()
            .unwrap()
            .iter()
            .map(|(t, _)| RawResource::new(format!("note://{t}"), t.clone()).no_annotation())
            .collect();
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParam>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        let template = Annotated::new(
            RawResourceTemplate {
                uri_template: "note://{title}".to_string(),
                name: "note".to_string(),
                title: None,
                description: None,
                mime_type: Some("text/plain".to_string()),
                icons: None,
            },
            None,
        );
        Ok(ListResourceTemplatesResult::with_all_items(vec![template]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParam,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResult, McpError> {
        let title = request.uri.trim_start_matches("note://");
        let notes = self.notes.lock().unwrap();
        let Some((_, body)) = notes.iter().find(|(t, _)| t == title) else {
            return Err(McpError::resource_not_found(
                "no such note",
                Some(serde_json::json!({ "uri": request.uri })),
            ));
        };
        Ok(ReadResourceResult::new(vec![ResourceContents::text(
            body.clone(),
            request.uri.clone(),
        )]))
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let _ = request.level;
        Ok(())
    }
}

/// A note as a resource, built field by field as 1.x allowed.
pub fn note_resource(title: &str) -> Annotated<RawResource> {
    Annotated {
        raw: RawResource {
            uri: format!("note://{title}"),
            name: title.to_string(),
            title: None,
            description: Some("a note".to_string()),
            mime_type: Some("text/plain".to_string()),
            size: None,
            icons: None,
            meta: None,
        },
        annotations: None,
    }
}

/// Every tool is a plain call, which 1.x said on each tool.
pub fn plain_calls(mut tools: Vec<Tool>) -> Vec<Tool> {
    for tool in tools.iter_mut() {
        mark_task_support(tool, TaskSupport::Forbidden);
    }
    tools
}

fn mark_task_support(tool: &mut Tool, support: TaskSupport) {
    tool.execution = Some(ToolExecution::from_raw(Some(support)));
}

/// The count tool's output schema, with the fallback 1.x needed for a schema it rejected.
pub fn count_schema() -> Arc<JsonObject> {
    rmcp::handler::server::tool::schema_for_output::<NoteCount>()
        .unwrap_or_else(|_| Arc::new(JsonObject::new()))
}

/// What a completion request refers to.
pub fn reference_key(reference: &Reference) -> String {
    match reference {
        Reference::Prompt(p) => p.name.clone(),
        Reference::Resource(r) => r.uri.clone(),
    }
}

/// A log message from a named logger, if any.
pub fn log_message(logger: Option<String>, data: serde_json::Value) -> LoggingMessageNotificationParam {
    LoggingMessageNotificationParam {
        level: LoggingLevel::Info,
        logger,
        data,
    }
}

/// A note's `_meta`, built with the tuple struct's constructor: the body names nothing of rmcp
/// but `Meta`, which counts only because this file imports it by name.
pub fn note_meta(title: &str) -> Meta {
    let mut map = serde_json::Map::new();
    map.insert("title".into(), serde_json::json!(title));
    Meta(map)
}

// A client's look at a tool's result, in 1.x's content model (`Content` was
// `Annotated<RawContent>`): what `.raw` held is the content block itself on 3.x.
pub fn result_texts(result: &CallToolResult) -> Vec<String> {
    result
        .content
        .iter()
        .filter_map(|c| match &c.raw {
            RawContent::Text(t) => Some(t.text.clone()),
            _ => None,
        })
        .collect()
}

pub fn trim_texts(result: &mut CallToolResult) {
    for block in &mut result.content {
        if let RawContent::Text(ref mut t) = block.raw {
            t.text = t.text.trim().to_string();
        }
    }
}

pub fn is_image(content: &Content) -> bool {
    matches!(content.raw, RawContent::Image(_))
}

fn describe(raw: &RawContent) -> &'static str {
    match raw {
        RawContent::Text(_) => "text",
        RawContent::Image(_) => "image",
        RawContent::Resource(_) => "resource",
        RawContent::Audio(_) => "audio",
        RawContent::ResourceLink(_) => "link",
    }
}

pub fn kind_of(content: &Content) -> &'static str {
    describe(&content.raw)
}

pub fn owned_text(content: Content) -> String {
    let RawContent::Text(text) = content.raw else {
        return String::new();
    };
    text.text
}

pub fn greeting() -> Content {
    RawContent::Text(RawTextContent {
        text: "hello".into(),
        meta: None,
    })
    .no_annotation()
}
