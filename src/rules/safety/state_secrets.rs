//! MCP105 secret-in-request-state: a password, token, API key or credential serialized into a
//! state that is only signed (rmcp's `RequestStateCodec`, a codec's `encode`): the client can
//! read it.

use super::body::{last_name, Met, Step};
use super::state_mint::{NEUTRAL_FNS, NEUTRAL_METHODS};
use super::words::is_secret_name;
use super::{emit, on_codec, FnView};
use crate::rules::engine::Cx;

fn through_known(m: &Met) -> (Step, u8) {
    // A helper or a store of the project may drop, encrypt or replace fields: stop there.
    let name = m.name();
    let known = if m.mac {
        matches!(name, "json!" | "vec!" | "format!")
    } else if m.method {
        NEUTRAL_METHODS.contains(&name)
    } else {
        NEUTRAL_FNS.contains(&name)
    };
    (if known { Step::Through } else { Step::Stop }, 0)
}

pub(super) fn check(cx: &mut Cx<'_>, f: &FnView<'_>) {
    let b = &f.body;
    for m in &b.methods {
        let name = m.method.to_string();
        let recv = last_name(&m.receiver);
        let signed_only = matches!(
            name.as_str(),
            "seal" | "seal_json" | "seal_with" | "seal_json_with"
        ) && on_codec(cx, &name, recv.as_deref())
            || (name.starts_with("encode")
                && recv
                    .as_deref()
                    .is_some_and(|r| r.to_ascii_lowercase().contains("codec"))
                && cx.line_index().text().contains("tower_mcp"));
        if !signed_only || m.args.is_empty() {
            continue;
        }
        let t = b.trace(&m.args[0], &through_known);
        let mut found: Vec<String> = Vec::new();
        found.extend(t.struct_fields.iter().cloned());
        found.extend(t.json_keys.iter().cloned());
        found.extend(t.names.iter().cloned());
        for ty in t.types.iter().chain(t.struct_types.iter()) {
            for (owner, field) in cx.facts().fields.keys() {
                if owner == ty {
                    found.push(field.clone());
                }
            }
        }
        let Some(secret) = found.into_iter().find(|n| is_secret_name(n)) else {
            continue;
        };
        emit(
            cx,
            "MCP105",
            m.method.span(),
            super::sdk_of(cx),
            format!(
                "`{secret}` is serialized into requestState by `{name}`, which signs but does not \
encrypt: the payload is base64 that the client (and anything that logs the request) can read. \
S10: requestState travels through the client; S32: stored state must be protected"
            ),
            "keep the secret on the server (a store keyed by a random id, bound to the user) and put \
only the id in the state, or encrypt the state (this project's `#[mrtr_handler]` runtime seals with \
XChaCha20-Poly1305)",
        );
    }
}
