//! Finds a legacy call inside a handler body and decides where its ask can stand.
//!
//! `#[mrtr_handler]` accepts an ask as its own statement at the top of the body or inside the
//! branches of an `if` / `match` that is itself such a statement (see `docs/mrtr-handler.md`,
//! "Supported shapes"). The rewrite therefore hoists the ask into a `let` right before the
//! statement holding the legacy call, and that statement must sit on such a path; the call must
//! also be evaluated unconditionally by its statement, or hoisting would ask questions the old
//! code did not.

use syn::visit::{self, Visit};

/// One step on the way from the handler body down to the call.
#[derive(Clone, Copy)]
pub enum Node<'a> {
    Block(&'a syn::Block),
    Stmt(&'a syn::Stmt),
    Local(&'a syn::Local),
    Expr(&'a syn::Expr),
    Arm(&'a syn::Arm),
}

/// The legacy call and the nodes that enclose it, outermost first (the body block first, the
/// call's `Expr::MethodCall` last).
pub struct Site<'a> {
    pub path: Vec<Node<'a>>,
    /// Index in `path` of the statement the ask is hoisted in front of.
    pub stmt: usize,
}

impl<'a> Site<'a> {
    pub fn call(&self) -> Result<&'a syn::ExprMethodCall, String> {
        match self.path.last() {
            Some(Node::Expr(syn::Expr::MethodCall(mc))) => Ok(mc),
            _ => Err("the request is not a method call on the peer".into()),
        }
    }

    /// The node right above the call, and the one above that.
    pub fn parent(&self, up: usize) -> Option<Node<'a>> {
        self.path.len().checked_sub(1 + up).map(|i| self.path[i])
    }

    pub fn statement(&self) -> &'a syn::Stmt {
        match self.path[self.stmt] {
            Node::Stmt(s) => s,
            _ => unreachable!("stmt indexes a statement"),
        }
    }

    /// The block whose statement list holds [`Self::statement`].
    pub fn block(&self) -> &'a syn::Block {
        match self.path[self.stmt - 1] {
            Node::Block(b) => b,
            _ => unreachable!("a statement sits in a block"),
        }
    }
}

/// Every call of one body (a method call by its method name, a function call by the last
/// segment of its path) with the nodes that enclose it, from one walk: a function with n asks is
/// walked once, not once per ask (a 4 MB line of 150,000 asks took minutes that way). Each node
/// the walk enters is kept once with its parent, so a path costs its length to rebuild.
pub struct Index<'a> {
    /// The nodes entered, each with the index of the one enclosing it (`usize::MAX`: the body).
    nodes: Vec<(Node<'a>, usize)>,
    /// The node of the call whose name starts at (1-based line, 0-based column); the first met,
    /// as a walk that stops at the first match would find it.
    calls: crate::model::fast_hash::HashMap<(usize, usize), usize>,
}

#[cfg(test)]
thread_local! {
    /// Bodies walked by [`Index::new`] on this thread: the tests check it does not grow with the
    /// number of asks.
    pub static WALKS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

impl<'a> Index<'a> {
    pub fn new(body: &'a syn::Block) -> Self {
        #[cfg(test)]
        WALKS.with(|w| w.set(w.get() + 1));
        let mut walk = Walk {
            index: Index {
                nodes: Vec::new(),
                calls: Default::default(),
            },
            open: Vec::new(),
        };
        walk.visit_block(body);
        walk.index
    }

    /// The nodes from the body down to the call whose name starts at 1-based `line`/`column`,
    /// unchecked.
    pub fn path_to(&self, line: usize, column: usize) -> Option<Vec<Node<'a>>> {
        let mut at = *self.calls.get(&(line, column.checked_sub(1)?))?;
        let mut path = Vec::new();
        while at != usize::MAX {
            let (node, parent) = self.nodes[at];
            path.push(node);
            at = parent;
        }
        path.reverse();
        Some(path)
    }
}

struct Walk<'a> {
    index: Index<'a>,
    /// The entered nodes enclosing the current one, innermost last.
    open: Vec<usize>,
}

impl<'a> Walk<'a> {
    fn enter(&mut self, node: Node<'a>) -> usize {
        let parent = self.open.last().copied().unwrap_or(usize::MAX);
        self.index.nodes.push((node, parent));
        let at = self.index.nodes.len() - 1;
        self.open.push(at);
        at
    }
}

impl<'a> Visit<'a> for Walk<'a> {
    fn visit_block(&mut self, b: &'a syn::Block) {
        self.enter(Node::Block(b));
        visit::visit_block(self, b);
        self.open.pop();
    }
    fn visit_stmt(&mut self, s: &'a syn::Stmt) {
        self.enter(Node::Stmt(s));
        visit::visit_stmt(self, s);
        self.open.pop();
    }
    fn visit_local(&mut self, l: &'a syn::Local) {
        self.enter(Node::Local(l));
        visit::visit_local(self, l);
        self.open.pop();
    }
    fn visit_arm(&mut self, a: &'a syn::Arm) {
        self.enter(Node::Arm(a));
        visit::visit_arm(self, a);
        self.open.pop();
    }
    fn visit_expr(&mut self, e: &'a syn::Expr) {
        let at = self.enter(Node::Expr(e));
        let name = match e {
            syn::Expr::MethodCall(mc) => Some(mc.method.span()),
            // A call of a helper function (`confirm(&ctx.peer, ..)`), found by its name.
            syn::Expr::Call(c) => match &*c.func {
                syn::Expr::Path(p) => p.path.segments.last().map(|s| s.ident.span()),
                _ => None,
            },
            _ => None,
        };
        if let Some(name) = name {
            let start = name.start();
            self.index
                .calls
                .entry((start.line, start.column))
                .or_insert(at);
        }
        visit::visit_expr(self, e);
        self.open.pop();
    }
}

/// Finds the method call whose name starts at 1-based `line`/`column` in the body `calls`
/// indexes ([`super::handler::FnSite::calls`]).
pub fn find<'a>(calls: &Index<'a>, line: usize, column: usize) -> Result<Site<'a>, String> {
    let Some(path) = calls.path_to(line, column) else {
        return Err(
            "the call sits inside a macro invocation (`tokio::join!`, `select!`, \
`format!`, ...), which the rewrite cannot see into; bind the answer with its own `let` first"
                .into(),
        );
    };
    let stmt = path
        .iter()
        .rposition(|n| matches!(n, Node::Stmt(_)))
        .ok_or("the call is not inside a statement")?;
    check_cfg(&path)?;
    check_outer(&path[..=stmt])?;
    check_inner(&path[stmt..])?;
    Ok(Site { path, stmt })
}

/// A `#[cfg(..)]` (or `#[cfg_attr(..)]`) on the way down to the call: the hoisted `let` and the
/// macro's state machine would stand outside it, so a build the attribute leaves the call out of
/// would ask anyway. Refused here, the call goes to the deferred tier, which rewrites the call in
/// place under its attribute.
fn check_cfg(path: &[Node]) -> Result<(), String> {
    let gated = |attrs: &[syn::Attribute]| {
        attrs
            .iter()
            .any(|a| a.path().is_ident("cfg") || a.path().is_ident("cfg_attr"))
    };
    let found = path.iter().any(|n| match n {
        Node::Block(_) => false,
        Node::Stmt(syn::Stmt::Local(l)) => gated(&l.attrs),
        Node::Local(l) => gated(&l.attrs),
        Node::Stmt(syn::Stmt::Macro(m)) => gated(&m.attrs),
        Node::Stmt(_) => false,
        Node::Arm(a) => gated(&a.attrs),
        Node::Expr(e) => gated(expr_attrs(e)),
    });
    if found {
        return Err(
            "the call is under a `#[cfg(..)]` attribute, which hoisting the ask out of its \
statement would leave behind"
                .into(),
        );
    }
    Ok(())
}

/// The outer attributes of an expression.
fn expr_attrs(e: &syn::Expr) -> &[syn::Attribute] {
    use syn::Expr as E;
    match e {
        E::Array(x) => &x.attrs,
        E::Assign(x) => &x.attrs,
        E::Async(x) => &x.attrs,
        E::Await(x) => &x.attrs,
        E::Binary(x) => &x.attrs,
        E::Block(x) => &x.attrs,
        E::Break(x) => &x.attrs,
        E::Call(x) => &x.attrs,
        E::Cast(x) => &x.attrs,
        E::Closure(x) => &x.attrs,
        E::Const(x) => &x.attrs,
        E::Continue(x) => &x.attrs,
        E::Field(x) => &x.attrs,
        E::ForLoop(x) => &x.attrs,
        E::Group(x) => &x.attrs,
        E::If(x) => &x.attrs,
        E::Index(x) => &x.attrs,
        E::Infer(x) => &x.attrs,
        E::Let(x) => &x.attrs,
        E::Lit(x) => &x.attrs,
        E::Loop(x) => &x.attrs,
        E::Macro(x) => &x.attrs,
        E::Match(x) => &x.attrs,
        E::MethodCall(x) => &x.attrs,
        E::Paren(x) => &x.attrs,
        E::Path(x) => &x.attrs,
        E::Range(x) => &x.attrs,
        E::RawAddr(x) => &x.attrs,
        E::Reference(x) => &x.attrs,
        E::Repeat(x) => &x.attrs,
        E::Return(x) => &x.attrs,
        E::Struct(x) => &x.attrs,
        E::Try(x) => &x.attrs,
        E::TryBlock(x) => &x.attrs,
        E::Tuple(x) => &x.attrs,
        E::Unary(x) => &x.attrs,
        E::Unsafe(x) => &x.attrs,
        E::While(x) => &x.attrs,
        E::Yield(x) => &x.attrs,
        _ => &[],
    }
}

fn same<T>(a: &T, b: &T) -> bool {
    std::ptr::eq(a, b)
}

/// From the body down to the hoisting statement: only blocks, statements and the branches of
/// `if` / `match` statements.
pub fn check_outer(path: &[Node]) -> Result<(), String> {
    for w in path.windows(2) {
        let ok = match (w[0], w[1]) {
            (Node::Block(_), Node::Stmt(_)) => true,
            (Node::Stmt(syn::Stmt::Local(_)), Node::Local(_)) => true,
            (Node::Stmt(_), Node::Expr(e)) | (Node::Local(_), Node::Expr(e)) => {
                if let Node::Local(l) = w[0] {
                    if !l.init.as_ref().is_some_and(|i| same(&*i.expr, e)) {
                        return Err("the call is in the `else` of a `let`-`else`".into());
                    }
                }
                match e {
                    syn::Expr::If(_) | syn::Expr::Match(_) => true,
                    // The macro keeps a loop holding asks running across rounds.
                    syn::Expr::Loop(_) | syn::Expr::While(_) => true,
                    syn::Expr::ForLoop(f) => {
                        owned_items(&f.expr)?;
                        true
                    }
                    other => return Err(where_not(other)),
                }
            }
            (Node::Expr(syn::Expr::Loop(l)), Node::Block(b)) => same(&l.body, b),
            (Node::Expr(syn::Expr::While(w)), Node::Block(b)) => same(&w.body, b),
            (Node::Expr(syn::Expr::ForLoop(f)), Node::Block(b)) => same(&f.body, b),
            (Node::Expr(syn::Expr::If(i)), Node::Block(b)) => same(&i.then_branch, b),
            (Node::Expr(syn::Expr::If(i)), Node::Expr(e)) => {
                i.else_branch.as_ref().is_some_and(|(_, x)| same(&**x, e))
            }
            (Node::Expr(syn::Expr::Block(_)), Node::Block(_)) => true,
            (Node::Expr(syn::Expr::Match(_)), Node::Arm(_)) => true,
            (Node::Arm(a), Node::Expr(e)) => {
                same(&*a.body, e)
                    && matches!(
                        e,
                        syn::Expr::Block(_) | syn::Expr::If(_) | syn::Expr::Match(_)
                    )
            }
            (_, Node::Expr(e)) => return Err(where_not(e)),
            _ => false,
        };
        if !ok {
            return Err(
                "the call is in a condition, a guard or a branch the rewrite cannot \
reach; bind the answer with its own `let` at the top of the handler or of a branch"
                    .into(),
            );
        }
    }
    Ok(())
}

/// Inside the hoisting statement: the call must run whenever the statement runs, and before
/// anything that could move it into another task or repeat it.
fn check_inner(path: &[Node]) -> Result<(), String> {
    for w in path.windows(2) {
        match (w[0], w[1]) {
            (Node::Expr(syn::Expr::If(i)), Node::Expr(e)) if !same(&*i.cond, e) => {
                return Err(
                    "the call is in a branch of an `if` that is not a statement of its own; \
hoisting it would ask even when the branch is not taken"
                        .into(),
                )
            }
            (Node::Expr(syn::Expr::Binary(b)), Node::Expr(e))
                if same(&*b.right, e) && matches!(b.op, syn::BinOp::And(_) | syn::BinOp::Or(_)) =>
            {
                return Err(
                    "the call is on the right of `&&` / `||`, which does not always run it".into(),
                )
            }
            (Node::Local(l), Node::Expr(e))
                if !l.init.as_ref().is_some_and(|i| same(&*i.expr, e)) =>
            {
                return Err("the call is in the `else` of a `let`-`else`".into())
            }
            (_, Node::Arm(_)) => {
                return Err(
                    "the call is in a `match` arm that is not a block; hoisting it would \
ask even when the arm is not taken"
                        .into(),
                )
            }
            (_, Node::Block(_)) => {
                return Err("the call is inside a nested block or closure in its statement".into())
            }
            (_, Node::Expr(e)) => {
                if let Some(why) = forbidden(e) {
                    return Err(why);
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// The items of a `for` loop that asks travel in the sealed state: they must be owned. A
/// borrow, an iterator over borrows or string literals are refused; anything else is left to
/// the build (the macro's error names the type).
fn owned_items(iterable: &syn::Expr) -> Result<(), String> {
    let borrowed = match iterable {
        syn::Expr::Reference(_) => true,
        syn::Expr::MethodCall(mc) => matches!(
            mc.method.to_string().as_str(),
            "iter"
                | "iter_mut"
                | "keys"
                | "values"
                | "chars"
                | "lines"
                | "split"
                | "split_whitespace"
        ),
        syn::Expr::Array(a) => a
            .elems
            .iter()
            .any(|e| matches!(e, syn::Expr::Lit(l) if matches!(l.lit, syn::Lit::Str(_)))),
        _ => false,
    };
    if borrowed {
        return Err(
            "the call is inside a loop over borrowed items (a `&`, `.iter()` or string \
literals); the items of a `for` loop that asks travel in the sealed `requestState`, so iterate \
over owned values (`items.clone()`, `String`s)"
                .into(),
        );
    }
    Ok(())
}

fn forbidden(e: &syn::Expr) -> Option<String> {
    Some(match e {
        syn::Expr::Closure(_) => "the call is inside a closure".into(),
        syn::Expr::Async(_) => {
            "the call is inside an `async` block, which may run outside the handler's round".into()
        }
        syn::Expr::ForLoop(_) | syn::Expr::While(_) | syn::Expr::Loop(_) => {
            "the call is inside a loop; an ask cannot be repeated across rounds (ask before the \
loop, or several questions at once with `mrtr.join(..)`)"
                .into()
        }
        syn::Expr::Unsafe(_) => "the call is inside an `unsafe` block".into(),
        _ => return None,
    })
}

fn where_not(e: &syn::Expr) -> String {
    forbidden(e).unwrap_or_else(|| {
        "the call is inside a nested block the rewrite cannot hoist out of".into()
    })
}

/// Hoisting the call at the end of `path` (the hoisting statement down to the call) into a
/// `let` before its statement must not change what runs first: everything the statement
/// evaluates before the call (at each level, the operands left of the way down: a callee, a
/// receiver, earlier arguments, the left side of an operator) must be free of effects (paths,
/// literals, field reads, references to them). `Err` names the first that is not.
pub fn check_order(
    path: &[Node],
    src: &str,
    idx: &crate::reading::source::LineIndex,
) -> Result<(), String> {
    for w in path.windows(2) {
        let (Node::Expr(parent), Node::Expr(child)) = (w[0], w[1]) else {
            continue;
        };
        let mut before: Vec<&syn::Expr> = Vec::new();
        match parent {
            syn::Expr::Call(c) if !same(&*c.func, child) => {
                before.push(&c.func);
                before.extend(c.args.iter().take_while(|a| !same(*a, child)));
            }
            syn::Expr::MethodCall(mc) if !same(&*mc.receiver, child) => {
                before.push(&mc.receiver);
                before.extend(mc.args.iter().take_while(|a| !same(*a, child)));
            }
            syn::Expr::Binary(b) if same(&*b.right, child) => before.push(&b.left),
            syn::Expr::Index(ix) if same(&*ix.index, child) => before.push(&ix.expr),
            syn::Expr::Range(r) if r.end.as_deref().is_some_and(|e| same(e, child)) => {
                before.extend(r.start.as_deref());
            }
            syn::Expr::Tuple(t) => before.extend(t.elems.iter().take_while(|a| !same(*a, child))),
            syn::Expr::Array(a) => before.extend(a.elems.iter().take_while(|e| !same(*e, child))),
            syn::Expr::Struct(s) => {
                before.extend(
                    s.fields
                        .iter()
                        .map(|f| &f.expr)
                        .take_while(|e| !same(*e, child)),
                );
            }
            _ => {}
        }
        if let Some(first) = before.into_iter().find(|e| !effect_free(e)) {
            let shown = super::text::range_of(first, idx)
                .map(|(s, e)| super::text::shorten(&src[s..e]))
                .unwrap_or_default();
            return Err(format!(
                "the call stands after `{shown}` in its statement, which runs first and may have \
effects; hoisting the call into its own `let` would run it before: bind `{shown}` in a `let` \
first"
            ));
        }
    }
    Ok(())
}

/// Paths, literals, field reads and references to them: nothing runs.
fn effect_free(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Path(_) | syn::Expr::Lit(_) => true,
        syn::Expr::Field(f) => effect_free(&f.base),
        syn::Expr::Reference(r) => effect_free(&r.expr),
        syn::Expr::Paren(p) => effect_free(&p.expr),
        syn::Expr::Group(g) => effect_free(&g.expr),
        syn::Expr::Tuple(t) => t.elems.iter().all(effect_free),
        _ => false,
    }
}
