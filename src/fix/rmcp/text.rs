//! Source positions of syntax nodes and small text helpers for the rewrites.

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;

use crate::source::LineIndex;

/// Byte range `[start, end)` of a node in the text it was parsed from.
pub fn range_of(node: &impl ToTokens, idx: &LineIndex) -> Option<(usize, usize)> {
    range_of_tokens(node.to_token_stream(), idx)
}

pub fn range_of_tokens(tokens: TokenStream, idx: &LineIndex) -> Option<(usize, usize)> {
    let mut iter = tokens.into_iter();
    let first = iter.next()?;
    let last = iter.last().unwrap_or_else(|| first.clone());
    let s = first.span().start();
    let e = last.span().end();
    let start = idx.offset(s.line, s.column);
    let end = idx.offset(e.line, e.column);
    (end >= start).then_some((start, end))
}

/// The whitespace that starts the line holding byte `at`.
pub fn indent_at(src: &str, at: usize) -> &str {
    let line_start = src[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = &src[line_start..];
    let n = line.len() - line.trim_start_matches([' ', '\t']).len();
    &line[..n]
}

/// Whether only whitespace precedes byte `at` on its line.
pub fn starts_line(src: &str, at: usize) -> bool {
    let line_start = src[..at].rfind('\n').map_or(0, |i| i + 1);
    src[line_start..at].trim().is_empty()
}

/// How many times `name` is used in `tokens`: as an identifier, or inside a string literal as
/// an inline format argument (`"{name}"`, `"{name:?}"`).
pub fn uses_of(tokens: TokenStream, name: &str) -> usize {
    let mut n = 0;
    // `x.name` is a field or method, not the binding.
    let mut after_dot = false;
    for tt in tokens {
        let dot = matches!(&tt, TokenTree::Punct(p) if p.as_char() == '.');
        match tt {
            TokenTree::Ident(i) if i == name && !after_dot => n += 1,
            TokenTree::Group(g) => n += uses_of(g.stream(), name),
            TokenTree::Literal(l) => {
                let s = l.to_string();
                if s.contains(&format!("{{{name}}}")) || s.contains(&format!("{{{name}:")) {
                    n += 1;
                }
            }
            _ => {}
        }
        after_dot = dot;
    }
    n
}

/// A name not used anywhere in `tokens`: `base`, else `base2`, `base3`, ...
pub fn fresh_name(tokens: &TokenStream, base: &str, taken: &[String]) -> String {
    let mut k = 1;
    loop {
        let name = if k == 1 {
            base.to_string()
        } else {
            format!("{base}{k}")
        };
        if uses_of(tokens.clone(), &name) == 0 && !taken.contains(&name) {
            return name;
        }
        k += 1;
    }
}

/// The last identifier of a type path (`rmcp::model::CallToolResult` → `CallToolResult`).
pub fn last_ident(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        syn::Type::Reference(r) => last_ident(&r.elem),
        _ => None,
    }
}

/// The last segment of a path, as text.
pub fn path_end(path: &syn::Path) -> String {
    path.segments
        .last()
        .map(|s| s.ident.to_string())
        .unwrap_or_default()
}

/// `text` with its lone `\n` line ends written `\r\n`, for a file that uses those.
pub fn crlf(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut prev = '\0';
    for c in text.chars() {
        if c == '\n' && prev != '\r' {
            out.push('\r');
        }
        out.push(c);
        prev = c;
    }
    out
}
