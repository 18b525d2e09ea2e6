//! An ask in the deferred form fails until the client has answered it, and the round ends with
//! the question once the handler returns. A `loop` that goes on when the ask fails never returns:
//! it asks again at once, and the same question is still unanswered in the same round, so the
//! request spins on one core and never ends (`loop { match ask.await { Ok(x) => break x, _ =>
//! continue } }`, which before MRTR re-asked after each decline). Such an ask keeps the guidance
//! instead of a fix that compiles and hangs. A loop that leaves on the failure (`?`, `return`,
//! `break`), or a `for` loop or a `while` whose condition counts, which have a bound of their
//! own, is not this.

use syn::visit::Visit;

/// Why such an ask keeps the guidance (the planner's refusal, shown with the finding).
pub(super) const WHY: &str = "the ask stands in a `loop` that goes on when it fails: under \
2026-07-28 an unanswered ask fails until the client's retry brings the answer, so this loop \
would ask again and again within one request and never end it; let the failure leave the loop \
(`?`, `return`, `break`) and the deferred form applies";

/// Whether the ask whose method name starts at `method_at` (line, column) in `block` stands in
/// a `loop` that goes on when it fails.
pub(super) fn asks_forever(block: &syn::Block, method_at: (usize, usize)) -> bool {
    let mut walk = Walk {
        method_at,
        ancestors: Vec::new(),
        in_loop: vec![false],
        found: false,
    };
    walk.visit_block(block);
    walk.found
}

struct Walk<'a> {
    method_at: (usize, usize),
    /// The expressions enclosing the one visited, innermost last.
    ancestors: Vec<&'a syn::Expr>,
    /// Per nesting of loops and bodies: whether the innermost is a `loop` (a closure, an async
    /// block or a nested fn starts afresh).
    in_loop: Vec<bool>,
    found: bool,
}

impl<'a> Visit<'a> for Walk<'a> {
    fn visit_expr(&mut self, e: &'a syn::Expr) {
        if self.found {
            return;
        }
        if let syn::Expr::MethodCall(mc) = e {
            let at = mc.method.span().start();
            if (at.line, at.column) == self.method_at {
                self.found = self.in_loop.last() == Some(&true) && swallowed(&self.ancestors, e);
                return;
            }
        }
        let scope = match e {
            syn::Expr::Loop(_) => Some(true),
            syn::Expr::While(w) => Some(!counts(&w.cond)),
            syn::Expr::ForLoop(_) => Some(false),
            syn::Expr::Closure(_) | syn::Expr::Async(_) => Some(false),
            _ => None,
        };
        if let Some(s) = scope {
            self.in_loop.push(s);
        }
        self.ancestors.push(e);
        syn::visit::visit_expr(self, e);
        self.ancestors.pop();
        if scope.is_some() {
            self.in_loop.pop();
        }
    }

    fn visit_item(&mut self, _: &'a syn::Item) {}
}

/// Whether the awaited ask `call` (its ancestors innermost last) has its failure dropped: the
/// scrutinee of a `match` with a failure arm that neither leaves nor returns, of an `if let Ok(..)`
/// without an `else`, or the receiver of a method that turns the failure into a value.
fn swallowed(ancestors: &[&syn::Expr], call: &syn::Expr) -> bool {
    let Some((&awaited, outer)) = ancestors.split_last() else {
        return false;
    };
    if !matches!(awaited, syn::Expr::Await(aw) if std::ptr::eq(&*aw.base, call)) {
        return false;
    }
    match outer.last() {
        Some(syn::Expr::Match(m)) if std::ptr::eq(&*m.expr, awaited) => m
            .arms
            .iter()
            .any(|arm| fails(&arm.pat) && !leaves(&arm.body)),
        Some(syn::Expr::Let(l)) if std::ptr::eq(&*l.expr, awaited) => {
            let if_without_else = outer
                .iter()
                .rev()
                .nth(1)
                .is_some_and(|e| matches!(e, syn::Expr::If(i) if i.else_branch.is_none()));
            if_without_else && !fails(&l.pat)
        }
        Some(syn::Expr::MethodCall(mc)) if std::ptr::eq(&*mc.receiver, awaited) => matches!(
            mc.method.to_string().as_str(),
            "ok" | "unwrap_or" | "unwrap_or_default" | "unwrap_or_else" | "is_ok" | "is_err"
        ),
        _ => false,
    }
}

/// Whether a `while` condition bounds its loop by itself: a comparison (`n < 3`, `tries !=
/// max`), which a counter feeds, or a `while let`, which ends on the first value that does not
/// match. `while got.is_none()` or `while !done`, set only when an ask succeeds, do not.
fn counts(cond: &syn::Expr) -> bool {
    struct Compares(bool);
    impl<'a> Visit<'a> for Compares {
        fn visit_bin_op(&mut self, op: &'a syn::BinOp) {
            use syn::BinOp::*;
            if matches!(op, Lt(_) | Le(_) | Gt(_) | Ge(_) | Eq(_) | Ne(_)) {
                self.0 = true;
            }
        }
    }
    if matches!(cond, syn::Expr::Let(_)) {
        return true;
    }
    let mut v = Compares(false);
    v.visit_expr(cond);
    v.0
}

/// A pattern a failed ask matches: `_`, a binding, or `Err(..)`.
fn fails(pat: &syn::Pat) -> bool {
    match pat {
        syn::Pat::Wild(_) | syn::Pat::Ident(_) => true,
        syn::Pat::TupleStruct(ts) => ts.path.segments.last().is_some_and(|s| s.ident == "Err"),
        syn::Pat::Or(or) => or.cases.iter().any(fails),
        _ => false,
    }
}

/// Whether an arm's body leaves the loop or the fn, or propagates: `break`, `return`, `?`, a
/// panic; anything else (`continue`, `{}`, a log line) goes round again.
fn leaves(body: &syn::Expr) -> bool {
    struct Leaves(bool);
    impl<'a> Visit<'a> for Leaves {
        fn visit_expr(&mut self, e: &'a syn::Expr) {
            match e {
                syn::Expr::Break(_) | syn::Expr::Return(_) | syn::Expr::Try(_) => self.0 = true,
                syn::Expr::Closure(_) | syn::Expr::Async(_) => {}
                _ => syn::visit::visit_expr(self, e),
            }
        }
        fn visit_macro(&mut self, m: &'a syn::Macro) {
            if m.path.segments.last().is_some_and(|s| {
                matches!(
                    s.ident.to_string().as_str(),
                    "panic" | "unreachable" | "todo" | "unimplemented"
                )
            }) {
                self.0 = true;
            }
        }
    }
    let mut v = Leaves(false);
    v.visit_expr(body);
    v.0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the ask (`elicit`) in `body` asks forever.
    fn forever(body: &str) -> bool {
        let src = format!("async fn h() {{ {body} }}");
        let f: syn::ItemFn = syn::parse_str(&src).unwrap();
        let at = src.find("elicit").unwrap();
        let line = src[..at].matches('\n').count() + 1;
        let column = at - src[..at].rfind('\n').map_or(0, |i| i + 1);
        asks_forever(&f.block, (line, column))
    }

    #[test]
    fn a_loop_that_goes_on_when_the_ask_fails_asks_forever() {
        assert!(forever(
            "let a = loop { match peer.elicit::<C>(m).await { Ok(Some(c)) => break c, _ => continue } };"
        ));
        assert!(forever(
            "loop { match peer.elicit::<C>(m).await { Ok(c) => { use_it(c); break; } Err(e) => { log(e); } } }"
        ));
        assert!(forever(
            "loop { if let Ok(Some(c)) = peer.elicit::<C>(m).await { got = Some(c); break; } }"
        ));
        assert!(forever(
            "loop { if peer.elicit::<C>(m).await.is_ok() { break; } }"
        ));
        // A `while` whose condition only the ask's success changes is the same loop.
        assert!(forever(
            "while got.is_none() { if let Ok(Some(c)) = peer.elicit::<C>(m).await { got = Some(c); } }"
        ));
    }

    #[test]
    fn an_ask_that_leaves_or_propagates_or_is_bounded_does_not() {
        // Propagated, or the failure leaves the loop.
        assert!(!forever(
            "loop { let c = peer.elicit::<C>(m).await?; if ok(c) { break; } }"
        ));
        assert!(!forever(
            "loop { match peer.elicit::<C>(m).await { Ok(Some(c)) => break c, Ok(None) => continue, Err(e) => return Err(e.into()) } }"
        ));
        assert!(!forever(
            "loop { if let Ok(c) = peer.elicit::<C>(m).await { x(c); } else { break; } }"
        ));
        // A `for` loop, a counted `while` or a `while let` has a bound of its own; no loop at all
        // is one ask.
        assert!(!forever(
            "for i in 0..3 { let _ = peer.elicit::<C>(m).await.ok(); }"
        ));
        assert!(!forever(
            "while n < 3 { match peer.elicit::<C>(m).await { Ok(_) => break, _ => n += 1 } }"
        ));
        assert!(!forever(
            "while let Ok(c) = peer.elicit::<C>(m).await { if let Some(c) = c { x(c); } }"
        ));
        assert!(!forever("let a = peer.elicit::<C>(m).await.ok();"));
        // A closure inside the loop is a body of its own.
        assert!(!forever(
            "loop { let f = async { peer.elicit::<C>(m).await.ok() }; f.await; break; }"
        ));
    }
}
