//! The expression a fix rewrites, found again in the parsed file by a test on it. Macro bodies
//! that parse as Rust are searched too (`vec![Annotated::new(..)]`): the rules walk them, so
//! their findings land there.

use syn::visit::Visit;

/// The first expression of `file`, outermost first, for which `wanted` holds.
pub fn find(file: &syn::File, wanted: &dyn Fn(&syn::Expr) -> bool) -> Option<syn::Expr> {
    let mut f = Find {
        wanted,
        found: None,
    };
    f.visit_file(file);
    f.found
}

/// [`find`] over one block (a function's body), macro bodies included.
pub fn find_in_block(block: &syn::Block, wanted: &dyn Fn(&syn::Expr) -> bool) -> Option<syn::Expr> {
    let mut f = Find {
        wanted,
        found: None,
    };
    f.visit_block(block);
    f.found
}

/// Every method call of `block`, macro bodies that parse as Rust included, by the start of its
/// method name: one walk for all the calls a fix needs to find (a walk per call is quadratic in a
/// function with thousands of them).
pub fn method_calls_in_block(
    block: &syn::Block,
) -> std::collections::HashMap<(usize, usize), syn::ExprMethodCall> {
    let all = std::cell::RefCell::new(std::collections::HashMap::new());
    // `wanted` never holds, so the walk visits every expression once and keeps the calls.
    let collect = |e: &syn::Expr| {
        if let syn::Expr::MethodCall(mc) = e {
            let at = mc.method.span().start();
            all.borrow_mut()
                .entry((at.line, at.column))
                .or_insert_with(|| mc.clone());
        }
        false
    };
    let mut f = Find {
        wanted: &collect,
        found: None,
    };
    f.visit_block(block);
    all.into_inner()
}

struct Find<'w> {
    wanted: &'w dyn Fn(&syn::Expr) -> bool,
    // Owned: a macro body's expressions live only while it is searched.
    found: Option<syn::Expr>,
}

impl<'ast> Visit<'ast> for Find<'_> {
    fn visit_expr(&mut self, e: &'ast syn::Expr) {
        if self.found.is_some() {
            return;
        }
        if (self.wanted)(e) {
            self.found = Some(e.clone());
            return;
        }
        syn::visit::visit_expr(self, e);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        use crate::reading::macro_body::{parse_macro_body, Piece};
        if self.found.is_some() {
            return;
        }
        for piece in parse_macro_body(&m.tokens) {
            match piece {
                Piece::Expr(e) => self.visit_expr(&e),
                Piece::Stmts(stmts) => stmts.iter().for_each(|s| self.visit_stmt(s)),
                Piece::Items(items) => items.iter().for_each(|i| self.visit_item(i)),
                Piece::Type(t) => self.visit_type(&t),
            }
        }
    }
}
