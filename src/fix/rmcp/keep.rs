//! A legacy request inside a helper that returns a plain value (`Vec<T>`, `Option<T>`, `bool`),
//! which therefore handled the request's errors itself (`let Ok(..) = .. else`, a `match` with an
//! `Err` arm, `.ok()?`, `.unwrap_or_default()`): the ask is awaited without `?` and its
//! `Result<_, MrtrError>` stands where the old `Result` stood, so that handling stays.
//!
//! Where the code reads the old value only through what the ask's value shares with it (the
//! patterns of an elicitation, a roots list read as `.roots`) it reads the ask's value directly;
//! anything else reads an expression of the old type built from it, in its own `let`.

use super::asks::Ask;
use super::call::{
    answer_base, hoist, old_result_fits, old_result_let, own_question, range_of_brace,
    read_request, same, CallPlan, Request,
};
use super::handler::FnSite;
use super::locate::{self, Node};
use super::text::{self, indent_at, range_of};
use super::{arms, Cx};
use crate::finding::{Edit, Finding};

pub(super) struct Kept {
    pub(super) plan: CallPlan,
    /// The `?`s (their byte offsets) this rewrite already turned into a `let`-`else`.
    pub(super) consumed: Vec<usize>,
}

/// Plans the request of `f` inside `site`, a helper returning a plain value (`option`: an
/// `Option`, whose `?`s may be taken apart here).
pub(super) fn plan_keeping(
    cx: &Cx,
    site: &FnSite,
    f: &Finding,
    body: &text::Uses,
    taken: &mut Vec<String>,
    option: bool,
) -> Result<Kept, String> {
    let Request {
        found,
        method,
        ask,
        receiver,
        receiver_uses,
        alias,
        aw,
        aw_range: (aw_s, aw_e),
    } = read_request(cx, site, f)?;
    let ask_await = format!("{}.await", ask.expr("mrtr"));
    let mut message = ask.describe(&method);
    let mut edits = Vec::new();
    let mut consumed = Vec::new();

    // In place: `let Ok(Some(x)) = CALL.await else { .. };` (the macro takes
    // `let PAT = ASK.await else { .. };`), and `let x = CALL.await.ok()?;` in an `Option` helper.
    if let Some(Node::Local(l)) = found.parent(2) {
        let let_else = l
            .init
            .as_ref()
            .is_some_and(|i| i.diverge.is_some() && same(&*i.expr, aw));
        if let (true, Some(inner)) = (let_else, ok_inner(&l.pat)) {
            let in_place = match &ask {
                Ask::Elicit { .. } => accept_edit(cx, &l.pat, inner).map(|e| vec![e]),
                Ask::Roots => bound_name(inner).and_then(|n| roots_reads_after(cx, &found, &n)),
                _ => None,
            };
            if let Some(reads) = in_place {
                edits.extend(reads);
                edits.push(cx.idx.edit(aw_s, aw_e, ask_await));
                return Ok(kept(
                    edits,
                    message,
                    &ask,
                    receiver,
                    receiver_uses,
                    alias,
                    consumed,
                ));
            }
        }
    }
    if let (Ask::Roots, true) = (&ask, option) {
        if let Some((local, question, end)) = ok_question_let(cx, &found, aw) {
            let syn::Pat::Ident(pi) = &local.pat else {
                unreachable!("checked by ok_question_let")
            };
            if let Some(reads) = roots_reads_after(cx, &found, &pi.ident.to_string()) {
                let (ps, pe) =
                    range_of(&local.pat, cx.idx).ok_or("a pattern without a position")?;
                let (ss, _) =
                    range_of(found.statement(), cx.idx).ok_or("a statement without a position")?;
                let indent = indent_at(cx.src, ss);
                let semi = range_of(&local.semi_token, cx.idx)
                    .ok_or("a `;` without a position")?
                    .0;
                edits.push(cx.idx.edit(ps, pe, format!("Ok({})", &cx.src[ps..pe])));
                edits.push(cx.idx.edit(aw_s, end, ask_await));
                edits.push(cx.idx.edit(
                    semi,
                    semi,
                    format!(" else {{\n{indent}    return Ok(None);\n{indent}}}"),
                ));
                edits.extend(reads);
                consumed.push(question);
                return Ok(kept(
                    edits,
                    message,
                    &ask,
                    receiver,
                    receiver_uses,
                    alias,
                    consumed,
                ));
            }
        }
    }

    // Hoisted into `let NAME = ASK.await;` before the statement, read in place of the old result.
    locate::check_order(&found.path[found.stmt..], cx.src, cx.idx)?;
    let name = body.fresh_name(&answer_base(found.statement()), taken);
    taken.push(name.clone());
    let mut ask = ask;
    let owned = own_question(cx, &found, aw, body, taken, &mut ask)?;
    let mut hoisted = format!("{owned}let {name} = {}.await;", ask.expr("mrtr"));
    let parent = found.parent(2);
    // `if let Ok(Some(x)) = CALL.await { .. }`, `match CALL.await { .. }` and roots read through
    // `.roots`: the code reads the ask's value.
    let direct: Option<Vec<Edit>> = match (&ask, parent) {
        (Ask::Elicit { .. } | Ask::Roots, Some(Node::Expr(syn::Expr::Let(l))))
            if same(&*l.expr, aw) =>
        {
            match (found.parent(3), ok_inner(&l.pat)) {
                (Some(Node::Expr(syn::Expr::If(i))), Some(inner)) => match &ask {
                    Ask::Elicit { .. } => accept_edit(cx, &l.pat, inner).map(|e| vec![e]),
                    _ => bound_name(inner).and_then(|n| {
                        let text = super::text::block_range(&i.then_branch, cx.idx)
                            .map(|(s, e)| &cx.src[s..e])?;
                        strip_roots(cx, text, &n, |v| {
                            syn::visit::Visit::visit_block(v, &i.then_branch)
                        })
                    }),
                },
                _ => None,
            }
        }
        (Ask::Elicit { .. }, Some(Node::Expr(syn::Expr::Match(m)))) if same(&*m.expr, aw) => {
            arms::rewrite_keeping(m, cx.src, cx.idx).ok()
        }
        (Ask::Roots, Some(Node::Expr(syn::Expr::Match(m)))) if same(&*m.expr, aw) => {
            roots_arms(cx, m)
        }
        (Ask::Roots, _) => roots_chain(cx, &found, aw),
        _ => None,
    };
    let (s, e, with) = match direct {
        Some(reads) => {
            edits.extend(reads);
            match parent {
                Some(Node::Expr(syn::Expr::Match(m))) => {
                    // Up to the `{`: a scrutinee that spanned lines left the brace on its own.
                    let brace = range_of_brace(m, cx.idx).unwrap_or(aw_e);
                    if cx.src[aw_e..brace].trim().is_empty() {
                        (aw_s, brace, format!("{name} "))
                    } else {
                        (aw_s, aw_e, name.clone())
                    }
                }
                _ => (aw_s, aw_e, name.clone()),
            }
        }
        None => {
            message.push_str("; old result kept");
            let error_read = error_read(cx, &found, aw);
            if old_result_fits(parent) {
                let value = ask.legacy_result(&name, indent_at(cx.src, aw_s), error_read, &cx.rmcp);
                (aw_s, aw_e, value)
            } else {
                let legacy = old_result_let(
                    cx,
                    found.statement(),
                    &name,
                    body,
                    taken,
                    &mut hoisted,
                    |indent| ask.legacy_result(&name, indent, error_read, &cx.rmcp),
                )?;
                match parent {
                    Some(Node::Expr(syn::Expr::Match(m))) => {
                        let brace = range_of_brace(m, cx.idx).unwrap_or(aw_e);
                        if cx.src[aw_e..brace].trim().is_empty() {
                            (aw_s, brace, format!("{legacy} "))
                        } else {
                            (aw_s, aw_e, legacy)
                        }
                    }
                    _ => (aw_s, aw_e, legacy),
                }
            }
        }
    };
    edits.push(cx.idx.edit(s, e, with));
    edits.push(hoist(cx, found.statement(), &hoisted)?);
    Ok(kept(
        edits,
        message,
        &ask,
        receiver,
        receiver_uses,
        alias,
        consumed,
    ))
}

fn kept(
    edits: Vec<Edit>,
    message: String,
    ask: &Ask,
    receiver: String,
    receiver_uses: usize,
    alias: Option<String>,
    consumed: Vec<usize>,
) -> Kept {
    Kept {
        plan: CallPlan {
            edits,
            message,
            imports: ask.imports(),
            receiver,
            receiver_uses,
            alias,
            // A plain helper keeps its own error handling, not the old `Result`.
            at: 0,
            keeps_error: false,
            stmt_end: 0,
        },
        consumed,
    }
}

/// `P` of an `Ok(P)` pattern.
fn ok_inner(p: &syn::Pat) -> Option<&syn::Pat> {
    match p {
        syn::Pat::TupleStruct(ts) if text::path_end(&ts.path) == "Ok" && ts.elems.len() == 1 => {
            Some(&ts.elems[0])
        }
        _ => None,
    }
}

/// The name a plain `x` / `mut x` pattern binds.
fn bound_name(p: &syn::Pat) -> Option<String> {
    match p {
        syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
            Some(pi.ident.to_string())
        }
        _ => None,
    }
}

/// `Ok(Some(P))` over the old elicitation result: `inner` (the `Some(P)`) becomes
/// `Elicitation::Accept(P)`.
fn accept_edit(cx: &Cx, whole: &syn::Pat, inner: &syn::Pat) -> Option<Edit> {
    let p = arms::accept_pattern(whole, cx.src, cx.idx)?;
    let (s, e) = range_of(inner, cx.idx)?;
    Some(cx.idx.edit(s, e, format!("Elicitation::Accept({p})")))
}

/// `let x = CALL.await.ok()?;`: the `let`, the offset of its `?` and where the `?` ends.
fn ok_question_let<'a>(
    cx: &Cx,
    found: &locate::Site<'a>,
    aw: &'a syn::Expr,
) -> Option<(&'a syn::Local, usize, usize)> {
    let (Some(Node::Expr(ok @ syn::Expr::MethodCall(call))), Some(Node::Expr(t))) =
        (found.parent(2), found.parent(3))
    else {
        return None;
    };
    let syn::Expr::Try(question) = t else {
        return None;
    };
    let Some(Node::Local(local)) = found.parent(4) else {
        return None;
    };
    let whole = local
        .init
        .as_ref()
        .is_some_and(|i| i.diverge.is_none() && same(&*i.expr, t));
    let plain = bound_name(&local.pat).is_some();
    if call.method != "ok" || !call.args.is_empty() || !same(&*call.receiver, aw) {
        return None;
    }
    if !same(&*question.expr, ok) || !whole || !plain {
        return None;
    }
    let (start, end) = range_of(&question.question_token, cx.idx)?;
    Some((local, start, end))
}

/// The statements after the one of `found` in its block read `name` only as `name.roots`: the
/// edits that drop each `.roots`.
fn roots_reads_after(cx: &Cx, found: &locate::Site, name: &str) -> Option<Vec<Edit>> {
    let block = found.block();
    let pos = block
        .stmts
        .iter()
        .position(|s| same(s, found.statement()))?;
    let (_, from) = range_of(found.statement(), cx.idx)?;
    let close = block.brace_token.span.close().start();
    let to = cx.idx.offset(close.line, close.column);
    let later = &block.stmts[pos + 1..];
    strip_roots(cx, cx.src.get(from..to)?, name, |v| {
        for s in later {
            syn::visit::Visit::visit_stmt(v, s);
        }
    })
}

/// Every use of `name` in `scope` (its text, and a walk over its syntax) is `name.roots`: the
/// edits that drop each `.roots`, so the code reads the ask's roots list. `None` otherwise.
fn strip_roots<'a>(
    cx: &Cx,
    scope: &str,
    name: &str,
    walk: impl FnOnce(&mut RootsReads<'a>),
) -> Option<Vec<Edit>> {
    let mut v = RootsReads {
        name: name.to_string(),
        hits: Vec::new(),
    };
    walk(&mut v);
    if text::count_in(scope, name) != v.hits.len() {
        return None;
    }
    v.hits
        .iter()
        .map(|f| {
            let (_, base_end) = range_of(&f.base, cx.idx)?;
            let (_, end) = range_of(*f, cx.idx)?;
            Some(cx.idx.edit(base_end, end, String::new()))
        })
        .collect()
}

struct RootsReads<'a> {
    name: String,
    hits: Vec<&'a syn::ExprField>,
}

impl<'a> syn::visit::Visit<'a> for RootsReads<'a> {
    fn visit_expr_field(&mut self, f: &'a syn::ExprField) {
        let named = matches!(&*f.base, syn::Expr::Path(p) if p.path.is_ident(&self.name));
        if named && matches!(&f.member, syn::Member::Named(m) if m == "roots") {
            self.hits.push(f);
            return;
        }
        syn::visit::visit_expr_field(self, f);
    }
    fn visit_item(&mut self, _: &'a syn::Item) {}
}

/// The arms of `match CALL.await { Ok(r) => .., Err(_) => .. }` over roots read only as
/// `r.roots`: the edits that drop each `.roots`.
fn roots_arms(cx: &Cx, m: &syn::ExprMatch) -> Option<Vec<Edit>> {
    let mut edits = Vec::new();
    for arm in &m.arms {
        match &arm.pat {
            syn::Pat::Wild(_) => {}
            syn::Pat::TupleStruct(ts) if ts.elems.len() == 1 => {
                let inner = &ts.elems[0];
                match (text::path_end(&ts.path).as_str(), inner) {
                    (_, syn::Pat::Wild(_)) => {}
                    // The runtime's `MrtrError` shows as the old error did; read otherwise,
                    // the old type matters.
                    ("Err", syn::Pat::Ident(e))
                        if !arms::error_inspected(arm, &e.ident.to_string()) => {}
                    ("Ok", _) => {
                        let name = bound_name(inner)?;
                        let (_, from) = range_of(&arm.pat, cx.idx)?;
                        let (_, to) = text::expr_range(&arm.body, cx.idx)?;
                        edits.extend(strip_roots(cx, cx.src.get(from..to)?, &name, |v| {
                            if let Some((_, g)) = &arm.guard {
                                syn::visit::Visit::visit_expr(v, g);
                            }
                            syn::visit::Visit::visit_expr(v, &arm.body);
                        })?);
                    }
                    _ => return None,
                }
            }
            _ => return None,
        }
    }
    Some(edits)
}

/// `CALL.await.map(|r| r.roots.len())`, `.ok().map(..)`, `.unwrap_or_default().roots`,
/// `.is_ok()`: the roots are read only as `.roots`; the edits that drop each.
fn roots_chain<'a>(cx: &Cx, found: &locate::Site<'a>, aw: &'a syn::Expr) -> Option<Vec<Edit>> {
    let mut cur = aw;
    let mut k = 2;
    loop {
        let Some(Node::Expr(p @ syn::Expr::MethodCall(mc))) = found.parent(k) else {
            return None;
        };
        if !same(&*mc.receiver, cur) {
            return None;
        }
        match mc.method.to_string().as_str() {
            "ok" if mc.args.is_empty() => {
                cur = p;
                k += 1;
            }
            "is_ok" | "is_err" | "is_some" | "is_none" => return Some(Vec::new()),
            "map" | "and_then" | "is_ok_and" | "is_some_and" | "map_or" | "map_or_else" => {
                let syn::Expr::Closure(c) = mc.args.last()? else {
                    return None;
                };
                let [param] = c.inputs.iter().collect::<Vec<_>>()[..] else {
                    return None;
                };
                let name = bound_name(param)?;
                let (s, e) = text::expr_range(&c.body, cx.idx)?;
                return strip_roots(cx, cx.src.get(s..e)?, &name, |v| {
                    syn::visit::Visit::visit_expr(v, &c.body)
                });
            }
            "unwrap_or_default" | "unwrap" | "expect" => {
                let Some(Node::Expr(syn::Expr::Field(f))) = found.parent(k + 1) else {
                    return None;
                };
                let roots = matches!(&f.member, syn::Member::Named(m) if m == "roots");
                if !same(&*f.base, p) || !roots {
                    return None;
                }
                let (_, base_end) = range_of(p, cx.idx)?;
                let (_, end) = range_of(f, cx.idx)?;
                return Some(vec![cx.idx.edit(base_end, end, String::new())]);
            }
            _ => return None,
        }
    }
}

/// Whether the code reads the error of the old result (so an expression of the old type must
/// carry the old error type too): not when it only tests for `Ok`, or discards the error.
fn error_read(cx: &Cx, found: &locate::Site, aw: &syn::Expr) -> bool {
    match found.parent(2) {
        Some(Node::Local(l)) if ok_inner(&l.pat).is_some() => false,
        Some(Node::Expr(syn::Expr::Let(l))) if ok_inner(&l.pat).is_some() => false,
        Some(Node::Expr(syn::Expr::Match(m))) if same(&*m.expr, aw) => {
            !m.arms.iter().all(|arm| match &arm.pat {
                syn::Pat::Wild(_) => true,
                syn::Pat::TupleStruct(ts) if ts.elems.len() == 1 => {
                    match (text::path_end(&ts.path).as_str(), &ts.elems[0]) {
                        ("Ok", _) | ("Err", syn::Pat::Wild(_)) => true,
                        ("Err", syn::Pat::Ident(pi)) => {
                            text::expr_uses_of(&arm.body, cx.idx, &pi.ident.to_string()) == 0
                        }
                        _ => false,
                    }
                }
                _ => false,
            })
        }
        _ => {
            let mut cur = aw;
            for k in 2..6 {
                let Some(Node::Expr(p @ syn::Expr::MethodCall(mc))) = found.parent(k) else {
                    return true;
                };
                if !same(&*mc.receiver, cur) {
                    return true;
                }
                match mc.method.to_string().as_str() {
                    "map" | "and_then" => cur = p,
                    "ok" | "is_ok" | "is_err" | "is_ok_and" | "unwrap_or" | "unwrap_or_default"
                    | "unwrap" | "expect" => return false,
                    _ => return true,
                }
            }
            true
        }
    }
}
