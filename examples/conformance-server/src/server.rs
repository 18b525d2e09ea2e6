//! The server: capabilities, protocol version, and the routing of tools and prompts to fixtures.

use std::borrow::Cow;
use std::sync::Arc;

use mrtr::{MrtrConfig, MrtrServer};

use mrtr::mrtr_handler;
use rmcp::{
    model::{
        GetPromptRequestParams, GetPromptResult, Implementation, ListPromptsResult,
        PaginatedRequestParams, Prompt, PromptMessage, ProtocolVersion, Role, ServerCapabilities,
        ServerConfig,
    },
    service::RequestContext,
    tool_handler, ErrorData, RoleServer, ServerHandler,
};
use schemars::JsonSchema;
use serde::Deserialize;

pub const SERVER_NAME: &str = "mrtr-conformance-server";

/// One per process; rmcp clones it per request, so the sealing config sits behind an `Arc`.
#[derive(Clone)]
pub struct ConformanceServer {
    mrtr: Arc<MrtrConfig>,
}

impl ConformanceServer {
    /// Seals requestState with a key generated for this process (states do not survive a restart,
    /// which a single-instance test server does not need).
    pub fn new() -> Self {
        Self::with_config(MrtrConfig::ephemeral(SERVER_NAME))
    }

    pub fn with_config(config: MrtrConfig) -> Self {
        Self {
            mrtr: Arc::new(config),
        }
    }
}

impl Default for ConformanceServer {
    fn default() -> Self {
        Self::new()
    }
}

impl MrtrServer for ConformanceServer {
    fn mrtr_config(&self) -> &MrtrConfig {
        &self.mrtr
    }
}

#[tool_handler(
    router = (Self::fixtures_router() + Self::diagnostics_router() + Self::tour_router())
)]
impl ServerHandler for ConformanceServer {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .build(),
        )
        .with_server_info(Implementation::new(SERVER_NAME, env!("CARGO_PKG_VERSION")));
        info.protocol_version = ProtocolVersion::V_2026_07_28;
        info
    }

    /// Both eras: 2026-07-28 (MRTR rounds) and the two versions most clients in the field still
    /// negotiate, whose sessions get the same handlers' asks as real requests.
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(&[
            ProtocolVersion::V_2026_07_28,
            ProtocolVersion::V_2025_11_25,
            ProtocolVersion::V_2025_06_18,
        ])
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let prompt = Prompt::new(
            PROMPT,
            Some("Asks for context, then builds the prompt"),
            None,
        );
        Ok(ListPromptsResult::with_all_items(vec![prompt]))
    }

    /// Hand-written because rmcp's `#[prompt]` cannot see `inputResponses` / `requestState`; the
    /// macro builds the `Mrtr` from the request and context.
    #[mrtr_handler]
    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResult, ErrorData> {
        if request.name != PROMPT {
            return Err(ErrorData::invalid_params(
                format!("unknown prompt {:?}", request.name),
                None,
            ));
        }
        let answer = mrtr
            .elicit::<UserContext>("What context should the prompt use?")
            .key("user_context")
            .await?;
        let given = answer
            .accepted()
            .map_or_else(|| "none given".to_string(), |form| form.context);
        let message =
            PromptMessage::new_text(Role::User, format!("Answer with this context: {given}"));
        Ok(GetPromptResult::new(vec![message]).with_description("Built from the client's context"))
    }
}

const PROMPT: &str = "test_input_required_result_prompt";

#[derive(Deserialize, JsonSchema)]
struct UserContext {
    context: String,
}
