#![allow(unused_imports, dead_code)]
use mrtr::{mrtr_handler, mrtr_helper, Mrtr, MrtrError};
use serde_json::{json, Value};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Confirm {
    confirm: bool,
}

#[mrtr_helper]
async fn confirm(mrtr: &Mrtr) -> Result<bool, MrtrError> {
    let ok = mrtr.elicit::<Confirm>("Go?").await?;
    Ok(ok.accepted().is_some_and(|c| c.confirm))
}

/// Not a handler: nothing keeps the helper's progress.
async fn plain(mrtr: Mrtr) -> Result<Value, MrtrError> {
    let ok = confirm(&mrtr).await?;
    Ok(json!(ok))
}

fn main() {
    let _ = plain;
}
