//! The second line of defence (`src/supervise.rs`): a file whose analysis kills the process (a
//! stack overflow, which cannot be caught in-thread) becomes an MCP900 finding for that file, and
//! every other file is still linted and fixed. No known input overflows past the depth guard, so
//! the overflow is made on demand by a hook of debug builds (`MCP_LINT_TEST_OVERFLOW`).

use std::path::Path;
use std::process::{Command, Output};

const LEGACY: &str = "fn t(ctx: RequestContext<RoleServer>) { ctx.peer.list_roots(); }\n";

fn run(dir: &Path, overflow: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-mcp-lint"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("MCP_LINT_TEST_OVERFLOW", overflow)
        .output()
        .expect("binary runs")
}

fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join("src").join(name), text).unwrap();
    }
    dir
}

fn findings(o: &Output) -> Vec<(String, String, String)> {
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    });
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                f["code"].as_str().unwrap().to_string(),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_file_that_overflows_the_stack_is_an_error_and_the_others_are_linted() {
    let dir = tree(&[("boom.rs", LEGACY), ("a.rs", LEGACY), ("b.rs", LEGACY)]);
    let o = run(dir.path(), "src/boom.rs", &["--format", "json", "."]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("died"), "{stderr}");
    assert!(stderr.contains("src/boom.rs"), "{stderr}");
    let got = findings(&o);
    let boom: Vec<_> = got.iter().filter(|f| f.0 == "src/boom.rs").collect();
    assert_eq!(boom.len(), 1, "{got:?}");
    assert_eq!(boom[0].1, "MCP900");
    assert!(boom[0].2.contains("killed the linter"), "{}", boom[0].2);
    for other in ["src/a.rs", "src/b.rs"] {
        assert!(
            got.iter().any(|f| f.0 == other && f.1 == "MCP003"),
            "{other} not linted: {got:?}"
        );
    }
    // Without the overflow the same tree has no MCP900: the finding comes from the crash.
    let plain = run(dir.path(), "", &["--format", "json", "."]);
    assert!(findings(&plain).iter().all(|f| f.1 != "MCP900"));
    assert!(!String::from_utf8_lossy(&plain.stderr).contains("died"));
}

#[test]
fn under_fix_the_other_files_are_still_fixed() {
    // A stale suppression: MCP901, with a safe fix that removes it.
    let stale = format!("// mcp-lint: allow(MCP001) -- nothing elicits here\n{LEGACY}");
    let dir = tree(&[("boom.rs", LEGACY), ("stale.rs", &stale)]);
    let o = run(dir.path(), "src/boom.rs", &["--fix", "."]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("died"), "{stderr}");
    let fixed = std::fs::read_to_string(dir.path().join("src/stale.rs")).unwrap();
    assert!(
        !fixed.contains("mcp-lint: allow"),
        "not fixed:\n{fixed}\n{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("src/boom.rs")).unwrap(),
        LEGACY
    );
    // Nothing of the watcher is left behind.
    let left: Vec<_> = std::fs::read_dir(dir.path().join("src"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left.len(), 2, "{left:?}");
}
