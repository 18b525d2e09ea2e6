//! Requests sent through a stored peer (MCP006 "through a stored peer"): a confirmation gate
//! behind a `&dyn Confirmer` holding the request's `Peer`, a helper struct that keeps one. No
//! step rewrite reaches them (the trait object hides who calls them), so the call becomes the
//! runtime's deferred form, with the peer's own signature and result:
//!
//! ```text
//! self.peer.elicit::<Confirm>(message)  ->  mrtr::rmcp::deferred::elicit::<Confirm>(&self.peer, message)
//! ```
//!
//! and every request handler of the crate that hands out a peer (reads `context.peer`, or takes
//! a `Peer<RoleServer>`) becomes a `#[mrtr_handler]`, whose scope the deferred ask finds at run
//! time. A gateway's relay (a `ClientHandler` forwarding an upstream's request to the agent's
//! stored peer) takes the same form: its handlers are the ones that build the relay (open the
//! upstream connection) and their callers, and the runtime finds the agent's request from the
//! relay's task by the agent's connection. On a 2026-07-28 request the round ends with an
//! `InputRequiredResult` and the client's retry runs the handler again from the top (the code
//! before the ask runs again: a gate that comes before any effect, which is what these gates say
//! they are); on a pre-2026 session, or below a handler without the scope, it is the peer's
//! request as before.

use super::handler::{self, FnSite, Kind};
use super::locate;
use super::text::range_of;
use super::{Cx, HandlerPlan};
use crate::finding::Finding;

/// The peer methods that have a deferred form (`mrtr::rmcp::deferred::*`), each with the
/// peer's own signature and result.
const DEFERRED: &[&str] = &[
    "elicit",
    "elicit_with_timeout",
    "elicit_url",
    "elicit_url_with_timeout",
    "create_elicitation",
    "create_elicitation_with_timeout",
    "create_message",
    "list_roots",
    "send_request",
];

/// Whether the requests `members` of the function `fns[at]` (not a request handler) take the
/// deferred form, and how their handlers are found: requests through a stored peer or a relay
/// always do; a legacy request below a delegate does (see [`prefers`]). `delegates` is the
/// file's, worked out once for all its helpers ([`delegates`]).
pub(super) fn reach(
    cx: &Cx,
    fns: &[FnSite],
    at: usize,
    findings: &[&Finding],
    members: &[usize],
    delegates: &std::cell::OnceCell<Vec<String>>,
) -> Option<Reach> {
    if members.iter().all(|&m| wants(findings[m])) {
        Some(Reach::ThroughItsType)
    } else if prefers(cx, fns, at, findings, members, delegates) {
        Some(Reach::ThroughItsCallers)
    } else {
        None
    }
}

/// The delegates of the hand-written handlers among `fns`: functions that take the request's
/// context by value (`RequestContext<RoleServer>`, not a reference) and that a hand-written
/// `call_tool` / `get_prompt` / `read_resource` calls (`self.call_tool_impl(request, context)`).
pub(super) fn delegates(cx: &Cx, fns: &[FnSite]) -> Vec<String> {
    let handlers: Vec<&str> = fns
        .iter()
        .filter(|h| matches!(h.kind, Kind::HandWritten(_)))
        .map(|h| body_text(cx, h))
        .collect();
    if handlers.is_empty() {
        return Vec::new();
    }
    let takes_context = |f: &FnSite| {
        f.sig.inputs.iter().any(|input| {
            matches!(input, syn::FnArg::Typed(t) if matches!(&*t.ty, syn::Type::Path(p)
                if p.path.segments.last().is_some_and(|s| s.ident == "RequestContext")))
        })
    };
    fns.iter()
        .filter(|f| !is_handler(f) && takes_context(f))
        .map(|f| f.sig.ident.to_string())
        .filter(|name| handlers.iter().any(|h| super::across::mentions(h, name)))
        .collect()
}

/// Whether the legacy request in the helper `fns[at]` is better asked in the deferred form than
/// by making the helper and its callers asking helpers: when it sits in, or is called up from, a
/// delegate of a hand-written handler ([`delegates`]). The step rewrite would cut that delegate,
/// often the whole tool dispatch, at the ask and keep each of its locals across it in the sealed
/// state (an `Instant`, a borrowed registry entry: types that cannot be); the deferred form
/// changes one call and replays the handler up to it.
fn prefers(
    cx: &Cx,
    fns: &[FnSite],
    at: usize,
    findings: &[&Finding],
    members: &[usize],
    delegates: &std::cell::OnceCell<Vec<String>>,
) -> bool {
    let has_form = members.iter().all(|&m| {
        fns[at]
            .calls()
            .path_to(findings[m].line, findings[m].column)
            .is_some_and(|path| {
                matches!(path.last(), Some(locate::Node::Expr(syn::Expr::MethodCall(mc)))
                if DEFERRED.contains(&mc.method.to_string().as_str()))
            })
    });
    if !has_form {
        return false;
    }
    let delegates = delegates.get_or_init(|| self::delegates(cx, fns));
    if delegates.is_empty() {
        return false;
    }
    let is_delegate = |f: &FnSite| delegates.contains(&f.sig.ident.to_string());
    if is_delegate(&fns[at]) {
        return true;
    }
    let mut found = false;
    walk_up(cx, fns, at, fns[at].sig.ident.to_string(), None, |_, f| {
        if is_handler(f) {
            Up::Leaf
        } else if is_delegate(f) {
            found = true;
            Up::Done
        } else {
            Up::Climb
        }
    });
    found
}

/// Whether `f` reports a request sent through a stored peer, or relayed to one by a gateway.
pub fn wants(f: &Finding) -> bool {
    use crate::rules::engine::{FORWARDED_BY_A_RELAY, THROUGH_A_STORED_PEER};
    f.code == "MCP006"
        && f.sdk.as_deref() == Some("rmcp")
        && (f.message.contains(THROUGH_A_STORED_PEER) || f.message.contains(FORWARDED_BY_A_RELAY))
}

/// Whether `f` reports a raw `ServerRequest` sent with the peer's `send_request` (MCP004), which
/// only the deferred form rewrites.
pub fn wants_raw(f: &Finding) -> bool {
    f.code == "MCP004"
        && f.sdk.as_deref() == Some("rmcp")
        && f.message.starts_with("`send_request`")
}

/// The deferred form of the requests `members` of `fns[at]` at their call sites alone, for any
/// request the compiled rewrite cannot take (see [`super::scope`]): the function may be a
/// handler, a helper of any visibility, a method behind a trait object or a macro's body. The
/// server's `impl ServerHandler` then needs the request scope (`needs_scope`). Each message names
/// what replays: the statements before the ask in its function, run again in every round.
pub(super) fn anywhere(
    cx: &Cx,
    fns: &[FnSite],
    at: usize,
    findings: &[&Finding],
    members: &[usize],
) -> Result<HandlerPlan, (usize, String)> {
    let site = &fns[at];
    let mut edits = Vec::new();
    let mut messages = Vec::new();
    // Every call of the function in one walk (a walk per finding is quadratic).
    let calls = crate::fix::find_expr::method_calls_in_block(site.block);
    let stmts = statements(cx, site);
    for &m in members {
        let f = findings[m];
        let mc = calls.get(&(f.line, f.column.saturating_sub(1))).ok_or((
            m,
            "the request is not a method call on the peer".to_string(),
        ))?;
        if super::endless::asks_forever(site.block, (f.line, f.column.saturating_sub(1))) {
            return Err((m, super::endless::WHY.to_string()));
        }
        let (edit, method) = edit_of(cx, mc).map_err(|why| (m, why))?;
        let replays = replayed_before(site, &stmts, edit.start);
        edits.push(edit);
        messages.push(format!(
            "`{method}` becomes `mrtr::rmcp::deferred::{method}` (same result; a 2026-07-28 \
retry replays up to here{replays})"
        ));
    }
    Ok(HandlerPlan {
        edits: Vec::new(),
        messages,
        imports: Vec::new(),
        self_tys: Vec::new(),
        needs_scope: true,
        own_edits: edits,
    })
}

/// The statements of `site`'s body: where each ends, and how it begins (its first line, cut to
/// 24 characters), worked out once for all the asks of the function.
fn statements(cx: &Cx, site: &FnSite) -> Vec<(usize, String)> {
    site.block
        .stmts
        .iter()
        .filter_map(|stmt| {
            let (s, e) = super::text::stmt_range(stmt, cx.idx)?;
            let first = cx.src[s..e].lines().next().unwrap_or("").trim();
            let cut: String = first.chars().take(24).collect();
            let dots = if cut.len() < first.len() { ".." } else { "" };
            Some((e, format!("`{cut}{dots}`")))
        })
        .collect()
}

/// `; re-runs `a`, `b` +n and the callers of `f`` for the statements of `site`'s body that end
/// before byte `at` (`stmts`, from [`statements`]): the first two, and how many more.
fn replayed_before(site: &FnSite, stmts: &[(usize, String)], at: usize) -> String {
    let count = stmts.partition_point(|(end, _)| *end <= at);
    let mut out = String::new();
    if count > 0 {
        let shown: Vec<&str> = stmts[..count.min(2)]
            .iter()
            .map(|(_, t)| t.as_str())
            .collect();
        out.push_str(&format!("; re-runs {}", shown.join(", ")));
        if count > 2 {
            out.push_str(&format!(" +{}", count - 2));
        }
    }
    if !is_handler(site) {
        let join = if out.is_empty() { "; re-runs" } else { " and" };
        out.push_str(&format!("{join} the callers of `{}`", site.sig.ident));
    }
    out
}

/// How the request handlers above a deferred ask are found.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Reach {
    /// Through the value that holds the peer: the functions that name a method's type (where a
    /// relay or gate is built), then their callers.
    ThroughItsType,
    /// Through the function itself, then its callers (an ask below a delegate, see [`prefers`]).
    ThroughItsCallers,
}

/// Plans the deferred requests `members` of the function `fns[at]`: each call in its deferred
/// form, and `#[mrtr_handler]` on the request handlers above it (`reach`). `Err` names the first
/// finding that cannot be planned, and why.
pub(super) fn plan(
    cx: &Cx,
    fns: &[FnSite],
    at: usize,
    findings: &[&Finding],
    members: &[usize],
    reach: Reach,
) -> Result<HandlerPlan, (usize, String)> {
    let site = &fns[at];
    let mut edits = Vec::new();
    let mut messages = Vec::new();
    for &m in members {
        let f = findings[m];
        if super::endless::asks_forever(site.block, (f.line, f.column.saturating_sub(1))) {
            return Err((m, super::endless::WHY.to_string()));
        }
        let (edit, method) = call_edit(cx, site, f).map_err(|why| (m, why))?;
        edits.push(edit);
        messages.push(format!(
            "`{method}` becomes `mrtr::rmcp::deferred::{method}` (same result; the retry runs the \
handler again up to it)"
        ));
    }
    let handlers: Vec<&FnSite> = reaching_handlers(cx, fns, at, reach)
        .into_iter()
        .map(|i| &fns[i])
        .collect();
    if handlers.is_empty() {
        let why = if cx.across {
            "no request handler of the crate reaches it (by the names of the functions that \
build or call it), so nothing would give the ask an MRTR round"
        } else {
            "the request handlers that reach it are in other files of the crate"
        };
        return Err((members[0], why.to_string()));
    }
    let mut imports = Vec::new();
    let mut self_tys = Vec::new();
    let mut names = Vec::new();
    for h in &handlers {
        if let Some(ty) = &h.self_ty {
            if !self_tys.contains(ty) {
                self_tys.push(ty.clone());
            }
        }
        if handler::is_mrtr_handler(h.attrs) {
            continue;
        }
        // The context stays: the handler still hands its peer to the code that asks.
        let (e, i) = handler::edits(h, cx, None).map_err(|why| {
            (
                members[0],
                format!(
                    "the handler `{}` cannot take `#[mrtr_handler]`: {why}",
                    h.sig.ident
                ),
            )
        })?;
        edits.extend(e);
        imports.extend(i);
        names.push(format!("`{}`", h.sig.ident));
    }
    if !names.is_empty() {
        let note = format!("; {} becomes a `#[mrtr_handler]`", names.join(", "));
        for m in &mut messages {
            m.push_str(&note);
        }
    }
    Ok(HandlerPlan {
        edits,
        messages,
        imports,
        self_tys,
        needs_scope: false,
        own_edits: Vec::new(),
    })
}

/// The method call a finding points at (its method name), in the function's body or inside a
/// macro invocation there whose tokens parse as Rust (`host_fn!(..)`, `tokio::select!`).
fn method_call_at(site: &FnSite, f: &Finding) -> Option<syn::ExprMethodCall> {
    if let Some(path) = site.calls().path_to(f.line, f.column) {
        if let Some(locate::Node::Expr(syn::Expr::MethodCall(mc))) = path.last() {
            return Some((*mc).clone());
        }
    }
    let at = proc_macro2::LineColumn {
        line: f.line,
        column: f.column.saturating_sub(1),
    };
    let found = crate::fix::find_expr::find_in_block(
        site.block,
        &|e| matches!(e, syn::Expr::MethodCall(mc) if mc.method.span().start() == at),
    )?;
    match found {
        syn::Expr::MethodCall(mc) => Some(mc),
        _ => None,
    }
}

/// `RECV.METHOD::<T>(ARGS)` -> `mrtr::rmcp::deferred::METHOD::<T>(&RECV, ARGS)`.
fn call_edit(
    cx: &Cx,
    site: &FnSite,
    f: &Finding,
) -> Result<(crate::finding::Edit, String), String> {
    let mc = method_call_at(site, f).ok_or("the request is not a method call on the peer")?;
    edit_of(cx, &mc)
}

/// [`call_edit`] of a call already found.
fn edit_of(cx: &Cx, mc: &syn::ExprMethodCall) -> Result<(crate::finding::Edit, String), String> {
    let method = mc.method.to_string();
    if !DEFERRED.contains(&method.as_str()) {
        return Err(format!("`{method}` has no deferred form in the runtime"));
    }
    let text = |node: &dyn quote::ToTokens| -> Result<&str, String> {
        let tokens = node.to_token_stream();
        let (s, e) =
            super::text::range_of_tokens(tokens, cx.idx).ok_or("a node without a position")?;
        Ok(&cx.src[s..e])
    };
    let receiver = text(&*mc.receiver)?;
    let turbofish = match &mc.turbofish {
        Some(t) => text(t)?,
        None => "",
    };
    let args = mc
        .args
        .iter()
        .map(|a| text(a))
        .collect::<Result<Vec<_>, _>>()?;
    let mut call = format!("mrtr::rmcp::deferred::{method}{turbofish}(&{receiver}");
    for a in args {
        call.push_str(", ");
        call.push_str(a);
    }
    call.push(')');
    let (s, e) = range_of(mc, cx.idx).ok_or("a call without a position")?;
    Ok((cx.idx.edit(s, e, call), method))
}

/// The request handlers (`#[tool]`s, hand-written `call_tool` / `get_prompt` /
/// `read_resource`) from which `fns[at]` can be reached, by name: the functions that name its
/// type (a method's: where the value holding the peer is built) or the function itself, then
/// their callers, up to the handlers. Calls are matched by name, so a name used twice widens the
/// set (a handler more gets the scope, which costs nothing when it never asks).
fn reaching_handlers(cx: &Cx, fns: &[FnSite], at: usize, reach: Reach) -> Vec<usize> {
    let site = &fns[at];
    let by_type = match reach {
        Reach::ThroughItsType => site.self_ty.clone(),
        Reach::ThroughItsCallers => None,
    };
    let first = by_type
        .clone()
        .unwrap_or_else(|| site.sig.ident.to_string());
    let mut handlers = Vec::new();
    // The type's own methods build nothing new: its constructor is called from outside.
    walk_up(cx, fns, at, first, by_type.as_deref(), |i, f| {
        if is_handler(f) {
            handlers.push(i);
            Up::Leaf
        } else {
            Up::Climb
        }
    });
    handlers
}

fn is_handler(f: &FnSite) -> bool {
    matches!(f.kind, Kind::Tool | Kind::HandWritten(_))
}

fn body_text<'s>(cx: &Cx<'s>, f: &FnSite) -> &'s str {
    super::text::block_range(f.block, cx.idx).map_or("", |(s, e)| &cx.src[s..e])
}

/// What [`walk_up`] does at a function that names the one below it.
enum Up {
    /// Go on up through its callers.
    Climb,
    /// Stop here (a request handler).
    Leaf,
    /// Stop the whole walk.
    Done,
}

/// Walks up the calls by name from `fns[at]`: the functions whose body names `first` (the
/// function's own name, or a type's, where a value holding a peer is built), then the ones
/// naming those, each function once; `visit` says at each whether to climb on. The methods of
/// `own_type` and `fns[at]` itself are never visited. Calls are matched by name, so a name used
/// twice widens the walk.
fn walk_up(
    cx: &Cx,
    fns: &[FnSite],
    at: usize,
    first: String,
    own_type: Option<&str>,
    mut visit: impl FnMut(usize, &FnSite) -> Up,
) {
    let mut names = vec![first];
    let mut seen = vec![false; fns.len()];
    seen[at] = true;
    let mut k = 0;
    while k < names.len() {
        let name = names[k].clone();
        k += 1;
        for (i, f) in fns.iter().enumerate() {
            if seen[i] || (own_type.is_some() && f.self_ty.as_deref() == own_type) {
                continue;
            }
            if !super::across::mentions(body_text(cx, f), &name) {
                continue;
            }
            seen[i] = true;
            match visit(i, f) {
                Up::Climb => names.push(f.sig.ident.to_string()),
                Up::Leaf => {}
                Up::Done => return,
            }
        }
    }
}
