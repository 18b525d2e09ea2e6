//! The scope a hand-rolled server's deferred asks need, at its own dispatch: the arm of its
//! `match` on the method name that serves `tools/call` (or `prompts/get`, `resources/read`)
//! runs its handler in `mrtr::jsonrpc::RequestScope`, and answers a round that waits for the
//! client with the server's own success response:
//!
//! ```text
//! "tools/call" => self.handle_tools_call(id, request.params).await,
//!   -> "tools/call" => {
//!          let mrtr_scope = mrtr::jsonrpc::RequestScope::open(env!("CARGO_PKG_NAME"), "tools/call", &request.params);
//!          let mrtr_id = id.clone();
//!          mrtr_scope.run(self.handle_tools_call(id, request.params)).await.respond(
//!              |response| response,
//!              |result| Response::success(mrtr_id.clone(), result),
//!              |error| Response::error(mrtr_id.clone(), RpcError::invalid_params(error.message)),
//!          )
//!      }
//! ```
//!
//! Nothing here knows the server's types: each piece is read from the code around the arm.
//! - the params: the scrutinee is `X.method` (through `as_str()`, `&..[..]`), and the function
//!   reads `X.params`;
//! - the success response: another arm of the same `match` ends in `F(ID, json!(..))`;
//! - the error response: another arm ends in `G(ID, E::..(..))`, and the package builds an
//!   `E::invalid_params(..)` (JSON-RPC's name for -32602, which every refusal of a state is);
//! - the handler: the arm is one awaited call, whose future the scope runs as it is (its
//!   arguments are evaluated where they were, so moves out of the request stay disjoint).
//!
//! An arm without this evidence is left alone, and said so: its asks stay the sends they were.

use quote::ToTokens;
use syn::visit::Visit;

use crate::finding::Edit;
use crate::fix::rmcp::text::{indent_at, range_of};
use crate::reading::source::LineIndex;

/// The methods whose result may be an `InputRequiredResult`.
const SCOPED: &[&str] = &["tools/call", "prompts/get", "resources/read"];

/// What marks an arm already scoped (a second `--fix` changes nothing).
pub const MARK: &str = "mrtr::jsonrpc::RequestScope";

/// The edits that scope the dispatch arms of `file`, what they scope (for the run's message),
/// and the arms left alone with why. `package` is the text of the file's package, where the
/// error constructor is looked for.
pub fn edits(
    file: &syn::File,
    idx: &LineIndex,
    package: &str,
) -> (Vec<Edit>, Vec<String>, Vec<String>) {
    let mut walk = Dispatches {
        idx,
        package,
        out: (Vec::new(), Vec::new(), Vec::new()),
        fn_body: None,
    };
    walk.visit_file(file);
    walk.out
}

struct Dispatches<'a> {
    idx: &'a LineIndex<'a>,
    package: &'a str,
    out: (Vec<Edit>, Vec<String>, Vec<String>),
    /// The text of the async function being walked; None outside one.
    fn_body: Option<(usize, usize)>,
}

impl<'ast> Visit<'ast> for Dispatches<'_> {
    fn visit_item_fn(&mut self, node: &'ast syn::ItemFn) {
        self.in_fn(node.sig.asyncness.is_some(), &node.block, |w| {
            syn::visit::visit_item_fn(w, node)
        });
    }

    fn visit_impl_item_fn(&mut self, node: &'ast syn::ImplItemFn) {
        self.in_fn(node.sig.asyncness.is_some(), &node.block, |w| {
            syn::visit::visit_impl_item_fn(w, node)
        });
    }

    fn visit_expr_match(&mut self, node: &'ast syn::ExprMatch) {
        if let Some(body) = self.fn_body {
            self.scope_arms(node, body);
        }
        syn::visit::visit_expr_match(self, node);
    }
}

impl Dispatches<'_> {
    fn in_fn(&mut self, is_async: bool, block: &syn::Block, walk: impl FnOnce(&mut Self)) {
        let outer = self.fn_body;
        self.fn_body = if is_async {
            crate::fix::rmcp::text::block_range(block, self.idx)
        } else {
            None
        };
        walk(self);
        self.fn_body = outer;
    }

    fn text(&self, node: &dyn ToTokens) -> Option<&str> {
        let (s, e) = crate::fix::rmcp::text::range_of_tokens(node.to_token_stream(), self.idx)?;
        Some(&self.idx.text()[s..e])
    }

    fn scope_arms(&mut self, m: &syn::ExprMatch, body: (usize, usize)) {
        let arms: Vec<(&syn::Arm, String)> = m
            .arms
            .iter()
            .filter_map(|a| Some((a, scoped_method(&a.pat)?)))
            .collect();
        if arms.is_empty() {
            return;
        }
        let line = self
            .idx
            .line_col(range_of(m, self.idx).map_or(0, |r| r.0))
            .0;
        let evidence = match self.evidence(m, body) {
            Ok(e) => e,
            Err(why) => {
                self.out
                    .2
                    .push(format!("the dispatch at line {line} is not scoped: {why}"));
                return;
            }
        };
        for (arm, method) in arms {
            if self.text(&arm.body).is_some_and(|t| t.contains(MARK)) {
                continue;
            }
            match self.arm_edit(arm, &method, &evidence) {
                Ok(edit) => {
                    self.out.0.push(edit);
                    self.out.1.push(format!("{method} (line {line})"));
                }
                Err(why) => self
                    .out
                    .2
                    .push(format!("`{method}` at line {line} is not scoped: {why}")),
            }
        }
    }

    /// What the code around the dispatch says (see the module doc).
    fn evidence(&self, m: &syn::ExprMatch, body: (usize, usize)) -> Result<Evidence, String> {
        let fn_text = &self.idx.text()[body.0..body.1];
        let base = request_of(&m.expr).ok_or("its scrutinee is not a request's `method` field")?;
        let base = self.text(base).ok_or("a node without a position")?;
        let params = format!("{base}.params");
        if !fn_text.contains(&params) {
            return Err(format!("the function never reads `{params}`"));
        }
        let tails: Vec<&syn::Expr> = m.arms.iter().filter_map(|a| tail(&a.body)).collect();
        let (success, id) = tails
            .iter()
            .find_map(|t| {
                let (f, id, value) = pair_call(t)?;
                is_json(value).then_some((f, id))
            })
            .ok_or("no arm answers with a response built from a JSON value (`F(id, json!(..))`)")?;
        let success = self.text(success).ok_or("a node without a position")?;
        let id = self
            .text(id)
            .ok_or("a node without a position")?
            .to_string();
        let (error, error_ty) = tails
            .iter()
            .find_map(|t| {
                let (g, gid, inner) = pair_call(t)?;
                if self.text(gid) != Some(id.as_str()) || self.text(g) == Some(success) {
                    return None;
                }
                let syn::Expr::Call(c) = inner else {
                    return None;
                };
                let syn::Expr::Path(p) = &*c.func else {
                    return None;
                };
                let segments = &p.path.segments;
                (segments.len() >= 2).then(|| {
                    let ty: Vec<String> = segments
                        .iter()
                        .take(segments.len() - 1)
                        .map(|s| s.ident.to_string())
                        .collect();
                    (g, ty.join("::"))
                })
            })
            .ok_or("no arm answers with an error response (`G(id, E::..(..))`)")?;
        let constructor = format!("{error_ty}::invalid_params(");
        if !self.package.contains(&constructor) && !self.package.contains("fn invalid_params(") {
            return Err(format!(
                "the package has no `{error_ty}::invalid_params` to answer a refused state with"
            ));
        }
        Ok(Evidence {
            params,
            success: success.to_string(),
            error: self
                .text(error)
                .ok_or("a node without a position")?
                .to_string(),
            error_ty,
            id,
        })
    }

    fn arm_edit(&self, arm: &syn::Arm, method: &str, ev: &Evidence) -> Result<Edit, String> {
        let handler = match tail(&arm.body) {
            Some(syn::Expr::Await(a)) if only_tail(&arm.body) => &*a.base,
            _ => return Err("the arm is not one awaited call".into()),
        };
        let handler = self.text(handler).ok_or("a node without a position")?;
        let (s, e) = crate::fix::rmcp::text::expr_range(&arm.body, self.idx)
            .ok_or("an arm without a position")?;
        let src = self.idx.text();
        let indent = indent_at(src, s);
        let i1 = format!("{indent}    ");
        let i2 = format!("{indent}        ");
        let Evidence {
            params,
            success,
            error,
            error_ty,
            id,
        } = ev;
        let nl = "\n";
        let lines = [
            "{".to_string(),
            format!(
                "{i1}let mrtr_scope = mrtr::jsonrpc::RequestScope::open(env!(\"CARGO_PKG_NAME\"), {method:?}, &{params});"
            ),
            format!("{i1}let mrtr_id = {id}.clone();"),
            format!("{i1}mrtr_scope.run({handler}).await.respond("),
            format!("{i2}|response| response,"),
            format!("{i2}|result| {success}(mrtr_id.clone(), result),"),
            format!(
                "{i2}|error| {error}(mrtr_id.clone(), {error_ty}::invalid_params(error.message)),"
            ),
            format!("{i1})"),
            format!("{indent}}}"),
        ];
        // A comma after a block arm is optional; the one the arm had stays where it was.
        Ok(self.idx.edit(s, e, lines.join(nl)))
    }
}

struct Evidence {
    params: String,
    success: String,
    error: String,
    error_ty: String,
    id: String,
}

/// The method an arm's pattern names, when it is one of [`SCOPED`].
fn scoped_method(pat: &syn::Pat) -> Option<String> {
    let syn::Pat::Lit(syn::ExprLit {
        lit: syn::Lit::Str(s),
        ..
    }) = pat
    else {
        return None;
    };
    let v = s.value();
    SCOPED.contains(&v.as_str()).then_some(v)
}

/// `X` of a scrutinee `X.method`, `X.method.as_str()`, `&X.method[..]`, `X.method.as_ref()`.
fn request_of(e: &syn::Expr) -> Option<&syn::Expr> {
    match e {
        syn::Expr::MethodCall(mc) if mc.args.is_empty() => request_of(&mc.receiver),
        syn::Expr::Reference(r) => request_of(&r.expr),
        syn::Expr::Paren(p) => request_of(&p.expr),
        syn::Expr::Index(i) if matches!(&*i.index, syn::Expr::Range(_)) => request_of(&i.expr),
        syn::Expr::Field(f) => match &f.member {
            syn::Member::Named(n) if n == "method" => Some(&f.base),
            _ => None,
        },
        _ => None,
    }
}

/// The value an arm ends with: the arm itself, or its block's last expression.
fn tail(e: &syn::Expr) -> Option<&syn::Expr> {
    match e {
        syn::Expr::Block(b) => match b.block.stmts.last()? {
            syn::Stmt::Expr(e, None) => tail(e),
            _ => None,
        },
        other => Some(other),
    }
}

/// True when the arm is its tail alone (no statements before it).
fn only_tail(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Block(b) => b.block.stmts.len() == 1 && only_tail_stmt(&b.block.stmts[0]),
        _ => true,
    }
}

fn only_tail_stmt(s: &syn::Stmt) -> bool {
    matches!(s, syn::Stmt::Expr(e, None) if only_tail(e))
}

/// `F(a, b)` with a path `F`: `(F, a, b)`, `a` a plain name.
fn pair_call(e: &syn::Expr) -> Option<(&syn::Expr, &syn::Expr, &syn::Expr)> {
    let syn::Expr::Call(c) = e else {
        return None;
    };
    if !matches!(&*c.func, syn::Expr::Path(_)) || c.args.len() != 2 {
        return None;
    }
    let id = &c.args[0];
    matches!(id, syn::Expr::Path(p) if p.path.get_ident().is_some())
        .then(|| (&*c.func, id, &c.args[1]))
}

/// A `json!(..)` value.
fn is_json(e: &syn::Expr) -> bool {
    matches!(e, syn::Expr::Macro(m) if m.mac.path.segments.last().is_some_and(|s| s.ident == "json"))
}
