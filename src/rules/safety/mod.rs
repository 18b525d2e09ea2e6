//! MCP101-MCP109: the MRTR security rules. `requestState` comes back through the client, so it is
//! attacker input (spec section 2: S10-S16); input requests must match what the client declared
//! (S18, S28) and elicitation must not collect secrets in form mode (S29) nor trust an answer
//! that was not an accept (S30). Each fn body is indexed once ([`body::Body`]) and every check
//! reads that index; one submodule per code.

mod body;
mod capability;
mod elicit_answer;
mod elicit_form;
mod input_required;
mod seal_binding;
mod state_key;
mod state_mint;
mod state_secrets;
mod state_trust;
pub mod words;

use proc_macro2::Span;

use crate::model::callgraph::HandlerKind;
use crate::rules::engine::{Cx, Draft, Rule};
use body::Body;

/// The MRTR safety rules, MCP101 to MCP109.
pub struct Safety;

/// One check per code, in the order they run.
type Check = fn(&mut Cx<'_>, &FnView<'_>);
const CHECKS: [(&str, Check); 9] = [
    ("MCP101", state_mint::check),
    ("MCP102", state_trust::check),
    ("MCP103", seal_binding::check),
    ("MCP104", state_key::check),
    ("MCP105", state_secrets::check),
    ("MCP106", input_required::check),
    ("MCP107", capability::check),
    ("MCP108", elicit_form::check),
    ("MCP109", elicit_answer::check),
];

/// The trigger tokens of the checks (from the catalog) and, per token, the checks it starts.
struct Triggers {
    matcher: crate::model::prefilter::Overlapping,
    checks: Vec<Vec<usize>>,
}

impl Triggers {
    fn get() -> &'static Triggers {
        static TRIGGERS: std::sync::LazyLock<Triggers> = std::sync::LazyLock::new(|| {
            let catalog = crate::catalog::catalog();
            let mut tokens: Vec<&str> = Vec::new();
            let mut checks: Vec<Vec<usize>> = Vec::new();
            for (i, (code, _)) in CHECKS.iter().enumerate() {
                for t in catalog.get(code).map_or(&[][..], |r| &r.triggers[..]) {
                    match tokens.iter().position(|x| x == t) {
                        Some(k) => checks[k].push(i),
                        None => {
                            tokens.push(t);
                            checks.push(vec![i]);
                        }
                    }
                }
            }
            Triggers {
                matcher: crate::model::prefilter::Overlapping::new(&tokens)
                    .expect("trigger tokens build a matcher"),
                checks,
            }
        });
        &TRIGGERS
    }

    /// Which checks the text starts: those with a trigger token in it. Overlapping, so a token
    /// inside another (`Codec` in `RequestStateCodec`) counts too.
    fn started_by(&self, text: &str) -> [bool; CHECKS.len()] {
        let mut on = [false; CHECKS.len()];
        self.matcher.for_each(text.as_bytes(), |pattern, _, _| {
            for &i in &self.checks[pattern] {
                on[i] = true;
            }
        });
        on
    }
}

/// What every check sees: the fn's index and where it sits.
pub(crate) struct FnView<'a> {
    pub body: Body<'a>,
    /// The fn's name (`call_tool`), or empty for a `static` initializer.
    pub name: String,
    pub kind: HandlerKind,
}

impl Rule for Safety {
    fn codes(&self) -> &'static [&'static str] {
        &[
            "MCP101", "MCP102", "MCP103", "MCP104", "MCP105", "MCP106", "MCP107", "MCP108",
            "MCP109",
        ]
    }

    fn check_fn(&self, cx: &mut Cx<'_>, sig: &syn::Signature, block: &syn::Block) {
        let kind = cx.context().kind;
        // Tests pin keys, keep toy state and build malformed results on purpose.
        if kind == HandlerKind::Client || cx.in_test_code() {
            return;
        }
        // Every check starts from one of its code's trigger tokens in the fn (its signature or
        // body); indexing a body costs more than parsing it, and most fns of a server start
        // none, or one check of nine.
        let text = cx
            .line_index()
            .text_between(sig.fn_token.span, block.brace_token.span.close());
        let started = Triggers::get().started_by(text);
        if !started.contains(&true) {
            return;
        }
        let f = FnView {
            body: Body::scan(sig, block),
            name: sig.ident.to_string(),
            kind,
        };
        for ((_, check), on) in CHECKS.iter().zip(started) {
            if on {
                check(cx, &f);
            }
        }
    }

    fn check_item(&self, cx: &mut Cx<'_>, item: &syn::Item) {
        // A codec built in a `static` (`LazyLock::new(|| RequestStateCodec::try_new(KEY))`) is
        // in no fn body.
        let expr = match item {
            syn::Item::Static(s) => &s.expr,
            syn::Item::Const(c) => &c.expr,
            _ => return,
        };
        if cx.in_test_code() {
            return;
        }
        let f = FnView {
            body: Body::scan_expr(expr),
            name: String::new(),
            kind: HandlerKind::Plain,
        };
        state_key::check(cx, &f);
    }
}

/// Reports `code` at `span`.
pub(crate) fn emit(
    cx: &mut Cx<'_>,
    code: &'static str,
    span: Span,
    sdk: Option<&'static str>,
    message: String,
    help: &str,
) {
    cx.emit(Draft {
        code,
        first: span,
        last: span,
        message,
        mcp_method: None,
        sdk,
        help: Some(help.to_string()),
    });
}

/// The SDK a file's MRTR code is written against, for the finding's `sdk` field.
pub(crate) fn sdk_of(cx: &Cx<'_>) -> Option<&'static str> {
    if cx.facts().mentioned_sdks.is_empty() {
        Some("raw")
    } else {
        cx.facts()
            .mentioned_sdks
            .first()
            .map(|&i| crate::model::sdk::SDKS[i].name)
    }
}

/// Whether a call is on a requestState codec (rmcp's `RequestStateCodec`): its distinctive
/// method names, or a receiver named like one in a file that uses the type.
pub(crate) fn on_codec(cx: &Cx<'_>, method: &str, recv: Option<&str>) -> bool {
    let named = recv.is_some_and(|r| r.to_ascii_lowercase().contains("codec"));
    match method {
        "seal_json" | "seal_json_with" | "open_json" | "open_json_with" => true,
        "seal" | "seal_with" | "open" | "open_with" => {
            named || cx.line_index().text().contains("RequestStateCodec")
        }
        _ => false,
    }
}
