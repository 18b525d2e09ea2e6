//! Local names: the bindings a pattern introduces, and the names a piece of code reads from
//! outside itself (free names). The rewrite keeps a binding across an ask only when later code
//! reads it, so this analysis decides what goes into `requestState`.

use std::collections::HashSet;

use proc_macro2::{Ident, TokenStream, TokenTree};
use syn::visit::Visit;
use syn::{Block, Expr, Local, Pat, Stmt};

/// One name bound by a pattern.
#[derive(Clone)]
pub struct Binding {
    pub ident: Ident,
    pub mutable: bool,
    pub by_ref: bool,
}

/// The bindings of `pat`, in source order. An uppercase identifier without a sub-pattern is taken
/// for a unit struct, enum variant or constant (as rustc's own lint convention suggests).
pub fn pattern_bindings(pat: &Pat) -> Vec<Binding> {
    let mut out = Vec::new();
    collect(pat, &mut out);
    out
}

fn collect(pat: &Pat, out: &mut Vec<Binding>) {
    match pat {
        Pat::Ident(p) => {
            let name = p.ident.to_string();
            let looks_constant = name.starts_with(|c: char| c.is_uppercase())
                && p.subpat.is_none()
                && p.mutability.is_none()
                && p.by_ref.is_none();
            if !looks_constant {
                out.push(Binding {
                    ident: p.ident.clone(),
                    mutable: p.mutability.is_some(),
                    by_ref: p.by_ref.is_some(),
                });
            }
            if let Some((_, sub)) = &p.subpat {
                collect(sub, out);
            }
        }
        Pat::Or(p) => {
            if let Some(first) = p.cases.first() {
                collect(first, out);
            }
        }
        Pat::Paren(p) => collect(&p.pat, out),
        Pat::Reference(p) => collect(&p.pat, out),
        Pat::Slice(p) => p.elems.iter().for_each(|e| collect(e, out)),
        Pat::Struct(p) => p.fields.iter().for_each(|f| collect(&f.pat, out)),
        Pat::Tuple(p) => p.elems.iter().for_each(|e| collect(e, out)),
        Pat::TupleStruct(p) => p.elems.iter().for_each(|e| collect(e, out)),
        Pat::Type(p) => collect(&p.pat, out),
        _ => {}
    }
}

/// Names read by `stmts` that are not bound inside them before the read.
pub fn free_in_stmts(stmts: &[Stmt]) -> HashSet<String> {
    let mut free = Free::default();
    free.stmts(stmts);
    free.free
}

/// Names read by `expr` from outside it.
pub fn free_in_expr(expr: &Expr) -> HashSet<String> {
    let mut free = Free::default();
    free.visit_expr(expr);
    free.free
}

#[derive(Default)]
struct Free {
    scopes: Vec<HashSet<String>>,
    free: HashSet<String>,
}

impl Free {
    fn bound(&self, name: &str) -> bool {
        self.scopes.iter().any(|s| s.contains(name))
    }

    fn read(&mut self, name: String) {
        if !self.bound(&name) {
            self.free.insert(name);
        }
    }

    fn bind(&mut self, pat: &Pat) {
        let names: Vec<String> = pattern_bindings(pat)
            .into_iter()
            .map(|b| b.ident.to_string())
            .collect();
        if self.scopes.is_empty() {
            self.scopes.push(HashSet::new());
        }
        let scope = self.scopes.last_mut().expect("a scope was just ensured");
        scope.extend(names);
    }

    fn local(&mut self, local: &Local) {
        if let Some(init) = &local.init {
            self.visit_expr(&init.expr);
            if let Some((_, diverge)) = &init.diverge {
                self.visit_expr(diverge);
            }
        }
        self.bind(&local.pat);
    }

    fn stmts(&mut self, stmts: &[Stmt]) {
        self.scopes.push(HashSet::new());
        for stmt in stmts {
            match stmt {
                Stmt::Local(local) => self.local(local),
                Stmt::Expr(expr, _) => self.visit_expr(expr),
                Stmt::Macro(mac) => self.tokens(mac.mac.tokens.clone()),
                Stmt::Item(_) => {}
            }
        }
        self.scopes.pop();
    }

    /// Macro arguments are opaque: every identifier in them and every `{name}` of a format
    /// string counts as a read. Over-reading only keeps a binding that was not needed.
    fn tokens(&mut self, tokens: TokenStream) {
        let mut after_dot = false;
        for tree in tokens {
            let is_dot = matches!(&tree, TokenTree::Punct(p) if p.as_char() == '.');
            match tree {
                // `x.field` / `x.method()`: the name after a dot is not a local.
                TokenTree::Ident(_) if after_dot => {}
                TokenTree::Ident(ident) => self.read(ident.to_string()),
                TokenTree::Group(group) => self.tokens(group.stream()),
                TokenTree::Literal(lit) => {
                    for name in format_args_in(&lit.to_string()) {
                        self.read(name);
                    }
                }
                TokenTree::Punct(_) => {}
            }
            after_dot = is_dot;
        }
    }
}

/// The `{name}` / `{name:..}` inline arguments of a string literal's text.
fn format_args_in(literal: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = literal;
    while let Some(open) = rest.find('{') {
        rest = &rest[open + 1..];
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let name = &rest[..end];
        let closes = rest[end..].starts_with('}') || rest[end..].starts_with(':');
        if closes && !name.is_empty() && !name.starts_with(|c: char| c.is_ascii_digit()) {
            names.push(name.to_string());
        }
    }
    names
}

impl<'ast> Visit<'ast> for Free {
    fn visit_expr_path(&mut self, node: &'ast syn::ExprPath) {
        if node.qself.is_none() && node.path.leading_colon.is_none() {
            if let Some(ident) = node.path.get_ident() {
                self.read(ident.to_string());
            }
        }
    }

    fn visit_block(&mut self, block: &'ast Block) {
        self.stmts(&block.stmts);
    }

    fn visit_expr_closure(&mut self, node: &'ast syn::ExprClosure) {
        self.scopes.push(HashSet::new());
        for input in &node.inputs {
            self.bind(input);
        }
        self.visit_expr(&node.body);
        self.scopes.pop();
    }

    fn visit_arm(&mut self, arm: &'ast syn::Arm) {
        self.scopes.push(HashSet::new());
        self.bind(&arm.pat);
        if let Some((_, guard)) = &arm.guard {
            self.visit_expr(guard);
        }
        self.visit_expr(&arm.body);
        self.scopes.pop();
    }

    fn visit_expr_if(&mut self, node: &'ast syn::ExprIf) {
        self.scopes.push(HashSet::new());
        self.visit_expr(&node.cond);
        self.visit_block(&node.then_branch);
        self.scopes.pop();
        if let Some((_, else_branch)) = &node.else_branch {
            self.visit_expr(else_branch);
        }
    }

    fn visit_expr_while(&mut self, node: &'ast syn::ExprWhile) {
        self.scopes.push(HashSet::new());
        self.visit_expr(&node.cond);
        self.visit_block(&node.body);
        self.scopes.pop();
    }

    fn visit_expr_let(&mut self, node: &'ast syn::ExprLet) {
        self.visit_expr(&node.expr);
        self.bind(&node.pat);
    }

    fn visit_expr_for_loop(&mut self, node: &'ast syn::ExprForLoop) {
        self.visit_expr(&node.expr);
        self.scopes.push(HashSet::new());
        self.bind(&node.pat);
        self.visit_block(&node.body);
        self.scopes.pop();
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.tokens(mac.tokens.clone());
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}

    fn visit_pat(&mut self, _: &'ast Pat) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn free(src: &str) -> Vec<String> {
        let block: Block = syn::parse_str(src).unwrap();
        let mut names: Vec<_> = free_in_stmts(&block.stmts).into_iter().collect();
        names.sort();
        names
    }

    #[test]
    fn a_local_binding_shadows_the_outer_name_after_its_let() {
        assert_eq!(free("{ let a = b; let b = 1; a + b + c }"), ["b", "c"]);
    }

    #[test]
    fn closure_and_arm_bindings_are_local() {
        assert_eq!(
            free("{ let f = |x| x + y; match v { Some(z) => z, None => w } }"),
            ["v", "w", "y"]
        );
    }

    #[test]
    fn macro_arguments_and_inline_format_names_are_reads() {
        assert_eq!(
            free(r#"{ println!("{plan} {:?}", ticket.id) }"#),
            ["plan", "ticket"]
        );
    }

    #[test]
    fn uppercase_idents_in_patterns_are_not_bindings() {
        let pat: Pat =
            syn::parse::Parser::parse_str(Pat::parse_single, "Some((a, None, mut b))").unwrap();
        let names: Vec<_> = pattern_bindings(&pat)
            .iter()
            .map(|b| b.ident.to_string())
            .collect();
        assert_eq!(names, ["a", "b"]);
    }
}
