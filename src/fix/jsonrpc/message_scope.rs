//! The scope a hand-rolled server's deferred asks need, where its handler maps the whole request
//! message to the whole response message (`async fn handle_request(&self, request: Value) ->
//! Value`, its dispatch on the method inside, its response built after the dispatch): there is no
//! arm whose value is a response (see [`super::dispatch`]), but the handler's call is one place
//! every request goes through, and JSON-RPC fixes what a round's response message is:
//!
//! ```text
//! let response = self.handle_request(msg).await;
//!   -> let response = mrtr::jsonrpc::RequestScope::for_message(env!("CARGO_PKG_NAME"), &msg)
//!          .serve(self.handle_request(msg))
//!          .await;
//! ```
//!
//! The evidence is the handler's signature (one `Value` taken by value, `Value` returned) and a
//! scoped method's name in its body; its call must pass a plain name (read once for the scope,
//! then moved into the handler as before). Calls inside the handler itself are left (a batch
//! handler calling itself per message is scoped where it is called from).

use syn::visit::Visit;

use crate::finding::Edit;
use crate::fix::rmcp::text::range_of;
use crate::reading::source::LineIndex;

/// The methods whose result may be an `InputRequiredResult`.
const SCOPED: &[&str] = &["\"tools/call\"", "\"prompts/get\"", "\"resources/read\""];

/// What marks a call already scoped (a second `--fix` changes nothing).
const MARK: &str = "RequestScope::for_message";

/// The names of the package's message handlers (`texts`: its files).
pub fn handlers(texts: &[&str]) -> Vec<String> {
    let mut found = Handlers::default();
    for text in texts {
        if !SCOPED.iter().any(|m| text.contains(m)) {
            continue;
        }
        if let Ok(file) = syn::parse_file(text) {
            found.visit_file(&file);
        }
    }
    found.names.sort();
    found.names.dedup();
    found.names
}

/// The edits that scope the calls of `handlers` in `file`, what they scope, and the byte ranges
/// of the handlers' own bodies in this file (no dispatch arm in them takes a second scope).
pub fn edits(
    file: &syn::File,
    idx: &LineIndex,
    handlers: &[String],
) -> (Vec<Edit>, Vec<String>, Vec<(usize, usize)>) {
    let mut calls = Calls {
        idx,
        handlers,
        edits: Vec::new(),
        scoped: Vec::new(),
        bodies: Vec::new(),
        inside: 0,
    };
    if !handlers.is_empty() {
        calls.visit_file(file);
    }
    (calls.edits, calls.scoped, calls.bodies)
}

#[derive(Default)]
struct Handlers {
    names: Vec<String>,
}

impl Handlers {
    fn sig(&mut self, sig: &syn::Signature, block: &syn::Block) {
        if sig.asyncness.is_none() || !returns_value(&sig.output) {
            return;
        }
        let values = sig
            .inputs
            .iter()
            .filter(|a| matches!(a, syn::FnArg::Typed(t) if is_value(&t.ty)))
            .count();
        let others = sig
            .inputs
            .iter()
            .filter(|a| matches!(a, syn::FnArg::Typed(_)))
            .count();
        if values != 1 || others != 1 {
            return;
        }
        let body = quote::ToTokens::to_token_stream(block).to_string();
        if SCOPED.iter().any(|m| body.contains(m)) {
            self.names.push(sig.ident.to_string());
        }
    }
}

impl<'ast> Visit<'ast> for Handlers {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.sig(&f.sig, &f.block);
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.sig(&f.sig, &f.block);
    }
}

/// `Value` or `serde_json::Value`, by value.
fn is_value(ty: &syn::Type) -> bool {
    let syn::Type::Path(p) = ty else { return false };
    let names: Vec<String> = p
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    matches!(
        names
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .as_slice(),
        ["Value"] | ["serde_json", "Value"]
    )
}

fn returns_value(out: &syn::ReturnType) -> bool {
    matches!(out, syn::ReturnType::Type(_, t) if is_value(t))
}

struct Calls<'a> {
    idx: &'a LineIndex<'a>,
    handlers: &'a [String],
    edits: Vec<Edit>,
    scoped: Vec<String>,
    bodies: Vec<(usize, usize)>,
    /// How many handler bodies the walk is inside.
    inside: usize,
}

impl Calls<'_> {
    fn in_fn(&mut self, sig: &syn::Signature, block: &syn::Block, walk: impl FnOnce(&mut Self)) {
        let handler = self.handlers.iter().any(|h| sig.ident == h);
        if handler {
            if let Some(r) = crate::fix::rmcp::text::block_range(block, self.idx) {
                self.bodies.push(r);
            }
            self.inside += 1;
        }
        walk(self);
        if handler {
            self.inside -= 1;
        }
    }
}

impl<'ast> Visit<'ast> for Calls<'_> {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.in_fn(&f.sig, &f.block, |w| syn::visit::visit_item_fn(w, f));
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.in_fn(&f.sig, &f.block, |w| syn::visit::visit_impl_item_fn(w, f));
    }

    fn visit_expr_await(&mut self, a: &'ast syn::ExprAwait) {
        syn::visit::visit_expr_await(self, a);
        if self.inside > 0 {
            return;
        }
        let (name, args) = match &*a.base {
            syn::Expr::MethodCall(m) => (m.method.to_string(), &m.args),
            syn::Expr::Call(c) => match &*c.func {
                syn::Expr::Path(p) => match p.path.segments.last() {
                    Some(s) => (s.ident.to_string(), &c.args),
                    None => return,
                },
                _ => return,
            },
            _ => return,
        };
        if !self.handlers.contains(&name) || args.len() != 1 {
            return;
        }
        let syn::Expr::Path(arg) = &args[0] else {
            return;
        };
        let Some(arg) = arg.path.get_ident() else {
            return;
        };
        let (Some((s, e)), Some((bs, be))) = (range_of(a, self.idx), range_of(&*a.base, self.idx))
        else {
            return;
        };
        let src = self.idx.text();
        if src[s..e].contains(MARK) {
            return;
        }
        let replacement = format!(
            "mrtr::jsonrpc::RequestScope::for_message(env!(\"CARGO_PKG_NAME\"), &{arg})\n{i}    .serve({})\n{i}    .await",
            &src[bs..be],
            i = crate::fix::rmcp::text::indent_at(src, s),
        );
        self.edits.push(self.idx.edit(s, e, replacement));
        self.scoped
            .push(format!("{name} (line {})", self.idx.line_col(s).0));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SERVER: &str = r#"
impl Server {
    async fn run(&self) {
        while let Some(msg) = self.next().await {
            let response = self.handle_request(msg).await;
            self.write(response).await;
        }
    }

    async fn handle_request(&self, request: Value) -> Value {
        let result = match request["method"].as_str() {
            Some("tools/call") => self.call(&request).await,
            _ => Err(()),
        };
        json!({ "result": result.ok() })
    }
}
"#;

    fn scoped(src: &str) -> String {
        let file = syn::parse_file(src).unwrap();
        let idx = LineIndex::new(src);
        let hs = handlers(&[src]);
        let (mut edits, _, _) = edits(&file, &idx, &hs);
        edits.sort_by_key(|e| std::cmp::Reverse(e.start));
        let mut out = src.to_string();
        for e in edits {
            out.replace_range(e.start..e.end, &e.replacement);
        }
        out
    }

    #[test]
    fn the_call_of_a_message_handler_runs_in_the_scope() {
        let out = scoped(SERVER);
        assert!(
            out.contains(
                "let response = mrtr::jsonrpc::RequestScope::for_message(env!(\"CARGO_PKG_NAME\"), &msg)\n                .serve(self.handle_request(msg))\n                .await;"
            ),
            "{out}"
        );
        syn::parse_file(&out).unwrap();
        assert_eq!(scoped(&out), out, "a second fix changes nothing");
    }

    #[test]
    fn a_handler_without_the_evidence_is_not_one() {
        for (from, to) in [
            // Not a message: two params.
            ("request: Value)", "request: Value, id: u64)"),
            // Not a response message.
            ("-> Value {", "-> Response {"),
            // No scoped method dispatched in it.
            ("\"tools/call\"", "\"tools/list\""),
            // Blocking.
            ("async fn handle_request", "fn handle_request"),
        ] {
            let src = SERVER.replace(from, to);
            assert!(handlers(&[src.as_str()]).is_empty(), "{to}");
        }
        // A call that hands over something other than a name is left.
        let src = SERVER.replace("handle_request(msg)", "handle_request(msg.clone())");
        assert_eq!(scoped(&src), src);
    }
}
