//! A fallback chain of helpers that share the tool's `Peer`: they ask through it (sampling, a
//! URL elicitation) and also send progress notifications through it, and the tool returns
//! `Result<String, String>`. `cargo mcp-lint --fix --unsafe-fixes` gives each asking helper a
//! `mrtr: &Mrtr` next to the peer it keeps for the notifications, and the tool becomes a
//! handler that still takes its `Peer`.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::*;
use rmcp::service::ElicitationMode;
use rmcp::{tool, tool_handler, tool_router, Peer, RoleServer, ServerHandler};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct TextRequest {
    /// The work to fetch.
    pub id: String,
}

#[derive(Clone)]
pub struct Library {
    tool_router: ToolRouter<Library>,
}

impl Default for Library {
    fn default() -> Self {
        Library {
            tool_router: Self::tool_router(),
        }
    }
}

impl Library {
    /// The text of `id` through the client: its model first, then the user opening a page.
    async fn text_fallback(&self, peer: &Peer<RoleServer>, id: &str) -> Option<Result<String, String>> {
        if peer.supports_sampling_tools() {
            if let Some(found) = self.ask_model(peer, id).await {
                return Some(found);
            }
        }

        let modes = peer.supported_elicitation_modes();
        if modes.contains(&ElicitationMode::Url) {
            let page = format!("https://example.org/works/{id}");
            match peer.elicit_url(format!("Open the page of {id}?"), url::Url::parse(&page).unwrap(), format!("open-{id}")).await {
                Ok(ElicitationAction::Accept) => {
                    return Some(self.wait_with_progress(peer, id).await);
                }
                Ok(_) => return None,
                Err(_) => {}
            }
        }
        None
    }

    /// A link to `id` from the client's model, if it has one.
    async fn ask_model(&self, peer: &Peer<RoleServer>, id: &str) -> Option<Result<String, String>> {
        let result = peer
            .create_message(CreateMessageRequestParams::new(
                vec![SamplingMessage::user_text(format!("Find a link to {id}"))],
                200,
            ))
            .await;
        let reply = match result {
            Ok(reply) => reply,
            Err(_) => return None,
        };
        let link = match reply.message.content.first() {
            Some(SamplingMessageContentBlock::Text(text)) => text.text.clone(),
            _ => return None,
        };
        if link == "none" {
            return None;
        }
        Some(Ok(format!("{id} from {link}")))
    }

    /// Waits for the page to be read, telling the client how far it got.
    async fn wait_with_progress(&self, peer: &Peer<RoleServer>, id: &str) -> Result<String, String> {
        let token = ProgressToken(NumberOrString::String(format!("wait-{id}").into()));
        for step in 1..=2 {
            let _ = peer
                .notify_progress(ProgressNotificationParam::new(token.clone(), f64::from(step)))
                .await;
        }
        Ok(format!("{id} opened by the user"))
    }
}

#[tool_router]
impl Library {
    #[tool(description = "Fetches the text of a work")]
    async fn work_text(
        &self,
        peer: Peer<RoleServer>,
        Parameters(request): Parameters<TextRequest>,
    ) -> Result<String, String> {
        if request.id.is_empty() {
            return Err("no id".to_string());
        }
        if let Some(result) = self.text_fallback(&peer, &request.id).await {
            return result;
        }
        Err(format!("no text for {}", request.id))
    }
}

#[tool_handler]
impl ServerHandler for Library {
    fn get_info(&self) -> ServerInfo {
        ServerInfo::new(ServerCapabilities::builder().enable_tools().build())
    }
}
