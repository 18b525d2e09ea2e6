//! Where the hand-written requests that a crate builds in one place are sent from another: a
//! builder fn's return value (`fn roots_req(id) -> Value { json!({"method": "roots/list", ..}) }`,
//! see `request_helpers.rs`) followed through `let` bindings, through the fns that return it in
//! turn, and through the struct fields it is stored in, to a send or write call
//! (`stdout.write_all(line.as_bytes())`). The finding stands at the build site (the literal) and
//! names the sender, so the answer here is by name: which builder fns and which fields holding a
//! request reach a sender, and the first sender each reaches.
//!
//! A package's answer is worked out once ([`RequestFlow::of_package`], from the crate index) and
//! only for packages that have a builder: the files whose text names a legacy method are parsed
//! to find the builders, then the files that name a builder or a field holding a request. A file
//! linted without a package gets the same answer over its own tree ([`RequestFlow::of_trees`]).
//!
//! Test code (`#[test]` fns, `#[cfg(test)]` modules, files under `tests/` or `benches/`) and
//! client code (`impl ClientHandler for ..`) send nothing here: a mock client answering
//! `roots/list` is no server asking it.

use std::path::{Path, PathBuf};

use crate::model::fast_hash::{HashMap, HashSet};

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;

use crate::model::request_helpers::{unguarded_parts, RequestHelpers};
use crate::model::scan::RawScan;
use crate::model::scope::{spawn_args, spawned_locals};
use crate::model::sdk::{raw, McpMethod, Side, SDKS};

/// Names too common to stand for one builder: a `fn new() -> Self` that sets a `method` field
/// would make every `X::new()` of the crate a request.
const TOO_COMMON: &[&str] = &["new", "default", "from", "into", "clone", "build"];

/// Where a request value is sent: the sink's name and where it stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sender {
    /// `write_all`, `send`, `println!`, ...
    pub sink: String,
    /// The sender's file, relative to the package's folder (`None` for the file being linted,
    /// when there is no package).
    pub path: Option<PathBuf>,
    /// 1-based.
    pub line: usize,
    /// Every send of the value is inside a spawned task (`tokio::spawn(async move { .. })`),
    /// which outlives the request that started it: MRTR cannot reach the request.
    pub spawned: bool,
}

impl Sender {
    /// `` `write_all` (src/server.rs:926) `` for messages.
    pub fn describe(&self) -> String {
        match &self.path {
            Some(p) => format!(
                "`{}` ({}:{})",
                self.sink,
                p.to_string_lossy().replace('\\', "/"),
                self.line
            ),
            None => format!("`{}` (line {})", self.sink, self.line),
        }
    }
}

/// Which request builders and request-holding fields reach a sender.
#[derive(Debug, Default)]
pub struct RequestFlow {
    /// builder fn name → its first sender.
    pub builders: HashMap<String, Sender>,
    /// field name → the first sender of a value read from a field of that name.
    pub fields: HashMap<String, Sender>,
    /// The package's constants that hold a legacy method's name (`const ROOTS: &str = ..`).
    pub consts: HashMap<String, McpMethod>,
}

/// Where a tainted value came from: a builder fn's call or a field's read.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Source {
    Builder(String),
    Field(String),
}

impl RequestFlow {
    pub fn is_empty(&self) -> bool {
        self.builders.is_empty() && self.fields.is_empty()
    }

    /// The flow over the files of a package (`(absolute path, text)`), relative to `root`.
    pub fn of_package(root: &Path, files: &[(PathBuf, String)]) -> RequestFlow {
        let names_method = |t: &str| {
            McpMethod::ALL
                .iter()
                .any(|m| memchr::memmem::find(t.as_bytes(), m.wire().as_bytes()).is_some())
        };
        let mut trees: Vec<(usize, syn::File)> = Vec::new();
        let mut builders: HashSet<String> = HashSet::default();
        let mut consts: HashMap<String, McpMethod> = HashMap::default();
        for (i, (path, text)) in files.iter().enumerate() {
            if !names_method(text) || is_test_path(root, path) {
                continue;
            }
            let Ok((_, tree)) = crate::reading::parse::parse(text.as_bytes()) else {
                continue;
            };
            let h = RequestHelpers::gather(&tree, text);
            builders.extend(h.builders.into_keys());
            consts.extend(h.method_consts);
            trees.push((i, tree));
        }
        builders.retain(|b| !TOO_COMMON.contains(&b.as_str()));
        // Rounds: a pass over the trees so far finds fns that return a builder's value and fields
        // that hold a request; the files that name one of those are parsed for the next round.
        let mut flow = Pass::default();
        for _ in 0..4 {
            let before = (builders.len(), flow.field_names.len());
            let mut next = Pass {
                builders: builders.clone(),
                field_names: flow.field_names.clone(),
                returns: flow.returns.clone(),
                stored: flow.stored.clone(),
                consts: consts.clone(),
                ..Pass::default()
            };
            for (i, tree) in &trees {
                let rel = files[*i].0.strip_prefix(root).unwrap_or(&files[*i].0);
                next.file = Some(rel.to_path_buf());
                next.visit_file(tree);
            }
            builders.extend(next.returns.keys().cloned());
            flow = next;
            // A builder is wanted where it is called (`name(`), a field where it is read (`.name`
            // at the end of a word): a field's bare name (`params`) is in most files.
            let mut wanted: Vec<(Vec<u8>, bool)> = builders
                .iter()
                .map(|b| (format!("{b}(").into_bytes(), false))
                .collect();
            wanted.extend(
                flow.field_names
                    .iter()
                    .map(|f| (format!(".{f}").into_bytes(), true)),
            );
            if wanted.is_empty() {
                break;
            }
            let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
            let names = |text: &[u8]| {
                wanted.iter().any(|(w, field)| {
                    memchr::memmem::find_iter(text, w)
                        .any(|at| !*field || !text.get(at + w.len()).is_some_and(|&c| ident(c)))
                })
            };
            let mut grew = false;
            for (i, (path, text)) in files.iter().enumerate() {
                if trees.iter().any(|(j, _)| *j == i) || is_test_path(root, path) {
                    continue;
                }
                if !names(text.as_bytes()) {
                    continue;
                }
                if let Ok((_, tree)) = crate::reading::parse::parse(text.as_bytes()) {
                    trees.push((i, tree));
                    grew = true;
                }
            }
            if !grew && (builders.len(), flow.field_names.len()) == before {
                break;
            }
        }
        let mut out = flow.finish();
        out.consts = consts;
        out
    }

    /// The flow within one file's tree (a file linted without a package).
    pub fn of_trees(
        builders: &HashMap<String, McpMethod>,
        consts: &HashMap<String, McpMethod>,
        tree: &syn::File,
    ) -> RequestFlow {
        let mut names: HashSet<String> = builders
            .keys()
            .filter(|b| !TOO_COMMON.contains(&b.as_str()))
            .cloned()
            .collect();
        let mut flow = Pass::default();
        for _ in 0..4 {
            let before = (names.len(), flow.field_names.len());
            let mut next = Pass {
                builders: names.clone(),
                field_names: flow.field_names.clone(),
                returns: flow.returns.clone(),
                stored: flow.stored.clone(),
                consts: consts.clone(),
                ..Pass::default()
            };
            next.visit_file(tree);
            names.extend(next.returns.keys().cloned());
            flow = next;
            if (names.len(), flow.field_names.len()) == before {
                break;
            }
        }
        flow.finish()
    }
}

fn is_test_path(root: &Path, path: &Path) -> bool {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components()
        .any(|c| matches!(c.as_os_str().to_str(), Some("tests" | "benches")))
}

/// One round over the trees: which sources each sink consumes, which fns return a source, which
/// fields store one.
#[derive(Default)]
struct Pass {
    builders: HashSet<String>,
    /// Fields known (from earlier rounds) to hold a request.
    field_names: HashSet<String>,
    /// Constants holding a legacy method's name.
    consts: HashMap<String, McpMethod>,
    file: Option<PathBuf>,
    /// fn name → the sources its return value carries (it is a builder in turn).
    returns: HashMap<String, Vec<Source>>,
    /// field name → the sources stored in it.
    stored: HashMap<String, Vec<Source>>,
    /// The sources each sink consumed, with the sink.
    sent: Vec<(Source, Sender)>,
    /// Per fn being walked: local name → sources.
    locals: Vec<HashMap<String, Vec<Source>>>,
    fn_name: Vec<String>,
    /// How many `spawn(..)` calls the walk is inside.
    spawned: usize,
    /// Per fn being walked: a local bound to a future or closure (`let task = async move {..}`)
    /// → the sends its body made (indices into `sent`), marked spawned if the fn later
    /// spawns it by name (`tokio::spawn(task)`).
    task_sends: Vec<HashMap<String, std::ops::Range<usize>>>,
}

impl Pass {
    /// Sources reached: a fn returning a source sends what it returns where its callers send;
    /// a field read sends what was stored in it.
    /// The sends outside spawned tasks are followed first, so a source sent from both places
    /// names a sender MRTR can reach, and only a source no such send reaches is `spawned`.
    fn finish(self) -> RequestFlow {
        let mut out = RequestFlow::default();
        let (spawned, direct): (Vec<_>, Vec<_>) =
            self.sent.iter().cloned().partition(|(_, s)| s.spawned);
        let mut seen: HashSet<Source> = HashSet::default();
        for sends in [direct, spawned] {
            // Popped in the order the sinks were met: each source names its first sender.
            let mut stack: Vec<(Source, Sender)> = sends;
            stack.reverse();
            while let Some((src, sender)) = stack.pop() {
                if !seen.insert(src.clone()) {
                    continue;
                }
                let inner: &[Source] = match &src {
                    Source::Builder(b) => {
                        out.builders.entry(b.clone()).or_insert(sender.clone());
                        self.returns.get(b).map(Vec::as_slice).unwrap_or(&[])
                    }
                    Source::Field(f) => {
                        out.fields.entry(f.clone()).or_insert(sender.clone());
                        self.stored.get(f).map(Vec::as_slice).unwrap_or(&[])
                    }
                };
                for s in inner {
                    stack.push((s.clone(), sender.clone()));
                }
            }
        }
        out
    }

    /// The sources an expression carries (a builder's call, a tainted local, a read of a field
    /// that holds a request), and whether it holds a request literal written by hand.
    fn sources_of_expr(&self, e: &syn::Expr) -> (Vec<Source>, bool) {
        let mut m = Mentions::default();
        m.visit_expr(e);
        let mut raw = RawScan::default();
        raw.visit_expr(e);
        let by_const = raw.consts.iter().any(|(c, _)| self.consts.contains_key(c));
        (self.resolve(m), !raw.raw.is_empty() || by_const)
    }

    fn resolve(&self, m: Mentions) -> Vec<Source> {
        let mut out: Vec<Source> = Vec::new();
        for c in m.calls {
            if self.builders.contains(&c) {
                out.push(Source::Builder(c));
            }
        }
        for f in m.fields {
            if self.field_names.contains(&f) {
                out.push(Source::Field(f));
            }
        }
        if let Some(locals) = self.locals.last() {
            for id in m.idents {
                if let Some(s) = locals.get(&id) {
                    out.extend(s.iter().cloned());
                }
            }
        }
        out.sort();
        out.dedup();
        out
    }

    fn send(&mut self, sink: &str, span: proc_macro2::Span, sources: Vec<Source>) {
        for s in sources {
            self.sent.push((
                s,
                Sender {
                    sink: sink.to_string(),
                    path: self.file.clone(),
                    line: span.start().line,
                    spawned: self.spawned > 0,
                },
            ));
        }
    }

    fn store(&mut self, field: String, sources: Vec<Source>, literal: bool) {
        if sources.is_empty() && !literal {
            return;
        }
        let entry = self.stored.entry(field.clone()).or_default();
        for s in sources {
            if !entry.contains(&s) {
                entry.push(s);
            }
        }
        self.field_names.insert(field);
    }

    fn walk_fn(&mut self, name: &syn::Ident, block: &syn::Block) {
        self.locals.push(HashMap::default());
        self.fn_name.push(name.to_string());
        self.task_sends.push(HashMap::default());
        self.visit_block(block);
        self.task_sends.pop();
        if let Some(syn::Stmt::Expr(tail, None)) = block.stmts.last() {
            self.returned(tail);
        }
        self.fn_name.pop();
        self.locals.pop();
    }

    fn returned(&mut self, e: &syn::Expr) {
        let (sources, _) = self.sources_of_expr(e);
        if sources.is_empty() {
            return;
        }
        if let Some(name) = self.fn_name.last() {
            if TOO_COMMON.contains(&name.as_str()) {
                return;
            }
            let entry = self.returns.entry(name.clone()).or_default();
            for s in sources {
                if !entry.contains(&s) {
                    entry.push(s);
                }
            }
        }
    }
}

fn is_test_attr(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        let p = a.path();
        p.is_ident("test")
            || p.segments.last().is_some_and(|s| s.ident == "test")
            || (p.is_ident("cfg") && a.parse_args::<syn::Ident>().is_ok_and(|i| i == "test"))
    })
}

/// `impl ClientHandler for ..`: a client's code answers these requests, it never sends them.
fn client_impl(i: &syn::ItemImpl) -> bool {
    let Some((_, path, _)) = &i.trait_ else {
        return false;
    };
    let Some(last) = path.segments.last() else {
        return false;
    };
    SDKS.iter().any(|s| {
        s.handler_traits
            .iter()
            .any(|h| h.side == Side::Client && last.ident == h.name)
    })
}

impl<'ast> Visit<'ast> for Pass {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if !is_test_attr(&f.attrs) {
            self.walk_fn(&f.sig.ident, &f.block);
        }
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if !is_test_attr(&f.attrs) {
            self.walk_fn(&f.sig.ident, &f.block);
        }
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        if !is_test_attr(&i.attrs) && !client_impl(i) {
            syn::visit::visit_item_impl(self, i);
        }
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if !is_test_attr(&m.attrs) {
            syn::visit::visit_item_mod(self, m);
        }
    }

    fn visit_expr(&mut self, e: &'ast syn::Expr) {
        if let Some(parts) = unguarded_parts(e) {
            // The write the migration guarded sends nothing on 2026-07-28.
            for part in parts {
                self.visit_expr(part);
            }
            return;
        }
        let Some(args) = spawn_args(e) else {
            return syn::visit::visit_expr(self, e);
        };
        self.spawned += 1;
        syn::visit::visit_expr(self, e);
        self.spawned -= 1;
        for name in spawned_locals(args) {
            let sends = self
                .task_sends
                .last()
                .and_then(|t| t.get(&name.to_string()))
                .cloned();
            for i in sends.into_iter().flatten() {
                self.sent[i].1.spawned = true;
            }
        }
    }

    fn visit_local(&mut self, l: &'ast syn::Local) {
        let Some(init) = &l.init else { return };
        let first_send = self.sent.len();
        self.visit_expr(&init.expr);
        // `let task = async move { .. }; tokio::spawn(task);`: the body's sends run in the task
        // if it is spawned later (see `visit_expr`).
        if let (syn::Expr::Async(_) | syn::Expr::Closure(_), syn::Pat::Ident(pi)) =
            (&*init.expr, &l.pat)
        {
            if let Some(tasks) = self.task_sends.last_mut() {
                tasks.insert(pi.ident.to_string(), first_send..self.sent.len());
            }
        }
        if let Some((_, d)) = &init.diverge {
            self.visit_expr(d);
        }
        let (sources, _) = self.sources_of_expr(&init.expr);
        if sources.is_empty() {
            return;
        }
        let names = crate::reading::pat_names(&l.pat);
        if let Some(locals) = self.locals.last_mut() {
            for n in names {
                locals.insert(n, sources.clone());
            }
        }
    }

    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        self.visit_expr(&a.right);
        let (sources, literal) = self.sources_of_expr(&a.right);
        match &*a.left {
            syn::Expr::Field(f) => {
                if let syn::Member::Named(n) = &f.member {
                    self.store(n.to_string(), sources, literal);
                }
            }
            syn::Expr::Path(p) => {
                if let (Some(id), false) = (p.path.get_ident(), sources.is_empty()) {
                    if let Some(locals) = self.locals.last_mut() {
                        locals.insert(id.to_string(), sources);
                    }
                }
            }
            _ => {}
        }
    }

    fn visit_expr_struct(&mut self, s: &'ast syn::ExprStruct) {
        for f in &s.fields {
            self.visit_expr(&f.expr);
            if let syn::Member::Named(n) = &f.member {
                if raw::ENVELOPE_KEYS.contains(&n.to_string().as_str()) || n == "method" {
                    continue;
                }
                let (sources, literal) = self.sources_of_expr(&f.expr);
                self.store(n.to_string(), sources, literal);
            }
        }
        if let Some(rest) = &s.rest {
            self.visit_expr(rest);
        }
    }

    fn visit_expr_method_call(&mut self, mc: &'ast syn::ExprMethodCall) {
        syn::visit::visit_expr_method_call(self, mc);
        if crate::reading::ident_is_one_of(&mc.method, raw::SINK_METHODS) {
            let mut sources = Vec::new();
            for a in &mc.args {
                sources.extend(self.sources_of_expr(a).0);
            }
            self.send(&mc.method.to_string(), mc.method.span(), sources);
        }
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        syn::visit::visit_expr_call(self, c);
        let syn::Expr::Path(p) = &*c.func else { return };
        let Some(last) = p.path.segments.last() else {
            return;
        };
        if crate::reading::ident_is_one_of(&last.ident, raw::SINK_FUNCTIONS) {
            let mut sources = Vec::new();
            for a in &c.args {
                sources.extend(self.sources_of_expr(a).0);
            }
            self.send(&last.ident.to_string(), last.ident.span(), sources);
        }
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        let Some(last) = mac.path.segments.last() else {
            return;
        };
        if !crate::reading::ident_is_one_of(&last.ident, raw::SINK_MACROS) {
            return;
        }
        let mut m = Mentions::default();
        m.tokens(mac.tokens.clone());
        let sources = self.resolve(m);
        self.send(&format!("{}!", last.ident), last.ident.span(), sources);
    }

    fn visit_expr_return(&mut self, r: &'ast syn::ExprReturn) {
        if let Some(e) = &r.expr {
            self.visit_expr(e);
            self.returned(e);
        }
    }

    fn visit_expr_closure(&mut self, c: &'ast syn::ExprClosure) {
        // A closure's `return` is not its fn's; its body's sends still count.
        self.fn_name.push(String::new());
        self.visit_expr(&c.body);
        self.fn_name.pop();
    }
}

/// The names an expression mentions: local names, fns and methods called, fields read, and the
/// identifiers in macro bodies (`format!("{}", req)`, `json!({"r": req})`).
#[derive(Default)]
struct Mentions {
    idents: Vec<String>,
    calls: Vec<String>,
    fields: Vec<String>,
}

impl Mentions {
    fn tokens(&mut self, ts: TokenStream) {
        let toks: Vec<TokenTree> = ts.into_iter().collect();
        for (i, t) in toks.iter().enumerate() {
            match t {
                TokenTree::Group(g) => self.tokens(g.stream()),
                TokenTree::Ident(id) => {
                    let name = id.to_string();
                    let after_dot =
                        i > 0 && matches!(&toks[i - 1], TokenTree::Punct(p) if p.as_char() == '.');
                    let called = matches!(toks.get(i + 1), Some(TokenTree::Group(g)) if g.delimiter() == proc_macro2::Delimiter::Parenthesis);
                    if called {
                        self.calls.push(name);
                    } else if after_dot {
                        self.fields.push(name);
                    } else {
                        self.idents.push(name);
                    }
                }
                TokenTree::Literal(l) => {
                    // `println!("{line}")`: inline format arguments.
                    let s = l.to_string();
                    if s.starts_with('"') || s.starts_with('r') {
                        self.idents.extend(crate::model::scan::format_arg_names(&s));
                    }
                }
                TokenTree::Punct(_) => {}
            }
        }
    }
}

impl<'ast> Visit<'ast> for Mentions {
    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        if let Some(id) = p.path.get_ident() {
            self.idents.push(id.to_string());
        }
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        if let syn::Expr::Path(p) = &*c.func {
            if let Some(last) = p.path.segments.last() {
                self.calls.push(last.ident.to_string());
            }
        }
        syn::visit::visit_expr_call(self, c);
    }

    fn visit_expr_method_call(&mut self, mc: &'ast syn::ExprMethodCall) {
        self.calls.push(mc.method.to_string());
        syn::visit::visit_expr_method_call(self, mc);
    }

    fn visit_expr_field(&mut self, f: &'ast syn::ExprField) {
        if let syn::Member::Named(n) = &f.member {
            self.fields.push(n.to_string());
        }
        syn::visit::visit_expr_field(self, f);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.tokens(m.tokens.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flow(src: &str) -> RequestFlow {
        let file = syn::parse_file(src).unwrap();
        let h = RequestHelpers::gather(&file, src);
        RequestFlow::of_trees(&h.builders, &h.method_consts, &file)
    }

    #[test]
    fn a_builders_value_is_followed_to_its_sender() {
        let f = flow(
            r#"
            fn ask(id: u64) -> (u64, Value) { (id, json!({"id": id, "method": "roots/list"})) }
            fn again(id: u64) -> Value { let (_, r) = ask(id); r }
            fn park() -> Parked { Parked { body: json!({"method": "sampling/createMessage"}) } }
            fn logged() -> Value { json!({"method": "elicitation/create"}) }
            async fn run(out: &mut Stdout, p: Parked) {
                let req = again(1);
                let line = serde_json::to_string(&req).unwrap();
                out.write_all(line.as_bytes()).await;
                tx.send(p.body).await;
                tracing::info!("{}", logged());
            }
            "#,
        );
        let sent = |b: &str| f.builders.get(b).map(|s| (s.sink.as_str(), s.line));
        assert_eq!(sent("again"), Some(("write_all", 9)), "through two lets");
        assert_eq!(
            sent("ask"),
            Some(("write_all", 9)),
            "through `again`'s return"
        );
        assert_eq!(
            f.fields.get("body").map(|s| s.sink.as_str()),
            Some("send"),
            "a parked request"
        );
        assert!(!f.builders.contains_key("logged"), "logging is no send");
    }

    #[test]
    fn a_request_sent_only_from_spawned_tasks_is_marked_so() {
        let f = flow(
            r#"
            fn roots_req(id: u64) -> Value { json!({"id": id, "method": "roots/list"}) }
            fn ask_req(id: u64) -> Value { json!({"id": id, "method": "elicitation/create"}) }
            fn park() -> Parked { Parked { body: json!({"method": "sampling/createMessage"}) } }
            fn later_req() -> Value { json!({"method": "roots/list"}) }
            fn now_req() -> Value { json!({"method": "roots/list"}) }
            async fn start(tx: Sender<Value>, p: Parked) {
                tokio::spawn(async move { tx.send(roots_req(1)).await });
                std::thread::spawn(move || out.write_all(p.body.to_string().as_bytes()));
                let req = ask_req(2);
                rt.spawn(async move { tx.send(req).await });
                let later = async move { tx.send(later_req()).await };
                tokio::spawn(later);
                let now = async move { tx.send(now_req()).await };
                now.await;
            }
            async fn handle(tx: Sender<Value>) {
                tx.send(ask_req(3)).await;
            }
            "#,
        );
        let spawned = |b: &str| f.builders.get(b).map(|s| (s.spawned, s.line));
        assert_eq!(spawned("roots_req"), Some((true, 8)), "tokio::spawn");
        assert_eq!(
            spawned("later_req"),
            Some((true, 12)),
            "a future spawned by name"
        );
        assert_eq!(spawned("now_req"), Some((false, 14)), "a future awaited");
        assert_eq!(
            f.fields.get("body").map(|s| s.spawned),
            Some(true),
            "a field read in a thread"
        );
        assert_eq!(
            spawned("ask_req"),
            Some((false, 18)),
            "also sent outside a task: the direct send is named"
        );
    }

    #[test]
    fn tests_and_clients_send_nothing() {
        let f = flow(
            r#"
            fn roots_req() -> Value { json!({"method": "roots/list"}) }
            impl ClientHandler for Mock { fn answer(&self) { self.tx.send(roots_req()); } }
            #[cfg(test)]
            mod tests { fn t() { tx.send(super::roots_req()); } }
            #[test]
            fn u() { tx.send(roots_req()); }
            "#,
        );
        assert!(f.is_empty(), "{f:?}");
    }
}
