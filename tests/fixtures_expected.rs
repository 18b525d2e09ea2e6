//! Fixture crates under `tests/fixtures/` that look like real servers and clients. Every expected
//! finding is written on its line as a trailing `// ~ CODE` comment (several codes separated by
//! spaces); the test lints each crate and requires exactly the annotated findings, no more.

mod sdk_common;

use mcp_lint::{lint_paths, Settings};
use sdk_common::{annotations, fixture_dir, Expected};

fn check(name: &str) {
    let dir = fixture_dir(name);
    // These fixtures are about the legacy-request rules; the MCP1xx safety rules have their own.
    let levels = mcp_lint::catalog::catalog()
        .rules
        .iter()
        .filter(|r| !(r.code.starts_with("MCP0") || r.code == "MCP900"))
        .map(|r| (r.code.clone(), mcp_lint::finding::Level::Allow))
        .collect();
    let settings = Settings {
        base_dir: dir.clone(),
        levels,
        ..Settings::default()
    };
    let report = lint_paths(std::slice::from_ref(&dir), &settings);
    assert!(report.errors.is_empty(), "{name}: {:?}", report.errors);
    let mut got = Expected::new();
    for f in &report.findings {
        got.entry((f.path.clone(), f.line))
            .or_default()
            .push(f.code.clone());
        assert!(
            f.mcp_method.is_some() || matches!(f.code.as_str(), "MCP005" | "MCP900"),
            "{f:?}"
        );
    }
    for codes in got.values_mut() {
        codes.sort();
    }
    let want = annotations(&dir);
    let missing: Vec<_> = want
        .iter()
        .filter(|(k, v)| got.get(*k) != Some(v))
        .collect();
    let extra: Vec<_> = got
        .iter()
        .filter(|(k, v)| want.get(*k) != Some(v))
        .collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "{name}:\n  expected but not found (or different): {missing:#?}\n  found but not expected: {extra:#?}\n  all findings: {:#?}",
        report.findings.iter().map(|f| format!("{}:{}:{} {} {}", f.path, f.line, f.column, f.code, f.message)).collect::<Vec<_>>()
    );
}

#[test]
fn tool_router_server() {
    check("tool-router-server");
}

#[test]
fn handwritten_server() {
    check("handwritten-server");
}

#[test]
fn client_crate_is_quiet() {
    check("client-crate");
}

#[test]
fn lookalikes_are_quiet() {
    check("lookalikes");
}

#[test]
fn raw_jsonrpc_server() {
    check("raw-jsonrpc-server");
}

#[test]
fn proxy_gateway_forwarding_is_reported() {
    check("proxy-gateway");
}

#[test]
fn cross_file_server_types_come_from_the_crate_index() {
    check("cross-file-server");
}

#[test]
fn sdk_own_package_examples_depend_on_the_sdk() {
    check("sdk-own-package");
}

#[test]
fn custom_requester_method_strings_and_helper_built_requests() {
    check("custom-requester-server");
}

#[test]
fn contexts_reached_indirectly() {
    // A task-local context read in free fns of another file, and a stored peer behind
    // `&dyn Trait`; the quiet near misses: another task-local, a context read for its id, the
    // trait object's own calls, the trait over no peer.
    check("indirect-context-server");
}

#[test]
fn context_wrapper_call_sites_are_reported() {
    // `ToolContext::elicit` asks through rmcp's peer: its own inner call and each call site in a
    // tool (in a loop, as a match scrutinee) are reported; a same-named method of another type,
    // and test code, are not.
    check("context-wrapper-server");
}

#[test]
fn requests_built_in_one_file_and_sent_from_another() {
    check("request-flow-server");
}

#[test]
fn a_file_naming_another_file_s_method_constant_is_linted_alone_too() {
    // The editor and the fix loop lint one text with its package known: the package's constant
    // admits the file the prefilter alone would turn away, and keeps the body that names it.
    let dir = fixture_dir("request-flow-server");
    let path = dir.join("src/by_name.rs");
    let text = std::fs::read_to_string(&path).unwrap();
    let package = mcp_lint::model::manifest::Package::read(&dir.join("Cargo.toml"))
        .unwrap()
        .map(std::sync::Arc::new);
    assert!(package.is_some());
    let settings = Settings {
        base_dir: dir.clone(),
        ..Settings::default()
    };
    let lines = |package| -> Vec<usize> {
        mcp_lint::lint::lint_source_in("src/by_name.rs", text.as_bytes(), &settings, package)
            .findings
            .iter()
            .filter(|f| f.code == "MCP004")
            .map(|f| f.line)
            .collect()
    };
    assert_eq!(lines(package), [11]);
    // Without the package nothing says what `LIST_ROOTS` holds.
    assert_eq!(lines(None), Vec::<usize>::new());
}
