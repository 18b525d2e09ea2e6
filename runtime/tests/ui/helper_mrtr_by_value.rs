#![allow(unused_imports, dead_code)]
use mrtr::{mrtr_handler, mrtr_helper, Mrtr, MrtrError};
use serde_json::{json, Value};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Confirm {
    confirm: bool,
}

#[mrtr_helper]
async fn confirm(mrtr: Mrtr) -> Result<bool, MrtrError> {
    let ok = mrtr.elicit::<Confirm>("Go?").await?;
    Ok(ok.accepted().is_some_and(|c| c.confirm))
}

fn main() {}
