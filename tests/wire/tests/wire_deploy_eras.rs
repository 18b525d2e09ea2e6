//! The deploy example before and after its migration, driven over stdio by the same 2025-era
//! client (the Python `mcp` SDK 1.x): the legacy rmcp 2.x server asks mid-request through
//! `context.peer`, the migrated rmcp 3.x server runs its `#[mrtr_handler]` tool in process on
//! that session. The client must not be able to tell them apart: same results, same requests
//! (the two asks `after` batches into one round compare as a set).
//!
//! The binaries are built by `scripts/test-all.sh` before the tests run (`deploy-before` is a
//! standalone crate on rmcp 2.x, built into `target/deploy-before`). Without them the test is
//! skipped with a message, unless `MRTR_WIRE_REQUIRE_PYTHON=1` (CI), where that is a failure.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use wire_tests::python::MCP_1;

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"))
}

fn binaries() -> Option<(PathBuf, PathBuf)> {
    let target = target_dir();
    let before = target.join("deploy-before/debug/deploy-before");
    let after = target.join("debug/deploy-after");
    if before.exists() && after.exists() {
        return Some((before, after));
    }
    let required = std::env::var("MRTR_WIRE_REQUIRE_PYTHON").is_ok_and(|value| value == "1");
    assert!(
        !required,
        "MRTR_WIRE_REQUIRE_PYTHON=1 but {} or {} is missing: run scripts/test-all.sh",
        before.display(),
        after.display()
    );
    eprintln!(
        "SKIPPED deploy_before_and_after: build them first ({} and {})",
        before.display(),
        after.display()
    );
    None
}

async fn drive(python: &Path, server: &Path, answers: &Value) -> Value {
    let plan = json!({
        "transport": "stdio",
        "command": [server],
        "env": { "PATH": std::env::var("PATH").unwrap_or_default() },
        "tool": "deploy_production",
        "arguments": { "version": "1.4.2" },
        "answers": answers,
    });
    wire_tests::python::legacy_client(python, &plan).await
}

/// The requests a report shows, the confirmation first, then the rest (one round in `after`) in
/// a fixed order.
fn requests_by_round(report: &Value) -> Vec<Value> {
    let mut requests = report["requests"].as_array().cloned().unwrap_or_default();
    if requests.len() > 1 {
        requests[1..].sort_by_key(|request| request.to_string());
    }
    requests
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deploy_before_and_after_look_the_same_to_a_2025_client() {
    let Some(python) = MCP_1.find("deploy_before_and_after").await else {
        return;
    };
    let Some((before, after)) = binaries() else {
        return;
    };
    let scripts = [
        json!({ "confirm": true, "id": "CHG-42", "text": "faster deploys" }),
        json!({ "confirm": false }),
        json!({ "confirm": "decline" }),
        json!({ "confirm": "cancel" }),
    ];
    for answers in &scripts {
        let old = drive(&python, &before, answers).await;
        let new = drive(&python, &after, answers).await;
        assert_eq!(old["protocol"], "2025-11-25");
        assert_eq!(new["protocol"], "2025-11-25");
        assert!(old.get("result").is_some(), "{old:#}");
        assert_eq!(old["result"], new["result"], "results differ for {answers}");
        // `after` asks for the ticket and the notes in one round (`join`): the two requests
        // travel together and may arrive in either order, so they compare as a set.
        assert_eq!(
            requests_by_round(&old),
            requests_by_round(&new),
            "the client saw other requests for {answers}"
        );
    }
    let full = drive(&python, &after, &scripts[0]).await;
    assert_eq!(
        full["result"]["text"],
        json!(["deployed 1.4.2 to 2 hosts (ticket CHG-42): faster deploys"])
    );
    assert_eq!(full["requests"].as_array().map(Vec::len), Some(3));
}
