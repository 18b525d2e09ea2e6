use mrtr::{mrtr_handler, Mrtr, MrtrError};

struct Connection;

impl Connection {
    fn open() -> Connection {
        Connection
    }
    fn name(&self) -> String {
        "db".into()
    }
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Confirm {
    confirm: bool,
}

#[mrtr_handler]
async fn handler(mrtr: Mrtr) -> Result<serde_json::Value, MrtrError> {
    let connection = Connection::open();
    let ok = mrtr.elicit::<Confirm>("Go?").await?;
    let _ = ok;
    Ok(serde_json::json!(connection.name()))
}

#[mrtr_handler]
async fn borrowed_items(mrtr: Mrtr) -> Result<serde_json::Value, MrtrError> {
    let hosts = vec!["a".to_string()];
    for host in &hosts {
        let ok = mrtr.elicit::<Confirm>(format!("Restart {host}?")).await?;
        let _ = ok;
    }
    Ok(serde_json::json!(hosts.len()))
}

fn main() {}
