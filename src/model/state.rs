//! The scope model at one point of a file: the local names bound so far (one frame per block),
//! the enclosing fns and impls, and from them what an expression's value is. The walk
//! (`rules/walk.rs`) keeps it up to date as it goes; the rules read it through `Cx`.

use crate::model::fast_hash::{HashMap, HashSet};

use proc_macro2::{Span, TokenStream};
use syn::visit::Visit;

use crate::model::callgraph::{CallGraph, HandlerKind};
use crate::model::scan::{RawRequest, RawScan};
use crate::model::scope::{FileFacts, Kind, Origin, Value};
use crate::model::sdk::{HandlerTrait, McpMethod, SdkTable, Side, SDKS};
use crate::reading::name;
use crate::reading::source::LineIndex;

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

/// The function (or closure within it) being walked.
#[derive(Debug, Clone)]
pub struct FnContext {
    pub kind: HandlerKind,
    /// The enclosing fn's name (`call_tool`), or empty at file level.
    pub name: String,
    /// Inside the arguments of a `spawn(..)`: the code runs in another task.
    pub spawned: bool,
    /// Test code: a `#[test]`-like fn, a `#[cfg(test)]` item, or anything nested in one.
    pub test: bool,
}

pub struct State<'a> {
    pub facts: &'a FileFacts,
    /// Which of the file's handlers call which of its helpers.
    pub callgraph: &'a CallGraph,
    pub lines: &'a LineIndex<'a>,
    pub(crate) frames: Vec<HashMap<String, Value>>,
    pub(crate) contexts: Vec<FnContext>,
    pub(crate) impls: Vec<ImplInfo>,
    /// Type parameters of the enclosing impls and fns.
    pub(crate) generics: Vec<HashSet<String>>,
    /// What the text of the fn being walked can name (see [`RequestNames::in_text`]); anything,
    /// outside fns.
    pub(crate) fn_names: RequestNames,
    /// Whether a binding of this file's walk has carried a request or a hand-written one: until
    /// one has, no local name can bring one into a `let` value.
    bound_request: bool,
    bound_raw: bool,
}

#[derive(Debug, Clone)]
pub(crate) struct ImplInfo {
    pub(crate) self_name: Option<String>,
    pub(crate) handler: Option<&'static HandlerTrait>,
}

impl<'a> State<'a> {
    /// The state at the top of a file: one empty frame, no enclosing fn or impl.
    pub fn new(facts: &'a FileFacts, callgraph: &'a CallGraph, lines: &'a LineIndex<'a>) -> Self {
        State {
            facts,
            callgraph,
            lines,
            frames: vec![HashMap::default()],
            contexts: Vec::new(),
            impls: Vec::new(),
            generics: Vec::new(),
            fn_names: RequestNames::ANY,
            bound_request: false,
            bound_raw: false,
        }
    }

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

    pub(crate) fn classify(&self, ty: &syn::Type) -> Kind {
        self.facts.classify_type(ty, &self.generics)
    }

    /// Which side a handler instance expression is (`Counter::new()`, `Counter`, `Counter {..}`).
    fn handler_side(&self, e: &syn::Expr) -> Option<Side> {
        let name = match e {
            syn::Expr::Call(c) => match &*c.func {
                syn::Expr::Path(p) => {
                    let segs = &p.path.segments;
                    if segs.len() >= 2 {
                        Some(name::of(&segs[segs.len() - 2].ident))
                    } else {
                        None
                    }
                }
                _ => None,
            },
            syn::Expr::Path(p) => p.path.segments.last().map(|s| name::of(&s.ident)),
            syn::Expr::Struct(s) => s.path.segments.last().map(|s| name::of(&s.ident)),
            syn::Expr::Paren(p) => return self.handler_side(&p.expr),
            syn::Expr::Reference(r) => return self.handler_side(&r.expr),
            _ => None,
        };
        if let Some(side) = name.and_then(|n| self.facts.handler_impls.get(&*n).copied()) {
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
                let id = name::of(&last.ident);
                if segs.len() == 1 {
                    if id == "self" {
                        let name = self.impls.last().and_then(|i| i.self_name.clone());
                        return Value::of(Kind::SelfOf(name), Origin::Unknown);
                    }
                    if let Some(v) = self.lookup(&id) {
                        return v.clone();
                    }
                }
                if let Some(ty) = self.facts.statics.get(&*id) {
                    return Value::of(self.classify(ty), Origin::Stored).with_hint(&id);
                }
                if let k @ (Kind::Peer { .. } | Kind::Context { .. }) = self.facts.crate_static(&id)
                {
                    return Value::of(k, Origin::Stored).with_hint(&id);
                }
                if let Some(side) = self.facts.handler_impls.get(&*id) {
                    return Value::of(Kind::Handler(*side), Origin::Unknown);
                }
                Value::unknown().with_hint(&id)
            }
            syn::Expr::Field(f) => {
                let base = self.value_of(&f.base);
                match &f.member {
                    syn::Member::Named(n) => self.member_value(base, &name::of(n)),
                    syn::Member::Unnamed(i) => self.member_value(base, &i.index.to_string()),
                }
            }
            syn::Expr::MethodCall(mc) => {
                let name = name::of(&mc.method);
                if TRANSPARENT_METHODS.contains(&&*name) {
                    return self.value_of(&mc.receiver);
                }
                if let Some(sdk) = SDKS.iter().find(|s| s.serve_methods.contains(&&*name)) {
                    return self.served(&mc.receiver, sdk);
                }
                let base = self.value_of(&mc.receiver);
                match &base.kind {
                    Kind::Context { .. } | Kind::Peer { .. } if mc.args.is_empty() => {
                        return self.member_value(base, &name);
                    }
                    Kind::Unknown if *name == *"peer" && mc.args.is_empty() => {
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
                let name = name::of(&last.ident);
                for sdk in SDKS {
                    if let Some((_, side)) = sdk.serve_functions.iter().find(|(n, _)| *n == &*name)
                    {
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
                if WRAPPING_CALLS.contains(&&*name) && c.args.len() == 1 {
                    return self.value_of(&c.args[0]);
                }
                Value::unknown()
            }
            syn::Expr::Struct(s) => match s.path.segments.last() {
                Some(seg) => match self.facts.handler_impls.get(&*name::of(&seg.ident)) {
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
        // A call of a request builder (`send(roots_request(id))`) is reported where the builder
        // builds the request, not here (`request_flow.rs`, `rules/raw_request.rs`).
        let mut out = scan.raw;
        for (name, span) in scan.consts {
            if let Some(method) = self.facts.method_const(&name) {
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

    pub(crate) fn bind_pat(&mut self, pat: &syn::Pat, value: Value) {
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
                self.bound_request |= v.request.is_some();
                self.bound_raw |= !v.raw.is_empty();
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
                let head = ts.path.segments.last().map(|s| name::of(&s.ident));
                let inner = if matches!(head.as_deref(), Some("Some" | "Ok")) && ts.elems.len() == 1
                {
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
    pub(crate) fn let_value(&self, init: &syn::Expr) -> Value {
        let mut v = self.value_of(init);
        // Both scans below walk the whole value, for every `let` of every fn: they are skipped
        // when nothing they look for can be there. A request type or variant is found by its
        // name as written, a hand-written request by its method's name in a string, else only
        // through a local name bound to one, or a constant of the file that holds a method's name.
        let names = self.fn_names;
        if v.request.is_none() && (names.types || self.bound_request) {
            v.request = self.request_in(init);
        }
        let consts =
            !self.facts.helpers.method_consts.is_empty() || self.facts.names_package_method_const;
        if !(names.methods || self.bound_raw || consts) {
            return v;
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

/// What a fn's text can name of what [`State::let_value`]'s scans look for.
#[derive(Clone, Copy)]
pub(crate) struct RequestNames {
    /// A request type or variant of an SDK, as a whole identifier (the scan compares whole
    /// identifiers: `CreateMessageRequestParams` is not `CreateMessageRequest`).
    pub types: bool,
    /// The wire name of a legacy method. (A method spelled with escapes, `"roots\u{2f}list"`, is
    /// no more seen here than by the skeleton, which keeps a body by the same text.)
    pub methods: bool,
}

impl RequestNames {
    pub const ANY: RequestNames = RequestNames {
        types: true,
        methods: true,
    };

    /// What `text` names; an empty text (no position) may name anything.
    pub fn in_text(text: &str) -> RequestNames {
        static NAMES: std::sync::LazyLock<(aho_corasick::AhoCorasick, usize)> =
            std::sync::LazyLock::new(|| {
                let mut names: Vec<&str> = SDKS
                    .iter()
                    .flat_map(|sdk| sdk.request_names.iter().map(|r| r.name))
                    .collect();
                let types = names.len();
                // Every wire name `McpMethod::from_wire` takes.
                names.extend(McpMethod::ALL.iter().map(|m| m.wire()));
                names.push(crate::model::sdk::PMCP1_ELICIT_WIRE);
                // Leftmost-longest, not overlapping: the names are identifiers and the wire names
                // hold a `/`, so a name standing alone is never inside another match, and the
                // longest match at a place is the one that can stand alone (`..RequestParam`
                // over `..Request`). This search keeps the automaton's SIMD prefilter.
                let ac = aho_corasick::AhoCorasick::builder()
                    .match_kind(aho_corasick::MatchKind::LeftmostLongest)
                    .build(names)
                    .expect("names build an automaton");
                (ac, types)
            });
        if text.is_empty() {
            return RequestNames::ANY;
        }
        let (ac, types) = &*NAMES;
        let bytes = text.as_bytes();
        let mut found = RequestNames {
            types: false,
            methods: false,
        };
        for m in ac.find_iter(text) {
            if m.pattern().as_usize() >= *types {
                found.methods = true;
            } else if crate::reading::lexer::stands_alone(bytes, m.start(), m.end()) {
                found.types = true;
            }
            if found.types && found.methods {
                break;
            }
        }
        found
    }
}

/// Finds a request type or variant of an SDK in an expression.
struct RequestScan<'s, 'a> {
    state: &'s State<'a>,
    found: Option<McpMethod>,
}

impl<'ast> Visit<'ast> for RequestScan<'_, '_> {
    fn visit_path(&mut self, path: &'ast syn::Path) {
        if self.found.is_some() {
            return;
        }
        // Every path of every `let` value comes here: the segments are compared in place, and
        // a segment's text is made only for the rare one named like a request.
        let segs = &path.segments;
        for sdk in SDKS {
            let hit = segs.iter().enumerate().find_map(|(i, s)| {
                let r = sdk.request_names.iter().find(|m| s.ident == m.name)?;
                // `ServerRequest::X` must be the SDK's enum; `X::new` / `X` must be the SDK's type.
                let ok = if i > 0 {
                    segs[i - 1].ident == sdk.request_enum
                        || sdk.crates.iter().any(|c| segs[0].ident == c)
                        || !self.state.facts.resolve_path(path).is_empty()
                } else {
                    let head: syn::Path =
                        syn::Ident::new(&s.ident.to_string(), Span::call_site()).into();
                    self.state
                        .facts
                        .resolve_path(&head)
                        .iter()
                        .any(|(t, _)| std::ptr::eq(*t, *sdk))
                };
                ok.then_some(r.sends)
            });
            if hit.is_some() {
                self.found = hit;
                return;
            }
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        if p.path.segments.len() == 1 {
            if let Some(v) = self.state.lookup(&name::of(&p.path.segments[0].ident)) {
                if v.request.is_some() {
                    self.found = v.request;
                    return;
                }
            }
        }
        syn::visit::visit_expr_path(self, p);
    }

    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
}

#[cfg(test)]
mod tests {
    use super::RequestNames;

    #[test]
    fn a_fn_text_names_requests_as_the_scans_read_them() {
        let names = |t: &str| {
            let n = RequestNames::in_text(t);
            (n.types, n.methods)
        };
        assert_eq!(names("let r = ListRootsRequest::default();"), (true, false));
        assert_eq!(
            names("ServerRequest::CreateMessageRequest(x)"),
            (true, false)
        );
        // Inside a longer name, or a longer one, it is not the type the scan compares.
        assert_eq!(names("CreateMessageRequestParams { .. }"), (false, false));
        assert_eq!(names("MyListRootsRequest::new()"), (false, false));
        // A longer name first, then the name standing alone.
        assert_eq!(
            names("CreateMessageRequestParams::x(); CreateMessageRequest::y()"),
            (true, false)
        );
        assert_eq!(names(r#"json!({"method": "roots/list"})"#), (false, true));
        assert_eq!(names(r#"send("elicitation/elicitInput")"#), (false, true));
        assert_eq!(names("peer.list_roots().await"), (false, false));
        // No text (no position): anything.
        assert_eq!(names(""), (true, true));
    }
}
