#![allow(unused_imports, dead_code)]
use mrtr::{mrtr_handler, mrtr_helper, Mrtr, MrtrError};
use serde_json::{json, Value};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Confirm {
    confirm: bool,
}

#[mrtr_helper]
fn confirm(mrtr: &Mrtr) -> Result<bool, MrtrError> {
    let _ = mrtr;
    Ok(true)
}

fn main() {}
