//! The exchange a hand-rolled server runs itself: it builds the request message, writes it to
//! the client with its own writer, and awaits the answer its read loop hands back on a channel
//! registered for the request's id. There is no one send to rewrite (see [`super::ask`]): the
//! send is the write, the answer comes from the receive. So both are rewritten, each in place:
//!
//! ```text
//! let (id, request) = self.manager.create_request(message, schema);
//! let rx = self.manager.register_pending(id).await;
//! if mrtr::jsonrpc::Question::message(&request).sends() {   // the write, guarded
//!     let line = serde_json::to_string(&request)?;
//!     stdout.write_all(line.as_bytes()).await?;
//!     stdout.flush().await?;
//! }
//! let result = timeout(limit, mrtr::jsonrpc::Question::message(&request).or_send(|_| rx)).await;
//! ```
//!
//! On a pre-2026 request, and wherever no scope runs the code, the guard is true and `or_send`
//! awaits the receiver: the exchange is what it was. In the scope of a 2026-07-28 request nothing
//! is written, and the receive yields the client's answer from the retry (or parks the handler,
//! which ends the round with an `InputRequiredResult`).
//!
//! What the code must show, else the exchange is left with its finding's advice:
//! - the request bound by a `let` (a `json!` object, a struct, or a builder's return value),
//!   then written by the statements that follow its first use, which bind nothing used later;
//! - after them, in an `async fn`, the receive: a receiver bound between the build and the
//!   write, used as a future (awaited, or handed to `timeout`), or an awaited call that reads
//!   the request's id (`self.wait_for(id).await`);
//! - the receiver made by a fn of the package that returns a `oneshot::Receiver<T>`, or in place
//!   by `oneshot::channel()` with `T` read off where its sender goes (a field of `self` declared
//!   with a `Sender<T>`, a package fn's parameter, a turbofish), or the
//!   call's `async fn` returning `Result<T, _>`, `Option<T>` or `Value`, with `T` a
//!   `serde_json::Value` or a type the package derives `Deserialize` for: the answer must come
//!   back in the type the receive yields (`mrtr::jsonrpc::FromAnswer`), and no other is proven
//!   here.

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use syn::visit::Visit;

use crate::finding::{Edit, Finding};
use crate::fix::rmcp::text::{indent_at, last_ident, range_of, stmt_range, type_args, uses_of};
use crate::model::fast_hash::{HashMap, HashSet};
use crate::model::sdk::raw;
use crate::reading::pat_names;
use crate::reading::source::LineIndex;

/// The methods a 2026-07-28 server asks in `inputRequests` instead of sending.
const ASKS: &[&str] = &["elicitation/create", "sampling/createMessage", "roots/list"];

/// The fix's message: one line (the rule's documentation has the rest).
pub const MESSAGE: &str =
    "the receive becomes `mrtr::jsonrpc::Question::message(..).or_send(..)`, \
the write runs only for older requests (on 2026-07-28 the code before it runs again); the dispatch \
arm gets `mrtr::jsonrpc::RequestScope`; adds `mrtr` to `[dependencies]`";

/// Where the finding says the request goes: a builder's value written in another fn
/// (`returned by `b` and sent to the client by `w` (src/x.rs:9)`), or a literal written in its
/// own fn (`(through `writeln!`)`).
#[derive(Debug, PartialEq)]
pub enum Anchor {
    Written {
        builder: String,
        path: String,
        line: usize,
    },
    InPlace,
}

/// The anchor of an MCP004 finding this tier may fix.
pub fn wanted(f: &Finding) -> Option<Anchor> {
    if f.code != "MCP004"
        || f.fix.is_some()
        || !f.mcp_method.as_deref().is_some_and(|m| ASKS.contains(&m))
    {
        return None;
    }
    let m = &f.message;
    if let Some(rest) = m.split("returned by `").nth(1) {
        let builder = rest.split('`').next()?.to_string();
        let sent = rest.split("sent to the client by `").nth(1)?;
        let place = sent.split("` (").nth(1)?.split(')').next()?;
        let (path, line) = place.rsplit_once(':')?;
        return Some(Anchor::Written {
            builder,
            path: path.to_string(),
            line: line.parse().ok()?,
        });
    }
    m.contains("sent to the client (through `")
        .then_some(Anchor::InPlace)
}

/// The edits of the exchange in `text` (a file of the package, parsed as `file`): at the
/// finding's own position (`at`, for [`Anchor::InPlace`]) or at the write on `line` of a
/// builder's value. `fns` is the package's fns, where the receive's fn is looked up; `own` is
/// this file's index among them.
pub fn edits(
    idx: &LineIndex,
    file: &syn::File,
    anchor: &Anchor,
    at: usize,
    fns: &PackageFns,
    own: usize,
) -> Result<Vec<Edit>, String> {
    let mut blocks = AsyncBlocks {
        found: Vec::new(),
        asyncs: Vec::new(),
    };
    blocks.visit_file(file);
    let point = match anchor {
        Anchor::InPlace => at,
        Anchor::Written { line, .. } => {
            let start = idx.line_start(*line);
            let text = idx.line_text(*line);
            start + (text.len() - text.trim_start().len())
        }
    };
    // The innermost block of an fn with a statement over the point.
    let (block, is_async) = blocks
        .found
        .iter()
        .filter(|(b, _)| {
            b.stmts
                .iter()
                .any(|s| stmt_range(s, idx).is_some_and(|(s, e)| s <= point && point < e))
        })
        .min_by_key(|(b, _)| range_of(*b, idx).map_or(usize::MAX, |(s, e)| e - s))
        .ok_or("no statement of an fn holds the request")?;
    if !is_async {
        return Err(
            "the exchange runs in a blocking fn: a receive there has no future the \
                    request's round can drop"
                .into(),
        );
    }
    let stmts = &block.stmts;
    let here = stmts
        .iter()
        .position(|s| stmt_range(s, idx).is_some_and(|(s, e)| s <= point && point < e))
        .ok_or("no statement holds the request")?;
    let (build, request) = match anchor {
        Anchor::InPlace => {
            let names = let_names(&stmts[here]);
            match names.as_slice() {
                [one] => (here, one.clone()),
                _ => return Err("the request is not bound by one `let` name".into()),
            }
        }
        Anchor::Written { builder, .. } => built_before(idx, stmts, here, builder)?,
    };
    let first_use = (build + 1..stmts.len())
        .find(|&i| mentions(idx, &stmts[i], &request))
        .ok_or("the request is not used after it is built")?;
    // What the receive is keyed by: the names the build binds besides the request (its id),
    // those bound between the build and the write (the receiver), and the earlier names the
    // build reads (an id made before it).
    let mut keys: Vec<String> = let_names(&stmts[build])
        .into_iter()
        .filter(|n| *n != request)
        .collect();
    for s in &stmts[build + 1..first_use] {
        keys.extend(let_names(s));
    }
    for s in &stmts[..build] {
        keys.extend(
            let_names(s)
                .into_iter()
                .filter(|n| mentions(idx, &stmts[build], n)),
        );
    }
    let receive = (first_use..stmts.len())
        .find(|&i| keys.iter().any(|k| mentions(idx, &stmts[i], k)))
        .ok_or("no receive of the answer follows the write")?;
    let group = &stmts[first_use..receive];
    if !group.iter().any(writes) {
        return Err("the statements after the build write nothing".into());
    }
    // The receive ends the exchange: a statement found by a name the build reads (a log of the
    // message, say) before the write is done would leave the rest of the write unguarded.
    if stmts[receive..]
        .iter()
        .any(|later| mentions(idx, later, &request))
    {
        return Err("the request is used again at or after what would be its receive".into());
    }
    for s in group {
        for n in let_names(s) {
            if stmts[receive..]
                .iter()
                .any(|later| mentions(idx, later, &n))
            {
                return Err(format!(
                    "`{n}`, bound while the request is written, is used after it"
                ));
            }
        }
        if moved(s, &request) {
            return Err("the write moves the request, which the receive reads again".into());
        }
    }
    // The receive: a receiver bound before the write, used bare (`timeout(limit, rx)`), or an
    // awaited call that reads the request's id (`self.wait_for(id).await`).
    let bound_before: Vec<&String> = keys
        .iter()
        .filter(|k| {
            stmts[build + 1..first_use]
                .iter()
                .any(|s| let_names(s).contains(k))
        })
        .collect();
    let receiver = bound_before
        .iter()
        .find_map(|k| bare_use(&stmts[receive], k).map(|e| (*k, e)));
    let received = match receiver {
        Some((name, at)) => {
            let made = stmts[build + 1..first_use]
                .iter()
                .rev()
                .find(|s| let_names(s).contains(name));
            match made.and_then(|s| channel_made(s, name)) {
                // `let (tx, rx) = oneshot::channel();`: the answer's type is where `tx` goes.
                Some(sender) => fns.channel_answers(stmts, &sender, made)?,
                None => {
                    let made_by = made
                        .and_then(maker)
                        .ok_or("the receiver is not made by a call of a named fn")?;
                    fns.answers_in_type(own, &made_by, Receive::Receiver)?;
                }
            }
            at
        }
        None => {
            let (at, callee) = keyed_call(idx, &stmts[receive], &keys)
                .ok_or("the receive reads no receiver bound before the write, and awaits no call of the request's id")?;
            fns.answers_in_type(own, &callee, Receive::Call)?;
            at
        }
    };

    let src = idx.text();
    let question = format!("mrtr::jsonrpc::Question::message(&{request})");
    let (gs, _) = stmt_range(&group[0], idx).ok_or("a statement without a position")?;
    let (_, ge) =
        stmt_range(&group[group.len() - 1], idx).ok_or("a statement without a position")?;
    let indent = indent_at(src, gs);
    // The group one level in: its first line starts after the indentation the guard takes.
    let body: Vec<String> = src[gs..ge]
        .split('\n')
        .enumerate()
        .map(|(i, l)| match (i, l.trim().is_empty()) {
            (0, _) => format!("{indent}    {l}"),
            (_, true) => String::new(),
            _ => format!("    {l}"),
        })
        .collect();
    let guard = format!("if {question}.sends() {{\n{}\n{indent}}}", body.join("\n"));
    let (rs, re) = range_of(received, idx).ok_or("a receive without a position")?;
    let asked = format!("{question}.or_send(|_| {})", &src[rs..re]);
    Ok(vec![idx.edit(gs, ge, guard), idx.edit(rs, re, asked)])
}

/// The exchanges planned over a package.
#[derive(Debug, Default)]
pub struct Exchanges {
    /// The edits of each file that changes, by its index in the files given.
    pub edits: Vec<(usize, Vec<Edit>)>,
    /// The findings they fix, each with its own edits (the index of their file, which is the
    /// finding's own or the one its request is written in, and the edits): a report shows them
    /// as the finding's fix.
    pub fixed: Vec<(Finding, usize, Vec<Edit>)>,
    /// Why the others are left, one line each.
    pub left: Vec<String>,
}

/// The exchanges of `findings` over a package's `files` (path as findings show it, text).
pub fn plan_package(files: &[(String, String)], findings: &[Finding]) -> Exchanges {
    let wanted: Vec<(&Finding, Anchor)> = findings
        .iter()
        .filter_map(|f| Some((f, wanted(f)?)))
        .collect();
    if wanted.is_empty() {
        return Exchanges::default();
    }
    // Each file parsed once, for every exchange and for the package's fns.
    let trees: Vec<Option<syn::File>> =
        files.iter().map(|(_, t)| syn::parse_file(t).ok()).collect();
    let fns = PackageFns::of(
        trees
            .iter()
            .enumerate()
            .filter_map(|(i, t)| Some((i, t.as_ref()?))),
    );
    let mut per_file: Vec<(usize, Vec<Edit>)> = Vec::new();
    let (mut fixed, mut left) = (Vec::new(), Vec::new());
    for (f, anchor) in wanted {
        let Some(i) = file_of(files, f, &anchor) else {
            continue;
        };
        let Some(file) = &trees[i] else {
            continue;
        };
        let idx = LineIndex::new(&files[i].1);
        let at = idx.offset(f.line, f.column.saturating_sub(1));
        match edits(&idx, file, &anchor, at, &fns, i) {
            Ok(e) => {
                let slot = match per_file.iter().position(|(j, _)| *j == i) {
                    Some(k) => k,
                    None => {
                        per_file.push((i, Vec::new()));
                        per_file.len() - 1
                    }
                };
                let taken = &mut per_file[slot].1;
                // One exchange per write: a second finding of the same request adds nothing.
                if e.iter()
                    .all(|e| !taken.iter().any(|t| t.start < e.end && e.start < t.end))
                {
                    taken.extend(e.iter().cloned());
                }
                fixed.push((f.clone(), i, e));
            }
            Err(why) => left.push(format!(
                "{}:{}: exchange not rewritten: {why}",
                f.path, f.line
            )),
        }
    }
    Exchanges {
        edits: per_file,
        fixed,
        left,
    }
}

/// The exchanges of `file` whose request is built where it is written ([`Anchor::InPlace`]),
/// proven from this file alone: their fixes, in every report (the JSON one and the editor's
/// included). The others wait for the pass over the package ([`plan_package`]).
pub fn plan_file(idx: &LineIndex, file: &syn::File, findings: &mut [Finding]) {
    let mut fns: Option<PackageFns> = None;
    for f in findings.iter_mut() {
        if wanted(f) != Some(Anchor::InPlace) {
            continue;
        }
        let at = idx.offset(f.line, f.column.saturating_sub(1));
        let fns = fns.get_or_insert_with(|| PackageFns::of([(0, file)]));
        if let Ok(edits) = edits(idx, file, &Anchor::InPlace, at, fns, 0) {
            f.fix = Some(crate::finding::Fix {
                applicability: crate::finding::Applicability::Unsafe,
                message: MESSAGE.to_string(),
                edits,
                other_files: Vec::new(),
            });
        }
    }
}

/// The file the exchange of `f` is rewritten in: its own, or the one its write is in (the
/// finding names it relative to its package: of the files ending so, the one sharing most of
/// the finding's own path).
fn file_of(files: &[(String, String)], f: &Finding, anchor: &Anchor) -> Option<usize> {
    match anchor {
        Anchor::InPlace => files.iter().position(|(p, _)| *p == f.path),
        Anchor::Written { path, .. } => files
            .iter()
            .enumerate()
            .filter(|(_, (p, _))| p == path || p.ends_with(&format!("/{path}")))
            .max_by_key(|(_, (p, _))| {
                p.chars()
                    .zip(f.path.chars())
                    .take_while(|(a, b)| a == b)
                    .count()
            })
            .map(|(i, _)| i),
    }
}

/// The blocks of every fn body and of the blocks inside them, each with whether its fn is async.
struct AsyncBlocks<'ast> {
    found: Vec<(&'ast syn::Block, bool)>,
    asyncs: Vec<bool>,
}

impl<'ast> Visit<'ast> for AsyncBlocks<'ast> {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.asyncs.push(f.sig.asyncness.is_some());
        syn::visit::visit_item_fn(self, f);
        self.asyncs.pop();
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.asyncs.push(f.sig.asyncness.is_some());
        syn::visit::visit_impl_item_fn(self, f);
        self.asyncs.pop();
    }

    fn visit_expr_closure(&mut self, c: &'ast syn::ExprClosure) {
        // A closure's body is not its fn's: an await there is the closure's own.
        self.asyncs.push(c.asyncness.is_some());
        syn::visit::visit_expr_closure(self, c);
        self.asyncs.pop();
    }

    fn visit_expr_async(&mut self, a: &'ast syn::ExprAsync) {
        self.asyncs.push(true);
        syn::visit::visit_expr_async(self, a);
        self.asyncs.pop();
    }

    fn visit_block(&mut self, b: &'ast syn::Block) {
        if let Some(&is_async) = self.asyncs.last() {
            self.found.push((b, is_async));
        }
        syn::visit::visit_block(self, b);
    }
}

/// The statement before `here` (or `here` itself) that binds the value of a call of `builder`,
/// and the name of it the write reads.
fn built_before(
    idx: &LineIndex,
    stmts: &[syn::Stmt],
    here: usize,
    builder: &str,
) -> Result<(usize, String), String> {
    let build = (0..=here)
        .rev()
        .find(|&i| {
            let syn::Stmt::Local(l) = &stmts[i] else {
                return false;
            };
            l.init
                .as_ref()
                .is_some_and(|init| calls(&init.expr, builder))
        })
        .ok_or_else(|| format!("no `let` before the write binds what `{builder}` returns"))?;
    // Of the names it binds, the one whose first use starts the statements that reach the
    // write without reading the others (`let (id, request) = ..`: `request`).
    let names = let_names(&stmts[build]);
    names
        .iter()
        .find(|n| {
            let Some(first) = (build + 1..=here).find(|&i| mentions(idx, &stmts[i], n)) else {
                return false;
            };
            stmts[first..=here].iter().all(|s| {
                names
                    .iter()
                    .filter(|o| o != n)
                    .all(|o| !mentions(idx, s, o))
            })
        })
        .map(|n| (build, n.clone()))
        .ok_or_else(|| format!("which name of `{builder}`'s value is written is not clear"))
}

/// Whether `e` calls a fn or method named `name`.
fn calls(e: &syn::Expr, name: &str) -> bool {
    struct Calls<'n>(&'n str, bool);
    impl<'ast> Visit<'ast> for Calls<'_> {
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            self.1 |= m.method == self.0;
            syn::visit::visit_expr_method_call(self, m);
        }
        fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
            if let syn::Expr::Path(p) = &*c.func {
                self.1 |= p.path.segments.last().is_some_and(|s| s.ident == self.0);
            }
            syn::visit::visit_expr_call(self, c);
        }
    }
    let mut v = Calls(name, false);
    v.visit_expr(e);
    v.1
}

/// The names a `let` statement binds.
fn let_names(s: &syn::Stmt) -> Vec<String> {
    match s {
        syn::Stmt::Local(l) => pat_names(&l.pat),
        _ => Vec::new(),
    }
}

/// Whether `node` uses the name (as an identifier, not a field after a `.`, or as a format
/// string's inline argument: `"{name}"`).
fn mentions(idx: &LineIndex, node: &impl ToTokens, name: &str) -> bool {
    uses_of(node, idx, name) > 0
}

/// Whether `s` may move `name`: a use that is neither borrowed (`&name`), a method's receiver
/// (`name.len()`, which borrows for every method a request value has that a write calls), nor
/// a macro's argument (which formats by reference).
fn moved(s: &syn::Stmt, name: &str) -> bool {
    fn walk(ts: TokenStream, name: &str, in_macro: bool) -> bool {
        let tokens: Vec<TokenTree> = ts.into_iter().collect();
        tokens.iter().enumerate().any(|(i, t)| match t {
            TokenTree::Ident(id) if id == name => {
                let borrowed =
                    i > 0 && matches!(&tokens[i - 1], TokenTree::Punct(p) if p.as_char() == '&');
                let receiver =
                    matches!(tokens.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == '.');
                !(borrowed || receiver || in_macro)
            }
            TokenTree::Group(g) => {
                let is_macro_args =
                    i > 0 && matches!(&tokens[i - 1], TokenTree::Punct(p) if p.as_char() == '!');
                walk(g.stream(), name, in_macro || is_macro_args)
            }
            _ => false,
        })
    }
    walk(s.to_token_stream(), name, false)
}

/// Whether `s` writes to the client: a call of a sink method or macro.
fn writes(s: &syn::Stmt) -> bool {
    struct Sinks(bool);
    impl<'ast> Visit<'ast> for Sinks {
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            self.0 |= raw::SINK_METHODS.contains(&m.method.to_string().as_str());
            syn::visit::visit_expr_method_call(self, m);
        }
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            self.0 |= m
                .path
                .segments
                .last()
                .is_some_and(|s| raw::SINK_MACROS.contains(&s.ident.to_string().as_str()));
        }
    }
    let mut v = Sinks(false);
    v.visit_stmt(s);
    v.0
}

/// The place in `s` where `name` is used bare as a future: awaited (`name.await`) or passed as
/// an argument (`timeout(limit, name)`).
fn bare_use<'a>(s: &'a syn::Stmt, name: &str) -> Option<&'a syn::Expr> {
    struct Use<'a, 'n> {
        name: &'n str,
        found: Option<&'a syn::Expr>,
    }
    impl<'a> Use<'a, '_> {
        fn take(&mut self, e: &'a syn::Expr) {
            if let syn::Expr::Path(p) = e {
                if self.found.is_none() && p.path.is_ident(self.name) {
                    self.found = Some(e);
                }
            }
        }
    }
    impl<'a> Visit<'a> for Use<'a, '_> {
        fn visit_expr_await(&mut self, a: &'a syn::ExprAwait) {
            self.take(&a.base);
            syn::visit::visit_expr_await(self, a);
        }
        fn visit_expr_call(&mut self, c: &'a syn::ExprCall) {
            for arg in &c.args {
                self.take(arg);
            }
            syn::visit::visit_expr_call(self, c);
        }
    }
    let mut v = Use { name, found: None };
    v.visit_stmt(s);
    v.found
}

/// The name of the fn whose call (awaited or not) makes the value a `let` binds.
fn maker(s: &syn::Stmt) -> Option<String> {
    let syn::Stmt::Local(l) = s else { return None };
    let mut e = &*l.init.as_ref()?.expr;
    if let syn::Expr::Await(a) = e {
        e = &a.base;
    }
    match e {
        syn::Expr::MethodCall(m) => Some(m.method.to_string()),
        syn::Expr::Call(c) => match &*c.func {
            syn::Expr::Path(p) => Some(p.path.segments.last()?.ident.to_string()),
            _ => None,
        },
        _ => None,
    }
}

/// For `let (tx, rx) = oneshot::channel();` (any path through `oneshot`, or with a turbofish)
/// binding the receiver `rx`: the sender's name.
fn channel_made(s: &syn::Stmt, rx: &str) -> Option<String> {
    let syn::Stmt::Local(l) = s else { return None };
    let pat = match &l.pat {
        syn::Pat::Type(t) => &*t.pat,
        p => p,
    };
    let syn::Pat::Tuple(t) = pat else { return None };
    let names: Vec<String> = t
        .elems
        .iter()
        .filter_map(|p| match p {
            syn::Pat::Ident(i) => Some(i.ident.to_string()),
            _ => None,
        })
        .collect();
    let [tx, r] = names.as_slice() else {
        return None;
    };
    if r != rx {
        return None;
    }
    let syn::Expr::Call(c) = &*l.init.as_ref()?.expr else {
        return None;
    };
    let syn::Expr::Path(p) = &*c.func else {
        return None;
    };
    let segs = &p.path.segments;
    let last = segs.last()?;
    let oneshot = segs.iter().any(|s| s.ident == "oneshot")
        || matches!(last.arguments, syn::PathArguments::AngleBracketed(_));
    (last.ident == "channel" && oneshot).then(|| tx.clone())
}

/// The name of the first type argument of `seg` (`Sender<Value>`: `Value`).
fn first_arg_name(seg: &syn::PathSegment) -> Option<String> {
    type_args(seg).first().and_then(|t| last_ident(t))
}

/// The `T` of a `Sender<T>` (or of `oneshot::channel::<T>`) found in `ty`, at any depth
/// (`Arc<Mutex<HashMap<u64, oneshot::Sender<Value>>>>`).
fn sender_item(ty: &syn::Type) -> Option<String> {
    struct Find(Option<String>);
    impl<'ast> Visit<'ast> for Find {
        fn visit_path_segment(&mut self, s: &'ast syn::PathSegment) {
            if self.0.is_none() && s.ident == "Sender" {
                self.0 = first_arg_name(s);
            }
            syn::visit::visit_path_segment(self, s);
        }
    }
    let mut f = Find(None);
    f.visit_type(ty);
    f.0
}

/// How the answer is received: a receiver made by the fn, or the fn's own awaited call.
#[derive(Clone, Copy, PartialEq)]
enum Receive {
    Receiver,
    Call,
}

/// The awaited call in `s` with an argument that reads one of `keys` (the request's id), and
/// the name of its fn.
fn keyed_call<'a>(
    idx: &LineIndex,
    s: &'a syn::Stmt,
    keys: &[String],
) -> Option<(&'a syn::Expr, String)> {
    struct Awaited<'a, 'k> {
        idx: &'k LineIndex<'k>,
        keys: &'k [String],
        found: Option<(&'a syn::Expr, String)>,
    }
    impl<'a> Visit<'a> for Awaited<'a, '_> {
        fn visit_expr_await(&mut self, a: &'a syn::ExprAwait) {
            let (name, args) = match &*a.base {
                syn::Expr::MethodCall(m) => (Some(m.method.to_string()), Some(&m.args)),
                syn::Expr::Call(c) => match &*c.func {
                    syn::Expr::Path(p) => (
                        p.path.segments.last().map(|s| s.ident.to_string()),
                        Some(&c.args),
                    ),
                    _ => (None, None),
                },
                _ => (None, None),
            };
            if let (Some(name), Some(args), None) = (name, args, &self.found) {
                let reads_key = args
                    .iter()
                    .any(|arg| self.keys.iter().any(|k| mentions(self.idx, arg, k)));
                if reads_key {
                    self.found = Some((&a.base, name));
                }
            }
            syn::visit::visit_expr_await(self, a);
        }
    }
    let mut v = Awaited {
        idx,
        keys,
        found: None,
    };
    v.visit_stmt(s);
    v.found
}

/// The package's fns by name (the file each stands in, its return type, whether it is async),
/// and the types it derives `Deserialize` for: read once per package, from the trees parsed for
/// the plan.
#[derive(Default)]
pub struct PackageFns {
    by_name: HashMap<String, Vec<(usize, syn::Type, bool)>>,
    deserialized: HashSet<String>,
    /// Each fn's typed parameters (without `self`), by name.
    params: HashMap<String, Vec<Vec<syn::Type>>>,
    /// Each named struct field's declared types, by field name (every struct of the package).
    fields: HashMap<String, Vec<syn::Type>>,
}

impl PackageFns {
    /// The fns of `files` (each file's index in the package, its tree).
    pub fn of<'f>(files: impl IntoIterator<Item = (usize, &'f syn::File)>) -> PackageFns {
        let mut fns = PackageFns::default();
        for (at, file) in files {
            let mut sigs = Sigs { at, fns: &mut fns };
            sigs.visit_file(file);
        }
        fns
    }

    /// Whether the fn `name` gives what an answer deserializes into: a `oneshot::Receiver<T>`
    /// (the receiver's output, `Result<T, _>`), or, called and awaited, a `Result<T, _>`, an
    /// `Option<T>` or a `Value` (`mrtr::jsonrpc::FromAnswer`), with `T` a `Value` or a type the
    /// package derives `Deserialize` for. The fn is the one of that name in the exchange's own
    /// file (`own`), else the package's only one: a name the package gives several fns, none of
    /// them there, is not resolved.
    fn answers_in_type(&self, own: usize, name: &str, how: Receive) -> Result<(), String> {
        let unproven = || match how {
            Receive::Receiver => format!(
                "`{name}` is not seen to return a `oneshot::Receiver` of a type an answer \
                 deserializes into"
            ),
            Receive::Call => format!(
                "`{name}` is not seen to be an `async fn` returning a `Result`, an `Option` or a \
                 `Value` of a type an answer deserializes into"
            ),
        };
        let all = self
            .by_name
            .get(name)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let here: Vec<_> = all.iter().filter(|(at, _, _)| *at == own).collect();
        let (_, ret, is_async) = match (here.as_slice(), all) {
            ([one], _) => *one,
            ([], [one]) => one,
            _ => return Err(unproven()),
        };
        let syn::Type::Path(tp) = ret else {
            return Err(unproven());
        };
        let segs: Vec<&syn::PathSegment> = tp.path.segments.iter().collect();
        let last = segs.last().ok_or_else(unproven)?;
        let fits = match how {
            Receive::Receiver => {
                last.ident == "Receiver" && segs.iter().any(|s| s.ident == "oneshot")
            }
            Receive::Call if *is_async && last.ident == "Value" => return Ok(()),
            Receive::Call => *is_async && (last.ident == "Result" || last.ident == "Option"),
        };
        if !fits {
            return Err(unproven());
        }
        match first_arg_name(last) {
            Some(item) if self.answers_into(&item) => Ok(()),
            _ => Err(unproven()),
        }
    }

    /// Whether an answer deserializes into the type named `item`: a `Value`, or a type the
    /// package derives `Deserialize` for.
    fn answers_into(&self, item: &str) -> bool {
        item == "Value" || self.deserialized.contains(item)
    }

    /// Whether the answer fits the item type of a channel made in place: named by a turbofish
    /// or the `let`'s type, or read off where its sender `tx` goes among `stmts`: into a field
    /// of `self` (`self.pending.lock().await.insert(id, tx)`: the field's declared type holds a
    /// `Sender<T>`) or as an argument of a package fn (its parameter's type). `T` must be a
    /// `Value` or a type the package derives `Deserialize` for.
    fn channel_answers(
        &self,
        stmts: &[syn::Stmt],
        tx: &str,
        made: Option<&syn::Stmt>,
    ) -> Result<(), String> {
        let unproven = || {
            format!(
                "the channel's answer type is not seen (no turbofish, no type on the `let`, and \
                 `{tx}` goes to no field or parameter declared with a `Sender<T>`)"
            )
        };
        let declared = made.and_then(|s| match s {
            syn::Stmt::Local(l) => {
                let from_let = match &l.pat {
                    syn::Pat::Type(t) => sender_item(&t.ty),
                    _ => None,
                };
                // A turbofish: `oneshot::channel::<Value>()`.
                from_let.or_else(|| match l.init.as_ref().map(|i| &*i.expr) {
                    Some(syn::Expr::Call(c)) => match &*c.func {
                        syn::Expr::Path(p) => first_arg_name(p.path.segments.last()?),
                        _ => None,
                    },
                    _ => None,
                })
            }
            _ => None,
        });
        let item = match declared {
            Some(item) => item,
            None => stmts
                .iter()
                .find_map(|s| self.sender_goes(s, tx))
                .ok_or_else(unproven)?,
        };
        if self.answers_into(&item) {
            Ok(())
        } else {
            Err(format!(
                "the channel carries `{item}`, which is neither a `Value` nor a type the package \
                 derives `Deserialize` for"
            ))
        }
    }

    /// The item type of the `Sender<T>` that `tx` is handed to in `s`, read off a field of
    /// `self` the call reaches it through, or a package fn's parameter.
    fn sender_goes(&self, s: &syn::Stmt, tx: &str) -> Option<String> {
        struct Goes<'a> {
            fns: &'a PackageFns,
            tx: &'a str,
            found: Option<String>,
        }
        impl<'ast> Visit<'ast> for Goes<'_> {
            fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
                if self.found.is_none() {
                    if let Some(k) = m
                        .args
                        .iter()
                        .position(|a| crate::reading::is_path_named(a, self.tx))
                    {
                        self.found = self_field(&m.receiver)
                            .and_then(|f| self.fns.fields.get(&f))
                            .and_then(|tys| tys.iter().find_map(sender_item))
                            .or_else(|| self.fns.param_item(&m.method.to_string(), k));
                    }
                }
                syn::visit::visit_expr_method_call(self, m);
            }
            fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
                if self.found.is_none() {
                    if let (Some(k), syn::Expr::Path(p)) = (
                        c.args
                            .iter()
                            .position(|a| crate::reading::is_path_named(a, self.tx)),
                        &*c.func,
                    ) {
                        if let Some(last) = p.path.segments.last() {
                            self.found = self.fns.param_item(&last.ident.to_string(), k);
                        }
                    }
                }
                syn::visit::visit_expr_call(self, c);
            }
        }
        let mut g = Goes {
            fns: self,
            tx,
            found: None,
        };
        g.visit_stmt(s);
        g.found
    }

    /// The `Sender<T>` item of parameter `k` (not counting `self`) of the package's only fn
    /// `name`.
    fn param_item(&self, name: &str, k: usize) -> Option<String> {
        let [params] = self.params.get(name)?.as_slice() else {
            return None;
        };
        params.get(k).and_then(sender_item)
    }
}

/// The field of `self` a receiver chain starts from (`self.pending.lock().await`: `pending`).
fn self_field(e: &syn::Expr) -> Option<String> {
    match crate::reading::chain_root(e) {
        (root, Some(field)) if crate::reading::is_path_named(root, "self") => {
            Some(field.to_string())
        }
        _ => None,
    }
}

/// Gathers one file's fns and `Deserialize` types into [`PackageFns`].
struct Sigs<'p> {
    at: usize,
    fns: &'p mut PackageFns,
}

impl Sigs<'_> {
    fn derives(&mut self, attrs: &[syn::Attribute], ident: &syn::Ident) {
        let deserializes = attrs.iter().any(|a| {
            a.path().is_ident("derive")
                && a.meta.to_token_stream().to_string().contains("Deserialize")
        });
        if deserializes {
            self.fns.deserialized.insert(ident.to_string());
        }
    }
}

impl<'ast> Visit<'ast> for Sigs<'_> {
    fn visit_signature(&mut self, s: &'ast syn::Signature) {
        let params = s
            .inputs
            .iter()
            .filter_map(|a| match a {
                syn::FnArg::Typed(t) => Some((*t.ty).clone()),
                syn::FnArg::Receiver(_) => None,
            })
            .collect();
        self.fns
            .params
            .entry(s.ident.to_string())
            .or_default()
            .push(params);
        if let syn::ReturnType::Type(_, t) = &s.output {
            self.fns
                .by_name
                .entry(s.ident.to_string())
                .or_default()
                .push((self.at, (**t).clone(), s.asyncness.is_some()));
        }
    }

    fn visit_item_struct(&mut self, i: &'ast syn::ItemStruct) {
        self.derives(&i.attrs, &i.ident);
        for f in &i.fields {
            if let Some(name) = &f.ident {
                self.fns
                    .fields
                    .entry(name.to_string())
                    .or_default()
                    .push(f.ty.clone());
            }
        }
    }

    fn visit_item_enum(&mut self, i: &'ast syn::ItemEnum) {
        self.derives(&i.attrs, &i.ident);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(src: &str, anchor: Anchor, at: &str) -> Result<String, String> {
        let file = syn::parse_file(src).unwrap();
        let idx = LineIndex::new(src);
        let at = src.find(at).unwrap();
        let fns = PackageFns::of([(0, &file)]);
        let mut edits = edits(&idx, &file, &anchor, at, &fns, 0)?;
        edits.sort_by_key(|e| std::cmp::Reverse(e.start));
        let mut out = src.to_string();
        for e in edits {
            out.replace_range(e.start..e.end, &e.replacement);
        }
        Ok(out)
    }

    const SERVER: &str = r#"
#[derive(serde::Deserialize)]
struct Answer { action: String }
impl Server {
    fn register(&self, id: u64) -> tokio::sync::oneshot::Receiver<Answer> { todo!() }
    async fn confirm(&self, out: &mut Out) -> Result<String, Error> {
        let id = self.next();
        let request = json!({ "jsonrpc": "2.0", "id": id, "method": "elicitation/create" });
        let rx = self.register(id);
        let line = serde_json::to_string(&request)?;
        out.write_all(line.as_bytes()).await?;
        out.flush().await?;
        let answer = timeout(LIMIT, rx).await??;
        Ok(answer.action)
    }
}
"#;

    #[test]
    fn the_write_is_guarded_and_the_receiver_asked() {
        let out = fixed(SERVER, Anchor::InPlace, "let request").unwrap();
        assert!(
            out.contains(
                "        if mrtr::jsonrpc::Question::message(&request).sends() {\n            let line = serde_json::to_string(&request)?;\n            out.write_all(line.as_bytes()).await?;\n            out.flush().await?;\n        }\n        let answer"
            ),
            "{out}"
        );
        assert!(
            out.contains("timeout(LIMIT, mrtr::jsonrpc::Question::message(&request).or_send(|_| rx)).await??"),
            "{out}"
        );
        syn::parse_file(&out).unwrap();
    }

    #[test]
    fn a_builders_value_is_followed_to_its_write() {
        let src = SERVER.replace(
            r#"let request = json!({ "jsonrpc": "2.0", "id": id, "method": "elicitation/create" });"#,
            "let (id, request) = self.manager.build_request(id);",
        );
        let line = src
            .lines()
            .position(|l| l.contains("out.write_all"))
            .unwrap()
            + 1;
        let anchor = Anchor::Written {
            builder: "build_request".into(),
            path: "src/server.rs".into(),
            line,
        };
        let out = fixed(&src, anchor, "let (id, request)").unwrap_or_else(|e| panic!("{e}"));
        assert!(
            out.contains("if mrtr::jsonrpc::Question::message(&request).sends() {"),
            "{out}"
        );
        assert!(out.contains(".or_send(|_| rx)"), "{out}");
    }

    /// The cousin: no receiver, the answer awaited through a call of the request's id.
    const KEYED: &str = r#"
#[derive(serde::Deserialize)]
struct Answer { action: String }
impl Server {
    async fn wait_for(&self, id: u64) -> Result<Answer, Error> { todo!() }
    async fn confirm(&self, out: &mut Out) -> Result<String, Error> {
        let id = self.next();
        let request = Request { id, method: "elicitation/create", params: None };
        let line = serde_json::to_string(&request)?;
        writeln!(out, "{line}")?;
        let answer = self.wait_for(id).await?;
        Ok(answer.action)
    }
}
"#;

    #[test]
    fn an_awaited_call_of_the_requests_id_is_the_receive() {
        let out = fixed(KEYED, Anchor::InPlace, "let request").unwrap_or_else(|e| panic!("{e}"));
        assert!(
            out.contains("let answer = mrtr::jsonrpc::Question::message(&request).or_send(|_| self.wait_for(id)).await?;"),
            "{out}"
        );
        assert!(
            out.contains("if mrtr::jsonrpc::Question::message(&request).sends() {"),
            "{out}"
        );
        for (from, to, why) in [
            ("async fn wait_for", "fn wait_for", "`async fn`"),
            (
                "Result<Answer, Error>",
                "Result<String, Error>",
                "`async fn`",
            ),
            ("Result<Answer, Error>", "Vec<Answer>", "`async fn`"),
            ("self.wait_for(id)", "self.wait_for(7)", "no receive"),
        ] {
            let e = fixed(&KEYED.replace(from, to), Anchor::InPlace, "let request").unwrap_err();
            assert!(e.contains(why), "{to}: {e}");
        }
        // An awaited `Value` is the answer itself.
        let src = KEYED
            .replace("Result<Answer, Error>", "serde_json::Value")
            .replace("self.wait_for(id).await?", "self.wait_for(id).await")
            .replace("Ok(answer.action)", "Ok(answer.to_string())");
        assert!(fixed(&src, Anchor::InPlace, "let request").is_ok());
    }

    #[test]
    fn an_exchange_the_code_does_not_prove_is_left() {
        let cases = [
            // A blocking fn: no future to drop.
            (SERVER.replace("async fn confirm", "fn confirm"), "blocking"),
            // The receiver's item is not seen to deserialize.
            (
                SERVER.replace("#[derive(serde::Deserialize)]", "#[derive(Debug)]"),
                "deserializes",
            ),
            // Not a oneshot: an mpsc receiver is no future.
            (
                SERVER.replace("oneshot::Receiver<Answer>", "mpsc::Receiver<Answer>"),
                "oneshot",
            ),
            // A name the write binds is read after it.
            (
                SERVER.replace(
                    "Ok(answer.action)",
                    "Ok(format!(\"{line}{}\", answer.action))",
                ),
                "`line`",
            ),
            // The write moves the request.
            (
                SERVER.replace("serde_json::to_string(&request)?", "encode(request)?"),
                "moves",
            ),
            // A statement that reads the id mid-write is not the receive: the write goes on
            // after it.
            (
                SERVER.replace(
                    "out.flush().await?;",
                    "self.audit(id).await?;\n        out.write_all(request.to_string().as_bytes()).await?;",
                ),
                "used again",
            ),
            // Nothing is written.
            (
                SERVER
                    .replace("out.write_all(line.as_bytes()).await?;", "")
                    .replace("out.flush().await?;", ""),
                "write nothing",
            ),
        ];
        for (src, why) in cases {
            let e = fixed(&src, Anchor::InPlace, "let request").unwrap_err();
            assert!(e.contains(why), "{why}: {e}");
        }
    }

    /// The common shape of a hand-rolled server: the receiver made in place by
    /// `oneshot::channel()`, its sender kept in a pending map for the read loop.
    const CHANNEL: &str = r#"
struct Server {
    pending: Arc<Mutex<HashMap<u64, oneshot::Sender<Value>>>>,
}
impl Server {
    fn remember(&self, id: u64, tx: tokio::sync::oneshot::Sender<Value>) { todo!() }
    async fn confirm(&self, out: &mut Out, id: u64) -> Result<Value, Error> {
        let request = json!({ "jsonrpc": "2.0", "id": id, "method": "elicitation/create" });
        let (tx, rx) = oneshot::channel();
        self.pending.lock().await.insert(id, tx);
        out.write_all(request.to_string().as_bytes()).await?;
        let answer = rx.await?;
        Ok(answer)
    }
}
"#;

    #[test]
    fn a_channel_made_in_place_answers_in_the_type_its_sender_is_kept_as() {
        for src in [
            // Through the field the sender is kept in.
            CHANNEL.to_string(),
            // Through the parameter of the fn it is handed to.
            CHANNEL.replace(
                "self.pending.lock().await.insert(id, tx);",
                "self.remember(id, tx);",
            ),
            // Named by a turbofish.
            CHANNEL
                .replace("oneshot::channel()", "oneshot::channel::<Value>()")
                .replace("self.pending.lock().await.insert(id, tx);", "keep(tx);"),
        ] {
            let out = fixed(&src, Anchor::InPlace, "let request").unwrap_or_else(|e| panic!("{e}"));
            assert!(
                out.contains(
                    "let answer = mrtr::jsonrpc::Question::message(&request).or_send(|_| rx).await?;"
                ),
                "{out}"
            );
        }
        // A sender kept as nothing the code declares, or of a type no answer deserializes into.
        let unseen = CHANNEL.replace("self.pending.lock().await.insert(id, tx);", "keep(tx);");
        let e = fixed(&unseen, Anchor::InPlace, "let request").unwrap_err();
        assert!(e.contains("answer type is not seen"), "{e}");
        let opaque = CHANNEL.replace("oneshot::Sender<Value>>>>", "oneshot::Sender<Reply>>>>");
        let e = fixed(&opaque, Anchor::InPlace, "let request").unwrap_err();
        assert!(e.contains("carries `Reply`"), "{e}");
    }

    #[test]
    fn the_anchor_is_read_from_the_finding() {
        let mut f = Finding {
            code: "MCP004".into(),
            name: "raw-server-request".into(),
            level: crate::finding::Level::Error,
            path: "src/elicitation.rs".into(),
            line: 1,
            column: 1,
            end_line: 1,
            end_column: 2,
            message: String::new(),
            mcp_method: Some("elicitation/create".into()),
            sdk: Some("raw".into()),
            help: None,
            fix: None,
        };
        f.message = "a hand-written `elicitation/create` JSON-RPC request is built here, returned by `create_request` and sent to the client by `write_all` (src/server.rs:926); on 2026-07-28 ..".into();
        assert_eq!(
            wanted(&f),
            Some(Anchor::Written {
                builder: "create_request".into(),
                path: "src/server.rs".into(),
                line: 926
            })
        );
        f.message = "a hand-written `sampling/createMessage` JSON-RPC request is sent to the client (through `writeln!`); on ..".into();
        assert_eq!(wanted(&f), Some(Anchor::InPlace));
        f.mcp_method = Some("ping".into());
        assert_eq!(wanted(&f), None);
    }
}
