//! MCP302 handshake-dependent: 2026-07-28 has no `initialize` and no
//! `notifications/initialized`. A client sends its capabilities and info in every request's
//! `_meta` and may call `server/discover` instead. So an `initialize` or `on_initialized`
//! override that does work (reads the client's info or capabilities, starts a task) never runs
//! for a 2026-07-28 client, and what the handle on the client remembers from the handshake
//! (`peer_info()`, the capability helpers built on it) is empty.

use proc_macro2::Span;
use syn::visit::Visit;

use super::{emit, OLDER_CLIENTS_REMOVED};
use crate::model::callgraph::{HandlerKind, Reach};
use crate::model::sdk::readiness::{Item, SdkReadiness};
use crate::model::sdk::SdkTable;
use crate::rules::engine::Cx;

const CODE: &str = "MCP302";

/// Field reads of the client's `initialize` parameters (`request.capabilities`).
const HANDSHAKE_FIELDS: &[&str] = &["capabilities", "client_info"];

/// Calls that start work which outlives the hook.
const SPAWNS: &[&str] = &["spawn", "spawn_local", "spawn_blocking"];

/// An override of a handshake hook: reported when its body reads what the client declared or
/// starts a task; logging and the SDK's own bookkeeping are no work a client would miss.
pub(super) fn hook(
    cx: &mut Cx<'_>,
    sdk: &'static SdkTable,
    ready: &SdkReadiness,
    sig: &syn::Signature,
    block: &syn::Block,
) {
    let params: Vec<String> = sig
        .inputs
        .iter()
        .filter_map(|a| match a {
            syn::FnArg::Typed(pt) => match &*pt.pat {
                syn::Pat::Ident(i) => Some(i.ident.to_string()),
                _ => None,
            },
            syn::FnArg::Receiver(_) => None,
        })
        .collect();
    let mut work = Work {
        ready,
        params: &params,
        found: None,
    };
    work.visit_block(block);
    let Some(what) = work.found else {
        return;
    };
    let name = &sig.ident;
    let dep = cx.facts().dependency(sdk).cloned();
    emit(
        cx,
        CODE,
        name.span(),
        Some(sdk.name),
        format!(
            "`{name}` {what}, but a 2026-07-28 client never sends `initialize` or \
`notifications/initialized`, so this never runs for it; {OLDER_CLIENTS_REMOVED}"
        ),
        ready.handshake_help.for_dependency(dep.as_ref()),
        None,
    );
}

/// A read, on the server's handle, of what the client said in `initialize` (`peer_info()`).
pub(super) fn read(cx: &mut Cx<'_>, sdk: &'static SdkTable, item: &Item, span: Span) {
    // Only where a request or hook runs it: a helper no handler of the file calls may serve a
    // client on the old protocol alone (and is reported where a handler's file calls it).
    let in_handler = match cx.context().kind {
        HandlerKind::MrtrRequest | HandlerKind::OtherRequest | HandlerKind::Hook => true,
        HandlerKind::Plain => {
            !cx.context().name.is_empty()
                && cx.state.callgraph.reach(&cx.context().name) == Reach::Request
        }
        HandlerKind::Client => false,
    };
    if !in_handler {
        return;
    }
    // Inside a handshake hook the hook itself is reported.
    if let Some(ready) = crate::model::sdk::readiness::of(sdk.name) {
        if ready
            .handshake_hooks
            .iter()
            .any(|h| cx.context().name == *h)
        {
            return;
        }
    }
    let dep = cx.facts().dependency(sdk).cloned();
    emit(
        cx,
        CODE,
        span,
        Some(sdk.name),
        format!(
            "`{}` returns {}, which a 2026-07-28 client never sends (it declares its \
capabilities in each request's `_meta`), so it is empty there; {OLDER_CLIENTS_REMOVED}",
            item.name, item.wire
        ),
        item.help.for_dependency(dep.as_ref()),
        None,
    );
}

/// `"initialize" => ..` in a hand-written dispatcher.
pub(super) fn raw(cx: &mut Cx<'_>, wire: &str, span: Span) {
    emit(
        cx,
        CODE,
        span,
        None,
        format!(
            "handles `{wire}`, which a 2026-07-28 client never sends: it declares its protocol \
version and capabilities in each request's `_meta` and may call `server/discover`; \
{OLDER_CLIENTS_REMOVED}"
        ),
        "serve `server/discover`, read `io.modelcontextprotocol/clientCapabilities` from each \
request's `_meta`, and set up lazily on the first request that needs it",
        None,
    );
}

/// Looks through a hook's body for work a 2026-07-28 client would miss.
struct Work<'a> {
    ready: &'a SdkReadiness,
    params: &'a [String],
    found: Option<String>,
}

impl<'ast> Visit<'ast> for Work<'_> {
    fn visit_expr_method_call(&mut self, mc: &'ast syn::ExprMethodCall) {
        if self.found.is_some() {
            return;
        }
        if let Some(i) = self
            .ready
            .handshake_reads
            .iter()
            .find(|i| mc.method == i.name)
        {
            self.found = Some(format!("reads {} (`{}`)", i.wire, i.name));
            return;
        }
        if crate::reading::ident_is_one_of(&mc.method, SPAWNS) {
            self.found = Some(format!("starts a task (`{}`)", mc.method));
            return;
        }
        syn::visit::visit_expr_method_call(self, mc);
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        if self.found.is_some() {
            return;
        }
        if let syn::Expr::Path(p) = &*c.func {
            if let Some(last) = p.path.segments.last() {
                if crate::reading::ident_is_one_of(&last.ident, SPAWNS) {
                    self.found = Some(format!("starts a task (`{}`)", last.ident));
                    return;
                }
            }
        }
        syn::visit::visit_expr_call(self, c);
    }

    fn visit_expr_field(&mut self, f: &'ast syn::ExprField) {
        if self.found.is_some() {
            return;
        }
        if let syn::Member::Named(m) = &f.member {
            let on_param = matches!(&*f.base, syn::Expr::Path(p)
                if p.path.get_ident().is_some_and(|i| self.params.iter().any(|n| i == n)));
            if on_param && crate::reading::ident_is_one_of(m, HANDSHAKE_FIELDS) {
                self.found = Some(format!("reads the client's `{m}` from `initialize`"));
                return;
            }
        }
        syn::visit::visit_expr_field(self, f);
    }

    // A macro's body (`tokio::spawn` inside `tracing::info!` is no work; neither is a log
    // line) is not looked into.
    fn visit_macro(&mut self, _: &'ast syn::Macro) {}
}
