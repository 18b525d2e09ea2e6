//! MCP106 input-required-misuse: an `InputRequiredResult` from a method that may not return one
//! (S4), or one with neither `inputRequests` nor `requestState` (S6).

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::visit::Visit;

use super::body::{
    call_path, is_none, json_entries, json_root, json_str, macro_json_objects, unwrap_some, Body,
};
use super::{emit, sdk_of, FnView};
use crate::model::callgraph::HandlerKind;
use crate::rules::engine::Cx;

/// Handler names (rmcp's, and the same names with `handle_`) whose method cannot answer
/// `input_required`, with the wire method.
const NOT_MRTR: &[(&str, &str)] = &[
    ("list_tools", "tools/list"),
    ("list_prompts", "prompts/list"),
    ("list_resources", "resources/list"),
    ("list_resource_templates", "resources/templates/list"),
    ("complete", "completion/complete"),
    ("initialize", "initialize"),
    ("discover", "server/discover"),
    ("ping", "ping"),
    ("set_level", "logging/setLevel"),
    ("subscribe", "resources/subscribe"),
    ("unsubscribe", "resources/unsubscribe"),
];

const MRTR_WIRE: &[&str] = &["tools/call", "prompts/get", "resources/read"];

/// Wire methods of requests a server answers (so a match on them is a dispatcher).
fn is_request_wire(m: &str) -> bool {
    [
        "tools/",
        "prompts/",
        "resources/",
        "completion/",
        "server/",
        "subscriptions/",
        "logging/",
    ]
    .iter()
    .any(|p| m.starts_with(p))
        || matches!(m, "initialize" | "ping")
}

/// Where an expression builds an input_required result.
#[derive(Default)]
struct Builds {
    spans: Vec<Span>,
}

impl<'a> Visit<'a> for Builds {
    fn visit_item(&mut self, _: &'a syn::Item) {}
    fn visit_path(&mut self, p: &'a syn::Path) {
        let segs: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        let hit = segs.iter().any(|s| s == "InputRequiredResult")
            || segs.last().is_some_and(|l| {
                l == "InputRequired" || l == "INPUT_REQUIRED" || l == "input_required"
            });
        if hit {
            self.spans.push(p.span());
            return;
        }
        syn::visit::visit_path(self, p);
    }
    fn visit_macro(&mut self, m: &'a syn::Macro) {
        let objs = macro_json_objects(&m.tokens);
        for o in objs {
            for (k, span, v) in json_entries(&o) {
                if k == "resultType" && json_str(&v).is_some_and(|(s, _)| s == "input_required") {
                    self.spans.push(span);
                }
            }
        }
    }
}

fn builds_in(e: &syn::Expr) -> Vec<Span> {
    let mut v = Builds::default();
    v.visit_expr(e);
    v.spans
}

fn wrong_method(cx: &mut Cx<'_>, f: &FnView<'_>, block_exprs: &[Span]) {
    let bare = f.name.strip_prefix("handle_").unwrap_or(&f.name);
    let Some((_, wire)) = NOT_MRTR.iter().find(|(n, _)| *n == bare) else {
        return;
    };
    let handlerish = matches!(
        f.kind,
        HandlerKind::OtherRequest | HandlerKind::Hook | HandlerKind::Plain
    );
    if !handlerish {
        return;
    }
    if let Some(span) = block_exprs.first() {
        emit(
            cx,
            "MCP106",
            *span,
            sdk_of(cx),
            format!(
                "`{}` answers `{wire}`, which may not return an InputRequiredResult. S4: only `tools/call`, \
`prompts/get` and `resources/read` may answer `input_required`",
                f.name
            ),
            "return the method's normal result; if it needs user input, move the question into a tool, \
prompt or resource read, or answer -32021 (missing client capability) when a capability is missing",
        );
    }
}

fn dispatch_arms(cx: &mut Cx<'_>, b: &Body<'_>) {
    for m in &b.matches {
        for arm in &m.arms {
            let mut wires = Vec::new();
            collect_lit_pats(&arm.pat, &mut wires);
            let Some(wire) = wires
                .iter()
                .find(|w| is_request_wire(w) && !MRTR_WIRE.contains(&w.as_str()))
            else {
                continue;
            };
            if let Some(span) = builds_in(&arm.body).first() {
                emit(
                    cx,
                    "MCP106",
                    *span,
                    Some("raw"),
                    format!(
                        "the `{wire}` arm answers `input_required`. S4: only `tools/call`, `prompts/get` and \
`resources/read` may return an InputRequiredResult"
                    ),
                    "return the method's normal result; ask for input from a tool, prompt or resource read instead",
                );
            }
        }
    }
}

fn collect_lit_pats(p: &syn::Pat, out: &mut Vec<String>) {
    match p {
        syn::Pat::Lit(l) => {
            if let syn::Lit::Str(s) = &l.lit {
                out.push(s.value());
            }
        }
        syn::Pat::Or(o) => o.cases.iter().for_each(|c| collect_lit_pats(c, out)),
        _ => {}
    }
}

/// An empty map literal, or a local only ever bound to one and never filled.
fn empty_requests(b: &Body<'_>, e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Call(c) => {
            let p = call_path(c);
            c.args.is_empty()
                && p.last().is_some_and(|l| l == "new" || l == "default")
                && p.len() >= 2
                && matches!(
                    p[p.len() - 2].as_str(),
                    "InputRequests" | "BTreeMap" | "HashMap" | "Default"
                )
        }
        syn::Expr::Path(p) if p.path.segments.len() == 1 => {
            let name = p.path.segments[0].ident.to_string();
            let inits = b.inits(&name);
            let filled = b.methods.iter().any(|m| {
                matches!(
                    m.method.to_string().as_str(),
                    "insert" | "extend" | "append" | "entry" | "push"
                ) && super::body::last_name(&m.receiver).as_deref() == Some(name.as_str())
            });
            !inits.is_empty() && !filled && inits.iter().all(|i| empty_requests(b, i))
        }
        syn::Expr::Paren(p) => empty_requests(b, &p.expr),
        _ => false,
    }
}

fn empty_result(cx: &mut Cx<'_>, b: &Body<'_>) {
    const MSG: &str = "this InputRequiredResult has neither `inputRequests` nor `requestState`: the client has \
nothing to answer and nothing to echo. S6: every InputRequiredResult MUST include at least one of them \
(rmcp 3.1+ clients reject it)";
    const HELP: &str =
        "add the input requests the handler needs, or a sealed `requestState` for a state-only \
round; if nothing is needed, return the complete result";
    let mut spans = Vec::new();
    for c in &b.calls {
        let p = call_path(c);
        let n = p.len();
        if n < 2 || p[n - 2] != "InputRequiredResult" {
            continue;
        }
        let empty = match (p[n - 1].as_str(), c.args.len()) {
            ("new", 2) => {
                let reqs_empty = unwrap_some(&c.args[0]).is_none_or(|r| empty_requests(b, r));
                reqs_empty && is_none(&c.args[1])
            }
            ("from_input_requests", 1) => empty_requests(b, &c.args[0]),
            _ => false,
        };
        if empty {
            spans.push(c.span());
        }
    }
    for s in &b.structs {
        if s.path
            .segments
            .last()
            .is_none_or(|l| l.ident != "InputRequiredResult")
        {
            continue;
        }
        let field = |n: &str| {
            s.fields
                .iter()
                .find(|f| matches!(&f.member, syn::Member::Named(m) if m == n))
        };
        let absent = |n: &str| {
            field(n).is_none_or(|f| unwrap_some(&f.expr).is_none_or(|r| empty_requests(b, r)))
        };
        if absent("input_requests") && absent("request_state") {
            spans.push(s.span());
        }
    }
    for m in &b.macros {
        let objs = macro_json_objects(&m.tokens);
        for o in objs {
            let entries = json_entries(&o);
            let Some((_, span, _)) = entries.iter().find(|(k, _, v)| {
                k == "resultType" && json_str(v).is_some_and(|(s, _)| s == "input_required")
            }) else {
                continue;
            };
            let reqs = entries.iter().find(|(k, _, _)| k == "inputRequests");
            let reqs_empty =
                reqs.is_none_or(|(_, _, v)| json_root(v).is_some_and(|o| o.is_empty()));
            let state = entries.iter().any(|(k, _, v)| {
                k == "requestState" && !json_str(v).is_some_and(|(s, _)| s.is_empty())
            });
            if reqs_empty && !state {
                spans.push(*span);
            }
        }
    }
    for span in spans {
        emit(cx, "MCP106", span, sdk_of(cx), MSG.to_string(), HELP);
    }
}

pub(super) fn check(cx: &mut Cx<'_>, f: &FnView<'_>) {
    let b = &f.body;
    let mut builds = Vec::new();
    for c in &b.calls {
        let p = call_path(c);
        if p.iter().any(|s| s == "InputRequiredResult")
            || p.last()
                .is_some_and(|l| l == "InputRequired" || l == "input_required")
        {
            builds.push(c.func.span());
        }
    }
    for s in &b.structs {
        if s.path
            .segments
            .last()
            .is_some_and(|l| l.ident == "InputRequiredResult")
        {
            builds.push(s.path.span());
        }
    }
    for m in &b.macros {
        builds.extend(Builds::default().tap_macro(m));
    }
    wrong_method(cx, f, &builds);
    dispatch_arms(cx, b);
    empty_result(cx, b);
}

impl Builds {
    fn tap_macro(mut self, m: &syn::Macro) -> Vec<Span> {
        self.visit_macro(m);
        self.spans
    }
}
