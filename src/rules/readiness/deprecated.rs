//! MCP304 deprecated-protocol-feature: logging (`logging/setLevel`, `notifications/message`),
//! roots and sampling are deprecated in 2026-07-28 (SEP-2577): still served, to clients of every
//! revision, and removed on or after 2027-07-28. A note to plan by, not a break: the legacy
//! requests themselves are MCP002/MCP003; this covers what they do not (the `setLevel` handler,
//! log notifications, the logging capability, and sampling or roots asked inside an MRTR round).

use proc_macro2::Span;

use super::emit;
use crate::model::sdk::readiness::{self as data, Deprecated, DeprecatedItem, EARLIEST_REMOVAL};
use crate::model::sdk::{McpMethod, SdkTable, SDKS};
use crate::rules::engine::Cx;

const CODE: &str = "MCP304";

fn message(what: &str, feature: Deprecated) -> String {
    format!(
        "{what}: {} is deprecated in 2026-07-28 (SEP-2577); it still works for clients of every \
revision, and may be removed on or after {EARLIEST_REMOVAL}",
        feature.what()
    )
}

fn method_of(feature: Deprecated) -> Option<McpMethod> {
    match feature {
        Deprecated::Logging => None,
        Deprecated::Roots => Some(McpMethod::Roots),
        Deprecated::Sampling => Some(McpMethod::Sampling),
    }
}

/// An override of a deprecated method's handler (`set_level`).
pub(super) fn handler(cx: &mut Cx<'_>, sdk: &'static SdkTable, item: &DeprecatedItem, span: Span) {
    emit(
        cx,
        CODE,
        span,
        Some(sdk.name),
        message(
            &format!("handles a deprecated method (`{}`)", item.name),
            item.feature,
        ),
        item.feature.replacement(),
        None,
    );
}

/// A deprecated send through the server's handle (`notify_logging_message`, neva's keyed
/// `ctx.sample(key, ..)`).
pub(super) fn send(cx: &mut Cx<'_>, sdk: &'static SdkTable, item: &DeprecatedItem, span: Span) {
    emit(
        cx,
        CODE,
        span,
        Some(sdk.name),
        message(
            &format!("`{}` uses a deprecated feature", item.name),
            item.feature,
        ),
        item.feature.replacement(),
        method_of(item.feature),
    );
}

/// `ServerCapabilities::builder().enable_logging()`: any receiver, in a file that uses the SDK.
pub(super) fn builder(cx: &mut Cx<'_>, mc: &syn::ExprMethodCall) {
    if !mc.args.is_empty() {
        return;
    }
    for sdk in SDKS {
        let Some(item) = data::of(sdk.name)
            .and_then(|r| r.deprecated_builders.iter().find(|i| mc.method == i.name))
        else {
            continue;
        };
        if cx.facts().mentions(sdk) && !cx.facts().absent(sdk) {
            emit(
                cx,
                CODE,
                mc.method.span(),
                Some(sdk.name),
                message(
                    &format!("`{}` declares a deprecated capability", item.name),
                    item.feature,
                ),
                item.feature.replacement(),
                None,
            );
            return;
        }
    }
}

/// `InputRequest::CreateMessage(..)` / `InputRequest::ListRoots(..)`: sampling or roots asked in
/// an MRTR round.
pub(super) fn input_request(cx: &mut Cx<'_>, path: &syn::Path) {
    let n = path.segments.len();
    let (enum_seg, variant) = (&path.segments[n - 2], &path.segments[n - 1]);
    if enum_seg.ident != "InputRequest" {
        return;
    }
    for sdk in SDKS {
        let Some((_, feature)) = data::of(sdk.name).and_then(|r| {
            r.deprecated_input_requests
                .iter()
                .find(|(v, _)| variant.ident == v)
        }) else {
            continue;
        };
        let prefix: syn::Path = syn::Path {
            leading_colon: path.leading_colon,
            segments: path.segments.iter().take(n - 1).cloned().collect(),
        };
        let from_sdk = !cx.facts().local_types.contains("InputRequest")
            && !cx.facts().absent(sdk)
            && cx
                .facts()
                .resolve_path(&prefix)
                .iter()
                .any(|(s, _)| std::ptr::eq(*s, *sdk));
        if from_sdk {
            emit(
                cx,
                CODE,
                variant.ident.span(),
                Some(sdk.name),
                message(
                    &format!(
                        "`InputRequest::{}` asks for a deprecated feature",
                        variant.ident
                    ),
                    *feature,
                ),
                feature.replacement(),
                method_of(*feature),
            );
            return;
        }
    }
}

/// `"logging/setLevel" => ..` in a hand-written dispatcher.
pub(super) fn raw(cx: &mut Cx<'_>, wire: &str, feature: Deprecated, span: Span) {
    emit(
        cx,
        CODE,
        span,
        None,
        message(&format!("handles `{wire}`"), feature),
        feature.replacement(),
        None,
    );
}
