//! The ask at its call site: a hand-built request sent through the server's own requester
//! (MCP004 "through `send_request`") becomes the runtime's SDK-neutral deferred form, which
//! returns what the send returned and needs none of the server's types:
//!
//! ```text
//! self.requester.send_request("elicitation/create", params).await
//!   -> mrtr::jsonrpc::Question::new("elicitation/create", params)
//!          .or_send(|params| self.requester.send_request("elicitation/create", params)).await
//! ```
//!
//! The send stays, as the closure: it is what runs on a pre-2026 request and wherever no scope
//! runs the code. What it needs is a place the closure can borrow for as long as the send runs
//! (a path, a field, a dereference), the method as a literal argument, and at most one other
//! argument that is not a plain value (the params, evaluated once, before the send as before).

use quote::ToTokens;
use syn::visit::Visit;

use crate::finding::{Applicability, Edit, Finding, Fix};
use crate::reading::source::LineIndex;

/// The methods a 2026-07-28 server asks in `inputRequests` instead of sending.
const ASKS: &[&str] = &["elicitation/create", "sampling/createMessage", "roots/list"];

/// The name the fixed code gives the params inside the closure.
const PARAMS: &str = "params";

/// The fix's message: one short line (the long explanation is the rule's documentation).
const MESSAGE: &str = "the send becomes `mrtr::jsonrpc::Question::new(..).or_send(..)` (on \
2026-07-28 answered in the client's retry, the code before it runs again; sent as before \
elsewhere); the dispatch arm gets `mrtr::jsonrpc::RequestScope`; adds `mrtr` to `[dependencies]`";

/// Whether `f` is a hand-built request this tier can fix: one sent through a named sender.
pub fn wants(f: &Finding) -> bool {
    f.code == "MCP004"
        && f.fix.is_none()
        && f.mcp_method.as_deref().is_some_and(|m| ASKS.contains(&m))
        && f.message.contains("(through `")
}

/// The fix of each wanted finding of `file`, by its position: the awaited send whose method
/// literal the finding points at. A send the tier cannot rewrite gets none (the finding keeps
/// its advice).
pub fn plan(idx: &LineIndex, file: &syn::File, findings: &mut [Finding]) {
    if !findings.iter().any(wants) {
        return;
    }
    let mut sends = Sends {
        idx,
        found: Vec::new(),
    };
    sends.visit_file(file);
    for f in findings.iter_mut().filter(|f| wants(f)) {
        let at = idx.offset(f.line, f.column.saturating_sub(1));
        let Some((_, edit)) = sends.found.iter().find(|(lit, _)| *lit == at) else {
            continue;
        };
        let Ok(edit) = edit else {
            continue;
        };
        f.fix = Some(Fix {
            applicability: Applicability::Unsafe,
            message: MESSAGE.to_string(),
            edits: vec![edit.clone()],
            other_files: Vec::new(),
        });
    }
}

/// The awaited sends of a file, by the offset of their method literal.
struct Sends<'a> {
    idx: &'a LineIndex<'a>,
    found: Vec<(usize, Result<Edit, String>)>,
}

impl<'ast> Visit<'ast> for Sends<'_> {
    fn visit_expr_await(&mut self, node: &'ast syn::ExprAwait) {
        if let Some((lit, edit)) = send_edit(self.idx, &node.base) {
            self.found.push((lit, edit));
        }
        syn::visit::visit_expr_await(self, node);
    }
}

/// The offset of the method literal of `call` (a send of one of [`ASKS`]) and its rewrite.
fn send_edit(idx: &LineIndex, call: &syn::Expr) -> Option<(usize, Result<Edit, String>)> {
    let (args, callee): (Vec<&syn::Expr>, Callee) = match call {
        syn::Expr::MethodCall(mc) => (mc.args.iter().collect(), Callee::Method(mc)),
        syn::Expr::Call(c) => (c.args.iter().collect(), Callee::Function(c)),
        _ => return None,
    };
    let (at, method, lit) = args.iter().enumerate().find_map(|(i, a)| {
        let syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) = a
        else {
            return None;
        };
        ASKS.contains(&s.value().as_str())
            .then(|| (i, s.value(), s))
    })?;
    let start = lit.span().start();
    let lit_at = idx.offset(start.line, start.column);
    Some((lit_at, rewrite(idx, call, &callee, &args, at, &method)))
}

enum Callee<'a> {
    Method(&'a syn::ExprMethodCall),
    Function(&'a syn::ExprCall),
}

fn rewrite(
    idx: &LineIndex,
    call: &syn::Expr,
    callee: &Callee,
    args: &[&syn::Expr],
    method_at: usize,
    method: &str,
) -> Result<Edit, String> {
    let src = idx.text();
    let text = |node: &dyn ToTokens| -> Result<&str, String> {
        let (s, e) = crate::fix::rmcp::text::range_of_tokens(node.to_token_stream(), idx)
            .ok_or("a node without a position")?;
        Ok(&src[s..e])
    };
    // The params: the one argument that is not a plain value; the others are read again inside
    // the closure, which changes nothing for a path or a literal.
    let others: Vec<usize> = (0..args.len()).filter(|&i| i != method_at).collect();
    let computed: Vec<usize> = others
        .iter()
        .copied()
        .filter(|&i| !plain(args[i]))
        .collect();
    let params_at = match (computed.as_slice(), others.as_slice()) {
        ([one], _) => Some(*one),
        ([], []) => None,
        ([], [first, ..]) => Some(*first),
        _ => return Err("the send takes more than one computed argument".into()),
    };
    let mut inner_args = Vec::new();
    for (i, a) in args.iter().enumerate() {
        inner_args.push(if Some(i) == params_at {
            PARAMS.to_string()
        } else {
            text(*a)?.to_string()
        });
    }
    let params = match params_at {
        Some(i) => text(args[i])?,
        None => "()",
    };
    let send = match callee {
        Callee::Method(mc) => {
            if !place(&mc.receiver) {
                return Err(
                    "the requester is a value made for this send, not a place the \
                            closure can borrow"
                        .into(),
                );
            }
            let turbofish = mc.turbofish.as_ref().map(|t| text(t)).transpose()?;
            // A place has no whitespace that matters: the receiver's line breaks go.
            let receiver: String = text(&*mc.receiver)?.split_whitespace().collect();
            format!(
                "{}.{}{}({})",
                receiver,
                mc.method,
                turbofish.unwrap_or(""),
                inner_args.join(", ")
            )
        }
        Callee::Function(c) => format!("{}({})", text(&*c.func)?, inner_args.join(", ")),
    };
    let binder = if params_at.is_some() { PARAMS } else { "_" };
    let replacement =
        format!("mrtr::jsonrpc::Question::new({method:?}, {params}).or_send(|{binder}| {send})");
    let (s, e) = crate::fix::rmcp::text::range_of(call, idx).ok_or("a call without a position")?;
    Ok(idx.edit(s, e, replacement))
}

/// A value the closure can read again: a path, a literal, a field of one, a reference to one.
fn plain(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Path(_) | syn::Expr::Lit(_) => true,
        syn::Expr::Field(f) => plain(&f.base),
        syn::Expr::Reference(r) => plain(&r.expr),
        syn::Expr::Paren(p) => plain(&p.expr),
        _ => false,
    }
}

/// A place the closure can borrow for as long as the send it returns runs.
fn place(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Path(_) => true,
        syn::Expr::Field(f) => place(&f.base),
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => place(&u.expr),
        syn::Expr::Paren(p) => place(&p.expr),
        _ => false,
    }
}
