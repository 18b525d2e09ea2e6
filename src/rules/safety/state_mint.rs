//! MCP101 unsealed-request-state: a `requestState` built by plain serialization or encoding
//! (serde_json, base64, hex, `format!`, `json!`) with no seal, signature or MAC on the way.

use syn::spanned::Spanned;

use super::body::{call_path, json_entries, json_objects, json_root, unwrap_some, Body, Met, Step};
use super::words::{is_plain_encoder, is_sealer};
use super::{emit, sdk_of, FnView};
use crate::rules::engine::Cx;

const PLAIN: u8 = 1;
const SEALED: u8 = 2;

/// Calls a value passes through unchanged in kind: they neither encode nor protect it.
pub(super) const NEUTRAL_METHODS: &[&str] = &[
    "clone",
    "to_string",
    "to_owned",
    "into",
    "as_str",
    "as_ref",
    "as_bytes",
    "as_deref",
    "unwrap",
    "expect",
    "map_err",
    "ok",
    "ok_or",
    "ok_or_else",
    "unwrap_or_default",
    "unwrap_or",
    "unwrap_or_else",
    "context",
    "with_context",
    "borrow",
    "to_vec",
    "into_bytes",
    "trim",
    "map",
    "and_then",
    "as_slice",
    "into_owned",
    "cloned",
    "copied",
];

/// Functions (last path segment) that wrap a value without changing it.
pub(super) const NEUTRAL_FNS: &[&str] = &[
    "Some",
    "Ok",
    "from",
    "new",
    "String",
    "into",
    "from_utf8",
    "from_utf8_lossy",
];

pub(super) fn classify(m: &Met) -> (Step, u8) {
    if is_sealer(&m.path, m.recv.as_deref()) {
        return (Step::Mark, SEALED);
    }
    if is_plain_encoder(&m.path, m.method, m.mac) {
        return (Step::MarkThrough, PLAIN);
    }
    let name = m.name();
    let neutral = if m.method {
        NEUTRAL_METHODS.contains(&name)
    } else {
        NEUTRAL_FNS.contains(&name) && !m.mac
    };
    if neutral {
        (Step::Through, 0)
    } else {
        (Step::Stop, 0)
    }
}

/// The expressions a fn puts into `requestState`.
pub(super) fn state_sinks<'a>(b: &Body<'a>) -> Vec<syn::Expr> {
    let mut out: Vec<syn::Expr> = Vec::new();
    for c in &b.calls {
        let path = call_path(c);
        let n = path.len();
        if n < 2
            || !matches!(
                path[n - 2].as_str(),
                "InputRequiredResult" | "InputRequired"
            )
        {
            continue;
        }
        match (path[n - 1].as_str(), c.args.len()) {
            ("new", 2) => out.extend(unwrap_some(&c.args[1]).cloned()),
            ("from_request_state", 1) => out.push(c.args[0].clone()),
            _ => {}
        }
    }
    for m in &b.methods {
        let name = m.method.to_string();
        if name == "with_request_state" && m.args.len() == 1 {
            out.extend(unwrap_some(&m.args[0]).cloned());
        }
        if name == "insert" && m.args.len() == 2 && is_state_key(&m.args[0]) {
            out.extend(unwrap_some(&m.args[1]).cloned());
        }
    }
    for s in &b.structs {
        let is_result = s
            .path
            .segments
            .last()
            .is_some_and(|l| l.ident.to_string().starts_with("InputRequired"));
        for f in s.fields.iter().filter(|_| is_result) {
            if matches!(&f.member, syn::Member::Named(n) if n == "request_state") {
                out.extend(unwrap_some(&f.expr).cloned());
            }
        }
    }
    for m in &b.macros {
        if m.path.segments.last().is_none_or(|s| s.ident != "json") {
            continue;
        }
        let mut objs = Vec::new();
        if let Some(root) = json_root(&m.tokens) {
            objs.push(root);
        }
        json_objects(&m.tokens, &mut objs);
        for o in objs {
            for (k, _, v) in json_entries(&o) {
                if k == "requestState" {
                    if let Ok(e) = syn::parse2::<syn::Expr>(v) {
                        out.push(e);
                    }
                }
            }
        }
    }
    out
}

fn is_state_key(e: &syn::Expr) -> bool {
    let mut e = e;
    loop {
        match e {
            syn::Expr::MethodCall(mc) => e = &mc.receiver,
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => return s.value() == "requestState",
            _ => return false,
        }
    }
}

pub(super) fn check(cx: &mut Cx<'_>, f: &FnView<'_>) {
    for sink in state_sinks(&f.body) {
        let t = f.body.trace(&sink, &classify);
        if t.marked.iter().any(|(_, m)| *m == SEALED) {
            continue;
        }
        let Some((enc, _)) = t.marked.iter().find(|(_, m)| *m == PLAIN) else {
            continue;
        };
        let how = enc.path.join("::");
        let message = format!(
            "requestState is built by plain encoding (`{how}`) with no seal, signature or MAC on the \
way, so the client can read and rewrite it. S11: requestState that drives authorization, resource \
access or business logic MUST be integrity-protected (HMAC or AEAD); S10: it comes back as \
attacker-controlled input"
        );
        emit(
            cx,
            "MCP101",
            sink.span(),
            sdk_of(cx),
            message,
            "seal the state instead: rmcp `RequestStateCodec::try_new(key)?.seal_json_with(&state, \
&SealOptions::new().associated_data(binding).ttl(ttl))?`, an HMAC or AEAD of your own, or write the \
handler with `#[mrtr_handler]`, whose runtime encrypts, binds and expires the state",
        );
    }
}
