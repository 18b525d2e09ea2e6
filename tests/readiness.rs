//! The 2026-07-28 readiness rules (MCP301-MCP304): fixtures on rmcp 3.x and rust-mcp-sdk with
//! every expected finding annotated on its line (`// ~ CODE`), and the gate's default: on where
//! the package targets 2026-07-28 (rmcp 3.x, or `target-protocol` in the config), opt-in
//! elsewhere, quiet in test code.

mod sdk_common;

#[path = "gate_fixtures/common.rs"]
mod gate_common;

use std::collections::BTreeMap;
use std::path::Path;

use mcp_lint::finding::Report;
use sdk_common::{annotations, copy_with_manifest, fixture_dir, lint_dir, manifest, Expected};

const CODES: &[&str] = &["MCP301", "MCP302", "MCP303", "MCP304"];

/// The readiness findings of a report, as (path, line) → codes.
fn readiness(report: &Report) -> Expected {
    let mut out: Expected = BTreeMap::new();
    for f in &report.findings {
        if CODES.contains(&f.code.as_str()) {
            out.entry((f.path.clone(), f.line))
                .or_default()
                .push(f.code.clone());
        }
    }
    for codes in out.values_mut() {
        codes.sort();
    }
    out
}

fn check(fixture: &str, sdk: &str) {
    let dir = fixture_dir(fixture);
    let report = lint_dir(&dir);
    let got = readiness(&report);
    let want = annotations(&dir);
    assert_eq!(
        got,
        want,
        "{fixture}: {:#?}",
        report
            .findings
            .iter()
            .filter(|f| CODES.contains(&f.code.as_str()))
            .map(|f| format!("{}:{} {} {}", f.path, f.line, f.code, f.message))
            .collect::<Vec<_>>()
    );
    for f in report
        .findings
        .iter()
        .filter(|f| CODES.contains(&f.code.as_str()))
    {
        // Findings of a dispatcher arm name no SDK; the rest name the fixture's.
        if let Some(s) = &f.sdk {
            assert_eq!(s, sdk, "{f:?}");
        }
        assert!(f.help.as_deref().is_some_and(|h| !h.is_empty()), "{f:?}");
        assert_eq!(f.level, mcp_lint::finding::Level::Warning, "{f:?}");
        let says_older = f.message.contains("before 2026-07-28")
            || f.message.contains("clients of every revision");
        assert!(
            says_older,
            "every finding says what older clients see: {}",
            f.message
        );
    }
}

#[test]
fn rmcp_3_fixture() {
    check("readiness_rmcp3", "rmcp");
}

#[test]
fn rust_mcp_sdk_fixture() {
    check("readiness_rust_mcp_sdk", "rust-mcp-sdk");
}

/// Advice follows the SDK version: below rmcp 3.0 the per-request capability API does not exist.
#[test]
fn help_names_the_upgrade_below_rmcp_3() {
    let tmp = copy_with_manifest("readiness_rmcp3", Some(&manifest("rmcp = \"2.2\"")), None);
    let report = lint_dir(tmp.path());
    let read = report
        .findings
        .iter()
        .find(|f| f.code == "MCP302" && f.message.contains("supported_elicitation_modes"))
        .expect("the handshake read");
    assert!(
        read.help
            .as_deref()
            .unwrap_or_default()
            .starts_with("upgrade to rmcp 3.x"),
        "{read:?}"
    );
    let on3 = lint_dir(&fixture_dir("readiness_rmcp3"));
    let read3 = on3
        .findings
        .iter()
        .find(|f| f.code == "MCP302" && f.message.contains("supported_elicitation_modes"))
        .unwrap();
    assert!(read3
        .help
        .as_deref()
        .unwrap()
        .contains("context.client_capabilities()"));
}

/// The readiness codes a report lists as "also needed for 2026-07-28".
#[test]
fn readiness_codes_are_exposed_and_catalogued() {
    assert_eq!(mcp_lint::rules::readiness_codes(), CODES);
    for code in CODES {
        let doc = mcp_lint::catalog::catalog().get(code).expect("catalogued");
        let text = format!("{} {}", doc.why, doc.how_to_fix);
        assert!(text.contains("2026-07-28"), "{code}");
        assert!(
            doc.why.contains("Older clients"),
            "{code}: the docs say whether older clients still work"
        );
    }
}

// The gate: on by default only where the package targets 2026-07-28.

fn cli_codes(dir: &Path, args: &[&str]) -> Vec<String> {
    let mut all = vec!["--format", "concise"];
    all.extend_from_slice(args);
    let r = gate_common::run_in(dir, &all);
    assert!(r.code == 0 || r.code == 1, "{}\n{}", r.stdout, r.stderr);
    let mut codes: Vec<String> = r
        .concise()
        .into_iter()
        .map(|(_, _, c)| c)
        .filter(|c| CODES.contains(&c.as_str()))
        .collect();
    codes.sort();
    codes.dedup();
    codes
}

#[test]
fn on_by_default_for_rmcp_3() {
    let tmp = copy_with_manifest(
        "readiness_rmcp3",
        Some(&std::fs::read_to_string(fixture_dir("readiness_rmcp3").join("Cargo.toml")).unwrap()),
        None,
    );
    assert_eq!(cli_codes(tmp.path(), &[]), CODES);
    // An explicit older target turns them off.
    assert!(cli_codes(tmp.path(), &["--config", "target-protocol=\"2025-11-25\""]).is_empty());
    // And `ignore` as for any rule.
    assert_eq!(
        cli_codes(tmp.path(), &["--config", "ignore=[\"MCP30\"]"]),
        Vec::<String>::new()
    );
}

#[test]
fn opt_in_below_rmcp_3_and_for_sdks_without_2026_support() {
    let old = copy_with_manifest("readiness_rmcp3", Some(&manifest("rmcp = \"2.2\"")), None);
    assert!(
        cli_codes(old.path(), &[]).is_empty(),
        "rmcp 2.x: off by default"
    );
    assert_eq!(
        cli_codes(old.path(), &["--config", "select=[\"MCP0\", \"MCP3\"]"]),
        CODES,
        "selected by prefix"
    );
    assert_eq!(
        cli_codes(old.path(), &["--config", "select=[\"ALL\", \"MCP3\"]"]),
        CODES,
        "everything, and the readiness rules too"
    );
    assert_eq!(
        cli_codes(old.path(), &["--config", "rules.MCP303=\"warn\""]),
        vec!["MCP303"],
        "a level for one code turns that code on"
    );
    let other = copy_with_manifest(
        "readiness_rust_mcp_sdk",
        Some(
            &std::fs::read_to_string(fixture_dir("readiness_rust_mcp_sdk").join("Cargo.toml"))
                .unwrap(),
        ),
        None,
    );
    assert!(cli_codes(other.path(), &[]).is_empty());
    assert_eq!(
        cli_codes(
            other.path(),
            &["--config", "target-protocol=\"2026-07-28\""]
        ),
        CODES,
        "an explicit target turns them on"
    );
    // The same key in a config file.
    std::fs::write(
        other.path().join("mcp-lint.toml"),
        "target-protocol = \"2026-07-28\"\n",
    )
    .unwrap();
    assert_eq!(cli_codes(other.path(), &[]), CODES);
}

/// No new finding in a test folder's mock server, even on rmcp 3.x.
#[test]
fn test_code_is_quiet() {
    let tmp = copy_with_manifest("readiness_rmcp3", Some(&manifest("rmcp = \"3.1\"")), None);
    let src = std::fs::read_to_string(tmp.path().join("src/lib.rs")).unwrap();
    std::fs::create_dir_all(tmp.path().join("tests")).unwrap();
    std::fs::write(tmp.path().join("tests/mock_server.rs"), &src).unwrap();
    let report = lint_dir(tmp.path());
    let in_tests: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.path.starts_with("tests/"))
        .collect();
    assert!(in_tests.is_empty(), "{in_tests:#?}");
}
