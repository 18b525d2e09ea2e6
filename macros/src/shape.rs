//! The shapes the rewrite supports, and a check that reports every other place an ask appears
//! with the author's span.
//!
//! Supported: an ask statement (`let PAT = ASK.await?;`, `ASK.await?;`, or an ask as the tail of
//! a block) at the top level of the body, of an arm block of an `if`/`else`/`match`, or of the
//! body of a `loop`/`while`/`for`, where the branch or loop is itself at statement level (or a
//! `let` initializer, or a tail). Everything else that contains an ask is a compile error.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Expr, Ident, Local, Stmt};

use crate::asks::{ask_stmt, parse_ask, tokens_mention_ask, AskStmt};

/// How a statement of a body (or arm block) takes part in the rewrite.
pub enum StmtClass {
    /// Runs straight through.
    Plain,
    /// An ask statement: a step.
    Ask(AskStmt),
    /// An `if`/`match` with asks in its arms.
    Branch(BranchStmt),
    /// A `loop`, `while` or `for` with asks in its body.
    Loop(LoopStmt),
}

/// A loop statement with asks inside its body.
pub struct LoopStmt {
    pub expr: Expr,
    /// `let PAT = loop { .. break value .. };`
    pub local: Option<Local>,
    pub tail: bool,
}

/// An `if`/`match` statement with asks inside its arms.
pub struct BranchStmt {
    pub expr: Expr,
    /// `let PAT = <branch>;` when the branch's value is bound.
    pub local: Option<Local>,
    /// The branch is the block's tail (its value is the block's value).
    pub tail: bool,
}

/// Whether an awaited ask occurs anywhere in `expr` (macros included, by token scan).
pub fn contains_ask(expr: &Expr, mrtr: &Ident) -> bool {
    let mut finder = Finder { mrtr, found: None };
    finder.visit_expr(expr);
    finder.found.is_some()
}

pub fn stmt_contains_ask(stmt: &Stmt, mrtr: &Ident) -> bool {
    let mut finder = Finder { mrtr, found: None };
    finder.visit_stmt(stmt);
    finder.found.is_some()
}

struct Finder<'m> {
    mrtr: &'m Ident,
    found: Option<Span>,
}

impl<'ast> Visit<'ast> for Finder<'_> {
    fn visit_expr(&mut self, expr: &'ast Expr) {
        if self.found.is_some() {
            return;
        }
        if parse_ask(expr, self.mrtr).is_some() {
            self.found = Some(expr.span());
            return;
        }
        syn::visit::visit_expr(self, expr);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        if let Some(span) = tokens_mention_ask(mac.tokens.clone(), self.mrtr) {
            self.found.get_or_insert(span);
        }
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// A block's statements with a tail ask (`{ ..; ASK.await? }`) turned into
/// `let __mrtr_tail = ASK.await?; __mrtr_tail`, so every ask is a statement.
pub fn normalize(mut stmts: Vec<Stmt>, mrtr: &Ident) -> Vec<Stmt> {
    if let Some(Stmt::Expr(expr, None)) = stmts.last() {
        let inner = match expr {
            Expr::Try(t) => &*t.expr,
            other => other,
        };
        if parse_ask(inner, mrtr).is_some() {
            let Some(Stmt::Expr(expr, None)) = stmts.pop() else {
                unreachable!("the last statement was just matched")
            };
            let span = expr.span();
            let tail = Ident::new("__mrtr_tail", span);
            stmts.push(syn::parse_quote_spanned!(span=> let #tail = #expr;));
            stmts.push(Stmt::Expr(syn::parse_quote_spanned!(span=> #tail), None));
        }
    }
    stmts
}

/// The statements of an arm body: a plain block's statements, or the expression as a tail.
pub fn arm_stmts(body: &Expr, mrtr: &Ident) -> Vec<Stmt> {
    let stmts = match body {
        Expr::Block(b) if b.label.is_none() && b.attrs.is_empty() => b.block.stmts.clone(),
        other => vec![Stmt::Expr(other.clone(), None)],
    };
    normalize(stmts, mrtr)
}

/// The arms of an `if`/`else if`/`else` chain: (condition, then-block); `None` condition for
/// the final `else` (an implicit empty one when the chain has none).
pub fn if_arms(expr: &syn::ExprIf) -> Vec<(Option<Expr>, syn::Block)> {
    let mut arms = vec![(Some((*expr.cond).clone()), expr.then_branch.clone())];
    let mut rest = expr.else_branch.as_ref().map(|(_, e)| (**e).clone());
    loop {
        match rest {
            Some(Expr::If(next)) => {
                arms.push((Some((*next.cond).clone()), next.then_branch.clone()));
                rest = next.else_branch.as_ref().map(|(_, e)| (**e).clone());
            }
            Some(Expr::Block(block)) => {
                arms.push((None, block.block));
                break;
            }
            Some(other) => {
                arms.push((None, syn::parse_quote!({ #other })));
                break;
            }
            None => {
                arms.push((None, syn::parse_quote!({})));
                break;
            }
        }
    }
    arms
}

fn is_branch(expr: &Expr) -> bool {
    matches!(expr, Expr::If(_) | Expr::Match(_))
}

/// A loop the rewrite can resume: `loop`, `while` and `for`.
fn is_loop(expr: &Expr) -> bool {
    matches!(expr, Expr::Loop(_) | Expr::ForLoop(_) | Expr::While(_))
}

/// `while let PAT = EXPR { body }` as `loop { let PAT = EXPR else { break }; body }`: the
/// pattern's bindings then belong to the body's first group, which a resumed round skips and
/// restores like any other.
fn desugar_while_let(expr: &Expr) -> Expr {
    let Expr::While(w) = expr else {
        return expr.clone();
    };
    let Expr::Let(binding) = &*w.cond else {
        return expr.clone();
    };
    let (pat, scrutinee) = (&binding.pat, &binding.expr);
    let (attrs, label) = (&w.attrs, &w.label);
    let body = &w.body.stmts;
    syn::parse_quote! {
        #(#attrs)* #label loop {
            let #pat = #scrutinee else { break; };
            #(#body)*
        }
    }
}

/// Classifies one statement of a (normalized) block.
pub fn classify(stmt: &Stmt, mrtr: &Ident) -> syn::Result<StmtClass> {
    if let Some(ask) = ask_stmt(stmt, mrtr) {
        return ask.map(StmtClass::Ask);
    }
    if !stmt_contains_ask(stmt, mrtr) {
        return Ok(StmtClass::Plain);
    }
    match stmt {
        Stmt::Expr(expr, semi) if is_branch(expr) => Ok(StmtClass::Branch(BranchStmt {
            expr: expr.clone(),
            local: None,
            tail: semi.is_none(),
        })),
        Stmt::Expr(expr, semi) if is_loop(expr) => Ok(StmtClass::Loop(LoopStmt {
            expr: desugar_while_let(expr),
            local: None,
            tail: semi.is_none(),
        })),
        Stmt::Local(local)
            if local
                .init
                .as_ref()
                .is_some_and(|i| matches!(&*i.expr, Expr::Loop(_)) && i.diverge.is_none()) =>
        {
            let init = local.init.as_ref().expect("checked above");
            let mut bare = local.clone();
            bare.init = None;
            Ok(StmtClass::Loop(LoopStmt {
                expr: (*init.expr).clone(),
                local: Some(bare),
                tail: false,
            }))
        }
        Stmt::Local(local)
            if local
                .init
                .as_ref()
                .is_some_and(|i| is_branch(&i.expr) && i.diverge.is_none()) =>
        {
            let init = local.init.as_ref().expect("checked above");
            let mut bare = local.clone();
            bare.init = None;
            Ok(StmtClass::Branch(BranchStmt {
                expr: (*init.expr).clone(),
                local: Some(bare),
                tail: false,
            }))
        }
        // Anything else holding an ask: the check reports it with a precise span.
        _ => Ok(StmtClass::Plain),
    }
}

/// Reports every unsupported place of an ask in a handler body.
pub struct Check<'m> {
    mrtr: &'m Ident,
    pub errors: Vec<syn::Error>,
}

impl<'m> Check<'m> {
    pub fn new(mrtr: &'m Ident) -> Self {
        Check {
            mrtr,
            errors: Vec::new(),
        }
    }

    /// A block whose statements may be asks.
    pub fn block(&mut self, stmts: &[Stmt]) {
        let stmts = normalize(stmts.to_vec(), self.mrtr);
        for stmt in &stmts {
            match classify(stmt, self.mrtr) {
                Err(error) => self.errors.push(error),
                Ok(StmtClass::Ask(ask)) => {
                    match &ask.ask.kind {
                        crate::asks::AskKind::Single(expr) => self.no_ask(expr),
                        crate::asks::AskKind::Join(exprs) => {
                            exprs.iter().for_each(|e| self.no_ask(e))
                        }
                    }
                    if let Some(local) = &ask.local {
                        if let Some((_, diverge)) =
                            local.init.as_ref().and_then(|i| i.diverge.as_ref())
                        {
                            self.no_ask(diverge);
                        }
                    }
                }
                Ok(StmtClass::Branch(branch)) => self.branch(&branch.expr),
                Ok(StmtClass::Loop(looped)) => self.looped(&looped.expr),
                Ok(StmtClass::Plain) => {
                    if stmt_contains_ask(stmt, self.mrtr) {
                        self.stmt_no_ask(stmt);
                    }
                }
            }
        }
    }

    fn branch(&mut self, expr: &Expr) {
        match expr {
            Expr::If(chain) => {
                for (cond, block) in if_arms(chain) {
                    if let Some(cond) = &cond {
                        self.no_ask_in(cond, "an `if` condition");
                    }
                    self.block(&block.stmts);
                }
            }
            Expr::Match(m) => {
                self.no_ask_in(&m.expr, "a `match` scrutinee");
                for arm in &m.arms {
                    if let Some((_, guard)) = &arm.guard {
                        self.no_ask_in(guard, "a `match` guard");
                    }
                    self.block(&arm_stmts(&arm.body, self.mrtr));
                }
            }
            _ => unreachable!("only if/match are branch statements"),
        }
    }

    fn looped(&mut self, expr: &Expr) {
        match expr {
            Expr::Loop(l) => self.block(&l.body.stmts),
            Expr::While(w) => {
                self.no_ask_in(&w.cond, "a `while` condition");
                self.block(&w.body.stmts);
            }
            Expr::ForLoop(f) => {
                self.no_ask_in(&f.expr, "the iterable of a `for` loop");
                self.block(&f.body.stmts);
            }
            _ => unreachable!("only loops are loop statements"),
        }
    }

    fn no_ask_in(&mut self, expr: &Expr, place: &str) {
        if let Some(span) = first_ask(expr, self.mrtr) {
            self.errors.push(syn::Error::new(
                span,
                format!(
                    "#[mrtr_handler]: an ask in {place} is not supported; bind it in its own `let` \
                     before it: `let answer = mrtr.elicit(..).await?;`"
                ),
            ));
        }
    }

    fn stmt_no_ask(&mut self, stmt: &Stmt) {
        let mut v = Reject {
            mrtr: self.mrtr,
            errors: &mut self.errors,
        };
        v.visit_stmt(stmt);
    }

    fn no_ask(&mut self, expr: &Expr) {
        let mut v = Reject {
            mrtr: self.mrtr,
            errors: &mut self.errors,
        };
        v.visit_expr(expr);
    }
}

fn first_ask(expr: &Expr, mrtr: &Ident) -> Option<Span> {
    let mut finder = Finder { mrtr, found: None };
    finder.visit_expr(expr);
    finder.found
}

/// Walks code where no ask may appear and names the construct that holds one.
struct Reject<'a> {
    mrtr: &'a Ident,
    errors: &'a mut Vec<syn::Error>,
}

const LOOP: &str = "#[mrtr_handler]: an ask inside a loop is supported only when the loop is a \
                    statement of the body or of an `if`/`match` arm (or `let x = loop { .. }`); \
                    bind the loop's value with `let` instead of using the loop inside an expression";

impl Reject<'_> {
    fn holds_ask(&self, expr: &Expr) -> bool {
        contains_ask(expr, self.mrtr)
    }

    fn reject(&mut self, span: Span, message: &str) {
        self.errors.push(syn::Error::new(span, message));
    }
}

impl<'ast> Visit<'ast> for Reject<'_> {
    fn visit_expr(&mut self, expr: &'ast Expr) {
        if !self.holds_ask(expr) {
            return;
        }
        match expr {
            Expr::ForLoop(l) => self.reject(l.for_token.span, LOOP),
            Expr::While(l) => self.reject(l.while_token.span, LOOP),
            Expr::Loop(l) => self.reject(l.loop_token.span, LOOP),
            Expr::Closure(c) => self.reject(
                c.or1_token.span,
                "#[mrtr_handler]: an ask inside a closure is not supported; ask in the handler \
                 body with its own `let` and pass the answer to the closure",
            ),
            Expr::Async(a) => self.reject(
                a.async_token.span,
                "#[mrtr_handler]: an ask inside an async block is not supported; ask in the \
                 handler body with its own `let`",
            ),
            Expr::Block(b) => {
                let span = b
                    .label
                    .as_ref()
                    .map(|l| l.name.span())
                    .unwrap_or(b.block.brace_token.span.open());
                self.reject(
                    span,
                    "#[mrtr_handler]: an ask inside a nested block is not supported; move it to \
                     the enclosing block (asks may be at the top of the body or in the arms of \
                     an `if`/`match` statement)",
                )
            }
            Expr::Unsafe(u) => self.reject(
                u.unsafe_token.span,
                "#[mrtr_handler]: an ask inside an `unsafe` block is not supported; move it out",
            ),
            Expr::Macro(m) => self.visit_macro(&m.mac),
            other => {
                if let Some(ask) = parse_ask(other, self.mrtr) {
                    let span = match ask {
                        Ok(ask) => ask.span,
                        Err(error) => {
                            self.errors.push(error);
                            return;
                        }
                    };
                    self.reject(
                        span,
                        "#[mrtr_handler]: an ask must be its own statement; bind it in its own \
                         `let`: `let answer = mrtr.elicit(..).await?;` and use `answer` here",
                    );
                    return;
                }
                syn::visit::visit_expr(self, other);
            }
        }
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        if let Some(span) = tokens_mention_ask(mac.tokens.clone(), self.mrtr) {
            self.reject(
                span,
                "#[mrtr_handler]: an ask inside a macro invocation is not seen by the rewrite; \
                 bind it in its own `let` before the macro",
            );
        }
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}
