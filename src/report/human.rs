//! `--format human`: rustc-style diagnostics rendered with codespan-reporting.

use codespan_reporting::diagnostic::{Diagnostic, Label, Severity};
use codespan_reporting::files::{self, Files, SimpleFiles};
use codespan_reporting::term::{self, termcolor, Config, Styles, StylesWriter};

use super::RenderOptions;
use crate::finding::{Applicability, Finding, Level, Report};
use crate::lint::Sources;
use crate::reading::source::{window, LineIndex};
use crate::report::concise::escape_path;

/// Longest line shown whole. A longer one (minified or generated code) is shown as a window of
/// this many chars around the finding: whole, a 200 KB line with two thousand findings printed
/// 640 MB.
const LINE_WINDOW: usize = 200;

/// Most lines of a finding shown when one of them is cut to a window.
const EXCERPT_LINES: usize = 8;

/// The lines of a finding whose text has a line longer than [`LINE_WINDOW`], each cut to a
/// window around the finding and marked `…` where cut, as a file of its own that reports the real
/// line and column numbers: codespan-reporting shows every label's lines whole.
struct Excerpt {
    name: String,
    source: String,
    /// Byte offsets in `source` where its lines start.
    starts: Vec<usize>,
    first_line: usize,
    /// For each line: the real 0-based char column of the excerpt line's first char.
    columns: Vec<isize>,
    /// The finding, in `source`.
    label: std::ops::Range<usize>,
}

impl Excerpt {
    fn of_long_lines(f: &Finding, index: &LineIndex) -> Option<Excerpt> {
        let last = f.end_line.max(f.line).min(f.line + EXCERPT_LINES - 1);
        if (f.line..=last).all(|l| index.line_text(l).len() <= LINE_WINDOW) {
            return None;
        }
        let start = index.offset(f.line, f.column.saturating_sub(1));
        let end = if last == f.end_line {
            index.offset(f.end_line, f.end_column.saturating_sub(1))
        } else {
            index.line_start(last) + index.line_text(last).len()
        }
        .max(start);
        let mut e = Excerpt {
            name: escape_path(&f.path).into_owned(),
            source: String::new(),
            starts: Vec::new(),
            first_line: f.line,
            columns: Vec::new(),
            label: 0..0,
        };
        for line in f.line..=last {
            let line_start = index.line_start(line);
            let text = index.line_text(line);
            let at = if line == f.line {
                start.saturating_sub(line_start)
            } else if line == last {
                end.saturating_sub(line_start)
            } else {
                0
            };
            let cut = if text.len() > LINE_WINDOW {
                window(text, at, LINE_WINDOW / 4, LINE_WINDOW)
            } else {
                0..text.len()
            };
            if line > f.line {
                e.source.push('\n');
            }
            e.starts.push(e.source.len());
            let chars_before = text[..cut.start].chars().count() as isize;
            let marked = cut.start > 0;
            if marked {
                e.source.push('…');
            }
            e.columns.push(chars_before - isize::from(marked));
            // An offset in the line, as an offset in the excerpt.
            let here = e.source.len();
            let clamp = |offset: usize| here + offset.clamp(cut.start, cut.end) - cut.start;
            if line == f.line {
                e.label.start = clamp(start.saturating_sub(line_start));
            }
            if line == last {
                e.label.end = clamp(end.saturating_sub(line_start));
            }
            e.source.push_str(&text[cut.clone()]);
            if cut.end < text.len() {
                e.source.push('…');
            }
        }
        e.label.end = e.label.end.max(e.label.start);
        Some(e)
    }
}

impl<'a> Files<'a> for Excerpt {
    type FileId = ();
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, (): ()) -> Result<&'a str, files::Error> {
        Ok(&self.name)
    }

    fn source(&'a self, (): ()) -> Result<&'a str, files::Error> {
        Ok(&self.source)
    }

    fn line_index(&'a self, (): (), byte_index: usize) -> Result<usize, files::Error> {
        Ok(self
            .starts
            .partition_point(|&s| s <= byte_index)
            .saturating_sub(1))
    }

    fn line_number(&'a self, (): (), line_index: usize) -> Result<usize, files::Error> {
        Ok(self.first_line + line_index)
    }

    fn column_number(
        &'a self,
        (): (),
        line_index: usize,
        byte_index: usize,
    ) -> Result<usize, files::Error> {
        let range = self.line_range((), line_index)?;
        let upto = byte_index.clamp(range.start, range.end);
        let chars = self.source[range.start..upto].chars().count() as isize;
        Ok((self.columns[line_index] + chars).max(0) as usize + 1)
    }

    fn line_range(
        &'a self,
        (): (),
        line_index: usize,
    ) -> Result<std::ops::Range<usize>, files::Error> {
        let start = *self
            .starts
            .get(line_index)
            .ok_or(files::Error::LineTooLarge {
                given: line_index,
                max: self.starts.len().saturating_sub(1),
            })?;
        let end = self
            .starts
            .get(line_index + 1)
            .map_or(self.source.len(), |&s| s - 1);
        Ok(start..end)
    }
}

pub fn render(report: &Report, sources: &Sources, options: &RenderOptions) -> String {
    let mut files = SimpleFiles::new();
    let mut ids = std::collections::BTreeMap::new();
    for (path, text) in &sources.files {
        ids.insert(
            path.as_str(),
            // A name is shown as it is, colour or not: ESC, CR and LF in it are escaped.
            (
                files.add(escape_path(path).into_owned(), text.as_str()),
                LineIndex::new(text),
            ),
        );
    }
    let config = Config::default();
    let styles = Styles::default();
    let mut out = Vec::new();
    for f in &report.findings {
        let file = ids.get(f.path.as_str());
        let excerpt = file.and_then(|(_, index)| Excerpt::of_long_lines(f, index));
        let diag = diagnostic(f, file, excerpt.as_ref());
        let ok = match (&excerpt, options.color) {
            (Some(e), true) => {
                let mut w = StylesWriter::new(termcolor::Ansi::new(&mut out), &styles);
                term::emit_to_write_style(&mut w, &config, e, &diag.excerpt).is_ok()
            }
            (Some(e), false) => term::emit_to_io_write(&mut out, &config, e, &diag.excerpt).is_ok(),
            (None, true) => {
                let mut w = StylesWriter::new(termcolor::Ansi::new(&mut out), &styles);
                term::emit_to_write_style(&mut w, &config, &files, &diag.whole).is_ok()
            }
            (None, false) => term::emit_to_io_write(&mut out, &config, &files, &diag.whole).is_ok(),
        };
        let shown = if excerpt.is_some() {
            !diag.excerpt.labels.is_empty()
        } else {
            !diag.whole.labels.is_empty()
        };
        if !ok || !shown {
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
                    escape_path(&f.path),
                    f.line,
                    f.column
                )
                .as_bytes(),
            );
        }
    }
    let mut s = String::from_utf8_lossy(&out).into_owned();
    for e in &report.errors {
        s.push_str(&format!("error: {}: {}\n", escape_path(&e.path), e.message));
    }
    s.push_str(&summary_line(report));
    s.push_str(&fixable_line(report));
    s
}

/// The note that says a finding has a fix, which one, and how to apply it.
fn fix_note(f: &Finding) -> Option<String> {
    let fix = f.fix.as_ref()?;
    // A fix without edits has nothing to apply: it is written up as a suggestion.
    let applicability = if !fix.has_edits() {
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
        if !fix.has_edits() {
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

/// A finding's diagnostic, labelled in the whole file or in its [`Excerpt`] (only one is used).
struct Diagnostics {
    whole: Diagnostic<usize>,
    excerpt: Diagnostic<()>,
}

fn diagnostic(
    f: &Finding,
    file: Option<&(usize, LineIndex)>,
    excerpt: Option<&Excerpt>,
) -> Diagnostics {
    let label = match &f.mcp_method {
        Some(m) => format!("sends `{m}`"),
        None => f.name.clone(),
    };
    let mut whole = unlabelled(f);
    let mut cut = unlabelled(f);
    if let Some(e) = excerpt {
        cut = cut.with_labels(vec![Label::primary((), e.label.clone()).with_message(label)]);
    } else if let Some((id, idx)) = file {
        let start = idx.offset(f.line, f.column.saturating_sub(1));
        let end = idx
            .offset(f.end_line, f.end_column.saturating_sub(1))
            .max(start);
        whole = whole.with_labels(vec![Label::primary(*id, start..end).with_message(label)]);
    }
    Diagnostics {
        whole,
        excerpt: cut,
    }
}

fn unlabelled<Id>(f: &Finding) -> Diagnostic<Id> {
    let severity = match f.level {
        Level::Error => Severity::Error,
        _ => Severity::Warning,
    };
    let d = Diagnostic::new(severity)
        .with_code(f.code.clone())
        .with_message(f.message.clone());
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
