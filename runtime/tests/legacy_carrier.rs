//! Pre-2026 sessions: the same `#[mrtr_handler]` handler runs to completion inside one request,
//! its asks sent through a `LegacyCarrier` (here a scripted one, no SDK involved). Nothing is
//! sealed; the answers, declines, failures and timeouts reach the author as on MRTR.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mrtr::carrier::{CarriedRound, CarryError};
use mrtr::{
    mrtr_handler, Elicitation, IncomingRequest, LegacyCarrier, Mrtr, MrtrConfig, MrtrError,
    Outcome, SamplingRequest,
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

/// How the scripted client answers one request.
#[derive(Clone)]
enum Reply {
    Result(Value),
    Fail(String),
    TimeOut,
}

/// A client on a 2025 session: answers each request by its method (and, for forms, by the
/// first field asked for), and records every round it was sent.
#[derive(Default)]
struct ScriptedClient {
    replies: Vec<(&'static str, Reply)>,
    rounds: Mutex<Vec<Vec<Value>>>,
    timeouts_seen: Mutex<Vec<Option<Duration>>>,
}

impl ScriptedClient {
    /// A later reply for the same selector overrides an earlier one.
    fn reply(mut self, selector: &'static str, reply: Reply) -> Self {
        self.replies.insert(0, (selector, reply));
        self
    }

    fn answer(&self, request: &Value) -> Result<Value, CarryError> {
        let method = request["method"].as_str().unwrap_or_default();
        let field = request["params"]["requestedSchema"]["properties"]
            .as_object()
            .and_then(|p| p.keys().next().cloned())
            .unwrap_or_default();
        let selector = if method == "elicitation/create" {
            format!("{method}:{field}")
        } else {
            method.to_string()
        };
        let reply = self
            .replies
            .iter()
            .find(|(s, _)| *s == selector)
            .map(|(_, r)| r.clone())
            .unwrap_or_else(|| panic!("unscripted request {selector}"));
        match reply {
            Reply::Result(value) => Ok(value),
            Reply::Fail(reason) => Err(CarryError::Failed(reason)),
            Reply::TimeOut => Err(CarryError::TimedOut),
        }
    }

    fn rounds(&self) -> Vec<Vec<Value>> {
        self.rounds.lock().unwrap().clone()
    }
}

impl LegacyCarrier for ScriptedClient {
    fn send_round(&self, requests: Vec<Value>, timeout: Option<Duration>) -> CarriedRound<'_> {
        self.rounds.lock().unwrap().push(requests.clone());
        self.timeouts_seen.lock().unwrap().push(timeout);
        let answers = requests.iter().map(|r| self.answer(r)).collect();
        Box::pin(async move { answers })
    }
}

#[derive(Default)]
struct Runs {
    before_first_ask: AtomicUsize,
    after_last_ask: AtomicUsize,
}

#[mrtr_handler]
async fn deploy(runs: Arc<Runs>, mrtr: Mrtr) -> Result<Value, MrtrError> {
    runs.before_first_ask.fetch_add(1, Ordering::SeqCst);
    let ok = mrtr.elicit::<Confirm>("Deploy?").await?;
    let Elicitation::Accept(Confirm { confirm: true }) = ok else {
        return Ok(json!({ "status": format!("{ok:?}") }));
    };
    let (ticket, roots) = mrtr
        .join(mrtr.elicit::<Ticket>("Ticket?"), mrtr.list_roots())
        .await?;
    let answer = mrtr.sample(SamplingRequest::new("Summarize", 50)).await?;
    runs.after_last_ask.fetch_add(1, Ordering::SeqCst);
    Ok(json!({
        "ticket": ticket.accepted().map(|t| t.id),
        "roots": roots.len(),
        "summary": answer.first_text(),
    }))
}

const ALL_CAPABILITIES: &str = r#"{"elicitation": {}, "sampling": {}, "roots": {}}"#;

fn legacy_mrtr(client: Arc<ScriptedClient>, capabilities: &str, config: &MrtrConfig) -> Mrtr {
    let request = IncomingRequest::call_tool("deploy", json!({}))
        .with_capabilities(serde_json::from_str(capabilities).unwrap());
    Mrtr::in_process(request, config, client)
}

fn run(
    client: Arc<ScriptedClient>,
    capabilities: &str,
) -> (Result<Outcome<Value>, MrtrError>, Arc<Runs>) {
    let runs = Arc::new(Runs::default());
    let config = MrtrConfig::ephemeral("legacy-test");
    let mrtr = legacy_mrtr(client, capabilities, &config);
    let outcome = block_on(deploy(runs.clone(), mrtr));
    (outcome, runs)
}

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(future)
}

fn accept(content: Value) -> Reply {
    Reply::Result(json!({ "action": "accept", "content": content }))
}

fn full_client() -> ScriptedClient {
    ScriptedClient::default()
        .reply(
            "elicitation/create:confirm",
            accept(json!({ "confirm": true })),
        )
        .reply("elicitation/create:id", accept(json!({ "id": "CHG-9" })))
        .reply(
            "roots/list",
            Reply::Result(json!({ "roots": [{ "uri": "file:///srv" }, { "uri": "file:///etc" }] })),
        )
        .reply(
            "sampling/createMessage",
            Reply::Result(json!({
                "role": "assistant", "model": "m",
                "content": { "type": "text", "text": "all good" }
            })),
        )
}

#[test]
fn a_multi_round_flow_completes_inside_one_request_with_a_batched_round() {
    let client = Arc::new(full_client());
    let (outcome, runs) = run(client.clone(), ALL_CAPABILITIES);
    let Outcome::Complete(value) = outcome.expect("completes") else {
        panic!("a pre-2026 session must never get an InputRequiredResult");
    };
    assert_eq!(
        value,
        json!({ "ticket": "CHG-9", "roots": 2, "summary": "all good" })
    );
    let rounds = client.rounds();
    let methods: Vec<Vec<&str>> = rounds
        .iter()
        .map(|round| {
            round
                .iter()
                .map(|r| r["method"].as_str().unwrap())
                .collect()
        })
        .collect();
    assert_eq!(
        methods,
        [
            vec!["elicitation/create"],
            vec!["elicitation/create", "roots/list"],
            vec!["sampling/createMessage"],
        ],
        "each round goes out as real requests, the join's asks together"
    );
    assert_eq!(rounds[0][0]["params"]["message"], "Deploy?");
    assert_eq!(runs.before_first_ask.load(Ordering::SeqCst), 1);
    assert_eq!(runs.after_last_ask.load(Ordering::SeqCst), 1);
}

#[test]
fn decline_and_cancel_are_values_as_on_mrtr() {
    for (action, shown) in [("decline", "Decline"), ("cancel", "Cancel")] {
        let client = Arc::new(ScriptedClient::default().reply(
            "elicitation/create:confirm",
            Reply::Result(json!({ "action": action })),
        ));
        let (outcome, runs) = run(client.clone(), ALL_CAPABILITIES);
        assert_eq!(
            outcome.expect("completes").complete(),
            Some(json!({ "status": shown }))
        );
        assert_eq!(client.rounds().len(), 1);
        assert_eq!(runs.after_last_ask.load(Ordering::SeqCst), 0);
    }
}

#[test]
fn a_capability_missing_from_initialize_is_minus_32021_and_nothing_is_sent() {
    let client = Arc::new(full_client());
    // Declared elicitation and roots, not sampling: the flow gets to the sampling ask and stops.
    let (outcome, runs) = run(client.clone(), r#"{"elicitation": {}, "roots": {}}"#);
    let error = outcome.expect_err("fails");
    assert_eq!(error.code(), -32021);
    assert_eq!(
        error.data(),
        Some(json!({ "requiredCapabilities": { "sampling": {} } }))
    );
    assert_eq!(
        client.rounds().len(),
        2,
        "the sampling request was sent anyway"
    );
    assert_eq!(runs.after_last_ask.load(Ordering::SeqCst), 0);

    let client = Arc::new(full_client());
    let (outcome, _) = run(client.clone(), r#"{"sampling": {}}"#);
    assert_eq!(outcome.expect_err("fails").code(), -32021);
    assert!(client.rounds().is_empty());
}

#[test]
fn a_failed_or_late_answer_is_an_error_naming_the_ask() {
    let client = Arc::new(full_client().reply(
        "roots/list",
        Reply::Fail("the client answered with error -1".into()),
    ));
    let (outcome, runs) = run(client.clone(), ALL_CAPABILITIES);
    match outcome.expect_err("fails") {
        MrtrError::ClientRequestFailed {
            key,
            method,
            reason,
        } => {
            assert_eq!(key, "s2.roots");
            assert_eq!(method, "roots/list");
            assert!(reason.contains("-1"), "{reason}");
        }
        other => panic!("unexpected {other:?}"),
    }
    assert_eq!(runs.after_last_ask.load(Ordering::SeqCst), 0);

    let client =
        Arc::new(ScriptedClient::default().reply("elicitation/create:confirm", Reply::TimeOut));
    let (outcome, _) = run(client, ALL_CAPABILITIES);
    let error = outcome.expect_err("fails");
    assert_eq!(
        error,
        MrtrError::ClientRequestTimedOut {
            key: "s1.ok".into(),
            method: "elicitation/create".into()
        }
    );
    assert_eq!(error.code(), -32603);
}

#[test]
fn the_configured_ask_timeout_reaches_the_carrier() {
    let client = Arc::new(full_client());
    let config =
        MrtrConfig::ephemeral("legacy-test").with_ask_timeout(Some(Duration::from_secs(7)));
    let mrtr = legacy_mrtr(client.clone(), ALL_CAPABILITIES, &config);
    block_on(deploy(Arc::new(Runs::default()), mrtr)).expect("completes");
    let seen = client.timeouts_seen.lock().unwrap().clone();
    assert_eq!(seen, vec![Some(Duration::from_secs(7)); 3]);
}

#[test]
fn a_request_state_sent_on_a_pre_2026_session_is_ignored() {
    // Such a client has no use for MRTR fields; a stray one must neither fail the request nor
    // skip a segment.
    let client = Arc::new(full_client());
    let config = MrtrConfig::ephemeral("legacy-test");
    let request = IncomingRequest::call_tool("deploy", json!({}))
        .with_capabilities(serde_json::from_str(ALL_CAPABILITIES).unwrap())
        .with_request_state("not a sealed state")
        .with_input_responses(json!({ "s1.ok": { "action": "decline" } }));
    let runs = Arc::new(Runs::default());
    let outcome = block_on(deploy(
        runs.clone(),
        Mrtr::in_process(request, &config, client),
    ));
    assert_eq!(
        outcome.expect("completes").complete(),
        Some(json!({ "ticket": "CHG-9", "roots": 2, "summary": "all good" }))
    );
    assert_eq!(runs.before_first_ask.load(Ordering::SeqCst), 1);
}

/// An asking helper: on a pre-2026 session its asks go out in process too, under the same
/// (prefixed) keys the MRTR rounds use.
#[mrtr::mrtr_helper]
async fn confirm_twice(mrtr: &Mrtr, what: String) -> Result<bool, MrtrError> {
    let first = mrtr.elicit::<Confirm>(format!("{what}?")).await?;
    let Elicitation::Accept(Confirm { confirm: true }) = first else {
        return Ok(false);
    };
    let ticket = mrtr.elicit::<Ticket>("Ticket?").await?;
    Ok(ticket.accepted().is_some())
}

#[mrtr_handler]
async fn guarded(runs: Arc<Runs>, mrtr: Mrtr) -> Result<Value, MrtrError> {
    runs.before_first_ask.fetch_add(1, Ordering::SeqCst);
    let ok = confirm_twice(&mrtr, "Delete".to_string()).await?;
    let roots = mrtr.list_roots().await?;
    runs.after_last_ask.fetch_add(1, Ordering::SeqCst);
    Ok(json!({ "ok": ok, "roots": roots.len() }))
}

#[test]
fn an_asking_helper_runs_in_process_on_a_pre_2026_session() {
    let client = Arc::new(full_client());
    let config = MrtrConfig::ephemeral("legacy-test");
    let runs = Arc::new(Runs::default());
    let mrtr = legacy_mrtr(client.clone(), ALL_CAPABILITIES, &config);
    let outcome = block_on(guarded(runs.clone(), mrtr)).expect("completes");
    assert_eq!(outcome.complete(), Some(json!({ "ok": true, "roots": 2 })));
    let methods: Vec<Vec<String>> = client
        .rounds()
        .iter()
        .map(|round| {
            round
                .iter()
                .map(|r| {
                    let field = r["params"]["requestedSchema"]["properties"]
                        .as_object()
                        .and_then(|p| p.keys().next().cloned());
                    format!(
                        "{}{}",
                        r["method"].as_str().unwrap(),
                        field.map(|f| format!(":{f}")).unwrap_or_default()
                    )
                })
                .collect()
        })
        .collect();
    assert_eq!(
        methods,
        [
            vec!["elicitation/create:confirm".to_string()],
            vec!["elicitation/create:id".to_string()],
            vec!["roots/list".to_string()],
        ]
    );
    assert_eq!(runs.before_first_ask.load(Ordering::SeqCst), 1);
    assert_eq!(runs.after_last_ask.load(Ordering::SeqCst), 1);
}
