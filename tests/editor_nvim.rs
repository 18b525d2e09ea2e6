//! A real editor client: Neovim's built-in LSP client (headless) drives `cargo mcp-lint server`
//! on a legacy rmcp buffer: diagnostics arrive, the safe fix-all and then the unsafe fix of the
//! legacy ask are applied, and the buffer ends clean (checked again with the command line).
//! Needs `nvim` (Debian's `neovim`, installed by `.ci/run`); in CI (`CI=true`) a missing `nvim`
//! fails the test, elsewhere it is skipped with a note.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

fn nvim_available() -> bool {
    Command::new("nvim")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn neovim_receives_diagnostics_and_applies_the_fixes() {
    if !nvim_available() {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("nvim is not installed; .ci/run installs Debian's neovim");
        }
        eprintln!("skipped: nvim is not installed (apt-get install neovim)");
        return;
    }
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fixture = manifest_dir.join("tests/fixtures/editor-legacy");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("server");
    std::fs::create_dir_all(root.join("src")).unwrap();
    for f in ["Cargo.toml", "src/main.rs"] {
        std::fs::copy(fixture.join(f), root.join(f)).unwrap();
    }
    let file = root.join("src/main.rs");
    let out = dir.path().join("report.json");
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let mut child = Command::new("nvim")
        .args(["--headless", "-u", "NONE", "-i", "NONE", "-n", "-c"])
        .arg(format!(
            "luafile {}",
            manifest_dir.join("tests/editor/nvim_client.lua").display()
        ))
        .current_dir(&root)
        .env("MCP_LINT_BIN", env!("CARGO_BIN_EXE_cargo-mcp-lint"))
        .env("MCP_LINT_ROOT", &root)
        .env("MCP_LINT_FILE", &file)
        .env("MCP_LINT_OUT", &out)
        // Neovim's log, state and the server's docs cache stay in the temporary folder.
        .env("HOME", &home)
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env("XDG_STATE_HOME", home.join("state"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .spawn()
        .expect("start nvim");
    let deadline = Instant::now() + Duration::from_secs(180);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("nvim did not finish in time");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let report: Value = serde_json::from_str(
        &std::fs::read_to_string(&out).unwrap_or_else(|e| panic!("no report ({status}): {e}")),
    )
    .unwrap();
    assert!(
        status.success() && report["ok"] == true,
        "{status}: {report}"
    );
    let steps = &report["steps"];
    let text = std::fs::read_to_string(fixture.join("src/main.rs")).unwrap();
    let line = |needle: &str| text.lines().position(|l| l.contains(needle)).unwrap() + 1;
    let ask = format!("MCP001:{}", line(".elicit::<Confirm>"));
    let stale = format!("MCP901:{}", line("mcp-lint: allow(MCP002)"));
    assert_eq!(steps["opened"], serde_json::json!([ask, stale]), "{report}");
    assert_eq!(steps["fix_all_kind"], "source.fixAll.mcp-lint");
    // The fix-all deleted the stale directive: the ask moved up a line.
    let ask_after = format!("MCP001:{}", line(".elicit::<Confirm>") - 1);
    assert_eq!(
        steps["after_fix_all"],
        serde_json::json!([ask_after]),
        "{report}"
    );
    assert_eq!(steps["after_unsafe"], serde_json::json!([]), "{report}");

    // The buffer Neovim wrote is migrated, and the command line agrees it is clean.
    let written = std::fs::read_to_string(&file).unwrap();
    assert!(written.contains("#[mrtr_handler]") && !written.contains("mcp-lint: allow"));
    let cli = Command::new(env!("CARGO_BIN_EXE_cargo-mcp-lint"))
        .args(["--format", "concise", "src/main.rs"])
        .current_dir(&root)
        .output()
        .unwrap();
    assert_eq!(
        cli.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&cli.stdout)
    );
}
