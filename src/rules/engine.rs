//! The rule API: how a rule sees the walk and reports what it finds.
//!
//! The engine parses a file once and walks it once (`walk.rs`). At every expression, macro
//! invocation, type and item it asks each [`Rule`]; the rule reads the scope model through
//! [`Cx`] and reports with [`Cx::emit`]. Rules hold no per-file state of their own, so one
//! instance serves every thread.

use proc_macro2::Span;

use crate::model::callgraph::HandlerKind;
use crate::model::scope::{FileFacts, Origin, Value};
use crate::model::sdk::McpMethod;
use crate::model::state::{FnContext, State};
use crate::reading::source::{LineIndex, Range};

/// How MCP006 names a request sent through a peer kept in a struct or static; the fix planner
/// (`fix::rmcp::deferred`), which sees findings, not placements, recognizes them by it.
pub const THROUGH_A_STORED_PEER: &str = "through a stored peer in";
/// How MCP006 names a request a gateway's relay forwards to the stored downstream peer; the fix
/// planner recognizes these by it too (the same deferred form reaches them).
pub const FORWARDED_BY_A_RELAY: &str = "a client-side handler that forwards it";

/// A lint rule. Implement only the hooks you need; register the rule in `rules::ALL` and describe
/// each of its codes in `rules/<CODE>.toml`.
pub trait Rule: Send + Sync {
    /// The catalog codes this rule can emit.
    fn codes(&self) -> &'static [&'static str];
    fn check_expr(&self, _cx: &mut Cx<'_>, _expr: &syn::Expr) {}
    /// A macro invocation, in expression, statement or item position, before its body is walked.
    fn check_macro(&self, _cx: &mut Cx<'_>, _mac: &syn::Macro) {}
    fn check_type(&self, _cx: &mut Cx<'_>, _ty: &syn::Type) {}
    /// A `let` with an initializer, before it is walked (its pattern against its value).
    fn check_local(&self, _cx: &mut Cx<'_>, _local: &syn::Local) {}
    fn check_item(&self, _cx: &mut Cx<'_>, _item: &syn::Item) {}
    /// A fn or method with a body, once, before its body is walked: `cx.context()` is already the
    /// fn's own. For rules that need the whole body at once (what flows into what, what the fn
    /// never does); nested fn items get their own call.
    fn check_fn(&self, _cx: &mut Cx<'_>, _sig: &syn::Signature, _block: &syn::Block) {}
}

/// Legacy-request codes quiet in test code unless `report-test-code` is set: a mock server in a
/// test module is no code to migrate. (MCP005 stays: a removed API breaks the build of tests too.)
pub const LEGACY_REQUEST_CODES: &[&str] = &["MCP001", "MCP002", "MCP003", "MCP004", "MCP006"];

/// Where a request call sits, as far as MRTR is concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placement {
    /// Inside (or possibly inside) a request that can return `InputRequiredResult`.
    Reachable,
    /// MRTR cannot reach it; the string says why, for the message.
    Unreachable(String, Unreached),
}

/// Where an unreachable request is, for the rules whose advice depends on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unreached {
    /// Through a peer kept in a struct or static (the runtime's deferred ask can reach it).
    StoredPeer,
    /// From a client-side handler forwarding to this program's own client (a gateway's relay).
    Relay,
    /// A hook, another request, a spawned task, a running service.
    Elsewhere,
}

/// A finding as a rule reports it; the engine adds the rule's name, level and path.
#[derive(Debug, Clone)]
pub struct Draft {
    pub code: &'static str,
    pub first: Span,
    pub last: Span,
    pub message: String,
    pub mcp_method: Option<McpMethod>,
    pub sdk: Option<&'static str>,
    pub help: Option<String>,
}

/// The read side of the walk that rules see, plus the place to report.
pub struct Cx<'a> {
    pub(crate) state: &'a State<'a>,
    pub(crate) out: &'a mut Vec<(Range, Draft)>,
}

impl<'a> Cx<'a> {
    pub fn facts(&self) -> &FileFacts {
        self.state.facts
    }

    /// What the scope model knows about an expression's value.
    pub fn value_of(&self, e: &syn::Expr) -> Value {
        self.state.value_of(e)
    }

    /// The value bound to a local name, if any.
    pub fn lookup(&self, name: &str) -> Option<&Value> {
        self.state.lookup(name)
    }

    pub fn context(&self) -> &FnContext {
        self.state.context()
    }

    /// Test code: inside a test fn or `#[cfg(test)]` item, or in a file under `tests/` or
    /// `benches/`.
    pub fn in_test_code(&self) -> bool {
        self.state.facts.test_file || self.context().test
    }

    pub fn line_index(&self) -> &LineIndex<'a> {
        self.state.lines
    }

    /// Hand-written request literals in an expression, and those carried by the names it uses.
    pub fn raw_requests_in(&self, e: &syn::Expr) -> Vec<crate::model::scan::RawRequest> {
        self.state.raw_requests_in_expr(e)
    }

    /// Same for the tokens of a macro invocation.
    pub fn raw_requests_in_tokens(
        &self,
        ts: &proc_macro2::TokenStream,
    ) -> Vec<crate::model::scan::RawRequest> {
        self.state.raw_requests_in_tokens(ts)
    }

    /// The request an expression stands for (`ServerRequest::ListRootsRequest(..)`, or a name
    /// bound to one).
    pub fn request_in(&self, e: &syn::Expr) -> Option<McpMethod> {
        self.state.request_in(e)
    }

    /// Decides whether a server-to-client request made here, through a peer of `origin`, can be
    /// turned into an MRTR round.
    pub fn placement(&self, origin: Origin) -> Placement {
        let cx = self.context();
        let name = &cx.name;
        if cx.spawned {
            return Placement::Unreachable(
                "inside a spawned task, which outlives the request that started it".into(),
                Unreached::Elsewhere,
            );
        }
        // How the file's handlers reach a plain fn (see `callgraph.rs`), worked out only here:
        // for every fn of a long call chain it would cost time quadratic in the chain.
        let reach = match cx.kind {
            HandlerKind::Plain => self.state.callgraph.reach(name),
            _ => crate::model::callgraph::Reach::Unknown,
        };
        match (&cx.kind, &reach) {
            (HandlerKind::Plain, crate::model::callgraph::Reach::Request) => return Placement::Reachable,
            (HandlerKind::Plain, crate::model::callgraph::Reach::Spawned(spawner)) => {
                return Placement::Unreachable(format!(
                    "in `{name}`, which runs only in a task that `{spawner}` spawns (a task outlives the request that started it)"
                ), Unreached::Elsewhere)
            }
            (HandlerKind::Plain, crate::model::callgraph::Reach::Unreachable(caller)) => {
                return Placement::Unreachable(format!(
                    "in `{name}`, which is called only from `{caller}` and other code MRTR cannot reach"
                ), Unreached::Elsewhere)
            }
            _ => {}
        }
        match cx.kind {
            HandlerKind::Hook => Placement::Unreachable(
                format!(
                    "from `{name}`, a notification hook or handler method that is not a request"
                ),
                Unreached::Elsewhere,
            ),
            HandlerKind::Client => Placement::Unreachable(
                format!("from `{name}`, {FORWARDED_BY_A_RELAY} to this program's own client"),
                Unreached::Relay,
            ),
            HandlerKind::OtherRequest => Placement::Unreachable(
                format!(
                    "from `{name}`, a request that cannot return `InputRequiredResult` (only \
`tools/call`, `prompts/get` and `resources/read` can)"
                ),
                Unreached::Elsewhere,
            ),
            HandlerKind::Plain if origin == Origin::Stored => Placement::Unreachable(
                format!(
                    "{THROUGH_A_STORED_PEER} `{}`, which is not a request handler",
                    if name.is_empty() { "file scope" } else { name }
                ),
                Unreached::StoredPeer,
            ),
            HandlerKind::Plain if origin == Origin::Running => Placement::Unreachable(
                format!(
                    "through a running service in `{}`, outside any request",
                    if name.is_empty() { "file scope" } else { name }
                ),
                Unreached::Elsewhere,
            ),
            _ => Placement::Reachable,
        }
    }

    /// Reports a finding spanning `first` to `last`.
    pub fn emit(&mut self, draft: Draft) {
        if LEGACY_REQUEST_CODES.contains(&draft.code)
            && self.in_test_code()
            && !self.state.facts.report_test_code
        {
            return;
        }
        let range = self.state.lines.range_between(draft.first, draft.last);
        self.out.push((range, draft));
    }
}
