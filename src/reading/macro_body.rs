//! Reading a macro invocation's tokens as Rust, so calls inside `tokio::select!`, `tokio::join!`,
//! `block_on!` or a project's own macros are seen. Bodies that do not parse are split at
//! top-level `,` `;` `=>` and `:` and each piece is tried again; groups are tried recursively.

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};
use syn::parse::Parser;
use syn::punctuated::Punctuated;

pub enum Piece {
    Expr(Box<syn::Expr>),
    Stmts(Vec<syn::Stmt>),
    Items(Vec<syn::Item>),
    /// A type standing alone in a body of the macro's own syntax (`name: Json<Params>` in a
    /// declaration a DSL macro expands): what the SDK's type names are found in.
    Type(Box<syn::Type>),
}

/// Deepest group nesting explored when a body does not parse as a whole.
const MAX_DEPTH: usize = 32;

pub fn parse_macro_body(tokens: &TokenStream) -> Vec<Piece> {
    let mut out = Vec::new();
    whole_or_split(without_metavars(tokens), &mut out, 0);
    out
}

/// A `macro_rules!` body with `$name` read as `name`, so `$peer.list_roots()` parses as a call.
/// Streams without `$` are returned as they are.
fn without_metavars(tokens: &TokenStream) -> TokenStream {
    fn has_dollar(ts: &TokenStream) -> bool {
        ts.clone().into_iter().any(|t| match t {
            TokenTree::Punct(p) => p.as_char() == '$',
            TokenTree::Group(g) => has_dollar(&g.stream()),
            _ => false,
        })
    }
    fn strip(ts: TokenStream) -> TokenStream {
        ts.into_iter()
            .filter(|t| !matches!(t, TokenTree::Punct(p) if p.as_char() == '$'))
            .map(|t| match t {
                TokenTree::Group(g) => {
                    let mut n = proc_macro2::Group::new(g.delimiter(), strip(g.stream()));
                    n.set_span(g.span());
                    TokenTree::Group(n)
                }
                other => other,
            })
            .collect()
    }
    if has_dollar(tokens) {
        strip(tokens.clone())
    } else {
        tokens.clone()
    }
}

fn whole(tokens: &TokenStream) -> Option<Piece> {
    if tokens.is_empty() {
        return None;
    }
    if let Ok(exprs) =
        Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated.parse2(tokens.clone())
    {
        // A single path (`elicit_safe!(T)`) or literal is not worth a walk, but costs nothing.
        let block: Vec<syn::Stmt> = exprs
            .into_iter()
            .map(|e| syn::Stmt::Expr(e, Some(Default::default())))
            .collect();
        return Some(Piece::Stmts(block));
    }
    if let Ok(stmts) = syn::Block::parse_within.parse2(tokens.clone()) {
        return Some(Piece::Stmts(stmts));
    }
    if let Ok(file) = syn::parse2::<syn::File>(tokens.clone()) {
        if !file.items.is_empty() {
            return Some(Piece::Items(file.items));
        }
    }
    None
}

fn whole_or_split(tokens: TokenStream, out: &mut Vec<Piece>, depth: usize) {
    if let Some(p) = whole(&tokens) {
        out.push(p);
        return;
    }
    if depth >= MAX_DEPTH {
        return;
    }
    let toks: Vec<TokenTree> = tokens.into_iter().collect();
    let mut chunk: Vec<TokenTree> = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let tt = &toks[i];
        let sep_len = match tt {
            TokenTree::Punct(p) => match p.as_char() {
                ',' | ';' => 1,
                '=' if p.spacing() == Spacing::Joint
                    && matches!(toks.get(i + 1), Some(TokenTree::Punct(q)) if q.as_char() == '>') =>
                {
                    2
                }
                ':' if p.spacing() == Spacing::Alone
                    && !matches!(i.checked_sub(1).and_then(|j| toks.get(j)),
                        Some(TokenTree::Punct(q)) if q.as_char() == ':' && q.spacing() == Spacing::Joint) =>
                {
                    1
                }
                _ => 0,
            },
            _ => 0,
        };
        if sep_len > 0 {
            flush(&mut chunk, out, depth);
            i += sep_len;
            continue;
        }
        chunk.push(tt.clone());
        i += 1;
    }
    flush(&mut chunk, out, depth);
}

fn flush(chunk: &mut Vec<TokenTree>, out: &mut Vec<Piece>, depth: usize) {
    if chunk.is_empty() {
        return;
    }
    let ts: TokenStream = chunk.iter().cloned().collect();
    if let Ok(e) = syn::parse2::<syn::Expr>(ts.clone()) {
        out.push(Piece::Expr(Box::new(e)));
    } else if let Some(stmts) = block_then_more(&ts) {
        // A block-bodied arm runs into the next one with no separator between them
        // (`_ = stop() => { return; } r = peer.elicit(..) => r,` in `tokio::select!`): the
        // chunk is the block, then the next arm's head, which read as statements.
        out.push(Piece::Stmts(stmts));
    } else if let Some(ty) = generic_type(&ts) {
        out.push(Piece::Type(Box::new(ty)));
    } else {
        for tt in chunk.iter() {
            if let TokenTree::Group(g) = tt {
                if g.delimiter() != Delimiter::None || !g.stream().is_empty() {
                    whole_or_split(g.stream(), out, depth + 1);
                }
            }
        }
    }
    chunk.clear();
}

/// A chunk that opens with a brace group and goes on after it, read as statements. Only such
/// chunks are tried: others fail as statements where they failed as an expression.
fn block_then_more(ts: &TokenStream) -> Option<Vec<syn::Stmt>> {
    let mut tokens = ts.clone().into_iter();
    let opens_with_block =
        matches!(tokens.next(), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace);
    if !opens_with_block || tokens.next().is_none() {
        return None;
    }
    syn::Block::parse_within.parse2(ts.clone()).ok()
}

/// A chunk that is a type with generic arguments (`Json<CreateMessageRequestParam>`), which no
/// expression parse takes. Plain paths parse as expressions already; other chunks are not tried
/// (a type parse of every failed chunk would cost for nothing).
fn generic_type(ts: &TokenStream) -> Option<syn::Type> {
    let has_angle = ts
        .clone()
        .into_iter()
        .any(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == '<'));
    if !has_angle {
        return None;
    }
    syn::parse2::<syn::Type>(ts.clone()).ok()
}
