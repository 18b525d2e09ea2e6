//! The one walk over a parsed file: keeps the scope model up to date (bindings, enclosing impl and
//! fn, spawned tasks) and asks every rule at every node.

use std::collections::{HashMap, HashSet};

use proc_macro2::{Span, TokenStream};
use syn::spanned::Spanned;
use syn::visit::Visit;

use crate::model::callgraph::HandlerKind;
use crate::model::scan::{RawScan, RequestScan};
use crate::model::scope::{type_name, FileFacts, Kind, Origin, RawRequest, Value};
use crate::model::sdk::{HandlerTrait, McpMethod, SdkTable, Side, SDKS};
use crate::reading::macro_body::{parse_macro_body, Piece};
use crate::reading::source::{LineIndex, Range};
use crate::rules::engine::{Cx, Draft, FnContext, Rule};

/// Methods and functions that return (a handle on) what they are called on, for our purposes.
const TRANSPARENT_METHODS: &[&str] = &[
    "clone",
    "read",
    "write",
    "lock",
    "as_ref",
    "as_mut",
    "unwrap",
    "expect",
    "borrow",
    "borrow_mut",
    "get",
    "get_mut",
    "deref",
    "to_owned",
    "upgrade",
    "blocking_read",
    "blocking_write",
    "blocking_lock",
    "try_read",
    "try_write",
    "try_lock",
    "lock_owned",
    "read_owned",
    "write_owned",
    "load",
    "load_full",
    "iter",
    "values",
    "first",
    "last",
    "cloned",
    "into_iter",
    "unwrap_or_default",
    "as_deref",
    "ok",
    "ok_or",
    "ok_or_else",
    "context",
    "with_context",
];

/// Calls whose value is their first argument (`Some(peer)`, `Arc::new(peer)`).
const WRAPPING_CALLS: &[&str] = &["Some", "Ok", "new", "from", "Box", "Arc", "Rc"];

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

pub struct State<'a> {
    pub facts: &'a FileFacts,
    pub lines: &'a LineIndex<'a>,
    frames: Vec<HashMap<String, Value>>,
    contexts: Vec<FnContext>,
    impls: Vec<ImplInfo>,
    /// Type parameters of the enclosing impls and fns.
    generics: Vec<HashSet<String>>,
}

#[derive(Debug, Clone)]
struct ImplInfo {
    self_name: Option<String>,
    handler: Option<&'static HandlerTrait>,
}

impl<'a> State<'a> {
    pub fn context(&self) -> &FnContext {
        static FILE: std::sync::OnceLock<FnContext> = std::sync::OnceLock::new();
        self.contexts.last().unwrap_or_else(|| {
            FILE.get_or_init(|| FnContext {
                kind: HandlerKind::Plain,
                name: String::new(),
                spawned: false,
                test: false,
            })
        })
    }

    pub fn lookup(&self, name: &str) -> Option<&Value> {
        self.frames.iter().rev().find_map(|f| f.get(name))
    }

    fn generics_in_scope(&self) -> HashSet<String> {
        self.generics.iter().flatten().cloned().collect()
    }

    fn classify(&self, ty: &syn::Type) -> Kind {
        self.facts.classify_type(ty, &self.generics_in_scope())
    }

    /// Which side a handler instance expression is (`Counter::new()`, `Counter`, `Counter {..}`).
    fn handler_side(&self, e: &syn::Expr) -> Option<Side> {
        let name = match e {
            syn::Expr::Call(c) => match &*c.func {
                syn::Expr::Path(p) => {
                    let segs = &p.path.segments;
                    if segs.len() >= 2 {
                        Some(segs[segs.len() - 2].ident.to_string())
                    } else {
                        None
                    }
                }
                _ => None,
            },
            syn::Expr::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
            syn::Expr::Struct(s) => s.path.segments.last().map(|s| s.ident.to_string()),
            syn::Expr::Paren(p) => return self.handler_side(&p.expr),
            syn::Expr::Reference(r) => return self.handler_side(&r.expr),
            _ => None,
        };
        if let Some(side) = name.and_then(|n| self.facts.handler_impls.get(&n).copied()) {
            return Some(side);
        }
        // A local bound to a handler instance (`let server = Counter::new();`).
        match e {
            syn::Expr::Path(_) => match self.value_of(e).kind {
                Kind::Handler(side) => Some(side),
                _ => None,
            },
            _ => None,
        }
    }

    pub fn value_of(&self, e: &syn::Expr) -> Value {
        match e {
            syn::Expr::Path(p) if p.qself.is_none() => {
                let segs = &p.path.segments;
                let Some(last) = segs.last() else {
                    return Value::unknown();
                };
                let id = last.ident.to_string();
                if segs.len() == 1 {
                    if id == "self" {
                        let name = self.impls.last().and_then(|i| i.self_name.clone());
                        return Value::of(Kind::SelfOf(name), Origin::Unknown);
                    }
                    if let Some(v) = self.lookup(&id) {
                        return v.clone();
                    }
                }
                if let Some(ty) = self.facts.statics.get(&id) {
                    return Value::of(self.classify(ty), Origin::Stored).with_hint(&id);
                }
                if let k @ (Kind::Peer { .. } | Kind::Context { .. }) = self.facts.crate_static(&id)
                {
                    return Value::of(k, Origin::Stored).with_hint(&id);
                }
                if let Some(side) = self.facts.handler_impls.get(&id) {
                    return Value::of(Kind::Handler(*side), Origin::Unknown);
                }
                Value::unknown().with_hint(&id)
            }
            syn::Expr::Field(f) => {
                let name = match &f.member {
                    syn::Member::Named(n) => n.to_string(),
                    syn::Member::Unnamed(i) => i.index.to_string(),
                };
                let base = self.value_of(&f.base);
                self.member_value(base, &name)
            }
            syn::Expr::MethodCall(mc) => {
                let name = mc.method.to_string();
                if TRANSPARENT_METHODS.contains(&name.as_str()) {
                    return self.value_of(&mc.receiver);
                }
                if let Some(sdk) = SDKS
                    .iter()
                    .find(|s| s.serve_methods.contains(&name.as_str()))
                {
                    return self.served(&mc.receiver, sdk);
                }
                let base = self.value_of(&mc.receiver);
                match &base.kind {
                    Kind::Context { .. } | Kind::Peer { .. } if mc.args.is_empty() => {
                        return self.member_value(base, &name);
                    }
                    Kind::Unknown if name == "peer" && mc.args.is_empty() => {
                        return base.with_hint("peer");
                    }
                    _ => {}
                }
                if let Some(v) = self.returned_by(&name) {
                    return v;
                }
                // An accessor defined elsewhere (`self.client_peer()`): its name is the hint.
                if mc.args.is_empty() {
                    return Value::unknown().with_hint(&name);
                }
                Value::unknown()
            }
            syn::Expr::Call(c) => {
                let syn::Expr::Path(p) = &*c.func else {
                    return Value::unknown();
                };
                let Some(last) = p.path.segments.last() else {
                    return Value::unknown();
                };
                let name = last.ident.to_string();
                for sdk in SDKS {
                    if let Some((_, side)) = sdk.serve_functions.iter().find(|(n, _)| *n == name) {
                        return Value::of(
                            Kind::Peer {
                                sdk,
                                side: Some(*side),
                            },
                            Origin::Running,
                        );
                    }
                }
                if let Some(v) = self.returned_by(&name) {
                    return v;
                }
                if let Some(side) = self.handler_side(e) {
                    return Value::of(Kind::Handler(side), Origin::Unknown);
                }
                if WRAPPING_CALLS.contains(&name.as_str()) && c.args.len() == 1 {
                    return self.value_of(&c.args[0]);
                }
                Value::unknown()
            }
            syn::Expr::Struct(s) => match s.path.segments.last() {
                Some(seg) => match self.facts.handler_impls.get(&seg.ident.to_string()) {
                    Some(side) => Value::of(Kind::Handler(*side), Origin::Unknown),
                    None => Value::unknown(),
                },
                None => Value::unknown(),
            },
            syn::Expr::Await(a) => self.value_of(&a.base),
            syn::Expr::Try(t) => self.value_of(&t.expr),
            syn::Expr::Paren(p) => self.value_of(&p.expr),
            syn::Expr::Group(g) => self.value_of(&g.expr),
            syn::Expr::Reference(r) => self.value_of(&r.expr),
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => self.value_of(&u.expr),
            syn::Expr::Index(i) => self.value_of(&i.expr),
            syn::Expr::Cast(c) => self.value_of(&c.expr),
            _ => Value::unknown(),
        }
    }

    /// The value a call of the fn or method `name` returns, when its return type says: the
    /// file's own fn of that name, else every fn of that name in the package.
    fn returned_by(&self, name: &str) -> Option<Value> {
        let kind = match self.facts.fn_returns.get(name) {
            Some(ty) => self.classify(ty),
            None => self.facts.crate_fn_return(name),
        };
        (kind != Kind::Unknown).then(|| Value::of(kind, Origin::Stored).with_hint(name))
    }

    /// `base.name` (a field, or a no-argument accessor).
    fn member_value(&self, base: Value, name: &str) -> Value {
        match &base.kind {
            Kind::SelfOf(owner) => {
                let ty = owner
                    .as_ref()
                    .and_then(|o| self.facts.fields.get(&(o.clone(), name.to_string())))
                    .or_else(|| self.unique_field(name));
                let kind = match ty {
                    Some(ty) => self.classify(ty),
                    // The struct is declared in another file of the package.
                    None => self.facts.crate_field(owner.as_deref(), name),
                };
                Value::of(kind, Origin::Stored).with_hint(name)
            }
            Kind::Context { sdk, side } => {
                if sdk
                    .context_types
                    .iter()
                    .any(|c| c.peer_fields.contains(&name))
                {
                    Value::of(Kind::Peer { sdk, side: *side }, Origin::Context).with_hint(name)
                } else if sdk
                    .context_types
                    .iter()
                    .any(|c| c.context_members.contains(&name))
                {
                    Value::of(Kind::Context { sdk, side: *side }, Origin::Context)
                } else {
                    Value::unknown()
                }
            }
            Kind::Peer { .. } if name == "peer" => base,
            Kind::Unknown => {
                let kind = match self.unique_field(name) {
                    Some(ty) => self.classify(ty),
                    None if !self.facts.fields_by_name.contains_key(name) => {
                        self.facts.crate_field(None, name)
                    }
                    None => Kind::Unknown,
                };
                if kind != Kind::Unknown {
                    return Value::of(kind, Origin::Stored).with_hint(name);
                }
                let origin = base.origin;
                Value {
                    hint: None,
                    ..Value::of(Kind::Unknown, origin)
                }
                .with_hint(name)
            }
            _ => Value::unknown().with_hint(name),
        }
    }

    /// The type of a field known only by name, when every field of that name in the file agrees.
    fn unique_field(&self, name: &str) -> Option<&syn::Type> {
        let tys = self.facts.fields_by_name.get(name)?;
        let first = tys.first()?;
        let kind = self.classify(first);
        tys.iter()
            .all(|t| self.classify(t) == kind)
            .then_some(first)
    }

    /// `x.serve(transport)`: a running service of `x`'s side. When the file does not show the
    /// side, the service is still a peer of unknown side if the file uses the SDK: only a server's
    /// peer has the request methods the rules look for.
    fn served(&self, receiver: &syn::Expr, sdk: &'static SdkTable) -> Value {
        let side = self.handler_side(receiver).or_else(|| {
            let sides: HashSet<Side> = self.facts.handler_impls.values().copied().collect();
            (sides.len() == 1).then(|| *sides.iter().next().unwrap())
        });
        if side.is_none() && !self.facts.mentions(sdk) {
            return Value::unknown();
        }
        Value::of(Kind::Peer { sdk, side }, Origin::Running)
    }

    /// The request an expression stands for.
    pub fn request_in(&self, e: &syn::Expr) -> Option<McpMethod> {
        let mut scan = RequestScan {
            state: self,
            found: None,
        };
        scan.visit_expr(e);
        scan.found
    }

    pub fn raw_requests_in_expr(&self, e: &syn::Expr) -> Vec<RawRequest> {
        let mut scan = RawScan::default();
        scan.visit_expr(e);
        self.resolve_raw(scan)
    }

    pub fn raw_requests_in_tokens(&self, ts: &TokenStream) -> Vec<RawRequest> {
        let mut scan = RawScan::default();
        scan.tokens(ts.clone(), false);
        self.resolve_raw(scan)
    }

    fn resolve_raw(&self, scan: RawScan) -> Vec<RawRequest> {
        let mut out = scan.raw;
        // `send(roots_request(id))`: a fn of the file that returns a hand-written request.
        for (name, span) in scan.calls {
            if let Some(&method) = self.facts.helpers.builders.get(&name) {
                out.push(RawRequest { method, span });
            }
        }
        for id in scan.idents {
            if let Some(v) = self.lookup(&id) {
                out.extend(v.raw.iter().copied());
            }
        }
        out
    }

    fn bind_pat(&mut self, pat: &syn::Pat, value: Value) {
        match pat {
            syn::Pat::Ident(pi) => {
                let name = pi.ident.to_string();
                if let Some(sub) = &pi.subpat {
                    self.bind_pat(&sub.1, value.clone());
                }
                // The binding's own name counts as much as the names on the way to its value
                // (`let peer = pool.acquire()`, `let client = self.peer.clone()`).
                let mut v = value;
                v.hint = Some(match v.hint.take() {
                    Some(h) if h != name => format!("{h} {name}"),
                    _ => name.clone(),
                });
                if let Some(frame) = self.frames.last_mut() {
                    frame.insert(name, v);
                }
            }
            syn::Pat::Type(pt) => {
                let kind = self.classify(&pt.ty);
                let v = if matches!(kind, Kind::Unknown) {
                    value
                } else {
                    Value { kind, ..value }
                };
                self.bind_pat(&pt.pat, v);
            }
            syn::Pat::Reference(r) => self.bind_pat(&r.pat, value),
            syn::Pat::Paren(p) => self.bind_pat(&p.pat, value),
            syn::Pat::TupleStruct(ts) => {
                let head = ts
                    .path
                    .segments
                    .last()
                    .map(|s| s.ident.to_string())
                    .unwrap_or_default();
                let inner = if matches!(head.as_str(), "Some" | "Ok") && ts.elems.len() == 1 {
                    value
                } else {
                    Value::unknown()
                };
                for p in &ts.elems {
                    self.bind_pat(p, inner.clone());
                }
            }
            syn::Pat::Tuple(t) => {
                for p in &t.elems {
                    self.bind_pat(p, Value::unknown());
                }
            }
            syn::Pat::Struct(s) => {
                for f in &s.fields {
                    self.bind_pat(&f.pat, Value::unknown());
                }
            }
            syn::Pat::Slice(s) => {
                for p in &s.elems {
                    self.bind_pat(p, value.clone());
                }
            }
            syn::Pat::Or(o) => {
                for p in &o.cases {
                    self.bind_pat(p, value.clone());
                }
            }
            _ => {}
        }
    }

    /// The value of `let <pat> = init`: the expression's value plus the requests it carries.
    fn let_value(&self, init: &syn::Expr) -> Value {
        let mut v = self.value_of(init);
        if v.request.is_none() {
            v.request = self.request_in(init);
        }
        let raw = self.raw_requests_in_expr(init);
        for r in raw {
            if !v.raw.iter().any(|x| x.span.start() == r.span.start()) {
                v.raw.push(r);
            }
        }
        v
    }
}

/// The walker: owns the scope state and the findings of one file.
pub struct Walker<'a> {
    state: State<'a>,
    rules: &'a [&'static dyn Rule],
    pub out: Vec<(Range, Draft)>,
    macro_depth: usize,
    /// What the next closure's first parameter is (set for closure arguments of [`ADAPTERS`]).
    closure_param: Option<Value>,
}

impl<'a> Walker<'a> {
    pub fn new(
        facts: &'a FileFacts,
        lines: &'a LineIndex<'a>,
        rules: &'a [&'static dyn Rule],
    ) -> Self {
        Walker {
            state: State {
                facts,
                lines,
                frames: vec![HashMap::new()],
                contexts: Vec::new(),
                impls: Vec::new(),
                generics: Vec::new(),
            },
            rules,
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
        self.state.frames.push(HashMap::new());
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
        let takes_context = self.takes_request_context(sig);
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
        self.with_frame(|w| {
            for input in &sig.inputs {
                if let syn::FnArg::Typed(pt) = input {
                    let kind = w.state.classify(&pt.ty);
                    w.state.bind_pat(&pt.pat, Value::of(kind, Origin::Param));
                }
            }
            w.ask(|r, cx| r.check_fn(cx, sig, block));
            w.visit_block(block);
        });
        self.state.contexts.pop();
        self.state.generics.pop();
    }

    fn takes_request_context(&self, sig: &syn::Signature) -> bool {
        sig.inputs.iter().any(|i| match i {
            syn::FnArg::Typed(pt) => matches!(self.state.classify(&pt.ty), Kind::Context { .. }),
            syn::FnArg::Receiver(_) => false,
        })
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
        if all_triggers().has_any_trigger(text.as_bytes()) {
            return true;
        }
        fn carries(w: &Walker<'_>, ts: &proc_macro2::TokenStream) -> bool {
            ts.clone().into_iter().any(|t| match t {
                proc_macro2::TokenTree::Ident(i) => {
                    w.state.lookup(&i.to_string()).is_some_and(|v| {
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
            }
        }
    }
}

/// `#[test]`, `#[tokio::test]`, `#[rstest]`, `#[test_case(..)]`, or `#[cfg(test)]`.
fn is_test_attr(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        let last = a
            .path()
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        match last.as_str() {
            "test" | "rstest" | "test_case" | "quickcheck" | "proptest" => true,
            "cfg" => a.parse_args::<syn::Ident>().is_ok_and(|i| i == "test"),
            _ => false,
        }
    })
}

fn last_ident(e: &syn::Expr) -> Option<String> {
    match e {
        syn::Expr::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
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
        // `let task = async move { .. }; tokio::spawn(task);`: the body runs in the spawned task.
        let spawned_later = matches!(&l.pat, syn::Pat::Ident(pi) if self.state.facts.spawned_names.contains(&pi.ident.to_string()))
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
        let spawn = last_ident(&c.func).is_some_and(|n| SPAWNS.contains(&n.as_str()));
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
        let method = mc.method.to_string();
        let spawn = SPAWNS.contains(&method.as_str());
        let element = ADAPTERS
            .contains(&method.as_str())
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
        let name = m
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        if !self.macro_may_matter(m) {
            return;
        }
        let pieces = parse_macro_body(&m.tokens);
        self.macro_depth += 1;
        if SPAWNS.contains(&name.as_str()) {
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

/// The prefilter of every trigger token of the catalog and the SDK tables, whatever rules are
/// enabled: a superset, so a macro body it turns away holds nothing for any rule. (With default
/// settings it is the very prefilter `lint_files` uses.)
fn all_triggers() -> &'static crate::model::prefilter::Prefilter {
    static ALL: std::sync::LazyLock<std::sync::Arc<crate::model::prefilter::Prefilter>> =
        std::sync::LazyLock::new(|| {
            crate::model::prefilter::shared(&crate::lint::Settings::default().trigger_tokens())
        });
    &ALL
}
