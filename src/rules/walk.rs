//! The one walk over a parsed file: keeps the scope model up to date (bindings, enclosing impl and
//! fn, spawned tasks) and asks every rule at every node.

use crate::model::fast_hash::{HashMap, HashSet};

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::visit::Visit;

use crate::model::callgraph::CallGraph;
use crate::model::prefilter::Prefilter;
use crate::model::request_helpers::{deferred_question, unguarded_parts};
use crate::model::scope::{type_name, FileFacts, Kind, Origin, Value};
use crate::model::state::{FnContext, ImplInfo, State};
use crate::reading::macro_body::{parse_macro_body, Piece};
use crate::reading::name;
use crate::reading::source::{LineIndex, Range};
use crate::rules::engine::{Cx, Draft, Rule};

/// Calls and methods whose arguments run in another task.
use crate::model::scope::SPAWNS;

/// Methods whose closure argument receives (an element of) the receiver:
/// `peers.iter().map(|p| p.list_roots())`, `self.peer.as_ref().map(|p| ..)`.
const ADAPTERS: &[&str] = &[
    "map",
    "and_then",
    "for_each",
    "filter_map",
    "flat_map",
    "then",
    "inspect",
    "map_or",
    "map_or_else",
    "is_some_and",
    "is_ok_and",
    "filter",
    "find",
    "any",
    "all",
    "take_while",
    "skip_while",
    "try_for_each",
    "position",
    "find_map",
    "if_some",
];

/// The walker: owns the scope state and the findings of one file.
pub struct Walker<'a> {
    state: State<'a>,
    rules: &'a [&'static dyn Rule],
    /// Every trigger token, whatever rules are enabled: a macro body without one (and without a
    /// local name that carries something) cannot hold a finding, so it is not parsed.
    triggers: &'a Prefilter,
    pub out: Vec<(Range, Draft)>,
    macro_depth: usize,
    /// What the next closure's first parameter is (set for closure arguments of [`ADAPTERS`]).
    closure_param: Option<Value>,
}

impl<'a> Walker<'a> {
    pub fn new(
        facts: &'a FileFacts,
        callgraph: &'a CallGraph,
        lines: &'a LineIndex<'a>,
        rules: &'a [&'static dyn Rule],
        triggers: &'a Prefilter,
    ) -> Self {
        Walker {
            state: State::new(facts, callgraph, lines),
            rules,
            triggers,
            out: Vec::new(),
            macro_depth: 0,
            closure_param: None,
        }
    }

    fn ask(&mut self, f: impl Fn(&dyn Rule, &mut Cx<'_>)) {
        let state = &self.state;
        let mut cx = Cx {
            state,
            out: &mut self.out,
        };
        for r in self.rules {
            f(*r, &mut cx);
        }
    }

    fn with_frame(&mut self, f: impl FnOnce(&mut Self)) {
        self.state.frames.push(HashMap::default());
        f(self);
        self.state.frames.pop();
    }

    fn enter_fn(
        &mut self,
        attrs: &[syn::Attribute],
        sig: &syn::Signature,
        in_impl: bool,
        block: &syn::Block,
    ) {
        let name = sig.ident.to_string();
        let handler = if in_impl {
            self.state.impls.last().and_then(|i| i.handler)
        } else {
            None
        };
        // Each parameter's kind, once: whether the fn takes a request context and its bindings.
        let params: Vec<(&syn::PatType, Kind)> = sig
            .inputs
            .iter()
            .filter_map(|i| match i {
                syn::FnArg::Typed(pt) => Some((pt, self.state.classify(&pt.ty))),
                syn::FnArg::Receiver(_) => None,
            })
            .collect();
        let takes_context = params
            .iter()
            .any(|(_, kind)| matches!(kind, Kind::Context { .. }));
        let kind = crate::model::callgraph::handler_kind(
            self.state.facts,
            handler,
            attrs,
            sig,
            takes_context,
        );
        let generics: HashSet<String> = sig
            .generics
            .type_params()
            .map(|t| t.ident.to_string())
            .collect();
        self.state.generics.push(generics);
        let test = self.state.context().test || is_test_attr(attrs);
        self.state.contexts.push(FnContext {
            kind,
            name,
            spawned: false,
            test,
        });
        let body = self.state.lines.text_between(
            block.brace_token.span.open(),
            block.brace_token.span.close(),
        );
        let names = std::mem::replace(
            &mut self.state.fn_names,
            crate::model::state::RequestNames::in_text(body),
        );
        self.with_frame(|w| {
            for (pt, kind) in params {
                w.state.bind_pat(&pt.pat, Value::of(kind, Origin::Param));
            }
            w.ask(|r, cx| r.check_fn(cx, sig, block));
            w.visit_block(block);
        });
        self.state.fn_names = names;
        self.state.contexts.pop();
        self.state.generics.pop();
    }

    fn spawned<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let mut cx = self.state.context().clone();
        cx.spawned = true;
        self.state.contexts.push(cx);
        let r = f(self);
        self.state.contexts.pop();
        r
    }

    /// Whether walking a macro's body can find anything. A finding in it needs a trigger token
    /// there, or a local name that carries a request or an SDK value from outside
    /// (`send(req)` after `let req = json!({"method": "roots/list"})`). Parsing the body of every
    /// `format!` and `debug!` was a tenth of the analysis.
    fn macro_may_matter(&self, m: &syn::Macro) -> bool {
        let delim = m.delimiter.span();
        let text = self.state.lines.text_between(delim.open(), delim.close());
        let package = self.state.facts.package.as_deref();
        if self.triggers.has_trigger_in(text.as_bytes(), package)
            && self
                .triggers
                .has_trigger_in(&code_and_methods(text), package)
        {
            return true;
        }
        fn carries(w: &Walker<'_>, ts: &proc_macro2::TokenStream) -> bool {
            ts.clone().into_iter().any(|t| match t {
                proc_macro2::TokenTree::Ident(i) => {
                    w.state.lookup(&name::of(&i)).is_some_and(|v| {
                        v.request.is_some()
                            || !v.raw.is_empty()
                            || v.kind != crate::model::scope::Kind::Unknown
                    })
                }
                proc_macro2::TokenTree::Group(g) => carries(w, &g.stream()),
                _ => false,
            })
        }
        carries(self, &m.tokens)
    }

    fn visit_pieces(&mut self, pieces: Vec<Piece>) {
        for p in pieces {
            match p {
                Piece::Expr(e) => self.visit_expr(&e),
                Piece::Stmts(stmts) => self.with_frame(|w| {
                    for s in &stmts {
                        w.visit_stmt(s);
                    }
                }),
                Piece::Items(items) => {
                    for i in &items {
                        self.visit_item(i);
                    }
                }
                Piece::Type(t) => self.visit_type(&t),
            }
        }
    }
}

/// A macro body's text with the insides of its string literals blanked, but for those that hold a
/// `/`: a trigger word in a log line or a format string (`format!("{confirmed}")`,
/// `info!("elicitation declined")`) is no call and keeps no macro body worth parsing, while a
/// method's wire name (`"roots/list"`, in `json!` or JSON text) is what the request rules read.
fn code_and_methods(text: &str) -> Vec<u8> {
    let mut out = text.as_bytes().to_vec();
    for token in crate::reading::lexer::Lexer::new(text.as_bytes()) {
        if let crate::reading::lexer::Token::Literal(r) = token {
            if !out[r.clone()].contains(&b'/') {
                out[r].fill(b' ');
            }
        }
    }
    out
}

/// `#[test]`, `#[tokio::test]`, `#[rstest]`, `#[test_case(..)]`, or `#[cfg(test)]`.
fn is_test_attr(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        let last = a.path().segments.last().map(|s| name::of(&s.ident));
        match last.as_deref().unwrap_or_default() {
            "test" | "rstest" | "test_case" | "quickcheck" | "proptest" => true,
            "cfg" => a.parse_args::<syn::Ident>().is_ok_and(|i| i == "test"),
            _ => false,
        }
    })
}

fn last_ident(e: &syn::Expr) -> Option<name::Name> {
    match e {
        syn::Expr::Path(p) => p.path.segments.last().map(|s| name::of(&s.ident)),
        _ => None,
    }
}

impl<'ast> Visit<'ast> for Walker<'_> {
    fn visit_item_use(&mut self, _: &'ast syn::ItemUse) {}

    fn visit_item(&mut self, i: &'ast syn::Item) {
        self.ask(|r, cx| r.check_item(cx, i));
        syn::visit::visit_item(self, i);
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        let handler = i
            .trait_
            .as_ref()
            .and_then(|(_, path, _)| self.state.facts.handler_trait(path));
        let generics: HashSet<String> = i
            .generics
            .type_params()
            .map(|t| t.ident.to_string())
            .collect();
        self.state.generics.push(generics);
        self.state.impls.push(ImplInfo {
            self_name: type_name(&i.self_ty),
            handler,
        });
        syn::visit::visit_item_impl(self, i);
        self.state.impls.pop();
        self.state.generics.pop();
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if is_test_attr(&m.attrs) && !self.state.context().test {
            let mut cx = self.state.context().clone();
            cx.test = true;
            self.state.contexts.push(cx);
            syn::visit::visit_item_mod(self, m);
            self.state.contexts.pop();
        } else {
            syn::visit::visit_item_mod(self, m);
        }
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        // A fn item nested in a method is not part of the impl.
        let impls = std::mem::take(&mut self.state.impls);
        self.enter_fn(&f.attrs, &f.sig, false, &f.block);
        self.state.impls = impls;
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.enter_fn(&f.attrs, &f.sig, true, &f.block);
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if let Some(block) = &f.default {
            self.enter_fn(&f.attrs, &f.sig, false, block);
        }
    }

    fn visit_block(&mut self, b: &'ast syn::Block) {
        self.with_frame(|w| syn::visit::visit_block(w, b));
    }

    fn visit_local(&mut self, l: &'ast syn::Local) {
        let Some(init) = &l.init else {
            self.state
                .bind_pat(&l.pat, Value::of(Kind::Unknown, Origin::Unknown));
            return;
        };
        self.ask(|r, cx| r.check_local(cx, l));
        // `let task = async move { .. }; tokio::spawn(task);`: the body runs in the spawned task.
        let spawned_later = matches!(&l.pat, syn::Pat::Ident(pi) if self.state.facts.spawned_names.contains(&*name::of(&pi.ident)))
            && matches!(&*init.expr, syn::Expr::Async(_) | syn::Expr::Closure(_));
        if spawned_later {
            self.spawned(|w| w.visit_expr(&init.expr));
        } else {
            self.visit_expr(&init.expr);
        }
        if let Some((_, diverge)) = &init.diverge {
            self.visit_expr(diverge);
        }
        let v = self.state.let_value(&init.expr);
        self.state.bind_pat(&l.pat, v);
    }

    fn visit_expr(&mut self, e: &'ast syn::Expr) {
        self.ask(|r, cx| r.check_expr(cx, e));
        if let Some(question) = deferred_question(e) {
            // The send in `or_send`'s closure is the runtime's fallback for older requests:
            // the migration already took this ask (see `fix::jsonrpc::ask`).
            self.visit_expr(question);
            return;
        }
        if let Some(parts) = unguarded_parts(e) {
            // Likewise the write under `Question::message(..).sends()` (`fix::jsonrpc::exchange`).
            for part in parts {
                self.visit_expr(part);
            }
            return;
        }
        syn::visit::visit_expr(self, e);
    }

    fn visit_expr_closure(&mut self, c: &'ast syn::ExprClosure) {
        let mut first = self.closure_param.take();
        self.with_frame(|w| {
            for p in &c.inputs {
                let v = first
                    .take()
                    .unwrap_or_else(|| Value::of(Kind::Unknown, Origin::Param));
                w.state.bind_pat(p, v);
            }
            w.visit_expr(&c.body);
        });
    }

    fn visit_expr_if(&mut self, i: &'ast syn::ExprIf) {
        self.with_frame(|w| {
            w.visit_expr(&i.cond);
            w.visit_block(&i.then_branch);
        });
        if let Some((_, e)) = &i.else_branch {
            self.visit_expr(e);
        }
    }

    fn visit_expr_while(&mut self, wl: &'ast syn::ExprWhile) {
        self.with_frame(|w| {
            w.visit_expr(&wl.cond);
            w.visit_block(&wl.body);
        });
    }

    fn visit_expr_let(&mut self, l: &'ast syn::ExprLet) {
        self.visit_expr(&l.expr);
        let v = self.state.let_value(&l.expr);
        self.state.bind_pat(&l.pat, v);
    }

    fn visit_expr_match(&mut self, m: &'ast syn::ExprMatch) {
        self.visit_expr(&m.expr);
        let v = self.state.let_value(&m.expr);
        for arm in &m.arms {
            self.with_frame(|w| {
                w.state.bind_pat(&arm.pat, v.clone());
                if let Some((_, g)) = &arm.guard {
                    w.visit_expr(g);
                }
                w.visit_expr(&arm.body);
            });
        }
    }

    fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
        self.visit_expr(&f.expr);
        let v = self.state.let_value(&f.expr);
        self.with_frame(|w| {
            w.state.bind_pat(&f.pat, v);
            w.visit_block(&f.body);
        });
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        self.visit_expr(&c.func);
        let spawn = last_ident(&c.func).is_some_and(|n| SPAWNS.contains(&&*n));
        let visit_args = |w: &mut Self| {
            for a in &c.args {
                w.visit_expr(a);
            }
        };
        if spawn {
            self.spawned(visit_args);
        } else {
            visit_args(self);
        }
    }

    fn visit_expr_method_call(&mut self, mc: &'ast syn::ExprMethodCall) {
        self.visit_expr(&mc.receiver);
        if let Some(t) = &mc.turbofish {
            self.visit_angle_bracketed_generic_arguments(t);
        }
        let method = name::of(&mc.method);
        let spawn = SPAWNS.contains(&&*method);
        let element = ADAPTERS
            .contains(&&*method)
            .then(|| self.state.value_of(&mc.receiver));
        let visit_args = |w: &mut Self| {
            for a in &mc.args {
                if matches!(a, syn::Expr::Closure(_)) {
                    w.closure_param = element.clone();
                }
                w.visit_expr(a);
                w.closure_param = None;
            }
        };
        if spawn {
            self.spawned(visit_args);
        } else {
            visit_args(self);
        }
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.ask(|r, cx| r.check_macro(cx, m));
        // Macro bodies are walked when they parse as Rust; a bound keeps macro-heavy code cheap.
        if self.macro_depth >= 16 {
            return;
        }
        let name = m.path.segments.last().map(|s| name::of(&s.ident));
        if !self.macro_may_matter(m) {
            return;
        }
        let pieces = parse_macro_body(&m.tokens);
        self.macro_depth += 1;
        if SPAWNS.contains(&name.as_deref().unwrap_or_default()) {
            self.spawned(|w| w.visit_pieces(pieces));
        } else {
            self.visit_pieces(pieces);
        }
        self.macro_depth -= 1;
    }

    fn visit_type(&mut self, t: &'ast syn::Type) {
        self.ask(|r, cx| r.check_type(cx, t));
        syn::visit::visit_type(self, t);
    }

    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {}
}

/// Span helpers for rules.
pub fn expr_span(e: &syn::Expr) -> Span {
    e.span()
}
