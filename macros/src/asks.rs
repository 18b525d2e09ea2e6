//! Recognizing asks: `<mrtr>.elicit(..)`, `.elicit_url(..)`, `.sample(..)`, `.list_roots()`,
//! `.ask(<expr giving an Ask>)`, each optionally followed by `.key(..)`, and the batch
//! `<mrtr>.join(a, b, ..)`, all directly followed by `.await`.

use proc_macro2::{Span, TokenStream, TokenTree};
use syn::spanned::Spanned;
use syn::{Expr, Ident, Local, Pat, Stmt};

/// Methods of `Mrtr` that produce one ask.
pub const SINGLE_ASKS: &[&str] = &[
    "elicit",
    "elicit_schema",
    "elicit_params",
    "elicit_url",
    "sample",
    "list_roots",
    "ask",
];

/// What one ask site asks for.
pub enum AskKind {
    /// One ask: the expression that builds its `Ask<T>`.
    Single(Expr),
    /// Several asks answered in one round: the expressions that build each `Ask<T>`.
    Join(Vec<Expr>),
}

/// One awaited ask.
pub struct AskExpr {
    pub kind: AskKind,
    pub span: Span,
    /// A call handing the `Mrtr` to an asking helper (`helper(&mrtr, ..).await`): the
    /// `Single` expression is the call, and the helper's asks run in a nested flow.
    pub nested: bool,
}

/// An ask in statement position: `let PAT = ASK.await?;` / `ASK.await?;` (the `?` optional).
pub struct AskStmt {
    pub ask: AskExpr,
    /// The `let` (pattern, type, let-else), when the answer is bound.
    pub local: Option<Local>,
    pub question_mark: bool,
}

/// Peels `.key(..)` calls and returns the `Mrtr` method the chain starts with.
fn ask_method<'a>(expr: &'a Expr, mrtr: &Ident) -> Option<(&'a syn::ExprMethodCall, bool)> {
    let mut current = expr;
    let mut keyed = false;
    loop {
        let Expr::MethodCall(call) = current else {
            return None;
        };
        if call.method == "key" {
            keyed = true;
            current = &call.receiver;
            continue;
        }
        let Expr::Path(receiver) = &*call.receiver else {
            return None;
        };
        if receiver.path.is_ident(mrtr) {
            let name = call.method.to_string();
            if SINGLE_ASKS.contains(&name.as_str()) || name == "join" {
                return Some((call, keyed));
            }
        }
        return None;
    }
}

/// `expr` as an awaited ask, if it is one. A `.key(..)` on a batch is an error.
pub fn parse_ask(expr: &Expr, mrtr: &Ident) -> Option<syn::Result<AskExpr>> {
    parse_ask_checked(expr, mrtr, true)
}

/// [`parse_ask`] without the shape checks, for the stand-in copy emitted next to errors.
pub fn parse_ask_lenient(expr: &Expr, mrtr: &Ident) -> Option<AskExpr> {
    parse_ask_checked(expr, mrtr, false).and_then(Result::ok)
}

fn parse_ask_checked(expr: &Expr, mrtr: &Ident, strict: bool) -> Option<syn::Result<AskExpr>> {
    let Expr::Await(awaited) = expr else {
        return None;
    };
    if helper_call(&awaited.base, mrtr) {
        return Some(Ok(AskExpr {
            kind: AskKind::Single((*awaited.base).clone()),
            span: expr.span(),
            nested: true,
        }));
    }
    let (call, keyed) = ask_method(&awaited.base, mrtr)?;
    let span = expr.span();
    if call.method == "join" {
        if keyed && strict {
            return Some(Err(syn::Error::new(
                span,
                "#[mrtr_handler]: `.key(..)` names one ask: put it on each ask inside `join(..)`, not on the batch",
            )));
        }
        if call.args.is_empty() && strict {
            return Some(Err(syn::Error::new(
                call.method.span(),
                "#[mrtr_handler]: `join(..)` needs at least one ask",
            )));
        }
        return Some(Ok(AskExpr {
            kind: AskKind::Join(call.args.iter().cloned().collect()),
            span,
            nested: false,
        }));
    }
    let built = if call.method == "ask" {
        if call.args.len() != 1 {
            if !strict {
                return None;
            }
            return Some(Err(syn::Error::new(
                call.method.span(),
                "#[mrtr_handler]: `ask(..)` takes one expression that gives an `Ask<T>`",
            )));
        }
        // `mrtr.ask(helper(&mrtr)).key("k")`: the `Ask` is the argument, keys re-applied.
        rebuild_keys(&awaited.base, call.args[0].clone())
    } else {
        (*awaited.base).clone()
    };
    Some(Ok(AskExpr {
        kind: AskKind::Single(built),
        span,
        nested: false,
    }))
}

/// `arg` hands over the `Mrtr`: `&mrtr`, or `mrtr` itself (inside a helper, where it is
/// already a `&Mrtr`).
pub fn passes_mrtr(arg: &Expr, mrtr: &Ident) -> bool {
    let is_mrtr =
        |e: &Expr| matches!(e, Expr::Path(p) if p.qself.is_none() && p.path.is_ident(mrtr));
    match arg {
        Expr::Reference(r) => r.mutability.is_none() && is_mrtr(&r.expr),
        Expr::Paren(p) => passes_mrtr(&p.expr, mrtr),
        other => is_mrtr(other),
    }
}

/// A call (function or method, not a method of the `Mrtr` itself) one of whose arguments
/// hands over the `Mrtr`: a call of an asking helper.
pub fn helper_call(expr: &Expr, mrtr: &Ident) -> bool {
    let args = match expr {
        Expr::Call(call) => &call.args,
        Expr::MethodCall(call) => {
            if passes_mrtr(&call.receiver, mrtr) {
                return false;
            }
            &call.args
        }
        _ => return false,
    };
    args.iter().any(|arg| passes_mrtr(arg, mrtr))
}

/// Replaces the `mrtr.ask(inner)` at the root of a `.key(..)` chain by `inner`.
fn rebuild_keys(chain: &Expr, inner: Expr) -> Expr {
    match chain {
        Expr::MethodCall(call) if call.method == "key" => {
            let mut call = call.clone();
            call.receiver = Box::new(rebuild_keys(&call.receiver, inner));
            Expr::MethodCall(call)
        }
        _ => inner,
    }
}

/// `expr` is `ASK.await` or `ASK.await?`.
fn ask_with_try(expr: &Expr, mrtr: &Ident) -> Option<(syn::Result<AskExpr>, bool)> {
    match expr {
        Expr::Try(t) => parse_ask(&t.expr, mrtr).map(|a| (a, true)),
        other => parse_ask(other, mrtr).map(|a| (a, false)),
    }
}

/// `stmt` as an ask statement, if it is one.
pub fn ask_stmt(stmt: &Stmt, mrtr: &Ident) -> Option<syn::Result<AskStmt>> {
    match stmt {
        Stmt::Local(local) => {
            let init = local.init.as_ref()?;
            let (ask, question_mark) = ask_with_try(&init.expr, mrtr)?;
            Some(ask.map(|ask| AskStmt {
                ask,
                local: Some(local.clone()),
                question_mark,
            }))
        }
        Stmt::Expr(expr, Some(_)) => {
            let (ask, question_mark) = ask_with_try(expr, mrtr)?;
            Some(ask.map(|ask| AskStmt {
                ask,
                local: None,
                question_mark,
            }))
        }
        _ => None,
    }
}

/// The name used in default `inputRequests` keys for each answer of a pattern: the binding's
/// name (the first one a destructuring pattern binds), else the answer's position.
pub fn key_names(pat: Option<&Pat>, count: usize) -> Vec<String> {
    let mut names: Vec<String> = (0..count).map(|i| i.to_string()).collect();
    let first_binding = |p: &Pat| -> Option<String> {
        crate::names::pattern_bindings(p)
            .first()
            .map(|b| b.ident.to_string())
    };
    let mut pat = pat;
    while let Some(Pat::Type(t)) = pat {
        pat = Some(&t.pat);
    }
    match pat {
        Some(pat) if count == 1 => {
            if let Some(name) = first_binding(pat) {
                names[0] = name;
            }
        }
        Some(Pat::Tuple(tuple)) => {
            for (i, elem) in tuple.elems.iter().enumerate().take(count) {
                if let Some(name) = first_binding(elem) {
                    if !names.contains(&name) {
                        names[i] = name;
                    }
                }
            }
        }
        _ => {}
    }
    names
}

/// Whether a macro's tokens contain `<mrtr> . <ask method>`: an ask the rewrite cannot see.
pub fn tokens_mention_ask(tokens: TokenStream, mrtr: &Ident) -> Option<Span> {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tree) in trees.iter().enumerate() {
        match tree {
            TokenTree::Group(group) => {
                if let Some(span) = tokens_mention_ask(group.stream(), mrtr) {
                    return Some(span);
                }
            }
            TokenTree::Ident(ident) if ident == mrtr => {
                let dot =
                    matches!(trees.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == '.');
                if let (true, Some(TokenTree::Ident(method))) = (dot, trees.get(i + 2)) {
                    let name = method.to_string();
                    if SINGLE_ASKS.contains(&name.as_str()) || name == "join" {
                        return Some(method.span());
                    }
                }
            }
            _ => {}
        }
    }
    None
}
