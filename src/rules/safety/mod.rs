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

use crate::engine::{Cx, Draft, HandlerKind, Rule};
use body::Body;

/// The MRTR safety rules, MCP101 to MCP109.
pub struct Safety;

/// The trigger tokens of MCP101 to MCP109 (from the catalog), as one matcher.
fn fn_triggers() -> &'static aho_corasick::AhoCorasick {
    static TRIGGERS: std::sync::LazyLock<aho_corasick::AhoCorasick> =
        std::sync::LazyLock::new(|| {
            let catalog = crate::catalog::catalog();
            let tokens: Vec<&str> = Safety
                .codes()
                .iter()
                .filter_map(|c| catalog.get(c))
                .flat_map(|r| r.triggers.iter().map(String::as_str))
                .collect();
            aho_corasick::AhoCorasickBuilder::new()
                .match_kind(aho_corasick::MatchKind::LeftmostFirst)
                .build(tokens)
                .expect("trigger tokens build a matcher")
        });
    &TRIGGERS
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
        // Every check starts from one of its codes' trigger tokens in the fn (its signature or
        // body); indexing a body costs more than parsing it, and most fns of a server have none.
        let text = cx
            .line_index()
            .text_between(sig.fn_token.span, block.brace_token.span.close());
        if !fn_triggers().is_match(text) {
            return;
        }
        let f = FnView {
            body: Body::scan(sig, block),
            name: sig.ident.to_string(),
            kind,
        };
        state_mint::check(cx, &f);
        state_trust::check(cx, &f);
        seal_binding::check(cx, &f);
        state_key::check(cx, &f);
        state_secrets::check(cx, &f);
        input_required::check(cx, &f);
        capability::check(cx, &f);
        elicit_form::check(cx, &f);
        elicit_answer::check(cx, &f);
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
            .map(|&i| crate::sdk::SDKS[i].name)
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
