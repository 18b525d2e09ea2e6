//! Hover on a finding: its message, then the rule's docs as `cargo mcp-lint rule CODE` prints them.

use lsp_types::{Hover, HoverContents, MarkupContent, MarkupKind, Position, Range};

use crate::catalog::{catalog, render_doc};

use super::diagnostics::touches;
use super::state::Linted;
use super::text::Lines;

pub fn hover(linted: &Linted, at: Position) -> Option<Hover> {
    let lines = Lines::new(&linted.text);
    let cursor = Range::new(at, at);
    let hits: Vec<_> = linted
        .findings
        .iter()
        .filter(|f| touches(f, &lines, &cursor))
        .collect();
    if hits.is_empty() {
        return None;
    }
    let mut value = String::new();
    for f in hits {
        if !value.is_empty() {
            value.push_str("\n\n---\n\n");
        }
        value.push_str(&format!("**{}** `{}`: {}\n\n", f.code, f.name, f.message));
        match catalog().get(&f.code) {
            Some(rule) => value.push_str(&render_doc(rule)),
            None => value.push_str("(no docs for this code)\n"),
        }
    }
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value,
        }),
        range: None,
    })
}
