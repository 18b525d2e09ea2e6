//! One legacy call of a handler: where its ask goes (hoisted into a `let` before the statement,
//! or in place when the statement already is `let x = CALL.await;`), and how the code that read
//! the old result reads the answer: `match` arms and `if let` / `let .. else` patterns over
//! `Elicitation<T>`, `.map_err(..)?` chains over `answer.accepted()`, anything else through an
//! expression of the old result type.

use super::asks::{self, Ask};
use super::handler::{self, FnSite, Kind};
use super::locate::{self, Node};
use super::text::{self, indent_at, range_of, starts_line};
use super::{arms, caps, Cx};
use crate::finding::{Edit, Finding};
use crate::reading::source::LineIndex;

pub(super) struct CallPlan {
    pub(super) edits: Vec<Edit>,
    pub(super) message: String,
    pub(super) imports: &'static [&'static str],
    /// The parameter the call reached the peer through.
    pub(super) receiver: String,
    /// How often the call's receiver names that parameter (0 through an alias).
    pub(super) receiver_uses: usize,
    /// The local the call reached the peer through (`let peer = ctx.peer;`), if any.
    pub(super) alias: Option<String>,
    /// Where the old call stood (its awaited expression's start), and whether the code after it
    /// keeps an elicitation's old `Result<_, ElicitationError>`, rebuilt from the answer: a value
    /// the state machine cannot seal, so no later ask of the handler may follow it.
    pub(super) at: usize,
    pub(super) keeps_error: bool,
    /// The end of the statement the old call stood in: an ask before it (in a `match` arm on
    /// the old result) runs while the rebuilt result is alive.
    pub(super) stmt_end: usize,
}

/// The `let peer = ctx.peer..;` statements whose only uses were the rewritten calls and client
/// capability checks: removed (the checks rewritten),
/// with how often each named its parameter (those uses go with it).
pub(super) fn unused_aliases(
    cx: &Cx,
    site: &FnSite,
    calls: &[CallPlan],
    body: &text::Uses,
) -> (Vec<Edit>, Vec<(String, usize)>) {
    let mut edits = Vec::new();
    let mut freed = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for c in calls {
        let Some(alias) = c.alias.as_deref() else {
            continue;
        };
        if seen.contains(&alias) {
            continue;
        }
        seen.push(alias);
        let through = calls
            .iter()
            .filter(|o| o.alias.as_deref() == Some(alias))
            .count();
        // Client capability checks through the local (`peer.peer_info()..roots..`) become the
        // runtime's, like those through the parameter itself.
        let checks = caps::rewrite(cx, site.block, alias, "mrtr");
        if body.count(alias) != through + 1 + checks.uses {
            continue;
        }
        let Some(stmt) = site.block.stmts.iter().find(|s| {
            matches!(s, syn::Stmt::Local(l) if matches!(&l.pat, syn::Pat::Ident(p) if p.ident == alias))
        }) else {
            continue;
        };
        let Some((s, e)) = text::stmt_range(stmt, cx.idx) else {
            continue;
        };
        let stmt_uses = text::count_in(&cx.src[s..e], &c.receiver);
        let (s, e) = text::whole_lines(cx.src, s, e);
        edits.push(cx.idx.edit(s, e, String::new()));
        edits.extend(checks.edits);
        freed.push((c.receiver.clone(), stmt_uses));
    }
    (edits, freed)
}

pub(super) fn same<T>(a: &T, b: &T) -> bool {
    std::ptr::eq(a, b)
}

/// A legacy request found in a function: the call, what it asks, and the parameter its receiver
/// names.
pub(super) struct Request<'a> {
    pub(super) found: locate::Site<'a>,
    pub(super) method: String,
    pub(super) ask: Ask,
    pub(super) receiver: String,
    pub(super) receiver_uses: usize,
    pub(super) alias: Option<String>,
    /// `CALL.await`.
    pub(super) aw: &'a syn::Expr,
    pub(super) aw_range: (usize, usize),
}

/// Finds the request of `f` in `site` and reads it; `Err` says why it has no rewrite.
pub(super) fn read_request<'a>(
    cx: &Cx,
    site: &FnSite<'a>,
    f: &Finding,
) -> Result<Request<'a>, String> {
    let found = locate::find(site.calls(), f.line, f.column)?;
    let mc = found.call()?;
    let method = mc.method.to_string();
    let ask = asks::read(mc, cx.src, cx.idx)?;
    let receiver = receiver_param(site, &mc.receiver)?;
    let receiver_uses = text::expr_uses_of(&mc.receiver, cx.idx, &receiver);
    let alias = match &*mc.receiver {
        syn::Expr::Path(p) => p
            .path
            .get_ident()
            .map(|i| i.to_string())
            .filter(|name| *name != receiver),
        _ => None,
    };
    let Some(Node::Expr(aw @ syn::Expr::Await(_))) = found.parent(1) else {
        return Err(format!(
            "the future of `{method}` is not awaited where it is made (stored, joined or raced); \
await it in its own `let` first"
        ));
    };
    let aw_range = text::expr_range(aw, cx.idx).ok_or("an expression without a position")?;
    Ok(Request {
        found,
        method,
        ask,
        receiver,
        receiver_uses,
        alias,
        aw,
        aw_range,
    })
}

pub(super) fn plan_call(
    cx: &Cx,
    site: &FnSite,
    f: &Finding,
    body: &text::Uses,
    taken: &mut Vec<String>,
) -> Result<CallPlan, String> {
    let Request {
        found,
        method,
        ask,
        receiver,
        receiver_uses,
        alias,
        aw: aw_expr,
        aw_range: (aw_s, aw_e),
    } = read_request(cx, site, f)?;
    let mut message = ask.describe(&method);
    let name = body.fresh_name(&answer_base(found.statement()), taken);
    let ask_text = ask.expr("mrtr");
    let mut edits = Vec::new();

    // `let x = CALL.await;` whose only later use is `match x { .. }` over the elicitation arms.
    if let (Ask::Elicit { .. }, Some(m)) = (&ask, let_then_match(cx, &found, aw_expr)) {
        if let Ok(arm_edits) = arms::rewrite(m, cx.src, cx.idx) {
            edits.push(cx.idx.edit(aw_s, aw_e, format!("{ask_text}.await?")));
            edits.extend(arm_edits);
            return Ok(CallPlan {
                edits,
                message,
                imports: ask.imports(),
                receiver,
                receiver_uses,
                alias,
                at: aw_s,
                keeps_error: false,
                stmt_end: aw_e,
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
                edits.push(cx.idx.edit(ps, pe, format!("Elicitation::Accept({pat})")));
                edits.push(cx.idx.edit(aw_s, aw_e, format!("{ask_text}.await?")));
                message.push_str("; a failed round returns through `?`, not the `else`");
                return Ok(CallPlan {
                    edits,
                    message,
                    imports: ask.imports(),
                    receiver,
                    receiver_uses,
                    alias,
                    at: aw_s,
                    keeps_error: false,
                    stmt_end: aw_e,
                });
            }
        }
    }
    // Everything else hoists the ask before the statement: only where that does not change
    // what runs first.
    locate::check_order(&found.path[found.stmt..], cx.src, cx.idx)?;
    let parent = found.parent(2);
    let mut replaced = None;
    if let Ask::Elicit { .. } = ask {
        match parent {
            // `match CALL.await { Ok(Some(x)) => .., Err(UserDeclined) => .. }`
            Some(Node::Expr(syn::Expr::Match(m))) if same(&*m.expr, aw_expr) => {
                if let Ok(arm_edits) = arms::rewrite(m, cx.src, cx.idx) {
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
                    edits.push(cx.idx.edit(ps, pe, format!("Elicitation::Accept({pat})")));
                    replaced = Some((aw_s, aw_e, name.clone()));
                    message.push_str("; a failed round returns through `?`, not the `else`");
                }
            }
            // `CALL.await?` / `CALL.await.map_err(f)?`: the `Option<T>` that follows.
            Some(Node::Expr(te @ syn::Expr::Try(t))) if same(&*t.expr, aw_expr) => {
                let (s, e) =
                    text::expr_range(te, cx.idx).ok_or("an expression without a position")?;
                replaced = Some((s, e, format!("{name}.accepted()")));
            }
            Some(Node::Expr(mm @ syn::Expr::MethodCall(map)))
                if same(&*map.receiver, aw_expr) && map.method == "map_err" =>
            {
                if let Some(Node::Expr(te @ syn::Expr::Try(t))) = found.parent(3) {
                    if same(&*t.expr, mm) {
                        let (s, e) = text::expr_range(te, cx.idx)
                            .ok_or("an expression without a position")?;
                        replaced = Some((s, e, format!("{name}.accepted()")));
                        message.push_str("; decline and cancel now read as `None`");
                    }
                }
            }
            _ => {}
        }
    }
    // `CALL.await?` / `CALL.await.map_err(f)?` (or anyhow's `.context(..)?`) of a run-time form
    // or of `list_roots`: the old call's `Ok` value itself, built from the answer (the error the
    // old code mapped or wrapped cannot happen any more; the ask's own returns through its `?`).
    if let (None, Some(value)) = (
        &replaced,
        ask.legacy_ok_value(&name, indent_at(cx.src, aw_s), &cx.rmcp),
    ) {
        let try_of = |t: &syn::ExprTry, inner: &syn::Expr| same(&*t.expr, inner);
        let target = match parent {
            Some(Node::Expr(te @ syn::Expr::Try(t))) if try_of(t, aw_expr) => Some(te),
            Some(Node::Expr(mm @ syn::Expr::MethodCall(map)))
                if same(&*map.receiver, aw_expr)
                    && ERROR_ADAPTERS.contains(&&*map.method.to_string()) =>
            {
                match found.parent(3) {
                    Some(Node::Expr(te @ syn::Expr::Try(t))) if try_of(t, mm) => Some(te),
                    _ => None,
                }
            }
            _ => None,
        };
        if let Some(t) = target {
            let (s, e) = text::expr_range(t, cx.idx).ok_or("an expression without a position")?;
            replaced = Some((s, e, value));
        }
    }
    let mut ask = ask;
    let owned = own_question(cx, &found, aw_expr, body, taken, &mut ask)?;
    let ask_text = ask.expr("mrtr");
    let mut hoisted = format!("{owned}let {name} = {ask_text}.await?;");
    let keeps_error =
        replaced.is_none() && matches!(ask, Ask::Elicit { .. } | Ask::ElicitUrl { .. });
    let (s, e, with) = match replaced {
        Some(r) => r,
        None => {
            let in_place = old_result_fits(parent) || matches!(ask, Ask::Sample { .. });
            message.push_str("; old result kept");
            if in_place {
                let value = ask.legacy_value(&name, indent_at(cx.src, aw_s), &cx.rmcp);
                (aw_s, aw_e, value)
            } else {
                let legacy = old_result_let(
                    cx,
                    found.statement(),
                    &name,
                    body,
                    taken,
                    &mut hoisted,
                    |indent| ask.legacy_value(&name, indent, &cx.rmcp),
                )?;
                (aw_s, aw_e, legacy)
            }
        }
    };
    taken.push(name.clone());
    edits.push(cx.idx.edit(s, e, with));
    edits.push(hoist(cx, found.statement(), &hoisted)?);
    Ok(CallPlan {
        edits,
        message,
        imports: ask.imports(),
        receiver,
        receiver_uses,
        alias,
        at: aw_s,
        keeps_error,
        stmt_end: text::stmt_range(found.statement(), cx.idx).map_or(aw_e, |(_, e)| e),
    })
}

/// The `let`s, each followed by a line break at the statement's indentation, that give the parts
/// of `ask`'s question moving a field out of a binding (`args.message`) a local of their own
/// (`ask` then reads the local). For an ask hoisted before its statement: the macro keeps what a
/// question reads across the ask (it asks again on resume), and the field's owned value
/// serializes where its whole struct (a tool's `Parameters` type) may not.
pub(super) fn own_question(
    cx: &Cx,
    found: &locate::Site,
    aw: &syn::Expr,
    body: &text::Uses,
    taken: &mut Vec<String>,
    ask: &mut Ask,
) -> Result<String, String> {
    let (stmt_start, _) =
        text::stmt_range(found.statement(), cx.idx).ok_or("a statement without a position")?;
    let indent = indent_at(cx.src, stmt_start);
    let mut owned = String::new();
    for part in ask.parts_mut() {
        let Some(field) = moved_field(part) else {
            continue;
        };
        // The field's own name, unless the body names it outside this call (a field label of
        // the old call's params goes with it).
        let local = if !taken.iter().any(|t| t == field)
            && body.count(field) == text::expr_uses_of(aw, cx.idx, field)
        {
            field.to_string()
        } else {
            body.fresh_name(field, taken)
        };
        taken.push(local.clone());
        owned.push_str(&format!("let {local} = {part};\n{indent}"));
        *part = local;
    }
    Ok(owned)
}

/// The last field of `text` when it is a field path out of a binding (`args.message`,
/// `req.form.schema`): a plain move, nothing called.
fn moved_field(text: &str) -> Option<&str> {
    let mut parts = text.split('.');
    let head = parts.next()?;
    let ident = |p: &str| {
        !p.is_empty()
            && p.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
            && !p.as_bytes()[0].is_ascii_digit()
    };
    if !ident(head) || head == "self" {
        return None;
    }
    let fields: Vec<&str> = parts.collect();
    (!fields.is_empty() && fields.iter().all(|f| ident(f))).then(|| *fields.last().unwrap())
}

/// Methods that only change the error of a `Result` before its `?`: `map_err`, and the context
/// adapters of anyhow and eyre.
const ERROR_ADAPTERS: &[&str] = &[
    "map_err",
    "context",
    "with_context",
    "wrap_err",
    "wrap_err_with",
];

/// Whether the old result, rebuilt from an ask's answer, can stand where the awaited request
/// stood: as a `let`'s value, a statement, an argument, a tuple or array item, a `return`.
/// Elsewhere (a `match` scrutinee, a method chain) it gets a `let` of its own.
pub(super) fn old_result_fits(parent: Option<Node>) -> bool {
    matches!(
        parent,
        Some(Node::Local(_))
            | Some(Node::Stmt(_))
            | Some(Node::Expr(
                syn::Expr::Call(_)
                    | syn::Expr::Tuple(_)
                    | syn::Expr::Array(_)
                    | syn::Expr::Return(_)
            ))
    )
}

/// The old result's own `let`, appended to `hoisted` at the statement's indentation under a fresh
/// `..result` name (returned), so the code reading it reads a name, not a nested `match match ..`.
/// `value` writes the rebuilt result for that indentation.
pub(super) fn old_result_let(
    cx: &Cx,
    statement: &syn::Stmt,
    answer: &str,
    body: &text::Uses,
    taken: &mut Vec<String>,
    hoisted: &mut String,
    value: impl FnOnce(&str) -> String,
) -> Result<String, String> {
    let (stmt_start, _) =
        text::stmt_range(statement, cx.idx).ok_or("a statement without a position")?;
    let indent = indent_at(cx.src, stmt_start);
    let base = answer
        .strip_suffix("answer")
        .map_or("result".to_string(), |p| format!("{p}result"));
    let legacy = body.fresh_name(&base, taken);
    taken.push(legacy.clone());
    hoisted.push_str(&format!("\n{indent}let {legacy} = {};", value(indent)));
    Ok(legacy)
}

/// `ok_answer` for `let ok = ..`, else `answer`.
pub(super) fn answer_base(stmt: &syn::Stmt) -> String {
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

pub(super) fn range_of_brace(m: &syn::ExprMatch, idx: &LineIndex) -> Option<usize> {
    let s = m.brace_token.span.open().start();
    Some(idx.offset(s.line, s.column))
}

/// Inserts `text` as a statement of its own right before `stmt`.
pub(super) fn hoist(cx: &Cx, stmt: &syn::Stmt, text: &str) -> Result<Edit, String> {
    let (s, _) = text::stmt_range(stmt, cx.idx).ok_or("a statement without a position")?;
    let with = if starts_line(cx.src, s) {
        format!("{text}\n{}", indent_at(cx.src, s))
    } else {
        format!("{text} ")
    };
    Ok(cx.idx.edit(s, s, with))
}

/// `context.peer` (a `RequestContext` parameter), `peer` (a `Peer` parameter), or a local
/// `let peer = context.peer.clone();` / `= &context.peer;` at the top of the body: the name of
/// the parameter.
fn receiver_param(site: &FnSite, receiver: &syn::Expr) -> Result<String, String> {
    if let syn::Expr::Path(p) = receiver {
        if let Some(alias) = p.path.get_ident() {
            if handler::param_type(site.sig, &alias.to_string()).is_none() {
                if let Some(base) = alias_of(site.block, alias) {
                    return receiver_param(site, base);
                }
            }
        }
    }
    direct_param(site, receiver)
}

/// The expression a top-level `let NAME = EXPR.clone();` or `let NAME = &EXPR;` of the body
/// binds `name` to (the last such binding before any other use is not tracked: one is enough).
fn alias_of<'a>(block: &'a syn::Block, name: &syn::Ident) -> Option<&'a syn::Expr> {
    let mut found = None;
    for stmt in &block.stmts {
        let syn::Stmt::Local(l) = stmt else { continue };
        let syn::Pat::Ident(pi) = &l.pat else {
            continue;
        };
        if pi.ident != *name {
            continue;
        }
        // Bound twice: which one reaches the call is a question for a human.
        if found.is_some() {
            return None;
        }
        let init = l.init.as_ref().filter(|i| i.diverge.is_none())?;
        found = Some(match &*init.expr {
            syn::Expr::MethodCall(mc) if mc.method == "clone" && mc.args.is_empty() => {
                &*mc.receiver
            }
            syn::Expr::Reference(r) if r.mutability.is_none() => &*r.expr,
            // `let peer = context.peer;`: moved out of the context.
            field @ syn::Expr::Field(_) => field,
            _ => return None,
        });
    }
    found.filter(|e| matches!(e, syn::Expr::Field(_)))
}

fn direct_param(site: &FnSite, receiver: &syn::Expr) -> Result<String, String> {
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
            // `self.peer`: a peer the server keeps in a field (the linter found it typed as the
            // server's peer). In a request handler the ask goes to the client of this request.
            if p.path.is_ident("self") && matches!(site.kind, Kind::Tool | Kind::HandWritten(_)) {
                return Ok(format!("self.{member}"));
            }
            if member != "peer" {
                return Err(not_param());
            }
            let name = p.path.get_ident().ok_or_else(not_param)?.to_string();
            // A helper that reads the request's context from where the server put it for the
            // request (a task-local): the asks go through the `Mrtr` its callers hand it.
            if site.kind == Kind::Other
                && handler::param_type(site.sig, &name).is_none()
                && context_from_getter(site.block, &name).is_some()
            {
                return Ok(name);
            }
            (name, "RequestContext")
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

/// The top-level `let NAME = GETTER()..;` of the body that reads the current request's context
/// from where the server keeps it for the request: a call without arguments whose name says it
/// gives the request context (`RudofMcpService::current_request_context()`,
/// `request_context()`), its `Option` opened with `?`, `.ok_or(..)?`, `.ok_or_else(..)?`,
/// `.expect(..)` or `.unwrap()`.
pub(super) fn context_from_getter<'a>(block: &'a syn::Block, name: &str) -> Option<&'a syn::Stmt> {
    let mut found = None;
    for stmt in &block.stmts {
        let syn::Stmt::Local(l) = stmt else { continue };
        let syn::Pat::Ident(pi) = &l.pat else {
            continue;
        };
        if pi.ident != name {
            continue;
        }
        if found.is_some() {
            return None;
        }
        let init = l.init.as_ref().filter(|i| i.diverge.is_none())?;
        let mut e = &*init.expr;
        loop {
            e = match e {
                syn::Expr::Try(t) => &t.expr,
                syn::Expr::MethodCall(mc)
                    if matches!(
                        mc.method.to_string().as_str(),
                        "ok_or" | "ok_or_else" | "expect" | "unwrap"
                    ) =>
                {
                    &mc.receiver
                }
                _ => break,
            };
        }
        let syn::Expr::Call(c) = e else { return None };
        let syn::Expr::Path(p) = &*c.func else {
            return None;
        };
        let getter = p.path.segments.last()?.ident.to_string();
        if !c.args.is_empty() || !getter.ends_with("request_context") {
            return None;
        }
        found = Some(stmt);
    }
    found
}

/// For `let x = CALL.await;`: the `match x { .. }` that is the only later use of `x` in the
/// same block.
fn let_then_match<'a>(
    cx: &Cx,
    found: &locate::Site<'a>,
    aw: &'a syn::Expr,
) -> Option<&'a syn::ExprMatch> {
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
    // The later statements' text: from this `let`'s `;` to the block's `}`.
    let later_text = cx.idx.slice(
        local.semi_token.span.end(),
        block.brace_token.span.close().start(),
    );
    if text::count_in(later_text, &name) != 1 {
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
    let mut v = FindMatch { name, hit: None };
    for s in later {
        syn::visit::Visit::visit_stmt(&mut v, s);
    }
    v.hit
}
