//! The less common shapes `#[mrtr_handler]` supports: nested branches, guards, a branch as a
//! `let` initializer or as the tail, `if let` bindings kept across asks, shadowing, asks whose
//! result is not `?`-ed, and an ask as a bare statement.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use mrtr::testing::{Answer, End, TestClient};
use mrtr::{mrtr_handler, Elicitation, Mrtr, MrtrError};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
struct Pick {
    n: i64,
}

fn pick(n: i64) -> Answer {
    Answer::accept(json!({ "n": n }))
}

fn n(answer: Elicitation<Pick>) -> i64 {
    answer.accepted().map_or(-1, |p| p.n)
}

/// Counts executions of every segment; each must be 1 (or 0 when not taken) at the end.
#[derive(Default)]
struct Runs(Vec<AtomicUsize>);

impl Runs {
    fn new(len: usize) -> Arc<Runs> {
        Arc::new(Runs((0..len).map(|_| AtomicUsize::new(0)).collect()))
    }
    fn hit(&self, i: usize) {
        self.0[i].fetch_add(1, Ordering::SeqCst);
    }
    fn counts(&self) -> Vec<usize> {
        self.0.iter().map(|c| c.load(Ordering::SeqCst)).collect()
    }
}

#[mrtr_handler]
async fn nested(runs: Arc<Runs>, mode: Option<i64>, mrtr: Mrtr) -> Result<Value, MrtrError> {
    runs.hit(0);
    let first = mrtr.elicit::<Pick>("first").await?;
    let first = n(first);
    // A branch whose value is bound, with asks in a guarded arm holding a nested `if`.
    let picked = match mode {
        Some(m) if m > 10 => {
            runs.hit(1);
            let scale = m * 2;
            let inner = mrtr.elicit::<Pick>("inner").await?;
            let inner = n(inner);
            if inner > 0 {
                runs.hit(2);
                let deeper = mrtr.elicit::<Pick>("deeper").await?;
                let deeper = n(deeper);
                scale + inner + deeper
            } else {
                scale
            }
        }
        Some(m) => m,
        None => 0,
    };
    runs.hit(3);
    // `if let` binding kept across an ask inside its arm; the branch is the tail.
    if let Some(m) = mode {
        let last = mrtr.elicit::<Pick>("last").await;
        let last = last.map(n).unwrap_or(-100);
        runs.hit(4);
        Ok(json!({ "first": first, "picked": picked, "m": m, "last": last }))
    } else {
        Ok(json!({ "first": first, "picked": picked }))
    }
}

fn run_nested(mode: Option<i64>, client: TestClient) -> (mrtr::testing::Transcript, Vec<usize>) {
    let runs = Runs::new(5);
    let r = runs.clone();
    let transcript = client.run_blocking(move |mrtr| nested(r.clone(), mode, mrtr));
    (transcript, runs.counts())
}

#[test]
fn nested_branches_resume_at_every_depth_and_never_rerun_a_segment() {
    let (transcript, counts) = run_nested(
        Some(20),
        TestClient::tool("nested", json!({}))
            .answer("s1.first", pick(1))
            .answer("s2.inner", pick(3))
            .answer("s3.deeper", pick(5))
            .answer("s4.last", pick(7)),
    );
    assert_eq!(
        transcript.end,
        End::Complete(json!({ "first": 1, "picked": 48, "m": 20, "last": 7 }))
    );
    assert_eq!(transcript.rounds.len(), 5);
    assert_eq!(counts, [1, 1, 1, 1, 1]);
}

#[test]
fn the_guard_fails_and_the_arm_without_asks_runs_in_the_same_round() {
    let (transcript, counts) = run_nested(
        Some(4),
        TestClient::tool("nested", json!({}))
            .answer("s1.first", pick(1))
            .answer(
                "s4.last",
                Answer::Raw(json!({ "action": "accept", "content": { "n": "NaN" } })),
            ),
    );
    // The un-`?`-ed ask hands the decode error to the handler as a value.
    assert_eq!(
        transcript.end,
        End::Complete(json!({ "first": 1, "picked": 4, "m": 4, "last": -100 }))
    );
    assert_eq!(transcript.rounds.len(), 3);
    assert_eq!(counts, [1, 0, 0, 1, 1]);
}

#[test]
fn the_else_tail_completes_after_one_ask() {
    let (transcript, counts) = run_nested(
        None,
        TestClient::tool("nested", json!({})).answer("s1.first", pick(9)),
    );
    assert_eq!(
        transcript.end,
        End::Complete(json!({ "first": 9, "picked": 0 }))
    );
    assert_eq!(counts, [1, 0, 0, 1, 0]);
}

#[mrtr_handler]
async fn shadowing(runs: Arc<Runs>, mrtr: Mrtr) -> Result<Value, MrtrError> {
    let x = 1;
    runs.hit(0);
    mrtr.elicit_url("Open the dashboard", "https://example.invalid/d")
        .await?;
    let x = x + 10;
    let y = mrtr.elicit::<Pick>("y").await?;
    let y = n(y);
    let x = x * y;
    runs.hit(1);
    let z = mrtr.elicit::<Pick>("z").await?;
    let z = n(z);
    Ok(json!({ "x": x, "z": z }))
}

#[test]
fn shadowed_bindings_each_keep_their_own_value_and_a_bare_ask_statement_works() {
    let runs = Runs::new(2);
    let r = runs.clone();
    let transcript = TestClient::tool("shadowing", json!({}))
        .answer("s1.0", Answer::consent())
        .answer("s2.y", pick(3))
        .answer("s3.z", pick(4))
        .run_blocking(move |mrtr| shadowing(r.clone(), mrtr));
    assert_eq!(transcript.end, End::Complete(json!({ "x": 33, "z": 4 })));
    assert_eq!(transcript.rounds.len(), 4);
    assert_eq!(runs.counts(), [1, 1]);
}

type HandlerResult<T> = Result<T, MrtrError>;

/// A return type written through an alias, and a `let .. else` directly on an ask whose
/// binding is kept across the next ask.
#[mrtr_handler]
async fn aliased(mrtr: Mrtr) -> HandlerResult<Value> {
    let Elicitation::Accept(first) = mrtr.elicit::<Pick>("first").await? else {
        return Ok(json!("declined"));
    };
    let second = mrtr.elicit::<Pick>("second").await?;
    Ok(json!(first.n + n(second)))
}

#[test]
fn an_aliased_result_and_let_else_on_an_ask() {
    let transcript = TestClient::tool("aliased", json!({}))
        .answer("s1.first", pick(40))
        .answer("s2.second", pick(2))
        .run_blocking(aliased);
    assert_eq!(transcript.end, End::Complete(json!(42)));
    let declined = TestClient::tool("aliased", json!({}))
        .answer("s1.first", Answer::Decline)
        .run_blocking(aliased);
    assert_eq!(declined.end, End::Complete(json!("declined")));
}

/// A question built from a binding it consumes, and a `mut` binding changed in an arm before
/// the arm's ask reads it: the resumed round rebuilds the very same question.
#[mrtr_handler]
async fn consumed(version: String, mrtr: Mrtr) -> Result<Value, MrtrError> {
    let message = format!("Deploy {version}?");
    let mut attempt = 1;
    let ok = mrtr.elicit::<Pick>(message).await?;
    let answer = if ok.accepted().is_some() {
        attempt += 1;
        let again = mrtr.elicit::<Pick>(format!("Attempt {attempt}?")).await?;
        n(again)
    } else {
        0
    };
    Ok(json!({ "answer": answer }))
}

#[test]
fn questions_read_bindings_saved_before_they_were_built() {
    let transcript = TestClient::tool("consumed", json!({}))
        .answer("s1.ok", pick(1))
        .answer("s2.again", pick(5))
        .run_blocking(|mrtr| consumed("2.0".into(), mrtr));
    assert_eq!(transcript.end, End::Complete(json!({ "answer": 5 })));
    let asked = transcript.asked(1).expect("round 2 asks");
    assert_eq!(
        asked.input_requests["s2.again"]["params"]["message"],
        "Attempt 2?"
    );
    assert_eq!(
        transcript.asked(0).unwrap().input_requests["s1.ok"]["params"]["message"],
        "Deploy 2.0?"
    );
}

/// A `let .. else` on an ask awaited without `?` (what a helper that handled its request's
/// errors itself becomes): a failed ask (here a capability the client did not declare) takes the
/// `else`, as a declined one does; the accepted answer binds and is kept across the next ask.
#[mrtr_handler]
async fn let_else_without_question_mark(mrtr: Mrtr) -> Result<Value, MrtrError> {
    let Ok(Elicitation::Accept(first)) = mrtr.elicit::<Pick>("first").await else {
        return Ok(json!("no first"));
    };
    let Ok(roots) = mrtr.list_roots().await else {
        return Ok(json!({ "first": first.n, "roots": null }));
    };
    Ok(json!({ "first": first.n, "roots": roots.len() }))
}

#[test]
fn a_let_else_on_an_ask_without_question_mark_keeps_failures_in_its_else() {
    let answered = TestClient::tool("let_else_without_question_mark", json!({}))
        .answer("s1.first", pick(7))
        .answer(
            "s2.roots",
            Answer::Roots(vec![mrtr::Root {
                uri: "file:///srv".into(),
                name: None,
            }]),
        )
        .run_blocking(let_else_without_question_mark);
    assert_eq!(
        answered.end,
        End::Complete(json!({ "first": 7, "roots": 1 }))
    );
    assert_eq!(answered.rounds.len(), 3);
    let declined = TestClient::tool("let_else_without_question_mark", json!({}))
        .answer("s1.first", Answer::Decline)
        .run_blocking(let_else_without_question_mark);
    assert_eq!(declined.end, End::Complete(json!("no first")));
    let without_roots = TestClient::tool("let_else_without_question_mark", json!({}))
        .capabilities(json!({ "elicitation": {} }))
        .answer("s1.first", pick(7))
        .run_blocking(let_else_without_question_mark);
    assert_eq!(
        without_roots.end,
        End::Complete(json!({ "first": 7, "roots": null }))
    );
}
