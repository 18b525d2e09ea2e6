//! Suppression comments: `// mcp-lint: allow(CODE[, CODE]) -- reason`.
//!
//! rustc rejects `#[allow(tool::lint)]` for tools it does not know (E0710), so a suppression is a
//! line comment. Where it stands decides what it covers:
//!
//! - at the end of a line of code: findings on that line;
//! - alone on its line: the statement or item that starts on the next line of code (skipping other
//!   comment lines; a blank line ends the search). An item covers everything inside it, attributes
//!   and doc comments included. If no statement or item starts there, it covers that one line;
//! - `//! mcp-lint: allow(..)` inside an item (a `mod`, a fn body, an `impl`): that item, the
//!   innermost one it stands in;
//! - `//! mcp-lint: allow(..)` outside every item (the file's top), or a `// mcp-lint: allow(..)`
//!   in the comment block at the top of the file that is not directly followed by code: the whole
//!   file.
//!
//! Only `//` and `//!` comments whose text starts with `mcp-lint:` are directives; `///` docs, block
//! comments and prose that merely mentions the syntax are not. A directive that suppresses nothing is
//! reported as MCP901 with a safe fix that deletes it; a malformed one, one naming an unknown code,
//! or one without a reason when the policy requires one is reported as MCP902 and suppresses
//! nothing.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use proc_macro2::{LineColumn, TokenStream, TokenTree};
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};

use crate::finding::{Applicability, Finding, Fix, Level};
use crate::lint::DIRECTIVE;
use crate::reading::lexer::{Lexer, Token};
use crate::reading::source::LineIndex;

pub const UNUSED_CODE: &str = "MCP901";
pub const UNUSED_NAME: &str = "unused-suppression";
pub const INVALID_CODE: &str = "MCP902";
pub const INVALID_NAME: &str = "invalid-suppression";

// ---------------------------------------------------------------------------------------------
// Lexing: just enough of Rust's lexical grammar to find real comments (not text in strings).

#[derive(Debug, Clone)]
struct LineComment {
    start: usize,
    end: usize,
    line: usize,
    /// `//!`
    inner: bool,
    /// `///` (not `////`): documentation, never a directive.
    outer_doc: bool,
    /// Code precedes the comment on its line.
    trailing: bool,
    /// No code token appears before it in the file.
    in_header: bool,
}

struct Lexed {
    comments: Vec<LineComment>,
    /// Index `line - 1`: the line holds at least one code token.
    has_code: Vec<bool>,
    /// Index `line - 1`: the line starts inside a string or block comment.
    starts_in_token: Vec<bool>,
}

fn lex(src: &str) -> Lexed {
    let b = src.as_bytes();
    let lines = src.matches('\n').count() + 1;
    let mut out = Lexed {
        comments: Vec::new(),
        has_code: vec![false; lines],
        starts_in_token: vec![false; lines],
    };
    let mut line = 1usize;
    let mut seen_code = false;
    let mut at = 0usize;
    let mut tokens = Lexer::with_comments(b);
    while let Some(token) = tokens.next() {
        let (start, end) = (tokens.start(), tokens.offset());
        line += memchr::memchr_iter(b'\n', &b[at..start]).count();
        at = end;
        let code = match token {
            Token::LineComment(r) => {
                let text = &src[r];
                out.comments.push(LineComment {
                    start,
                    end,
                    line,
                    inner: text.starts_with("//!"),
                    outer_doc: text.starts_with("///") && !text.starts_with("////"),
                    trailing: out.has_code[line - 1],
                    in_header: !seen_code,
                });
                continue;
            }
            Token::BlockComment(_) => false,
            _ => {
                out.has_code[line - 1] = true;
                seen_code = true;
                true
            }
        };
        // Lines begun inside a string or block comment are inside a token.
        for _ in memchr::memchr_iter(b'\n', &b[start..end]) {
            line += 1;
            out.starts_in_token[line - 1] = true;
        }
        if code {
            out.has_code[line - 1] = true;
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Syntax scopes: items and statements with their line ranges, from one syn parse.

/// An item (fn, impl, mod, trait, ...) with its extent; `head_line` is the line of its first token
/// after outer attributes and doc comments.
#[derive(Debug, Clone)]
pub struct ItemScope {
    /// `tools::<Server as ServerHandler>::call_tool`: the path of enclosing items, no line numbers.
    pub path: String,
    pub start: (usize, usize),
    pub end: (usize, usize),
    pub head_line: usize,
}

#[derive(Debug, Clone, Default)]
pub struct SourceScopes {
    pub items: Vec<ItemScope>,
    /// Statements: (start line, end line).
    pub stmts: Vec<(usize, usize)>,
    /// [`SourceScopes::coverage_from`]'s answers, by line, made on first use.
    outermost: std::sync::OnceLock<HashMap<usize, (usize, usize)>>,
    /// The items' extents nested, for [`SourceScopes::innermost_item_at`], made on first use.
    nested: std::sync::OnceLock<crate::reading::source::Nested<Pos>>,
}

impl SourceScopes {
    /// Items and statements. None when the file does not parse; callers then treat it as one flat
    /// scope.
    pub fn parse(src: &str) -> Option<SourceScopes> {
        Self::collect(src, true)
    }

    /// Items only: enough for [`SourceScopes::enclosing_item`], and cheaper (statement spans cost
    /// a token-stream conversion each).
    pub fn parse_items(src: &str) -> Option<SourceScopes> {
        Self::collect(src, false)
    }

    fn collect(src: &str, stmts: bool) -> Option<SourceScopes> {
        // The engine's nesting guard: this runs on files the engine refused too, and syn recurses
        // once per level (200k nested parens overflowed the CLI's 512 MB stack here).
        if crate::reading::parse::too_deep(src).is_some() {
            return None;
        }
        let file = syn::parse_file(src).ok()?;
        let mut c = ScopeCollector {
            stack: Vec::new(),
            scopes: SourceScopes::default(),
            stmts,
        };
        c.visit_file(&file);
        Some(c.scopes)
    }

    /// The innermost item containing the 1-based position, as a path (`""` at file level).
    pub fn enclosing_item(&self, line: usize, column: usize) -> &str {
        let pos = (line, column.saturating_sub(1));
        self.items
            .iter()
            .filter(|it| it.start <= pos && pos < it.end)
            .max_by_key(|it| (it.start, std::cmp::Reverse(it.end)))
            .map(|it| it.path.as_str())
            .unwrap_or("")
    }

    /// Lines of the innermost item that contains byte `offset` (on `line`) of `src`: what an inner
    /// (`//!`) directive there covers. None outside every item.
    fn innermost_item_at(&self, src: &str, offset: usize, line: usize) -> Option<(usize, usize)> {
        let line_start = src[..offset].rfind('\n').map_or(0, |i| i + 1);
        // proc-macro2 counts columns in chars, from 0.
        let pos = (line, src[line_start..offset].chars().count());
        // In log time: a scan of every item per `//!` directive made a file with one in each
        // of its fns quadratic.
        let nested = self.nested.get_or_init(|| {
            crate::reading::source::Nested::new(
                self.items.iter().map(|it| (it.start, it.end)).collect(),
            )
        });
        nested
            .innermost(pos)
            .map(|k| (self.items[k].start.0, self.items[k].end.0))
    }

    /// Lines covered by a directive that targets `line`: the outermost item or statement that
    /// starts there, or just the line.
    fn coverage_from(&self, line: usize) -> (usize, usize) {
        self.outermost
            .get_or_init(|| self.outermost_by_line())
            .get(&line)
            .map(|&(s, e)| (s.min(line), e.max(line)))
            .unwrap_or((line, line))
    }

    /// For each line an item's head or a statement starts on: the longest such item or statement
    /// (the earlier at equal lengths, the last listed at equal both). Built once: a scan of every
    /// item per directive made a file with a directive per fn quadratic (20,000 took 5.5 s).
    fn outermost_by_line(&self) -> HashMap<usize, (usize, usize)> {
        let mut best: HashMap<usize, (usize, usize)> = HashMap::new();
        let mut offer = |line: usize, (s, e): (usize, usize)| {
            let key = |(s, e): (usize, usize)| (e - s, std::cmp::Reverse(s));
            let slot = best.entry(line).or_insert((s, e));
            if key((s, e)) >= key(*slot) {
                *slot = (s, e);
            }
        };
        for it in &self.items {
            for line in it.start.0..=it.head_line {
                offer(line, (it.start.0, it.end.0));
            }
        }
        for &(s, e) in &self.stmts {
            offer(s, (s, e));
        }
        best
    }
}

struct ScopeCollector {
    stack: Vec<String>,
    scopes: SourceScopes,
    stmts: bool,
}

/// (line, 0-based column), as proc-macro2 reports positions.
type Pos = (usize, usize);

fn loc(lc: LineColumn) -> Pos {
    (lc.line, lc.column)
}

/// Start and end of `tokens`, and the line of its first token that is not part of an outer
/// attribute (`#[..]`, `///`). One pass over the top-level token trees.
fn extent(tokens: TokenStream) -> Option<(Pos, Pos, usize)> {
    let mut iter = tokens.into_iter().peekable();
    let first = iter.peek()?.span().start();
    let mut head = None;
    let mut last = None;
    while let Some(tt) = iter.next() {
        if head.is_none() {
            let is_attr = matches!(&tt, TokenTree::Punct(p) if p.as_char() == '#')
                && matches!(iter.peek(), Some(TokenTree::Group(_)));
            if is_attr {
                last = iter.next().map(|g| g.span().end());
                continue;
            }
            head = Some(tt.span().start().line);
        }
        last = Some(tt.span().end());
    }
    let end = last.unwrap_or(first);
    Some((loc(first), loc(end), head.unwrap_or(first.line)))
}

fn type_name(ty: &syn::Type) -> String {
    match ty {
        syn::Type::Path(p) => p
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default(),
        syn::Type::Reference(r) => type_name(&r.elem),
        other => other
            .to_token_stream()
            .to_string()
            .split_whitespace()
            .collect(),
    }
}

fn item_name(item: &syn::Item) -> Option<String> {
    use syn::Item::*;
    Some(match item {
        Const(i) => i.ident.to_string(),
        Enum(i) => i.ident.to_string(),
        Fn(i) => i.sig.ident.to_string(),
        Impl(i) => match &i.trait_ {
            Some((_, path, _)) => format!(
                "<{} as {}>",
                type_name(&i.self_ty),
                path.segments
                    .last()
                    .map(|s| s.ident.to_string())
                    .unwrap_or_default()
            ),
            None => type_name(&i.self_ty),
        },
        Macro(i) => format!("{}!", i.ident.as_ref()?),
        Mod(i) => i.ident.to_string(),
        Static(i) => i.ident.to_string(),
        Struct(i) => i.ident.to_string(),
        Trait(i) => i.ident.to_string(),
        Type(i) => i.ident.to_string(),
        Union(i) => i.ident.to_string(),
        _ => return None,
    })
}

impl ScopeCollector {
    fn enter(&mut self, name: String, node: &dyn ToTokens) {
        self.stack.push(name);
        if let Some((start, end, head_line)) = extent(node.to_token_stream()) {
            self.scopes.items.push(ItemScope {
                path: self.stack.join("::"),
                start,
                end,
                head_line,
            });
        }
    }
}

impl<'ast> Visit<'ast> for ScopeCollector {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        match item_name(item) {
            Some(name) => {
                self.enter(name, item);
                visit::visit_item(self, item);
                self.stack.pop();
            }
            None => visit::visit_item(self, item),
        }
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.enter(f.sig.ident.to_string(), f);
        visit::visit_impl_item_fn(self, f);
        self.stack.pop();
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        self.enter(f.sig.ident.to_string(), f);
        visit::visit_trait_item_fn(self, f);
        self.stack.pop();
    }

    fn visit_stmt(&mut self, s: &'ast syn::Stmt) {
        if self.stmts {
            let span = s.span();
            self.scopes.stmts.push((span.start().line, span.end().line));
        }
        visit::visit_stmt(self, s);
    }
}

// ---------------------------------------------------------------------------------------------
// Directives

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Coverage {
    File,
    Lines(usize, usize),
    /// An own-line directive followed by a blank line or the end of the file.
    Nothing,
}

#[derive(Debug, Clone)]
pub struct Directive {
    pub line: usize,
    /// Byte range of the comment (from `//` to the end of the line, newline excluded).
    pub start: usize,
    pub end: usize,
    /// Each code with the byte range of its text.
    pub codes: Vec<CodeSpan>,
    pub reason: Option<String>,
    pub coverage: Coverage,
    pub trailing: bool,
}

/// A comment that starts like a directive but cannot be read as one.
#[derive(Debug, Clone)]
pub struct Malformed {
    pub start: usize,
    pub end: usize,
    pub problem: String,
}

/// A code named in a directive, with the byte range of its text.
pub type CodeSpan = (String, usize, usize);

/// The codes and the reason of a directive.
type ParsedDirective = (Vec<CodeSpan>, Option<String>);

/// Reads the text after `//` or `//!`. `Ok(None)`: not a directive at all.
fn parse_directive_text(text: &str, base: usize) -> Result<Option<ParsedDirective>, String> {
    let trimmed = text.trim_start();
    let Some(rest) = trimmed.strip_prefix(DIRECTIVE) else {
        return Ok(None);
    };
    let mut offset = base + (text.len() - trimmed.len()) + DIRECTIVE.len();
    let r = rest.trim_start();
    offset += rest.len() - r.len();
    let Some(r) = r.strip_prefix("allow") else {
        return Err("expected `allow(CODE, ...)` after `mcp-lint:`".into());
    };
    offset += "allow".len();
    let r2 = r.trim_start();
    offset += r.len() - r2.len();
    let Some(inner_and_rest) = r2.strip_prefix('(') else {
        return Err("expected `(` after `allow`".into());
    };
    offset += 1;
    let Some(close) = inner_and_rest.find(')') else {
        return Err("missing `)` after the codes".into());
    };
    let inner = &inner_and_rest[..close];
    let mut codes = Vec::new();
    let mut pos = 0;
    for part in inner.split(',') {
        let t = part.trim();
        let lead = part.len() - part.trim_start().len();
        if t.is_empty() {
            return Err("empty code in `allow(..)`".into());
        }
        if !t.chars().all(|c| c.is_ascii_alphanumeric()) {
            return Err(format!("`{t}` is not a rule code"));
        }
        let s = offset + pos + lead;
        codes.push((t.to_string(), s, s + t.len()));
        pos += part.len() + 1;
    }
    let after = inner_and_rest[close + 1..].trim();
    let reason = if after.is_empty() {
        None
    } else if let Some(reason) = after.strip_prefix("--") {
        let reason = reason.trim();
        (!reason.is_empty()).then(|| reason.to_string())
    } else {
        return Err(format!(
            "unexpected `{after}` after `)`; write the reason as `-- reason`"
        ));
    };
    Ok(Some((codes, reason)))
}

/// Every directive in `src`, with what it covers.
pub fn directives(src: &str, scopes: Option<&SourceScopes>) -> (Vec<Directive>, Vec<Malformed>) {
    let lexed = lex(src);
    let mut found = Vec::new();
    let mut bad = Vec::new();
    let comment_lines: BTreeSet<usize> = lexed
        .comments
        .iter()
        .filter(|c| !c.trailing)
        .map(|c| c.line)
        .collect();
    let empty = SourceScopes::default();
    let scopes = scopes.unwrap_or(&empty);
    let next_code = next_code_lines(&lexed, &comment_lines);
    for c in &lexed.comments {
        if c.outer_doc {
            continue;
        }
        let prefix = if c.inner { 3 } else { 2 };
        let text = &src[c.start + prefix..c.end];
        let (codes, reason) = match parse_directive_text(text, c.start + prefix) {
            Ok(Some(d)) => d,
            Ok(None) => continue,
            Err(problem) => {
                bad.push(Malformed {
                    start: c.start,
                    end: c.end,
                    problem,
                });
                continue;
            }
        };
        let target = if c.trailing || c.inner {
            None
        } else {
            next_code.get(c.line + 1).copied().flatten()
        };
        let coverage = if c.inner {
            match scopes.innermost_item_at(src, c.start, c.line) {
                Some((s, e)) => Coverage::Lines(s, e),
                None => Coverage::File,
            }
        } else if c.trailing {
            Coverage::Lines(c.line, c.line)
        } else {
            match target {
                None if c.in_header => Coverage::File,
                None => Coverage::Nothing,
                Some(t) => {
                    let (s, e) = scopes.coverage_from(t);
                    Coverage::Lines(s, e)
                }
            }
        };
        found.push(Directive {
            line: c.line,
            start: c.start,
            end: c.end,
            codes,
            reason,
            coverage,
            trailing: c.trailing,
        });
    }
    (found, bad)
}

/// Index `line`: the first line from `line` on that holds code, passing over comment-only lines
/// (a blank line stops: None). One pass from the end: a search forward from each directive made
/// a block of 25,000 directive lines quadratic.
fn next_code_lines(lexed: &Lexed, comment_lines: &BTreeSet<usize>) -> Vec<Option<usize>> {
    let n = lexed.has_code.len();
    let mut next = vec![None; n + 2];
    for l in (1..=n).rev() {
        next[l] = if lexed.has_code[l - 1] {
            Some(l)
        } else if comment_lines.contains(&l) {
            next[l + 1]
        } else {
            None
        };
    }
    next
}

// ---------------------------------------------------------------------------------------------
// Applying directives to findings

pub struct Policy<'a> {
    pub require_reason: bool,
    /// Every code of the catalog (a directive naming another code is invalid).
    pub known_codes: &'a BTreeSet<String>,
    /// Whether a rule is enabled for this file; unused-suppression stays quiet about disabled rules.
    pub enabled: &'a dyn Fn(&str) -> bool,
}

#[derive(Debug, Default)]
pub struct Outcome {
    /// Findings no directive covers, plus MCP901/MCP902 findings about the directives.
    pub findings: Vec<Finding>,
    pub suppressed: usize,
}

/// Removes findings covered by a valid directive of `src` and reports useless or invalid directives.
pub fn apply(path: &str, src: &str, findings: Vec<Finding>, policy: &Policy) -> Outcome {
    if !src.contains("mcp-lint:") {
        return Outcome {
            findings,
            suppressed: 0,
        };
    }
    let scopes = SourceScopes::parse(src);
    let (dirs, bad) = directives(src, scopes.as_ref());
    let index = LineIndex::new(src);
    let mut meta = Vec::new();
    for m in &bad {
        meta.push(meta_finding(
            path,
            &index,
            (m.start, m.end),
            INVALID_CODE,
            INVALID_NAME,
            format!("malformed suppression: {}", m.problem),
            None,
        ));
    }
    // Per directive, per code: did it cover anything?
    let mut valid: Vec<(usize, &Directive)> = Vec::new();
    for (di, d) in dirs.iter().enumerate() {
        let unknown: Vec<&str> = d
            .codes
            .iter()
            .map(|c| c.0.as_str())
            .filter(|c| !policy.known_codes.contains(*c))
            .collect();
        if !unknown.is_empty() {
            let valid_list: Vec<&str> = policy.known_codes.iter().map(|s| s.as_str()).collect();
            meta.push(meta_finding(
                path,
                &index,
                (d.start, d.end),
                INVALID_CODE,
                INVALID_NAME,
                format!(
                    "unknown rule code{} {} in suppression; valid codes: {}",
                    if unknown.len() > 1 { "s" } else { "" },
                    unknown.join(", "),
                    valid_list.join(", ")
                ),
                None,
            ));
            continue;
        }
        if policy.require_reason && d.reason.is_none() {
            meta.push(meta_finding(
                path,
                &index,
                (d.start, d.end),
                INVALID_CODE,
                INVALID_NAME,
                "suppression without a reason; the policy `require-suppression-reason` asks for \
                 `-- reason` after the codes"
                    .to_string(),
                None,
            ));
            continue;
        }
        valid.push((di, d));
    }
    let mut used: BTreeMap<(usize, usize), bool> = BTreeMap::new();
    let mut kept = Vec::new();
    let mut suppressed = 0;
    // A sweep over the lines: each finding meets only the directives whose lines hold it (a scan
    // of every directive per finding is quadratic in a file with a directive on each line).
    let whole_file: Vec<&(usize, &Directive)> = valid
        .iter()
        .filter(|(_, d)| matches!(d.coverage, Coverage::File))
        .collect();
    let mut spans: Vec<(usize, usize, usize)> = valid
        .iter()
        .enumerate()
        .filter_map(|(vi, (_, d))| match d.coverage {
            Coverage::Lines(s, e) => Some((s, e, vi)),
            _ => None,
        })
        .collect();
    spans.sort_unstable();
    let mut findings = findings;
    findings.sort_by_key(|f| f.line);
    let mut next_span = 0;
    // (end line, index into `valid`), the earliest end on top.
    let mut open: std::collections::BinaryHeap<std::cmp::Reverse<(usize, usize)>> =
        Default::default();
    for f in findings {
        while next_span < spans.len() && spans[next_span].0 <= f.line {
            let (_, e, vi) = spans[next_span];
            open.push(std::cmp::Reverse((e, vi)));
            next_span += 1;
        }
        while open.peek().is_some_and(|r| r.0 .0 < f.line) {
            open.pop();
        }
        let mut hit = false;
        let covering = open
            .iter()
            .map(|r| &valid[r.0 .1])
            .chain(whole_file.iter().copied());
        for (di, d) in covering {
            if let Some(ci) = d.codes.iter().position(|c| c.0 == f.code) {
                used.insert((*di, ci), true);
                hit = true;
            }
        }
        if hit {
            suppressed += 1;
        } else {
            kept.push(f);
        }
    }
    for (di, d) in &valid {
        let unused: Vec<usize> = (0..d.codes.len())
            .filter(|ci| !used.contains_key(&(*di, *ci)) && (policy.enabled)(&d.codes[*ci].0))
            .collect();
        if unused.is_empty() {
            continue;
        }
        let names: Vec<&str> = unused.iter().map(|&ci| d.codes[ci].0.as_str()).collect();
        let fix = removal_fix(src, &index, d, &unused);
        let message = if matches!(d.coverage, Coverage::Nothing) {
            format!(
                "suppression of {} applies to nothing: no code follows it before a blank line",
                names.join(", ")
            )
        } else {
            format!(
                "unused suppression: no {} finding here to suppress",
                names.join(", ")
            )
        };
        meta.push(meta_finding(
            path,
            &index,
            (d.start, d.end),
            UNUSED_CODE,
            UNUSED_NAME,
            message,
            Some(fix),
        ));
    }
    kept.extend(meta);
    kept.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    Outcome {
        findings: kept,
        suppressed,
    }
}

fn meta_finding(
    path: &str,
    index: &LineIndex,
    (start, end): (usize, usize),
    code: &str,
    name: &str,
    message: String,
    fix: Option<Fix>,
) -> Finding {
    let (line, column) = index.line_col(start);
    let (end_line, end_column) = index.line_col(end);
    Finding {
        code: code.to_string(),
        name: name.to_string(),
        level: Level::Warning,
        path: path.to_string(),
        line,
        column,
        end_line,
        end_column,
        message,
        mcp_method: None,
        sdk: None,
        help: Some(if code == UNUSED_CODE {
            "delete the suppression (the fix does it), or correct the code it names".to_string()
        } else {
            "write `// mcp-lint: allow(CODE, ...) -- reason` with codes from `cargo mcp-lint rule`"
                .to_string()
        }),
        fix,
    }
}

/// The safe fix for an unused directive: drop the codes that suppress nothing, or the whole
/// comment (and its line, when it stands alone) when none is used.
fn removal_fix(src: &str, index: &LineIndex, d: &Directive, unused: &[usize]) -> Fix {
    let edit = if unused.len() == d.codes.len() {
        if d.trailing {
            let code_end = src[..d.start].trim_end_matches([' ', '\t']).len();
            index.edit(code_end, d.end, String::new())
        } else {
            let line_start = index.line_start(d.line);
            let line_end = index.line_start(d.line + 1);
            index.edit(line_start, line_end.max(d.end), String::new())
        }
    } else {
        let keep: Vec<&str> = d
            .codes
            .iter()
            .enumerate()
            .filter(|(ci, _)| !unused.contains(ci))
            .map(|(_, c)| c.0.as_str())
            .collect();
        let first = d.codes.first().map(|c| c.1).unwrap_or(d.start);
        let last = d.codes.last().map(|c| c.2).unwrap_or(d.start);
        index.edit(first, last, keep.join(", "))
    };
    Fix {
        applicability: Applicability::Safe,
        message: "remove the unused suppression".to_string(),
        edits: vec![edit],
        other_files: Vec::new(),
    }
}

// ---------------------------------------------------------------------------------------------
// --add-suppressions

/// Inserts `// mcp-lint: allow(CODES) -- reason` above every line that carries a finding.
/// Returns the new text and the number of directives written, or why the file was left alone.
pub fn add_suppressions(
    src: &str,
    findings: &[&Finding],
    reason: &str,
) -> Result<(String, usize), String> {
    if reason.contains('\n') || reason.contains('\r') {
        return Err("the reason must be one line".into());
    }
    let lexed = lex(src);
    let index = LineIndex::new(src);
    let mut per_line: BTreeMap<usize, BTreeSet<&str>> = BTreeMap::new();
    for f in findings {
        let line = f.line.clamp(1, index.line_count());
        if lexed
            .starts_in_token
            .get(line - 1)
            .copied()
            .unwrap_or(false)
        {
            return Err(format!(
                "line {line} starts inside a string or block comment; a suppression cannot be placed above it"
            ));
        }
        per_line.entry(line).or_default().insert(f.code.as_str());
    }
    let mut out = String::with_capacity(src.len() + per_line.len() * 64);
    let mut last = 0;
    for (&line, codes) in &per_line {
        let at = index.line_start(line);
        out.push_str(&src[last..at]);
        let indent: String = index
            .line_text(line)
            .chars()
            .take_while(|c| *c == ' ' || *c == '\t')
            .collect();
        let codes: Vec<&str> = codes.iter().copied().collect();
        out.push_str(&indent);
        out.push_str("// mcp-lint: allow(");
        out.push_str(&codes.join(", "));
        out.push(')');
        if !reason.trim().is_empty() {
            out.push_str(" -- ");
            out.push_str(reason.trim());
        }
        out.push_str(if src.contains("\r\n") { "\r\n" } else { "\n" });
        last = at;
    }
    out.push_str(&src[last..]);
    // A file nested past the engine's guard is not re-parsed (syn would exhaust the stack); the
    // insertions sit at line starts outside any token, so they leave its token stream unchanged.
    let checkable = crate::reading::parse::too_deep(src).is_none();
    if checkable && syn::parse_file(src).is_ok() && syn::parse_file(&out).is_err() {
        return Err(
            "inserting the suppressions would break the file's syntax; left unchanged".into(),
        );
    }
    Ok((out, per_line.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(code: &str, line: usize) -> Finding {
        Finding {
            code: code.into(),
            name: "legacy-sampling-request".into(),
            level: Level::Error,
            path: "src/lib.rs".into(),
            line,
            column: 5,
            end_line: line,
            end_column: 10,
            message: "m".into(),
            mcp_method: Some("sampling/createMessage".into()),
            sdk: Some("rmcp".into()),
            help: None,
            fix: None,
        }
    }

    fn known() -> BTreeSet<String> {
        ["MCP001", "MCP002", "MCP003", UNUSED_CODE, INVALID_CODE]
            .iter()
            .map(|s| s.to_string())
            .collect()
    }

    fn run(src: &str, findings: Vec<Finding>, require_reason: bool) -> Outcome {
        let known = known();
        let enabled = |_: &str| true;
        apply(
            "src/lib.rs",
            src,
            findings,
            &Policy {
                require_reason,
                known_codes: &known,
                enabled: &enabled,
            },
        )
    }

    fn codes(o: &Outcome) -> Vec<(String, usize)> {
        o.findings
            .iter()
            .map(|f| (f.code.clone(), f.line))
            .collect()
    }

    #[test]
    fn trailing_covers_its_line_only() {
        let src = "fn f() {\n    a(); // mcp-lint: allow(MCP001) -- ok\n    b();\n}\n";
        let o = run(src, vec![finding("MCP001", 2), finding("MCP001", 3)], false);
        assert_eq!(codes(&o), vec![("MCP001".into(), 3)]);
        assert_eq!(o.suppressed, 1);
    }

    #[test]
    fn own_line_covers_the_whole_next_statement() {
        let src = "fn f() {\n    // mcp-lint: allow(MCP001) -- ok\n    let r = ctx\n        .peer\n        .create_message(p);\n    other();\n}\n";
        let o = run(src, vec![finding("MCP001", 5), finding("MCP001", 6)], false);
        assert_eq!(codes(&o), vec![("MCP001".into(), 6)]);
    }

    #[test]
    fn before_an_item_covers_the_item_through_attributes_and_docs() {
        let src = "impl S {\n    // mcp-lint: allow(MCP001) -- migrating in #12\n    /// Docs.\n    #[tool(description = \"x\")]\n    async fn ask(&self) {\n        one();\n        two();\n    }\n    fn other(&self) { three(); }\n}\n";
        let o = run(
            src,
            vec![
                finding("MCP001", 6),
                finding("MCP001", 7),
                finding("MCP001", 9),
            ],
            false,
        );
        assert_eq!(codes(&o), vec![("MCP001".into(), 9)]);
        assert_eq!(o.suppressed, 2);
    }

    #[test]
    fn between_attribute_and_fn_still_covers_the_item() {
        let src = "impl S {\n    #[tool]\n    // mcp-lint: allow(MCP001) -- r\n    async fn ask(&self) {\n        one();\n    }\n}\n";
        let o = run(src, vec![finding("MCP001", 5)], false);
        assert!(o.findings.is_empty(), "{:?}", o.findings);
    }

    #[test]
    fn inner_doc_directive_covers_the_file() {
        let src = "//! Tools.\n//! mcp-lint: allow(MCP001, MCP002) -- legacy module\n\nfn a() { x(); }\nfn b() { y(); }\n";
        let o = run(
            src,
            vec![
                finding("MCP001", 4),
                finding("MCP002", 5),
                finding("MCP003", 5),
            ],
            false,
        );
        assert_eq!(codes(&o), vec![("MCP003".into(), 5)]);
    }

    #[test]
    fn inner_doc_directive_in_a_nested_mod_or_fn_covers_that_item_only() {
        let src = "fn top() { a(); }\n\nmod inner {\n    //! mcp-lint: allow(MCP001) -- legacy module\n    fn b() { a(); }\n}\n\nfn c() {\n    //! mcp-lint: allow(MCP002) -- this fn only\n    s();\n}\n\nfn d() { a(); s(); }\n";
        let o = run(
            src,
            vec![
                finding("MCP001", 1),
                finding("MCP001", 5),
                finding("MCP002", 10),
                finding("MCP001", 13),
                finding("MCP002", 13),
            ],
            false,
        );
        assert_eq!(
            codes(&o),
            vec![
                ("MCP001".into(), 1),
                ("MCP001".into(), 13),
                ("MCP002".into(), 13)
            ]
        );
        assert_eq!(o.suppressed, 2);
    }

    #[test]
    fn header_comment_followed_by_blank_line_covers_the_file() {
        let src = "// mcp-lint: allow(MCP001) -- whole file\n\nuse x::y;\nfn a() { x(); }\n";
        let o = run(src, vec![finding("MCP001", 4)], false);
        assert!(o.findings.is_empty(), "{:?}", o.findings);
        // Directly above code, the same comment covers only what follows it.
        let src = "// mcp-lint: allow(MCP001) -- first fn\nfn a() { x(); }\nfn b() { x(); }\n";
        let o = run(src, vec![finding("MCP001", 2), finding("MCP001", 3)], false);
        assert_eq!(codes(&o), vec![("MCP001".into(), 3)]);
    }

    #[test]
    fn unused_suppression_is_reported_with_a_removal_fix() {
        let src = "fn f() {\n    // mcp-lint: allow(MCP001) -- stale\n    a();\n}\n";
        let o = run(src, vec![], false);
        assert_eq!(codes(&o), vec![(UNUSED_CODE.into(), 2)]);
        let fix = o.findings[0].fix.as_ref().unwrap();
        assert_eq!(fix.applicability, Applicability::Safe);
        let e = &fix.edits[0];
        let mut fixed = src.to_string();
        fixed.replace_range(e.start..e.end, &e.replacement);
        assert_eq!(fixed, "fn f() {\n    a();\n}\n");
        syn::parse_file(&fixed).unwrap();
    }

    #[test]
    fn partly_unused_suppression_keeps_the_used_code() {
        let src = "fn f() {\n    a(); // mcp-lint: allow(MCP001, MCP002) -- r\n}\n";
        let o = run(src, vec![finding("MCP001", 2)], false);
        assert_eq!(codes(&o), vec![(UNUSED_CODE.into(), 2)]);
        assert!(o.findings[0].message.contains("MCP002"));
        let e = &o.findings[0].fix.as_ref().unwrap().edits[0];
        let mut fixed = src.to_string();
        fixed.replace_range(e.start..e.end, &e.replacement);
        assert_eq!(
            fixed,
            "fn f() {\n    a(); // mcp-lint: allow(MCP001) -- r\n}\n"
        );
    }

    #[test]
    fn trailing_unused_fix_keeps_the_code() {
        let src = "fn f() {\n    a(); // mcp-lint: allow(MCP001)\n}\n";
        let o = run(src, vec![], false);
        let e = &o.findings[0].fix.as_ref().unwrap().edits[0];
        let mut fixed = src.to_string();
        fixed.replace_range(e.start..e.end, &e.replacement);
        assert_eq!(fixed, "fn f() {\n    a();\n}\n");
    }

    #[test]
    fn reason_policy_makes_reasonless_directives_invalid() {
        let src = "fn f() {\n    a(); // mcp-lint: allow(MCP001)\n}\n";
        let o = run(src, vec![finding("MCP001", 2)], true);
        assert_eq!(
            codes(&o),
            vec![("MCP001".into(), 2), (INVALID_CODE.into(), 2)]
        );
        let o = run(src, vec![finding("MCP001", 2)], false);
        assert!(o.findings.is_empty());
    }

    #[test]
    fn unknown_codes_and_malformed_directives_are_reported() {
        let src = "fn f() {\n    a(); // mcp-lint: allow(MCP999) -- r\n    b(); // mcp-lint: alow(MCP001)\n}\n";
        let o = run(src, vec![finding("MCP001", 3)], false);
        assert_eq!(
            codes(&o),
            vec![
                (INVALID_CODE.into(), 2),
                ("MCP001".into(), 3),
                (INVALID_CODE.into(), 3)
            ]
        );
        assert!(o.findings[0].message.contains("MCP999"));
        assert!(o.findings[0].message.contains("MCP001, MCP002"));
    }

    #[test]
    fn directive_text_in_strings_and_docs_is_ignored() {
        let src = "/// Write `// mcp-lint: allow(MCP001)` to silence.\nfn f() {\n    let s = \"// mcp-lint: allow(MCP001)\";\n    let r = r#\"\n// mcp-lint: allow(MCP001)\n\"#;\n    a();\n}\n";
        let o = run(src, vec![finding("MCP001", 7)], false);
        assert_eq!(codes(&o), vec![("MCP001".into(), 7)]);
    }

    #[test]
    fn lexer_tells_lifetimes_from_chars() {
        let src = "fn f<'a>(x: &'a str) -> char { let c = '\"'; c } // mcp-lint: allow(MCP001)\n";
        let (d, bad) = directives(src, None);
        assert!(bad.is_empty());
        assert_eq!(d.len(), 1);
        assert!(d[0].trailing);
    }

    #[test]
    fn add_suppressions_round_trips_through_apply() {
        let src = "impl S {\n    #[tool]\n    async fn ask(&self) {\n        let r = self\n            .peer\n            .create_message(p)\n            .await;\n        two(); three();\n    }\n}\n";
        let fs = [
            finding("MCP001", 6),
            finding("MCP002", 8),
            finding("MCP003", 8),
        ];
        let refs: Vec<&Finding> = fs.iter().collect();
        let (out, n) = add_suppressions(src, &refs, "adopting mcp-lint").unwrap();
        assert_eq!(n, 2);
        assert!(out.contains("            // mcp-lint: allow(MCP001) -- adopting mcp-lint\n            .create_message"));
        assert!(out.contains(
            "        // mcp-lint: allow(MCP002, MCP003) -- adopting mcp-lint\n        two();"
        ));
        syn::parse_file(&out).unwrap();
        // Lines moved: the findings now sit one and two lines lower.
        let moved = vec![
            finding("MCP001", 7),
            finding("MCP002", 10),
            finding("MCP003", 10),
        ];
        let o = run(&out, moved, true);
        assert!(o.findings.is_empty(), "{:?}", o.findings);
    }

    #[test]
    fn add_suppressions_refuses_lines_inside_strings() {
        let src = "fn f() {\n    let s = \"\nx\";\n}\n";
        let f = finding("MCP001", 3);
        assert!(add_suppressions(src, &[&f], "r").is_err());
    }

    #[test]
    fn enclosing_item_paths_name_impls_and_traits() {
        let src = "mod tools {\n    impl ServerHandler for Server {\n        async fn call_tool(&self) {\n            x();\n        }\n    }\n    impl Server {\n        fn ask(&self) { y(); }\n    }\n}\n";
        let s = SourceScopes::parse(src).unwrap();
        assert_eq!(
            s.enclosing_item(4, 13),
            "tools::<Server as ServerHandler>::call_tool"
        );
        assert_eq!(s.enclosing_item(8, 25), "tools::Server::ask");
        assert_eq!(s.enclosing_item(1, 1), "tools");
    }

    /// Hostile mixtures of Rust's lexical corners never panic the lexer, the directive reader or
    /// the writer, and the writer never turns a parsing file into one that does not parse.
    #[test]
    fn random_token_soup_never_panics_or_breaks_syntax() {
        const PIECES: &[&str] = &[
            "fn f() {",
            "}",
            "\n",
            "    ",
            "// mcp-lint: allow(MCP001) -- r",
            "//! mcp-lint: allow(MCP002)",
            "/* ",
            " */",
            "\"",
            "r#\"",
            "\"#",
            "'a",
            "'x'",
            "'\\''",
            "b'\\n'",
            "é",
            "let x = 1;",
            "// mcp-lint: allow(",
            "mcp-lint:",
            "#[tool]",
            "impl S {",
            "mod m {",
            "x.call()",
            "\\",
            "#",
            "r#type",
            "/// doc",
            "\r\n",
            ",",
            ")",
        ];
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let known = known();
        let enabled = |_: &str| true;
        let policy = Policy {
            require_reason: true,
            known_codes: &known,
            enabled: &enabled,
        };
        let mut checked = 0;
        for _ in 0..2000 {
            let n = (next() % 24) as usize;
            let src: String = (0..n)
                .map(|_| PIECES[(next() % PIECES.len() as u64) as usize])
                .collect();
            let lines = src.matches('\n').count() + 1;
            let fs: Vec<Finding> = (0..3)
                .map(|k| finding("MCP001", 1 + (next() as usize + k) % lines))
                .collect();
            let _ = directives(&src, SourceScopes::parse(&src).as_ref());
            let _ = apply("x.rs", &src, fs.clone(), &policy);
            let refs: Vec<&Finding> = fs.iter().collect();
            if let Ok((out, _)) = add_suppressions(&src, &refs, "why") {
                if syn::parse_file(&src).is_ok() {
                    assert!(syn::parse_file(&out).is_ok(), "{src:?} became {out:?}");
                    checked += 1;
                }
            }
        }
        assert!(
            checked > 200,
            "only {checked} parsing inputs were exercised"
        );
    }
}
