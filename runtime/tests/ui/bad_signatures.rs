use mrtr::{mrtr_handler, Mrtr, MrtrError};
use serde_json::{json, Value};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Confirm {
    confirm: bool,
}

#[mrtr_handler]
fn not_async(mrtr: Mrtr) -> Result<Value, MrtrError> {
    let _ = mrtr;
    Ok(json!(null))
}

#[mrtr_handler]
async fn no_mrtr(name: String) -> Result<Value, MrtrError> {
    Ok(json!(name))
}

#[mrtr_handler]
async fn no_result(mrtr: Mrtr) {
    let _ = mrtr;
}

#[mrtr_handler]
async fn mutable_parameter(mut count: u32, mrtr: Mrtr) -> Result<Value, MrtrError> {
    count += 1;
    let _ok = mrtr.elicit::<Confirm>("Go?").await?;
    Ok(json!(count))
}

#[mrtr_handler(1 + 2)]
async fn bad_argument(mrtr: Mrtr) -> Result<Value, MrtrError> {
    let _ = mrtr;
    Ok(json!(null))
}

fn main() {}
