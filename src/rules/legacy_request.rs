//! MCP001 legacy-elicitation-request, MCP002 legacy-sampling-request, MCP003 legacy-roots-request,
//! and MCP006 request-outside-mrtr-scope for the same calls where MRTR cannot reach.

use super::receiver::server_peer;
use crate::model::callgraph::HandlerKind;
use crate::model::manifest::Dependency;
use crate::model::scope::{Kind, Origin};
use crate::model::sdk::{Generics, RequestMethod, SdkTable, SDKS};
use crate::reading::name;
use crate::rules::engine::{Cx, Draft, Placement, Rule};

pub struct LegacyRequest;

impl Rule for LegacyRequest {
    fn codes(&self) -> &'static [&'static str] {
        &["MCP001", "MCP002", "MCP003", "MCP006"]
    }

    fn check_expr(&self, cx: &mut Cx<'_>, expr: &syn::Expr) {
        match expr {
            syn::Expr::MethodCall(mc) => {
                let name = name::of(&mc.method);
                for sdk in SDKS {
                    // One entry per arity and version line; the call's shape picks the candidates.
                    let shaped: Vec<&RequestMethod> = sdk
                        .request_methods_named(&name)
                        .filter(|m| {
                            mc.args.len() == m.arity
                                && !(m.generics == Generics::None && mc.turbofish.is_some())
                        })
                        .collect();
                    if shaped.is_empty() {
                        continue;
                    }
                    let v = cx.value_of(&mc.receiver);
                    if server_peer(cx, sdk, &v).is_some() {
                        // The receiver is this SDK's: its version decides, no other SDK gets a say
                        // (neva 0.5's unkeyed `elicit` is not mcpkit's).
                        let dep = cx.facts().dependency(sdk).cloned();
                        if let Some(m) = shaped.into_iter().find(|m| m.legacy.applies(dep.as_ref()))
                        {
                            report(cx, sdk, m, dep.as_ref(), mc.method.span(), v.origin);
                        }
                        return;
                    }
                }
                wrapper_call(cx, mc, &name);
            }
            // `Peer::create_message(&peer, params)`.
            syn::Expr::Call(c) => {
                let syn::Expr::Path(p) = &*c.func else { return };
                let segs = &p.path.segments;
                if segs.len() < 2 || c.args.is_empty() {
                    return;
                }
                let name = name::of(&segs[segs.len() - 1].ident);
                let ty = name::of(&segs[segs.len() - 2].ident);
                for sdk in SDKS {
                    if cx.facts().absent(sdk) {
                        continue;
                    }
                    if !sdk
                        .request_methods_named(&name)
                        .any(|m| c.args.len() == m.arity + 1)
                    {
                        continue;
                    }
                    let real = cx
                        .facts()
                        .imports
                        .get(&*ty)
                        .map_or(&*ty, |i| i.name.as_str());
                    let is_peer = sdk.peer_types.iter().any(|t| t.name == real);
                    if is_peer && !cx.facts().local_types.contains(&*ty) {
                        let v = cx.value_of(&c.args[0]);
                        let dep = cx.facts().dependency(sdk).cloned();
                        let legacy = sdk.request_methods_named(&name).find(|m| {
                            c.args.len() == m.arity + 1 && m.legacy.applies(dep.as_ref())
                        });
                        if let (Some(m), true) = (
                            legacy,
                            cx.context().kind != crate::model::callgraph::HandlerKind::Client,
                        ) {
                            report(
                                cx,
                                sdk,
                                m,
                                dep.as_ref(),
                                segs[segs.len() - 1].ident.span(),
                                v.origin,
                            );
                        }
                        return;
                    }
                }
            }
            _ => {}
        }
    }
}

/// A call of the server's own asking method (`ctx.elicit::<Confirm>(..)` where `ctx` is the
/// server's `ToolContext`, whose `elicit` calls rmcp's peer inside; `model/wrappers.rs`): the
/// call site is reported like a call of the SDK method, naming the wrapper. Only names of SDK
/// request methods are looked up, and only on receivers that are not an SDK's peer or context.
fn wrapper_call(cx: &mut Cx<'_>, mc: &syn::ExprMethodCall, name: &str) {
    if cx.context().kind == HandlerKind::Client
        || !SDKS
            .iter()
            .any(|s| s.request_methods_named(name).next().is_some())
    {
        return;
    }
    let v = cx.value_of(&mc.receiver);
    let Some(w) = cx.facts().asking_wrapper(name).cloned() else {
        return;
    };
    match &v.kind {
        // A peer's own call was the SDK loop's to decide; a client's context asks nothing. (A
        // server context here is the wrapper itself: `ToolContext::new(context)` reads as the
        // context it wraps.)
        Kind::Peer { .. } | Kind::Handler(_) => return,
        Kind::Context {
            side: Some(crate::model::sdk::Side::Client),
            ..
        } => return,
        Kind::SelfOf(Some(t)) if *t != w.owner => return,
        // The wrapper's own body calling the SDK method of the same name through `self.peer`
        // (untyped) is the inner call, not a call of the wrapper.
        _ if cx.context().name == name && receiver_is_self_field(&mc.receiver) => return,
        _ => {}
    }
    let Some(m) = w.sdk.request_methods_named(w.inner).next() else {
        return;
    };
    let wire = w.sends.wire();
    let span = mc.method.span();
    let draft = match cx.placement(v.origin) {
        Placement::Reachable => Draft {
            code: w.sends.legacy_code(),
            first: span,
            last: span,
            message: format!(
                "`{name}` of `{}` (the server's own wrapper over {}'s `{}`) sends `{wire}` to the \
client in the middle of a request; on 2026-07-28 the server must return an \
`InputRequiredResult` instead",
                w.owner, w.sdk.name, w.inner
            ),
            mcp_method: Some(w.sends),
            sdk: Some(w.sdk.name),
            help: Some(format!(
                "{} (the call site and the wrapper `{}::{name}` change together)",
                m.replacement, w.owner
            )),
        },
        Placement::Unreachable(why, _) => Draft {
            code: super::UNREACHABLE,
            first: span,
            last: span,
            message: format!(
                "`{name}` of `{}` (the server's own wrapper over {}'s `{}`) sends `{wire}` {why}; \
MRTR cannot reach it, so this needs a redesign, not a mechanical rewrite",
                w.owner, w.sdk.name, w.inner
            ),
            mcp_method: Some(w.sends),
            sdk: Some(w.sdk.name),
            help: Some(w.sdk.redesign_help(w.sends).to_string()),
        },
    };
    cx.emit(draft);
}

fn receiver_is_self_field(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Field(f) => matches!(&*f.base, syn::Expr::Path(p) if p.path.is_ident("self")),
        syn::Expr::MethodCall(mc) => receiver_is_self_field(&mc.receiver),
        syn::Expr::Await(a) => receiver_is_self_field(&a.base),
        syn::Expr::Paren(p) => receiver_is_self_field(&p.expr),
        syn::Expr::Reference(r) => receiver_is_self_field(&r.expr),
        _ => false,
    }
}

/// `" (neva 0.3.4)"` when the SDK's messages name the version the decision was made for.
pub(super) fn version_note(sdk: &SdkTable, dep: Option<&Dependency>) -> String {
    match dep {
        Some(d) if sdk.version_in_message && d.version.is_some() => format!(" ({})", d.describe()),
        _ => String::new(),
    }
}

fn report(
    cx: &mut Cx<'_>,
    sdk: &SdkTable,
    m: &RequestMethod,
    dep: Option<&Dependency>,
    span: proc_macro2::Span,
    origin: Origin,
) {
    let wire = m.wire();
    let note = version_note(sdk, dep);
    let draft = match cx.placement(origin) {
        Placement::Reachable => Draft {
            code: m.sends.legacy_code(),
            first: span,
            last: span,
            message: format!(
                "`{}`{note} sends `{wire}` to the client in the middle of a request; on 2026-07-28 the \
server must return an `InputRequiredResult` instead",
                m.name
            ),
            mcp_method: Some(m.sends),
            sdk: Some(sdk.name),
            help: Some(m.replacement.to_string()),
        },
        Placement::Unreachable(why, place) => {
            // rmcp's peer calls have a deferred form (`mrtr::rmcp::deferred`), which reaches a
            // stored peer below a `#[mrtr_handler]`, and from a gateway's relay the agent's
            // request in flight on its connection.
            let (tail, help) = match (sdk.name == "rmcp", place) {
                (true, super::engine::Unreached::StoredPeer) => (
                    "no step of a request handler reaches it, but the runtime's deferred ask does",
                    format!(
                        "send it with `mrtr::rmcp::deferred::{}(&peer, ..)` (the peer's own \
signature and result) and make the request handlers that reach it `#[mrtr_handler]`s; `--fix \
--unsafe-fixes` writes both",
                        m.name
                    ),
                ),
                (true, super::engine::Unreached::Relay) => (
                    "no step of a request handler reaches it, but the runtime's deferred ask does, \
from the relay's task",
                    format!(
                        "relay it with `mrtr::rmcp::deferred::{}(&downstream, ..)` (the peer's own \
signature and result) and make the request handlers that forward to the upstream \
`#[mrtr_handler]`s: a 2026-07-28 agent then gets the upstream's question in an \
`InputRequiredResult`, and the upstream's tool runs again up to it when the agent retries; \
`--fix --unsafe-fixes` writes both",
                        m.name
                    ),
                ),
                _ => (
                    "MRTR cannot reach it, so this needs a redesign, not a mechanical rewrite",
                    sdk.redesign_help(m.sends).to_string(),
                ),
            };
            Draft {
                code: super::UNREACHABLE,
                first: span,
                last: span,
                message: format!("`{}`{note} sends `{wire}` {why}; {tail}", m.name),
                mcp_method: Some(m.sends),
                sdk: Some(sdk.name),
                help: Some(help),
            }
        }
    };
    cx.emit(draft);
}
