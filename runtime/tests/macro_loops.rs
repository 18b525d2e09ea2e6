//! Asks inside loops: the loop's progress (iterations begun, the items of a `for`, bindings the
//! loop carries) is part of the state, so each iteration's question is asked in its own round
//! and no iteration's work runs twice.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use mrtr::testing::{Answer, End, TestClient};
use mrtr::{mrtr_handler, Elicitation, Mrtr, MrtrError};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
struct Confirm {
    confirm: bool,
}

#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
struct Pick {
    n: i64,
}

fn yes() -> Answer {
    Answer::accept(json!({ "confirm": true }))
}

fn no() -> Answer {
    Answer::accept(json!({ "confirm": false }))
}

/// Per-host approval: one question per host, an accumulator carried across iterations, work
/// before each question counted, and one more question after the loop.
#[mrtr_handler]
async fn rollout(work: Arc<AtomicUsize>, mrtr: Mrtr) -> Result<Value, MrtrError> {
    let hosts = vec!["web-1".to_string(), "web-2".to_string(), "db-1".to_string()];
    let mut approved: Vec<String> = Vec::new();
    for host in hosts {
        work.fetch_add(1, Ordering::SeqCst);
        let label = format!("{host}!");
        let ok = mrtr
            .elicit::<Confirm>(format!("Restart {host}?"))
            .key("restart")
            .await?;
        if ok.accepted().is_some_and(|c| c.confirm) {
            approved.push(label);
        }
    }
    let last = mrtr.elicit::<Confirm>("Done?").await?;
    Ok(json!({ "approved": approved, "done": last.accepted().is_some() }))
}

#[test]
fn a_for_loop_asks_once_per_item_and_runs_each_iteration_once() {
    let work = Arc::new(AtomicUsize::new(0));
    let w = work.clone();
    let transcript = TestClient::tool("rollout", json!({}))
        .answer("restart", yes())
        .answer("restart", no())
        .answer("restart", yes())
        .answer("s2.last", yes())
        .run_blocking(move |mrtr| rollout(w.clone(), mrtr));
    assert_eq!(
        transcript.end,
        End::Complete(json!({ "approved": ["web-1!", "db-1!"], "done": true }))
    );
    assert_eq!(transcript.rounds.len(), 5);
    let messages: Vec<String> = (0..3)
        .map(|i| {
            transcript.asked(i).unwrap().input_requests["restart"]["params"]["message"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(
        messages,
        ["Restart web-1?", "Restart web-2?", "Restart db-1?"]
    );
    assert_eq!(
        work.load(Ordering::SeqCst),
        3,
        "an iteration's work ran again"
    );
}

#[test]
fn a_missing_answer_inside_a_loop_asks_the_same_iteration_again() {
    let work = Arc::new(AtomicUsize::new(0));
    let w = work.clone();
    let transcript = TestClient::tool("rollout", json!({}))
        .answer("restart", yes())
        .answer("restart", Answer::Missing)
        .answer("restart", no())
        .answer("restart", yes())
        .answer("s2.last", yes())
        .run_blocking(move |mrtr| rollout(w.clone(), mrtr));
    assert_eq!(
        transcript.end,
        End::Complete(json!({ "approved": ["web-1!", "db-1!"], "done": true }))
    );
    let again = transcript.asked(2).unwrap().input_requests["restart"]["params"]["message"].clone();
    assert_eq!(again, "Restart web-2?");
    assert_eq!(work.load(Ordering::SeqCst), 3);
}

/// `while` with a counter in its condition, `continue`, and a `loop` whose value is bound.
#[mrtr_handler]
async fn tally(work: Arc<AtomicUsize>, mrtr: Mrtr) -> Result<Value, MrtrError> {
    let mut total = 0;
    let mut round = 0;
    while round < 3 {
        round += 1;
        work.fetch_add(1, Ordering::SeqCst);
        let pick = mrtr.elicit::<Pick>(format!("Number {round}?")).await?;
        let Elicitation::Accept(Pick { n }) = pick else {
            continue;
        };
        total += n;
    }
    let found = loop {
        let guess = mrtr.elicit::<Pick>("Guess?").key("guess").await?;
        let guess = guess.accepted().map_or(0, |p| p.n);
        if guess * 2 == total {
            break guess;
        }
    };
    Ok(json!({ "total": total, "rounds": round, "found": found }))
}

#[test]
fn while_and_loop_with_continue_and_a_break_value() {
    let work = Arc::new(AtomicUsize::new(0));
    let w = work.clone();
    let transcript = TestClient::tool("tally", json!({}))
        .answer("s1.pick", Answer::accept(json!({ "n": 4 })))
        .answer("s1.pick", Answer::Decline)
        .answer("s1.pick", Answer::accept(json!({ "n": 6 })))
        .answer("guess", Answer::accept(json!({ "n": 1 })))
        .answer("guess", Answer::accept(json!({ "n": 5 })))
        .run_blocking(move |mrtr| tally(w.clone(), mrtr));
    assert_eq!(
        transcript.end,
        End::Complete(json!({ "total": 10, "rounds": 3, "found": 5 }))
    );
    assert_eq!(transcript.rounds.len(), 6);
    assert_eq!(work.load(Ordering::SeqCst), 3);
}

/// Nested loops resume at both levels.
#[mrtr_handler]
async fn grid(mrtr: Mrtr) -> Result<Value, MrtrError> {
    let mut cells = Vec::new();
    for row in 0..2u8 {
        for col in 0..2u8 {
            let pick = mrtr
                .elicit::<Pick>(format!("cell {row},{col}?"))
                .key("cell")
                .await?;
            cells.push(format!("{row}{col}={}", pick.accepted().map_or(0, |p| p.n)));
        }
    }
    Ok(json!(cells))
}

#[test]
fn nested_loops_resume_at_both_levels() {
    let mut client = TestClient::tool("grid", json!({}));
    for n in 1..=4 {
        client = client.answer("cell", Answer::accept(json!({ "n": n })));
    }
    let transcript = client.run_blocking(grid);
    assert_eq!(
        transcript.end,
        End::Complete(json!(["00=1", "01=2", "10=3", "11=4"]))
    );
    assert_eq!(transcript.rounds.len(), 5);
}

/// `while let`: the pattern's binding of the iteration in progress comes back from the state,
/// and the scrutinee (which pops) is not evaluated again for it.
#[mrtr_handler]
async fn drain(work: Arc<AtomicUsize>, mrtr: Mrtr) -> Result<Value, MrtrError> {
    let mut queue = vec!["c".to_string(), "b".to_string(), "a".to_string()];
    let mut done = Vec::new();
    while let Some(job) = queue.pop() {
        work.fetch_add(1, Ordering::SeqCst);
        let ok = mrtr
            .elicit::<Confirm>(format!("Run {job}?"))
            .key("run")
            .await?;
        if ok.accepted().is_some_and(|c| c.confirm) {
            done.push(job);
        }
    }
    Ok(json!({ "done": done, "left": queue.len() }))
}

#[test]
fn while_let_resumes_with_the_popped_item_of_the_iteration_in_progress() {
    let work = Arc::new(AtomicUsize::new(0));
    let w = work.clone();
    let transcript = TestClient::tool("drain", json!({}))
        .answer("run", yes())
        .answer("run", no())
        .answer("run", yes())
        .run_blocking(move |mrtr| drain(w.clone(), mrtr));
    assert_eq!(
        transcript.end,
        End::Complete(json!({ "done": ["a", "c"], "left": 0 }))
    );
    assert_eq!(transcript.rounds.len(), 4);
    assert_eq!(work.load(Ordering::SeqCst), 3);
}

/// A branch holding asks inside a loop (a different arm per iteration), and a loop inside a
/// branch arm.
#[mrtr_handler]
async fn mixed(work: Arc<AtomicUsize>, deep: bool, mrtr: Mrtr) -> Result<Value, MrtrError> {
    let mut sum = 0i64;
    for n in 0..4i64 {
        work.fetch_add(1, Ordering::SeqCst);
        if n % 2 == 0 {
            let add = mrtr
                .elicit::<Pick>(format!("add at {n}?"))
                .key("add")
                .await?;
            sum += add.accepted().map_or(0, |p| p.n);
        } else {
            let sub = mrtr
                .elicit::<Pick>(format!("sub at {n}?"))
                .key("sub")
                .await?;
            sum -= sub.accepted().map_or(0, |p| p.n);
        }
    }
    let extra = if deep {
        let mut product = 1i64;
        let mut k = 0;
        loop {
            k += 1;
            let factor = mrtr
                .elicit::<Pick>(format!("factor {k}?"))
                .key("factor")
                .await?;
            product *= factor.accepted().map_or(1, |p| p.n);
            if k == 2 {
                break product;
            }
        }
    } else {
        0
    };
    Ok(json!({ "sum": sum, "extra": extra }))
}

#[test]
fn branches_inside_loops_and_loops_inside_branches() {
    let work = Arc::new(AtomicUsize::new(0));
    let w = work.clone();
    let pick = |n: i64| Answer::accept(json!({ "n": n }));
    let transcript = TestClient::tool("mixed", json!({}))
        .answer("add", pick(10))
        .answer("add", pick(20))
        .answer("sub", pick(1))
        .answer("sub", pick(2))
        .answer("factor", pick(3))
        .answer("factor", pick(7))
        .run_blocking(move |mrtr| mixed(w.clone(), true, mrtr));
    assert_eq!(
        transcript.end,
        End::Complete(json!({ "sum": 27, "extra": 21 }))
    );
    assert_eq!(transcript.rounds.len(), 7);
    assert_eq!(work.load(Ordering::SeqCst), 4);
    let asked: Vec<String> = (0..6)
        .map(|i| {
            let requests = &transcript.asked(i).unwrap().input_requests;
            let (_, request) = requests.iter().next().unwrap();
            request["params"]["message"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(
        asked,
        [
            "add at 0?",
            "sub at 1?",
            "add at 2?",
            "sub at 3?",
            "factor 1?",
            "factor 2?"
        ]
    );
}
