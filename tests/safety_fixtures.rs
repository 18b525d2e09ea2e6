//! The MRTR safety rules (MCP101-MCP109) on servers modelled on real ones: the correct servers in
//! `tests/fixtures/safety_*` produce no finding at all, and each mistake, injected alone into a
//! correct server, produces exactly one finding of exactly its code. The project's own runtime,
//! examples and macro tests, and code in the shape of rmcp's MRTR tests, produce no MCP1xx finding.

use std::path::PathBuf;

use mcp_lint::finding::Finding;
use mcp_lint::{lint_paths, lint_source, Settings};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fixture(name: &str) -> PathBuf {
    root().join("tests/fixtures").join(name)
}

/// Lints `src/server.rs` text as a file of a package at the fixture's root (paths in findings are
/// `src/server.rs`, as a user running the linter in that package would see them).
fn lint_text(text: &str) -> Vec<Finding> {
    lint_source("src/server.rs", text.as_bytes(), &Settings::default()).findings
}

fn read(name: &str) -> String {
    std::fs::read_to_string(fixture(name).join("src/server.rs")).expect("fixture exists")
}

fn describe(findings: &[Finding]) -> String {
    findings
        .iter()
        .map(|f| {
            format!(
                "{}:{}:{} {} {}",
                f.path, f.line, f.column, f.code, f.message
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `text` with `from` (which must occur exactly once) replaced by `to`.
fn inject(text: &str, from: &str, to: &str) -> String {
    assert_eq!(
        text.matches(from).count(),
        1,
        "the mistake's anchor must occur once: {from:?}"
    );
    text.replacen(from, to, 1)
}

#[test]
fn correct_servers_produce_no_finding() {
    for name in ["safety_rmcp", "safety_raw"] {
        let dir = fixture(name);
        let settings = Settings {
            base_dir: dir.clone(),
            ..Settings::default()
        };
        let report = lint_paths(std::slice::from_ref(&dir), &settings);
        assert!(
            report.summary.files_parsed >= 1,
            "{name}: nothing was linted"
        );
        assert!(
            report.findings.is_empty(),
            "{name}:\n{}",
            describe(&report.findings)
        );
        // The same file as plain text (no package), so the path-based test exemption cannot be
        // what keeps it quiet.
        assert!(lint_text(&read(name)).is_empty(), "{name} as text");
    }
}

/// One mistake each: (fixture, anchor, replacement, the code it must produce).
const MISTAKES: &[(&str, &str, &str, &str)] = &[
    // 1. unsealed state: plain JSON instead of the codec.
    (
        "safety_rmcp",
        "            let token = self\n                .codec\n                .seal_json_with(&state, &options)\n",
        "            let _ = &options;\n            let token = serde_json::to_string(&state)\n",
        "MCP101",
    ),
    (
        "safety_raw",
        "let state = self.seal(&json!({ \"step\": 1 }), &binding);",
        "let state = B64.encode(serde_json::to_vec(&json!({ \"step\": 1, \"bind\": binding })).unwrap_or_default());",
        "MCP101",
    ),
    // 2. state trusted without verification.
    (
        "safety_rmcp",
        "        let state: DeployState = self\n            .codec\n            .open_json_with(sealed, binding.as_bytes())\n",
        "        let state: DeployState = serde_json::from_str(sealed)\n",
        "MCP102",
    ),
    (
        "safety_raw",
        "let Some(payload) = self.verify(token, &binding) else {",
        "let Some(payload) = B64.decode(token).ok().and_then(|b| serde_json::from_slice::<Value>(&b).ok()) else {",
        "MCP102",
    ),
    // 3. sealing without binding or expiry, and opening without the binding.
    ("safety_rmcp", ".associated_data(binding.as_bytes()).ttl(STATE_TTL)", ".associated_data(binding.as_bytes())", "MCP103"),
    ("safety_rmcp", ".associated_data(binding.as_bytes()).ttl(STATE_TTL)", ".ttl(STATE_TTL)", "MCP103"),
    ("safety_rmcp", ".seal_json_with(&state, &options)", ".seal_json(&state)", "MCP103"),
    ("safety_rmcp", ".open_json_with(sealed, binding.as_bytes())", ".open_json(sealed)", "MCP103"),
    // 4. weak or hard-coded keys.
    (
        "safety_rmcp",
        "RequestStateCodec::try_new(key.into_bytes())?",
        "RequestStateCodec::try_new(b\"deploy-server-state-key\".to_vec())?",
        "MCP104",
    ),
    ("safety_rmcp", "RequestStateCodec::try_new(key.into_bytes())?", "RequestStateCodec::new_unchecked(key.into_bytes())", "MCP104"),
    ("safety_raw", "let mut mac = HmacSha256::new_from_slice(&self.key).expect", "let mut mac = HmacSha256::new_from_slice(b\"raw-server-hmac-key\").expect", "MCP104"),
    // 5. a secret in a signed-only state.
    (
        "safety_rmcp",
        "    vault_id: Option<String>,\n}",
        "    vault_id: Option<String>,\n    registry_password: String,\n}",
        "MCP105",
    ),
    // 6. input_required from the wrong method, and an empty one.
    ("safety_rmcp", "InputRequiredResult::new(Some(requests), Some(token))", "InputRequiredResult::new(None, None)", "MCP106"),
    (
        "safety_raw",
        "\"tools/list\" => json!({ \"resultType\": \"complete\", \"tools\": [{ \"name\": \"publish\" }] }),",
        "\"tools/list\" => json!({ \"resultType\": \"input_required\", \"requestState\": \"list-later\" }),",
        "MCP106",
    ),
    // 7. an ask the client may not support.
    (
        "safety_rmcp",
        "            let caps = context.client_capabilities().unwrap_or_default();\n            if caps.elicitation.is_none() {\n                return Err(ErrorData::new(\n                    ErrorCode(-32021),\n                    \"this tool needs elicitation\",\n                    Some(serde_json::json!({ \"requiredCapabilities\": { \"elicitation\": {} } })),\n                ));\n            }\n",
        "",
        "MCP107",
    ),
    ("safety_raw", "let url_ok = caps[\"elicitation\"][\"url\"].is_object();", "let url_ok = caps[\"elicitation\"].is_object();", "MCP107"),
    // 8. secrets in a form; an http:// URL.
    ("safety_rmcp", "    replicas: u32,\n", "    replicas: u32,\n    api_key: String,\n", "MCP108"),
    ("safety_raw", "\"properties\": { \"channel\": { \"type\": \"string\" } }", "\"properties\": { \"channel\": { \"type\": \"string\" }, \"password\": { \"type\": \"string\" } }", "MCP108"),
    ("safety_raw", "\"https://auth.example.com/device\"", "\"http://auth.example.com/device\"", "MCP108"),
    // 9. content used without checking the action.
    (
        "safety_rmcp",
        "        match answer.action {\n            ElicitationAction::Accept => {\n",
        "        match () {\n            () => {\n",
        "MCP109",
    ),
    (
        "safety_raw",
        "            if answer[\"action\"] != \"accept\" {\n                return complete(\"publishing cancelled\");\n            }\n",
        "",
        "MCP109",
    ),
];

#[test]
fn each_mistake_alone_produces_exactly_its_finding() {
    let mut failures = Vec::new();
    for (i, (name, from, to, code)) in MISTAKES.iter().enumerate() {
        let text = inject(&read(name), from, to);
        let findings = lint_text(&text);
        let ok = findings.len() == 1 && findings[0].code == *code;
        if !ok {
            failures.push(format!(
                "mistake {i} in {name}, expected exactly one {code}, got:\n{}",
                describe(&findings)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn every_safety_code_has_an_injected_mistake() {
    for n in 101..=109 {
        let code = format!("MCP{n}");
        assert!(
            MISTAKES.iter().any(|m| m.3 == code),
            "{code} has no mistake fixture"
        );
    }
}

/// MCP1xx findings in `paths`, linted from the repository root.
fn safety_findings(paths: &[PathBuf]) -> Vec<Finding> {
    let settings = Settings {
        base_dir: root(),
        ..Settings::default()
    };
    let report = lint_paths(paths, &settings);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    report
        .findings
        .into_iter()
        .filter(|f| f.code.starts_with("MCP1"))
        .collect()
}

#[test]
fn the_projects_own_mrtr_code_is_quiet() {
    let mut paths = vec![root().join("runtime/src"), root().join("examples")];
    for entry in std::fs::read_dir(root().join("runtime/tests")).expect("runtime/tests") {
        let p = entry.expect("entry").path();
        if p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("macro_") && n.ends_with(".rs"))
        {
            paths.push(p);
        }
    }
    let found = safety_findings(&paths);
    assert!(found.is_empty(), "{}", describe(&found));
    // The runtime seals, opens and asks for real: the rules did look at it.
    let seal = std::fs::read_to_string(root().join("runtime/src/seal.rs")).expect("seal.rs");
    assert!(seal.contains("serde_json::to_writer") && seal.contains("B64.decode"));
}

#[test]
fn code_in_the_shape_of_rmcps_mrtr_tests_is_quiet() {
    let dir = fixture("safety_rmcp_excerpt");
    let text = std::fs::read_to_string(dir.join("src/mrtr_server.rs")).expect("excerpt");
    // Linted as a source file, not as a test file: the shapes themselves must be quiet.
    let findings: Vec<Finding> =
        lint_source("src/mrtr_server.rs", text.as_bytes(), &Settings::default())
            .findings
            .into_iter()
            .filter(|f| f.code.starts_with("MCP1"))
            .collect();
    assert!(findings.is_empty(), "{}", describe(&findings));
}

#[test]
fn the_test_code_exemption_is_what_quiets_pinned_keys_in_tests() {
    let dir = fixture("safety_rmcp_excerpt");
    let text = std::fs::read_to_string(dir.join("src/mrtr_server.rs")).expect("excerpt");
    // rmcp's sealing test pins a key and seals without options inside a #[tokio::test] fn; the
    // same code outside a test is reported.
    let outside = inject(
        &text,
        "#[tokio::test(flavor = \"current_thread\")]\nasync fn sealing_server_round_trip",
        "async fn sealing_server_round_trip",
    );
    let codes: Vec<String> = lint_text(&outside).into_iter().map(|f| f.code).collect();
    assert!(
        codes.contains(&"MCP103".to_string()) && codes.contains(&"MCP104".to_string()),
        "{codes:?}"
    );
    // And a file under tests/ is test code as a whole.
    let as_test = lint_source(
        "tests/mrtr_server.rs",
        outside.as_bytes(),
        &Settings::default(),
    );
    assert!(
        as_test.findings.iter().all(|f| !f.code.starts_with("MCP1")),
        "{}",
        describe(&as_test.findings)
    );
}
