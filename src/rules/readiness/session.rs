//! MCP301 session-keyed-state: 2026-07-28 has no sessions. A retry, or the next request, may
//! land on another instance, and nothing ties one request to the last: the `Mcp-Session-Id`
//! header is absent, a map keyed by the session id never finds the entry, and a streamable HTTP
//! server configured to keep sessions serves 2026-07-28 requests without one.

use proc_macro2::Span;

use super::{emit, OLDER_CLIENTS_REMOVED};
use crate::model::sdk::readiness::{self as data, SdkReadiness, SESSION_HEADER};
use crate::model::sdk::{SdkTable, SDKS};
use crate::rules::engine::Cx;

const CODE: &str = "MCP301";

/// Header-map methods that read a header by name.
pub(super) const HEADER_LOOKUPS: &[&str] = &["get", "get_all", "contains_key"];

/// Map and cache types whose first generic argument is the key.
const KEYED: &[&str] = &[
    "HashMap", "BTreeMap", "DashMap", "IndexMap", "LruCache", "Cache", "HashSet", "BTreeSet",
    "DashSet",
];

const HELP: &str = "keep what one flow needs in `requestState` (sealed; `#[mrtr_handler]` \
does it for you) and everything else in a store every instance shares, keyed by something the \
request carries (a user, a tenant, a resource), not by a session";

/// `headers.get("mcp-session-id")`, `headers.get(HEADER_SESSION_ID)`; and the session setters
/// (`with_stateful_mode(true)`).
pub(super) fn method_call(cx: &mut Cx<'_>, mc: &syn::ExprMethodCall) {
    if mc.args.len() != 1 {
        return;
    }
    let arg = &mc.args[0];
    if super::session::HEADER_LOOKUPS
        .iter()
        .any(|n| mc.method == n)
    {
        if from_a_response(&mc.receiver) {
            // A client reading the id its server handed out: client code, not a server's state.
            return;
        }
        if let Some(sdk) = names_session_header(cx, arg) {
            let span = syn::spanned::Spanned::span(arg);
            emit(
                cx,
                CODE,
                span,
                sdk,
                format!(
                    "reads the `Mcp-Session-Id` header: 2026-07-28 has no sessions, so a \
2026-07-28 client sends none and state looked up by it is not found; {OLDER_CLIENTS_REMOVED}"
                ),
                HELP,
                None,
            );
        }
        return;
    }
    for (sdk, ready) in sdks(cx) {
        if ready.session_config.setters.iter().any(|n| mc.method == n) && is_true(arg) {
            stateful(cx, sdk, &mc.method.to_string(), mc.method.span());
            return;
        }
    }
}

/// `StreamableHttpServerConfig { stateful_mode: true, .. }`.
pub(super) fn config_literal(cx: &mut Cx<'_>, s: &syn::ExprStruct) {
    let Some(last) = s.path.segments.last() else {
        return;
    };
    // Asked of every struct literal: the type's name first, before anything is allocated.
    let named = data::READINESS
        .iter()
        .any(|r| r.session_config.types.iter().any(|t| last.ident == t));
    if !named {
        return;
    }
    for (sdk, ready) in sdks(cx) {
        let config = &ready.session_config;
        if !config.types.iter().any(|t| last.ident == t) {
            continue;
        }
        for f in &s.fields {
            let syn::Member::Named(name) = &f.member else {
                continue;
            };
            if config.fields.iter().any(|n| name == n) && is_true(&f.expr) {
                stateful(cx, sdk, &name.to_string(), name.span());
            }
        }
        return;
    }
}

/// A field or binding typed `HashMap<SessionId, _>` (the SDK's session id type).
pub(super) fn keyed_map(cx: &mut Cx<'_>, path: &syn::Path) {
    let Some(last) = path.segments.last() else {
        return;
    };
    if !KEYED.iter().any(|k| last.ident == k) {
        return;
    }
    let Some(syn::Type::Path(key)) = crate::model::scope::first_type_arg(&last.arguments) else {
        return;
    };
    let Some(key_last) = key.path.segments.last() else {
        return;
    };
    let session_id = data::READINESS
        .iter()
        .any(|r| r.session_id_types.iter().any(|t| key_last.ident == t));
    if !session_id || super::quiet(cx) {
        return;
    }
    for (sdk, ready) in sdks(cx) {
        if !ready.session_id_types.iter().any(|t| key_last.ident == t) {
            continue;
        }
        let from_sdk = !cx.facts().local_types.contains(&key_last.ident.to_string())
            && cx
                .facts()
                .resolve_path(&key.path)
                .iter()
                .any(|(s, _)| std::ptr::eq(*s, sdk));
        if from_sdk {
            emit(
                cx,
                CODE,
                key_last.ident.span(),
                Some(sdk.name),
                format!(
                    "`{}` keyed by the MCP session id (`{}`): 2026-07-28 has no sessions, so a \
2026-07-28 client's requests never find their entry; {OLDER_CLIENTS_REMOVED}",
                    last.ident, key_last.ident
                ),
                HELP,
                None,
            );
            return;
        }
    }
}

fn stateful(cx: &mut Cx<'_>, sdk: &'static SdkTable, what: &str, span: Span) {
    emit(
        cx,
        CODE,
        span,
        Some(sdk.name),
        format!(
            "`{what}` keeps a session per client, but 2026-07-28 requests are served without \
one (each may reach another instance): anything the server keeps per session is not there for a \
2026-07-28 client; {OLDER_CLIENTS_REMOVED}"
        ),
        HELP,
        None,
    );
}

/// The SDKs the file may use, with their readiness data.
fn sdks(cx: &Cx<'_>) -> Vec<(&'static SdkTable, &'static SdkReadiness)> {
    SDKS.iter()
        .filter(|sdk| !cx.facts().absent(sdk))
        .filter_map(|sdk| data::of(sdk.name).map(|r| (*sdk, r)))
        .collect()
}

/// Whether `e` names the session header: the literal (any case) or an SDK's constant for it.
/// `Some(None)`: the literal, which is no SDK's.
fn names_session_header(cx: &Cx<'_>, e: &syn::Expr) -> Option<Option<&'static str>> {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => s
            .value()
            .eq_ignore_ascii_case(SESSION_HEADER)
            .then_some(None),
        syn::Expr::Reference(r) => names_session_header(cx, &r.expr),
        syn::Expr::Path(p) => {
            let last = p.path.segments.last()?;
            sdks(cx)
                .into_iter()
                .find(|(_, r)| r.session_header_consts.iter().any(|c| last.ident == c))
                .map(|(sdk, _)| Some(sdk.name))
        }
        _ => None,
    }
}

/// A cheap first look at a header look-up's argument: a string literal, or a path whose last
/// segment is some SDK's header constant.
pub(super) fn may_name_header(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => s.value().len() == SESSION_HEADER.len(),
        syn::Expr::Reference(r) => may_name_header(&r.expr),
        syn::Expr::Path(p) => p.path.segments.last().is_some_and(|last| {
            data::READINESS
                .iter()
                .any(|r| r.session_header_consts.iter().any(|c| last.ident == c))
        }),
        _ => false,
    }
}

/// Whether a header map is a response's (`response.headers()`, `resp.headers`): what a client
/// reads from its server.
fn from_a_response(headers: &syn::Expr) -> bool {
    let mut e = headers;
    loop {
        e = match e {
            syn::Expr::MethodCall(mc) => &mc.receiver,
            syn::Expr::Field(f) => &f.base,
            syn::Expr::Reference(r) => &r.expr,
            syn::Expr::Paren(p) => &p.expr,
            syn::Expr::Try(t) => &t.expr,
            syn::Expr::Path(p) => {
                return p.path.segments.last().is_some_and(|s| {
                    let name = s.ident.to_string().to_ascii_lowercase();
                    name.contains("resp") || name == "res" || name == "reply"
                })
            }
            _ => return false,
        };
    }
}

fn is_true(e: &syn::Expr) -> bool {
    matches!(
        e,
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Bool(b),
            ..
        }) if b.value
    )
}
