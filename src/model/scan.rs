//! A sub-walk of one expression (or one macro's tokens) that the scope model needs: which
//! hand-written request literals it carries (`json!({"method": "roots/list"})`, a struct literal,
//! JSON text) together with the local names it mentions (they may carry literals bound earlier).
//! Which request type or variant an expression names depends on the names in scope, so that scan
//! is in `state.rs`.

use proc_macro2::{Span, TokenStream, TokenTree};
use syn::visit::Visit;

use crate::model::sdk::{raw, McpMethod};

/// A request literal written by hand (`json!({"method": "roots/list", ..})`).
#[derive(Debug, Clone, Copy)]
pub struct RawRequest {
    pub method: McpMethod,
    pub span: Span,
}

/// Collects hand-written request literals and the local names an expression mentions.
#[derive(Default)]
pub(crate) struct RawScan {
    pub(crate) raw: Vec<RawRequest>,
    pub(crate) idents: Vec<String>,
    /// Constants passed as a method (`RequestMessage::new(id, ROOTS_LIST, ..)`, `method: ROOTS`):
    /// a request when the constant holds a legacy method's name (`request_helpers.rs` lists the
    /// file's; the caller resolves them).
    pub(crate) consts: Vec<(String, Span)>,
}

impl RawScan {
    /// A `json!`-style token tree: `"method": "roots/list"` at any depth, except under an MRTR
    /// envelope key. Also collects identifiers (values may be local names).
    pub(crate) fn tokens(&mut self, ts: TokenStream, in_envelope: bool) {
        let toks: Vec<TokenTree> = ts.into_iter().collect();
        let mut key: Option<String> = None;
        let mut i = 0;
        while i < toks.len() {
            match &toks[i] {
                TokenTree::Literal(lit) => {
                    let s = lit_str(lit);
                    let colon =
                        matches!(toks.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == ':');
                    if colon && s.is_some() {
                        key = s;
                        i += 2;
                        continue;
                    }
                    if let (Some(k), Some(v)) = (&key, &s) {
                        if k == "method" && !in_envelope {
                            if let Some(m) = McpMethod::from_wire(v) {
                                self.raw.push(RawRequest {
                                    method: m,
                                    span: lit.span(),
                                });
                            }
                        }
                    }
                    // Inline format arguments: `println!("{msg}")`.
                    if let Some(v) = &s {
                        self.idents.extend(format_arg_names(v));
                        if !in_envelope {
                            self.json_text(v, lit.span());
                        }
                    }
                }
                TokenTree::Group(g) => {
                    let env = in_envelope
                        || key
                            .as_deref()
                            .is_some_and(|k| raw::ENVELOPE_KEYS.contains(&k));
                    self.tokens(g.stream(), env);
                }
                TokenTree::Ident(id) => {
                    if key.as_deref() == Some("method") && !in_envelope {
                        let e: syn::Expr = syn::Expr::Path(syn::ExprPath {
                            attrs: Vec::new(),
                            qself: None,
                            path: syn::Path::from(id.clone()),
                        });
                        if let Some(c) = const_name(&e) {
                            self.consts.push(c);
                        }
                    }
                    let env = key
                        .as_deref()
                        .is_some_and(|k| raw::ENVELOPE_KEYS.contains(&k));
                    if !in_envelope && !env {
                        self.idents.push(id.to_string());
                    }
                }
                TokenTree::Punct(p) if p.as_char() == ',' => key = None,
                TokenTree::Punct(_) => {}
            }
            i += 1;
        }
    }

    /// JSON-RPC written out as text: `r#"{"jsonrpc":"2.0","method":"roots/list"}"#`.
    fn json_text(&mut self, s: &str, span: Span) {
        if let Some(method) = json_text_method(s) {
            self.raw.push(RawRequest { method, span });
        }
    }
}

/// `{name}` and `{name:?}` arguments of a format string (positional `{0}` ones are no names).
pub(crate) fn format_arg_names(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(open) = rest.find('{') {
        rest = &rest[open + 1..];
        if rest.starts_with('{') {
            rest = &rest[1..];
            continue;
        }
        let end = rest.find(['}', ':']).unwrap_or(rest.len());
        let name = &rest[..end];
        if !name.is_empty()
            && name.chars().all(|c| c.is_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit())
        {
            out.push(name.to_string());
        }
    }
    out
}

/// The legacy method of a JSON object written as text: `"method"`, a colon and one of the three
/// names, at the object's top level (not inside an `inputRequests` envelope).
fn json_text_method(s: &str) -> Option<McpMethod> {
    if raw::ENVELOPE_KEYS
        .iter()
        .any(|k| s.contains(&format!("\"{k}\"")))
    {
        return None;
    }
    let mut rest = s;
    while let Some(at) = rest.find("\"method\"") {
        rest = &rest[at + 8..];
        let after = rest.trim_start();
        let Some(after) = after.strip_prefix(':') else {
            continue;
        };
        let after = after.trim_start();
        for m in McpMethod::ALL {
            let quoted = format!("\"{}\"", m.wire());
            if after.starts_with(&quoted) {
                return Some(m);
            }
        }
    }
    None
}

fn lit_str(lit: &proc_macro2::Literal) -> Option<String> {
    let ts: TokenStream = TokenTree::Literal(lit.clone()).into();
    syn::parse2::<syn::LitStr>(ts).ok().map(|l| l.value())
}

/// The string literal an expression is, through `.into()`, `.to_string()`, `String::from(..)`.
pub(crate) fn string_lit(e: &syn::Expr) -> Option<&syn::LitStr> {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => Some(s),
        syn::Expr::MethodCall(mc)
            if crate::reading::ident_is_one_of(&mc.method, raw::STRING_CONVERSIONS) =>
        {
            string_lit(&mc.receiver)
        }
        syn::Expr::Call(c) if c.args.len() == 1 => match &*c.func {
            syn::Expr::Path(p)
                if p.path.segments.last().is_some_and(|s| {
                    crate::reading::ident_is_one_of(&s.ident, raw::STRING_CONVERSIONS)
                }) =>
            {
                string_lit(&c.args[0])
            }
            _ => None,
        },
        syn::Expr::Reference(r) => string_lit(&r.expr),
        syn::Expr::Paren(p) => string_lit(&p.expr),
        _ => None,
    }
}

impl<'ast> Visit<'ast> for RawScan {
    fn visit_lit_str(&mut self, l: &'ast syn::LitStr) {
        self.json_text(&l.value(), l.span());
    }

    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        if p.path.segments.len() == 1 {
            self.idents.push(p.path.segments[0].ident.to_string());
        }
    }

    fn visit_expr_struct(&mut self, s: &'ast syn::ExprStruct) {
        for f in &s.fields {
            let name = match &f.member {
                syn::Member::Named(n) => n.to_string(),
                syn::Member::Unnamed(_) => continue,
            };
            if raw::ENVELOPE_KEYS.contains(&name.as_str()) {
                continue;
            }
            if name == "method" {
                if let Some(c) = const_name(&f.expr) {
                    self.consts.push(c);
                }
                if let Some(lit) = string_lit(&f.expr) {
                    if let Some(m) = McpMethod::from_wire(&lit.value()) {
                        self.raw.push(RawRequest {
                            method: m,
                            span: lit.span(),
                        });
                    }
                }
            }
            self.visit_expr(&f.expr);
        }
        if let Some(rest) = &s.rest {
            self.visit_expr(rest);
        }
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.tokens(m.tokens.clone(), false);
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        if let syn::Expr::Path(p) = &*c.func {
            // `X::new(id, "roots/list", ..)`, or any call whose type or fn names a message.
            let ctor = p.path.segments.len() > 1
                && p.path.segments.last().is_some_and(|s| s.ident == "new");
            if ctor || p.path.segments.iter().any(|s| names_a_message(&s.ident)) {
                self.message_args(&c.args);
            }
        }
        syn::visit::visit_expr_call(self, c);
    }

    fn visit_expr_method_call(&mut self, mc: &'ast syn::ExprMethodCall) {
        if names_a_message(&mc.method) {
            self.message_args(&mc.args);
        }
        syn::visit::visit_expr_method_call(self, mc);
    }

    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
}

impl RawScan {
    /// A server's own typed message: a constructor whose argument is a legacy method's name
    /// (`RequestMessage::new(id, "roots/list", params)`, `mgr.create_req(ELICIT, ..)`).
    fn message_args(&mut self, args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>) {
        for a in args {
            if let Some(lit) = string_lit(a) {
                if let Some(m) = McpMethod::from_wire(&lit.value()) {
                    self.raw.push(RawRequest {
                        method: m,
                        span: lit.span(),
                    });
                }
            } else if let Some(c) = const_name(a) {
                self.consts.push(c);
            }
        }
    }
}

/// Whether a type or fn name says it makes a request message (`RequestMessage`, `JsonRpcRequest`,
/// `create_req`, `new_rpc_msg`), and not a log line about one (`log_request`).
fn names_a_message(id: &syn::Ident) -> bool {
    let n = id.to_string().to_ascii_lowercase();
    const LOGS: &[&str] = &[
        "log", "trace", "debug", "info", "warn", "error", "record", "metric",
    ];
    if LOGS.iter().any(|l| n.starts_with(l)) {
        return false;
    }
    ["req", "msg", "message", "rpc"]
        .iter()
        .any(|w| n.contains(w))
}

/// `ROOTS_LIST`, `methods::ROOTS_LIST`, `Self::ROOTS`: a constant's name (all capitals).
pub(crate) fn const_name(e: &syn::Expr) -> Option<(String, Span)> {
    match e {
        syn::Expr::Path(p) => {
            let last = p.path.segments.last()?;
            let n = last.ident.to_string();
            let caps = n.len() > 1
                && n.chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
            caps.then(|| (n, last.ident.span()))
        }
        syn::Expr::Reference(r) => const_name(&r.expr),
        syn::Expr::Paren(p) => const_name(&p.expr),
        syn::Expr::MethodCall(mc)
            if crate::reading::ident_is_one_of(&mc.method, raw::STRING_CONVERSIONS) =>
        {
            const_name(&mc.receiver)
        }
        syn::Expr::Call(c) if c.args.len() == 1 => const_name(&c.args[0]),
        _ => None,
    }
}
