use mrtr::{mrtr_handler, Mrtr, MrtrError};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Confirm {
    confirm: bool,
}

#[mrtr_handler]
async fn literal(fast: bool, mrtr: Mrtr) -> Result<serde_json::Value, MrtrError> {
    let mode = if fast { "fast" } else { "safe" };
    let ok = mrtr.elicit::<Confirm>("Go?").await?;
    let _ = ok;
    Ok(serde_json::json!(mode))
}

#[mrtr_handler]
async fn first_host(hosts: Vec<String>, mrtr: Mrtr) -> Result<serde_json::Value, MrtrError> {
    let first = hosts.first();
    let ok = mrtr.elicit::<Confirm>("Go?").await?;
    let _ = ok;
    Ok(serde_json::json!(first))
}

#[mrtr_handler]
async fn literal_items(mrtr: Mrtr) -> Result<serde_json::Value, MrtrError> {
    let mut done = 0;
    for host in ["a", "b"] {
        let ok = mrtr.elicit::<Confirm>(format!("Restart {host}?")).await?;
        let _ = ok;
        done += 1;
    }
    Ok(serde_json::json!(done))
}

fn main() {}
