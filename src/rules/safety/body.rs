//! One fn body, indexed once for the safety rules: its calls, struct literals, macros and
//! matches, and the local names each binding comes from, so a rule can follow a value back to
//! what built it ("is there a seal between this serde_json call and `requestState`?").

use crate::model::fast_hash::{HashMap, HashSet};

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::visit::Visit;

use crate::model::scan::format_arg_names;
use crate::reading::pat_names;

/// Bound on how many initializers a single trace follows: keeps pathological bodies cheap.
const MAX_TRACE_STEPS: usize = 4096;

/// Where a local name's value comes from.
#[derive(Default)]
pub struct Body<'a> {
    pub lets: HashMap<String, Vec<&'a syn::Expr>>,
    /// Declared types of parameters and annotated locals.
    pub param_types: HashMap<String, &'a syn::Type>,
    /// Names bound by a fn parameter whose type's last segment is this (`RequestState(st)`).
    pub param_heads: HashMap<String, String>,
    pub calls: Vec<&'a syn::ExprCall>,
    pub methods: Vec<&'a syn::ExprMethodCall>,
    pub structs: Vec<&'a syn::ExprStruct>,
    pub macros: Vec<&'a syn::Macro>,
    pub matches: Vec<&'a syn::ExprMatch>,
    pub fields: Vec<&'a syn::ExprField>,
    pub indexes: Vec<&'a syn::ExprIndex>,
    /// What the words are read from, when a check first asks for them (set by both
    /// constructors).
    root: Option<Root<'a>>,
    words: std::cell::OnceCell<Words>,
    /// Locals borrowed `&mut` somewhere (`getrandom::fill(&mut key)`): their initializer is not
    /// their value.
    pub mut_borrowed: HashSet<String>,
}

/// The code a body's index covers.
#[derive(Clone, Copy)]
enum Root<'a> {
    Block(&'a syn::Block),
    Expr(&'a syn::Expr),
}

/// Every name and string of a body. Most fns that start a check never ask for them (a legacy
/// tool that elicits starts MCP108, which reads its calls), and collecting them was about half
/// the cost of indexing a body (`perf` on the bench's all-parse tree): so they are collected on
/// a check's first question.
#[derive(Default)]
struct Words {
    idents: HashSet<String>,
    strings: Vec<String>,
}

impl<'a> Body<'a> {
    pub fn scan(sig: &'a syn::Signature, block: &'a syn::Block) -> Body<'a> {
        let mut b = Body {
            root: Some(Root::Block(block)),
            ..Body::default()
        };
        for input in &sig.inputs {
            if let syn::FnArg::Typed(pt) = input {
                let head = last_segment(&pt.ty);
                for name in pat_names(&pt.pat) {
                    b.param_types.insert(name.clone(), &pt.ty);
                    if let Some(h) = &head {
                        b.param_heads.insert(name, h.clone());
                    }
                }
            }
        }
        let mut idx = Indexer { b: &mut b };
        idx.visit_block(block);
        b
    }

    /// Every identifier, field and method name in the body (closures and macro tokens included).
    pub fn idents(&self) -> &HashSet<String> {
        &self.words().idents
    }

    /// Every string literal in the body (macro tokens included).
    pub fn strings(&self) -> &[String] {
        &self.words().strings
    }

    fn words(&self) -> &Words {
        self.words.get_or_init(|| {
            let mut w = Words::default();
            let mut v = WordIndexer { w: &mut w };
            match self.root {
                Some(Root::Block(b)) => v.visit_block(b),
                Some(Root::Expr(e)) => v.visit_expr(e),
                None => {}
            }
            w
        })
    }

    /// The initializers of a local name (every `let`, `if let`, match arm and assignment).
    pub fn inits(&self, name: &str) -> &[&'a syn::Expr] {
        self.lets.get(name).map_or(&[], Vec::as_slice)
    }
}

/// What one step of a trace does with a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// The value passes through unchanged in kind (`clone`, `Some`, `?`): keep following.
    Through,
    /// Something unknown (a helper of the project): stop, nothing learned.
    Stop,
    /// Record this call and keep following its inputs.
    MarkThrough,
    /// Record this call and stop.
    Mark,
}

/// A call met on a trace: a fn path (`serde_json::to_string`), a method (`.seal_json`) or a
/// macro (`format!`).
#[derive(Debug, Clone)]
pub struct Met {
    pub path: Vec<String>,
    pub method: bool,
    pub mac: bool,
    /// The receiver's last name, for methods (`codec` in `self.codec.seal(..)`).
    pub recv: Option<String>,
}

impl Met {
    pub fn name(&self) -> &str {
        self.path.last().map_or("", String::as_str)
    }
}

/// The outcome of a trace: the calls marked, and the named values reached.
#[derive(Debug, Default)]
pub struct Trace {
    pub marked: Vec<(Met, TraceMark)>,
    /// Local and field names reached through `Through` steps.
    pub names: Vec<String>,
    /// String literals reached.
    pub strings: Vec<(String, Span)>,
    /// Field names of struct literals reached (`State { password, .. }`).
    pub struct_fields: Vec<String>,
    pub struct_types: Vec<String>,
    /// Object keys of `json!` literals reached, at every depth.
    pub json_keys: Vec<String>,
    /// Turbofish and annotated types reached (`from_type::<T>`, `let x: T`).
    pub types: Vec<String>,
    steps: usize,
}

/// A classifier's verdict on a call, with the tag it marks.
pub type TraceMark = u8;

/// How a trace treats calls: the rule decides.
pub trait Classify {
    fn step(&self, met: &Met) -> (Step, TraceMark);
}

impl<F: Fn(&Met) -> (Step, TraceMark)> Classify for F {
    fn step(&self, met: &Met) -> (Step, TraceMark) {
        self(met)
    }
}

impl Body<'_> {
    /// Follows `e` back through locals and the calls `c` lets through.
    pub fn trace(&self, e: &syn::Expr, c: &dyn Classify) -> Trace {
        let mut t = Trace::default();
        let mut seen = HashSet::default();
        self.trace_into(e, c, &mut t, &mut seen);
        t
    }

    fn trace_into(
        &self,
        e: &syn::Expr,
        c: &dyn Classify,
        t: &mut Trace,
        seen: &mut HashSet<String>,
    ) {
        t.steps += 1;
        if t.steps > MAX_TRACE_STEPS {
            return;
        }
        match e {
            syn::Expr::Path(p) if p.path.segments.len() == 1 => {
                let name = p.path.segments[0].ident.to_string();
                t.names.push(name.clone());
                if let Some(ty) = self.param_types.get(&name) {
                    if let Some(n) = last_segment(ty) {
                        t.types.push(n);
                    }
                }
                if seen.insert(name.clone()) {
                    for init in self.inits(&name) {
                        self.trace_into(init, c, t, seen);
                    }
                }
            }
            syn::Expr::Lit(l) => {
                if let syn::Lit::Str(s) = &l.lit {
                    t.strings.push((s.value(), s.span()));
                }
            }
            syn::Expr::Call(call) => {
                let syn::Expr::Path(p) = &*call.func else {
                    return;
                };
                let path: Vec<String> = p
                    .path
                    .segments
                    .iter()
                    .map(|s| s.ident.to_string())
                    .collect();
                for seg in &p.path.segments {
                    turbofish_types(&seg.arguments, &mut t.types);
                }
                let met = Met {
                    path,
                    method: false,
                    mac: false,
                    recv: None,
                };
                if self.apply(met, c, t) {
                    for a in &call.args {
                        self.trace_into(a, c, t, seen);
                    }
                }
            }
            syn::Expr::MethodCall(mc) => {
                if let Some(tf) = &mc.turbofish {
                    for a in &tf.args {
                        if let syn::GenericArgument::Type(ty) = a {
                            if let Some(n) = last_segment(ty) {
                                t.types.push(n);
                            }
                        }
                    }
                }
                let met = Met {
                    path: vec![mc.method.to_string()],
                    method: true,
                    mac: false,
                    recv: last_name(&mc.receiver),
                };
                if self.apply(met, c, t) {
                    self.trace_into(&mc.receiver, c, t, seen);
                    for a in &mc.args {
                        self.trace_into(a, c, t, seen);
                    }
                }
            }
            syn::Expr::Macro(m) => self.trace_macro(&m.mac, c, t, seen),
            syn::Expr::Struct(s) => {
                if let Some(last) = s.path.segments.last() {
                    t.struct_types.push(last.ident.to_string());
                }
                for f in &s.fields {
                    if let syn::Member::Named(n) = &f.member {
                        t.struct_fields.push(n.to_string());
                    }
                    self.trace_into(&f.expr, c, t, seen);
                }
            }
            syn::Expr::Field(f) => {
                if let syn::Member::Named(n) = &f.member {
                    t.names.push(n.to_string());
                }
                self.trace_into(&f.base, c, t, seen);
            }
            syn::Expr::Reference(r) => self.trace_into(&r.expr, c, t, seen),
            syn::Expr::Paren(p) => self.trace_into(&p.expr, c, t, seen),
            syn::Expr::Group(g) => self.trace_into(&g.expr, c, t, seen),
            syn::Expr::Try(x) => self.trace_into(&x.expr, c, t, seen),
            syn::Expr::Await(a) => self.trace_into(&a.base, c, t, seen),
            syn::Expr::Unary(u) => self.trace_into(&u.expr, c, t, seen),
            syn::Expr::Cast(x) => self.trace_into(&x.expr, c, t, seen),
            syn::Expr::Index(i) => {
                self.trace_into(&i.expr, c, t, seen);
                self.trace_into(&i.index, c, t, seen);
            }
            syn::Expr::Tuple(x) => x.elems.iter().for_each(|e| self.trace_into(e, c, t, seen)),
            syn::Expr::Array(x) => x.elems.iter().for_each(|e| self.trace_into(e, c, t, seen)),
            syn::Expr::Binary(b) => {
                self.trace_into(&b.left, c, t, seen);
                self.trace_into(&b.right, c, t, seen);
            }
            syn::Expr::Block(b) => self.trace_tail(&b.block, c, t, seen),
            syn::Expr::Unsafe(b) => self.trace_tail(&b.block, c, t, seen),
            syn::Expr::If(i) => {
                self.trace_tail(&i.then_branch, c, t, seen);
                if let Some((_, e)) = &i.else_branch {
                    self.trace_into(e, c, t, seen);
                }
            }
            syn::Expr::Match(m) => m
                .arms
                .iter()
                .for_each(|a| self.trace_into(&a.body, c, t, seen)),
            syn::Expr::Closure(cl) => self.trace_into(&cl.body, c, t, seen),
            _ => {}
        }
    }

    /// A block's value: its tail expression.
    fn trace_tail(
        &self,
        b: &syn::Block,
        c: &dyn Classify,
        t: &mut Trace,
        seen: &mut HashSet<String>,
    ) {
        if let Some(syn::Stmt::Expr(e, None)) = b.stmts.last() {
            self.trace_into(e, c, t, seen);
        }
    }

    /// Records the call if the classifier marks it; true when the trace goes on into its inputs.
    fn apply(&self, met: Met, c: &dyn Classify, t: &mut Trace) -> bool {
        let (step, mark) = c.step(&met);
        match step {
            Step::Through => true,
            Step::Stop => false,
            Step::MarkThrough => {
                t.marked.push((met, mark));
                true
            }
            Step::Mark => {
                t.marked.push((met, mark));
                false
            }
        }
    }

    fn trace_macro(
        &self,
        m: &syn::Macro,
        c: &dyn Classify,
        t: &mut Trace,
        seen: &mut HashSet<String>,
    ) {
        let name = m
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        let met = Met {
            path: vec![format!("{name}!")],
            method: false,
            mac: true,
            recv: None,
        };
        if !self.apply(met, c, t) {
            return;
        }
        if name == "json" {
            json_keys(&m.tokens, &mut t.json_keys);
            // The values of a JSON literal are expressions between the keys.
            for v in json_values(&m.tokens) {
                self.trace_into(&v, c, t, seen);
            }
            return;
        }
        if let Ok(args) =
            Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated.parse2(m.tokens.clone())
        {
            for a in &args {
                self.trace_into(a, c, t, seen);
            }
            // `format!("{state}")`: inline arguments are locals too.
            if let Some(syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            })) = args.first()
            {
                for name in format_arg_names(&s.value()) {
                    let p: syn::Expr =
                        syn::parse_str(&name).unwrap_or(syn::Expr::Verbatim(TokenStream::new()));
                    self.trace_into(&p, c, t, seen);
                }
            }
        }
    }
}

/// Collects the indexes of a body. Nested fn items are their own bodies and are skipped.
struct Indexer<'b, 'a> {
    b: &'b mut Body<'a>,
}

impl<'a> Visit<'a> for Indexer<'_, 'a> {
    fn visit_item(&mut self, _: &'a syn::Item) {}

    fn visit_local(&mut self, l: &'a syn::Local) {
        if let Some(init) = &l.init {
            for n in pat_names(&l.pat) {
                self.b.lets.entry(n).or_default().push(&init.expr);
            }
            if let syn::Pat::Type(pt) = &l.pat {
                for n in pat_names(&pt.pat) {
                    self.b.param_types.insert(n, &pt.ty);
                }
            }
        }
        syn::visit::visit_local(self, l);
    }

    fn visit_expr_let(&mut self, l: &'a syn::ExprLet) {
        for n in pat_names(&l.pat) {
            self.b.lets.entry(n).or_default().push(&l.expr);
        }
        syn::visit::visit_expr_let(self, l);
    }

    fn visit_expr_match(&mut self, m: &'a syn::ExprMatch) {
        self.b.matches.push(m);
        for arm in &m.arms {
            for n in pat_names(&arm.pat) {
                self.b.lets.entry(n).or_default().push(&m.expr);
            }
        }
        syn::visit::visit_expr_match(self, m);
    }

    fn visit_expr_for_loop(&mut self, f: &'a syn::ExprForLoop) {
        for n in pat_names(&f.pat) {
            self.b.lets.entry(n).or_default().push(&f.expr);
        }
        syn::visit::visit_expr_for_loop(self, f);
    }

    fn visit_expr_assign(&mut self, a: &'a syn::ExprAssign) {
        if let syn::Expr::Path(p) = &*a.left {
            if let Some(id) = p.path.get_ident() {
                self.b
                    .lets
                    .entry(id.to_string())
                    .or_default()
                    .push(&a.right);
            }
        }
        syn::visit::visit_expr_assign(self, a);
    }

    fn visit_expr_method_call(&mut self, mc: &'a syn::ExprMethodCall) {
        self.b.methods.push(mc);
        // `.and_then(|r| ..)`: the closure's parameters stand for (items of) the receiver.
        for a in &mc.args {
            if let syn::Expr::Closure(cl) = a {
                for p in &cl.inputs {
                    for n in pat_names(p) {
                        self.b.lets.entry(n).or_default().push(&mc.receiver);
                    }
                }
            }
        }
        syn::visit::visit_expr_method_call(self, mc);
    }

    fn visit_expr_call(&mut self, c: &'a syn::ExprCall) {
        self.b.calls.push(c);
        syn::visit::visit_expr_call(self, c);
    }

    fn visit_expr_struct(&mut self, s: &'a syn::ExprStruct) {
        self.b.structs.push(s);
        syn::visit::visit_expr_struct(self, s);
    }

    fn visit_expr_field(&mut self, f: &'a syn::ExprField) {
        self.b.fields.push(f);
        syn::visit::visit_expr_field(self, f);
    }

    fn visit_expr_reference(&mut self, r: &'a syn::ExprReference) {
        if r.mutability.is_some() {
            if let syn::Expr::Path(p) = &*r.expr {
                if let Some(id) = p.path.get_ident() {
                    self.b.mut_borrowed.insert(id.to_string());
                }
            }
        }
        syn::visit::visit_expr_reference(self, r);
    }

    fn visit_expr_index(&mut self, i: &'a syn::ExprIndex) {
        self.b.indexes.push(i);
        syn::visit::visit_expr_index(self, i);
    }

    fn visit_macro(&mut self, m: &'a syn::Macro) {
        self.b.macros.push(m);
    }
}

/// Collects a body's [`Words`]: every identifier the walk meets (method and field names are
/// identifiers too), of a macro its name and its tokens' words. Nested fn items are skipped, as
/// by [`Indexer`].
struct WordIndexer<'w> {
    w: &'w mut Words,
}

impl<'a> Visit<'a> for WordIndexer<'_> {
    fn visit_item(&mut self, _: &'a syn::Item) {}

    fn visit_ident(&mut self, i: &'a proc_macro2::Ident) {
        insert_name(&mut self.w.idents, i);
    }

    fn visit_lit_str(&mut self, s: &'a syn::LitStr) {
        self.w.strings.push(s.value());
    }

    fn visit_macro(&mut self, m: &'a syn::Macro) {
        if let Some(last) = m.path.segments.last() {
            insert_name(&mut self.w.idents, &last.ident);
        }
        token_words(&m.tokens, &mut self.w.idents, &mut self.w.strings);
    }
}

/// Adds `ident`'s name to `names`: most names of a body come again and again, and only a new one
/// is made a `String`.
fn insert_name(names: &mut HashSet<String>, ident: &proc_macro2::Ident) {
    let name = crate::reading::name::of(ident);
    if !names.contains(&*name) {
        names.insert(String::from(name));
    }
}

/// Every identifier and string literal in a token stream.
fn token_words(ts: &TokenStream, idents: &mut HashSet<String>, strings: &mut Vec<String>) {
    for tt in ts.clone() {
        match tt {
            TokenTree::Ident(i) => insert_name(idents, &i),
            TokenTree::Literal(l) => {
                if let Some(s) = lit_str(&l) {
                    for name in format_arg_names(&s) {
                        idents.insert(name);
                    }
                    strings.push(s);
                }
            }
            TokenTree::Group(g) => token_words(&g.stream(), idents, strings),
            TokenTree::Punct(_) => {}
        }
    }
}

pub fn lit_str(lit: &proc_macro2::Literal) -> Option<String> {
    let ts: TokenStream = TokenTree::Literal(lit.clone()).into();
    syn::parse2::<syn::LitStr>(ts).ok().map(|l| l.value())
}

/// A key/value view of a `json!` object body: `"key": <value tokens>` pairs at the top level.
pub fn json_entries(ts: &TokenStream) -> Vec<(String, Span, TokenStream)> {
    let toks: Vec<TokenTree> = ts.clone().into_iter().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        if let TokenTree::Literal(l) = &toks[i] {
            let colon = matches!(toks.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == ':');
            if let (Some(key), true) = (lit_str(l), colon) {
                let mut value = TokenStream::new();
                let mut j = i + 2;
                while j < toks.len() {
                    if matches!(&toks[j], TokenTree::Punct(p) if p.as_char() == ',') {
                        break;
                    }
                    value.extend(std::iter::once(toks[j].clone()));
                    j += 1;
                }
                out.push((key, l.span(), value));
                i = j;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// Every JSON object in a `json!` body (the body itself when it is an object), recursively.
pub fn json_objects(ts: &TokenStream, out: &mut Vec<TokenStream>) {
    for tt in ts.clone() {
        if let TokenTree::Group(g) = tt {
            if g.delimiter() == Delimiter::Brace {
                out.push(g.stream());
            }
            json_objects(&g.stream(), out);
        }
    }
}

/// Every JSON object a macro's tokens hold: the nested ones, then the root when it is one.
pub fn macro_json_objects(ts: &TokenStream) -> Vec<TokenStream> {
    let mut objs = Vec::new();
    json_objects(ts, &mut objs);
    objs.extend(json_root(ts));
    objs
}

/// The object a `json!` invocation builds, when it is one (`json!({..})`).
pub fn json_root(ts: &TokenStream) -> Option<TokenStream> {
    let mut it = ts.clone().into_iter();
    match (it.next(), it.next()) {
        (Some(TokenTree::Group(g)), None) if g.delimiter() == Delimiter::Brace => Some(g.stream()),
        _ => None,
    }
}

fn json_keys(ts: &TokenStream, out: &mut Vec<String>) {
    let mut objs = Vec::new();
    if let Some(root) = json_root(ts) {
        objs.push(root.clone());
    }
    json_objects(ts, &mut objs);
    for o in objs {
        for (k, _, _) in json_entries(&o) {
            out.push(k);
        }
    }
}

/// The Rust expressions a `json!` body interpolates (`"state": token`, `"n": compute(x)`).
fn json_values(ts: &TokenStream) -> Vec<syn::Expr> {
    let mut objs = Vec::new();
    if let Some(root) = json_root(ts) {
        objs.push(root);
    }
    json_objects(ts, &mut objs);
    let mut out = Vec::new();
    for o in objs {
        for (_, _, v) in json_entries(&o) {
            if json_root(&v).is_some() || v.is_empty() {
                continue;
            }
            if let Ok(e) = syn::parse2::<syn::Expr>(v) {
                if !matches!(e, syn::Expr::Lit(_) | syn::Expr::Array(_)) {
                    out.push(e);
                }
            }
        }
    }
    out
}

/// The last identifier of a type (`State` in `&crate::State`), through references.
pub fn last_segment(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(tp) => tp.path.segments.last().map(|s| s.ident.to_string()),
        syn::Type::Reference(r) => last_segment(&r.elem),
        syn::Type::Paren(p) => last_segment(&p.elem),
        syn::Type::Group(g) => last_segment(&g.elem),
        _ => None,
    }
}

fn turbofish_types(args: &syn::PathArguments, out: &mut Vec<String>) {
    if let syn::PathArguments::AngleBracketed(ab) = args {
        for a in &ab.args {
            if let syn::GenericArgument::Type(ty) = a {
                if let Some(n) = last_segment(ty) {
                    out.push(n);
                }
            }
        }
    }
}

/// The last name on an expression's way (`codec` in `self.codec`, `c` in `c()`).
pub fn last_name(e: &syn::Expr) -> Option<String> {
    match e {
        syn::Expr::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        syn::Expr::Field(f) => match &f.member {
            syn::Member::Named(n) => Some(n.to_string()),
            syn::Member::Unnamed(_) => last_name(&f.base),
        },
        syn::Expr::MethodCall(mc) => Some(mc.method.to_string()),
        syn::Expr::Call(c) => last_name(&c.func),
        syn::Expr::Reference(r) => last_name(&r.expr),
        syn::Expr::Paren(p) => last_name(&p.expr),
        syn::Expr::Try(t) => last_name(&t.expr),
        syn::Expr::Await(a) => last_name(&a.base),
        _ => None,
    }
}

/// The segments of a call's function path (`["InputRequiredResult", "new"]`).
pub fn call_path(c: &syn::ExprCall) -> Vec<String> {
    match &*c.func {
        syn::Expr::Path(p) => p
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect(),
        _ => Vec::new(),
    }
}

/// `Some(x)` → `x`; anything else is itself.
pub fn unwrap_some(e: &syn::Expr) -> Option<&syn::Expr> {
    match e {
        syn::Expr::Call(c)
            if call_path(c).last().is_some_and(|l| l == "Some") && c.args.len() == 1 =>
        {
            Some(&c.args[0])
        }
        syn::Expr::Path(p) if p.path.is_ident("None") => None,
        syn::Expr::Paren(p) => unwrap_some(&p.expr),
        other => Some(other),
    }
}

/// `None`, through parentheses.
pub fn is_none(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Path(p) => p.path.is_ident("None"),
        syn::Expr::Paren(p) => is_none(&p.expr),
        _ => false,
    }
}

impl<'a> Body<'a> {
    /// The index of a lone expression (a `static` or `const` initializer): no parameters.
    pub fn scan_expr(e: &'a syn::Expr) -> Body<'a> {
        let mut b = Body {
            root: Some(Root::Expr(e)),
            ..Body::default()
        };
        let mut idx = Indexer { b: &mut b };
        idx.visit_expr(e);
        b
    }
}

/// Every `"key": value` of a JSON literal at every depth, with the key's span.
pub fn json_keys_spanned(obj: &TokenStream, out: &mut Vec<(String, Span)>) {
    for (k, span, v) in json_entries(obj) {
        out.push((k, span));
        let mut inner = Vec::new();
        if let Some(root) = json_root(&v) {
            inner.push(root);
        }
        for o in inner {
            json_keys_spanned(&o, out);
        }
    }
}

/// The string value of a JSON entry, when it is a string literal.
pub fn json_str(value: &TokenStream) -> Option<(String, Span)> {
    let mut it = value.clone().into_iter();
    match (it.next(), it.next()) {
        (Some(TokenTree::Literal(l)), None) => lit_str(&l).map(|s| (s, l.span())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_collected_on_the_first_question_and_cover_macros_but_not_nested_fns() {
        let f: syn::ItemFn = syn::parse_quote! {
            fn handler(ctx: Ctx) {
                let caps = ctx.client_capabilities();
                tracing::info!("asked {}", ctx.request_state);
                fn nested() { let hidden = "inner"; }
                let url = "https://example.invalid";
            }
        };
        let b = Body::scan(&f.sig, &f.block);
        assert!(b.words.get().is_none(), "indexing a body collects no words");
        let idents = b.idents();
        for name in [
            "caps",
            "client_capabilities",
            "info",
            "request_state",
            "url",
        ] {
            assert!(idents.contains(name), "{name} in {idents:?}");
        }
        assert!(!idents.contains("hidden"), "a nested fn is its own body");
        assert!(
            !idents.contains("tracing"),
            "of a macro path, its name only"
        );
        assert_eq!(b.strings(), ["asked {}", "https://example.invalid"]);
        let e: syn::Expr = syn::parse_quote!(Codec::new(KEY));
        assert!(Body::scan_expr(&e).idents().contains("KEY"));
    }
}
