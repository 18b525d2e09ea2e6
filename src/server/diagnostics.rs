//! Findings as LSP diagnostics: code, rule name, a link to the rule's docs, and where the fix
//! stands (the code actions offer it).

use lsp_types::{CodeDescription, Diagnostic, DiagnosticSeverity, NumberOrString};
use serde_json::json;

use crate::finding::{Applicability, Finding, Level};

use super::docs::DocLinks;
use super::text::Lines;

pub const SOURCE: &str = "mcp-lint";

pub fn to_diagnostic(f: &Finding, lines: &Lines, links: &DocLinks) -> Diagnostic {
    let start = lines.position_of(f.line, f.column);
    let end = lines.position_of(f.end_line, f.end_column).max(start);
    let mut message = format!("{}: {}", f.name, f.message);
    if let Some(help) = &f.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    let fix = f.fix.as_ref().map(|x| match x.applicability {
        Applicability::Safe => "safe",
        Applicability::Unsafe => "unsafe",
        Applicability::DisplayOnly => "display-only",
    });
    Diagnostic {
        range: lsp_types::Range::new(start, end),
        severity: Some(match f.level {
            Level::Error => DiagnosticSeverity::ERROR,
            Level::Warning | Level::Allow => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(f.code.clone())),
        code_description: links
            .get(&f.code)
            .map(|href| CodeDescription { href: href.clone() }),
        source: Some(SOURCE.to_string()),
        message,
        data: Some(json!({ "name": f.name, "fix": fix })),
        ..Diagnostic::default()
    }
}

/// Whether `f` covers the LSP range `start..=end` in part (a cursor counts at either edge).
pub fn touches(f: &Finding, lines: &Lines, range: &lsp_types::Range) -> bool {
    let start = lines.position_of(f.line, f.column);
    let end = lines.position_of(f.end_line, f.end_column).max(start);
    start <= range.end && range.start <= end
}
