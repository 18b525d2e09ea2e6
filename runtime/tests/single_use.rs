//! Single use with a replay guard: a state is used up when its round advances, not when it is
//! opened, so a rejected answer leaves it usable for a corrected retry.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use mrtr::testing::test_config;
use mrtr::{
    mrtr_handler, InMemoryReplayGuard, IncomingRequest, Mrtr, MrtrConfig, MrtrError, Outcome,
};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
struct Confirm {
    confirm: bool,
}

#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
struct Ticket {
    id: String,
}

#[mrtr_handler]
async fn deploy(runs: Arc<AtomicUsize>, mrtr: Mrtr) -> Result<Value, MrtrError> {
    runs.fetch_add(1, Ordering::SeqCst);
    let confirm = mrtr.elicit::<Confirm>("Deploy?").key("confirm").await?;
    Ok(
        json!({ "confirmed": matches!(confirm, mrtr::Elicitation::Accept(Confirm { confirm: true })) }),
    )
}

#[mrtr_handler]
async fn deploy_with_ticket(mrtr: Mrtr) -> Result<Value, MrtrError> {
    let (confirm, ticket) = mrtr
        .join(
            mrtr.elicit::<Confirm>("Deploy?").key("confirm"),
            mrtr.elicit::<Ticket>("Ticket?").key("ticket"),
        )
        .await?;
    let _ = confirm;
    let id = match ticket {
        mrtr::Elicitation::Accept(ticket) => ticket.id,
        _ => String::new(),
    };
    Ok(json!({ "ticket": id }))
}

fn guarded() -> (MrtrConfig, Arc<InMemoryReplayGuard>) {
    let guard = Arc::new(InMemoryReplayGuard::new());
    (
        test_config("single-use").with_replay_guard(guard.clone()),
        guard,
    )
}

fn request(state: Option<&str>, answers: Value) -> IncomingRequest {
    let mut request = IncomingRequest::call_tool("deploy", json!({}))
        .with_capabilities(json!({ "elicitation": {} }));
    request.request_state = state.map(|s| Value::String(s.to_string()));
    if !answers.is_null() {
        request.input_responses = Some(answers);
    }
    request
}

fn first_state(outcome: Result<Outcome<Value>, MrtrError>) -> String {
    match outcome {
        Ok(Outcome::InputRequired(result)) => result.request_state.expect("a sealed state"),
        other => panic!("expected input_required, got {other:?}"),
    }
}

fn accept(content: Value) -> Value {
    json!({ "action": "accept", "content": content })
}

fn run<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(future)
}

#[test]
fn a_wrong_answer_leaves_the_state_usable_for_a_corrected_retry_and_a_third_use_is_refused() {
    let (config, guard) = guarded();
    let runs = Arc::new(AtomicUsize::new(0));
    let state = first_state(run(deploy(
        runs.clone(),
        Mrtr::new(request(None, Value::Null), &config),
    )));

    // A wrong shape is rejected and names the key; the state is not used up.
    let wrong = run(deploy(
        runs.clone(),
        Mrtr::new(
            request(
                Some(&state),
                json!({ "confirm": accept(json!({"confirm": "yes"})) }),
            ),
            &config,
        ),
    ));
    match wrong {
        Err(MrtrError::InvalidAnswer { key, .. }) => assert_eq!(key, "confirm"),
        other => panic!("expected InvalidAnswer, got {other:?}"),
    }
    assert!(guard.is_empty(), "a rejected answer must not use the state");

    // The corrected retry of the same state completes.
    let right = || {
        request(
            Some(&state),
            json!({ "confirm": accept(json!({"confirm": true})) }),
        )
    };
    let done = run(deploy(runs.clone(), Mrtr::new(right(), &config)));
    assert_eq!(
        done.unwrap(),
        Outcome::Complete(json!({ "confirmed": true }))
    );
    assert_eq!(guard.len(), 1);
    // The code before the ask ran in the first round only.
    assert_eq!(runs.load(Ordering::SeqCst), 1);

    // A third use of that state is refused.
    let third = run(deploy(runs.clone(), Mrtr::new(right(), &config)));
    assert_eq!(third.unwrap_err(), MrtrError::InvalidState);
}

#[test]
fn one_wrong_answer_in_a_batch_keeps_the_state_and_a_re_ask_uses_it_up() {
    let (config, guard) = guarded();
    let state = first_state(run(deploy_with_ticket(Mrtr::new(
        request(None, Value::Null),
        &config,
    ))));
    let half_wrong = json!({
        "confirm": accept(json!({"confirm": true})),
        "ticket": accept(json!({"id": 7})),
    });
    let error = run(deploy_with_ticket(Mrtr::new(
        request(Some(&state), half_wrong),
        &config,
    )))
    .unwrap_err();
    assert!(matches!(error, MrtrError::InvalidAnswer { ref key, .. } if key == "ticket"));
    assert!(guard.is_empty());

    // Answering only part of the batch re-asks with a successor state: that is an advance, so
    // the old state is used up and cannot fork into a second live successor.
    let partial = json!({ "confirm": accept(json!({"confirm": true})) });
    let successor = first_state(run(deploy_with_ticket(Mrtr::new(
        request(Some(&state), partial.clone()),
        &config,
    ))));
    assert_ne!(successor, state);
    assert_eq!(guard.len(), 1);
    let fork = run(deploy_with_ticket(Mrtr::new(
        request(Some(&state), partial),
        &config,
    )));
    assert_eq!(fork.unwrap_err(), MrtrError::InvalidState);

    let done = run(deploy_with_ticket(Mrtr::new(
        request(
            Some(&successor),
            json!({ "ticket": accept(json!({"id": "T-1"})) }),
        ),
        &config,
    )));
    assert_eq!(done.unwrap(), Outcome::Complete(json!({ "ticket": "T-1" })));
}

#[test]
fn verifying_does_not_use_up_and_consuming_is_asked_once_per_request() {
    let (config, guard) = guarded();
    let state = first_state(run(deploy(
        Arc::new(AtomicUsize::new(0)),
        Mrtr::new(request(None, Value::Null), &config),
    )));
    let mrtr = Mrtr::new(request(Some(&state), Value::Null), &config);
    assert!(mrtr.verify_state().unwrap().is_some());
    assert!(mrtr.clone().verify_state().unwrap().is_some());
    assert!(guard.is_empty());
    mrtr.consume_state().unwrap();
    mrtr.clone().consume_state().unwrap();
    assert_eq!(guard.len(), 1);
    let again = Mrtr::new(request(Some(&state), Value::Null), &config);
    assert!(again.verify_state().unwrap().is_some());
    assert_eq!(again.consume_state(), Err(MrtrError::InvalidState));
}
