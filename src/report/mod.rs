//! Output formats. Each format is a module with a `render` function over the finished [`Report`];
//! add a format by adding a variant to [`Format`] and an arm to [`render`].

pub mod concise;
pub mod github;
mod human;
pub mod json;
mod json_pretty;
pub mod rustc_json;
pub mod sarif;
pub mod statistics;

use std::path::Path;

use crate::finding::Report;
use crate::gate::Gated;
use crate::lint::Sources;

/// `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// rustc-like diagnostics with the source line (default).
    Human,
    /// The JSON contract (see `docs/architecture.md`).
    Json,
    /// One line per finding: `path:line:col: level[CODE] message`.
    Concise,
    /// SARIF 2.1.0, for GitHub code scanning and other SARIF consumers.
    Sarif,
    /// GitHub Actions workflow commands (annotations on the pull request).
    Github,
    /// cargo's `compiler-message` JSON lines, for rust-analyzer's `check.overrideCommand`.
    RustcJson,
}

/// How to render, beyond the format.
#[derive(Debug, Clone, Copy, Default)]
pub struct RenderOptions {
    /// ANSI colours (human format).
    pub color: bool,
}

/// The whole output of a run in `format`.
pub fn render(
    format: Format,
    report: &Report,
    sources: &Sources,
    options: &RenderOptions,
) -> String {
    match format {
        Format::Human => human::render(report, sources, options),
        Format::Json => json::render(report),
        // The CLI renders these through `render_gated` (with baseline notes); this is the plain form.
        Format::Concise => concise::render(&report.findings, &[]),
        Format::Github => github::render(&report.findings, &[]),
        Format::RustcJson => {
            let root = std::env::current_dir().unwrap_or_default();
            let mut text_of = |p: &str| {
                sources
                    .get(p)
                    .map(str::to_string)
                    .or_else(|| std::fs::read_to_string(root.join(p)).ok())
            };
            rustc_json::render(report, &mut text_of, &root)
        }
        Format::Sarif => {
            let ctxs = crate::gate::baseline::contexts(&report.findings, |p| {
                sources.get(p).map(str::to_string)
            });
            let fps = crate::gate::baseline::fingerprints(&report.findings, &ctxs);
            let root = std::env::current_dir().unwrap_or_default();
            sarif::render(report, &sarif::rule_metas(), &fps, &[], &root)
        }
    }
}

/// The formats the CLI renders from the gate's result, so that they show its notes (stale baseline
/// entries) and fingerprints.
pub enum GateFormat {
    Concise,
    Github,
    Sarif,
}

/// The gate's result in `format`.
pub fn render_gated(format: GateFormat, g: &Gated, base: &Path) -> String {
    match format {
        GateFormat::Concise => concise::render(&g.report.findings, &g.notes),
        GateFormat::Github => github::render(&g.report.findings, &g.notes),
        GateFormat::Sarif => sarif::render(
            &g.report,
            &sarif::rule_metas(),
            &g.fingerprints,
            &g.notes,
            base,
        ),
    }
}

/// `--statistics`: a table, or JSON when the format is JSON.
pub fn render_statistics(g: &Gated, json: bool) -> String {
    let s = statistics::compute(&g.report.findings);
    if json {
        statistics::render_json(&s)
    } else {
        statistics::render_text(&s, &g.notes)
    }
}
