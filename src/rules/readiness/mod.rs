//! MCP301-MCP304, 2026-07-28 readiness: what a server loses beyond the three server-to-client
//! requests. Sessions (MCP301), the `initialize` handshake (MCP302), `ping`, roots
//! list-changed and resource subscriptions (MCP303) are gone; logging, roots and sampling are
//! deprecated (MCP304). What each SDK calls these is data (`model::sdk::readiness`); one
//! submodule per code decides.
//!
//! The engine runs them everywhere; the gate reports them by default only for packages that
//! target 2026-07-28 (see `gate::config::Resolved::filter`). Test code and client code are quiet.

mod deprecated;
mod handshake;
mod removed;
mod session;

use proc_macro2::Span;

use crate::model::callgraph::HandlerKind;
use crate::model::sdk::readiness::{self as data, RawKind, SdkReadiness};
use crate::model::sdk::{McpMethod, SdkTable, SDKS};
use crate::rules::engine::{Cx, Draft, Rule};
use crate::rules::receiver::server_peer;

/// The readiness rules, MCP301 to MCP304.
pub struct Readiness;

/// Their codes, in order: what a `migrate` report lists as "also needed for 2026-07-28".
pub const CODES: &[&str] = &["MCP301", "MCP302", "MCP303", "MCP304"];

impl Rule for Readiness {
    fn codes(&self) -> &'static [&'static str] {
        CODES
    }

    fn check_fn(&self, cx: &mut Cx<'_>, sig: &syn::Signature, block: &syn::Block) {
        if quiet(cx) {
            return;
        }
        let Some((sdk, ready)) = enclosing_handler(cx) else {
            return;
        };
        let name = &sig.ident;
        if crate::reading::ident_is_one_of(name, ready.handshake_hooks) {
            handshake::hook(cx, sdk, ready, sig, block);
        } else if let Some(item) = ready.removed_handlers.iter().find(|i| name == i.name) {
            removed::handler(cx, sdk, item, name.span());
        } else if let Some(item) = ready.deprecated_handlers.iter().find(|i| name == i.name) {
            deprecated::handler(cx, sdk, item, name.span());
        }
    }

    fn check_expr(&self, cx: &mut Cx<'_>, expr: &syn::Expr) {
        match expr {
            syn::Expr::MethodCall(mc) => {
                // Compared in place first: this runs at every call of every admitted file.
                if session::HEADER_LOOKUPS.iter().any(|n| mc.method == n) {
                    // `get` is at every other call: only a session header literal or constant
                    // as its argument goes further.
                    if mc.args.len() == 1 && session::may_name_header(&mc.args[0]) && !quiet(cx) {
                        session::method_call(cx, mc);
                    }
                    return;
                }
                if !call_name(&mc.method) || quiet(cx) {
                    return;
                }
                session::method_call(cx, mc);
                on_server_handle(cx, mc);
                deprecated::builder(cx, mc);
            }
            syn::Expr::Path(p)
                if p.path.segments.len() >= 2 && variant_name(&p.path) && !quiet(cx) =>
            {
                removed::request_variant(cx, &p.path);
                deprecated::input_request(cx, &p.path);
            }
            syn::Expr::Struct(s) if !quiet(cx) => session::config_literal(cx, s),
            syn::Expr::Match(m) if !quiet(cx) => raw_dispatch(cx, m),
            _ => {}
        }
    }

    fn check_type(&self, cx: &mut Cx<'_>, ty: &syn::Type) {
        if let syn::Type::Path(tp) = ty {
            session::keyed_map(cx, &tp.path);
        }
    }
}

/// Test code (unless `report-test-code`) and client code have nothing to migrate here.
fn quiet(cx: &Cx<'_>) -> bool {
    (cx.in_test_code() && !cx.facts().report_test_code)
        || cx.context().kind == HandlerKind::Client
        || cx.facts().in_sdk_itself()
}

/// The SDK whose server handler trait the enclosing impl implements, with its readiness data.
fn enclosing_handler(cx: &Cx<'_>) -> Option<(&'static SdkTable, &'static SdkReadiness)> {
    if !matches!(
        cx.context().kind,
        HandlerKind::Hook | HandlerKind::OtherRequest | HandlerKind::MrtrRequest
    ) {
        return None;
    }
    let handler = cx.state.impls.last()?.handler?;
    let sdk = SDKS
        .iter()
        .copied()
        .find(|s| s.handler_traits.iter().any(|t| std::ptr::eq(t, handler)))?;
    let ready = data::of(sdk.name)?;
    (ready.handler_trait == handler.name).then_some((sdk, ready))
}

/// Whether some SDK's readiness data names a method of this name (a handle method, a builder or a
/// session setter), or it is a header look-up.
fn call_name(ident: &syn::Ident) -> bool {
    data::READINESS.iter().any(|r| {
        r.handshake_reads.iter().any(|i| ident == i.name)
            || r.removed_sends.iter().any(|i| ident == i.name)
            || r.deprecated_sends.iter().any(|i| ident == i.name)
            || r.deprecated_builders.iter().any(|i| ident == i.name)
            || r.session_config.setters.iter().any(|n| ident == n)
    })
}

/// Whether the path's last segment is a variant some SDK's data names (`PingRequest`,
/// `CreateMessage`).
fn variant_name(path: &syn::Path) -> bool {
    let Some(last) = path.segments.last() else {
        return false;
    };
    data::READINESS.iter().any(|r| {
        r.removed_requests.iter().any(|i| last.ident == i.name)
            || r.deprecated_input_requests
                .iter()
                .any(|(n, _)| last.ident == n)
    })
}

/// A call on the server's handle on its client: a read of what `initialize` said (MCP302), a
/// removed send (MCP303), a deprecated one (MCP304).
fn on_server_handle(cx: &mut Cx<'_>, mc: &syn::ExprMethodCall) {
    let mut value = None;
    for sdk in SDKS {
        let Some(ready) = data::of(sdk.name) else {
            continue;
        };
        let read = ready.handshake_reads.iter().find(|i| mc.method == i.name);
        let removed = ready.removed_sends.iter().find(|i| mc.method == i.name);
        let deprecated = ready
            .deprecated_sends
            .iter()
            .find(|i| mc.method == i.name && mc.args.len() == i.arity);
        if read.is_none() && removed.is_none() && deprecated.is_none() {
            continue;
        }
        // Reads and removed sends take no argument (`peer_info()`, `ping()`).
        if (read.is_some() || removed.is_some()) && !mc.args.is_empty() {
            continue;
        }
        let v = value
            .get_or_insert_with(|| cx.value_of(&mc.receiver))
            .clone();
        if server_peer(cx, sdk, &v).is_none() {
            continue;
        }
        if let Some(item) = read {
            handshake::read(cx, sdk, item, mc.method.span());
        } else if let Some(item) = removed {
            removed::send(cx, sdk, item, mc.method.span());
        } else if let Some(item) = deprecated {
            deprecated::send(cx, sdk, item, mc.method.span());
        }
        return;
    }
}

/// A hand-written dispatcher (`match method { "tools/call" => .., "ping" => .. }`): arms for
/// methods 2026-07-28 removed or deprecated.
fn raw_dispatch(cx: &mut Cx<'_>, m: &syn::ExprMatch) {
    let mut literals: Vec<&syn::LitStr> = Vec::new();
    for arm in &m.arms {
        arm_literals(&arm.pat, &mut literals);
    }
    if !literals
        .iter()
        .any(|l| data::DISPATCH_MARKERS.contains(&l.value().as_str()))
    {
        return;
    }
    for lit in literals {
        let wire = lit.value();
        let Some(raw) = data::RAW_METHODS.iter().find(|r| r.wire == wire) else {
            continue;
        };
        let span = lit.span();
        match raw.kind {
            RawKind::Handshake => handshake::raw(cx, &wire, span),
            RawKind::Removed(help) => removed::raw(cx, &wire, help, span),
            RawKind::Deprecated(feature) => deprecated::raw(cx, &wire, feature, span),
        }
    }
}

fn arm_literals<'p>(pat: &'p syn::Pat, out: &mut Vec<&'p syn::LitStr>) {
    match pat {
        syn::Pat::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => out.push(s),
        syn::Pat::Or(o) => o.cases.iter().for_each(|c| arm_literals(c, out)),
        syn::Pat::Paren(p) => arm_literals(&p.pat, out),
        _ => {}
    }
}

/// What every readiness finding says about older clients, so a team can plan: the code keeps
/// working for them.
const OLDER_CLIENTS_REMOVED: &str =
    "clients before 2026-07-28 still use it, so keep it while you serve them";

/// Reports one finding.
fn emit(
    cx: &mut Cx<'_>,
    code: &'static str,
    span: Span,
    sdk: Option<&'static str>,
    message: String,
    help: &str,
    method: Option<McpMethod>,
) {
    cx.emit(Draft {
        code,
        first: span,
        last: span,
        message,
        mcp_method: method,
        sdk,
        help: (!help.is_empty()).then(|| help.to_string()),
    });
}
