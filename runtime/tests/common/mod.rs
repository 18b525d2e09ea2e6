//! A hand-written (no macro) three-step MRTR handler used by the test-client and rmcp tests:
//! plan (side effect, round 1) -> confirm -> ticket + notes in one batch -> deploy.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use mrtr::{Ask, Elicitation, InputRequired, Mrtr, MrtrError, Outcome, StateBody};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Map, Value};

pub const FINGERPRINT: &str = "deploy-v1";

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Confirm {
    pub confirm: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Ticket {
    pub id: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Notes {
    pub text: String,
}

fn confirm_ask(mrtr: &Mrtr) -> Ask<Elicitation<Confirm>> {
    mrtr.elicit::<Confirm>("Deploy to production?")
        .key("confirm")
}

fn ticket_ask(mrtr: &Mrtr) -> Ask<Elicitation<Ticket>> {
    mrtr.elicit::<Ticket>("Change ticket?").key("ticket")
}

fn notes_ask(mrtr: &Mrtr) -> Ask<Elicitation<Notes>> {
    mrtr.elicit::<Notes>("Release notes?").key("notes")
}

/// Suspends at `step`, asking `asks` (key -> ask) and keeping `data`.
fn suspend(
    mrtr: &Mrtr,
    flow_id: &str,
    step: u32,
    data: Map<String, Value>,
    asks: Vec<(String, Value, Value)>,
) -> Result<Outcome<String>, MrtrError> {
    let mut requests = BTreeMap::new();
    for (key, request, capability) in asks {
        mrtr.check_capability(&capability)?;
        requests.insert(key, request);
    }
    let state = mrtr.seal_state(&StateBody {
        flow_id: flow_id.to_string(),
        step,
        fingerprint: FINGERPRINT.to_string(),
        data,
    })?;
    Ok(Outcome::InputRequired(InputRequired::new(
        requests,
        Some(state),
    )?))
}

fn entry<T>(ask: &Ask<T>) -> (String, Value, Value) {
    (
        ask.explicit_key().unwrap_or_default().to_string(),
        ask.input_request(),
        ask.required_capability(),
    )
}

/// The handler. `effects` counts executions of the round-1 segment.
pub async fn deploy(mrtr: Mrtr, effects: Arc<AtomicUsize>) -> Result<Outcome<String>, MrtrError> {
    let version = mrtr.arguments()["version"]
        .as_str()
        .unwrap_or("?")
        .to_string();
    let Some(state) = mrtr.open_state_for(FINGERPRINT)? else {
        effects.fetch_add(1, Ordering::SeqCst);
        let mut data = Map::new();
        data.insert("plan".into(), json!(format!("plan-{version}")));
        let flow_id = format!("{:032x}", effects.load(Ordering::SeqCst));
        return suspend(&mrtr, &flow_id, 1, data, vec![entry(&confirm_ask(&mrtr))]);
    };
    let plan = state.data["plan"].as_str().unwrap_or_default().to_string();
    match state.step {
        1 => {
            let ask = confirm_ask(&mrtr);
            let Some(answer) = mrtr.answer("confirm") else {
                return suspend(&mrtr, &state.flow_id, 1, state.data, vec![entry(&ask)]);
            };
            match ask.decode("confirm", answer)? {
                Elicitation::Accept(Confirm { confirm: true }) => suspend(
                    &mrtr,
                    &state.flow_id,
                    2,
                    state.data,
                    vec![entry(&ticket_ask(&mrtr)), entry(&notes_ask(&mrtr))],
                ),
                Elicitation::Accept(_) => Ok(Outcome::Complete("cancelled: not confirmed".into())),
                Elicitation::Decline => Ok(Outcome::Complete("cancelled: declined".into())),
                Elicitation::Cancel => Ok(Outcome::Complete("cancelled: cancel".into())),
            }
        }
        2 => {
            let mut data = state.data.clone();
            let ticket = mrtr
                .answer("ticket")
                .or(state.data.get("a:ticket"))
                .cloned();
            let notes = mrtr.answer("notes").or(state.data.get("a:notes")).cloned();
            let mut missing = Vec::new();
            match &ticket {
                Some(raw) => {
                    data.insert("a:ticket".into(), raw.clone());
                }
                None => missing.push(entry(&ticket_ask(&mrtr))),
            }
            match &notes {
                Some(raw) => {
                    data.insert("a:notes".into(), raw.clone());
                }
                None => missing.push(entry(&notes_ask(&mrtr))),
            }
            if !missing.is_empty() {
                return suspend(&mrtr, &state.flow_id, 2, data, missing);
            }
            let ticket =
                ticket_ask(&mrtr).decode("ticket", ticket.as_ref().unwrap_or(&Value::Null))?;
            let notes = notes_ask(&mrtr).decode("notes", notes.as_ref().unwrap_or(&Value::Null))?;
            match (ticket, notes) {
                (Elicitation::Accept(ticket), Elicitation::Accept(notes)) => Ok(Outcome::Complete(
                    format!("deployed {plan} ticket={} notes={}", ticket.id, notes.text),
                )),
                _ => Ok(Outcome::Complete("cancelled: no ticket".into())),
            }
        }
        _ => Err(MrtrError::InvalidState),
    }
}
