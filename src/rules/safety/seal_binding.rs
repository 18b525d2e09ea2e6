//! MCP103 unbound-request-state: rmcp `seal`/`seal_json` with no options, `SealOptions` without
//! `associated_data` or without `ttl`, and `open`/`open_json` where the fn sealed with bound data.

use syn::spanned::Spanned;

use super::body::{last_name, Met, Step};
use super::{emit, on_codec, FnView};
use crate::model::scope::Kind;
use crate::rules::engine::Cx;

const CALL: u8 = 1;

fn everything(_: &Met) -> (Step, u8) {
    (Step::MarkThrough, CALL)
}

/// `associated_data(&[])`, `associated_data(b"")`: binds nothing.
fn empty_binding(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Reference(r) => empty_binding(&r.expr),
        syn::Expr::Array(a) => a.elems.is_empty(),
        syn::Expr::Lit(l) => match &l.lit {
            syn::Lit::ByteStr(b) => b.value().is_empty(),
            syn::Lit::Str(s) => s.value().is_empty(),
            _ => false,
        },
        syn::Expr::MethodCall(mc) => empty_binding(&mc.receiver),
        _ => false,
    }
}

const HELP: &str = "seal with `codec.seal_json_with(&state, &SealOptions::new().associated_data(binding.as_bytes()).ttl(Duration::from_secs(600)))` where `binding` names the principal, the method, the tool/prompt/URI and a digest of the arguments, and open with `open_json_with(&state, binding.as_bytes())`; or use `#[mrtr_handler]`, whose runtime binds all of these";

/// Inside an impl of a type named like a codec (`impl StateCodec { .. }`).
fn on_codec_type(cx: &Cx<'_>) -> bool {
    let this: syn::Expr = syn::parse_quote!(self);
    matches!(cx.value_of(&this).kind, Kind::SelfOf(Some(name)) if name.to_ascii_lowercase().contains("codec"))
}

/// The fn seals or opens through `self` itself: it is a codec's method.
fn calls_own_seal(b: &super::body::Body<'_>) -> bool {
    b.methods.iter().any(|m| {
        let name = m.method.to_string();
        (name.starts_with("seal") || name.starts_with("open"))
            && matches!(&*m.receiver, syn::Expr::Path(p) if p.path.is_ident("self"))
    })
}

pub(super) fn check(cx: &mut Cx<'_>, f: &FnView<'_>) {
    // `fn seal(&self, p) { self.seal_with(p, &SealOptions::new()) }`: a codec's own wrapper; the
    // options are its caller's business. A helper of the server type named the same way
    // (`fn seal_state(&self, s) { self.codec.seal_json(s) }`) is where the options are chosen.
    let wrapper = (f.name.starts_with("seal") || f.name.starts_with("open"))
        && (on_codec_type(cx) || calls_own_seal(&f.body));
    if wrapper {
        return;
    }
    let b = &f.body;
    let empty_ad = b
        .methods
        .iter()
        .any(|m| m.method == "associated_data" && m.args.first().is_some_and(empty_binding));
    let mut bound_seal = false;
    let mut opens = Vec::new();
    for m in &b.methods {
        let name = m.method.to_string();
        let recv = last_name(&m.receiver);
        if !on_codec(cx, &name, recv.as_deref()) {
            continue;
        }
        match (name.as_str(), m.args.len()) {
            ("seal" | "seal_json", 1) => emit(
                cx,
                "MCP103",
                m.method.span(),
                Some("rmcp"),
                format!(
                    "`{name}` seals requestState with no `SealOptions`: the state is bound to nothing \
and never expires, so it can be replayed on another request, by another user, forever. S14, S15, \
S16: the protected payload SHOULD carry the principal, a short expiry and the originating request"
                ),
                HELP,
            ),
            ("seal_with" | "seal_json_with", 2) => {
                let t = b.trace(&m.args[1], &everything);
                let built_here = t.marked.iter().any(|(c, _)| c.path.iter().any(|s| s == "SealOptions"));
                if !built_here {
                    continue;
                }
                let has = |n: &str| t.marked.iter().any(|(c, _)| c.method && c.name() == n);
                let ad = has("associated_data") && !empty_ad;
                let ttl = has("ttl");
                if ad {
                    bound_seal = true;
                }
                let missing = match (ad, ttl) {
                    (true, true) => continue,
                    (false, true) => "no `associated_data`: the state is not bound to the principal or the request (S14, S16)",
                    (true, false) => "no `ttl`: the state never expires (S15)",
                    (false, false) => "neither `associated_data` nor `ttl`: the state is bound to nothing and never expires (S14, S15, S16)",
                };
                emit(
                    cx,
                    "MCP103",
                    m.args[1].span(),
                    Some("rmcp"),
                    format!(
                        "the `SealOptions` of this `{name}` have {missing}; a sealed state SHOULD carry the \
principal, a short expiry and the originating request, and be rejected when they do not match"
                    ),
                    HELP,
                );
            }
            ("open" | "open_json", 1) => opens.push((m.method.span(), name)),
            _ => {}
        }
    }
    if bound_seal {
        for (span, name) in opens {
            emit(
                cx,
                "MCP103",
                span,
                Some("rmcp"),
                format!(
                    "this fn seals requestState with `associated_data` but opens it with `{name}`, which \
checks no binding: the state is not checked against the request that presents it. S14, S16: reject \
state presented by another principal or on another request"
                ),
                HELP,
            );
        }
    }
}
