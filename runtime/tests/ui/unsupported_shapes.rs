use mrtr::{mrtr_handler, Elicitation, Mrtr, MrtrError};
use serde_json::{json, Value};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Confirm {
    confirm: bool,
}

#[mrtr_handler]
async fn a_loop_inside_an_expression(mrtr: Mrtr) -> Result<Value, MrtrError> {
    Ok(Value::from(loop {
        let ok = mrtr.elicit::<Confirm>("Stop?").await?;
        if ok.accepted().is_some() {
            break 1;
        }
    }))
}

#[mrtr_handler]
async fn nested_in_an_expression(mrtr: Mrtr) -> Result<Value, MrtrError> {
    Ok(Value::Bool(mrtr.elicit::<Confirm>("Go?").await?.accepted().is_some()))
}

#[mrtr_handler]
async fn in_a_closure(mrtr: Mrtr) -> Result<Value, MrtrError> {
    let ask = || async { mrtr.elicit::<Confirm>("Go?").await };
    let _ = ask;
    Ok(json!(null))
}

#[mrtr_handler]
async fn in_a_condition(mrtr: Mrtr) -> Result<Value, MrtrError> {
    if let Elicitation::Accept(c) = mrtr.elicit::<Confirm>("Go?").await? {
        return Ok(json!(c.confirm));
    }
    Ok(json!(null))
}

#[mrtr_handler]
async fn in_a_nested_block(mrtr: Mrtr) -> Result<Value, MrtrError> {
    {
        let _ok = mrtr.elicit::<Confirm>("Go?").await?;
    }
    Ok(json!(null))
}

#[mrtr_handler]
async fn keyed_batch(mrtr: Mrtr) -> Result<Value, MrtrError> {
    let (_a, _b) = mrtr
        .join(mrtr.elicit::<Confirm>("A?"), mrtr.elicit::<Confirm>("B?"))
        .key("both")
        .await?;
    Ok(json!(null))
}

#[mrtr_handler]
async fn in_an_async_block(mrtr: Mrtr) -> Result<Value, MrtrError> {
    let later = async { mrtr.elicit::<Confirm>("Go?").await };
    let _ = later;
    Ok(json!(null))
}

#[mrtr_handler]
async fn in_a_macro(mrtr: Mrtr) -> Result<Value, MrtrError> {
    Ok(json!({ "accepted": mrtr.elicit::<Confirm>("Go?").await?.accepted().is_some() }))
}

fn main() {}
