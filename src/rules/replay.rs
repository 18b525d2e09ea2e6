//! MCP007 effect-before-deferred-ask: a deferred ask (`mrtr::rmcp::deferred::*`, or a hand-rolled
//! server's `mrtr::jsonrpc::Question::..(..).or_send(..)`) preceded in its function by an effect
//! that is not idempotent. On a 2026-07-28 request a deferred ask ends
//! the round, and the client's retry runs the request again from the top: every statement
//! before the ask runs once per round. A read or a validation may; a write, a send, a spawned
//! task or a counter then happens twice.
//!
//! Precision over recall: an effect is a call whose name says it changes the world outside the
//! function (a file or process written, a message sent, a task spawned, an atomic or shared
//! counter changed, a value stored into `self` or a static), or a compound assignment to a field
//! or a static. Work on locals (a `Vec` pushed, a map of the function's own) is rebuilt by the
//! replay and stays quiet, and so does logging.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::visit::Visit;

use crate::rules::engine::{Cx, Draft, Rule};

pub struct Replay;

/// The runtime's deferred asks.
const DEFERRED_ASKS: &[&str] = &[
    "elicit",
    "elicit_with_timeout",
    "create_elicitation",
    "create_elicitation_with_timeout",
    "create_message",
    "list_roots",
    "send_request",
];

/// Method names that change the world whatever their receiver.
const ALWAYS_EFFECTS: &[&str] = &[
    "write_all",
    "send",
    "try_send",
    "send_notification",
    "post",
    "put",
    "patch",
    "delete",
    "execute",
    "spawn",
    "spawn_blocking",
    "fetch_add",
    "fetch_sub",
    "fetch_or",
    "fetch_and",
    "publish",
    "output",
    "status",
    "commit",
    "remove_file",
    "remove_dir_all",
    "create_dir_all",
    "rename",
];

/// Method names that change state when called on `self`, a field or a static (not a local).
const SHARED_EFFECTS: &[&str] = &[
    "write",
    "insert",
    "push",
    "push_back",
    "remove",
    "store",
    "set",
    "clear",
    "extend",
    "incr",
];

/// Free functions (the path's last segment) that change the world.
const EFFECT_FNS: &[&str] = &[
    "spawn",
    "spawn_blocking",
    "write",
    "remove_file",
    "remove_dir_all",
    "create_dir_all",
    "rename",
    "copy",
];

impl Rule for Replay {
    fn codes(&self) -> &'static [&'static str] {
        &["MCP007"]
    }

    fn check_fn(&self, cx: &mut Cx<'_>, sig: &syn::Signature, block: &syn::Block) {
        if cx.in_test_code() || !names_a_deferred_ask(cx, block) {
            return;
        }
        let mut seen = Seen::default();
        seen.visit_block(block);
        if seen.asks.is_empty() {
            return;
        }
        let name = sig.ident.to_string();
        for (ask, ask_span) in seen.asks {
            let at = ask_span.start();
            let before: Vec<&(String, Span)> = seen
                .effects
                .iter()
                .filter(|(_, s)| {
                    let end = s.end();
                    (end.line, end.column) <= (at.line, at.column)
                })
                .collect();
            let Some((first, first_span)) = before.first() else {
                continue;
            };
            let more = match before.len() {
                1 => String::new(),
                n => format!(" and {} more", n - 1),
            };
            cx.emit(Draft {
                code: "MCP007",
                first: *first_span,
                last: *first_span,
                message: format!(
                    "`{first}`{more} runs before the deferred `{ask}` in `{name}`: on a 2026-07-28 \
request the retry replays the request up to the ask, so this runs again in every round"
                ),
                mcp_method: None,
                sdk: Some(if ask.starts_with("Question") {
                    "raw"
                } else {
                    "rmcp"
                }),
                help: Some(
                    "move the effect after the ask (ask first, then act), make it idempotent \
(keyed by the request), or migrate the handler to `#[mrtr_handler]`, whose finished steps never \
run again"
                        .to_string(),
                ),
            });
        }
    }
}

/// Whether the body's text names `deferred::` at all: a substring test over the function's own
/// bytes, so the walk below runs only for the few functions that can hold a deferred ask (the
/// rule is asked at every function of every file the prefilter admits).
fn names_a_deferred_ask(cx: &Cx<'_>, block: &syn::Block) -> bool {
    let idx = cx.line_index();
    let (open, close) = (
        block.brace_token.span.open(),
        block.brace_token.span.close(),
    );
    let (s, e) = (open.start(), close.end());
    let start = idx.offset(s.line, s.column);
    let end = idx.offset(e.line, e.column);
    idx.text()
        .get(start..end)
        .is_some_and(|body| body.contains("deferred::") || body.contains(".or_send("))
}

#[derive(Default)]
struct Seen {
    /// `mrtr::rmcp::deferred::NAME(..)` calls: the name and the call's span.
    asks: Vec<(String, Span)>,
    /// Effects: how they read (a short name) and their span.
    effects: Vec<(String, Span)>,
}

impl<'ast> Visit<'ast> for Seen {
    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        if let syn::Expr::Path(p) = &*c.func {
            let segs: Vec<String> = p
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            if let [.., d, last] = segs.as_slice() {
                if d == "deferred" && DEFERRED_ASKS.contains(&last.as_str()) {
                    self.asks.push((last.clone(), c.span()));
                } else if EFFECT_FNS.contains(&last.as_str()) && !is_local_name(d) {
                    self.effects.push((format!("{d}::{last}"), c.span()));
                }
            }
        }
        syn::visit::visit_expr_call(self, c);
    }

    fn visit_expr_method_call(&mut self, mc: &'ast syn::ExprMethodCall) {
        if crate::model::request_helpers::is_deferred_question(mc) {
            self.asks.push(("Question::or_send".into(), mc.span()));
        }
        let name = mc.method.to_string();
        if ALWAYS_EFFECTS.contains(&name.as_str())
            || (SHARED_EFFECTS.contains(&name.as_str()) && is_shared(&mc.receiver))
        {
            self.effects
                .push((format!(".{name}(..)"), mc.method.span()));
        }
        syn::visit::visit_expr_method_call(self, mc);
    }

    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        if is_shared_place(&a.left) {
            self.effects.push(("an assignment".into(), a.span()));
        }
        syn::visit::visit_expr_assign(self, a);
    }

    fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
        use syn::BinOp::*;
        if matches!(
            b.op,
            AddAssign(_) | SubAssign(_) | MulAssign(_) | BitOrAssign(_)
        ) && is_shared_place(&b.left)
        {
            self.effects.push(("a counter".into(), b.span()));
        }
        syn::visit::visit_expr_binary(self, b);
    }

    fn visit_expr(&mut self, e: &'ast syn::Expr) {
        // The write a migrated exchange guards runs on older requests only: no round repeats it.
        if let Some(parts) = crate::model::request_helpers::unguarded_parts(e) {
            for part in parts {
                self.visit_expr(part);
            }
            return;
        }
        syn::visit::visit_expr(self, e);
    }

    // Closures and nested fns run elsewhere (or not at all): not before the ask.
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}

    fn visit_macro(&mut self, _: &'ast syn::Macro) {}
}

/// A path's module segment that names a local type's associated fn rather than a module of
/// effects (`Vec::write` does not exist; `fs::write`, `tokio::spawn`, `thread::spawn` do).
fn is_local_name(segment: &str) -> bool {
    segment
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_uppercase())
        && !matches!(segment, "Command" | "File")
}

/// Whether a receiver reaches state that outlives the request: `self` or a static (an
/// upper-case name), or a field of one, through locks and references.
fn is_shared(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Path(p) => p.path.segments.last().is_some_and(|s| {
            s.ident == "self"
                || s.ident
                    .to_string()
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c == '_' || c.is_ascii_digit())
        }),
        syn::Expr::Field(f) => is_shared(&f.base),
        syn::Expr::MethodCall(mc) => {
            matches!(
                mc.method.to_string().as_str(),
                "lock" | "write" | "read" | "borrow_mut" | "unwrap" | "expect" | "as_ref"
            ) && is_shared(&mc.receiver)
        }
        syn::Expr::Await(a) => is_shared(&a.base),
        syn::Expr::Try(t) => is_shared(&t.expr),
        syn::Expr::Reference(r) => is_shared(&r.expr),
        syn::Expr::Paren(p) => is_shared(&p.expr),
        syn::Expr::Unary(u) => is_shared(&u.expr),
        _ => false,
    }
}

/// An assignment's place that outlives the request: a field of `self` or a static.
fn is_shared_place(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Field(f) => is_shared(&f.base),
        syn::Expr::Unary(u) => is_shared(&u.expr),
        syn::Expr::Path(_) => {
            is_shared(e) && !matches!(e, syn::Expr::Path(p) if p.path.is_ident("self"))
        }
        _ => false,
    }
}
