//! Output formats. Each format is a module with a `render` function over the finished [`Report`];
//! add a format by adding a variant to [`Format`] and an arm to [`render`].

pub mod concise;
pub mod github;
mod human;
pub mod json;
pub mod rustc_json;
pub mod sarif;
pub mod statistics;

use crate::finding::Report;
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
        // The CLI renders these through `config::gate` (with baseline notes); this is the plain form.
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
            sarif::render(report, &crate::gate::rule_metas(), &fps, &[], &root)
        }
    }
}
