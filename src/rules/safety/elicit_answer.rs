//! MCP109 unchecked-elicitation-action: an elicitation answer's `content` unwrapped or defaulted
//! in a fn that never looks at the answer's `action` (S30).

use proc_macro2::Span;
use syn::spanned::Spanned;

use super::body::{Body, Met, Step};
use super::{emit, sdk_of, FnView};
use crate::rules::engine::Cx;

/// Calls that take the content as given: a missing content panics or becomes a default.
const ASSUME: &[&str] = &[
    "unwrap",
    "expect",
    "unwrap_or",
    "unwrap_or_default",
    "unwrap_or_else",
    "unwrap_unchecked",
];

fn all(_: &Met) -> (Step, u8) {
    (Step::MarkThrough, 0)
}

/// Is `e` (a base of `.content` / `["content"]`) an answer from `inputResponses`?
fn is_answer(b: &Body<'_>, e: &syn::Expr) -> bool {
    let t = b.trace(e, &all);
    let word = |s: &str| s == "input_responses" || s == "inputResponses" || s == "ElicitResult";
    t.names.iter().any(|n| {
        word(n)
            || b.param_heads
                .get(n)
                .is_some_and(|h| h == "InputResponses" || h == "ElicitResult")
    }) || t.marked.iter().any(|(m, _)| m.path.iter().any(|s| word(s)))
        || t.types.iter().any(|s| word(s))
        || t.strings.iter().any(|(s, _)| word(s))
}

/// A content access inside `e`'s receiver chain: `.content`, `["content"]`, `.get("content")`.
fn content_in_chain(b: &Body<'_>, e: &syn::Expr) -> Option<Span> {
    match e {
        syn::Expr::Field(f) => {
            if matches!(&f.member, syn::Member::Named(n) if n == "content") && is_answer(b, &f.base)
            {
                return Some(f.member.span());
            }
            content_in_chain(b, &f.base)
        }
        syn::Expr::Index(i) => {
            let lit = matches!(&*i.index, syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) if s.value() == "content");
            if lit && is_answer(b, &i.expr) {
                return Some(i.index.span());
            }
            content_in_chain(b, &i.expr)
        }
        syn::Expr::MethodCall(mc) => {
            let lit = mc.method == "get"
                && matches!(mc.args.first(), Some(syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. })) if s.value() == "content");
            if lit && is_answer(b, &mc.receiver) {
                return Some(mc.args[0].span());
            }
            for a in &mc.args {
                if let syn::Expr::Closure(c) = a {
                    if let Some(s) = content_in_chain(b, &c.body) {
                        return Some(s);
                    }
                }
            }
            content_in_chain(b, &mc.receiver)
        }
        syn::Expr::Paren(p) => content_in_chain(b, &p.expr),
        syn::Expr::Reference(r) => content_in_chain(b, &r.expr),
        syn::Expr::Try(t) => content_in_chain(b, &t.expr),
        _ => None,
    }
}

pub(super) fn check(cx: &mut Cx<'_>, f: &FnView<'_>) {
    let b = &f.body;
    let assumed = (b.methods.iter()).filter(|m| crate::reading::ident_is_one_of(&m.method, ASSUME));
    // Cheapest first: with no call that assumes content, the fn's words are not collected.
    if assumed.clone().next().is_none() {
        return;
    }
    let checks_action = b
        .idents()
        .iter()
        .any(|i| i == "action" || i.to_ascii_lowercase().contains("accept"))
        || b.strings().iter().any(|s| s == "action" || s == "accept");
    if checks_action {
        return;
    }
    // One finding per fn, at the first content taken: the mistake is the missing action check.
    let first = assumed
        .filter_map(|m| content_in_chain(b, &m.receiver).map(|span| (span, m)))
        .min_by_key(|(span, _)| (span.start().line, span.start().column));
    if let Some((span, m)) = first {
        emit(
            cx,
            "MCP109",
            span,
            sdk_of(cx),
            format!(
                "the elicitation answer's `content` is taken with `{}` and its `action` is never checked: a \
decline or cancel (which carries no content) becomes a panic or a default value treated as the \
user's answer. S30: servers MUST handle decline and cancel and SHOULD NOT assume an elicitation succeeds",
                m.method
            ),
            "match on the action first: `match answer.action { ElicitationAction::Accept => /* use content */, \
ElicitationAction::Decline | ElicitationAction::Cancel => /* stop or fall back */, _ => .. }`",
        );
    }
}
