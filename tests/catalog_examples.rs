//! Every example in every rule's catalog file: firing examples produce findings of exactly that
//! rule's code (and at least one), quiet examples produce none at all.

use mcp_lint::catalog::{catalog, parse_all};
use mcp_lint::{lint_source, Settings};

/// Codes whose behaviour lives outside the engine's rules (suppressions, baselines): their
/// examples are checked by their own tests.
fn checked_elsewhere(code: &str) -> bool {
    matches!(code, "MCP901" | "MCP902")
}

#[test]
fn catalog_parses_and_codes_match_file_names() {
    let c = parse_all().expect("catalog must parse");
    assert!(
        c.rules.len() >= 7,
        "expected at least MCP001-MCP006 and MCP900"
    );
    for r in &c.rules {
        assert!(r.code.starts_with("MCP") && r.code.len() == 6, "{}", r.code);
        assert!(
            r.name
                .chars()
                .all(|ch| ch.is_ascii_lowercase() || ch == '-'),
            "{}: name must be kebab-case: {}",
            r.code,
            r.name
        );
        assert!(!r.fire.is_empty(), "{} has no example that fires", r.code);
        assert!(
            !r.quiet.is_empty(),
            "{} has no example that stays quiet",
            r.code
        );
        assert!(
            ["safe", "unsafe", "display-only", "none"].contains(&r.fix_safety.as_str()),
            "{}: fix_safety {}",
            r.code,
            r.fix_safety
        );
    }
}

#[test]
fn every_rule_code_is_in_the_catalog() {
    for rule in mcp_lint::rules::ALL {
        for code in rule.codes() {
            assert!(
                catalog().get(code).is_some(),
                "{code} is emitted but has no rules/{code}.toml"
            );
        }
    }
    for code in mcp_lint::rules::ENGINE_CODES {
        assert!(catalog().get(code).is_some(), "{code}");
    }
}

#[test]
fn firing_examples_fire_with_exactly_their_code() {
    let settings = Settings::default();
    for r in &catalog().rules {
        if checked_elsewhere(&r.code) {
            continue;
        }
        for (i, ex) in r.fire.iter().enumerate() {
            let res = lint_source("example.rs", ex.code.as_bytes(), &settings);
            let codes: Vec<&str> = res.findings.iter().map(|f| f.code.as_str()).collect();
            assert!(
                !codes.is_empty() && codes.iter().all(|c| *c == r.code),
                "{} fire example {} ({:?}) produced {:?}: {:#?}",
                r.code,
                i,
                ex.description,
                codes,
                res.findings
            );
        }
    }
}

#[test]
fn quiet_examples_stay_quiet() {
    let settings = Settings::default();
    for r in &catalog().rules {
        if checked_elsewhere(&r.code) {
            continue;
        }
        for (i, ex) in r.quiet.iter().enumerate() {
            let res = lint_source("example.rs", ex.code.as_bytes(), &settings);
            assert!(
                res.findings.is_empty(),
                "{} quiet example {} ({:?}) produced {:#?}",
                r.code,
                i,
                ex.description,
                res.findings
            );
        }
    }
}
