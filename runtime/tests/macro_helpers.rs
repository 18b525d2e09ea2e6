//! Asking helpers (`#[mrtr_helper]`): a helper that asks is a sub-machine of its caller, driven
//! round by round with the runtime's test client (no SDK involved).

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use mrtr::testing::{Answer, End, TestClient};
use mrtr::{mrtr_handler, mrtr_helper, Elicitation, Mrtr, MrtrError, Outcome};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
struct Confirm {
    confirm: bool,
}

#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
struct Reason {
    text: String,
}

#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
struct Name {
    name: String,
}

/// How often each segment ran, across all rounds of one flow.
#[derive(Default)]
struct Counters {
    before: AtomicUsize,
    helper_head: AtomicUsize,
    helper_tail: AtomicUsize,
    outer_head: AtomicUsize,
    loop_items: AtomicUsize,
    after: AtomicUsize,
}

fn count(counter: &AtomicUsize) -> usize {
    counter.load(Ordering::SeqCst)
}

/// Asks twice on the decline path: a branch holding an ask inside a helper.
#[mrtr_helper]
async fn confirm(mrtr: &Mrtr, counters: &Counters, what: String) -> Result<bool, MrtrError> {
    counters.helper_head.fetch_add(1, Ordering::SeqCst);
    let label = format!("{what}!");
    let answer = mrtr.elicit::<Confirm>(format!("Really {label}?")).await?;
    let confirmed = matches!(answer, Elicitation::Accept(Confirm { confirm: true }));
    if !confirmed {
        let reason = mrtr.elicit::<Reason>("Why not?").await?;
        counters.helper_tail.fetch_add(1, Ordering::SeqCst);
        return Ok(reason.accepted().is_some_and(|r| r.text == "retry") && label.len() > 1);
    }
    counters.helper_tail.fetch_add(1, Ordering::SeqCst);
    Ok(true)
}

/// A loop asking once per iteration, its accumulator kept across rounds.
#[mrtr_helper]
async fn collect_names(
    mrtr: &Mrtr,
    counters: &Counters,
    how_many: u32,
) -> Result<Vec<String>, MrtrError> {
    let mut names = Vec::new();
    for index in 0..how_many {
        counters.loop_items.fetch_add(1, Ordering::SeqCst);
        let name = mrtr.elicit::<Name>(format!("Name #{index}?")).await?;
        if let Elicitation::Accept(Name { name }) = name {
            names.push(name);
        }
    }
    Ok(names)
}

/// A helper calling another asking helper.
#[mrtr_helper]
async fn outer(mrtr: &Mrtr, counters: &Counters) -> Result<String, MrtrError> {
    counters.outer_head.fetch_add(1, Ordering::SeqCst);
    let prefix = String::from("outer");
    let ok = confirm(mrtr, counters, "nest".into()).await?;
    Ok(format!("{prefix}:{ok}"))
}

#[mrtr_handler]
async fn deploy(counters: Arc<Counters>, mrtr: Mrtr) -> Result<Value, MrtrError> {
    counters.before.fetch_add(1, Ordering::SeqCst);
    let version = String::from("1.2.3");
    let ok = confirm(&mrtr, &counters, format!("deploy {version}")).await?;
    if !ok {
        return Ok(json!({ "status": "cancelled" }));
    }
    let names = collect_names(&mrtr, &counters, 2).await?;
    let nested = outer(&mrtr, &counters).await?;
    counters.after.fetch_add(1, Ordering::SeqCst);
    Ok(json!({ "version": version, "names": names, "nested": nested }))
}

fn run(client: TestClient) -> (mrtr::testing::Transcript, Arc<Counters>) {
    let counters = Arc::new(Counters::default());
    let c = counters.clone();
    let transcript = client.run_blocking(move |mrtr| deploy(c.clone(), mrtr));
    (transcript, counters)
}

fn client() -> TestClient {
    TestClient::tool("deploy", json!({}))
}

#[test]
fn helpers_ask_branch_loop_and_nest_and_no_finished_segment_runs_twice() {
    let (transcript, counters) = run(client()
        .answer("s1.s1.answer", Answer::accept(json!({ "confirm": true })))
        .answer("s2.s1.name", Answer::accept(json!({ "name": "ada" })))
        .answer("s2.s1.name", Answer::accept(json!({ "name": "bob" })))
        .answer("s3.s1.s1.answer", Answer::Decline)
        .answer(
            "s3.s1.s2.reason",
            Answer::accept(json!({ "text": "retry" })),
        ));
    assert_eq!(
        transcript.end,
        End::Complete(
            json!({ "version": "1.2.3", "names": ["ada", "bob"], "nested": "outer:true" })
        )
    );
    let keys: Vec<Vec<String>> = (0..transcript.rounds.len())
        .filter_map(|i| transcript.asked(i))
        .map(|asked| asked.input_requests.keys().cloned().collect())
        .collect();
    assert_eq!(
        keys,
        [
            vec!["s1.s1.answer"],
            vec!["s2.s1.name"],
            vec!["s2.s1.name"],
            vec!["s3.s1.s1.answer"],
            vec!["s3.s1.s2.reason"],
        ]
    );
    let first = transcript.asked(0).expect("round 1 asks");
    assert_eq!(
        first.input_requests["s1.s1.answer"]["params"]["message"],
        "Really deploy 1.2.3!?"
    );
    let second_name = transcript.asked(2).expect("round 3 asks");
    assert_eq!(
        second_name.input_requests["s2.s1.name"]["params"]["message"],
        "Name #1?"
    );
    assert_eq!(transcript.rounds.len(), 6);
    assert_eq!(
        count(&counters.before),
        1,
        "the handler's first segment ran again"
    );
    assert_eq!(
        count(&counters.helper_head),
        2,
        "once per call of `confirm`"
    );
    assert_eq!(count(&counters.helper_tail), 2);
    assert_eq!(
        count(&counters.outer_head),
        1,
        "the outer helper's first segment ran again"
    );
    assert_eq!(count(&counters.loop_items), 2, "an iteration ran again");
    assert_eq!(count(&counters.after), 1);
}

#[test]
fn a_helper_answered_in_one_round_returns_and_the_caller_goes_on() {
    let (transcript, counters) = run(client()
        .answer("s1.s1.answer", Answer::Decline)
        .answer("s1.s2.reason", Answer::accept(json!({ "text": "no" }))));
    assert_eq!(
        transcript.end,
        End::Complete(json!({ "status": "cancelled" }))
    );
    assert_eq!(transcript.rounds.len(), 3);
    assert_eq!(count(&counters.helper_head), 1);
    assert_eq!(count(&counters.before), 1);
}

#[test]
fn a_malformed_answer_inside_a_helper_is_invalid_answer() {
    let (transcript, _) =
        run(client().answer("s1.s1.answer", Answer::accept(json!({ "confirm": "yes" }))));
    let error = transcript.error().expect("an error");
    assert_eq!(error.code, -32602);
    assert!(error.message.contains("s1.s1.answer"), "{}", error.message);
}

#[test]
fn answers_for_a_helper_step_other_than_the_suspended_one_are_ignored() {
    // The answer to the second ask of `confirm` arrives early: it is not used for the first.
    let (transcript, _) = run(client()
        .answer("s1.s2.reason", Answer::accept(json!({ "text": "early" })))
        .max_rounds(2));
    assert!(
        matches!(&transcript.end, End::Unanswered { key, .. } if key == "s1.s1.answer"),
        "{:?}",
        transcript.end
    );
}

mod reshaped {
    //! The same handler with a helper of another shape: a state suspended inside the old
    //! helper must not resume inside the new one.
    use super::*;

    #[mrtr_helper]
    async fn confirm(mrtr: &Mrtr, counters: &Counters, what: String) -> Result<bool, MrtrError> {
        counters.helper_head.fetch_add(1, Ordering::SeqCst);
        let first = mrtr.elicit::<Reason>(format!("Why {what}?")).await?;
        let answer = mrtr.elicit::<Confirm>("Sure?").await?;
        Ok(first.accepted().is_some() && answer.accepted().is_some_and(|c| c.confirm))
    }

    #[mrtr_helper]
    async fn collect_names(
        _mrtr: &Mrtr,
        _counters: &Counters,
        _how_many: u32,
    ) -> Result<Vec<String>, MrtrError> {
        Ok(Vec::new())
    }

    #[mrtr_helper]
    async fn outer(mrtr: &Mrtr, counters: &Counters) -> Result<String, MrtrError> {
        counters.outer_head.fetch_add(1, Ordering::SeqCst);
        let prefix = String::from("outer");
        let ok = confirm(mrtr, counters, "nest".into()).await?;
        Ok(format!("{prefix}:{ok}"))
    }

    // Identical to the top-level handler, so its own fingerprint is the same.
    #[mrtr_handler]
    pub async fn deploy(counters: Arc<Counters>, mrtr: Mrtr) -> Result<Value, MrtrError> {
        counters.before.fetch_add(1, Ordering::SeqCst);
        let version = String::from("1.2.3");
        let ok = confirm(&mrtr, &counters, format!("deploy {version}")).await?;
        if !ok {
            return Ok(json!({ "status": "cancelled" }));
        }
        let names = collect_names(&mrtr, &counters, 2).await?;
        let nested = outer(&mrtr, &counters).await?;
        counters.after.fetch_add(1, Ordering::SeqCst);
        Ok(json!({ "version": version, "names": names, "nested": nested }))
    }
}

type Boxed = Pin<Box<dyn Future<Output = Result<Outcome<Value>, MrtrError>> + Send>>;

#[test]
fn a_state_suspended_inside_a_helper_of_another_shape_is_invalid_state() {
    let counters = Arc::new(Counters::default());
    let mut round = 0;
    let transcript = client()
        .answer_any(Answer::accept(json!({ "confirm": true })))
        .run_blocking(move |mrtr| -> Boxed {
            round += 1;
            if round == 1 {
                Box::pin(deploy(counters.clone(), mrtr))
            } else {
                Box::pin(reshaped::deploy(counters.clone(), mrtr))
            }
        });
    let error = transcript
        .error()
        .expect("the redeployed helper refuses the old state");
    assert_eq!(error.code, -32602);
    assert_eq!(error.message, "Invalid or expired requestState");
    assert_eq!(transcript.rounds.len(), 2);
}

/// Helper shapes beyond the basic one: an explicit key, a batch, an associated function called
/// through `Self::`, a call bound without `?`, and a `let`-`else` on its value.
struct Desk;

#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
struct Ticket {
    id: String,
}

impl Desk {
    #[mrtr_helper]
    async fn ticket_and_notes(mrtr: &Mrtr) -> Result<(String, String), MrtrError> {
        let (ticket, notes) = mrtr
            .join(
                mrtr.elicit::<Ticket>("Ticket?").key("ticket"),
                mrtr.elicit::<Reason>("Notes?"),
            )
            .await?;
        let ticket = ticket.accepted().map(|t| t.id).unwrap_or_default();
        let notes = notes.accepted().map(|n| n.text).unwrap_or_default();
        Ok((ticket, notes))
    }

    #[mrtr_helper]
    async fn sure(mrtr: &Mrtr) -> Result<bool, MrtrError> {
        let ok = mrtr.elicit::<Confirm>("Sure?").await?;
        Ok(ok.accepted().is_some_and(|c| c.confirm))
    }

    #[mrtr_handler]
    async fn file(mrtr: Mrtr) -> Result<Value, MrtrError> {
        let true = Self::sure(&mrtr).await? else {
            return Ok(json!("not sure"));
        };
        let pair = Self::ticket_and_notes(&mrtr).await;
        let (ticket, notes) = pair?;
        Ok(json!({ "ticket": ticket, "notes": notes }))
    }
}

#[test]
fn keys_batches_associated_helpers_and_let_else_on_a_helper_call() {
    let transcript = client()
        .answer("s1.s1.ok", Answer::accept(json!({ "confirm": true })))
        .answer("ticket", Answer::accept(json!({ "id": "CHG-7" })))
        .answer("s2.s1.notes", Answer::accept(json!({ "text": "fixes" })))
        .run_blocking(Desk::file);
    assert_eq!(
        transcript.end,
        End::Complete(json!({ "ticket": "CHG-7", "notes": "fixes" }))
    );
    let batch = transcript.asked(1).expect("round 2 asks the batch");
    assert_eq!(
        batch.input_requests.keys().collect::<Vec<_>>(),
        ["s2.s1.notes", "ticket"],
        "an explicit key is used as written, a default one gets the caller's prefix"
    );
    let declined = client()
        .answer("s1.s1.ok", Answer::Decline)
        .run_blocking(Desk::file);
    assert_eq!(declined.end, End::Complete(json!("not sure")));
}

/// Not an asking helper: it only reads the request's handle.
async fn can_elicit(mrtr: &Mrtr) -> Result<bool, MrtrError> {
    Ok(mrtr.supports_form_elicitation())
}

#[mrtr_handler]
async fn gated(counters: Arc<Counters>, mrtr: Mrtr) -> Result<Value, MrtrError> {
    counters.before.fetch_add(1, Ordering::SeqCst);
    let can = can_elicit(&mrtr).await?;
    if !can {
        return Ok(json!("no elicitation"));
    }
    let ok = mrtr.elicit::<Confirm>("Go?").await?;
    Ok(json!(ok.accepted().is_some_and(|c| c.confirm)))
}

#[test]
fn a_plain_async_fn_taking_the_handle_is_called_as_a_step_that_never_suspends() {
    let counters = Arc::new(Counters::default());
    let c = counters.clone();
    let transcript = client()
        .answer("s2.ok", Answer::accept(json!({ "confirm": true })))
        .run_blocking(move |mrtr| gated(c.clone(), mrtr));
    assert_eq!(transcript.end, End::Complete(json!(true)));
    assert_eq!(transcript.rounds.len(), 2);
    assert_eq!(count(&counters.before), 1);
    let without = client()
        .capabilities(json!({}))
        .run_blocking(|mrtr| gated(Arc::new(Counters::default()), mrtr));
    assert_eq!(without.end, End::Complete(json!("no elicitation")));
}
