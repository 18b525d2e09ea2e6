//! Bindings the compiled form would keep across an ask that hold a borrow. `#[mrtr_handler]`
//! and `#[mrtr_helper]` seal every binding a later step reads (one read in the awaited
//! expression itself counts: a resumed round evaluates it again), and a sealed value must own
//! its data: `let text = args.get("text").and_then(|v| v.as_str()).unwrap_or_default();` read
//! by `summarize(&mrtr, text).await` does not compile. The rewrite cannot know types, so it
//! reads the initialiser: a reference, or a chain whose value comes from a method that lends
//! (`as_str`, `get`, `trim`, ..) through adapters that pass it on (`unwrap_or_default`, `?`,
//! `and_then(|v| v.as_str())`). Such a handler is left to the deferred form, which keeps
//! nothing.
//!
//! Checked on the text the compiled plans write, so asks in helpers (`helper(&mrtr, ..).await`)
//! count as they will for the macro: every `.await` whose expression names `mrtr`.

use syn::visit::Visit;

use crate::fix::rmcp::text::{expr_uses_of, stmt_uses_of};
use crate::reading::source::LineIndex;

/// Methods whose result borrows from their receiver or argument.
const LENDING: &[&str] = &[
    "as_str",
    "as_deref",
    "as_deref_mut",
    "as_ref",
    "as_mut",
    "as_slice",
    "as_bytes",
    "as_path",
    "as_os_str",
    "borrow",
    "trim",
    "trim_start",
    "trim_end",
    "trim_matches",
    "strip_prefix",
    "strip_suffix",
    "get",
    "get_mut",
    "first",
    "last",
    "iter",
    "keys",
    "values",
    "chars",
    "bytes",
    "lines",
    "split",
    "split_whitespace",
    "to_str",
    "file_name",
    "file_stem",
    "extension",
    "parent",
];

/// Methods that hand on what their receiver (or closure) gives, borrowed or not.
const PASSING: &[&str] = &[
    "unwrap",
    "expect",
    "unwrap_or",
    "unwrap_or_default",
    "unwrap_or_else",
    "ok",
    "ok_or",
    "ok_or_else",
    "and_then",
    "map",
    "filter",
    "or",
    "or_else",
];

/// In `file` (the text the compiled plans leave), the names of the `#[mrtr_handler]` and
/// `#[mrtr_helper]` fns that would keep a borrow across an ask, each with the binding.
pub(super) fn offenders(idx: &LineIndex, file: &syn::File) -> Vec<(String, String)> {
    let mut fns = Vec::new();
    super::handler::collect(&file.items, idx, &mut fns);
    fns.iter()
        .filter(|f| {
            super::handler::has_attr(f.attrs, "mrtr_handler")
                || super::handler::has_attr(f.attrs, "mrtr_helper")
        })
        .filter_map(|f| Some((f.sig.ident.to_string(), kept_borrow(idx, f.block)?)))
        .collect()
}

/// Whether `block` (as the original text has it) holds a `let` that may borrow, followed in its
/// block by an `.await`: the only bodies where the rewrite can keep a borrow across an ask, so
/// the only ones worth the check on the rewritten text (which costs a parse of the file).
pub(super) fn may_keep(block: &syn::Block) -> bool {
    let mut blocks = Blocks(Vec::new());
    blocks.visit_block(block);
    blocks.0.iter().any(|b| {
        b.stmts.iter().enumerate().any(|(i, s)| {
            matches!(s, syn::Stmt::Local(l) if binding(l).is_some_and(|(_, borrows)| borrows))
                && b.stmts[i + 1..].iter().any(awaits)
        })
    })
}

fn awaits(s: &syn::Stmt) -> bool {
    struct Await(bool);
    impl<'ast> Visit<'ast> for Await {
        fn visit_expr_await(&mut self, _: &'ast syn::ExprAwait) {
            self.0 = true;
        }
    }
    let mut v = Await(false);
    v.visit_stmt(s);
    v.0
}

/// The first `let` of `block` (at any depth) that may borrow and is read at or after an ask
/// later in the block it is declared in.
fn kept_borrow(idx: &LineIndex, block: &syn::Block) -> Option<String> {
    let mut blocks = Blocks(Vec::new());
    blocks.visit_block(block);
    blocks.0.iter().find_map(|b| {
        b.stmts.iter().enumerate().find_map(|(i, stmt)| {
            let syn::Stmt::Local(local) = stmt else {
                return None;
            };
            let (name, borrows) = binding(local)?;
            (borrows && read_at_or_after_an_ask(idx, &b.stmts[i + 1..], &name)).then_some(name)
        })
    })
}

/// Every block of a body, nested ones included (closures' and async blocks' too: conservative).
struct Blocks<'ast>(Vec<&'ast syn::Block>);

impl<'ast> Visit<'ast> for Blocks<'ast> {
    fn visit_block(&mut self, b: &'ast syn::Block) {
        self.0.push(b);
        syn::visit::visit_block(self, b);
    }
}

/// The name a plain `let` binds, and whether its value may borrow.
fn binding(local: &syn::Local) -> Option<(String, bool)> {
    let (pat, ty) = match &local.pat {
        syn::Pat::Type(t) => (&*t.pat, Some(&*t.ty)),
        p => (p, None),
    };
    let syn::Pat::Ident(p) = pat else {
        return None;
    };
    let borrows = match ty {
        Some(ty) => matches!(ty, syn::Type::Reference(_)),
        None => local
            .init
            .as_ref()
            .is_some_and(|init| init.diverge.is_none() && may_borrow(&init.expr)),
    };
    Some((p.ident.to_string(), borrows))
}

/// Whether the value of `e` may be a borrow, by its outermost calls.
fn may_borrow(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Reference(_) => true,
        syn::Expr::Paren(p) => may_borrow(&p.expr),
        syn::Expr::Try(t) => may_borrow(&t.expr),
        syn::Expr::MethodCall(mc) => {
            let name = mc.method.to_string();
            if LENDING.contains(&name.as_str()) {
                return true;
            }
            if !PASSING.contains(&name.as_str()) {
                return false;
            }
            may_borrow(&mc.receiver)
                || mc.args.iter().any(|a| match a {
                    syn::Expr::Closure(c) => may_borrow(&c.body),
                    _ => false,
                })
        }
        _ => false,
    }
}

/// Whether `name` is read in the statement of an ask (an `.await` of an expression naming
/// `mrtr`) or in any statement after the first ask, among `stmts`.
fn read_at_or_after_an_ask(idx: &LineIndex, stmts: &[syn::Stmt], name: &str) -> bool {
    let Some(first) = stmts.iter().position(|s| asks(idx, s)) else {
        return false;
    };
    stmts[first..]
        .iter()
        .any(|s| stmt_uses_of(s, idx, name) > 0)
}

/// Whether the statement holds an ask: an `.await` of an expression that names `mrtr`.
fn asks(idx: &LineIndex, s: &syn::Stmt) -> bool {
    struct Ask<'i, 'a>(&'i LineIndex<'a>, bool);
    impl<'ast> Visit<'ast> for Ask<'_, '_> {
        fn visit_expr_await(&mut self, a: &'ast syn::ExprAwait) {
            if expr_uses_of(&a.base, self.0, "mrtr") > 0 {
                self.1 = true;
            }
            syn::visit::visit_expr_await(self, a);
        }
    }
    let mut v = Ask(idx, false);
    v.visit_stmt(s);
    v.1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(src: &str) -> Vec<(String, String)> {
        offenders(&LineIndex::new(src), &syn::parse_file(src).unwrap())
    }

    #[test]
    fn a_borrow_read_at_or_after_an_ask_is_named_and_an_owned_value_is_not() {
        let kept = "#[mrtr_handler]\nasync fn h(mrtr: Mrtr, args: Map) -> R {\n    match name {\n        \"s\" => {\n            let text = args.get(\"text\").and_then(|v| v.as_str()).unwrap_or_default();\n            let s = summarize(&mrtr, text).await?;\n            Ok(s)\n        }\n        _ => todo!(),\n    }\n}\n";
        assert_eq!(of(kept), vec![("h".to_string(), "text".to_string())]);
        for quiet in [
            // Owned.
            "#[mrtr_handler]\nasync fn h(mrtr: Mrtr) -> R {\n    let text = args.get(\"t\").and_then(|v| v.as_str()).unwrap_or_default().to_string();\n    let s = summarize(&mrtr, &text).await?;\n    Ok(s)\n}\n",
            // Read only before the ask.
            "#[mrtr_handler]\nasync fn h(mrtr: Mrtr) -> R {\n    let n = name.as_str().len();\n    let t = name.trim();\n    log(t);\n    let s = mrtr.elicit::<X>(\"?\").await?;\n    Ok(s)\n}\n",
            // Not a rewritten fn.
            "async fn h(mrtr: Mrtr) -> R {\n    let t = name.trim();\n    let s = mrtr.elicit::<X>(t).await?;\n    Ok(s)\n}\n",
            // A field of the borrow's name is another value.
            "#[mrtr_helper]\nasync fn h(mrtr: &Mrtr) -> R {\n    let t = name.trim();\n    log(t);\n    let s = mrtr.elicit::<X>(self.t.clone()).await?;\n    Ok(s)\n}\n",
        ] {
            assert!(of(quiet).is_empty(), "{quiet}");
        }
        let annotated = "#[mrtr_helper]\nasync fn h(mrtr: &Mrtr) -> R {\n    let t: &str = pick();\n    let s = mrtr.elicit::<X>(\"?\").await?;\n    Ok(format!(\"{t}{s}\"))\n}\n";
        assert_eq!(of(annotated), vec![("h".to_string(), "t".to_string())]);
    }
}
