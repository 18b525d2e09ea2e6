//! The MRTR fixtures the conformance suite calls, each an `#[mrtr_handler]`: straight-line code
//! that awaits the client's input. The macro turns each into a resumable state machine (sealed
//! requestState, capability checks, re-asking for missing answers, -32602 on tampered state).

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

#[derive(Deserialize, JsonSchema)]
struct Confirm {
    ok: bool,
}

/// What every fixture returns: `#[mrtr_handler]` turns it into `Result<CallToolResponse, _>`.
type Reply = Result<CallToolResult, ErrorData>;

fn text(text: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text)])
}

fn capital_question() -> SamplingRequest {
    SamplingRequest::new("What is the capital of France?", 100)
}

#[tool_router(router = fixtures_router, vis = "pub(crate)")]
impl ConformanceServer {
    #[tool(description = "Asks for the user's name (input key user_name), then greets them")]
    #[mrtr_handler]
    async fn test_input_required_result_elicitation(&self, mrtr: Mrtr) -> Reply {
        let name = mrtr
            .elicit::<Name>("What is your name?")
            .key("user_name")
            .await?;
        Ok(match name {
            Elicitation::Accept(Name { name }) => text(format!("Hello, {name}!")),
            _ => text("Hello, stranger!"),
        })
    }

    #[tool(description = "Asks the client's LLM a question, then reports its answer")]
    #[mrtr_handler]
    async fn test_input_required_result_sampling(&self, mrtr: Mrtr) -> Reply {
        let answer = mrtr
            .sample(capital_question())
            .key("capital_question")
            .await?;
        Ok(text(format!(
            "The model said: {}",
            answer.first_text().unwrap_or("(no text)")
        )))
    }

    #[tool(description = "Asks for the client's roots, then lists them")]
    #[mrtr_handler]
    async fn test_input_required_result_list_roots(&self, mrtr: Mrtr) -> Reply {
        let roots = mrtr.list_roots().key("client_roots").await?;
        let uris: Vec<String> = roots.into_iter().map(|root| root.uri).collect();
        Ok(text(format!("Client roots: {}", uris.join(", "))))
    }

    #[tool(description = "Asks for a confirmation; the answer only counts with the sealed state")]
    #[mrtr_handler]
    async fn test_input_required_result_request_state(&self, mrtr: Mrtr) -> Reply {
        let confirmed = mrtr.elicit::<Confirm>("Please confirm").await?;
        Ok(match confirmed {
            Elicitation::Accept(Confirm { ok: true }) => {
                text("state-ok: the sealed state verified and the call is confirmed")
            }
            _ => text("state-ok: the sealed state verified; not confirmed"),
        })
    }

    #[tool(description = "Asks for a name, an LLM answer and the roots in one round")]
    #[mrtr_handler]
    async fn test_input_required_result_multiple_inputs(&self, mrtr: Mrtr) -> Reply {
        let (name, answer, roots) = mrtr
            .join(
                mrtr.elicit::<Name>("What is your name?"),
                mrtr.sample(capital_question()),
                mrtr.list_roots(),
            )
            .await?;
        let name = name
            .accepted()
            .map_or_else(|| "stranger".to_string(), |form| form.name);
        let said = answer.first_text().unwrap_or("(no text)").to_string();
        Ok(text(format!(
            "{name}: the model said {said:?}; {} root(s)",
            roots.len()
        )))
    }

    #[tool(description = "Asks for a name, then (another round) for a favourite colour")]
    #[mrtr_handler]
    async fn test_input_required_result_multi_round(&self, mrtr: Mrtr) -> Reply {
        let Elicitation::Accept(Name { name }) =
            mrtr.elicit::<Name>("Step 1: What is your name?").await?
        else {
            return Ok(text("Step 1 declined: no name, no second question."));
        };
        let Elicitation::Accept(Color { color }) = mrtr
            .elicit::<Color>(format!("Step 2: {name}, your favourite colour?"))
            .await?
        else {
            return Ok(text(format!("{name} kept their colour to themselves.")));
        };
        Ok(text(format!("{name} likes {color}.")))
    }

    #[tool(description = "Asks for a confirmation; a changed requestState is refused with -32602")]
    #[mrtr_handler]
    async fn test_input_required_result_tampered_state(&self, mrtr: Mrtr) -> Reply {
        let answer = mrtr.elicit::<Confirm>("Please confirm").await?;
        let confirmed = answer.accepted().is_some_and(|form| form.ok);
        Ok(text(format!(
            "Request state verified; confirmed: {confirmed}"
        )))
    }

    /// Degrades to what this request declared: a form when the client can show one, else the
    /// client's LLM (the suite's capability-check scenario; see the README).
    #[tool(
        description = "Asks through whichever input the client declared: elicitation, else sampling"
    )]
    #[mrtr_handler]
    async fn test_input_required_result_capabilities(&self, mrtr: Mrtr) -> Reply {
        let answer = if mrtr.supports_form_elicitation() {
            let name = mrtr.elicit::<Name>("What is your name?").await?;
            name.accepted()
                .map_or_else(|| "declined".to_string(), |form| form.name)
        } else {
            let said = mrtr
                .sample(SamplingRequest::new("Suggest a name.", 50))
                .await?;
            said.first_text().unwrap_or("(no text)").to_string()
        };
        Ok(text(format!(
            "Declared-capability input answered: {answer}"
        )))
    }

    #[tool(
        description = "Asks for a name; the question travels in the result, never as a request on the stream"
    )]
    #[mrtr_handler]
    async fn test_streaming_elicitation(&self, mrtr: Mrtr) -> Reply {
        let name = mrtr.elicit::<Name>("What is your name?").await?;
        Ok(text(format!(
            "Hello, {}!",
            name.accepted().map_or("stranger".into(), |form| form.name)
        )))
    }

    #[tool(description = "Needs the client's LLM: without the sampling capability it is -32021")]
    #[mrtr_handler]
    async fn test_missing_capability(&self, mrtr: Mrtr) -> Reply {
        let answer = mrtr.sample(capital_question()).await?;
        Ok(text(format!(
            "The model said: {}",
            answer.first_text().unwrap_or("(no text)")
        )))
    }
}
