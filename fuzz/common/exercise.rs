//! One input through the whole engine, with the invariants a crash-free run must also keep.
//!
//! Shared by the fuzz target (`fuzz/fuzz_targets/engine.rs`) and the regression replay test
//! (`tests/fuzz_regressions.rs`), which include this file with `#[path]`, so every input the fuzzer
//! ever kept is checked the same way in CI.
//!
//! Steps: prefilter + parse + analysis (`lint_source`, with and without the prefilter), the gate
//! (suppression directives, config filter, baseline fingerprints), every reporter, the JSON contract
//! round trip, `--add-suppressions` in memory, and the fix loop of `--diff --unsafe-fixes`.

use std::path::{Path, PathBuf};

use mcp_lint::finding::{Finding, Report, Summary};
use mcp_lint::gate::config::Resolver;
use mcp_lint::gate::{self, GateOptions, Texts};
use mcp_lint::lint::{lint_source, Settings, Sources, REPORT_VERSION};
use mcp_lint::report::{
    render, render_gated, render_statistics, Format, GateFormat, RenderOptions,
};

/// The path the input is linted under (relative, like the CLI's display paths).
const PATH: &str = "src/fuzz_input.rs";

/// An empty directory as the run's base, so no config file of the machine leaks into the run.
fn base_dir() -> PathBuf {
    let dir = std::env::temp_dir().join("mcp-lint-fuzz-base");
    let _ = std::fs::create_dir_all(&dir);
    dir
}

/// The CLI's main thread stack (src/main.rs): library callers must give the engine's passes the
/// same room, so the fuzzer and the replay test run the engine exactly as the binary does.
const CLI_STACK: usize = 512 << 20;

/// Runs `data` through everything; panics (with what broke) on any violated invariant.
pub fn exercise(data: &[u8]) {
    std::thread::scope(|s| {
        let worker = std::thread::Builder::new()
            .stack_size(CLI_STACK)
            .spawn_scoped(s, || exercise_here(data))
            .expect("spawn the exercise thread");
        if let Err(panic) = worker.join() {
            std::panic::resume_unwind(panic);
        }
    });
}

fn exercise_here(data: &[u8]) {
    let base = base_dir();
    let settings = Settings {
        threads: Some(1),
        base_dir: base.clone(),
        ..Settings::default()
    };

    let first = lint_source(PATH, data, &settings);
    check_findings(data, &first.findings);

    // The prefilter may only skip files, and fn bodies, that cannot have a rule finding. A syntax
    // error inside a skipped body is not seen (`skeleton.rs`): when the whole file does not parse,
    // the prefiltered run may still report the findings of the code it read.
    let unfiltered = lint_source(
        PATH,
        data,
        &Settings {
            prefilter: false,
            ..settings.clone()
        },
    );
    if unfiltered.parsed || first.findings.iter().any(|f| f.code == "MCP900") {
        assert_eq!(
            rule_findings(&first.findings),
            rule_findings(&unfiltered.findings),
            "the prefilter hid findings that a full parse reports"
        );
    }

    let text = first
        .text
        .clone()
        .or_else(|| String::from_utf8(data.to_vec()).ok());
    let gated = gate_and_render(data, first.findings, first.parsed, text.as_deref(), &base);

    if let Some(src) = text.as_deref() {
        add_suppressions_keeps_code_parsing(src, &gated, &settings);
        fixes_keep_code_parsing(data, src, gated, &settings);
    }
}

/// `--diff --unsafe-fixes`: the engine has attached the fixes; run the fix loop (apply, re-parse, re-lint, up to
/// ten passes) and print the diff. A fix that leaves a parsing file unparsable is a bug.
fn fixes_keep_code_parsing(data: &[u8], src: &str, gated: gate::Gated, settings: &Settings) {
    check_findings(data, &gated.report.findings);
    let mut sources = Sources::default();
    sources.files.insert(PATH.to_string(), src.to_string());
    let mut texts = Texts::new(&sources, &settings.base_dir);
    let mut resolver =
        Resolver::new(&settings.base_dir, &[], gate::known_codes()).expect("no config");
    let opts = mcp_lint::fix_driver::Options {
        allowed: mcp_lint::fix::Allowed { unsafe_fixes: true },
        diff_only: true,
        runtime_requirement: None,
        within: Vec::new(),
    };
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let outcome = mcp_lint::fix_driver::run(
        &gated.report,
        &mut texts,
        settings,
        &mut resolver,
        &opts,
        &mut out,
        &mut err,
    )
    .expect("the fix run fails only on config errors, and there are none");
    if mcp_lint::reading::parse::parse(data).is_ok() {
        assert_eq!(
            outcome.failed,
            0,
            "a fix broke a file that parsed:\n{}\n{}",
            String::from_utf8_lossy(&err),
            String::from_utf8_lossy(&out)
        );
    }
}

fn rule_findings(findings: &[Finding]) -> Vec<&Finding> {
    // MCP9xx are about the file itself (parse errors, suppressions), not about a rule's tokens.
    findings
        .iter()
        .filter(|f| !f.code.starts_with("MCP9"))
        .collect()
}

/// Positions and edits must point into the text as read.
fn check_findings(data: &[u8], findings: &[Finding]) {
    let lines = data.iter().filter(|&&b| b == b'\n').count() + 1;
    for f in findings {
        assert!(
            !f.message.contains("internal error"),
            "the engine caught a panic (internal error finding): {f:?}"
        );
        assert!(f.line >= 1 && f.column >= 1, "0 line/column: {f:?}");
        assert!(
            f.line <= lines && f.end_line <= lines,
            "position past the end ({lines} lines): {f:?}"
        );
        assert!(
            (f.end_line, f.end_column) >= (f.line, f.column),
            "range ends before it starts: {f:?}"
        );
        if let (Some(fix), Ok(src)) = (&f.fix, std::str::from_utf8(data)) {
            apply_edits(src, &fix.edits).unwrap_or_else(|e| panic!("bad fix on {f:?}: {e}"));
        }
    }
}

/// Applies non-overlapping edits; an edit out of bounds, off a char boundary, overlapping
/// another, or whose line/column disagrees with its byte offset is an error.
fn apply_edits(src: &str, edits: &[mcp_lint::finding::Edit]) -> Result<String, String> {
    let mut sorted: Vec<_> = edits.iter().collect();
    sorted.sort_by_key(|e| (e.start, e.end));
    let mut out = String::with_capacity(src.len());
    let mut at = 0;
    for e in sorted {
        if e.start > e.end || e.end > src.len() {
            return Err(format!(
                "edit {}..{} outside 0..{}",
                e.start,
                e.end,
                src.len()
            ));
        }
        if !src.is_char_boundary(e.start) || !src.is_char_boundary(e.end) {
            return Err(format!("edit {}..{} splits a character", e.start, e.end));
        }
        if e.start < at {
            return Err(format!(
                "edit {}..{} overlaps the previous one",
                e.start, e.end
            ));
        }
        let line = src[..e.start].matches('\n').count() + 1;
        let column = src[src[..e.start].rfind('\n').map_or(0, |i| i + 1)..e.start]
            .chars()
            .count()
            + 1;
        if (line, column) != (e.line, e.column) {
            return Err(format!(
                "edit at byte {} says {}:{}, the text says {line}:{column}",
                e.start, e.line, e.column
            ));
        }
        out.push_str(&src[at..e.start]);
        out.push_str(&e.replacement);
        at = e.end;
    }
    out.push_str(&src[at..]);
    Ok(out)
}

/// The CLI's path after the engine: gate, then every format; the JSON must read back as it was.
fn gate_and_render(
    data: &[u8],
    findings: Vec<Finding>,
    parsed: bool,
    text: Option<&str>,
    base: &Path,
) -> gate::Gated {
    let mut sources = Sources::default();
    if let Some(t) = text {
        sources.files.insert(PATH.to_string(), t.to_string());
    }
    let summary = Summary {
        files_seen: 1,
        files_parsed: usize::from(parsed),
        findings: findings.len(),
    };
    let report = Report {
        version: REPORT_VERSION,
        findings,
        errors: Vec::new(),
        summary,
    };
    let mut resolver = Resolver::new(base, &[], gate::known_codes())
        .expect("an empty base dir has no config to reject");
    let mut texts = Texts::new(&sources, base);
    let gated = gate::apply(
        report,
        &[PATH.to_string()],
        &mut texts,
        &mut resolver,
        &GateOptions {
            fingerprints: true,
            ..GateOptions::default()
        },
    )
    .expect("the gate fails only on config and baseline errors, and there are none");
    check_findings(data, &gated.report.findings);
    assert_eq!(
        gated.fingerprints.len(),
        gated.report.findings.len(),
        "one fingerprint per finding"
    );

    for color in [false, true] {
        let human = render(
            Format::Human,
            &gated.report,
            &sources,
            &RenderOptions { color },
        );
        if !gated.report.findings.is_empty() {
            assert!(!human.is_empty(), "human report empty despite findings");
        }
    }
    let json = render(
        Format::Json,
        &gated.report,
        &sources,
        &RenderOptions::default(),
    );
    let back: Report =
        serde_json::from_str(&json).expect("--format json is valid JSON of the report");
    assert_eq!(back, gated.report, "JSON round trip changed the report");
    for format in [GateFormat::Concise, GateFormat::Github, GateFormat::Sarif] {
        let is_sarif = matches!(format, GateFormat::Sarif);
        let out = render_gated(format, &gated, base);
        if is_sarif {
            serde_json::from_str::<serde_json::Value>(&out).expect("SARIF is valid JSON");
        }
    }
    for json in [false, true] {
        let _ = render_statistics(&gated, json);
    }
    gated
}

/// `--add-suppressions` writes comments above findings; the file must still parse afterwards
/// (the CLI refuses to write a file that no longer parses: this checks it never has to).
fn add_suppressions_keeps_code_parsing(src: &str, gated: &gate::Gated, settings: &Settings) {
    let findings: Vec<&Finding> = gated
        .report
        .findings
        .iter()
        .filter(|f| !f.code.starts_with("MCP9"))
        .collect();
    if findings.is_empty() || syn::parse_file(src).is_err() {
        return;
    }
    if let Ok((new_text, _)) = mcp_lint::gate::suppress::add_suppressions(src, &findings, "fuzz") {
        assert!(
            syn::parse_file(&new_text).is_ok(),
            "added suppressions broke the file:\n{new_text}"
        );
        let relinted = lint_source(PATH, new_text.as_bytes(), settings);
        check_findings(new_text.as_bytes(), &relinted.findings);
    }
}
