//! `--format json`: the report as the contract in `finding.rs` defines it.

use rayon::prelude::*;
use serde::Serialize;

use crate::finding::{FileError, Finding, Report, Summary};

/// Serde's pretty printer, byte for byte, with the findings serialised in parallel: on a tree with
/// ten thousand findings (each with its fix) one thread spent a tenth of the run here, after the
/// parallel part had finished.
pub fn render(report: &Report) -> String {
    let mut s = pretty(report).unwrap_or_else(|e| {
        // Serialising plain strings and numbers cannot fail; keep the output valid JSON if it does.
        format!("{{\"version\":1,\"findings\":[],\"errors\":[{{\"path\":\"\",\"message\":{:?}}}],\"summary\":{{\"files_seen\":0,\"files_parsed\":0,\"findings\":0}}}}", e.to_string())
    });
    s.push('\n');
    s
}

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

fn pretty(report: &Report) -> serde_json::Result<String> {
    if report.findings.is_empty() {
        return serde_json::to_string_pretty(report);
    }
    let frame = serde_json::to_string_pretty(&Frame {
        version: report.version,
        findings: [],
        errors: &report.errors,
        summary: &report.summary,
    })?;
    let items: Vec<String> = report
        .findings
        .par_iter()
        .map(indented)
        .collect::<serde_json::Result<_>>()?;
    let at = frame
        .find(EMPTY_FINDINGS)
        .expect("the frame has an empty findings array");
    let mut out =
        String::with_capacity(frame.len() + items.iter().map(|i| i.len() + 2).sum::<usize>());
    out.push_str(&frame[..at]);
    out.push_str("\"findings\": [\n");
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(",\n");
        }
        out.push_str(item);
    }
    out.push_str("\n  ],");
    out.push_str(&frame[at + EMPTY_FINDINGS.len()..]);
    Ok(out)
}

/// One finding as the pretty printer writes it inside the array: every line four spaces in. JSON
/// strings hold no raw newline, so every line break is the printer's own.
fn indented(f: &Finding) -> serde_json::Result<String> {
    let one = serde_json::to_string_pretty(f)?;
    let mut out = String::with_capacity(one.len() + 4 * one.lines().count());
    for (i, line) in one.lines().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str("    ");
        out.push_str(line);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::{Applicability, Edit, Fix, Level};

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
            }),
        }
    }

    #[test]
    fn byte_for_byte_the_pretty_printer() {
        for findings in [
            vec![],
            vec![finding(1, true)],
            (0..50).map(|n| finding(n, n % 2 == 0)).collect(),
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
