//! MCP102 unverified-request-state: an incoming `requestState` decoded (base64, serde_json, hex,
//! `parse`) and used with no open/verify step.

use syn::spanned::Spanned;

use super::body::{Met, Step};
use super::state_mint::{NEUTRAL_FNS, NEUTRAL_METHODS};
use super::words::{is_plain_decoder, is_verifier};
use super::{emit, sdk_of, FnView};
use crate::rules::engine::Cx;

const VERIFIED: u8 = 1;
const SOURCE: u8 = 2;

fn classify(m: &Met) -> (Step, u8) {
    if is_verifier(&m.path, m.recv.as_deref()) {
        return (Step::Mark, VERIFIED);
    }
    if m.method && m.name() == "request_state" {
        return (Step::Mark, SOURCE);
    }
    let name = m.name();
    if is_plain_decoder(&m.path, m.method) {
        return (Step::Through, 0);
    }
    let neutral = if m.method {
        NEUTRAL_METHODS.contains(&name) || name == "get"
    } else {
        NEUTRAL_FNS.contains(&name)
    };
    if neutral && !m.mac {
        (Step::Through, 0)
    } else {
        (Step::Stop, 0)
    }
}

fn is_state_name(n: &str) -> bool {
    n == "request_state" || n == "requestState"
}

pub(super) fn check(cx: &mut Cx<'_>, f: &FnView<'_>) {
    let b = &f.body;
    let any_verifier = b
        .calls
        .iter()
        .any(|c| is_verifier(&super::body::call_path(c), None))
        || b.methods.iter().any(|m| {
            is_verifier(
                &[m.method.to_string()],
                super::body::last_name(&m.receiver).as_deref(),
            )
        });
    if any_verifier {
        return;
    }
    // (decode call span, the data it decodes)
    let mut sites: Vec<(proc_macro2::Span, String, &syn::Expr)> = Vec::new();
    for c in &b.calls {
        let path = super::body::call_path(c);
        if is_plain_decoder(&path, false) {
            if let Some(a) = c.args.first() {
                sites.push((c.span(), path.join("::"), a));
            }
        }
    }
    for m in &b.methods {
        let name = m.method.to_string();
        if is_plain_decoder(std::slice::from_ref(&name), true) {
            let data = if name == "parse" || m.args.is_empty() {
                &*m.receiver
            } else {
                &m.args[0]
            };
            sites.push((m.span(), format!(".{name}()"), data));
        }
    }
    let mut firing: Vec<(proc_macro2::Span, String)> = Vec::new();
    for (span, how, data) in sites {
        let t = b.trace(data, &classify);
        if t.marked.iter().any(|(_, m)| *m == VERIFIED) {
            continue;
        }
        let from_state = t.marked.iter().any(|(_, m)| *m == SOURCE)
            || t.names.iter().any(|n| {
                is_state_name(n) || b.param_heads.get(n).is_some_and(|h| h == "RequestState")
            })
            || t.strings.iter().any(|(s, _)| s == "requestState");
        if from_state {
            firing.push((span, how));
        }
    }
    // `serde_json::from_slice(&B64.decode(s)?)`: one finding, on the outermost decode.
    let pos = |l: proc_macro2::LineColumn| (l.line, l.column);
    let inside = |a: &proc_macro2::Span, b: &proc_macro2::Span| {
        let (a0, a1, b0, b1) = (pos(a.start()), pos(a.end()), pos(b.start()), pos(b.end()));
        (a0, a1) != (b0, b1) && b0 <= a0 && a1 <= b1
    };
    // One finding per fn: the earliest outermost decode of the state.
    let first = firing
        .iter()
        .filter(|(span, _)| !firing.iter().any(|(other, _)| inside(span, other)))
        .min_by_key(|(span, _)| pos(span.start()));
    if let Some((span, how)) = first {
        let message = format!(
            "the incoming requestState is decoded with `{how}` and used without being opened or \
verified: anyone can forge it. S10: requestState MUST be treated as attacker-controlled input; \
S12: state that fails verification MUST be rejected (JSON-RPC -32602)"
        );
        emit(
            cx,
            "MCP102",
            *span,
            sdk_of(cx),
            message,
            "verify before use: rmcp `codec.open_json_with::<State>(&state, binding)` (reject with \
`ErrorData::invalid_params(\"Invalid or expired requestState\", None)` on error), your own HMAC/AEAD \
check, or `#[mrtr_handler]`, whose runtime opens and checks the state for you",
        );
    }
}
