//! A tool that uses every kind of input over three rounds, one of them batched: what the wire
//! tests drive with clients of both eras, expecting the same final result from each.

use mrtr::{mrtr_handler, Elicitation, Mrtr, SamplingRequest};
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{tool, tool_router, ErrorData};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::server::ConformanceServer;

#[derive(Deserialize, JsonSchema)]
struct Name {
    name: String,
}

#[derive(Deserialize, JsonSchema)]
struct Color {
    color: String,
}

#[tool_router(router = tour_router, vis = "pub(crate)")]
impl ConformanceServer {
    #[tool(description = "Three rounds: a name; the client's LLM and its roots together; a colour")]
    #[mrtr_handler]
    async fn test_input_tour(&self, mrtr: Mrtr) -> Result<CallToolResult, ErrorData> {
        let Elicitation::Accept(Name { name }) = mrtr.elicit::<Name>("What is your name?").await?
        else {
            return Ok(text("No name given: the tour ends here."));
        };
        let (answer, roots) = mrtr
            .join(
                mrtr.sample(SamplingRequest::new(format!("Greet {name}."), 50)),
                mrtr.list_roots(),
            )
            .await?;
        let color = mrtr
            .elicit::<Color>(format!("{name}, your favourite colour?"))
            .await?;
        let color = match color {
            Elicitation::Accept(Color { color }) => color,
            Elicitation::Decline => "(declined)".to_string(),
            Elicitation::Cancel => "(cancelled)".to_string(),
        };
        let uris: Vec<String> = roots.into_iter().map(|root| root.uri).collect();
        Ok(text(format!(
            "{name} likes {color}; the model said {:?}; roots: {}",
            answer.first_text().unwrap_or("(no text)"),
            uris.join(", ")
        )))
    }
}

fn text(text: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text)])
}
