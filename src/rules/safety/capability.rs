//! MCP107 unchecked-client-capability: input requests embedded by a handler that never reads
//! the request's client capabilities (S18), and URL-mode elicitation without checking
//! `elicitation.url` (S28).

use proc_macro2::Span;
use syn::spanned::Spanned;

use super::body::{
    call_path, json_entries, json_root, json_str, macro_json_objects, Body, Met, Step,
};
use super::{emit, sdk_of, FnView};
use crate::model::callgraph::HandlerKind;
use crate::rules::engine::Cx;

/// One embedded input request.
struct Ask {
    span: Span,
    /// `elicitation/create`, `sampling/createMessage` or `roots/list`.
    wire: &'static str,
    url: bool,
}

fn asks(b: &Body<'_>) -> Vec<Ask> {
    let mut out = Vec::new();
    for c in &b.calls {
        let p = call_path(c);
        let n = p.len();
        if n < 2 {
            continue;
        }
        let wire = match (p[n - 2].as_str(), p[n - 1].as_str()) {
            ("InputRequest", "Elicitation") => "elicitation/create",
            ("InputRequest", "CreateMessage") => "sampling/createMessage",
            ("InputRequest", "ListRoots") => "roots/list",
            _ => continue,
        };
        let url = wire == "elicitation/create" && c.args.iter().any(|a| mentions_url_params(b, a));
        out.push(Ask {
            span: c.func.span(),
            wire,
            url,
        });
    }
    for m in &b.macros {
        let objs = macro_json_objects(&m.tokens);
        for o in objs {
            let entries = json_entries(&o);
            for (k, _, v) in &entries {
                let Some((method, span)) = json_str(v).filter(|_| k == "method") else {
                    continue;
                };
                let wire = match method.as_str() {
                    "elicitation/create" => "elicitation/create",
                    "sampling/createMessage" => "sampling/createMessage",
                    "roots/list" => "roots/list",
                    _ => continue,
                };
                let url = entries.iter().any(|(k, _, v)| {
                    k == "params"
                        && json_root(v).is_some_and(|p| {
                            json_entries(&p).iter().any(|(k, _, v)| {
                                k == "mode" && json_str(v).is_some_and(|(s, _)| s == "url")
                            })
                        })
                });
                out.push(Ask { span, wire, url });
            }
        }
    }
    out
}

fn all(_: &Met) -> (Step, u8) {
    (Step::MarkThrough, 0)
}

/// `InputRequest::Elicitation(ElicitRequest::new(ElicitRequestParams::UrlElicitationParams {..}))`,
/// directly or through locals.
fn mentions_url_params(b: &Body<'_>, e: &syn::Expr) -> bool {
    let t = b.trace(e, &all);
    t.struct_types.iter().any(|s| s == "UrlElicitationParams")
        || t.marked
            .iter()
            .any(|(m, _)| m.path.iter().any(|s| s == "UrlElicitationParams"))
}

fn is_cap_word(s: &str) -> bool {
    let l = s.to_ascii_lowercase();
    l.contains("capabilit")
        || l.starts_with("supports_")
        || l.starts_with("can_elicit")
        || l.starts_with("can_sample")
}

/// Does the body look at `elicitation.url` of the client's capabilities?
fn checks_url(b: &Body<'_>) -> bool {
    if b.idents().iter().any(|i| {
        let l = i.to_ascii_lowercase();
        l.contains("url")
            && (l.contains("elicit") || l.contains("capab") || l.starts_with("supports"))
    }) {
        return true;
    }
    let base_is_caps = |base: &syn::Expr| {
        let t = b.trace(base, &all);
        t.names.iter().any(|n| is_cap_word(n) || n == "elicitation")
            || t.marked.iter().any(|(m, _)| is_cap_word(m.name()))
            || t.strings
                .iter()
                .any(|(s, _)| s == "elicitation" || is_cap_word(s))
    };
    b.fields.iter().any(|f| matches!(&f.member, syn::Member::Named(n) if n == "url") && base_is_caps(&f.base))
        || b.indexes.iter().any(|i| {
            matches!(&*i.index, syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) if s.value() == "url")
                && base_is_caps(&i.expr)
        })
}

pub(super) fn check(cx: &mut Cx<'_>, f: &FnView<'_>) {
    let b = &f.body;
    // A closure: the words are collected only for a plain fn, which is a handler when it reads
    // the request's MRTR fields.
    let reads_request = || {
        b.idents()
            .iter()
            .any(|i| i == "request_state" || i == "input_responses")
            || b.strings()
                .iter()
                .any(|s| s == "requestState" || s == "inputResponses")
    };
    let handler =
        f.kind == HandlerKind::MrtrRequest || (f.kind == HandlerKind::Plain && reads_request());
    if !handler {
        return;
    }
    let found = asks(b);
    if found.is_empty() {
        return;
    }
    let reads_caps =
        b.idents().iter().any(|i| is_cap_word(i)) || b.strings().iter().any(|s| is_cap_word(s));
    if !reads_caps {
        for a in &found {
            let cap = match a.wire {
                "elicitation/create" if a.url => "elicitation.url",
                "elicitation/create" => "elicitation",
                "sampling/createMessage" => "sampling",
                _ => "roots",
            };
            emit(
                cx,
                "MCP107",
                a.span,
                sdk_of(cx),
                format!(
                    "`{}` embeds an input request (`{}`) but never reads this request's client \
capabilities. S18: a server MUST NOT send an input request for a capability (`{cap}`) the client did \
not declare in this request; capabilities are per request (S27)",
                    if f.name.is_empty() { "this code" } else { &f.name },
                    a.wire
                ),
                "check `context.client_capabilities()` (rmcp) or `_meta[\"io.modelcontextprotocol/clientCapabilities\"]` \
first and answer JSON-RPC -32021 with `data.requiredCapabilities` when it is missing; `#[mrtr_handler]` does this for every ask",
            );
        }
        return;
    }
    if found.iter().any(|a| a.url) && !checks_url(b) {
        for a in found.iter().filter(|a| a.url) {
            emit(
                cx,
                "MCP107",
                a.span,
                sdk_of(cx),
                "URL-mode elicitation is embedded without checking the client's `elicitation.url` \
capability: an empty `elicitation: {}` means form mode only. S28: a server MUST NOT send an \
elicitation mode the client does not support"
                    .to_string(),
                "check `caps.elicitation.as_ref().and_then(|e| e.url.as_ref()).is_some()` before sending a \
URL-mode request, and answer -32021 with `{\"elicitation\": {\"url\": {}}}` otherwise",
            );
        }
    }
}
