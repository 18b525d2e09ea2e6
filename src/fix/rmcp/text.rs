//! Source positions of syntax nodes and small text helpers for the rewrites.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;

use crate::finding::Edit;
use crate::reading::lexer::{is_ident, stands_alone, Lexer, Token};
use crate::reading::source::LineIndex;

/// Byte range `[start, end)` of a node in the text it was parsed from.
pub fn range_of(node: &impl ToTokens, idx: &LineIndex) -> Option<(usize, usize)> {
    range_of_tokens(node.to_token_stream(), idx)
}

/// The byte range from the start of `first` to the end of `last`, `None` when it runs backwards
/// (as [`range_of`] answers for the tokens it prints).
fn span_range(first: Span, last: Span, idx: &LineIndex) -> Option<(usize, usize)> {
    let s = first.start();
    let e = last.end();
    let start = idx.offset(s.line, s.column);
    let end = idx.offset(e.line, e.column);
    (end >= start).then_some((start, end))
}

/// [`range_of`] an expression, read off its own first and last tokens where the shape makes
/// them plain (method chains, paths, `.await`, `?`): printing the expression to find its ends
/// copied the whole of it, once per request planned. Other shapes are printed.
pub fn expr_range(e: &syn::Expr, idx: &LineIndex) -> Option<(usize, usize)> {
    match (first_token(e, true), last_token(e)) {
        (Some(first), Some(last)) => span_range(first, last, idx),
        _ => range_of(e, idx),
    }
}

/// [`range_of`] a statement, from its own tokens where they are plain (see [`expr_range`]).
pub fn stmt_range(stmt: &syn::Stmt, idx: &LineIndex) -> Option<(usize, usize)> {
    let ends = match stmt {
        syn::Stmt::Local(l) => Some((
            outer_attr(&l.attrs).unwrap_or(l.let_token.span),
            l.semi_token.span,
        )),
        syn::Stmt::Expr(e, semi) => {
            let last = match semi {
                Some(semi) => Some(semi.span),
                None => last_token(e),
            };
            first_token(e, true).zip(last)
        }
        syn::Stmt::Macro(m) => {
            let first = outer_attr(&m.attrs).or_else(|| path_first(&m.mac.path));
            let last = match &m.semi_token {
                Some(semi) => semi.span,
                None => m.mac.delimiter.span().join(),
            };
            first.map(|f| (f, last))
        }
        syn::Stmt::Item(_) => None,
    };
    match ends {
        Some((first, last)) => span_range(first, last, idx),
        None => range_of(stmt, idx),
    }
}

/// [`range_of`] a block, from its braces: printing it copied the whole body, once per fn a pass
/// looked into.
pub fn block_range(b: &syn::Block, idx: &LineIndex) -> Option<(usize, usize)> {
    span_range(b.brace_token.span.open(), b.brace_token.span.close(), idx)
}

/// [`range_of`] a `use` item, from its own first token and its `;` (a long import list was
/// printed to find them).
pub fn use_range(u: &syn::ItemUse, idx: &LineIndex) -> Option<(usize, usize)> {
    let first = outer_attr(&u.attrs)
        .or_else(|| vis_first(&u.vis))
        .unwrap_or(u.use_token.span);
    span_range(first, u.semi_token.span, idx)
}

/// Where a function's header starts: its visibility, else its first qualifier or `fn` (the start
/// [`range_of`] finds, without printing every parameter and the return type).
pub fn header_start(vis: &syn::Visibility, sig: &syn::Signature, idx: &LineIndex) -> usize {
    let first = vis_first(vis).unwrap_or_else(|| {
        let qualifier = sig.constness.map(|t| t.span);
        qualifier
            .or(sig.asyncness.map(|t| t.span))
            .or(sig.unsafety.map(|t| t.span))
            .or(sig.abi.as_ref().map(|a| a.extern_token.span))
            .unwrap_or(sig.fn_token.span)
    });
    let s = first.start();
    idx.offset(s.line, s.column)
}

/// [`range_of`] a typed parameter (`Parameters(args): Parameters<Args>`), from its own first
/// and last tokens where they are plain (see [`expr_range`]).
pub fn param_range(pt: &syn::PatType, idx: &LineIndex) -> Option<(usize, usize)> {
    match (
        outer_attr(&pt.attrs).or_else(|| pat_first(&pt.pat)),
        type_last(&pt.ty),
    ) {
        (Some(first), Some(last)) => span_range(first, last, idx),
        _ => range_of(pt, idx),
    }
}

fn pat_first(p: &syn::Pat) -> Option<Span> {
    use syn::Pat;
    match p {
        Pat::Ident(i) if i.attrs.is_empty() => Some(
            i.by_ref
                .map(|t| t.span)
                .or(i.mutability.map(|t| t.span))
                .unwrap_or(i.ident.span()),
        ),
        Pat::TupleStruct(t) if t.attrs.is_empty() && t.qself.is_none() => path_first(&t.path),
        Pat::Struct(s) if s.attrs.is_empty() && s.qself.is_none() => path_first(&s.path),
        Pat::Tuple(t) if t.attrs.is_empty() => Some(t.paren_token.span.join()),
        Pat::Wild(w) if w.attrs.is_empty() => Some(w.underscore_token.span),
        _ => None,
    }
}

fn type_last(t: &syn::Type) -> Option<Span> {
    use syn::Type;
    match t {
        Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?;
            match &last.arguments {
                syn::PathArguments::None => Some(last.ident.span()),
                syn::PathArguments::AngleBracketed(a) => Some(a.gt_token.span),
                syn::PathArguments::Parenthesized(_) => None,
            }
        }
        Type::Reference(r) => type_last(&r.elem),
        Type::Ptr(p) => type_last(&p.elem),
        Type::Tuple(t) => Some(t.paren_token.span.join()),
        Type::Slice(s) => Some(s.bracket_token.span.join()),
        Type::Array(a) => Some(a.bracket_token.span.join()),
        Type::Paren(p) => Some(p.paren_token.span.join()),
        _ => None,
    }
}

fn vis_first(vis: &syn::Visibility) -> Option<Span> {
    match vis {
        syn::Visibility::Public(p) => Some(p.span),
        syn::Visibility::Restricted(r) => Some(r.pub_token.span),
        syn::Visibility::Inherited => None,
    }
}

/// The span of the first token syn prints for `e`, when `e` is a shape whose printing puts no
/// parentheses of its own in front (`top`: `e` is printed by itself or as a statement, not as the
/// leftmost part of a larger expression, where a block-like one would get them); `None` for the
/// other shapes.
fn first_token(e: &syn::Expr, top: bool) -> Option<Span> {
    use syn::Expr;
    match e {
        Expr::MethodCall(m) if m.attrs.is_empty() => first_token(&m.receiver, false),
        Expr::Await(a) if a.attrs.is_empty() => first_token(&a.base, false),
        Expr::Try(t) if t.attrs.is_empty() => first_token(&t.expr, false),
        Expr::Field(f) if f.attrs.is_empty() => first_token(&f.base, false),
        Expr::Index(i) if i.attrs.is_empty() => first_token(&i.expr, false),
        // `(self.f)(..)`: syn parenthesizes a field it calls.
        Expr::Call(c) if c.attrs.is_empty() && !matches!(&*c.func, Expr::Field(_)) => {
            first_token(&c.func, false)
        }
        Expr::Path(p) if p.attrs.is_empty() && p.qself.is_none() => path_first(&p.path),
        Expr::Lit(l) if l.attrs.is_empty() => Some(l.lit.span()),
        Expr::Paren(p) if p.attrs.is_empty() => Some(p.paren_token.span.join()),
        Expr::Macro(m)
            if m.attrs.is_empty()
                && (top || !matches!(m.mac.delimiter, syn::MacroDelimiter::Brace(_))) =>
        {
            path_first(&m.mac.path)
        }
        Expr::Match(m) if top && m.attrs.is_empty() => Some(m.match_token.span),
        Expr::If(i) if top && i.attrs.is_empty() => Some(i.if_token.span),
        Expr::Return(r) if top && r.attrs.is_empty() => Some(r.return_token.span),
        Expr::Reference(r) if top && r.attrs.is_empty() => Some(r.and_token.span),
        Expr::Block(b) if top && b.attrs.is_empty() && b.label.is_none() => {
            Some(b.block.brace_token.span.join())
        }
        _ => None,
    }
}

/// The span of the last token syn prints for `e`, for shapes that end in a token of their own;
/// `None` for the others.
fn last_token(e: &syn::Expr) -> Option<Span> {
    use syn::Expr;
    match e {
        Expr::MethodCall(m) => Some(m.paren_token.span.join()),
        Expr::Call(c) => Some(c.paren_token.span.join()),
        Expr::Await(a) => Some(a.await_token.span),
        Expr::Try(t) => Some(t.question_token.span),
        Expr::Field(f) => Some(match &f.member {
            syn::Member::Named(i) => i.span(),
            syn::Member::Unnamed(i) => i.span,
        }),
        Expr::Index(i) => Some(i.bracket_token.span.join()),
        Expr::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?;
            last.arguments.is_none().then(|| last.ident.span())
        }
        Expr::Lit(l) => Some(l.lit.span()),
        Expr::Paren(p) => Some(p.paren_token.span.join()),
        Expr::Macro(m) => Some(m.mac.delimiter.span().join()),
        Expr::Match(m) => Some(m.brace_token.span.join()),
        Expr::Block(b) => Some(b.block.brace_token.span.join()),
        _ => None,
    }
}

/// Where a node's printed outer attributes start (syn prints only the outer ones before it).
fn outer_attr(attrs: &[syn::Attribute]) -> Option<Span> {
    attrs
        .iter()
        .find(|a| matches!(a.style, syn::AttrStyle::Outer))
        .map(|a| a.pound_token.span)
}

fn path_first(path: &syn::Path) -> Option<Span> {
    match &path.leading_colon {
        Some(colons) => Some(colons.spans[0]),
        None => path.segments.first().map(|s| s.ident.span()),
    }
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

/// How many times `name` is used in the source of `node`: as an identifier (not a field or method
/// after a `.`), or inside a string literal as an inline format argument (`"{name}"`,
/// `"{name:?}"`). Comments are not uses.
pub fn uses_of(node: &impl ToTokens, idx: &LineIndex, name: &str) -> usize {
    uses_in(range_of(node, idx), idx, name)
}

/// [`uses_of`] an expression, its ends found without printing it (see [`expr_range`]).
pub fn expr_uses_of(e: &syn::Expr, idx: &LineIndex, name: &str) -> usize {
    uses_in(expr_range(e, idx), idx, name)
}

/// [`uses_of`] a block (see [`block_range`]).
pub fn block_uses_of(b: &syn::Block, idx: &LineIndex, name: &str) -> usize {
    uses_in(block_range(b, idx), idx, name)
}

/// [`uses_of`] a statement (see [`stmt_range`]).
pub fn stmt_uses_of(stmt: &syn::Stmt, idx: &LineIndex, name: &str) -> usize {
    uses_in(stmt_range(stmt, idx), idx, name)
}

/// [`count_in`] the text of a node's range (none: no uses).
fn uses_in(range: Option<(usize, usize)>, idx: &LineIndex, name: &str) -> usize {
    range.map_or(0, |(s, e)| count_in(&idx.text()[s..e], name))
}

/// How many times `text` uses `name` (see [`uses_of`]): the count [`scan`] gives, without
/// lexing every token. Only a string, a char literal or lifetime, a comment or a raw identifier
/// changes how the text after it lexes, and each starts at a `"`, `'`, `/` or `#` (or at a word
/// right before one: `b"`, `r#"`, `r#name`), so the lexer runs from those and from each place
/// `name` stands as a word; the plain code between them, most of a handler's body, is passed over
/// by `memchr`. Lexing a whole body to count its context parameter was most of the planner's
/// lexing.
pub fn count_in(text: &str, name: &str) -> usize {
    if name.is_empty() {
        return count_lexed(text, name);
    }
    let bytes = text.as_bytes();
    let len = bytes.len();
    let finder = memchr::memmem::Finder::new(name);
    let specials =
        |from: usize| memchr::memchr3(b'"', b'\'', b'/', &bytes[from..]).map_or(len, |i| from + i);
    let hashes = |from: usize| memchr::memchr(b'#', &bytes[from..]).map_or(len, |i| from + i);
    let found = |from: usize| finder.find(&bytes[from..]).map_or(len, |i| from + i);
    let mut lexer = Lexer::new(bytes);
    // `lexed`: the end of the last token lexed; `dot`: whether the last token before `lexed` is a
    // `.`; `search`: where the next occurrence of `name` is looked for.
    let (mut lexed, mut dot, mut search) = (0, false, 0);
    let (mut next_special, mut next_hash, mut next_name) = (specials(0), hashes(0), found(0));
    let mut n = 0;
    loop {
        if next_special < lexed {
            next_special = specials(lexed);
        }
        if next_hash < lexed {
            next_hash = hashes(lexed);
        }
        if next_name < search {
            next_name = found(search);
        }
        // No token after the last place `name` occurs can be a use of it.
        if next_name == len {
            break;
        }
        let special = next_special.min(next_hash);
        let at = if next_name < special {
            if !stands_alone(bytes, next_name, next_name + name.len()) {
                search = next_name + 1;
                continue;
            }
            next_name
        } else if special < len {
            // A word right before it may be a literal's prefix: the token starts at the word.
            let mut word = special;
            while word > lexed && is_ident(bytes[word - 1]) {
                word -= 1;
            }
            word
        } else {
            break;
        };
        // Plain code passed over: its last token is a `.` when its last byte is.
        if let Some(&b) = bytes[lexed..at]
            .iter()
            .rev()
            .find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        {
            dot = b == b'.';
        }
        lexer.seek(at);
        let Some(token) = lexer.next() else { break };
        let is_dot = matches!(token, Token::Punct(b'.'));
        match token {
            Token::Ident(r) if !dot => n += usize::from(&text[r] == name),
            Token::Literal(r) if text[r.clone()].contains('{') => {
                n += usize::from(inline_arg(&text[r], name));
            }
            _ => {}
        }
        dot = is_dot;
        lexed = lexer.offset();
        search = search.max(lexed);
    }
    n
}

/// [`count_in`] by lexing every token of `text`.
fn count_lexed(text: &str, name: &str) -> usize {
    let (mut idents, mut literals) = (0, 0);
    scan(
        text,
        |ident| idents += usize::from(ident == name),
        |literal| literals += usize::from(inline_arg(literal, name)),
    );
    idents + literals
}

/// Calls `ident` with each identifier used as a name in `text` (not a field or method after a
/// `.`) and `literal` with each string literal that may hold an inline format argument.
fn scan<'a>(text: &'a str, mut ident: impl FnMut(&'a str), mut literal: impl FnMut(&'a str)) {
    // `x.name` is a field or method, not the binding.
    let mut after_dot = false;
    for token in Lexer::new(text.as_bytes()) {
        let dot = matches!(token, Token::Punct(b'.'));
        match token {
            Token::Ident(r) if !after_dot => ident(&text[r]),
            Token::Literal(r) if text[r.clone()].contains('{') => literal(&text[r]),
            _ => {}
        }
        after_dot = dot;
    }
}

/// The uses in one stretch of source text (a handler's body), for the questions a handler's calls
/// ask about names. Each is answered by [`count_in`], which lexes only around the places the name
/// occurs: a table of every name, made by lexing the whole body, cost more than the few questions
/// a handler asks (walking its printed tokens once per question was a tenth of a run). Comments
/// are not uses.
pub struct Uses<'a> {
    text: &'a str,
}

impl<'a> Uses<'a> {
    /// The names used inside `block`'s braces.
    pub fn in_block(block: &syn::Block, idx: &'a LineIndex) -> Self {
        let brace = block.brace_token.span;
        Self::in_text(idx.slice(brace.open().end(), brace.close().start()))
    }

    pub fn in_text(text: &'a str) -> Self {
        Uses { text }
    }

    /// How many times `name` is used here (see [`uses_of`]).
    pub fn count(&self, name: &str) -> usize {
        count_in(self.text, name)
    }

    /// A name not used anywhere here: `base`, else `base2`, `base3`, ...
    pub fn fresh_name(&self, base: &str, taken: &[String]) -> String {
        let mut k = 1;
        loop {
            let name = if k == 1 {
                base.to_string()
            } else {
                format!("{base}{k}")
            };
            if self.count(&name) == 0 && !taken.contains(&name) {
                return name;
            }
            k += 1;
        }
    }
}

/// Whether a literal's text names `name` as an inline format argument: `{name}` or `{name:..}`.
fn inline_arg(literal: &str, name: &str) -> bool {
    literal.match_indices(name).any(|(at, _)| {
        literal[..at].ends_with('{')
            && matches!(literal.as_bytes().get(at + name.len()), Some(b'}' | b':'))
    })
}

/// The last identifier of a type path (`rmcp::model::CallToolResult` → `CallToolResult`).
pub fn last_ident(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        syn::Type::Reference(r) => last_ident(&r.elem),
        _ => None,
    }
}

/// The type arguments of a path segment (`Result<T, E>`: `T`, `E`), lifetimes and constants
/// left out.
pub fn type_args(seg: &syn::PathSegment) -> Vec<&syn::Type> {
    match &seg.arguments {
        syn::PathArguments::AngleBracketed(a) => a
            .args
            .iter()
            .filter_map(|g| match g {
                syn::GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
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

/// `text`, one of the rewrite's own templates, with its paths into the rmcp crate (`rmcp::model::..`)
/// rooted at `root`, the name the crate is used by (`mcp` for `mcp = { package = "rmcp" }`). A
/// path that runs through another (`mrtr::rmcp::deferred`, the runtime's own module) is left.
pub fn rmcp_paths(text: &str, root: &str) -> String {
    if root == "rmcp" {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("rmcp::") {
        let before = &rest[..at];
        let starts_path = !before.ends_with("::")
            && !before
                .chars()
                .next_back()
                .is_some_and(|c| c == '_' || c.is_alphanumeric());
        out.push_str(before);
        out.push_str(if starts_path { root } else { "rmcp" });
        out.push_str("::");
        rest = &rest[at + "rmcp::".len()..];
    }
    out.push_str(rest);
    out
}

/// `code` on one line for a message: its first line, cut at 40 characters with `..`.
pub fn shorten(code: &str) -> String {
    let first = code.lines().next().unwrap_or("").trim_end();
    let cut: String = first.chars().take(40).collect();
    if cut.len() < code.trim_end().len() {
        format!("{cut}..")
    } else {
        cut
    }
}

/// One fix's edits as the applier takes them: edits that touch (an insertion where another edit
/// starts or ends, two insertions at one place) become one, their texts in the order the edits
/// were made; identical replacements are kept once. `Err` when two edits overlap otherwise.
pub fn merge(idx: &LineIndex, edits: Vec<Edit>) -> Result<Vec<Edit>, String> {
    let mut ordered: Vec<(usize, Edit)> = edits.into_iter().enumerate().collect();
    // At one offset, insertions first (in the order they were made), then the replacement.
    ordered.sort_by_key(|(i, e)| (e.start, e.end > e.start, *i));
    let mut out: Vec<Edit> = Vec::new();
    for (_, e) in ordered {
        let Some(last) = out.last_mut() else {
            out.push(e);
            continue;
        };
        let insertion = last.start == last.end || e.start == e.end;
        if e.start > last.end || (e.start == last.end && !insertion) {
            out.push(e);
        } else if e.start == last.end {
            let joined = format!("{}{}", last.replacement, e.replacement);
            *last = idx.edit(last.start, e.end.max(last.end), joined);
        } else if last.start == e.start && last.end == e.end && last.replacement == e.replacement {
            continue;
        } else {
            return Err(format!(
                "two edits of the rewrite overlap at line {} (a shape the rewrite does not take \
apart)",
                e.line
            ));
        }
    }
    Ok(out)
}

/// `start..end` widened to its whole lines when the span has them to itself (a statement on its
/// own lines), so removing it leaves no blank line behind.
pub fn whole_lines(src: &str, start: usize, end: usize) -> (usize, usize) {
    let line_start = src[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = src[end..].find('\n').map_or(src.len(), |i| end + i + 1);
    if src[line_start..start].trim().is_empty() && src[end..line_end].trim().is_empty() {
        (line_start, line_end)
    } else {
        (start, end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rmcp_paths_take_the_crates_own_name_and_leave_other_paths() {
        let t = "Err(rmcp::service::E) <rmcp::model::R>::new(mrtr::rmcp::deferred::x, my_rmcp::a)";
        assert_eq!(
            rmcp_paths(t, "mcp"),
            "Err(mcp::service::E) <mcp::model::R>::new(mrtr::rmcp::deferred::x, my_rmcp::a)"
        );
        assert_eq!(rmcp_paths(t, "rmcp"), t);
    }

    #[test]
    fn counted_uses_match_a_walk_per_name() {
        let source = r##"{
            let answer = ctx.answer(x).await?;
            let y = answer.answer + answer2;
            println!("{answer} {answer:?} {answer2:>4} {{answer}} {answers}", y = y);
            let s = "answer"; // {s} is in a comment: not a use
            let t = r#"{t}"#;
            'outer: for _ in [t] {}
        }"##;
        let uses = Uses::in_text(source);
        for (name, expected) in [
            // `let answer`, the receiver of `answer.answer` (not the field), one literal
            ("answer", 3),
            ("answer2", 2),
            ("answers", 1),
            ("ctx", 1),
            ("x", 1),
            ("y", 3),
            ("s", 1),
            ("t", 3),
            ("outer", 1),
            ("missing", 0),
        ] {
            assert_eq!(uses.count(name), expected, "{name}");
            assert_eq!(count_in(source, name), expected, "{name}, by itself");
            assert_eq!(
                count_lexed(source, name),
                expected,
                "{name}, every token lexed"
            );
        }
        assert_eq!(uses.fresh_name("answer", &[]), "answer3");
        assert_eq!(uses.fresh_name("y", &["y2".to_string()]), "y3");
        assert_eq!(uses.fresh_name("fresh", &[]), "fresh");
    }

    /// The text of every Rust source of this crate: real code of every shape, for the tests
    /// that compare a fast path with the slow one.
    fn own_sources() -> Vec<String> {
        let mut dirs = vec![std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")];
        let mut texts = Vec::new();
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    texts.push(std::fs::read_to_string(path).unwrap());
                }
            }
        }
        texts
    }

    /// The ranges read off a node's own first and last tokens against the range of its printed
    /// tokens, for every block, statement, expression and parameter of the crate's own sources.
    #[test]
    fn ranges_from_a_nodes_ends_match_its_printed_range() {
        struct Check<'i, 'a> {
            idx: &'i LineIndex<'a>,
            seen: [usize; 4],
        }
        impl<'ast> syn::visit::Visit<'ast> for Check<'_, '_> {
            fn visit_block(&mut self, b: &'ast syn::Block) {
                assert_eq!(block_range(b, self.idx), range_of(b, self.idx));
                self.seen[0] += 1;
                syn::visit::visit_block(self, b);
            }
            fn visit_stmt(&mut self, s: &'ast syn::Stmt) {
                assert_eq!(stmt_range(s, self.idx), range_of(s, self.idx));
                self.seen[1] += 1;
                syn::visit::visit_stmt(self, s);
            }
            fn visit_expr(&mut self, e: &'ast syn::Expr) {
                let at = range_of(e, self.idx);
                assert_eq!(
                    expr_range(e, self.idx),
                    at,
                    "{:?}",
                    at.map(|(s, e)| &self.idx.text()[s..e])
                );
                self.seen[2] += 1;
                syn::visit::visit_expr(self, e);
            }
            fn visit_pat_type(&mut self, p: &'ast syn::PatType) {
                assert_eq!(param_range(p, self.idx), range_of(p, self.idx));
                self.seen[3] += 1;
                syn::visit::visit_pat_type(self, p);
            }
        }
        let mut seen = [0; 4];
        for text in own_sources() {
            let file = syn::parse_file(&text).unwrap();
            let idx = LineIndex::new(&text);
            let mut check = Check {
                idx: &idx,
                seen: [0; 4],
            };
            syn::visit::Visit::visit_file(&mut check, &file);
            for (total, n) in seen.iter_mut().zip(check.seen) {
                *total += n;
            }
        }
        assert!(seen.iter().all(|&n| n > 1000), "{seen:?}");
    }

    /// The count that lexes only around a name's places against lexing every token, for every
    /// word of the crate's own sources and of shapes that change how text lexes.
    #[test]
    fn counting_around_a_name_matches_lexing_every_token() {
        let mut texts: Vec<String> = [
            r##"a. /* x. */ b a /* c */ .b x.// c.
            b 'b"b" br"b\" b" b r#b r#"b"# b'b' 'b' '\'' b c"{b}" #b /b/ //b"##,
            "b\"{b}\" 'b b' b\t.b b\r\n.\n b {b:?} é b éb bé",
            "x.b\n// b\n b",
            "/* /* b */ b */ b",
            "\"b",
            "r#\"b",
        ]
        .map(String::from)
        .to_vec();
        texts.extend(own_sources());
        for text in &texts {
            // Every token lexed once: each name's count, and the literals that may name one.
            let mut idents: std::collections::HashMap<&str, usize> = Default::default();
            let mut literals = Vec::new();
            scan(
                text,
                |i| *idents.entry(i).or_default() += 1,
                |l| literals.push(l),
            );
            let mut names: Vec<&str> = idents.keys().copied().collect();
            names.extend(["b", "r", "br", "c", "{", "\"", "/", "é"]);
            for name in names {
                let lexed = idents.get(name).copied().unwrap_or(0)
                    + literals.iter().filter(|l| inline_arg(l, name)).count();
                assert_eq!(count_in(text, name), lexed, "{name}");
            }
        }
    }
}
