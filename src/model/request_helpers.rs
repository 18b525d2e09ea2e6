//! The file's own request helpers, found before the walk: fns that return a hand-written
//! JSON-RPC request (`fn roots_req() -> Value { json!({"method": "roots/list", ..}) }`), and fns
//! that forward a method-name parameter to a sender (`fn ask(&self, method: &str, ..) {
//! self.requester.send_request(method, ..) }`). A call of the first is a request value; a legacy
//! method string passed to the second is a request sent.
//!
//! Only files whose text holds one of the three method names are read, and only fn bodies, once.

use crate::model::fast_hash::HashMap;

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;

use crate::model::scan::RawScan;
use crate::model::sdk::{raw, McpMethod};

#[derive(Debug, Default)]
pub struct RequestHelpers {
    /// fn name → the legacy method of the request object it returns.
    pub builders: HashMap<String, McpMethod>,
    /// fn name → the positions of its parameters (receiver not counted) that reach a sender or
    /// the `method` of a JSON-RPC object.
    pub forwarders: HashMap<String, Vec<usize>>,
    /// The file's text names a legacy method (otherwise nothing else here was looked for).
    pub names_method: bool,
    /// `const ROOTS_LIST: &str = "roots/list";` (or a `static`) → its method.
    pub method_consts: HashMap<String, McpMethod>,
}

impl RequestHelpers {
    pub fn gather(file: &syn::File, text: &str) -> RequestHelpers {
        let mut h = RequestHelpers::default();
        let named = |w: &str| memchr::memmem::find(text.as_bytes(), w.as_bytes()).is_some();
        if !McpMethod::ALL.iter().any(|m| named(m.wire()))
            && !named(crate::model::sdk::PMCP1_ELICIT_WIRE)
        {
            return h;
        }
        h.names_method = true;
        let mut fns = Fns::default();
        fns.visit_file(file);
        h.method_consts = fns.consts;
        for (sig, block) in &fns.all {
            if matches!(sig.output, syn::ReturnType::Type(..)) {
                let mut scan = RawScan::default();
                scan.visit_block(block);
                let by_const = || {
                    scan.consts
                        .iter()
                        .find_map(|(c, _)| h.method_consts.get(c).copied())
                };
                if let Some(m) = scan.raw.first().map(|r| r.method).or_else(by_const) {
                    h.builders.insert(sig.ident.to_string(), m);
                }
            }
        }
        // A forwarder may hand its parameter to another forwarder: a few rounds settle it.
        for _ in 0..4 {
            let mut changed = false;
            for (sig, block) in &fns.all {
                let params = string_params(sig);
                if params.is_empty() {
                    continue;
                }
                let mut f = Forwards {
                    params: &params,
                    known: &h.forwarders,
                    hits: Vec::new(),
                };
                f.visit_block(block);
                if f.hits.is_empty() {
                    continue;
                }
                let mut hits = f.hits;
                hits.sort_unstable();
                hits.dedup();
                let name = sig.ident.to_string();
                if h.forwarders.get(&name) != Some(&hits) {
                    h.forwarders.insert(name, hits);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        h
    }
}

/// `Question::new(..)` or `Question::message(..)` (the runtime's `mrtr::jsonrpc::Question`,
/// under any path), as the receiver of `method`: the call, or None.
fn question_call<'a>(e: &'a syn::Expr, method: &str, args: usize) -> Option<&'a syn::Expr> {
    let syn::Expr::MethodCall(mc) = e else {
        return None;
    };
    question_method_call(mc, method, args)
}

fn question_method_call<'a>(
    mc: &'a syn::ExprMethodCall,
    method: &str,
    args: usize,
) -> Option<&'a syn::Expr> {
    if mc.method != method || mc.args.len() != args {
        return None;
    }
    let syn::Expr::Call(c) = &*mc.receiver else {
        return None;
    };
    let syn::Expr::Path(p) = &*c.func else {
        return None;
    };
    let mut names = p.path.segments.iter().rev().map(|s| &s.ident);
    let made = names.next().is_some_and(|n| n == "new" || n == "message");
    (made && names.next().is_some_and(|n| n == "Question")).then_some(&*mc.receiver)
}

/// `Question::new(..)` of `Question::new(..).or_send(|params| send(..))` (or `::message(..)`):
/// the runtime's deferred ask for a hand-built request. The send in the closure is its fallback
/// for older requests: the migration took this ask (see `fix::jsonrpc`).
pub fn deferred_question(e: &syn::Expr) -> Option<&syn::Expr> {
    question_call(e, "or_send", 1)
}

/// [`deferred_question`], of a method call.
pub fn is_deferred_question(mc: &syn::ExprMethodCall) -> bool {
    question_method_call(mc, "or_send", 1).is_some()
}

/// `if mrtr::jsonrpc::Question::message(&request).sends() { .. }`: the runtime's guard around a
/// hand-built request the server writes itself. What the block writes is the fallback for older
/// requests (on 2026-07-28 the guard is false and the question is asked in `inputRequests`), so
/// the migration already took that write (see `fix::jsonrpc::exchange`).
fn guarded_write(e: &syn::Expr) -> Option<&syn::ExprIf> {
    let syn::Expr::If(i) = e else { return None };
    question_call(&i.cond, "sends", 0).map(|_| i)
}

/// Of a [`guarded_write`], what still runs on 2026-07-28 (its condition and its `else`), for a
/// walk that skips the write itself; None for any other expression.
pub fn unguarded_parts(e: &syn::Expr) -> Option<impl Iterator<Item = &syn::Expr>> {
    let i = guarded_write(e)?;
    Some(std::iter::once(&*i.cond).chain(i.else_branch.as_ref().map(|(_, other)| &**other)))
}

/// Whether a callee's name says it sends its arguments as a request.
pub fn is_method_sender(name: &str) -> bool {
    raw::METHOD_SENDERS.contains(&name)
}

#[derive(Default)]
struct Fns<'ast> {
    all: Vec<(&'ast syn::Signature, &'ast syn::Block)>,
    consts: HashMap<String, McpMethod>,
}

impl Fns<'_> {
    fn constant(&mut self, name: &syn::Ident, value: &syn::Expr) {
        let method =
            crate::model::scan::string_lit(value).and_then(|l| McpMethod::from_wire(&l.value()));
        if let Some(m) = method {
            self.consts.insert(name.to_string(), m);
        }
    }
}

impl<'ast> Visit<'ast> for Fns<'ast> {
    fn visit_item_const(&mut self, c: &'ast syn::ItemConst) {
        self.constant(&c.ident, &c.expr);
    }

    fn visit_item_static(&mut self, s: &'ast syn::ItemStatic) {
        self.constant(&s.ident, &s.expr);
    }

    fn visit_impl_item_const(&mut self, c: &'ast syn::ImplItemConst) {
        self.constant(&c.ident, &c.expr);
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.all.push((&f.sig, &f.block));
        syn::visit::visit_item_fn(self, f);
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.all.push((&f.sig, &f.block));
        syn::visit::visit_impl_item_fn(self, f);
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        // Test modules hold mock servers; their helpers are not the crate's.
        let test = m.attrs.iter().any(|a| {
            a.path().is_ident("cfg") && a.parse_args::<syn::Ident>().is_ok_and(|i| i == "test")
        });
        if !test {
            syn::visit::visit_item_mod(self, m);
        }
    }
}

/// Parameter names (with their positions, receiver not counted) of types a method name can have:
/// `&str`, `String`, `impl Into<String>`, `Cow<str>`, a generic.
fn string_params(sig: &syn::Signature) -> Vec<(String, usize)> {
    let generics: Vec<String> = sig
        .generics
        .type_params()
        .map(|t| t.ident.to_string())
        .collect();
    sig.inputs
        .iter()
        .filter_map(|i| match i {
            syn::FnArg::Typed(pt) => Some(pt),
            syn::FnArg::Receiver(_) => None,
        })
        .enumerate()
        .filter_map(|(n, pt)| {
            let syn::Pat::Ident(pi) = &*pt.pat else {
                return None;
            };
            stringish(&pt.ty, &generics).then(|| (pi.ident.to_string(), n))
        })
        .collect()
}

fn stringish(ty: &syn::Type, generics: &[String]) -> bool {
    match ty {
        syn::Type::Reference(r) => stringish(&r.elem, generics),
        syn::Type::ImplTrait(_) => true,
        syn::Type::Path(tp) => tp.path.segments.last().is_some_and(|s| {
            let n = s.ident.to_string();
            matches!(n.as_str(), "str" | "String" | "Cow")
                || (tp.path.segments.len() == 1 && generics.contains(&n))
        }),
        _ => false,
    }
}

/// Finds where a fn's string parameters reach a sender's arguments, another forwarder, or the
/// `method` key of a `json!` object.
struct Forwards<'p> {
    params: &'p [(String, usize)],
    known: &'p HashMap<String, Vec<usize>>,
    hits: Vec<usize>,
}

impl Forwards<'_> {
    fn param_in(&self, e: &syn::Expr) -> Option<usize> {
        match e {
            syn::Expr::Path(p) => {
                let id = p.path.get_ident()?.to_string();
                self.params.iter().find(|(n, _)| *n == id).map(|(_, i)| *i)
            }
            syn::Expr::Reference(r) => self.param_in(&r.expr),
            syn::Expr::Paren(p) => self.param_in(&p.expr),
            syn::Expr::MethodCall(mc)
                if crate::reading::ident_is_one_of(&mc.method, raw::STRING_CONVERSIONS)
                    || mc.method == "as_str" =>
            {
                self.param_in(&mc.receiver)
            }
            _ => None,
        }
    }

    fn args(&mut self, name: &str, args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>) {
        if is_method_sender(name) {
            let hits: Vec<usize> = args.iter().filter_map(|a| self.param_in(a)).collect();
            self.hits.extend(hits);
        } else if let Some(positions) = self.known.get(name) {
            let hits: Vec<usize> = positions
                .iter()
                .filter_map(|&p| args.iter().nth(p).and_then(|a| self.param_in(a)))
                .collect();
            self.hits.extend(hits);
        }
    }

    /// `"method": method` in a `json!`-like token tree.
    fn tokens(&mut self, ts: TokenStream) {
        let toks: Vec<TokenTree> = ts.into_iter().collect();
        for (i, t) in toks.iter().enumerate() {
            match t {
                TokenTree::Group(g) => self.tokens(g.stream()),
                TokenTree::Literal(l) if l.to_string() == "\"method\"" => {
                    let colon =
                        matches!(toks.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == ':');
                    if let (true, Some(TokenTree::Ident(id))) = (colon, toks.get(i + 2)) {
                        let id = id.to_string();
                        if let Some((_, n)) = self.params.iter().find(|(p, _)| *p == id) {
                            self.hits.push(*n);
                        }
                    }
                }
                _ => {}
            }
        }
    }
}

impl<'ast> Visit<'ast> for Forwards<'_> {
    fn visit_expr_method_call(&mut self, mc: &'ast syn::ExprMethodCall) {
        self.args(&mc.method.to_string(), &mc.args);
        syn::visit::visit_expr_method_call(self, mc);
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        if let syn::Expr::Path(p) = &*c.func {
            if let Some(last) = p.path.segments.last() {
                self.args(&last.ident.to_string(), &c.args);
            }
        }
        syn::visit::visit_expr_call(self, c);
    }

    fn visit_expr_struct(&mut self, s: &'ast syn::ExprStruct) {
        for f in &s.fields {
            if matches!(&f.member, syn::Member::Named(n) if n == "method") {
                if let Some(n) = self.param_in(&f.expr) {
                    self.hits.push(n);
                }
            }
        }
        syn::visit::visit_expr_struct(self, s);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.tokens(m.tokens.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn helpers(src: &str) -> RequestHelpers {
        let file = syn::parse_file(src).unwrap();
        RequestHelpers::gather(&file, src)
    }

    #[test]
    fn builders_and_forwarders() {
        let h = helpers(
            r#"
            // roots/list
            fn roots_req(id: u64) -> Value { json!({"jsonrpc": "2.0", "id": id, "method": "roots/list"}) }
            fn envelope() -> Value { json!({"inputRequests": {"r": {"method": "roots/list"}}}) }
            fn sends_itself() { tx.send(json!({"method": "roots/list"})); }
            impl S {
                async fn ask(&self, method: &str, params: Value) { self.requester.send_request(method, params).await }
                async fn ask_json(&self, id: u64, method: impl Into<String>) { self.out.write(json!({"id": id, "method": method})) }
                async fn outer(&self, m: &str) { self.ask(m, Value::Null).await }
                fn log(&self, method: &str) { tracing::info!(method); }
                fn route(&self, method: &str) { self.table.insert(method, 1); }
            }
            "#,
        );
        assert_eq!(h.builders.get("roots_req"), Some(&McpMethod::Roots));
        assert!(!h.builders.contains_key("envelope"), "an MRTR envelope");
        assert!(!h.builders.contains_key("sends_itself"), "returns nothing");
        assert_eq!(h.forwarders.get("ask"), Some(&vec![0]));
        assert_eq!(h.forwarders.get("ask_json"), Some(&vec![1]));
        assert_eq!(
            h.forwarders.get("outer"),
            Some(&vec![0]),
            "through another forwarder"
        );
        assert!(!h.forwarders.contains_key("log"));
        assert!(!h.forwarders.contains_key("route"));
    }

    #[test]
    fn files_without_a_method_name_are_not_read() {
        let h = helpers("fn ask(&self, method: &str) { self.r.send_request(method) }");
        assert!(h.forwarders.is_empty());
    }
}
