//! MCP303 removed-protocol-method: handlers and sends of methods 2026-07-28 removed: `ping` (both
//! directions), `notifications/roots/list_changed`, and `resources/subscribe` / `unsubscribe`
//! (replaced by `subscriptions/listen`). A 2026-07-28 client never sends them, and one sent to it
//! fails.

use proc_macro2::Span;

use super::{emit, OLDER_CLIENTS_REMOVED};
use crate::model::sdk::readiness::{self as data, Item};
use crate::model::sdk::{SdkTable, SDKS};
use crate::rules::engine::Cx;

const CODE: &str = "MCP303";

/// An override of a removed method's handler (`ping`, `subscribe`, `on_roots_list_changed`).
pub(super) fn handler(cx: &mut Cx<'_>, sdk: &'static SdkTable, item: &Item, span: Span) {
    let dep = cx.facts().dependency(sdk).cloned();
    emit(
        cx,
        CODE,
        span,
        Some(sdk.name),
        format!(
            "handles {}, which 2026-07-28 removed: a 2026-07-28 client never sends it, so this \
never runs for it; {OLDER_CLIENTS_REMOVED}",
            item.wire
        ),
        item.help.for_dependency(dep.as_ref()),
        None,
    );
}

/// A removed method sent through the server's handle (`runtime.ping()`).
pub(super) fn send(cx: &mut Cx<'_>, sdk: &'static SdkTable, item: &Item, span: Span) {
    let dep = cx.facts().dependency(sdk).cloned();
    emit(
        cx,
        CODE,
        span,
        Some(sdk.name),
        format!(
            "sends {} to the client, which 2026-07-28 removed in both directions: a 2026-07-28 \
client does not answer it; clients before 2026-07-28 still do",
            item.wire
        ),
        item.help.for_dependency(dep.as_ref()),
        None,
    );
}

/// `ServerRequest::PingRequest(..)`: the SDK's server request enum with a removed variant.
pub(super) fn request_variant(cx: &mut Cx<'_>, path: &syn::Path) {
    let n = path.segments.len();
    let (enum_seg, variant) = (&path.segments[n - 2], &path.segments[n - 1]);
    for sdk in SDKS {
        if sdk.request_enum.is_empty() || enum_seg.ident != sdk.request_enum {
            continue;
        }
        let Some(item) = data::of(sdk.name)
            .and_then(|r| r.removed_requests.iter().find(|i| variant.ident == i.name))
        else {
            continue;
        };
        let prefix: syn::Path = syn::Path {
            leading_colon: path.leading_colon,
            segments: path.segments.iter().take(n - 1).cloned().collect(),
        };
        let from_sdk = !cx.facts().local_types.contains(&enum_seg.ident.to_string())
            && cx
                .facts()
                .resolve_path(&prefix)
                .iter()
                .any(|(s, _)| std::ptr::eq(*s, *sdk));
        if from_sdk {
            send(cx, sdk, item, variant.ident.span());
            return;
        }
    }
}

/// `"ping" => ..` in a hand-written dispatcher.
pub(super) fn raw(cx: &mut Cx<'_>, wire: &str, help: &str, span: Span) {
    emit(
        cx,
        CODE,
        span,
        None,
        format!(
            "handles `{wire}`, which 2026-07-28 removed: a 2026-07-28 client never sends it; \
{OLDER_CLIENTS_REMOVED}"
        ),
        help,
        None,
    );
}
