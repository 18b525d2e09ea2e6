//! The same source is legacy under one SDK version and fine under another. Each test lints a copy
//! of a fixture crate under another `Cargo.toml` (and `Cargo.lock`), or with no manifest at all,
//! where the rules fall back to syntax: arity, receiver type, imports.

mod sdk_common;

use sdk_common::{
    assert_same, copy_with_manifest, expect_lines, got, legacy_codes, lint_dir, manifest, Expected,
};

const NEVA_UNKEYED: &[(&str, &str)] = &[
    ("let guests = ctx.elicit(params)", "MCP001"),
    (".sample(CreateMessageRequestParams", "MCP002"),
    ("let roots = ctx.list_roots().await?;", "MCP003"),
    ("let _ = ctx.list_roots().await;", "MCP006"),
];

fn neva_under(
    dep_line: &str,
    lock: Option<&str>,
) -> (tempfile::TempDir, mcp_lint::finding::Report) {
    let dir = copy_with_manifest("sdk_neva", Some(&manifest(dep_line)), lock);
    let report = lint_dir(dir.path());
    (dir, report)
}

#[test]
fn neva_0_5_keyed_api_is_quiet() {
    let (_dir, report) = neva_under(r#"neva = "0.5.4""#, None);
    assert_same("neva 0.5", &Expected::new(), &report);
}

#[test]
fn neva_0_5_with_legacy_spec_fires_again() {
    let (dir, report) = neva_under(
        r#"neva = { version = "0.5", features = ["legacy-spec"] }"#,
        None,
    );
    assert_same(
        "neva 0.5 + legacy-spec",
        &expect_lines(dir.path(), NEVA_UNKEYED),
        &report,
    );
}

#[test]
fn neva_0_4_depends_on_the_opt_in_feature() {
    let (dir, report) = neva_under(r#"neva = "0.4""#, None);
    assert_same("neva 0.4", &expect_lines(dir.path(), NEVA_UNKEYED), &report);
    let (_dir, report) = neva_under(
        r#"neva = { version = "0.4", features = ["proto-2026-07-28-rc"] }"#,
        None,
    );
    assert_same("neva 0.4 + proto-2026-07-28-rc", &Expected::new(), &report);
}

#[test]
fn neva_feature_from_the_package_default_features() {
    let m = format!(
        "{}\n[features]\ndefault = [\"compat\"]\ncompat = [\"neva/legacy-spec\"]\n",
        manifest(r#"neva = "0.5""#)
    );
    let dir = copy_with_manifest("sdk_neva", Some(&m), None);
    let report = lint_dir(dir.path());
    assert_same(
        "neva 0.5 + default legacy-spec",
        &expect_lines(dir.path(), NEVA_UNKEYED),
        &report,
    );
}

const NEVA_LOCK: &str = r#"version = 4

[[package]]
name = "fixture"
version = "0.1.0"
dependencies = [
 "neva",
]

[[package]]
name = "neva"
version = "VERSION"
source = "registry+index"
"#;

/// `neva = ">=0.3"` admits both lines: the lock decides.
#[test]
fn neva_version_comes_from_the_lock() {
    let (dir, report) = neva_under(
        r#"neva = ">=0.3""#,
        Some(&NEVA_LOCK.replace("VERSION", "0.5.4")),
    );
    assert_same("neva >=0.3 locked at 0.5.4", &Expected::new(), &report);
    drop(dir);
    let (dir, report) = neva_under(
        r#"neva = ">=0.3""#,
        Some(&NEVA_LOCK.replace("VERSION", "0.3.4")),
    );
    assert_same(
        "neva >=0.3 locked at 0.3.4",
        &expect_lines(dir.path(), NEVA_UNKEYED),
        &report,
    );
    let f = legacy_codes(&report).into_iter().next().unwrap();
    assert!(f.message.contains("(neva 0.3.4)"), "{}", f.message);
}

/// No manifest anywhere above the files: syntax decides. Unkeyed calls fire, keyed ones (another
/// arity) and the local look-alike stay quiet.
#[test]
fn neva_without_manifest_falls_back_to_syntax() {
    let dir = copy_with_manifest("sdk_neva", None, None);
    let report = lint_dir(dir.path());
    assert_same(
        "neva, no manifest",
        &expect_lines(dir.path(), NEVA_UNKEYED),
        &report,
    );
    for f in legacy_codes(&report) {
        assert_eq!(f.sdk.as_deref(), Some("neva"));
        assert!(
            !f.message.contains("(neva"),
            "no version to name: {}",
            f.message
        );
    }
}

/// A renamed dependency: the code says `mcp::`, the manifest says `package = "neva"`.
#[test]
fn neva_renamed_dependency() {
    let dir = copy_with_manifest(
        "sdk_neva",
        Some(&manifest(r#"mcp = { package = "neva", version = "0.3" }"#)),
        None,
    );
    let lib = dir.path().join("src/lib.rs");
    let text = std::fs::read_to_string(&lib)
        .unwrap()
        .replace("use neva::prelude::*;", "use mcp::prelude::*;");
    assert!(!text.contains("neva::"));
    std::fs::write(&lib, text).unwrap();
    let report = lint_dir(dir.path());
    assert_same(
        "neva renamed to mcp",
        &expect_lines(dir.path(), NEVA_UNKEYED),
        &report,
    );
    assert!(legacy_codes(&report)
        .iter()
        .all(|f| f.sdk.as_deref() == Some("neva")));
}

/// A package that does not depend on neva: its names are someone else's.
#[test]
fn neva_absent_from_the_manifest_is_quiet() {
    let (_dir, report) = neva_under(r#"serde_json = "1""#, None);
    assert_same("no neva dependency", &Expected::new(), &report);
}

const TURBO_V2: &[(&str, &str)] = &[
    ("ctx.elicit(ElicitRequest", "MCP001"),
    ("ctx.create_message(", "MCP002"),
    ("let roots = ctx.list_roots().await?;", "MCP003"),
];

const TURBO_V3: &[(&str, &str)] = &[
    (".elicit_form(", "MCP001"),
    ("ctx.sample(", "MCP002"),
    ("ctx.elicit_url(", "MCP001"),
];

#[test]
fn turbomcp_2_fires_on_the_2x_calls_only() {
    let dir = copy_with_manifest(
        "sdk_turbomcp",
        Some(&manifest(r#"turbomcp = "2.3.7""#)),
        None,
    );
    let report = lint_dir(dir.path());
    assert_same("turbomcp 2.3", &expect_lines(dir.path(), TURBO_V2), &report);
    let help = legacy_codes(&report)[0].help.clone().unwrap_or_default();
    assert!(help.contains("ctx.client.elicit(\"key\""), "{help}");
}

#[test]
fn turbomcp_4_keyed_client_is_quiet() {
    let dir = copy_with_manifest(
        "sdk_turbomcp",
        Some(&manifest(r#"turbomcp = "=4.0.0-alpha.1""#)),
        None,
    );
    let report = lint_dir(dir.path());
    assert_same("turbomcp 4.0", &Expected::new(), &report);
}

#[test]
fn turbomcp_without_manifest_flags_both_legacy_lines() {
    let dir = copy_with_manifest("sdk_turbomcp", None, None);
    let report = lint_dir(dir.path());
    let mut both: Vec<(&str, &str)> = TURBO_V2.to_vec();
    both.extend_from_slice(TURBO_V3);
    assert_same(
        "turbomcp, no manifest",
        &expect_lines(dir.path(), &both),
        &report,
    );
}

/// rust-mcp-sdk 0.7's `elicit_input(message, schema)` took two arguments; 0.8 takes one.
#[test]
fn rust_mcp_sdk_elicit_input_arity_follows_the_version() {
    let src = "use std::sync::Arc;\nuse rust_mcp_sdk::McpServer;\n\npub async fn ask(runtime: Arc<dyn McpServer>) {\n    let _ = runtime.elicit_input(message(), schema()).await;\n    let _ = runtime.elicit_input(params()).await;\n}\n";
    let lint = |dep: Option<&str>| {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/lib.rs"), src).unwrap();
        if let Some(d) = dep {
            std::fs::write(dir.path().join("Cargo.toml"), manifest(d)).unwrap();
        }
        got(&lint_dir(dir.path()))
            .into_keys()
            .map(|(_, line)| line)
            .collect::<Vec<_>>()
    };
    assert_eq!(lint(Some(r#"rust-mcp-sdk = "0.7.2""#)), vec![5]);
    assert_eq!(lint(Some(r#"rust-mcp-sdk = "0.8""#)), vec![6]);
    assert_eq!(lint(None), vec![5, 6]);
}

/// pmcp 1.x sends the non-spec `elicitation/elicitInput`: the message says so.
#[test]
fn pmcp_1_names_its_non_spec_method() {
    let dir = copy_with_manifest("sdk_pmcp", Some(&manifest(r#"pmcp = "1.2.1""#)), None);
    let report = lint_dir(dir.path());
    let f = legacy_codes(&report)
        .into_iter()
        .find(|f| f.code == "MCP001")
        .expect("pmcp 1.x elicit_input");
    assert!(
        f.message.contains("`elicitation/elicitInput`") && f.message.contains("(pmcp 1.2.1)"),
        "{}",
        f.message
    );
    assert_eq!(f.mcp_method.as_deref(), Some("elicitation/create"));
    assert!(f
        .help
        .as_deref()
        .unwrap_or_default()
        .contains("upgrade pmcp to 2.x"));
}

/// Without a manifest, a file "mentions" an SDK only by its crate name as a whole word: a weather
/// tool about Geneva with its own `Context` is not neva code.
#[test]
fn sdk_names_are_matched_as_words() {
    let src = "use crate::Context as Ctx;\n\n/// Forecasts for Geneva.\nasync fn geneva(ctx: Context) {\n    let _ = ctx.sample(Reading::new());\n}\n";
    let res = mcp_lint::lint_source(
        "src/weather.rs",
        src.as_bytes(),
        &mcp_lint::Settings::default(),
    );
    assert!(res.findings.is_empty(), "{:#?}", res.findings);
    let neva = src.replace("Forecasts for Geneva.", "Served with neva.");
    let res = mcp_lint::lint_source(
        "src/weather.rs",
        neva.as_bytes(),
        &mcp_lint::Settings::default(),
    );
    assert_eq!(
        res.findings
            .iter()
            .map(|f| f.code.as_str())
            .collect::<Vec<_>>(),
        vec!["MCP002"]
    );
}
