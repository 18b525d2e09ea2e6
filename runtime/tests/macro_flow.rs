//! Behaviour of `#[mrtr_handler]` expansions, driven round by round with the runtime's test
//! client (no SDK involved).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use mrtr::testing::{tamper, Answer, End, Reply, TestClient};
use mrtr::{
    mrtr_handler, Ask, Elicitation, IncomingRequest, KeyRing, Mrtr, MrtrConfig, MrtrError, Outcome,
    SamplingRequest, SamplingResponse, SecretKey, UrlElicitation,
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

#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
struct Notes {
    text: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
struct Plan {
    version: String,
    steps: u32,
}

/// Counts how often each segment ran, across all rounds of one flow.
#[derive(Default)]
struct Counters {
    plan: AtomicUsize,
    arm: AtomicUsize,
    deploy: AtomicUsize,
}

impl Counters {
    fn get(counter: &AtomicUsize) -> usize {
        counter.load(Ordering::SeqCst)
    }
}

fn ask_ticket(mrtr: &Mrtr) -> Ask<Elicitation<Ticket>> {
    mrtr.elicit::<Ticket>("Change ticket?")
}

/// The deploy flow of the issue: a plan computed once, a confirmation, then two questions in one
/// round.
#[mrtr_handler]
async fn deploy(counters: Arc<Counters>, version: String, mrtr: Mrtr) -> Result<Value, MrtrError> {
    counters.plan.fetch_add(1, Ordering::SeqCst);
    let plan = Plan {
        version: version.clone(),
        steps: 3,
    };
    let ok = mrtr
        .elicit::<Confirm>(format!("Deploy {} ({} steps)?", plan.version, plan.steps))
        .await?;
    let Elicitation::Accept(Confirm { confirm: true }) = ok else {
        return Ok(json!({ "status": "cancelled", "answer": format!("{ok:?}") }));
    };
    let (ticket, notes) = mrtr
        .join(ask_ticket(&mrtr), mrtr.elicit::<Notes>("Release notes?"))
        .await?;
    let (Elicitation::Accept(ticket), Elicitation::Accept(notes)) = (ticket, notes) else {
        return Ok(json!({ "status": "no ticket" }));
    };
    counters.deploy.fetch_add(1, Ordering::SeqCst);
    Ok(json!({ "deployed": plan.version, "ticket": ticket.id, "notes": notes.text }))
}

fn deploy_client() -> TestClient {
    TestClient::tool("deploy", json!({ "version": "1.2.3" }))
}

fn run_deploy(client: TestClient) -> (mrtr::testing::Transcript, Arc<Counters>) {
    let counters = Arc::new(Counters::default());
    let c = counters.clone();
    let transcript = client.run_blocking(move |mrtr| deploy(c.clone(), "1.2.3".into(), mrtr));
    (transcript, counters)
}

#[test]
fn three_rounds_with_a_batch_and_no_segment_runs_twice() {
    let (transcript, counters) = run_deploy(
        deploy_client()
            .answer("s1.ok", Answer::accept(json!({ "confirm": true })))
            .answer("s2.ticket", Answer::accept(json!({ "id": "CHG-7" })))
            .answer("s2.notes", Answer::accept(json!({ "text": "fixes" }))),
    );
    assert_eq!(
        transcript.end,
        End::Complete(json!({ "deployed": "1.2.3", "ticket": "CHG-7", "notes": "fixes" }))
    );
    assert_eq!(transcript.rounds.len(), 3);
    let first = transcript.asked(0).expect("round 1 asks");
    assert_eq!(first.input_requests.keys().collect::<Vec<_>>(), ["s1.ok"]);
    assert_eq!(
        first.input_requests["s1.ok"]["params"]["message"],
        "Deploy 1.2.3 (3 steps)?"
    );
    assert!(
        first.request_state.is_some(),
        "a suspension always carries state"
    );
    let second = transcript.asked(1).expect("round 2 asks");
    assert_eq!(
        second.input_requests.keys().collect::<Vec<_>>(),
        ["s2.notes", "s2.ticket"],
        "a batch is one round with several inputRequests"
    );
    assert_ne!(first.request_state, second.request_state);
    assert_eq!(
        Counters::get(&counters.plan),
        1,
        "the segment before the first ask ran again"
    );
    assert_eq!(Counters::get(&counters.deploy), 1);
}

#[test]
fn decline_and_cancel_reach_the_handler_as_values() {
    for (answer, shown) in [(Answer::Decline, "Decline"), (Answer::Cancel, "Cancel")] {
        let (transcript, counters) = run_deploy(deploy_client().answer("s1.ok", answer));
        assert_eq!(
            transcript.end,
            End::Complete(json!({ "status": "cancelled", "answer": shown }))
        );
        assert_eq!(transcript.rounds.len(), 2);
        assert_eq!(Counters::get(&counters.plan), 1);
        assert_eq!(Counters::get(&counters.deploy), 0);
    }
}

#[test]
fn a_missing_answer_is_asked_again_not_an_error() {
    let (transcript, counters) = run_deploy(
        deploy_client()
            .answer("s1.ok", Answer::Missing)
            .answer("s1.ok", Answer::accept(json!({ "confirm": true })))
            .answer("s2.ticket", Answer::accept(json!({ "id": "CHG-1" })))
            .answer("s2.notes", Answer::accept(json!({ "text": "n" }))),
    );
    assert!(transcript.complete().is_some(), "{:?}", transcript.end);
    assert_eq!(transcript.rounds.len(), 4);
    let again = transcript.asked(1).expect("round 2 asks again");
    assert_eq!(again.input_requests.keys().collect::<Vec<_>>(), ["s1.ok"]);
    assert_eq!(Counters::get(&counters.plan), 1);
}

#[test]
fn a_batch_answered_in_part_keeps_the_part_and_asks_only_the_rest() {
    let (transcript, _) = run_deploy(
        deploy_client()
            .answer("s1.ok", Answer::accept(json!({ "confirm": true })))
            .answer("s2.ticket", Answer::accept(json!({ "id": "CHG-9" })))
            .answer("s2.notes", Answer::Missing)
            .answer("s2.notes", Answer::accept(json!({ "text": "late" }))),
    );
    assert_eq!(
        transcript.end,
        End::Complete(json!({ "deployed": "1.2.3", "ticket": "CHG-9", "notes": "late" }))
    );
    let third = transcript
        .asked(2)
        .expect("round 3 re-asks the missing half");
    assert_eq!(
        third.input_requests.keys().collect::<Vec<_>>(),
        ["s2.notes"]
    );
}

#[test]
fn unknown_extra_answers_are_ignored() {
    let (transcript, _) = run_deploy(
        deploy_client()
            .answer("s1.ok", Answer::accept(json!({ "confirm": true })))
            .answer("s2.ticket", Answer::accept(json!({ "id": "CHG-2" })))
            .answer("s2.notes", Answer::accept(json!({ "text": "x" })))
            .before_round(|round, request| {
                if round > 1 {
                    let responses = request.input_responses.get_or_insert(json!({}));
                    responses["bogus"] = json!({ "action": "accept", "content": { "a": 1 } });
                    // An answer to a later step's key, sent early, is not consumed either.
                    if round == 2 {
                        responses["s2.ticket"] =
                            json!({ "action": "accept", "content": { "id": "EARLY" } });
                    }
                }
            }),
    );
    assert_eq!(
        transcript.end,
        End::Complete(json!({ "deployed": "1.2.3", "ticket": "CHG-2", "notes": "x" }))
    );
}

#[test]
fn an_answer_of_the_wrong_shape_is_a_clear_error() {
    let (transcript, counters) = run_deploy(deploy_client().answer(
        "s1.ok",
        Answer::Raw(json!({ "action": "accept", "content": { "confirm": "yes please" } })),
    ));
    let error = transcript.error().expect("a decode error");
    assert_eq!(error.code, -32602);
    assert!(error.message.contains("s1.ok"), "{}", error.message);
    assert_eq!(Counters::get(&counters.deploy), 0);
}

#[test]
fn a_tampered_state_is_invalid_and_runs_nothing() {
    let (transcript, counters) = run_deploy(
        deploy_client()
            .answer("s1.ok", Answer::accept(json!({ "confirm": true })))
            .before_round(|round, request| {
                if round == 2 {
                    tamper::map_state(request, |s| tamper::flip_char(s, s.len() / 2));
                }
            }),
    );
    let error = transcript.error().expect("tampered state fails");
    assert_eq!(error.code, -32602);
    assert_eq!(error.message, "Invalid or expired requestState");
    assert_eq!(Counters::get(&counters.plan), 1);
}

#[test]
fn an_undeclared_capability_is_an_error_and_nothing_is_embedded() {
    let (transcript, _) = run_deploy(deploy_client().capabilities(json!({ "roots": {} })));
    assert_eq!(transcript.rounds.len(), 1);
    let error = transcript.error().expect("missing capability");
    assert_eq!(error.code, -32021);
    assert!(!matches!(
        transcript.rounds[0].reply,
        Reply::InputRequired(_)
    ));
}

/// Asks inside `if`/`else` and `match` arms, with arm-local bindings and pattern bindings kept
/// across asks.
#[mrtr_handler]
async fn route(counters: Arc<Counters>, kind: String, mrtr: Mrtr) -> Result<Value, MrtrError> {
    counters.plan.fetch_add(1, Ordering::SeqCst);
    let base = format!("route:{kind}");
    let label = if kind == "fast" {
        counters.arm.fetch_add(1, Ordering::SeqCst);
        let tag = "F".to_string();
        let first = mrtr.elicit::<Confirm>("fast?").await?;
        let second = mrtr.elicit::<Notes>("fast notes?").await?;
        let note = second.accepted().map(|n| n.text).unwrap_or_default();
        format!("{base}/{tag}/{}/{note}", first.accepted().is_some())
    } else if kind == "url" {
        let consent = mrtr
            .elicit_url("Sign in", "https://example.invalid/login")
            .await?;
        format!("{base}/url/{}", consent == UrlElicitation::Accept)
    } else {
        counters.arm.fetch_add(1, Ordering::SeqCst);
        let roots = mrtr.list_roots().await?;
        format!("{base}/slow/{}", roots.len())
    };
    let really = mrtr.elicit::<Confirm>("Really?").await?;
    match really {
        Elicitation::Accept(Confirm { confirm }) => {
            let summary = mrtr
                .sample(SamplingRequest::new(format!("summarize {label}"), 50))
                .await?;
            Ok(json!({
                "label": label,
                "confirm": confirm,
                "summary": summary.first_text(),
            }))
        }
        Elicitation::Decline => Ok(json!({ "label": label, "declined": true })),
        Elicitation::Cancel => Ok(json!({ "label": label, "cancelled": true })),
    }
}

fn run_route(kind: &str, client: TestClient) -> (mrtr::testing::Transcript, Arc<Counters>) {
    let counters = Arc::new(Counters::default());
    let c = counters.clone();
    let kind = kind.to_string();
    let transcript = client.run_blocking(move |mrtr| route(c.clone(), kind.clone(), mrtr));
    (transcript, counters)
}

#[test]
fn asks_in_if_arms_resume_into_the_same_arm_without_re_running_it() {
    let (transcript, counters) = run_route(
        "fast",
        TestClient::tool("route", json!({}))
            .answer("s1.first", Answer::accept(json!({ "confirm": true })))
            .answer("s2.second", Answer::accept(json!({ "text": "quick" })))
            .answer("s5.really", Answer::accept(json!({ "confirm": true })))
            .answer(
                "s6.summary",
                Answer::Sampling(SamplingResponse::text("m", "all good")),
            ),
    );
    assert_eq!(
        transcript.end,
        End::Complete(json!({
            "label": "route:fast/F/true/quick",
            "confirm": true,
            "summary": "all good",
        }))
    );
    assert_eq!(transcript.rounds.len(), 5);
    assert_eq!(Counters::get(&counters.plan), 1);
    assert_eq!(
        Counters::get(&counters.arm),
        1,
        "the arm's first segment ran again"
    );
}

#[test]
fn the_else_arm_and_a_declining_match_arm() {
    let (transcript, counters) = run_route(
        "slow",
        TestClient::tool("route", json!({}))
            .answer("s4.roots", Answer::Roots(vec![]))
            .answer("s5.really", Answer::Decline),
    );
    assert_eq!(
        transcript.end,
        End::Complete(json!({ "label": "route:slow/slow/0", "declined": true }))
    );
    assert_eq!(transcript.rounds.len(), 3);
    assert_eq!(Counters::get(&counters.arm), 1);
}

#[test]
fn the_else_if_arm_with_url_elicitation() {
    let (transcript, _) = run_route(
        "url",
        TestClient::tool("route", json!({}))
            .answer("s3.consent", Answer::consent())
            .answer("s5.really", Answer::Cancel),
    );
    assert_eq!(
        transcript.end,
        End::Complete(json!({ "label": "route:url/url/true", "cancelled": true }))
    );
}

/// A mutable binding changed between asks is restored with its latest value.
#[mrtr_handler]
async fn journal(mrtr: Mrtr) -> Result<Value, MrtrError> {
    let mut log = vec!["start".to_string()];
    let a = mrtr.elicit::<Notes>("first").await?;
    log.push(a.accepted().map(|n| n.text).unwrap_or_default());
    let b = mrtr
        .ask(mrtr.elicit::<Notes>("second"))
        .key("second-note")
        .await?;
    log.push(b.accepted().map(|n| n.text).unwrap_or_default());
    Ok(json!(log))
}

#[test]
fn a_mutated_binding_keeps_its_latest_value_and_explicit_keys_are_used() {
    let transcript = TestClient::tool("journal", json!({}))
        .answer("s1.a", Answer::accept(json!({ "text": "A" })))
        .answer("second-note", Answer::accept(json!({ "text": "B" })))
        .run_blocking(journal);
    assert_eq!(transcript.end, End::Complete(json!(["start", "A", "B"])));
}

fn shared_key_config() -> MrtrConfig {
    let key = SecretKey::new("k1", vec![7u8; 32]).expect("a valid key");
    MrtrConfig::new("deploy-server", KeyRing::single(key))
}

fn input_required(outcome: Outcome<Value>) -> mrtr::InputRequired {
    match outcome {
        Outcome::InputRequired(result) => result,
        Outcome::Complete(value) => panic!("expected input_required, got {value}"),
    }
}

#[test]
fn a_fresh_server_instance_sharing_only_the_key_resumes_the_flow() {
    let counters = Arc::new(Counters::default());
    let request = IncomingRequest::call_tool("deploy", json!({ "version": "1.2.3" }))
        .with_capabilities(mrtr::testing::all_capabilities());
    let run = |config: MrtrConfig, request: IncomingRequest| {
        let counters = counters.clone();
        futures_lite_block_on(async move {
            deploy(counters, "1.2.3".into(), Mrtr::new(request, &config)).await
        })
    };
    let first = input_required(run(shared_key_config(), request.clone()).expect("round 1"));
    let state = first.request_state.expect("state");
    let second = input_required(
        run(
            shared_key_config(),
            request
                .clone()
                .with_request_state(Value::String(state))
                .with_input_responses(
                    json!({ "s1.ok": { "action": "accept", "content": { "confirm": true } } }),
                ),
        )
        .expect("round 2 on another instance"),
    );
    let done = run(
        shared_key_config(),
        request
            .clone()
            .with_request_state(Value::String(second.request_state.expect("state")))
            .with_input_responses(json!({
                "s2.ticket": { "action": "accept", "content": { "id": "T" } },
                "s2.notes": { "action": "accept", "content": { "text": "N" } },
            })),
    )
    .expect("round 3");
    assert_eq!(
        done,
        Outcome::Complete(json!({ "deployed": "1.2.3", "ticket": "T", "notes": "N" }))
    );
    assert_eq!(Counters::get(&counters.plan), 1);

    // The same state on a server with another key is invalid.
    let other = MrtrConfig::new(
        "deploy-server",
        KeyRing::single(SecretKey::new("k1", vec![9u8; 32]).expect("key")),
    );
    let first = input_required(run(shared_key_config(), request.clone()).expect("round 1"));
    let foreign = run(
        other,
        request.with_request_state(Value::String(first.request_state.expect("state"))),
    );
    assert_eq!(foreign, Err(MrtrError::InvalidState));
}

/// Same tool name, different shape: a state of `deploy` must not resume here.
#[mrtr_handler]
async fn deploy_v2(mrtr: Mrtr) -> Result<Value, MrtrError> {
    let ok = mrtr.elicit::<Notes>("Other question").await?;
    Ok(json!({ "v2": ok.accepted().is_some() }))
}

#[test]
fn a_state_from_a_handler_of_another_shape_is_invalid() {
    let request = IncomingRequest::call_tool("deploy", json!({ "version": "1.2.3" }))
        .with_capabilities(mrtr::testing::all_capabilities());
    let config = shared_key_config();
    let first = futures_lite_block_on(deploy(
        Arc::new(Counters::default()),
        "1.2.3".into(),
        Mrtr::new(request.clone(), &config),
    ))
    .expect("round 1");
    let state = input_required(first).request_state.expect("state");
    let resumed = futures_lite_block_on(deploy_v2(Mrtr::new(
        request
            .with_request_state(Value::String(state))
            .with_input_responses(
                json!({ "s1.ok": { "action": "accept", "content": { "text": "x" } } }),
            ),
        &config,
    )));
    assert_eq!(resumed, Err(MrtrError::InvalidState));
}

/// Keeps visibility, docs, generics and where clauses; no asks at all is a one-round handler.
mod shapes {
    use super::*;

    /// Documented generic handler.
    #[mrtr_handler]
    pub(crate) async fn echo<T>(value: T, mrtr: Mrtr) -> Result<Value, MrtrError>
    where
        T: Serialize + Send,
    {
        let _ = &mrtr;
        Ok(json!({ "echo": value }))
    }
}

#[test]
fn a_handler_without_asks_completes_in_one_round() {
    let transcript =
        TestClient::tool("echo", json!({})).run_blocking(|mrtr| shapes::echo(5u8, mrtr));
    assert_eq!(transcript.end, End::Complete(json!({ "echo": 5 })));
    assert_eq!(transcript.rounds.len(), 1);
}

fn futures_lite_block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime")
        .block_on(future)
}

/// A kept binding too large for the state budget is an error the author sees, not a truncated
/// or unsealed state.
#[mrtr_handler]
async fn oversized(mrtr: Mrtr) -> Result<Value, MrtrError> {
    let blob = "x".repeat(4096);
    let ok = mrtr.elicit::<Confirm>("Keep the blob?").await?;
    Ok(json!({ "len": blob.len(), "ok": ok.accepted().is_some() }))
}

#[test]
fn a_state_over_the_size_budget_is_an_internal_error() {
    let config = mrtr::testing::test_config("srv").with_max_state_bytes(1024);
    let transcript = TestClient::tool("oversized", json!({}))
        .config(&config)
        .answer_any(Answer::accept(json!({ "confirm": true })))
        .run_blocking(oversized);
    assert_eq!(transcript.rounds.len(), 1);
    let error = transcript.error().expect("the seal fails");
    assert_eq!(error.code, -32603);
    let roomy = mrtr::testing::test_config("srv");
    let transcript = TestClient::tool("oversized", json!({}))
        .config(&roomy)
        .answer_any(Answer::accept(json!({ "confirm": true })))
        .run_blocking(oversized);
    assert_eq!(
        transcript.end,
        End::Complete(json!({ "len": 4096, "ok": true }))
    );
}

#[test]
fn answers_sent_without_a_state_count_for_the_first_ask_only() {
    // The conformance suite's ignore-extra-params scenario: the client answers the first ask (and
    // adds unknown keys) on a request that carries no requestState.
    let counters = Arc::new(Counters::default());
    let config = shared_key_config();
    let request = IncomingRequest::call_tool("deploy", json!({ "version": "1.2.3" }))
        .with_capabilities(mrtr::testing::all_capabilities())
        .with_input_responses(json!({
            "s1.ok": { "action": "accept", "content": { "confirm": true } },
            "unknown_extra_key": { "action": "accept", "content": { "foo": "bar" } },
            // An answer to the second step's key is not consumed without a state naming it.
            "s2.ticket": { "action": "accept", "content": { "id": "EARLY" } },
        }));
    let outcome = futures_lite_block_on(deploy(
        counters.clone(),
        "1.2.3".into(),
        Mrtr::new(request, &config),
    ))
    .expect("round 1");
    let asked = input_required(outcome);
    assert_eq!(
        asked.input_requests.keys().collect::<Vec<_>>(),
        ["s2.notes", "s2.ticket"],
        "the first ask was answered in place; the batch after it is asked"
    );

    // Only unknown keys and no state: the first ask is asked, not an error.
    let request = IncomingRequest::call_tool("deploy", json!({ "version": "1.2.3" }))
        .with_capabilities(mrtr::testing::all_capabilities())
        .with_input_responses(json!({ "wrong_key": { "action": "accept", "content": {} } }));
    let outcome = futures_lite_block_on(deploy(
        counters,
        "1.2.3".into(),
        Mrtr::new(request, &config),
    ))
    .expect("round 1");
    assert_eq!(
        input_required(outcome)
            .input_requests
            .keys()
            .collect::<Vec<_>>(),
        ["s1.ok"]
    );
}
