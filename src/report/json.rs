//! `--format json`: the report as the contract in `finding.rs` defines it.

use rayon::prelude::*;
use serde::Serialize;

use crate::finding::{FileError, Finding, Report, Summary};

/// The report as serde's pretty printer writes it, byte for byte, and a final newline.
pub fn render(report: &Report) -> String {
    let mut out = Vec::new();
    match write(report, &mut out) {
        Ok(()) => String::from_utf8(out).unwrap_or_default(),
        // Serialising plain strings and numbers cannot fail; keep the output valid JSON if it does.
        Err(e) => format!("{{\"version\":1,\"findings\":[],\"errors\":[{{\"path\":\"\",\"message\":{:?}}}],\"summary\":{{\"files_seen\":0,\"files_parsed\":0,\"findings\":0}}}}\n", e.to_string()),
    }
}

/// [`render`], written as it is made: the findings are serialised in parallel, a batch at a
/// time, and each batch is written before the next is made. With ten thousand findings (each with
/// its fix) the whole text in memory, twice, was a third of the run's peak memory, and one thread
/// serialising it was a tenth of the run.
pub fn write(report: &Report, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    if report.findings.is_empty() {
        serde_json::to_writer_pretty(&mut *out, report)?;
        return out.write_all(b"\n");
    }
    let frame = serde_json::to_string_pretty(&Frame {
        version: report.version,
        findings: [],
        errors: &report.errors,
        summary: &report.summary,
    })?;
    let at = frame
        .find(EMPTY_FINDINGS)
        .expect("the frame has an empty findings array");
    out.write_all(&frame.as_bytes()[..at])?;
    out.write_all(b"\"findings\": [\n")?;
    for (n, batch) in report.findings.chunks(BATCH).enumerate() {
        let pieces: Vec<Vec<u8>> = batch.par_chunks(PIECE).map(indented).collect();
        for (i, piece) in pieces.iter().enumerate() {
            if n > 0 || i > 0 {
                out.write_all(b",\n")?;
            }
            out.write_all(piece)?;
        }
    }
    out.write_all(b"\n  ],")?;
    out.write_all(&frame.as_bytes()[at + EMPTY_FINDINGS.len()..])?;
    out.write_all(b"\n")
}

/// Findings serialised at a time: enough to keep every core busy, few enough to stay small.
const BATCH: usize = 1024;
/// Findings serialised into one buffer: a buffer per finding, made on a worker and freed on
/// this thread, was most of the writer's time in the allocator.
const PIECE: usize = 64;

/// The same fields as [`Report`], with the findings left out: they are spliced in as text.
#[derive(Serialize)]
struct Frame<'a> {
    version: u32,
    findings: [(); 0],
    errors: &'a [FileError],
    summary: &'a Summary,
}

/// Where the empty findings array stands in the frame's pretty text.
const EMPTY_FINDINGS: &str = "\"findings\": [],";

/// Findings as the pretty printer writes them inside the array, every line four spaces in
/// (`json_pretty.rs`), with the commas between them.
fn indented(findings: &[Finding]) -> Vec<u8> {
    let mut out = Vec::with_capacity(findings.len() * 2048);
    for (i, f) in findings.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(b",\n");
        }
        super::json_pretty::finding(&mut out, f);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::{Applicability, Edit, FileEdits, Fix, Level};

    fn finding(n: usize, with_fix: bool) -> Finding {
        Finding {
            code: "MCP001".into(),
            name: "legacy-elicitation".into(),
            level: Level::Error,
            path: format!("src/f{n}.rs"),
            line: n,
            column: 3,
            end_line: n + 1,
            end_column: 9,
            message: "a \"quoted\"\nmessage with a line break".into(),
            mcp_method: Some("elicitation/create".into()),
            sdk: None,
            help: None,
            fix: with_fix.then(|| Fix {
                applicability: Applicability::Unsafe,
                message: "rewrite".into(),
                edits: vec![Edit {
                    start: 0,
                    end: 10,
                    line: 1,
                    column: 1,
                    end_line: 2,
                    end_column: 1,
                    replacement: "fn x() {\n    y()\n}\n".into(),
                }],
                other_files: Vec::new(),
            }),
        }
    }

    /// Every field set, every variant, and strings with every kind of byte JSON escapes.
    fn odd_findings() -> Vec<Finding> {
        let texts = [
            "plain",
            "",
            "quote \" backslash \\ slash / tab \t cr \r bell \u{7} nul \u{0} unit \u{1f} del \u{7f}",
            "form \u{c} back \u{8} é 漢 🦀 \u{2028}",
        ];
        let mut out = Vec::new();
        for (n, text) in texts.iter().enumerate() {
            let mut f = finding(n, true);
            f.message = text.to_string();
            f.code = format!("MCP{n}{text}");
            f.level = [Level::Error, Level::Warning, Level::Allow][n % 3];
            f.mcp_method = (n % 2 == 0).then(|| text.to_string());
            f.sdk = (n % 2 == 1).then(|| format!("sdk {text}"));
            f.help = (n != 1).then(|| text.to_string());
            f.line = usize::MAX - n;
            f.column = 0;
            let fix = f.fix.as_mut().unwrap();
            fix.applicability = [
                Applicability::Safe,
                Applicability::Unsafe,
                Applicability::DisplayOnly,
            ][n % 3];
            fix.message = text.to_string();
            fix.edits[0].replacement = text.to_string();
            if n % 2 == 1 {
                fix.edits.clear();
            }
            if n >= 2 {
                fix.other_files = vec![
                    FileEdits {
                        path: format!("src/{text}.rs"),
                        edits: fix.edits.iter().cloned().chain(fix.edits.clone()).collect(),
                    },
                    FileEdits {
                        path: "empty.rs".into(),
                        edits: Vec::new(),
                    },
                ];
            }
            out.push(f);
        }
        out
    }

    #[test]
    fn byte_for_byte_the_pretty_printer() {
        for findings in [
            vec![],
            vec![finding(1, true)],
            // More than a piece, and more than a batch (`PIECE`, `BATCH`).
            (0..150).map(|n| finding(n, n % 2 == 0)).collect(),
            (0..BATCH + PIECE + 1)
                .map(|n| finding(n, n % 3 == 0))
                .collect(),
            odd_findings(),
        ] {
            let report = Report {
                version: 1,
                summary: Summary {
                    files_seen: 3,
                    files_parsed: 2,
                    findings: findings.len(),
                },
                findings,
                errors: vec![FileError {
                    path: "bad.rs".into(),
                    message: "cannot read".into(),
                }],
            };
            let expected = serde_json::to_string_pretty(&report).unwrap() + "\n";
            assert_eq!(render(&report), expected);
        }
    }
}
