//! MCP004 raw-server-request: a request built by hand (`send_request(ServerRequest::..)`, or a
//! `json!` object / struct literal with a legacy `method` that is sent or written to the client).
//! Where MRTR cannot reach the call, MCP006 instead.

use super::receiver::server_peer;
use crate::model::callgraph::HandlerKind;
use crate::model::request_helpers::is_method_sender;
use crate::model::scan::{RawRequest as RawLit, RawScan};
use crate::model::scope::{Kind, Origin};
use crate::model::sdk::{raw, McpMethod, SdkTable, Side, SDKS};
use crate::reading::name;
use crate::rules::engine::{Cx, Draft, Placement, Rule, Unreached};

pub struct RawRequest;

impl Rule for RawRequest {
    fn codes(&self) -> &'static [&'static str] {
        &["MCP004", "MCP006"]
    }

    fn check_expr(&self, cx: &mut Cx<'_>, expr: &syn::Expr) {
        match expr {
            syn::Expr::MethodCall(mc) => {
                let name = name::of(&mc.method);
                for sdk in SDKS {
                    let Some(m) = sdk.raw_send(&name, mc.args.len()) else {
                        continue;
                    };
                    let v = cx.value_of(&mc.receiver);
                    // pmcp's request values travel over the server's own channel: any receiver,
                    // in a file that uses the SDK, outside client code.
                    let over_channel = m.any_receiver
                        && cx.facts().mentions(sdk)
                        && cx.context().kind != HandlerKind::Client;
                    if server_peer(cx, sdk, &v).is_none() && !over_channel {
                        continue;
                    }
                    let sent = if m.method_string {
                        wire_literal(&mc.args[0]).and_then(|w| Some((McpMethod::from_wire(&w)?, w)))
                    } else {
                        cx.request_in(&mc.args[0])
                            .map(|m| (m, m.wire().to_string()))
                    };
                    if let Some((method, wire)) = sent {
                        report_send(cx, sdk, &name, mc.method.span(), (method, &wire), v.origin);
                        return;
                    }
                }
                if raw::SINK_METHODS.contains(&&*name) {
                    for a in &mc.args {
                        let lits = cx.raw_requests_in(a);
                        report_literals(cx, lits, &name);
                    }
                }
                // A client's own peer asks the server; it never sends these. (The receiver is
                // looked at only for a call that passes a method's name: most calls pass none.)
                let lits = method_strings(cx, &name, &mc.args);
                let client_side = || {
                    matches!(
                        cx.value_of(&mc.receiver).kind,
                        Kind::Peer {
                            side: Some(Side::Client),
                            ..
                        } | Kind::Context {
                            side: Some(Side::Client),
                            ..
                        }
                    )
                };
                if !lits.is_empty() && !client_side() {
                    report_literals(cx, lits, &name);
                }
            }
            syn::Expr::Struct(s) => {
                for f in &s.fields {
                    if let syn::Member::Named(n) = &f.member {
                        stored_in_field(cx, &name::of(n), &f.expr);
                    }
                }
            }
            syn::Expr::Assign(a) => {
                if let syn::Expr::Field(f) = &*a.left {
                    if let syn::Member::Named(n) = &f.member {
                        stored_in_field(cx, &name::of(n), &a.right);
                    }
                }
            }
            syn::Expr::Call(c) => {
                let syn::Expr::Path(p) = &*c.func else { return };
                let Some(last) = p.path.segments.last() else {
                    return;
                };
                let name = name::of(&last.ident);
                if raw::SINK_FUNCTIONS.contains(&&*name) {
                    for a in &c.args {
                        let lits = cx.raw_requests_in(a);
                        report_literals(cx, lits, &name);
                    }
                }
                let lits = method_strings(cx, &name, &c.args);
                report_literals(cx, lits, &name);
            }
            _ => {}
        }
    }

    /// A builder fn (`request_helpers.rs`) whose value the package sends somewhere else: the
    /// finding stands at the request literal it builds, and names the sender.
    fn check_fn(&self, cx: &mut Cx<'_>, sig: &syn::Signature, block: &syn::Block) {
        let name = name::of(&sig.ident);
        if !cx.facts().helpers.builders.contains_key(&*name) {
            return;
        }
        let Some(sender) = cx
            .facts()
            .request_flow()
            .and_then(|f| f.builders.get(&*name))
            .cloned()
        else {
            return;
        };
        let mut scan = RawScan::default();
        syn::visit::Visit::visit_block(&mut scan, block);
        let sink = format!(
            "returned by `{name}` and sent to the client by {}",
            sender.describe()
        );
        let lits = with_consts(cx, scan);
        report_built(cx, lits, &sink, sender.spawned);
    }

    fn check_macro(&self, cx: &mut Cx<'_>, mac: &syn::Macro) {
        let Some(last) = mac.path.segments.last() else {
            return;
        };
        let name = name::of(&last.ident);
        if raw::SINK_MACROS.contains(&&*name) {
            let lits = cx.raw_requests_in_tokens(&mac.tokens);
            report_literals(cx, lits, &format!("{name}!"));
        }
    }
}

/// Legacy method names passed as strings to a callee that sends them: one whose name says so
/// (`requester.send_request("roots/list", params)`), or a fn of the file that forwards that
/// parameter to a sender or into a JSON-RPC object (`request_helpers.rs`). A call that also
/// takes a closure registers a handler for an incoming method instead.
fn method_strings(
    cx: &Cx<'_>,
    name: &str,
    args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>,
) -> Vec<RawLit> {
    if args.iter().any(|a| matches!(a, syn::Expr::Closure(_))) {
        return Vec::new();
    }
    let positions: Vec<usize> = if is_method_sender(name) {
        (0..args.len()).collect()
    } else {
        match cx.facts().helpers.forwarders.get(name) {
            Some(p) => p.clone(),
            None => return Vec::new(),
        }
    };
    positions
        .into_iter()
        .filter_map(|i| {
            let arg = args.iter().nth(i)?;
            if let Some(lit) = crate::model::scan::string_lit(arg) {
                let method = McpMethod::from_wire(&lit.value())?;
                return Some(RawLit {
                    method,
                    span: lit.span(),
                });
            }
            // `send_request(ROOTS_LIST, ..)`: a constant holding the name.
            let (name, span) = crate::model::scan::const_name(arg)?;
            let method = cx.facts().method_const(&name)?;
            Some(RawLit { method, span })
        })
        .collect()
}

/// The string a method argument is: `"roots/list"`, through `.into()`, `.to_string()`,
/// `String::from(..)` or a reference.
fn wire_literal(e: &syn::Expr) -> Option<String> {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => Some(s.value()),
        syn::Expr::MethodCall(mc)
            if crate::reading::ident_is_one_of(&mc.method, raw::STRING_CONVERSIONS) =>
        {
            wire_literal(&mc.receiver)
        }
        syn::Expr::Call(c) if c.args.len() == 1 => match &*c.func {
            syn::Expr::Path(p)
                if p.path.segments.last().is_some_and(|s| {
                    crate::reading::ident_is_one_of(&s.ident, raw::STRING_CONVERSIONS)
                }) =>
            {
                wire_literal(&c.args[0])
            }
            _ => None,
        },
        syn::Expr::Reference(r) => wire_literal(&r.expr),
        syn::Expr::Paren(p) => wire_literal(&p.expr),
        _ => None,
    }
}

fn report_send(
    cx: &mut Cx<'_>,
    sdk: &SdkTable,
    name: &str,
    span: proc_macro2::Span,
    (method, wire): (McpMethod, &str),
    origin: Origin,
) {
    let dep = cx.facts().dependency(sdk).cloned();
    let note = super::legacy_request::version_note(sdk, dep.as_ref());
    let draft = match cx.placement(origin) {
        Placement::Reachable => Draft {
            code: "MCP004",
            first: span,
            last: span,
            message: format!(
                "`{name}`{note} sends a raw `{wire}` request to the client; on 2026-07-28 the server \
must return an `InputRequiredResult` instead"
            ),
            mcp_method: Some(method),
            sdk: Some(sdk.name),
            help: Some(sdk.raw_help().to_string()),
        },
        Placement::Unreachable(why, _) => Draft {
            code: super::UNREACHABLE,
            first: span,
            last: span,
            message: format!(
                "`{name}`{note} sends a raw `{wire}` request {why}; MRTR cannot reach it, so this \
needs a redesign, not a mechanical rewrite"
            ),
            mcp_method: Some(method),
            sdk: Some(sdk.name),
            help: Some(sdk.redesign_help(method).to_string()),
        },
    };
    cx.emit(draft);
}

/// A request literal stored in a field (`Pending { request: json!({..}) }`, `self.req = ..`) that
/// the package reads and sends elsewhere.
fn stored_in_field(cx: &mut Cx<'_>, field: &str, value: &syn::Expr) {
    let Some(sender) = cx
        .facts()
        .request_flow()
        .and_then(|f| f.fields.get(field))
        .cloned()
    else {
        return;
    };
    let mut scan = RawScan::default();
    syn::visit::Visit::visit_expr(&mut scan, value);
    let sink = format!(
        "stored in the field `{field}` and sent to the client by {}",
        sender.describe()
    );
    let lits = with_consts(cx, scan);
    report_built(cx, lits, &sink, sender.spawned);
}

/// A scan's request literals, and its constants that hold a legacy method's name.
fn with_consts(cx: &Cx<'_>, scan: RawScan) -> Vec<RawLit> {
    let mut lits = scan.raw;
    for (name, span) in scan.consts {
        if let Some(method) = cx.facts().method_const(&name) {
            lits.push(RawLit { method, span });
        }
    }
    lits
}

/// Request literals built here and sent elsewhere: `via` says how they get there. `spawned`:
/// every send is in a spawned task, so where the literal stands does not matter.
fn report_built(cx: &mut Cx<'_>, lits: Vec<RawLit>, via: &str, spawned: bool) {
    let travel = Travel {
        reachable: format!("built here, {via}"),
        unreachable: format!("built here, {via},"),
        in_sdk: format!("(built here, {via})"),
        sent_from_spawned: spawned,
    };
    report_raw(cx, lits, &travel);
}

/// How a hand-written request reaches the client, in the words of each message that says so.
struct Travel {
    /// `a hand-written `m` JSON-RPC request is {reachable}; on 2026-07-28 ..`
    reachable: String,
    /// `.. is {unreachable} {why}; MRTR cannot reach it ..`
    unreachable: String,
    /// For an SDK's own sender.
    in_sdk: String,
    /// Sent only from spawned tasks: MRTR cannot reach it, whatever the build site's placement.
    sent_from_spawned: bool,
}

/// MCP004 (or MCP006 where MRTR cannot reach) at each literal, or the SDK authors' finding in an
/// SDK's own package. Client code routes these method names (it answers them): never reported.
fn report_raw(cx: &mut Cx<'_>, lits: Vec<RawLit>, travel: &Travel) {
    // Most calls carry no literal: nothing to place (the call graph's reach) or report.
    if lits.is_empty() || cx.context().kind == HandlerKind::Client {
        return;
    }
    if let Some(sdk) = sdk_itself(cx) {
        report_in_sdk(cx, sdk, &lits, &travel.in_sdk);
        return;
    }
    let placement = if travel.sent_from_spawned {
        Placement::Unreachable(
            "only from inside a spawned task, which outlives the request that started it".into(),
            Unreached::Elsewhere,
        )
    } else {
        cx.placement(Origin::Unknown)
    };
    for lit in lits {
        let wire = lit.method.wire();
        let draft = match placement.clone() {
            Placement::Reachable => Draft {
                code: "MCP004",
                first: lit.span,
                last: lit.span,
                message: format!(
                    "a hand-written `{wire}` JSON-RPC request is {}; on 2026-07-28 the server \
must return an `InputRequiredResult` instead",
                    travel.reachable
                ),
                mcp_method: Some(lit.method),
                sdk: Some("raw"),
                help: Some(RAW_HELP.to_string()),
            },
            Placement::Unreachable(why, _) => Draft {
                code: super::UNREACHABLE,
                first: lit.span,
                last: lit.span,
                message: format!(
                    "a hand-written `{wire}` JSON-RPC request is {} {why}; MRTR cannot reach it, \
so this needs a redesign, not a mechanical rewrite",
                    travel.unreachable
                ),
                mcp_method: Some(lit.method),
                sdk: Some("raw"),
                help: Some(
                    crate::model::sdk::rmcp::RMCP
                        .redesign_help(lit.method)
                        .to_string(),
                ),
            },
        };
        cx.emit(draft);
    }
}

const RAW_HELP: &str = "put the request in the `inputRequests` map of an `InputRequiredResult` \
returned from the `tools/call`, `prompts/get` or `resources/read` handler, and resume from \
`requestState` on the retry";

/// The SDK whose own package (its `src/`) the file is in: its senders are reported for its
/// authors, whose whole SDK must move to MRTR.
fn sdk_itself(cx: &Cx<'_>) -> Option<&'static SdkTable> {
    if !cx.facts().in_sdk_itself() {
        return None;
    }
    let name = cx.facts().package.as_deref()?.name.as_str();
    SDKS.iter().copied().find(|s| s.packages.contains(&name))
}

/// A send in an SDK's own source: one finding for its authors (MCP004), wherever it stands.
fn report_in_sdk(cx: &mut Cx<'_>, sdk: &SdkTable, lits: &[RawLit], how: &str) {
    for lit in lits {
        let wire = lit.method.wire();
        cx.emit(Draft {
            code: "MCP004",
            first: lit.span,
            last: lit.span,
            message: format!(
                "`{}`'s own code sends `{wire}` to the client {how}; this is the SDK's own sender, and on \
2026-07-28 no server may send it mid-request",
                sdk.name
            ),
            mcp_method: Some(lit.method),
            sdk: Some(sdk.name),
            help: Some(SDK_AUTHOR_HELP.to_string()),
        });
    }
}

const SDK_AUTHOR_HELP: &str = "for SDK authors: give servers an MRTR way to ask (return an \
`InputRequiredResult` whose `inputRequests` carry this request, and hand the answers to the \
handler on the retry with `requestState`), keep this sender only for sessions that negotiated an \
older protocol, and deprecate it for 2026-07-28 sessions";

fn report_literals(cx: &mut Cx<'_>, lits: Vec<RawLit>, sink: &str) {
    // Asked of every method call: most have no literal, and need no messages built.
    if lits.is_empty() {
        return;
    }
    let travel = Travel {
        reachable: format!("sent to the client (through `{sink}`)"),
        unreachable: "sent to the client".to_string(),
        in_sdk: format!("through `{sink}`"),
        sent_from_spawned: false,
    };
    report_raw(cx, lits, &travel);
}
