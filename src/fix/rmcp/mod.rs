//! The rmcp rewrite: a legacy `Peer<RoleServer>` request inside a `#[tool]` method or a
//! hand-written `call_tool` / `get_prompt` / `read_resource` becomes an ask of
//! `#[mrtr_handler]` (see `docs/mrtr-handler.md`).
//!
//! One handler is rewritten as a whole: every legacy call in it must have a rewrite, or none is
//! applied (a half-migrated handler would mix both protocols). Each finding of the handler
//! carries the same edits (the applier applies shared edits once) and its own message.
//! The fix is `unsafe`: the exchange on the wire changes (an `InputRequiredResult` and a retried
//! request instead of a mid-request `elicitation/create`, `roots/list`), code before an ask no
//! longer runs again, and values kept across an ask must serialize into the sealed state.
//! Calls the rewrite cannot take get a `display-only` fix that says what to write by hand.

mod arms;
mod asks;
mod handler;
mod locate;
mod text;

use quote::ToTokens;

use crate::finding::{Applicability, Edit, Finding, Fix};
use crate::source::LineIndex as ByteIndex;
use crate::suppress::LineIndex;
use asks::Ask;
use handler::{FnSite, Kind};
use locate::Node;
use text::{indent_at, range_of, starts_line, uses_of};

/// The codes whose rmcp findings this module fixes.
pub const CODES: &[&str] = &["MCP001", "MCP002", "MCP003"];

/// Whether `f` is a finding this module may fix.
pub fn wants(f: &Finding) -> bool {
    CODES.contains(&f.code.as_str()) && f.sdk.as_deref() == Some("rmcp")
}

/// A fix for each finding (same order), or `None` where this module has nothing to offer.
pub fn plan(src: &str, findings: &[&Finding]) -> Vec<Option<Fix>> {
    let mut out: Vec<Option<Fix>> = vec![None; findings.len()];
    if !findings.iter().any(|f| wants(f)) {
        return out;
    }
    let Ok(file) = syn::parse_file(src) else {
        return out;
    };
    let idx = ByteIndex::new(src);
    let lines = LineIndex::new(src);
    let mut fns = Vec::new();
    handler::collect(&file.items, &idx, &mut fns);
    // Findings per innermost enclosing function.
    let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
    for (i, f) in findings.iter().enumerate() {
        if !wants(f) {
            continue;
        }
        let at = idx.offset(f.line, f.column.saturating_sub(1));
        let Some(fi) = fns
            .iter()
            .enumerate()
            .filter(|(_, s)| s.range.0 <= at && at < s.range.1)
            .min_by_key(|(_, s)| s.range.1 - s.range.0)
            .map(|(k, _)| k)
        else {
            continue;
        };
        match groups.iter_mut().find(|(k, _)| *k == fi) {
            Some((_, v)) => v.push(i),
            None => groups.push((fi, vec![i])),
        }
    }
    let cx = Cx {
        src,
        idx: &idx,
        lines: &lines,
    };
    // First every handler's own plan, then the shared import edit for those that can be fixed.
    let mut planned: Vec<(Vec<usize>, Result<HandlerPlan, String>)> = Vec::new();
    for (fi, members) in &groups {
        let site = &fns[*fi];
        match site.kind {
            Kind::Tool | Kind::HandWritten(_) => {
                let plan = plan_handler(&cx, site, findings, members);
                match plan {
                    Ok(p) => planned.push((members.clone(), Ok(p))),
                    Err((failed, why)) => {
                        for &m in members {
                            let message = if m == failed {
                                format!("no automatic rewrite: {why}")
                            } else {
                                let line = findings[failed].line;
                                format!(
                                    "not rewritten: the request at line {line} of the same handler \
cannot be ({why}), and a handler is migrated as a whole"
                                )
                            };
                            out[m] = Some(display_only(message));
                        }
                    }
                }
            }
            Kind::Prompt => {
                for &m in members {
                    out[m] = Some(display_only(
                        "rmcp's `#[prompt]` methods get no `Mrtr` handle from the runtime: move \
this prompt into a hand-written `get_prompt` marked `#[mrtr_handler]` and ask there"
                            .into(),
                    ));
                }
            }
            Kind::Other => {
                let name = site.sig.ident.to_string();
                for &m in members {
                    out[m] = Some(display_only(format!(
                        "the request sits in `{name}`, not in a request handler: ask in each \
handler that calls it (`let answer = mrtr.<ask>(..).await?;` under `#[mrtr_handler]`) and pass \
the answer to `{name}`; the fix does not move it, since `{name}` may be called from several \
handlers and each needs its own ask"
                    )));
                }
            }
        }
    }
    let mut needed: Vec<&str> = Vec::new();
    for (_, p) in &planned {
        if let Ok(p) = p {
            needed.extend(p.imports.iter().copied());
        }
    }
    let import = handler::import_edit(&file, src, &idx, &lines, &needed);
    let server_note = !handler::has_mrtr_server_impl(&file.items);
    // A file that names nothing of the runtime yet: its crate may not depend on it either.
    let dependency_note = !src.contains("mrtr::") && !src.contains("use mrtr");
    for (members, p) in planned {
        let Ok(p) = p else { continue };
        let mut edits = p.edits.clone();
        edits.extend(import.clone());
        edits.sort_by_key(|e| (e.start, e.end));
        if src.contains("\r\n") {
            for e in &mut edits {
                e.replacement = text::crlf(&e.replacement);
            }
        }
        for (k, &m) in members.iter().enumerate() {
            let mut message = p.messages[k].clone();
            if server_note {
                message.push_str(&format!(
                    "; the server type{} must implement `mrtr::MrtrServer` (this file has no such \
impl): `impl MrtrServer for {} {{ fn mrtr_config(&self) -> &MrtrConfig {{ .. }} }}`",
                    p.self_ty
                        .as_deref()
                        .map(|t| format!(" `{t}`"))
                        .unwrap_or_default(),
                    p.self_ty.as_deref().unwrap_or("Server"),
                ));
            }
            if dependency_note {
                message.push_str("; the crate needs the runtime in its `[dependencies]` (`mrtr`) if it does not have it yet");
            }
            out[m] = Some(Fix {
                applicability: Applicability::Unsafe,
                message,
                edits: edits.clone(),
            });
        }
    }
    drop(file);
    out
}

fn display_only(message: String) -> Fix {
    Fix {
        applicability: Applicability::DisplayOnly,
        message,
        edits: Vec::new(),
    }
}

struct Cx<'a> {
    src: &'a str,
    idx: &'a ByteIndex<'a>,
    lines: &'a LineIndex<'a>,
}

struct HandlerPlan {
    edits: Vec<Edit>,
    /// One per member finding, same order.
    messages: Vec<String>,
    imports: Vec<&'static str>,
    self_ty: Option<String>,
}

struct CallPlan {
    edits: Vec<Edit>,
    message: String,
    imports: &'static [&'static str],
    /// The parameter the call reached the peer through.
    receiver: String,
}

/// Plans every call of one handler; `Err` names the first finding that cannot be rewritten.
fn plan_handler(
    cx: &Cx,
    site: &FnSite,
    findings: &[&Finding],
    members: &[usize],
) -> Result<HandlerPlan, (usize, String)> {
    let body_tokens = site.block.to_token_stream();
    let mut taken: Vec<String> = Vec::new();
    let mut calls = Vec::new();
    for &m in members {
        let f = findings[m];
        let call = plan_call(cx, site, f, &body_tokens, &mut taken).map_err(|why| (m, why))?;
        calls.push(call);
    }
    // A context parameter the rewrite leaves unused becomes the `Mrtr` parameter.
    let mut replace = None;
    if site.kind == Kind::Tool {
        for c in &calls {
            let rewritten = calls.iter().filter(|o| o.receiver == c.receiver).count();
            if uses_of(body_tokens.clone(), &c.receiver) == rewritten {
                replace = Some(c.receiver.clone());
                break;
            }
        }
    }
    let (mut edits, mut imports) =
        handler::edits(site, cx.src, cx.idx, cx.lines, replace.as_deref())
            .map_err(|why| (members[0], why))?;
    let mut messages = Vec::new();
    for c in calls {
        edits.extend(c.edits);
        imports.extend(c.imports.iter().copied());
        messages.push(format!(
            "{}; code before the ask runs once, and values it keeps for later travel in the sealed \
`requestState` (they must be `Serialize + Deserialize`)",
            c.message
        ));
    }
    Ok(HandlerPlan {
        edits,
        messages,
        imports,
        self_ty: site.self_ty.clone(),
    })
}

fn same<T>(a: &T, b: &T) -> bool {
    std::ptr::eq(a, b)
}

fn plan_call(
    cx: &Cx,
    site: &FnSite,
    f: &Finding,
    body_tokens: &proc_macro2::TokenStream,
    taken: &mut Vec<String>,
) -> Result<CallPlan, String> {
    let found = locate::find(site.block, f.line, f.column)?;
    let mc = found.call();
    let method = mc.method.to_string();
    let ask = asks::read(mc, cx.src, cx.idx)?;
    let receiver = receiver_param(site, &mc.receiver)?;
    let Some(Node::Expr(aw_expr @ syn::Expr::Await(_))) = found.parent(1) else {
        return Err(format!(
            "the future of `{method}` is not awaited where it is made (stored, joined or raced); \
await it in its own `let` first"
        ));
    };
    let (aw_s, aw_e) = range_of(aw_expr, cx.idx).ok_or("an expression without a position")?;
    let mut message = ask.describe(&method);
    let name = text::fresh_name(body_tokens, &answer_base(found.statement()), taken);
    let ask_text = ask.expr("mrtr");
    let mut edits = Vec::new();

    // `let x = CALL.await;` whose only later use is `match x { .. }` over the elicitation arms.
    if let (Ask::Elicit { .. }, Some((m, pat_name))) = (&ask, let_then_match(&found, aw_expr)) {
        if let Ok(arm_edits) = arms::rewrite(m, cx.src, cx.idx, cx.lines) {
            let _ = pat_name;
            edits.push(cx.lines.edit(aw_s, aw_e, format!("{ask_text}.await?")));
            edits.extend(arm_edits);
            return Ok(CallPlan {
                edits,
                message,
                imports: ask.imports(),
                receiver,
            });
        }
    }
    // `let Ok(Some(x)) = CALL.await else { .. };`: the macro takes `let PAT = ASK.await? else`.
    if let (Ask::Elicit { .. }, Some(Node::Local(l))) = (&ask, found.parent(2)) {
        if l.init
            .as_ref()
            .is_some_and(|i| i.diverge.is_some() && same(&*i.expr, aw_expr))
        {
            if let Some(pat) = arms::accept_pattern(&l.pat, cx.src, cx.idx) {
                let (ps, pe) = range_of(&l.pat, cx.idx).ok_or("a pattern without a position")?;
                edits.push(cx.lines.edit(ps, pe, format!("Elicitation::Accept({pat})")));
                edits.push(cx.lines.edit(aw_s, aw_e, format!("{ask_text}.await?")));
                message.push_str("; a failed round now returns from the handler instead of taking the `else` branch");
                return Ok(CallPlan {
                    edits,
                    message,
                    imports: ask.imports(),
                    receiver,
                });
            }
        }
    }
    let parent = found.parent(2);
    let mut replaced = None;
    if let Ask::Elicit { .. } = ask {
        match parent {
            // `match CALL.await { Ok(Some(x)) => .., Err(UserDeclined) => .. }`
            Some(Node::Expr(syn::Expr::Match(m))) if same(&*m.expr, aw_expr) => {
                if let Ok(arm_edits) = arms::rewrite(m, cx.src, cx.idx, cx.lines) {
                    edits.extend(arm_edits);
                    // Up to the `{`: a scrutinee that spanned lines left the brace on its own.
                    let brace = range_of_brace(m, cx.idx).unwrap_or(aw_e);
                    let end = if cx.src[aw_e..brace].trim().is_empty() {
                        brace
                    } else {
                        aw_e
                    };
                    let sep = if end == brace { " " } else { "" };
                    replaced = Some((aw_s, end, format!("{name}{sep}")));
                }
            }
            // `if let Ok(Some(x)) = CALL.await { .. }`
            Some(Node::Expr(syn::Expr::Let(l))) if same(&*l.expr, aw_expr) => {
                if let Some(pat) = arms::accept_pattern(&l.pat, cx.src, cx.idx) {
                    let (ps, pe) =
                        range_of(&*l.pat, cx.idx).ok_or("a pattern without a position")?;
                    edits.push(cx.lines.edit(ps, pe, format!("Elicitation::Accept({pat})")));
                    replaced = Some((aw_s, aw_e, name.clone()));
                    message.push_str("; a failed round now returns from the handler instead of taking the `else` branch");
                }
            }
            // `CALL.await?` / `CALL.await.map_err(f)?`: the `Option<T>` that follows.
            Some(Node::Expr(syn::Expr::Try(t))) if same(&*t.expr, aw_expr) => {
                let (s, e) = range_of(t, cx.idx).ok_or("an expression without a position")?;
                replaced = Some((s, e, format!("{name}.accepted()")));
            }
            Some(Node::Expr(mm @ syn::Expr::MethodCall(map)))
                if same(&*map.receiver, aw_expr) && map.method == "map_err" =>
            {
                if let Some(Node::Expr(syn::Expr::Try(t))) = found.parent(3) {
                    if same(&*t.expr, mm) {
                        let (s, e) =
                            range_of(t, cx.idx).ok_or("an expression without a position")?;
                        replaced = Some((s, e, format!("{name}.accepted()")));
                        message.push_str(
                            "; a declined or cancelled answer now reads as `None` \
(it was an error through `map_err`)",
                        );
                    }
                }
            }
            _ => {}
        }
    }
    let (s, e, with) = match replaced {
        Some(r) => r,
        None => {
            let value = ask.legacy_value(&name, indent_at(cx.src, aw_s));
            let bare = matches!(
                parent,
                Some(Node::Local(_))
                    | Some(Node::Stmt(_))
                    | Some(Node::Expr(
                        syn::Expr::Call(_)
                            | syn::Expr::Tuple(_)
                            | syn::Expr::Array(_)
                            | syn::Expr::Return(_)
                    ))
            ) || matches!(parent, Some(Node::Expr(syn::Expr::Match(m))) if same(&*m.expr, aw_expr));
            message.push_str(
                "; the answer is turned back into the old result type, so the code \
that reads it is unchanged",
            );
            (aw_s, aw_e, if bare { value } else { format!("({value})") })
        }
    };
    taken.push(name.clone());
    edits.push(cx.lines.edit(s, e, with));
    edits.push(hoist(
        cx,
        found.statement(),
        &format!("let {name} = {ask_text}.await?;"),
    )?);
    Ok(CallPlan {
        edits,
        message,
        imports: ask.imports(),
        receiver,
    })
}

/// `ok_answer` for `let ok = ..`, else `answer`.
fn answer_base(stmt: &syn::Stmt) -> String {
    if let syn::Stmt::Local(l) = stmt {
        let pat = match &l.pat {
            syn::Pat::Type(t) => &*t.pat,
            p => p,
        };
        if let syn::Pat::Ident(i) = pat {
            return format!("{}_answer", i.ident.to_string().trim_start_matches('_'));
        }
    }
    "answer".into()
}

fn range_of_brace(m: &syn::ExprMatch, idx: &ByteIndex) -> Option<usize> {
    let s = m.brace_token.span.open().start();
    Some(idx.offset(s.line, s.column))
}

/// Inserts `text` as a statement of its own right before `stmt`.
fn hoist(cx: &Cx, stmt: &syn::Stmt, text: &str) -> Result<Edit, String> {
    let (s, _) = range_of(stmt, cx.idx).ok_or("a statement without a position")?;
    let with = if starts_line(cx.src, s) {
        format!("{text}\n{}", indent_at(cx.src, s))
    } else {
        format!("{text} ")
    };
    Ok(cx.lines.edit(s, s, with))
}

/// `context.peer` (a `RequestContext` parameter) or `peer` (a `Peer` parameter): the name of
/// the parameter.
fn receiver_param(site: &FnSite, receiver: &syn::Expr) -> Result<String, String> {
    let not_param = || {
        "the peer is not reached through the handler's own `RequestContext` or `Peer` parameter \
(a clone, a stored peer or another binding): rewrite by hand, asking through `mrtr`"
            .to_string()
    };
    let (name, want) = match receiver {
        syn::Expr::Field(fe) => {
            let syn::Member::Named(member) = &fe.member else {
                return Err(not_param());
            };
            let syn::Expr::Path(p) = &*fe.base else {
                return Err(not_param());
            };
            if member != "peer" {
                return Err(not_param());
            }
            (
                p.path.get_ident().ok_or_else(not_param)?.to_string(),
                "RequestContext",
            )
        }
        syn::Expr::Path(p) => (
            p.path.get_ident().ok_or_else(not_param)?.to_string(),
            "Peer",
        ),
        _ => return Err(not_param()),
    };
    match handler::param_type(site.sig, &name) {
        Some(t) if t == want => Ok(name),
        _ => Err(not_param()),
    }
}

/// For `let x = CALL.await;`: the `match x { .. }` that is the only later use of `x` in the
/// same block.
fn let_then_match<'a>(
    found: &locate::Site<'a>,
    aw: &'a syn::Expr,
) -> Option<(&'a syn::ExprMatch, String)> {
    let syn::Stmt::Local(local) = found.statement() else {
        return None;
    };
    let init = local.init.as_ref()?;
    if init.diverge.is_some() || !same(&*init.expr, aw) {
        return None;
    }
    let syn::Pat::Ident(pi) = &local.pat else {
        return None;
    };
    if pi.by_ref.is_some() || pi.subpat.is_some() {
        return None;
    }
    let name = pi.ident.to_string();
    let block = found.block();
    let pos = block
        .stmts
        .iter()
        .position(|s| same(s, found.statement()))?;
    let later = &block.stmts[pos + 1..];
    let uses: usize = later
        .iter()
        .map(|s| uses_of(s.to_token_stream(), &name))
        .sum();
    if uses != 1 {
        return None;
    }
    struct FindMatch<'a> {
        name: String,
        hit: Option<&'a syn::ExprMatch>,
    }
    impl<'a> syn::visit::Visit<'a> for FindMatch<'a> {
        fn visit_expr_match(&mut self, m: &'a syn::ExprMatch) {
            if let syn::Expr::Path(p) = &*m.expr {
                if p.path.is_ident(&self.name) {
                    self.hit = Some(m);
                }
            }
            syn::visit::visit_expr_match(self, m);
        }
    }
    let mut v = FindMatch {
        name: name.clone(),
        hit: None,
    };
    for s in later {
        syn::visit::Visit::visit_stmt(&mut v, s);
    }
    v.hit.map(|m| (m, name))
}
