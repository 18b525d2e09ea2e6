//! Finding a Python that can import a given SDK, for the tests that drive clients written in
//! Python. Each SDK lives in its own venv that `scripts/conformance.sh --install` makes under
//! `.conformance/`; an environment variable can name another interpreter.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use tokio::process::Command;

/// A Python SDK client the wire tests drive.
pub struct PythonSdk {
    /// What the tests call it in messages.
    pub name: &'static str,
    /// The environment variable that may name the interpreter.
    pub env: &'static str,
    /// Its venv under `.conformance/`.
    pub venv: &'static str,
    /// A Python statement that fails when the SDK (at the right major) is missing.
    pub probe: &'static str,
}

/// The Python `mcp` SDK 2.x: a 2026-07-28 client with its own MRTR loop.
pub const MCP_2: PythonSdk = PythonSdk {
    name: "the Python mcp SDK 2.x",
    env: "MRTR_WIRE_PYTHON",
    venv: "py",
    probe: "import mcp.client.client, mcp_types",
};

/// The Python `mcp` SDK 1.x: a 2025-era client that answers server-to-client requests.
pub const MCP_1: PythonSdk = PythonSdk {
    name: "the Python mcp SDK 1.x",
    env: "MRTR_WIRE_LEGACY_PYTHON",
    venv: "py-legacy",
    probe: "import importlib.metadata as m, sys; import mcp.client.session; \
            sys.exit(m.version('mcp').split('.')[0] != '1')",
};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

impl PythonSdk {
    fn interpreter(&self) -> PathBuf {
        if let Some(explicit) = std::env::var_os(self.env) {
            return PathBuf::from(explicit);
        }
        let venv = workspace_root().join(format!(".conformance/{}/bin/python", self.venv));
        if venv.exists() {
            return venv;
        }
        PathBuf::from("python3")
    }

    /// The interpreter to run, or None when the SDK is missing and the test may be skipped
    /// (it says so on stderr). With `MRTR_WIRE_REQUIRE_PYTHON=1` (set by `.ci/run`) a missing
    /// SDK fails the test instead.
    pub async fn find(&self, test: &str) -> Option<PathBuf> {
        let python = self.interpreter();
        let probe = Command::new(&python)
            .args(["-c", self.probe])
            .output()
            .await;
        let why = match probe {
            Ok(out) if out.status.success() => return Some(python),
            Ok(out) => String::from_utf8_lossy(&out.stderr)
                .trim()
                .lines()
                .last()
                .unwrap_or("the probe failed")
                .to_string(),
            Err(error) => format!("cannot run {}: {error}", python.display()),
        };
        let required = std::env::var("MRTR_WIRE_REQUIRE_PYTHON").is_ok_and(|value| value == "1");
        assert!(
            !required,
            "MRTR_WIRE_REQUIRE_PYTHON=1 but {} is missing for {}: {why}",
            self.name,
            python.display()
        );
        eprintln!(
            "SKIPPED {test}: {} is not installed for {} ({why}); run \
             `bash scripts/conformance.sh --install` to install it",
            self.name,
            python.display()
        );
        None
    }
}

/// Runs `py/legacy_client.py` (the Python `mcp` 1.x client) with `plan` and returns the JSON report
/// it prints (see the script for the plan's fields). Panics when it fails or takes two minutes.
pub async fn legacy_client(python: &Path, plan: &Value) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("py/legacy_client.py");
    let run = Command::new(python)
        .arg(script)
        .arg(plan.to_string())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(Duration::from_secs(120), run)
        .await
        .expect("the Python client finishes within two minutes")
        .expect("the Python client starts");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "python client failed: {stderr}");
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("python printed no JSON report ({error}): {stderr}"))
}
