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
        let items: Vec<Vec<u8>> = batch
            .par_iter()
            .map(indented)
            .collect::<serde_json::Result<_>>()?;
        for (i, item) in items.iter().enumerate() {
            if n > 0 || i > 0 {
                out.write_all(b",\n")?;
            }
            out.write_all(item)?;
        }
    }
    out.write_all(b"\n  ],")?;
    out.write_all(&frame.as_bytes()[at + EMPTY_FINDINGS.len()..])?;
    out.write_all(b"\n")
}

/// Findings serialised at a time: enough to keep every core busy, few enough to stay small.
const BATCH: usize = 1024;

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

/// One finding as the pretty printer writes it inside the array: every line four spaces in.
/// Written straight at that depth, as the only element of an array in an array (the printer's
/// own indentation, two spaces a level), whose two brackets each side are then cut off: no pass
/// over the text to indent it again, which was a third of the writer's time.
fn indented(f: &Finding) -> serde_json::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(2048);
    serde_json::to_writer_pretty(&mut out, &[[f]])?;
    debug_assert!(out.starts_with(OUTER_OPEN) && out.ends_with(OUTER_CLOSE));
    out.truncate(out.len() - OUTER_CLOSE.len());
    out.drain(..OUTER_OPEN.len());
    Ok(out)
}

/// What the pretty printer writes around `[[x]]`'s element.
const OUTER_OPEN: &[u8] = b"[\n  [\n";
const OUTER_CLOSE: &[u8] = b"\n  ]\n]";

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
                other_files: Vec::new(),
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
