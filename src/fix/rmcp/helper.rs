//! A legacy request inside a helper function or method (`confirm(&ctx.peer, ..)`) becomes an ask
//! of an asking helper: the helper gets `#[mrtr_helper]` and takes `mrtr: &Mrtr` where it took
//! the peer (or the request context), and every caller in the file passes `&mrtr` instead and
//! becomes a `#[mrtr_handler]` (see `docs/mrtr-handler.md`, "Asking helpers").
//!
//! The helper and all its callers change together, or nothing does: a caller left on the old
//! signature would not build. So the helper must be private to this file (its callers are all
//! here), every call must hand over the caller's own peer and be awaited where an ask may stand
//! (or be hoisted there, where that does not change what runs first), and every caller must be
//! a request handler the rewrite can take.
//!
//! A helper that returns a plain value (`Vec<PathBuf>`, `Option<String>`, `bool`) handled its
//! requests' errors itself: its asks keep that handling (`keep`), it returns `Result<T, E>`
//! with the error type of its callers (`plain`), and each call of it gets the `?`. Its client
//! capability checks through the peer become the runtime's (`caps`).

use super::call::{plan_call, CallPlan};
use super::handler::{self, FnSite, Kind};
use super::plain::{self, Returns};
use super::text::{self, indent_at, range_of, starts_line};
use super::{caps, keep, locate};
use super::{Cx, HandlerPlan};
use crate::finding::{Edit, Finding};

/// What an asking helper called by a tool that returned a `String` returns: its value, or rmcp's
/// error (an `MrtrError` converts into it), the error the tool then returns with its text as a
/// `CallToolResult` (what `#[mrtr_handler]` answers with).
const PLAIN_TOOL_RESULT: &str = "Result<{T}, rmcp::ErrorData>";

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
    check_head(cx, site).map_err(fail)?;
    check_unique(cx, fns, site).map_err(fail)?;
    let returns = plain::returns(site.sig);
    if let Returns::Result = returns {
        super::error_type::check(site.sig, cx.items).map_err(fail)?;
    }

    // The requests inside the helper, rewritten as in a handler (or, when the helper returned a
    // plain value, keeping their local error handling).
    let body = text::Uses::in_block(site.block, cx.idx);
    let mut taken = Vec::new();
    let mut calls: Vec<CallPlan> = Vec::new();
    let mut consumed = Vec::new();
    for &m in members {
        let f = findings[m];
        let call = match &returns {
            Returns::Result => plan_call(cx, site, f, &body, &mut taken),
            Returns::Plain(p) => {
                keep::plan_keeping(cx, site, f, &body, &mut taken, p.option).map(|k| {
                    consumed.extend(k.consumed);
                    k.plan
                })
            }
        };
        calls.push(call.map_err(|why| (m, why))?);
    }
    let receiver = calls[0].receiver.clone();
    if calls.iter().any(|c| c.receiver != receiver) {
        return Err(fail(format!(
            "`{name}` reaches the peer through more than one parameter"
        )));
    }
    let (alias_edits, freed) = super::call::unused_aliases(cx, site, &calls, &body);
    let checks = caps::rewrite(cx, site.block, &receiver, "mrtr");
    let rewritten: usize = calls.iter().map(|c| c.receiver_uses).sum::<usize>()
        + freed.iter().map(|(_, k)| k).sum::<usize>()
        + checks.uses;
    // A peer used for more (notifications, handed to a function that does not ask) stays, and
    // the `Mrtr` comes next to it.
    let keep = body.count(&receiver) != rewritten;
    let mut edits = Vec::new();
    let mut imports: Vec<&'static str> = vec!["mrtr_helper", "Mrtr"];
    let position = match typed_param(site, &receiver) {
        Some((position, param)) => {
            let (ps, pe) =
                text::param_range(param, cx.idx).ok_or_else(|| fail("no position".into()))?;
            edits.push(if keep {
                cx.idx.edit(pe, pe, ", mrtr: &Mrtr".into())
            } else {
                cx.idx.edit(ps, pe, "mrtr: &Mrtr".into())
            });
            Some(position)
        }
        // The context read from a task-local: the `Mrtr` comes as a new last parameter, and the
        // `let` that read the context goes when the asks were its only use.
        None => {
            let Some(read) = super::call::context_from_getter(site.block, &receiver) else {
                return Err(fail(format!("`{receiver}` is not a parameter of `{name}`")));
            };
            edits.push(append_param(cx, site.sig, "mrtr: &Mrtr").map_err(fail)?);
            if body.count(&receiver) == rewritten + 1 {
                let (s, e) = range_of(read, cx.idx).ok_or_else(|| fail("no position".into()))?;
                let (s, e) = text::whole_lines(cx.src, s, e);
                edits.push(cx.idx.edit(s, e, String::new()));
            }
            None
        }
    };
    let keep = keep && position.is_some();
    edits.push(attribute(cx, site, "mrtr_helper").map_err(fail)?);
    edits.extend(alias_edits);
    for c in &calls {
        edits.extend(c.edits.iter().cloned());
        imports.extend(c.imports.iter().copied());
    }
    edits.extend(checks.edits);
    let plain_value = matches!(returns, Returns::Plain(_));
    if let Returns::Plain(p) = &returns {
        let template = result_template(cx, fns, fi, &mut vec![fi]).map_err(fail)?;
        edits.extend(plain::convert(cx, site, p, &template, &[], &consumed).map_err(fail)?);
    }

    // Every call of the helper in the file, each caller made a handler (or, when it is a helper
    // itself, an asking helper, up to the handlers).
    let mut visited = vec![fi];
    let target = Target {
        index: fi,
        position,
        plain: plain_value,
        keep,
    };
    let count = rewrite_callers(
        cx,
        fns,
        &target,
        asking,
        &mut visited,
        &mut edits,
        &mut imports,
    )
    .map_err(fail)?;
    let edits = text::merge(cx.idx, edits).map_err(fail)?;
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
            let kind = if plain_value {
                "returns `Result`"
            } else {
                "`#[mrtr_helper]`"
            };
            format!("{head} in asking helper `{name}` ({kind}); {callers} `&mrtr`{rest}")
        })
        .collect();
    // The server types: of the handlers reached (or, as before, of the first function met
    // that has one, when no handler does).
    let mut self_tys: Vec<String> = Vec::new();
    for &ci in &visited {
        if matches!(fns[ci].kind, Kind::Tool | Kind::HandWritten(_)) {
            if let Some(t) = &fns[ci].self_ty {
                if !self_tys.contains(t) {
                    self_tys.push(t.clone());
                }
            }
        }
    }
    if self_tys.is_empty() {
        self_tys.extend(visited.iter().find_map(|&ci| fns[ci].self_ty.clone()));
    }
    Ok(HandlerPlan {
        edits,
        messages,
        imports,
        self_tys,
        needs_scope: false,
        own_edits: Vec::new(),
    })
}

/// The helper whose calls are rewritten: which function, where the peer goes among its
/// parameters, whether it returned a plain value (each call then gets a `?`), and whether it
/// keeps the peer (each call then passes the `Mrtr` after it instead of in its place).
struct Target {
    index: usize,
    /// Among the arguments: `None` when the `Mrtr` is a new last one.
    position: Option<usize>,
    plain: bool,
    keep: bool,
}

/// The result type the callers of `fns[target]` (a helper returning a plain value) give it, with
/// `{T}` where its value type goes: the return type of each caller that returns a `Result`
/// (`Result<CallToolResult, McpError>` gives `Result<{T}, McpError>`, `McpResult<Json<T>>` gives
/// `McpResult<{T}>`), through callers that return plain values too up to those. They must agree.
fn result_template(
    cx: &Cx,
    fns: &[FnSite],
    target: usize,
    visiting: &mut Vec<usize>,
) -> Result<String, String> {
    let name = fns[target].sig.ident.to_string();
    let mut callers: Vec<usize> = call_sites(fns, &fns[target])
        .iter()
        .map(|s| s.caller)
        .collect();
    callers.dedup();
    let mut found: Option<(String, String)> = None;
    for ci in callers {
        let caller = &fns[ci];
        let caller_name = caller.sig.ident.to_string();
        let template = match (&caller.kind, plain::returns(caller.sig)) {
            // A tool returning a plain value (`-> String`) returns it in a `Result` with rmcp's
            // error after the fix, as `#[mrtr_handler]` needs.
            (Kind::Tool, Returns::Plain(p)) if p.is_string() => {
                text::rmcp_paths(PLAIN_TOOL_RESULT, &cx.rmcp)
            }
            (Kind::Tool | Kind::HandWritten(_), _) | (Kind::Other, Returns::Result) => {
                template_of(cx, caller)?
            }
            (Kind::Other, Returns::Plain(_)) => {
                if visiting.contains(&ci) {
                    return Err(format!("`{caller_name}` and `{name}` call each other"));
                }
                visiting.push(ci);
                result_template(cx, fns, ci, visiting)?
            }
            (Kind::Prompt, _) => {
                return Err(format!(
                    "`{caller_name}` calls `{name}` and is not a request handler (a `#[tool]` or \
a hand-written `call_tool`)"
                ))
            }
        };
        match &found {
            None => found = Some((template, caller_name)),
            Some((other, other_name)) => {
                let squash = |t: &str| t.split_whitespace().collect::<String>();
                if squash(other) != squash(&template) {
                    return Err(format!(
                        "`{other_name}` and `{caller_name}` call `{name}` with different result \
types (`{}` and `{}`), so it cannot return the one error type both take",
                        other.replace("{T}", "_"),
                        template.replace("{T}", "_")
                    ));
                }
            }
        }
    }
    found
        .map(|(t, _)| t)
        .ok_or_else(|| format!("`{name}` is called from no request handler of this file"))
}

/// The return type of `site` with `{T}` in place of its first type argument.
fn template_of(cx: &Cx, site: &FnSite) -> Result<String, String> {
    let name = site.sig.ident.to_string();
    let unwritten = || format!("the error type of `{name}` is not written in its return type");
    let syn::ReturnType::Type(_, ty) = &site.sig.output else {
        return Err(unwritten());
    };
    let syn::Type::Path(p) = &**ty else {
        return Err(unwritten());
    };
    let syn::PathArguments::AngleBracketed(args) =
        &p.path.segments.last().ok_or_else(unwritten)?.arguments
    else {
        return Err(unwritten());
    };
    let value = args
        .args
        .iter()
        .find_map(|a| match a {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        })
        .ok_or_else(unwritten)?;
    super::error_type::check(site.sig, cx.items)?;
    let (ts, te) = range_of(&**ty, cx.idx).ok_or("a type without a position")?;
    let (vs, ve) = range_of(value, cx.idx).ok_or("a type without a position")?;
    Ok(format!("{}{{T}}{}", &cx.src[ts..vs], &cx.src[ve..te]))
}

/// Rewrites every call of the target in the file to pass `&mrtr` (the argument at its
/// position), makes each calling handler a `#[mrtr_handler]` and each calling helper an asking
/// helper in turn. Returns how many functions call the target.
fn rewrite_callers(
    cx: &Cx,
    fns: &[FnSite],
    target: &Target,
    asking: &[usize],
    visited: &mut Vec<usize>,
    edits: &mut Vec<Edit>,
    imports: &mut Vec<&'static str>,
) -> Result<usize, String> {
    let name = fns[target.index].sig.ident.to_string();
    let sites = call_sites(fns, &fns[target.index]);
    if sites.is_empty() {
        return Err(format!(
            "`{name}` is called from no request handler of this file"
        ));
    }
    // A use the rewrite would not reach (a call on a clone of `self` in a spawned task, the fn
    // handed on as a value) would keep the old signature and not build: the deferred form,
    // which keeps the signature, takes it instead.
    let uses = uses_of(cx.items, &fns[target.index]);
    if uses > sites.len() {
        return Err(format!(
            "`{name}` is also used where the rewrite does not reach ({} of its {uses} uses \
are calls on `self` from a function it can rewrite)",
            sites.len()
        ));
    }
    if let Some(why) = sites
        .iter()
        .find_map(|s| moved_argument(&fns[target.index], &fns[s.caller], s, target.position))
    {
        let caller = fns[sites[0].caller].sig.ident.to_string();
        return Err(format!("`{caller}` {why}"));
    }
    let mut callers: Vec<usize> = sites.iter().map(|s| s.caller).collect();
    callers.dedup();
    for &ci in &callers {
        let caller = &fns[ci];
        let caller_name = caller.sig.ident.to_string();
        let but = |why: String| format!("`{caller_name}` calls `{name}`, but {why}");
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
        // A caller that already takes the `Mrtr` (an earlier pass made it a handler or an asking
        // helper) hands it over; nothing above it changes.
        if let Some(handle) = mrtr_handle(caller) {
            let calls = rewrite_calls_of(cx, caller, ci, &sites, target, &name, &handle, &[])
                .map_err(but)?;
            edits.extend(calls.into_iter().flat_map(|c| c.edits));
            continue;
        }
        let returns = if handler {
            match plain::returns(caller.sig) {
                Returns::Plain(p) if caller.kind == Kind::Tool && p.is_string() => {
                    Returns::Plain(p)
                }
                _ => Returns::Result,
            }
        } else {
            check_head(cx, caller).map_err(but)?;
            check_unique(cx, fns, caller).map_err(but)?;
            plain::returns(caller.sig)
        };
        let values: Vec<&syn::Expr> = match &returns {
            Returns::Result => {
                if !handler {
                    super::error_type::check(caller.sig, cx.items).map_err(but)?;
                }
                Vec::new()
            }
            // A caller returning `()` gets `Ok(())` after its last statement: a call there
            // gets the `?` like any other.
            Returns::Plain(p) if p.unit() => Vec::new(),
            Returns::Plain(_) => plain::values(caller.block)
                .map_err(|why| but(format!("`{caller_name}`: {why}")))?
                .into_iter()
                .filter_map(|v| match v {
                    plain::Value::Expr(e) => Some(e),
                    plain::Value::Macro(_) => None,
                })
                .collect(),
        };
        let caller_body = text::Uses::in_block(caller.block, cx.idx);
        let mut replaced: Vec<(String, usize)> = Vec::new();
        let mut unwrapped: Vec<&syn::Expr> = Vec::new();
        let handle = if handler { "&mrtr" } else { "mrtr" };
        for call in
            rewrite_calls_of(cx, caller, ci, &sites, target, &name, handle, &values).map_err(but)?
        {
            edits.extend(call.edits);
            unwrapped.extend(call.unwrapped);
            // A kept peer is still handed over: the call does not take a use of it away.
            let took = usize::from(!target.keep);
            if let Some(via) = call.via {
                match replaced.iter_mut().find(|(n, _)| *n == via) {
                    Some((_, k)) => *k += took,
                    None => replaced.push((via, took)),
                }
            }
        }
        // A context the calls (and capability checks) were its only uses of becomes the `Mrtr`
        // parameter.
        let replace = replaced.iter().find_map(|(param, k)| {
            let checks = caps::rewrite(cx, caller.block, param, "mrtr");
            (caller_body.count(param) == *k + checks.uses).then(|| (param.clone(), checks))
        });
        if handler {
            let param = replace.as_ref().map(|(p, _)| p.as_str());
            let plain_tool = matches!(returns, Returns::Plain(_));
            let ok = plain_tool.then_some("CallToolResult");
            let (caller_edits, names) =
                handler::edits_returning(caller, cx, param, ok).map_err(but)?;
            edits.extend(caller_edits);
            imports.extend(names);
            // The checks through the context that goes: on its `mrtr: Mrtr` now.
            if let Some((_, checks)) = replace {
                edits.extend(checks.edits);
            }
            if let Returns::Plain(p) = &returns {
                edits.extend(
                    plain::convert_wrapped(
                        cx,
                        caller,
                        p,
                        &text::rmcp_paths(
                            "Result<rmcp::model::CallToolResult, rmcp::ErrorData>",
                            &cx.rmcp,
                        ),
                        &unwrapped,
                        &[],
                        (
                            &text::rmcp_paths(
                                "Ok(rmcp::model::CallToolResult::success(vec![rmcp::model::ContentBlock::text(",
                                &cx.rmcp,
                            ),
                            ")]))",
                        ),
                    )
                    .map_err(but)?,
                );
            }
            continue;
        }
        // A helper calling the helper: an asking helper too, its callers in turn. It takes the
        // `Mrtr` in place of what it hands over, or next to it when it uses that for more, or
        // as a new last parameter when it hands nothing over (the target had none).
        let (caller_position, caller_keep) = match replaced.as_slice() {
            [] => {
                edits.push(append_param(cx, caller.sig, "mrtr: &Mrtr")?);
                (None, false)
            }
            [(param, _)] => {
                let (caller_position, typed) = typed_param(caller, param)
                    .ok_or_else(|| format!("`{param}` is not a parameter of `{caller_name}`"))?;
                let (ps, pe) =
                    text::param_range(typed, cx.idx).ok_or("a parameter without a position")?;
                let caller_keep = replace.is_none();
                let checks = match replace {
                    Some((_, checks)) => checks,
                    None => caps::rewrite(cx, caller.block, param, "mrtr"),
                };
                edits.push(if caller_keep {
                    cx.idx.edit(pe, pe, ", mrtr: &Mrtr".into())
                } else {
                    cx.idx.edit(ps, pe, "mrtr: &Mrtr".into())
                });
                edits.extend(checks.edits);
                (Some(caller_position), caller_keep)
            }
            _ => {
                return Err(format!(
                    "`{caller_name}` hands more than one peer or context to `{name}`"
                ))
            }
        };
        edits.push(attribute(cx, caller, "mrtr_helper")?);
        if let Returns::Plain(p) = &returns {
            let template = result_template(cx, fns, ci, &mut vec![ci])?;
            edits.extend(plain::convert(cx, caller, p, &template, &unwrapped, &[])?);
        }
        let next = Target {
            index: ci,
            position: caller_position,
            plain: matches!(returns, Returns::Plain(_)),
            keep: caller_keep,
        };
        rewrite_callers(cx, fns, &next, asking, visited, edits, imports)?;
    }
    Ok(callers.len())
}

/// `text` as a new last parameter of `sig`: after a trailing comma on its own line as the
/// parameters above it are, else after `, `.
fn append_param(cx: &Cx, sig: &syn::Signature, text: &str) -> Result<Edit, String> {
    let close = sig.paren_token.span.close().start();
    let at = cx.idx.offset(close.line, close.column);
    let (at, text) = appended(
        cx,
        at,
        sig.inputs.is_empty(),
        sig.inputs.trailing_punct(),
        text,
    );
    Ok(cx.idx.edit(at, at, text))
}

/// The splice that adds `handle` as a new last argument of the call at `site`.
fn appended_arg(cx: &Cx, site: &CallSite, handle: &str) -> Result<(usize, usize, String), String> {
    let paren = match site.call {
        syn::Expr::Call(c) => c.paren_token,
        syn::Expr::MethodCall(mc) => mc.paren_token,
        _ => return Err("a call without arguments in parentheses".into()),
    };
    let close = paren.span.close().start();
    let at = cx.idx.offset(close.line, close.column);
    let (at, text) = appended(
        cx,
        at,
        site.args.is_empty(),
        site.args.trailing_punct(),
        handle,
    );
    Ok((at, at, text))
}

/// Where and what to insert to add `item` to the list closed by the `)` at `at` (`empty`,
/// ending in a comma or not).
fn appended(cx: &Cx, at: usize, empty: bool, trailing: bool, item: &str) -> (usize, String) {
    if empty {
        return (at, item.to_string());
    }
    // `(\n    a,\n    b,\n)`: a line of its own, at the indentation of the items.
    let line_start = cx.src[..at].rfind('\n').map_or(0, |i| i + 1);
    if trailing && cx.src[line_start..at].trim().is_empty() {
        let before = cx.src[..line_start.saturating_sub(1)]
            .rfind('\n')
            .map_or(0, |i| i + 1);
        return (
            line_start,
            format!("{}{item},\n", indent_at(cx.src, before)),
        );
    }
    (
        at,
        if trailing {
            format!(" {item}")
        } else {
            format!(", {item}")
        },
    )
}

/// How `site` hands its own `Mrtr` to a helper, if it takes one: `mrtr` for a `&Mrtr`
/// parameter, `&mrtr` for a `Mrtr`.
fn mrtr_handle(site: &FnSite) -> Option<String> {
    site.sig.inputs.iter().find_map(|a| {
        let syn::FnArg::Typed(pt) = a else {
            return None;
        };
        let syn::Pat::Ident(pi) = &*pt.pat else {
            return None;
        };
        let (by_ref, ty) = match &*pt.ty {
            syn::Type::Reference(r) => (true, &*r.elem),
            ty => (false, ty),
        };
        (text::last_ident(ty).as_deref() == Some("Mrtr"))
            .then(|| format!("{}{}", if by_ref { "" } else { "&" }, pi.ident))
    })
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

/// The awaited call at the end of `path`, when it (with its `?`, if any) already stands where
/// the macro takes an ask: a statement, a `let` initializer, a block's tail or the body of a
/// `match` arm, reached from the body through blocks, branches and loops only.
fn stands_as_an_ask<'a>(path: &[locate::Node<'a>]) -> Option<&'a syn::Expr> {
    use locate::Node;
    let n = path.len();
    if n < 3 {
        return None;
    }
    let Node::Expr(aw @ syn::Expr::Await(_)) = path[n - 2] else {
        return None;
    };
    let (top, k) = match path[n - 3] {
        Node::Expr(t @ syn::Expr::Try(tr)) if std::ptr::eq(&*tr.expr, aw) => (t, n - 3),
        _ => (aw, n - 2),
    };
    if k == 0 {
        return None;
    }
    let above = match path[k - 1] {
        Node::Stmt(syn::Stmt::Expr(e, _)) if std::ptr::eq(e, top) => k - 1,
        Node::Local(l) if l.init.as_ref().is_some_and(|i| std::ptr::eq(&*i.expr, top)) => k - 1,
        Node::Arm(a) if std::ptr::eq(&*a.body, top) => k - 1,
        _ => return None,
    };
    locate::check_outer(&path[..=above]).is_ok().then_some(aw)
}

/// An `async fn` private to this file (or, planned across the crate's files, to the crate:
/// every caller is then in the text).
fn check_head(cx: &Cx, site: &FnSite) -> Result<(), String> {
    let name = site.sig.ident.to_string();
    if site.sig.asyncness.is_none() {
        return Err(format!("`{name}` is not an `async fn`"));
    }
    if !cx.across && !matches!(site.vis, syn::Visibility::Inherited) {
        return Err(format!(
            "`{name}` is visible outside this file, so callers elsewhere would need the same \
change"
        ));
    }
    Ok(())
}

/// Across the crate's files, calls are matched by name: a name defined twice (two modules' free
/// functions, two types' methods) could hand the wrong function's callers over.
fn check_unique(cx: &Cx, fns: &[FnSite], site: &FnSite) -> Result<(), String> {
    if !cx.across {
        return Ok(());
    }
    let method = site.sig.receiver().is_some();
    let twins = fns
        .iter()
        .filter(|f| f.sig.ident == site.sig.ident && f.sig.receiver().is_some() == method)
        .count();
    if twins > 1 {
        return Err(format!(
            "the crate defines more than one `{}`, and its calls cannot be told apart",
            site.sig.ident
        ));
    }
    Ok(())
}

/// `#[name]` on its own line above the function (after its doc comments and attributes).
fn attribute(cx: &Cx, site: &FnSite, name: &str) -> Result<Edit, String> {
    let first = text::header_start(site.vis, site.sig, cx.idx);
    let text = if starts_line(cx.src, first) {
        format!("#[{name}]\n{}", indent_at(cx.src, first))
    } else {
        format!("#[{name}] ")
    };
    Ok(cx.idx.edit(first, first, text))
}

/// The calls of `helper` in the file: `helper(..)` / `Self::helper(..)` for a function,
/// `self.helper(..)` for a method.
/// Every use of `helper` by name in `items` (nested modules and impls included): a method's
/// calls on any receiver, a free function's calls, and either's qualified paths (`Self::name`,
/// `module::name`), called or not. A bare name that is not called is a local of the same name
/// (`let first_uri = first_uri(..)`), not the function. The name is all there is to go by, so
/// another type's method of the same name counts too, which can only turn the rewrite down.
fn uses_of(items: &[syn::Item], helper: &FnSite) -> usize {
    struct Count {
        name: String,
        method: bool,
        n: usize,
    }
    impl Count {
        fn names(&self, p: &syn::Path) -> bool {
            p.segments.last().is_some_and(|s| s.ident == self.name)
        }
    }
    impl<'a> syn::visit::Visit<'a> for Count {
        fn visit_expr_method_call(&mut self, mc: &'a syn::ExprMethodCall) {
            if self.method && mc.method == self.name {
                self.n += 1;
            }
            syn::visit::visit_expr_method_call(self, mc);
        }
        fn visit_expr_call(&mut self, c: &'a syn::ExprCall) {
            match &*c.func {
                syn::Expr::Path(p) if self.names(&p.path) => {
                    // `name(..)` of a free function; `Self::name(self, ..)` of either.
                    if !self.method || p.path.segments.len() > 1 {
                        self.n += 1;
                    }
                }
                func => self.visit_expr(func),
            }
            for arg in &c.args {
                self.visit_expr(arg);
            }
        }
        fn visit_expr_path(&mut self, p: &'a syn::ExprPath) {
            if p.path.segments.len() > 1 && self.names(&p.path) {
                self.n += 1;
            }
        }
    }
    let mut count = Count {
        name: helper.sig.ident.to_string(),
        method: helper.sig.receiver().is_some(),
        n: 0,
    };
    for item in items {
        syn::visit::Visit::visit_item(&mut count, item);
    }
    count.n
}

fn call_sites<'a>(fns: &[FnSite<'a>], helper: &FnSite) -> Vec<CallSite<'a>> {
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

/// Why a call of the asking helper `helper` cannot become a step: it moves a local of the
/// caller that is not `Copy` into a parameter taken by value, and the state machine keeps a
/// step's arguments across its ask (the resumed round calls the helper again with them), which
/// a moved value cannot be. `None` when every argument is a reference, a copy, or built in place.
fn moved_argument(
    helper: &FnSite,
    caller: &FnSite,
    site: &CallSite,
    peer_at: Option<usize>,
) -> Option<String> {
    let params: Vec<&syn::Type> = helper
        .sig
        .inputs
        .iter()
        .filter_map(|i| match i {
            syn::FnArg::Typed(t) => Some(&*t.ty),
            syn::FnArg::Receiver(_) => None,
        })
        .collect();
    for (i, arg) in site.args.iter().enumerate() {
        if Some(i) == peer_at {
            continue;
        }
        let syn::Expr::Path(p) = arg else { continue };
        let Some(local) = p.path.get_ident() else {
            continue;
        };
        // Only a `let` of the caller's body is kept across the step; parameters are given
        // again in each round.
        if !let_bound(caller.block, local) {
            continue;
        }
        let Some(ty) = params.get(i) else { continue };
        if !takes_by_value(ty) {
            continue;
        }
        return Some(format!(
            "moves `{local}` into the asking helper `{}`, and the state machine keeps a step's \
arguments across its ask: pass a reference or a clone",
            helper.sig.ident
        ));
    }
    None
}

/// Whether `name` is bound by a `let` in `block` (nested blocks included, closures and items
/// not).
fn let_bound(block: &syn::Block, name: &syn::Ident) -> bool {
    struct Find<'n> {
        name: &'n syn::Ident,
        found: bool,
    }
    impl<'a> syn::visit::Visit<'a> for Find<'_> {
        fn visit_local(&mut self, l: &'a syn::Local) {
            let mut names = Vec::new();
            bindings(&l.pat, &mut names);
            self.found |= names.iter().any(|n| self.name == n);
            syn::visit::visit_local(self, l);
        }
        fn visit_expr_closure(&mut self, _: &'a syn::ExprClosure) {}
        fn visit_item(&mut self, _: &'a syn::Item) {}
    }
    let mut f = Find { name, found: false };
    syn::visit::Visit::visit_block(&mut f, block);
    f.found
}

/// A parameter type that takes ownership of something that is not `Copy` (as far as its name
/// says: references, raw primitives and `Copy`-looking names are not).
fn takes_by_value(ty: &syn::Type) -> bool {
    const COPY: &[&str] = &[
        "bool", "char", "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64",
        "i128", "isize", "f32", "f64",
    ];
    match ty {
        syn::Type::Reference(_) | syn::Type::Ptr(_) => false,
        syn::Type::Path(p) => !p
            .path
            .get_ident()
            .is_some_and(|i| COPY.iter().any(|c| i == c)),
        syn::Type::Paren(p) => takes_by_value(&p.elem),
        _ => true,
    }
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

/// One rewritten call of the target.
struct CallEdits<'a> {
    edits: Vec<Edit>,
    /// The caller's parameter the argument named (none when the `Mrtr` is a new argument).
    via: Option<String>,
    /// The call, when it is a value of a caller returning a plain value and left as it is (the
    /// target returns the same `Result` now): not to be wrapped in `Ok`.
    unwrapped: Option<&'a syn::Expr>,
}

/// [`rewrite_call`] for every call of the target in the caller `fns[ci]`.
#[allow(clippy::too_many_arguments)]
fn rewrite_calls_of<'a>(
    cx: &Cx,
    caller: &FnSite<'a>,
    ci: usize,
    sites: &[CallSite<'a>],
    target: &Target,
    helper: &str,
    handle: &str,
    values: &[&'a syn::Expr],
) -> Result<Vec<CallEdits<'a>>, String> {
    let body = text::Uses::in_block(caller.block, cx.idx);
    let mut taken = Vec::new();
    sites
        .iter()
        .filter(|s| s.caller == ci)
        .map(|s| {
            rewrite_call(
                cx, caller, s, target, helper, handle, values, &body, &mut taken,
            )
        })
        .collect()
}

/// The edits of one call: the peer argument becomes `&mrtr` (and the call of a target that
/// returned a plain value gets the `?`), and a call that is not already its own statement is
/// hoisted into a `let` before its statement, when that does not change what runs first.
#[allow(clippy::too_many_arguments)]
fn rewrite_call<'a>(
    cx: &Cx,
    caller: &FnSite<'a>,
    site: &CallSite<'a>,
    target: &Target,
    helper: &str,
    handle: &str,
    values: &[&'a syn::Expr],
    caller_body: &text::Uses,
    taken: &mut Vec<String>,
) -> Result<CallEdits<'a>, String> {
    // The one splice in the call: the `Mrtr` in place of the peer, after it (kept), or as a new
    // last argument.
    let (via, (as_, ae, arg_text)) = match target.position {
        Some(position) => {
            let arg = site
                .args
                .iter()
                .nth(position)
                .ok_or("it passes fewer arguments than the helper takes")?;
            let via = handed_over(caller, arg).ok_or(
                "the argument is not the caller's own peer or request context (a stored peer or \
another binding)",
            )?;
            let (s, e) = range_of(arg, cx.idx).ok_or("an argument without a position")?;
            let splice = if target.keep {
                (e, e, format!(", {handle}"))
            } else {
                (s, e, handle.to_string())
            };
            (Some(via), splice)
        }
        None => (None, appended_arg(cx, site, handle)?),
    };
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
    let mut edits = vec![cx.idx.edit(as_, ae, arg_text.clone())];
    if let Some(path) = caller.calls().path_to(at.line, at.column + 1) {
        if let Some(aw) = stands_as_an_ask(&path) {
            if !target.plain {
                return Ok(CallEdits {
                    edits,
                    via,
                    unwrapped: None,
                });
            }
            // The caller's value: already the `Result` the caller returns now.
            if values.iter().any(|v| std::ptr::eq(*v, aw)) {
                return Ok(CallEdits {
                    edits,
                    via,
                    unwrapped: Some(aw),
                });
            }
            let (_, end) = range_of(aw, cx.idx).ok_or("an expression without a position")?;
            edits.push(cx.idx.edit(end, end, "?".into()));
            return Ok(CallEdits {
                edits,
                via,
                unwrapped: None,
            });
        }
    }
    let found = locate::find(caller.calls(), at.line, at.column + 1)?;
    let Some(locate::Node::Expr(aw @ syn::Expr::Await(_))) = found.parent(1) else {
        return Err("the call is not awaited where it is made".into());
    };
    locate::check_order(&found.path[found.stmt..], cx.src, cx.idx)?;
    // `if !helper(&ctx.peer).await? { .. }`: the call (with its `?`) is hoisted into its own
    // `let`, and its value read in place. A target that returned a plain value gets the `?`
    // there (a `?` the old code applied to its `Option` stays where it was).
    let (top, k) = match found.parent(2) {
        Some(locate::Node::Expr(t @ syn::Expr::Try(tr)))
            if !target.plain && std::ptr::eq(&*tr.expr, aw) =>
        {
            (t, found.path.len() - 3)
        }
        _ => (aw, found.path.len() - 2),
    };
    let (ws, we) = range_of(top, cx.idx).ok_or("an expression without a position")?;
    let question = if target.plain { "?" } else { "" };
    let call_text = format!(
        "{}{arg_text}{}{question}",
        &cx.src[ws..as_],
        &cx.src[ae..we]
    );
    // `if let Some(r) = helper(..).await { .. }`: `let r = helper(..).await?;`, when `r` names
    // nothing else in the caller.
    let statement_uses = |n: &str| text::uses_of(found.statement(), cx.idx, n);
    let name = if_let_binding(&found.path[..k], top)
        .filter(|n| !taken.contains(n) && caller_body.count(n) == statement_uses(n))
        .unwrap_or_else(|| caller_body.fresh_name(&format!("{helper}_answer"), taken));
    taken.push(name.clone());
    let (ss, _) = range_of(found.statement(), cx.idx).ok_or("a statement without a position")?;
    let hoisted = format!("let {name} = {call_text};");
    let with = if starts_line(cx.src, ss) {
        format!("{hoisted}\n{}", indent_at(cx.src, ss))
    } else {
        format!("{hoisted} ")
    };
    Ok(CallEdits {
        edits: vec![cx.idx.edit(ss, ss, with), cx.idx.edit(ws, we, name)],
        via,
        unwrapped: None,
    })
}

/// The one name bound by the pattern of the `if let` whose scrutinee is `top` (`above` the
/// nodes over it).
fn if_let_binding(above: &[locate::Node], top: &syn::Expr) -> Option<String> {
    let n = above.len();
    let (Some(locate::Node::Expr(syn::Expr::Let(l))), Some(locate::Node::Expr(syn::Expr::If(i)))) =
        (above.get(n.checked_sub(1)?), above.get(n.checked_sub(2)?))
    else {
        return None;
    };
    if !std::ptr::eq(&*l.expr, top) || !matches!(&*i.cond, syn::Expr::Let(c) if std::ptr::eq(c, l))
    {
        return None;
    }
    let mut names = Vec::new();
    bindings(&l.pat, &mut names);
    match names.as_slice() {
        [one] => Some(one.clone()),
        _ => None,
    }
}

fn bindings(p: &syn::Pat, out: &mut Vec<String>) {
    match p {
        syn::Pat::Ident(i) => {
            // `None` and other unit variants read as names in a pattern; they start uppercase.
            if !i.ident.to_string().starts_with(char::is_uppercase) {
                out.push(i.ident.to_string());
            }
            if let Some((_, sub)) = &i.subpat {
                bindings(sub, out);
            }
        }
        syn::Pat::TupleStruct(t) => t.elems.iter().for_each(|e| bindings(e, out)),
        syn::Pat::Tuple(t) => t.elems.iter().for_each(|e| bindings(e, out)),
        syn::Pat::Struct(s) => s.fields.iter().for_each(|f| bindings(&f.pat, out)),
        syn::Pat::Reference(r) => bindings(&r.pat, out),
        syn::Pat::Or(_) => out.push(String::new()),
        syn::Pat::Type(t) => bindings(&t.pat, out),
        _ => {}
    }
}
