//! `mrtr.elicit_schema(message, schema)`: a form whose schema is built at run time, asked from
//! a `#[mrtr_handler]` body and driven round by round with the test client.

use mrtr::testing::{Answer, End, TestClient};
use mrtr::{mrtr_handler, Elicitation, Mrtr, MrtrError};
use serde_json::{json, Map, Value};

/// The form's fields come from the request: one required string field per name.
fn form_for(fields: &[String]) -> Value {
    let properties: Map<String, Value> = fields
        .iter()
        .map(|f| (f.clone(), json!({ "type": "string", "title": f })))
        .collect();
    json!({ "type": "object", "properties": properties, "required": fields })
}

#[mrtr_handler]
async fn register(fields: Vec<String>, mrtr: Mrtr) -> Result<Value, MrtrError> {
    let schema = form_for(&fields);
    let answer = mrtr.elicit_schema("Fill in the record", schema).await?;
    Ok(match answer {
        Elicitation::Accept(record) => json!({ "record": record }),
        Elicitation::Decline => json!("declined"),
        Elicitation::Cancel => json!("cancelled"),
    })
}

fn run(answer: Answer) -> mrtr::testing::Transcript {
    TestClient::tool("register", json!({}))
        .answer("s1.answer", answer)
        .run_blocking(|mrtr| register(vec!["host".into(), "owner".into()], mrtr))
}

#[test]
fn the_run_time_schema_is_asked_and_the_record_comes_back_as_an_object() {
    let transcript = run(Answer::accept(json!({ "host": "db-1", "owner": "ada" })));
    assert_eq!(
        transcript.end,
        End::Complete(json!({ "record": { "host": "db-1", "owner": "ada" } }))
    );
    let asked = transcript.asked(0).expect("round 1 asks");
    assert_eq!(
        asked.input_requests["s1.answer"]["params"]["requestedSchema"]["required"],
        json!(["host", "owner"])
    );
}

#[test]
fn decline_cancel_and_a_missing_field_behave_as_for_typed_forms() {
    assert_eq!(run(Answer::Decline).end, End::Complete(json!("declined")));
    assert_eq!(run(Answer::Cancel).end, End::Complete(json!("cancelled")));
    let transcript = run(Answer::accept(json!({ "host": "db-1" })));
    let error = transcript
        .error()
        .expect("a missing required field is an error");
    assert_eq!(error.code, -32602);
    assert!(error.message.contains("s1.answer"), "{}", error.message);
}
