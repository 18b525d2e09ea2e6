//! A legacy request inside a helper function or method (`confirm(&ctx.peer, ..)`) becomes an ask
//! of an asking helper: the helper gets `#[mrtr_helper]` and takes `mrtr: &Mrtr` where it took
//! the peer (or the request context), and every caller in the file passes `&mrtr` instead and
//! becomes a `#[mrtr_handler]` (see `docs/mrtr-handler.md`, "Asking helpers").
//!
//! The helper and all its callers change together, or nothing does: a caller left on the old
//! signature would not build. So the helper must be private to this file (its callers are all
//! here), every call must hand over the caller's own peer and be awaited where an ask may stand
//! (or be hoisted there), and every caller must be a request handler the rewrite can take.

use super::call::{plan_call, CallPlan};
use super::handler::{self, FnSite, Kind};
use super::locate;
use super::text::{self, indent_at, range_of, starts_line};
use super::{Cx, HandlerPlan};
use crate::finding::{Edit, Finding};

/// A call of the helper in the file.
struct CallSite<'a> {
    caller: usize,
    call: &'a syn::Expr,
    args: &'a syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>,
}

/// Plans the helper `fns[fi]` and its callers; `Err` names the finding the message goes on and
/// why nothing is rewritten.
pub(super) fn plan(
    cx: &Cx,
    fns: &[FnSite],
    fi: usize,
    findings: &[&Finding],
    members: &[usize],
    asking: &[usize],
) -> Result<HandlerPlan, (usize, String)> {
    let site = &fns[fi];
    let name = site.sig.ident.to_string();
    let first = members[0];
    let fail = |why: String| (first, why);
    check_signature(site).map_err(fail)?;

    // The requests inside the helper, rewritten as in a handler.
    let brace = site.block.brace_token.span;
    let body = text::Uses::in_text(cx.idx.slice(brace.open().end(), brace.close().start()));
    let mut taken = Vec::new();
    let mut calls: Vec<CallPlan> = Vec::new();
    for &m in members {
        calls.push(plan_call(cx, site, findings[m], &body, &mut taken).map_err(|why| (m, why))?);
    }
    let receiver = calls[0].receiver.clone();
    if calls.iter().any(|c| c.receiver != receiver) {
        return Err(fail(format!(
            "`{name}` reaches the peer through more than one parameter"
        )));
    }
    let (alias_edits, freed) = super::call::unused_aliases(cx, site, &calls, &body);
    let rewritten: usize = calls.iter().map(|c| c.receiver_uses).sum::<usize>()
        + freed.iter().map(|(_, k)| k).sum::<usize>();
    if body.count(&receiver) != rewritten {
        return Err(fail(format!(
            "`{name}` uses `{receiver}` for more than its requests, so it cannot take `&Mrtr` \
in its place"
        )));
    }
    let (position, param) = typed_param(site, &receiver)
        .ok_or_else(|| fail(format!("`{receiver}` is not a parameter of `{name}`")))?;

    let mut edits = Vec::new();
    let mut imports: Vec<&'static str> = vec!["mrtr_helper", "Mrtr"];
    let (ps, pe) = range_of(param, cx.idx).ok_or_else(|| fail("no position".into()))?;
    edits.push(cx.idx.edit(ps, pe, "mrtr: &Mrtr".into()));
    edits.push(attribute(cx, site, "mrtr_helper").map_err(fail)?);
    edits.extend(alias_edits);
    for c in &calls {
        edits.extend(c.edits.iter().cloned());
        imports.extend(c.imports.iter().copied());
    }

    // Every call of the helper in the file, each caller made a handler (or, when it is a helper
    // itself, an asking helper, up to the handlers).
    let mut visited = vec![fi];
    let count = rewrite_callers(
        cx,
        fns,
        fi,
        position,
        asking,
        &mut visited,
        &mut edits,
        &mut imports,
    )
    .map_err(fail)?;
    let messages = calls
        .into_iter()
        .map(|c| {
            let message = c.message.replacen(" under `#[mrtr_handler]`", "", 1);
            let (head, rest) = message
                .split_once("; ")
                .map_or((message.as_str(), ""), |(h, r)| (h, r));
            let rest = if rest.is_empty() {
                String::new()
            } else {
                format!("; {rest}")
            };
            let callers = if count == 1 {
                "its caller passes".to_string()
            } else {
                format!("its {count} callers pass")
            };
            format!("{head} in asking helper `{name}` (`#[mrtr_helper]`); {callers} `&mrtr`{rest}")
        })
        .collect();
    let self_ty = visited.iter().find_map(|&ci| fns[ci].self_ty.clone());
    Ok(HandlerPlan {
        edits,
        messages,
        imports,
        self_ty,
    })
}

/// Rewrites every call of `fns[target]` in the file to pass `&mrtr` (the argument at
/// `position`), makes each calling handler a `#[mrtr_handler]` and each calling helper an asking
/// helper in turn. Returns how many functions call the target.
#[allow(clippy::too_many_arguments)]
fn rewrite_callers(
    cx: &Cx,
    fns: &[FnSite],
    target: usize,
    position: usize,
    asking: &[usize],
    visited: &mut Vec<usize>,
    edits: &mut Vec<Edit>,
    imports: &mut Vec<&'static str>,
) -> Result<usize, String> {
    let name = fns[target].sig.ident.to_string();
    let sites = call_sites(fns, &fns[target]);
    if sites.is_empty() {
        return Err(format!(
            "`{name}` is called from no request handler of this file"
        ));
    }
    let mut callers: Vec<usize> = sites.iter().map(|s| s.caller).collect();
    callers.dedup();
    for &ci in &callers {
        let caller = &fns[ci];
        let caller_name = caller.sig.ident.to_string();
        if visited.contains(&ci) {
            return Err(format!("`{caller_name}` and `{name}` call each other"));
        }
        visited.push(ci);
        let handler = matches!(caller.kind, Kind::Tool | Kind::HandWritten(_));
        if !handler && caller.kind != Kind::Other {
            return Err(format!(
                "`{caller_name}` calls `{name}` and is not a request handler (a `#[tool]` or a \
hand-written `call_tool`)"
            ));
        }
        if asking.contains(&ci) {
            return Err(format!(
                "`{caller_name}` calls `{name}` and sends requests of its own; its fix comes \
first, then this one"
            ));
        }
        if !handler {
            check_signature(caller)
                .map_err(|why| format!("`{caller_name}` calls `{name}`, but {why}"))?;
        }
        let caller_brace = caller.block.brace_token.span;
        let caller_body = text::Uses::in_text(
            cx.idx
                .slice(caller_brace.open().end(), caller_brace.close().start()),
        );
        let mut caller_taken = Vec::new();
        let mut replaced: Vec<(String, usize)> = Vec::new();
        let handle = if handler { "&mrtr" } else { "mrtr" };
        for s in sites.iter().filter(|s| s.caller == ci) {
            let (call_edits, via) = rewrite_call(
                cx,
                caller,
                s,
                position,
                &name,
                handle,
                &caller_body,
                &mut caller_taken,
            )
            .map_err(|why| format!("`{caller_name}` calls `{name}`, but {why}"))?;
            edits.extend(call_edits);
            match replaced.iter_mut().find(|(n, _)| *n == via) {
                Some((_, k)) => *k += 1,
                None => replaced.push((via, 1)),
            }
        }
        // A context the calls were its only use of becomes the `Mrtr` parameter.
        let replace = replaced
            .iter()
            .find(|(param, k)| caller_body.count(param) == *k)
            .map(|(param, _)| param.clone());
        if handler {
            let (caller_edits, names) = handler::edits(caller, cx.src, cx.idx, replace.as_deref())
                .map_err(|why| format!("`{caller_name}` calls `{name}`, but {why}"))?;
            edits.extend(caller_edits);
            imports.extend(names);
            continue;
        }
        // A helper calling the helper: an asking helper too, its callers in turn.
        let (Some(param), [_]) = (replace, replaced.as_slice()) else {
            return Err(format!(
                "`{caller_name}` calls `{name}` and uses what it hands over for more, so it \
cannot take `&Mrtr` in its place"
            ));
        };
        let (caller_position, typed) = typed_param(caller, &param)
            .ok_or_else(|| format!("`{param}` is not a parameter of `{caller_name}`"))?;
        let (ps, pe) = range_of(typed, cx.idx).ok_or("a parameter without a position")?;
        edits.push(cx.idx.edit(ps, pe, "mrtr: &Mrtr".into()));
        edits.push(attribute(cx, caller, "mrtr_helper")?);
        rewrite_callers(
            cx,
            fns,
            ci,
            caller_position,
            asking,
            visited,
            edits,
            imports,
        )?;
    }
    Ok(callers.len())
}

/// The position among the typed parameters of `site` of the one named `name`, and it.
fn typed_param<'a>(site: &'a FnSite, name: &str) -> Option<(usize, &'a syn::PatType)> {
    site.sig
        .inputs
        .iter()
        .filter(|a| matches!(a, syn::FnArg::Typed(_)))
        .enumerate()
        .find_map(|(i, a)| match a {
            syn::FnArg::Typed(pt) => match &*pt.pat {
                syn::Pat::Ident(pi) if pi.ident == name => Some((i, pt)),
                _ => None,
            },
            _ => None,
        })
}

/// Whether the awaited call at the end of `path` (with its `?`, if any) already stands where the
/// macro takes an ask: a statement, a `let` initializer, a block's tail or the body of a `match`
/// arm, reached from the body through blocks, branches and loops only.
fn stands_as_an_ask(path: &[locate::Node]) -> bool {
    use locate::Node;
    let n = path.len();
    if n < 3 {
        return false;
    }
    let Node::Expr(aw @ syn::Expr::Await(_)) = path[n - 2] else {
        return false;
    };
    let (top, k) = match path[n - 3] {
        Node::Expr(t @ syn::Expr::Try(tr)) if std::ptr::eq(&*tr.expr, aw) => (t, n - 3),
        _ => (aw, n - 2),
    };
    if k == 0 {
        return false;
    }
    let above = match path[k - 1] {
        Node::Stmt(syn::Stmt::Expr(e, _)) if std::ptr::eq(e, top) => k - 1,
        Node::Local(l) if l.init.as_ref().is_some_and(|i| std::ptr::eq(&*i.expr, top)) => k - 1,
        Node::Arm(a) if std::ptr::eq(&*a.body, top) => k - 1,
        _ => return false,
    };
    locate::check_outer(&path[..=above]).is_ok()
}

/// An `async fn` private to this file, returning a `Result` whose error can hold an
/// `MrtrError`.
fn check_signature(site: &FnSite) -> Result<(), String> {
    let name = site.sig.ident.to_string();
    if site.sig.asyncness.is_none() {
        return Err(format!("`{name}` is not an `async fn`"));
    }
    if !matches!(site.vis, syn::Visibility::Inherited) {
        return Err(format!(
            "`{name}` is visible outside this file, so callers elsewhere would need the same \
change"
        ));
    }
    let syn::ReturnType::Type(_, ty) = &site.sig.output else {
        return Err(format!("`{name}` does not return `Result<T, E>`"));
    };
    let syn::Type::Path(p) = &**ty else {
        return Err(format!("`{name}` does not return `Result<T, E>`"));
    };
    let last = p
        .path
        .segments
        .last()
        .ok_or("a return type without a name")?;
    let args: Vec<&syn::Type> = match &last.arguments {
        syn::PathArguments::AngleBracketed(a) => a
            .args
            .iter()
            .filter_map(|g| match g {
                syn::GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    if last.ident != "Result" && !last.ident.to_string().ends_with("Result") {
        return Err(format!("`{name}` does not return `Result<T, E>`"));
    }
    if let Some(err) = args.get(1) {
        let err_name = text::last_ident(err).unwrap_or_default();
        // `String` works: the runtime converts its errors into their message.
        if matches!(err_name.as_str(), "str" | "bool") || matches!(err, syn::Type::Tuple(_)) {
            return Err(format!(
                "the error type of `{name}` (`{err_name}`) cannot hold the runtime's `MrtrError`"
            ));
        }
    }
    Ok(())
}

/// `#[name]` on its own line above the function (after its doc comments and attributes).
fn attribute(cx: &Cx, site: &FnSite, name: &str) -> Result<Edit, String> {
    let first = match site.vis {
        syn::Visibility::Inherited => range_of(site.sig, cx.idx),
        vis => range_of(vis, cx.idx),
    }
    .ok_or("a function without a position")?
    .0;
    let text = if starts_line(cx.src, first) {
        format!("#[{name}]\n{}", indent_at(cx.src, first))
    } else {
        format!("#[{name}] ")
    };
    Ok(cx.idx.edit(first, first, text))
}

/// The calls of `helper` in the file: `helper(..)` / `Self::helper(..)` for a function,
/// `self.helper(..)` for a method.
fn call_sites<'a>(fns: &'a [FnSite<'a>], helper: &FnSite) -> Vec<CallSite<'a>> {
    struct Find<'a> {
        name: String,
        method: bool,
        hits: Vec<(
            &'a syn::Expr,
            &'a syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>,
        )>,
    }
    impl<'a> syn::visit::Visit<'a> for Find<'a> {
        fn visit_expr(&mut self, e: &'a syn::Expr) {
            match e {
                syn::Expr::Call(c) if !self.method => {
                    if let syn::Expr::Path(p) = &*c.func {
                        if p.path.segments.last().is_some_and(|s| s.ident == self.name) {
                            self.hits.push((e, &c.args));
                        }
                    }
                }
                syn::Expr::MethodCall(mc) if self.method && mc.method == self.name => {
                    if matches!(&*mc.receiver, syn::Expr::Path(p) if p.path.is_ident("self")) {
                        self.hits.push((e, &mc.args));
                    }
                }
                _ => {}
            }
            syn::visit::visit_expr(self, e);
        }
        fn visit_item(&mut self, _: &'a syn::Item) {}
    }
    let mut out = Vec::new();
    for (ci, caller) in fns.iter().enumerate() {
        let mut f = Find {
            name: helper.sig.ident.to_string(),
            method: helper.sig.receiver().is_some(),
            hits: Vec::new(),
        };
        syn::visit::Visit::visit_block(&mut f, caller.block);
        for (call, args) in f.hits {
            out.push(CallSite {
                caller: ci,
                call,
                args,
            });
        }
    }
    out
}

/// The caller's parameter the argument hands over: `&ctx.peer`, `ctx.peer.clone()`, `&peer`,
/// `peer` (a `Peer` parameter) or `&ctx` / `ctx` (a `RequestContext` one).
fn handed_over(caller: &FnSite, arg: &syn::Expr) -> Option<String> {
    let mut e = arg;
    loop {
        e = match e {
            syn::Expr::Reference(r) if r.mutability.is_none() => &r.expr,
            syn::Expr::MethodCall(mc) if mc.method == "clone" && mc.args.is_empty() => &mc.receiver,
            syn::Expr::Paren(p) => &p.expr,
            _ => break,
        };
    }
    let (name, want): (String, &[&str]) = match e {
        syn::Expr::Field(f) => {
            let syn::Member::Named(member) = &f.member else {
                return None;
            };
            let syn::Expr::Path(p) = &*f.base else {
                return None;
            };
            if member != "peer" {
                return None;
            }
            (p.path.get_ident()?.to_string(), &["RequestContext"])
        }
        syn::Expr::Path(p) => (p.path.get_ident()?.to_string(), &["Peer", "RequestContext"]),
        _ => return None,
    };
    let ty = handler::param_type(caller.sig, &name)?;
    want.contains(&ty.as_str()).then_some(name)
}

/// The edits of one call: the peer argument becomes `&mrtr`, and a call that is not already
/// its own statement is hoisted into a `let` before its statement. Returns the caller's
/// parameter the argument named.
#[allow(clippy::too_many_arguments)]
fn rewrite_call(
    cx: &Cx,
    caller: &FnSite,
    site: &CallSite,
    position: usize,
    helper: &str,
    handle: &str,
    caller_body: &text::Uses,
    taken: &mut Vec<String>,
) -> Result<(Vec<Edit>, String), String> {
    let arg = site
        .args
        .iter()
        .nth(position)
        .ok_or("it passes fewer arguments than the helper takes")?;
    let via = handed_over(caller, arg).ok_or(
        "the argument is not the caller's own peer or request context (a stored peer or another \
binding)",
    )?;
    let (as_, ae) = range_of(arg, cx.idx).ok_or("an argument without a position")?;
    let name_span = match site.call {
        syn::Expr::MethodCall(mc) => mc.method.span(),
        syn::Expr::Call(c) => match &*c.func {
            syn::Expr::Path(p) => p
                .path
                .segments
                .last()
                .ok_or("a call without a name")?
                .ident
                .span(),
            _ => return Err("a call without a name".into()),
        },
        _ => return Err("a call without a name".into()),
    };
    let at = name_span.start();
    if let Some(path) = locate::path_to(caller.block, at.line, at.column + 1) {
        if stands_as_an_ask(&path) {
            return Ok((vec![cx.idx.edit(as_, ae, handle.into())], via));
        }
    }
    let found = locate::find(caller.block, at.line, at.column + 1)?;
    let Some(locate::Node::Expr(aw @ syn::Expr::Await(_))) = found.parent(1) else {
        return Err("the call is not awaited where it is made".into());
    };
    locate::check_order(&found.path[found.stmt..], cx.src, cx.idx)?;
    let top = match found.parent(2) {
        Some(locate::Node::Expr(t @ syn::Expr::Try(tr))) if std::ptr::eq(&*tr.expr, aw) => t,
        _ => aw,
    };
    // `if !helper(&ctx.peer).await? { .. }`: the call (with its `?`) is hoisted into its own
    // `let`, and its value read in place.
    let (ws, we) = range_of(top, cx.idx).ok_or("an expression without a position")?;
    let call_text = format!("{}{handle}{}", &cx.src[ws..as_], &cx.src[ae..we]);
    let name = caller_body.fresh_name(&format!("{helper}_answer"), taken);
    taken.push(name.clone());
    let (ss, _) = range_of(found.statement(), cx.idx).ok_or("a statement without a position")?;
    let hoisted = format!("let {name} = {call_text};");
    let with = if starts_line(cx.src, ss) {
        format!("{hoisted}\n{}", indent_at(cx.src, ss))
    } else {
        format!("{hoisted} ")
    };
    Ok((
        vec![cx.idx.edit(ss, ss, with), cx.idx.edit(ws, we, name)],
        via,
    ))
}
