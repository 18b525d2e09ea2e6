//! `--format rustc-json`: cargo's `compiler-message` JSON lines, one per finding, then
//! `build-finished`: what `cargo check --message-format=json` prints, so rust-analyzer's
//! `check.overrideCommand` shows the findings, and their fixes as quick fixes, with no extension.
//!
//! Each fix is a `help` child whose spans carry `suggested_replacement`; its safety maps to
//! rustc's `suggestion_applicability` (safe: `MachineApplicable`, unsafe: `MaybeIncorrect`,
//! display-only: `HasPlaceholders`). Columns are 1-based chars and byte offsets index the file,
//! as in rustc.

use std::path::Path;

use serde_json::{json, Value};

use crate::finding::{Applicability, Edit, Finding, Report};
use crate::model::manifest::Packages;
use crate::reading::source::LineIndex;

/// The whole output. `text_of` gives a reported file's text (by its report path); `base` is
/// the directory report paths are relative to.
pub fn render(
    report: &Report,
    text_of: &mut dyn FnMut(&str) -> Option<String>,
    base: &Path,
) -> String {
    let packages = Packages::new();
    let mut out = String::new();
    // Findings come sorted by path: each file's text, line index and package are made once for
    // all of its findings (a line index per finding made 50,000 findings in one file quadratic).
    let mut rest = &report.findings[..];
    while let Some(first) = rest.first() {
        let n = rest.iter().take_while(|f| f.path == first.path).count();
        let (group, after) = rest.split_at(n);
        rest = after;
        let text = text_of(&first.path).unwrap_or_default();
        let lines = LineIndex::new(&text);
        let file = crate::reading::source::os_path(base, &first.path);
        let package = packages.for_file(&file);
        let (package_id, manifest_path, name) = match &package {
            Some(p) => {
                let dir = p.manifest.parent().unwrap_or(Path::new("/"));
                (
                    format!("path+file://{}#{}", dir.display(), p.name),
                    p.manifest.display().to_string(),
                    p.name.clone(),
                )
            }
            None => (
                format!("path+file://{}#mcp-lint", base.display()),
                base.join("Cargo.toml").display().to_string(),
                "mcp-lint".to_string(),
            ),
        };
        let target = json!({
            "kind": ["lib"],
            "crate_types": ["lib"],
            "name": name.replace('-', "_"),
            "src_path": file.display().to_string(),
            "edition": "2021",
            "required-features": [],
            "doc": false,
            "doctest": false,
            "test": false,
        });
        for f in group {
            let mut message = message_in(f, &lines);
            add_other_files(&mut message, f, text_of);
            let line = json!({
                "reason": "compiler-message",
                "package_id": package_id,
                "manifest_path": manifest_path,
                "target": target,
                "message": message,
            });
            out.push_str(&line.to_string());
            out.push('\n');
        }
    }
    let success = report.errors.is_empty()
        && report
            .findings
            .iter()
            .all(|f| f.level != crate::finding::Level::Error);
    out.push_str(&json!({ "reason": "build-finished", "success": success }).to_string());
    out.push('\n');
    out
}

/// The rustc diagnostic of one finding.
pub fn message(f: &Finding, text: &str) -> Value {
    message_in(f, &LineIndex::new(text))
}

/// [`message`] with the file's line index made once for all of its findings.
pub fn message_in(f: &Finding, lines: &LineIndex) -> Value {
    let start = byte_of(lines, f.line, f.column);
    let end = byte_of(lines, f.end_line, f.end_column).max(start);
    let level = crate::report::concise::level_word(f.level);
    let mut children = Vec::new();
    if let Some(help) = &f.help {
        children.push(child(help, "help", Vec::new()));
    }
    if let Some(fix) = &f.fix {
        let applicability = applicability_word(fix.applicability);
        let spans: Vec<Value> = fix
            .edits
            .iter()
            .map(|e| suggestion(&f.path, lines, e, applicability))
            .collect();
        let what = match fix.applicability {
            Applicability::Safe => "fix (safe)",
            Applicability::Unsafe => "fix (unsafe: changes behaviour)",
            Applicability::DisplayOnly => "suggestion",
        };
        children.push(child(&format!("{what}: {}", fix.message), "help", spans));
    }
    let mut primary = span(
        &f.path,
        lines,
        (start, end),
        (f.line, f.column, f.end_line, f.end_column),
    );
    primary["label"] = json!(f.name);
    json!({
        "$message_type": "diagnostic",
        "message": f.message,
        "code": { "code": f.code, "explanation": null },
        "level": level,
        "spans": [primary],
        "children": children,
        "rendered": rendered(f, lines),
    })
}

/// One edit as a span of its file carrying the replacement.
fn suggestion(path: &str, lines: &LineIndex, e: &Edit, applicability: &str) -> Value {
    let mut s = span(
        path,
        lines,
        (e.start, e.end),
        (e.line, e.column, e.end_line, e.end_column),
    );
    s["suggested_replacement"] = json!(e.replacement);
    s["suggestion_applicability"] = json!(applicability);
    s
}

/// The edits a fix makes in other files than its finding's, as more spans of its `help` child
/// (rustc's suggestions name each span's file, so one fix may span files).
fn add_other_files(
    message: &mut Value,
    f: &Finding,
    text_of: &mut dyn FnMut(&str) -> Option<String>,
) {
    let Some(fix) = f.fix.as_ref().filter(|x| !x.other_files.is_empty()) else {
        return;
    };
    let Some(Value::Array(children)) = message.get_mut("children") else {
        return;
    };
    let Some(Value::Array(spans)) = children.last_mut().and_then(|c| c.get_mut("spans")) else {
        return;
    };
    let applicability = applicability_word(fix.applicability);
    for other in &fix.other_files {
        let text = text_of(&other.path).unwrap_or_default();
        let lines = LineIndex::new(&text);
        spans.extend(
            (other.edits.iter()).map(|e| suggestion(&other.path, &lines, e, applicability)),
        );
    }
}

fn applicability_word(a: Applicability) -> &'static str {
    match a {
        Applicability::Safe => "MachineApplicable",
        Applicability::Unsafe => "MaybeIncorrect",
        Applicability::DisplayOnly => "HasPlaceholders",
    }
}

fn child(message: &str, level: &str, spans: Vec<Value>) -> Value {
    json!({
        "$message_type": "diagnostic",
        "message": message,
        "code": null,
        "level": level,
        "spans": spans,
        "children": [],
        "rendered": null,
    })
}

/// A rustc span: byte range, 1-based lines and char columns, and the text of each line with the
/// highlighted columns.
fn span(
    path: &str,
    lines: &LineIndex,
    (byte_start, byte_end): (usize, usize),
    (line_start, column_start, line_end, column_end): (usize, usize, usize, usize),
) -> Value {
    let text: Vec<Value> = (line_start..=line_end.max(line_start))
        .filter(|&l| l <= lines.line_count())
        .map(|l| {
            let t = lines.line_text(l);
            let from = if l == line_start { column_start } else { 1 };
            let to = if l == line_end {
                column_end
            } else {
                t.chars().count() + 1
            };
            json!({ "text": t, "highlight_start": from, "highlight_end": to })
        })
        .collect();
    json!({
        "file_name": path,
        "byte_start": byte_start,
        "byte_end": byte_end,
        "line_start": line_start,
        "line_end": line_end,
        "column_start": column_start,
        "column_end": column_end,
        "is_primary": true,
        "text": text,
        "label": null,
        "suggested_replacement": null,
        "suggestion_applicability": null,
        "expansion": null,
    })
}

/// The byte offset of a 1-based line and 1-based char column (0 when the text is unknown).
fn byte_of(lines: &LineIndex, line: usize, column: usize) -> usize {
    if lines.text().is_empty() {
        return 0;
    }
    lines.offset(line, column.saturating_sub(1))
}

/// What rustc's `rendered` holds: the message, the location, the line with carets, the help.
fn rendered(f: &Finding, lines: &LineIndex) -> String {
    let level = crate::report::concise::level_word(f.level);
    let mut s = format!(
        "{level}[{}]: {}\n --> {}:{}:{}\n",
        f.code, f.message, f.path, f.line, f.column
    );
    if f.line >= 1 && f.line <= lines.line_count() && !lines.text().is_empty() {
        let number = f.line.to_string();
        let pad = " ".repeat(number.len());
        let src = lines.line_text(f.line);
        let width = if f.end_line == f.line {
            f.end_column.saturating_sub(f.column).max(1)
        } else {
            src.chars().count().saturating_sub(f.column - 1).max(1)
        };
        s.push_str(&format!(
            "{pad} |\n{number} | {src}\n{pad} | {}{}\n",
            " ".repeat(f.column.saturating_sub(1)),
            "^".repeat(width)
        ));
    }
    if let Some(help) = &f.help {
        s.push_str(&format!("  = help: {help}\n"));
    }
    s
}
