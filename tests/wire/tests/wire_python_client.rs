//! The Python `mcp` SDK 2.x client drives the conformance server's two-round `#[mrtr_handler]`
//! tool over streamable HTTP: two accepted rounds, then a decline, then a tampered requestState.
//!
//! Python comes from `MRTR_WIRE_PYTHON`, else the venv `scripts/conformance.sh --install`
//! makes (`.conformance/py`), else `python3` (see `wire_tests::python`).

use std::path::Path;
use std::time::Duration;

use serde_json::Value;
use tokio::process::Command;
use wire_tests::python::MCP_2;
use wire_tests::{assert_retry_chain, WireServer};

const TOOL: &str = "test_input_required_result_multi_round";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_client_completes_declines_and_is_refused_a_tampered_state() {
    let Some(python) = MCP_2
        .find("python_sdk_client_completes_declines_and_is_refused_a_tampered_state")
        .await
    else {
        return;
    };

    let server = WireServer::start().await.expect("server starts");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("py/mrtr_client.py");
    let run = Command::new(&python)
        .arg(&script)
        .args([server.url.as_str(), TOOL])
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(Duration::from_secs(120), run)
        .await
        .expect("the Python client finishes within two minutes")
        .expect("the Python client starts");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "python client failed: {}\n{stderr}",
        output.status
    );
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("python printed no JSON report ({error}): {stderr}"));
    let sdk = report["sdk_version"].as_str().unwrap_or_default();
    assert!(
        sdk.starts_with("2."),
        "expected the mcp 2.x SDK, got {sdk:?}"
    );

    // What the client saw.
    let complete = &report["complete"];
    assert_eq!(complete["text"], "Ada likes teal.", "{report:#}");
    assert_eq!(complete["is_error"], false);
    let fields: Vec<&Value> = complete["asked"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| &a["fields"])
        .collect();
    assert_eq!(
        fields,
        [&serde_json::json!(["name"]), &serde_json::json!(["color"])],
        "{report:#}"
    );
    let declined = &report["declined"];
    assert_eq!(
        declined["text"], "Step 1 declined: no name, no second question.",
        "{report:#}"
    );
    assert_eq!(
        declined["asked"].as_array().map(Vec::len),
        Some(1),
        "a decline ends the flow"
    );
    let tampered = &report["tampered"];
    assert_eq!(tampered["code"], -32602, "{report:#}");
    assert_eq!(tampered["message"], "Invalid or expired requestState");

    // What the server saw: 3 requests, then 2, then 2, in that order.
    let calls = server.recorder.calls("tools/call", TOOL);
    assert_eq!(calls.len(), 7, "{calls:#?}");
    assert_retry_chain(&calls[0..3], 2);
    assert_retry_chain(&calls[3..5], 1);
    let decline = calls[4]
        .sent_input_responses()
        .expect("decline is an input response");
    let answer = decline
        .as_object()
        .and_then(|answers| answers.values().next())
        .unwrap();
    assert_eq!(answer["action"], "decline");
    assert!(!calls[4].is_input_required());

    let (opened, forged) = (&calls[5], &calls[6]);
    assert!(opened.is_input_required());
    let original = opened
        .returned_state()
        .expect("input_required carries requestState");
    assert_eq!(
        tampered["original"], original,
        "the client saw the state the server sent"
    );
    let sent = forged
        .sent_state()
        .and_then(Value::as_str)
        .expect("forged retry carries a state");
    assert_eq!(tampered["forged"], sent);
    assert_ne!(sent, original);
    assert_eq!(
        sent.len(),
        original.len(),
        "one character changed, nothing else"
    );
    assert_eq!(forged.error_code(), Some(-32602), "{forged:?}");
    assert_ne!(forged.id(), opened.id());
}
