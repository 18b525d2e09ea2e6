//! `--format human`: rustc-style diagnostics rendered with codespan-reporting.

use codespan_reporting::diagnostic::{Diagnostic, Label, Severity};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term::{self, termcolor, Config, Styles, StylesWriter};

use super::RenderOptions;
use crate::finding::{Applicability, Finding, Level, Report};
use crate::lint::Sources;
use crate::source::LineIndex;

pub fn render(report: &Report, sources: &Sources, options: &RenderOptions) -> String {
    let mut files = SimpleFiles::new();
    let mut ids = std::collections::BTreeMap::new();
    for (path, text) in &sources.files {
        ids.insert(path.as_str(), files.add(path.clone(), text.clone()));
    }
    let config = Config::default();
    let styles = Styles::default();
    let mut out = Vec::new();
    for f in &report.findings {
        let diag = diagnostic(f, ids.get(f.path.as_str()).copied(), sources);
        let ok = if options.color {
            let mut w = StylesWriter::new(termcolor::Ansi::new(&mut out), &styles);
            term::emit_to_write_style(&mut w, &config, &files, &diag).is_ok()
        } else {
            term::emit_to_io_write(&mut out, &config, &files, &diag).is_ok()
        };
        if !ok || diag.labels.is_empty() {
            // No source to show (unreadable text): plain lines still name the place and the fix.
            let fix = fix_note(f)
                .map(|n| format!("  = {n}\n"))
                .unwrap_or_default();
            out.extend_from_slice(
                format!(
                    "{}[{}]: {}\n  --> {}:{}:{}\n{fix}\n",
                    level_word(f.level),
                    f.code,
                    f.message,
                    f.path,
                    f.line,
                    f.column
                )
                .as_bytes(),
            );
        }
    }
    let mut s = String::from_utf8_lossy(&out).into_owned();
    for e in &report.errors {
        s.push_str(&format!("error: {}: {}\n", e.path, e.message));
    }
    s.push_str(&summary_line(report));
    s.push_str(&fixable_line(report));
    s
}

/// The note that says a finding has a fix, which one, and how to apply it.
fn fix_note(f: &Finding) -> Option<String> {
    let fix = f.fix.as_ref()?;
    // A fix without edits has nothing to apply: it is written up as a suggestion.
    let applicability = if fix.edits.is_empty() {
        Applicability::DisplayOnly
    } else {
        fix.applicability
    };
    Some(match applicability {
        Applicability::Safe => format!("fix (safe, --fix): {}", fix.message),
        Applicability::Unsafe => format!(
            "fix (unsafe, --fix --unsafe-fixes; review it with --diff): {}",
            fix.message
        ),
        Applicability::DisplayOnly => format!("suggested fix (by hand): {}", fix.message),
    })
}

/// `N fixable with --fix, M more with --unsafe-fixes`, when a finding has a fix to apply.
fn fixable_line(report: &Report) -> String {
    let mut safe = 0;
    let mut unsafe_ = 0;
    for fix in report.findings.iter().filter_map(|f| f.fix.as_ref()) {
        if fix.edits.is_empty() {
            continue;
        }
        match fix.applicability {
            Applicability::Safe => safe += 1,
            Applicability::Unsafe => unsafe_ += 1,
            Applicability::DisplayOnly => {}
        }
    }
    if safe + unsafe_ == 0 {
        return String::new();
    }
    format!("{safe} fixable with --fix, {unsafe_} more with --unsafe-fixes (--diff shows the edits first)\n")
}

fn level_word(l: Level) -> &'static str {
    match l {
        Level::Error => "error",
        Level::Warning => "warning",
        Level::Allow => "allow",
    }
}

fn diagnostic(f: &Finding, file: Option<usize>, sources: &Sources) -> Diagnostic<usize> {
    let severity = match f.level {
        Level::Error => Severity::Error,
        _ => Severity::Warning,
    };
    let mut d = Diagnostic::new(severity)
        .with_code(f.code.clone())
        .with_message(f.message.clone());
    if let (Some(id), Some(text)) = (file, sources.get(&f.path)) {
        let idx = LineIndex::new(text);
        let start = idx.offset(f.line, f.column.saturating_sub(1));
        let end = idx
            .offset(f.end_line, f.end_column.saturating_sub(1))
            .max(start);
        let label = match &f.mcp_method {
            Some(m) => format!("sends `{m}`"),
            None => f.name.clone(),
        };
        d = d.with_labels(vec![Label::primary(id, start..end).with_message(label)]);
    }
    let mut notes = Vec::new();
    if let Some(h) = &f.help {
        notes.push(format!("help: {h}"));
    }
    notes.extend(fix_note(f));
    notes.push(format!(
        "note: `{}` ({}) is {} by default; `cargo mcp-lint rule {}` explains it",
        f.name,
        f.code,
        crate::catalog::catalog()
            .get(&f.code)
            .map_or("on", |r| level_word(r.level)),
        f.code
    ));
    d.with_notes(notes)
}

fn summary_line(report: &Report) -> String {
    let errors = report
        .findings
        .iter()
        .filter(|f| f.level == Level::Error)
        .count();
    let warnings = report
        .findings
        .iter()
        .filter(|f| f.level == Level::Warning)
        .count();
    let s = &report.summary;
    let files = format!(
        "{} seen, {} parsed",
        plural(s.files_seen, "file"),
        s.files_parsed
    );
    if report.findings.is_empty() {
        format!("no findings ({files})\n")
    } else {
        format!(
            "{} ({}, {}) in {files}\n",
            plural(report.findings.len(), "finding"),
            plural(errors, "error"),
            plural(warnings, "warning"),
        )
    }
}

/// `1 file`, `2 files`.
fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}
