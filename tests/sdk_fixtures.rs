//! One fixture crate per SDK (`tests/fixtures/sdk_*`), its `Cargo.toml` naming the real crate and
//! version. Every expected finding is annotated on its line (`// ~ CODE`); each finding must name
//! the SDK, and its help must name that SDK's replacement.

mod sdk_common;

use sdk_common::{annotations, assert_same, fixture_dir, legacy_codes, lint_dir};

/// Lints a fixture, checks the annotations, the `sdk` of every finding, and that each help
/// contains `help_says`.
fn check(fixture: &str, sdk: &str, help_says: &str) {
    let dir = fixture_dir(fixture);
    let report = lint_dir(&dir);
    assert_same(fixture, &annotations(&dir), &report);
    for f in legacy_codes(&report) {
        assert_eq!(f.sdk.as_deref(), Some(sdk), "{f:?}");
        assert!(f.mcp_method.is_some(), "{f:?}");
        let help = f.help.as_deref().unwrap_or_default();
        if f.code != "MCP006" {
            assert!(
                help.contains(help_says),
                "{fixture}: help {help:?} should say {help_says:?}"
            );
        }
    }
}

#[test]
fn neva_0_3() {
    check("sdk_neva", "neva", "upgrade neva to 0.5 and pass a key");
}

#[test]
fn turbomcp_3() {
    check("sdk_turbomcp", "turbomcp", "upgrade turbomcp to 4.x");
}

#[test]
fn rust_mcp_sdk() {
    check(
        "sdk_rust_mcp_sdk",
        "rust-mcp-sdk",
        "rust-mcp-sdk has no MRTR API yet",
    );
}

#[test]
fn pmcp_2() {
    check("sdk_pmcp", "pmcp", "pmcp has no MRTR API yet");
}

#[test]
fn tower_mcp() {
    check("sdk_tower_mcp", "tower-mcp", "mrtr_handler");
}

#[test]
fn mcpkit() {
    check("sdk_mcpkit", "mcpkit", "mcpkit has no MRTR API yet");
}

#[test]
fn mcp_attr() {
    check("sdk_mcp_attr", "mcp-attr", "#[mrtr_handler]");
}

#[test]
fn prism() {
    check(
        "sdk_prism",
        "prism-mcp-rs",
        "prism-mcp-rs has no MRTR API yet",
    );
}

/// Messages name the version the decision was made for.
#[test]
fn messages_name_the_sdk_version() {
    let report = lint_dir(&fixture_dir("sdk_neva"));
    let f = legacy_codes(&report)
        .into_iter()
        .find(|f| f.code == "MCP001")
        .expect("a neva MCP001");
    assert!(f.message.contains("(neva 0.3.4)"), "{}", f.message);
}

/// No SDK at all: hand-written JSON-RPC over streamable HTTP. The request pushed into the SSE
/// stream fires; the same object inside a returned `inputRequests`, a client matching the
/// incoming method, and a request only formatted into a log line do not.
#[test]
fn raw_http_server() {
    check("sdk_raw", "raw", "inputRequests");
}
