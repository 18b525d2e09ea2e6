//! The runtime's test client driving a hand-written handler round by round.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use mrtr::testing::{tamper, Answer, End, Reply, TestClient};
use serde_json::{json, Value};

fn client() -> TestClient {
    TestClient::tool("deploy", json!({"version": "1.2.3"}))
}

fn run(client: TestClient, effects: &Arc<AtomicUsize>) -> mrtr::testing::Transcript {
    let effects = effects.clone();
    client.run_blocking(move |mrtr| common::deploy(mrtr, effects.clone()))
}

#[test]
fn three_rounds_to_completion_running_round_one_once() {
    let effects = Arc::new(AtomicUsize::new(0));
    let transcript = run(
        client()
            .answer("confirm", Answer::accept(json!({"confirm": true})))
            .answer("ticket", Answer::accept(json!({"id": "T-42"})))
            .answer("notes", Answer::accept(json!({"text": "all good"}))),
        &effects,
    );
    assert_eq!(
        transcript.complete(),
        Some(&json!("deployed plan-1.2.3 ticket=T-42 notes=all good")),
        "{transcript:#?}"
    );
    assert_eq!(transcript.rounds.len(), 3);
    assert_eq!(effects.load(Ordering::SeqCst), 1);
    let batch = transcript.asked(1).unwrap();
    assert_eq!(
        batch.input_requests.keys().collect::<Vec<_>>(),
        vec!["notes", "ticket"]
    );
    // Each retry echoes the previous state byte for byte and carries only that round's answers.
    let first_state = transcript.asked(0).unwrap().request_state.clone().unwrap();
    assert_eq!(
        transcript.rounds[1].request.request_state,
        Some(Value::String(first_state))
    );
    assert_eq!(
        transcript.rounds[2]
            .request
            .input_responses
            .as_ref()
            .unwrap()
            .as_object()
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn decline_and_cancel_reach_the_handler_as_values() {
    for (answer, text) in [
        (Answer::Decline, "cancelled: declined"),
        (Answer::Cancel, "cancelled: cancel"),
    ] {
        let effects = Arc::new(AtomicUsize::new(0));
        let transcript = run(client().answer("confirm", answer), &effects);
        assert_eq!(transcript.complete(), Some(&json!(text)));
        assert_eq!(transcript.rounds.len(), 2);
    }
}

#[test]
fn a_missing_answer_is_asked_again() {
    let effects = Arc::new(AtomicUsize::new(0));
    let transcript = run(
        client()
            .answer("confirm", Answer::accept(json!({"confirm": true})))
            .answer("ticket", Answer::Missing)
            .answer("ticket", Answer::accept(json!({"id": "T-7"})))
            .answer("notes", Answer::accept(json!({"text": "n"}))),
        &effects,
    );
    assert_eq!(
        transcript.complete(),
        Some(&json!("deployed plan-1.2.3 ticket=T-7 notes=n"))
    );
    assert_eq!(transcript.rounds.len(), 4);
    // The re-ask names only the missing key; the answered one travels in the state.
    let reask = transcript.asked(2).unwrap();
    assert_eq!(
        reask.input_requests.keys().collect::<Vec<_>>(),
        vec!["ticket"]
    );
    assert_eq!(effects.load(Ordering::SeqCst), 1);
}

#[test]
fn a_wrong_shaped_answer_is_a_clear_error() {
    let effects = Arc::new(AtomicUsize::new(0));
    let transcript = run(
        client().answer("confirm", Answer::accept(json!({"confirm": "yes please"}))),
        &effects,
    );
    let error = transcript.error().expect("an error");
    assert_eq!(error.code, -32602);
    assert!(error.message.contains("confirm"), "{}", error.message);
}

#[test]
fn tampered_state_ends_with_the_invalid_state_error() {
    let effects = Arc::new(AtomicUsize::new(0));
    let transcript = run(
        client()
            .answer("confirm", Answer::accept(json!({"confirm": true})))
            .before_round(|round, request| {
                if round == 2 {
                    tamper::map_state(request, |s| format!("{s}-TAMPERED"));
                }
            }),
        &effects,
    );
    let error = transcript.error().expect("an error");
    assert_eq!(
        (error.code, error.message.as_str()),
        (-32602, "Invalid or expired requestState")
    );
    assert_eq!(transcript.rounds.len(), 2);
}

#[test]
fn changing_principal_or_arguments_between_rounds_is_rejected() {
    type Hook = Box<dyn FnMut(usize, &mut mrtr::IncomingRequest) + Send>;
    let hooks: Vec<Hook> = vec![
        Box::new(|round, request| {
            if round == 2 {
                request.principal = Some("mallory".into());
            }
        }),
        Box::new(|round, request| {
            if round == 2 {
                request.arguments = json!({"version": "6.6.6"});
            }
        }),
        Box::new(|round, request| {
            if round == 2 {
                request.target = "other_tool".into();
            }
        }),
    ];
    for hook in hooks {
        let effects = Arc::new(AtomicUsize::new(0));
        let transcript = run(
            client()
                .principal("alice")
                .answer("confirm", Answer::accept(json!({"confirm": true})))
                .before_round(hook),
            &effects,
        );
        let error = transcript.error().expect("an error");
        assert_eq!(
            (error.code, error.message.as_str()),
            (-32602, "Invalid or expired requestState")
        );
    }
}

#[test]
fn undeclared_capabilities_are_never_embedded() {
    let effects = Arc::new(AtomicUsize::new(0));
    let transcript = run(client().capabilities(json!({"sampling": {}})), &effects);
    let error = transcript.error().expect("an error");
    assert_eq!(error.code, -32021);
    assert_eq!(
        error.data,
        Some(json!({"requiredCapabilities": {"elicitation": {}}}))
    );
    assert!(matches!(transcript.rounds[0].reply, Reply::Error(_)));
}

#[test]
fn a_client_without_capabilities_declares_none_and_gets_the_missing_capability_error() {
    let effects = Arc::new(AtomicUsize::new(0));
    let transcript = run(client().no_capabilities(), &effects);
    assert_eq!(transcript.rounds[0].request.client_capabilities, None);
    let error = transcript.error().expect("an error");
    assert_eq!(error.code, -32021);
    assert_eq!(
        error.data,
        Some(json!({"requiredCapabilities": {"elicitation": {}}}))
    );
    // A handler sees the absence too.
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = seen.clone();
    TestClient::tool("probe", json!({}))
        .no_capabilities()
        .run_blocking(move |mrtr| {
            log.lock().unwrap().push((
                mrtr.supports_form_elicitation(),
                mrtr.supports_sampling(),
                mrtr.supports_roots(),
            ));
            async { Ok::<_, mrtr::MrtrError>(mrtr::Outcome::Complete(json!("done"))) }
        });
    assert_eq!(*seen.lock().unwrap(), vec![(false, false, false)]);
}

#[test]
fn a_client_declares_exactly_the_capabilities_given() {
    let effects = Arc::new(AtomicUsize::new(0));
    let declared = json!({"elicitation": {"url": {}}});
    let transcript = run(client().capabilities(declared.clone()), &effects);
    for round in &transcript.rounds {
        assert_eq!(round.request.client_capabilities, Some(declared.clone()));
    }
    // URL mode only: a form ask is not covered, so nothing of the default set leaked in.
    assert_eq!(transcript.error().expect("an error").code, -32021);
}

#[test]
fn unscripted_keys_and_the_round_cap_stop_the_run() {
    let effects = Arc::new(AtomicUsize::new(0));
    let transcript = run(client(), &effects);
    assert!(matches!(&transcript.end, End::Unanswered { key, .. } if key == "confirm"));

    let transcript = run(
        client().answer("confirm", Answer::Missing).max_rounds(4),
        &effects,
    );
    assert_eq!(transcript.end, End::TooManyRounds);
    assert_eq!(transcript.rounds.len(), 4);
}

#[test]
fn rmcp_responses_and_errors_are_understood() {
    use rmcp::model::{CallToolResponse, CallToolResult, ContentBlock};
    use rmcp::ErrorData;

    let effects = Arc::new(AtomicUsize::new(0));
    let handler = |mrtr: mrtr::Mrtr| {
        let effects = effects.clone();
        async move {
            let outcome = common::deploy(mrtr, effects)
                .await
                .map_err(ErrorData::from)?;
            Ok::<_, ErrorData>(match outcome {
                mrtr::Outcome::Complete(text) => CallToolResponse::Complete(
                    CallToolResult::success(vec![ContentBlock::text(text)]),
                ),
                mrtr::Outcome::InputRequired(result) => {
                    CallToolResponse::InputRequired(mrtr::rmcp::to_rmcp_input_required(result))
                }
            })
        }
    };
    let transcript = client()
        .answer("confirm", Answer::Decline)
        .run_blocking(handler);
    let complete = transcript.complete().expect("complete");
    assert_eq!(complete["content"][0]["text"], "cancelled: declined");
    assert_eq!(transcript.asked(0).unwrap().input_requests.len(), 1);

    let transcript = client()
        .answer("confirm", Answer::accept(json!({"confirm": true})))
        .before_round(|round, request| {
            if round == 2 {
                tamper::map_state(request, |s| tamper::flip_char(s, s.len() / 2));
            }
        })
        .run_blocking(handler);
    let error = transcript.error().expect("error");
    assert_eq!(
        (error.code, error.message.as_str()),
        (-32602, "Invalid or expired requestState")
    );
}
