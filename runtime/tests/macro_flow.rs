//! Behaviour of `#[mrtr_handler]` expansions, driven round by round with the runtime's test
//! client (no SDK involved).

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

#[derive(Default)]
struct Counters {
    plan: AtomicUsize,
    deploy: AtomicUsize,
}

#[mrtr_handler]
async fn deploy(counters: Arc<Counters>, version: String, mrtr: Mrtr) -> Result<Value, MrtrError> {
    counters.plan.fetch_add(1, Ordering::SeqCst);
    let plan = Plan { version: version.clone(), steps: 3 };
    let ok = mrtr.elicit::<Confirm>(format!("Deploy {} ({} steps)?", plan.version, plan.steps)).await?;
    let Elicitation::Accept(Confirm { confirm: true }) = ok else {
        return Ok(json!({ "status": "cancelled" }));
    };
    let (ticket, notes) = mrtr
        .join(mrtr.elicit::<Ticket>("Change ticket?"), mrtr.elicit::<Notes>("Release notes?"))
        .await?;
    let (Elicitation::Accept(ticket), Elicitation::Accept(notes)) = (ticket, notes) else {
        return Ok(json!({ "status": "no ticket" }));
    };
    counters.deploy.fetch_add(1, Ordering::SeqCst);
    Ok(json!({ "deployed": plan.version, "ticket": ticket.id, "notes": notes.text }))
}

#[tokio::test]
async fn three_rounds_with_a_batch_and_no_segment_runs_twice() {
    let counters = Arc::new(Counters::default());
    let c = counters.clone();
    let transcript = TestClient::tool("deploy", json!({ "version": "1.2.3" }))
        .answer("s1.ok", Answer::accept(json!({ "confirm": true })))
        .answer("s2.ticket", Answer::accept(json!({ "id": "CHG-7" })))
        .answer("s2.notes", Answer::accept(json!({ "text": "fixes" })))
        .run(move |mrtr| deploy(c.clone(), "1.2.3".into(), mrtr))
        .await;
    assert_eq!(
        transcript.end,
        End::Complete(json!({ "deployed": "1.2.3", "ticket": "CHG-7", "notes": "fixes" }))
    );
    assert_eq!(transcript.rounds.len(), 3);
    let second = transcript.asked(1).expect("round 2 asks");
    assert_eq!(second.input_requests.keys().collect::<Vec<_>>(), ["s2.notes", "s2.ticket"]);
    assert_eq!(counters.plan.load(Ordering::SeqCst), 1, "the segment before the first ask ran again");
    assert_eq!(counters.deploy.load(Ordering::SeqCst), 1);
}
