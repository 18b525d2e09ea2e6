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

pub mod across;
mod arms;
mod asks;
mod call;
mod caps;
mod deferred;
mod endless;
mod error_type;
mod handler;
mod helper;
mod keep;
mod kept_borrows;
mod locate;
mod plain;
pub mod scope;
mod sealable;
pub(crate) mod text;

use crate::finding::{Applicability, Edit, Finding, Fix};
use crate::reading::source::LineIndex;
use call::plan_call;
use handler::{FnSite, Kind};

/// The codes whose rmcp findings this module fixes.
pub const CODES: &[&str] = &["MCP001", "MCP002", "MCP003"];

/// Most legacy requests in one handler that the rewrite takes. Each finding carries the whole
/// handler's edits (see above), so a handler with n requests puts about 2n² edits in the report: a
/// 48 KB handler with 1,000 `list_roots` made an 860 MB JSON report. Real handlers send a few.
pub const MAX_REWRITTEN_CALLS: usize = 32;

/// Whether `f` is a finding this module may fix: a legacy request, or one sent through a stored
/// peer (see [`deferred`]).
pub fn wants(f: &Finding) -> bool {
    // A call of the server's own wrapper over the peer changes with the wrapper, by hand: its
    // receiver is not a peer, so neither tier can rewrite it in place.
    if f.message.contains("(the server's own wrapper over") {
        return false;
    }
    (CODES.contains(&f.code.as_str()) && f.sdk.as_deref() == Some("rmcp"))
        || deferred::wants(f)
        || deferred::wants_raw(f)
}

/// A fix for each finding (same order), or `None` where this module has nothing to offer, planned
/// on the tree the engine already parsed from `idx.text()` (on its worker thread).
pub fn plan_parsed(
    idx: &LineIndex,
    file: &syn::File,
    findings: &[&Finding],
    tiers: super::Tiers,
) -> Vec<Option<Fix>> {
    plan_unit(idx, file, findings, false, tiers).0
}

/// [`plan_parsed`] over one file (`across: false`), or over the files of a crate laid end to end
/// (`across`, see [`across`]): helpers visible to other files are then rewritten with their
/// callers there, and the `use mrtr::..` line is left to the caller, which knows the files
/// (the names it needs are returned).
fn plan_unit(
    idx: &LineIndex,
    file: &syn::File,
    findings: &[&Finding],
    across: bool,
    tiers: super::Tiers,
) -> (Vec<Option<Fix>>, Vec<&'static str>) {
    let mut out: Vec<Option<Fix>> = vec![None; findings.len()];
    if !findings.iter().any(|f| wants(f)) {
        return (out, Vec::new());
    }
    let src = idx.text();
    let mut fns = Vec::new();
    handler::collect(&file.items, idx, &mut fns);
    // Findings per innermost enclosing function, in the order the functions are first met. Found
    // by bisection, not by a scan of every function per finding: a generated file of 40,000 fns
    // with a call each took seconds, growing with the square of its size.
    let enclosing = crate::reading::source::Nested::new(fns.iter().map(|f| f.range).collect());
    let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
    let mut group_of: crate::model::fast_hash::HashMap<usize, usize> = Default::default();
    for (i, f) in findings.iter().enumerate() {
        if !wants(f) {
            continue;
        }
        let at = idx.offset(f.line, f.column.saturating_sub(1));
        let Some(fi) = enclosing.innermost(at) else {
            continue;
        };
        let g = *group_of.entry(fi).or_insert_with(|| {
            groups.push((fi, Vec::new()));
            groups.len() - 1
        });
        groups[g].1.push(i);
    }
    let cx = Cx {
        src,
        idx,
        across,
        items: &file.items,
        rmcp: super::upgrade::rmcp_root(file).unwrap_or_else(|| "rmcp".into()),
    };
    // The hand-written handlers' delegates (`deferred::delegates`), for every helper of the file.
    let delegates = std::cell::OnceCell::new();
    // First every handler's own plan, then the shared import edit for those that can be fixed.
    let mut planned: Vec<(Vec<usize>, Result<HandlerPlan, String>)> = Vec::new();
    // The function of each planned group, same order.
    let mut planned_fns: Vec<usize> = Vec::new();
    for (fi, members) in &groups {
        let attempt = plan_group(&cx, &fns, *fi, findings, members, &groups, &delegates);
        match attempt {
            Ok(p) => {
                planned.push((members.clone(), Ok(p)));
                planned_fns.push(*fi);
            }
            // Whatever the compiled rewrite refused, the deferred form takes at the call site,
            // when every request of the function has one (see `scope`).
            Err(refused) => match deferred::anywhere(&cx, &fns, *fi, findings, members) {
                Ok(p) if tiers.deferred => {
                    planned.push((members.clone(), Ok(p)));
                    planned_fns.push(*fi);
                }
                other => {
                    // A loop the deferred form would hang is worth saying: the compiled form's
                    // reason alone would suggest the deferred one.
                    let spins = matches!(&other, Err((_, why)) if why == endless::WHY);
                    for (m, message) in refused {
                        let message = if spins {
                            format!("{message}; and not deferred: {}", endless::WHY)
                        } else {
                            message
                        };
                        out[m] = Some(display_only(message));
                    }
                }
            },
        }
    }
    demote_kept_borrows(
        &cx,
        &fns,
        &enclosing,
        findings,
        &mut planned,
        &planned_fns,
        tiers,
    );
    for (members, p) in &planned {
        if let Err(message) = p {
            for &m in members {
                out[m] = Some(display_only(message.clone()));
            }
        }
    }
    let mut needed: Vec<&'static str> = Vec::new();
    for (_, p) in &planned {
        if let Ok(p) = p {
            needed.extend(p.imports.iter().copied());
        }
    }
    // Every plan asks for the same few names: each is looked for once (`import_edit` sorts).
    needed.sort_unstable();
    needed.dedup();
    // Only the names the written code uses: an elicitation whose answer is read with
    // `.accepted()` names no `Elicitation`, and an import of it would be unused.
    needed.retain(|name| {
        planned
            .iter()
            .filter_map(|(_, p)| p.as_ref().ok())
            .any(|p| {
                (p.edits.iter().chain(&p.own_edits))
                    .any(|e| text::count_in(&e.replacement, name) > 0)
            })
    });
    let import = if across {
        None
    } else {
        handler::import_edit(file, src, idx, &needed)
    };
    // A file that names nothing of the runtime yet: its crate may not depend on it either, and
    // has no `MrtrServer` impl anywhere, so the impl can go next to the type's definition. Across
    // the crate's files, each server type is looked up in the whole crate.
    let dependency_note = !src.contains("mrtr::") && !src.contains("use mrtr");
    let needs_impl = |ty: &str| {
        if across {
            !handler::implements_mrtr_server(&file.items, Some(ty))
        } else {
            !handler::implements_mrtr_server(&file.items, None)
        }
    };
    let mut server_impls: Vec<(String, Option<crate::finding::Edit>)> = Vec::new();
    for (_, p) in &planned {
        let Ok(p) = p else { continue };
        for ty in &p.self_tys {
            if needs_impl(ty) && !server_impls.iter().any(|(t, _)| t == ty) {
                let edit = if dependency_note || across {
                    handler::server_impl_edit(&file.items, idx, ty)
                } else {
                    None
                };
                server_impls.push((ty.clone(), edit));
            }
        }
    }
    // The request scope that deferred asks need, on the unit's `impl ServerHandler` blocks; an
    // impl that stands elsewhere gets it from the fix driver once the asks are written.
    let scope_plan = planned
        .iter()
        .any(|(_, p)| p.as_ref().is_ok_and(|p| p.needs_scope))
        .then(|| {
            let impls = scope::server_impls(&file.items, idx);
            let written = |ty: &str| {
                scope::text_implements_mrtr_server(src, ty)
                    || server_impls.iter().any(|(t, e)| t == ty && e.is_some())
            };
            let (edits, tys) = scope::edits(&impls, idx, &written);
            let note = if !tys.is_empty() {
                format!("; `{}` on `{}`", scope::ATTRIBUTE, tys.join("`, `"))
            } else if impls.is_empty() {
                format!("; `{}` on its server", scope::ATTRIBUTE)
            } else {
                String::new()
            };
            (edits, note)
        });
    let crlf = src.contains("\r\n");
    for (members, p) in planned {
        let Ok(p) = p else { continue };
        let mut edits = p.edits.clone();
        edits.extend(import.clone());
        edits.extend(server_impls.iter().filter_map(|(_, e)| e.clone()));
        let scope_note = match (&scope_plan, p.needs_scope) {
            (Some((scope_edits, note)), true) => {
                edits.extend(scope_edits.iter().cloned());
                note.as_str()
            }
            _ => "",
        };
        edits.sort_by_key(|e| (e.start, e.end));
        if crlf {
            for e in &mut edits {
                e.replacement = text::crlf(&e.replacement);
            }
        }
        for (k, &m) in members.iter().enumerate() {
            let mut message = p.messages[k].clone();
            message.push_str(scope_note);
            let mut edits = edits.clone();
            if let Some(own) = p.own_edits.get(k) {
                let mut own = own.clone();
                if crlf {
                    own.replacement = text::crlf(&own.replacement);
                }
                edits.push(own);
                edits.sort_by_key(|e| (e.start, e.end));
            }
            for ty in &p.self_tys {
                let Some((_, edit)) = server_impls.iter().find(|(t, _)| t == ty) else {
                    continue;
                };
                message.push_str(&if edit.is_some() {
                    format!("; adds `impl mrtr::MrtrServer for {ty} {{}}`")
                } else {
                    // Its `impl ServerHandler` is in another file: the pass across files
                    // writes the impl there (`fix_driver::scope_servers`).
                    format!("; `{ty}` gets `impl mrtr::MrtrServer` beside its `impl ServerHandler`")
                });
            }
            if dependency_note {
                message.push_str("; adds `mrtr` to `[dependencies]`");
            }
            out[m] = Some(Fix {
                applicability: Applicability::Unsafe,
                message,
                edits: edits.clone(),
                other_files: Vec::new(),
            });
        }
    }
    (out, needed)
}

/// The compiled plans whose functions would keep a borrow across an ask ([`kept_borrows`]),
/// read off the text all compiled plans write together (a helper's plan rewrites its callers
/// too), become the deferred form; without that tier, a display-only fix saying why.
/// `planned_fns`: the function of each planned group, same order.
fn demote_kept_borrows(
    cx: &Cx,
    fns: &[FnSite],
    enclosing: &crate::reading::source::Nested<usize>,
    findings: &[&Finding],
    planned: &mut [(Vec<usize>, Result<HandlerPlan, String>)],
    planned_fns: &[usize],
    tiers: super::Tiers,
) {
    // Only a compiled plan that edits a function that may keep a borrow needs the check.
    let range_of = |at: usize| enclosing.innermost(at);
    // Each function edited, once (a plan's edits fall in few functions, many times over).
    let mut edited: Vec<usize> = planned
        .iter()
        .filter_map(|(_, p)| p.as_ref().ok().filter(|p| !p.needs_scope))
        .flat_map(|p| p.edits.iter().chain(&p.own_edits))
        .filter_map(|e| range_of(e.start))
        .collect();
    edited.sort_unstable();
    edited.dedup();
    let candidate = edited.iter().any(|&i| kept_borrows::may_keep(fns[i].block));
    if !candidate {
        return;
    }
    let compiled: Vec<Fix> = planned
        .iter()
        .filter_map(|(_, p)| p.as_ref().ok().filter(|p| !p.needs_scope))
        .map(|p| Fix {
            applicability: Applicability::Unsafe,
            message: String::new(),
            edits: p.edits.iter().chain(&p.own_edits).cloned().collect(),
            other_files: Vec::new(),
        })
        .collect();
    if compiled.is_empty() {
        return;
    }
    let fixes: Vec<&Fix> = compiled.iter().collect();
    let text = crate::fix::apply::apply_fixes(cx.src, &fixes).text;
    let Ok(file) = syn::parse_file(&text) else {
        return;
    };
    let offenders = kept_borrows::offenders(&LineIndex::new(&text), &file);
    if offenders.is_empty() {
        return;
    }
    // The offenders' functions as the original text has them, by name; then, until none is
    // left, every compiled plan that edits one of them goes, and the functions it edited join
    // them (a helper's plan and its callers' own plans stand or fall together).
    let mut tainted: Vec<(usize, &str)> = fns
        .iter()
        .enumerate()
        .filter_map(|(i, f)| {
            let (_, binding) = offenders.iter().find(|(n, _)| f.sig.ident == n)?;
            Some((i, binding.as_str()))
        })
        .collect();
    // Each plan is judged once: compiled plans only, and a demoted one is never compiled again.
    let mut judged: Vec<bool> = planned
        .iter()
        .map(|(_, p)| p.as_ref().map_or(true, |p| p.needs_scope))
        .collect();
    loop {
        let mut changed = false;
        for (k, (members, p)) in planned.iter_mut().enumerate() {
            if judged[k] {
                continue;
            }
            let Ok(plan) = p else { continue };
            let edited: Vec<usize> = plan
                .edits
                .iter()
                .chain(&plan.own_edits)
                .filter_map(|e| range_of(e.start))
                .collect();
            let Some(&(_, binding)) = tainted.iter().find(|(i, _)| edited.contains(i)) else {
                continue;
            };
            let why = format!(
                "no automatic rewrite: `{binding}` may borrow its value and would be kept across \
an ask, which the compiled form seals (own it, e.g. `.to_string()`, to take that form)"
            );
            *p = match deferred::anywhere(cx, fns, planned_fns[k], findings, members) {
                Ok(d) if tiers.deferred => Ok(d),
                _ => Err(why),
            };
            judged[k] = true;
            for i in edited {
                if !tainted.iter().any(|(t, _)| *t == i) {
                    tainted.push((i, binding));
                }
            }
            changed = true;
        }
        if !changed {
            break;
        }
    }
}

/// The compiled plan of one function's requests (`members`), or, per member, why there is none.
fn plan_group(
    cx: &Cx,
    fns: &[FnSite],
    fi: usize,
    findings: &[&Finding],
    members: &[usize],
    groups: &[(usize, Vec<usize>)],
    delegates: &std::cell::OnceCell<Vec<String>>,
) -> Result<HandlerPlan, Vec<(usize, String)>> {
    let site = &fns[fi];
    let all = |message: String| members.iter().map(|&m| (m, message.clone())).collect();
    // A raw `ServerRequest` has only the deferred form.
    if members.iter().any(|&m| deferred::wants_raw(findings[m])) {
        return Err(all(
            "a raw `ServerRequest` sent with `send_request` has no compiled rewrite".into(),
        ));
    }
    match site.kind {
        Kind::Tool | Kind::HandWritten(_) if members.len() > MAX_REWRITTEN_CALLS => {
            Err(all(format!(
                "no automatic rewrite: this handler sends {} legacy requests, more than \
the {MAX_REWRITTEN_CALLS} the rewrite takes in one handler; migrate it by hand, or split it",
                members.len()
            )))
        }
        Kind::Tool | Kind::HandWritten(_) => plan_handler(cx, fns, site, findings, members)
            .map_err(|(failed, why)| {
                members
                    .iter()
                    .map(|&m| {
                        let message = if m == failed {
                            format!("no automatic rewrite: {why}")
                        } else {
                            let line = findings[failed].line;
                            format!(
                                "not rewritten: the request at line {line} of the same handler \
cannot be ({why}), and a handler is migrated as a whole"
                            )
                        };
                        (m, message)
                    })
                    .collect()
            }),
        Kind::Prompt => Err(all(
            "rmcp's `#[prompt]` methods get no `Mrtr` handle from the runtime: move \
this prompt into a hand-written `get_prompt` marked `#[mrtr_handler]` and ask there"
                .into(),
        )),
        Kind::Other => {
            if let Some(reach) = deferred::reach(cx, fns, fi, findings, members, delegates) {
                return deferred::plan(cx, fns, fi, findings, members, reach)
                    .map_err(|(_, why)| all(format!("no automatic rewrite: {why}")));
            }
            let asking: Vec<usize> = groups.iter().map(|(k, _)| *k).collect();
            helper::plan(cx, fns, fi, findings, members, &asking).map_err(|(_, why)| {
                let name = site.sig.ident.to_string();
                all(format!(
                    "the request sits in `{name}`, not in a request handler, and it \
cannot become an asking helper (`#[mrtr_helper]`): {why}"
                ))
            })
        }
    }
}

/// The compiled form never keeps a value it cannot seal across an ask: an elicitation's old
/// `Result<_, ElicitationError>`, rebuilt from the answer for the code that matched on it, must
/// not be alive at another ask of the same handler (a `match` on it whose arm asks again), or
/// the machine would have to keep it. `Err` names the call: the deferred tier takes the handler.
fn refuse_kept_errors(
    cx: &Cx,
    calls: &[call::CallPlan],
    members: &[usize],
) -> Result<(), (usize, String)> {
    for (k, c) in calls.iter().enumerate() {
        if !c.keeps_error {
            continue;
        }
        if let Some(later) = calls.iter().find(|o| o.at > c.at && o.at < c.stmt_end) {
            let line = cx.idx.line_col(later.at).0;
            return Err((
                members[k],
                format!(
                    "the old `Result<_, ElicitationError>` of this elicitation is kept for the \
code that reads it, and the ask at line {line} follows it: the error type cannot be sealed \
across that ask"
                ),
            ));
        }
    }
    Ok(())
}

fn display_only(message: String) -> Fix {
    Fix {
        applicability: Applicability::DisplayOnly,
        message,
        edits: Vec::new(),
        other_files: Vec::new(),
    }
}

pub(super) struct Cx<'a> {
    pub(super) src: &'a str,
    pub(super) idx: &'a LineIndex<'a>,
    /// The text is a crate's files laid end to end: a helper's callers in other files are here.
    pub(super) across: bool,
    /// The file's (or the laid-out crate's) items: the types a kept binding may have.
    pub(super) items: &'a [syn::Item],
    /// The name the unit uses the rmcp crate by, for the paths the rewrite writes: `rmcp`, or
    /// the key of a renamed dependency (`mcp = { package = "rmcp" }`), read off its `use` lines
    /// as the upgrade's fixes read it.
    pub(super) rmcp: String,
}

struct HandlerPlan {
    edits: Vec<Edit>,
    /// One per member finding, same order.
    messages: Vec<String>,
    imports: Vec<&'static str>,
    /// The server types of the handlers it rewrites (each needs `impl MrtrServer`).
    self_tys: Vec<String>,
    /// Deferred asks: the server's `impl ServerHandler` needs the request scope (`scope`).
    needs_scope: bool,
    /// Edits of one member alone (same order as the members): a deferred ask is rewritten at its
    /// call site, so each finding carries its own edit, not its neighbours' (a function with n
    /// asks would otherwise put n² edits in the report).
    own_edits: Vec<Edit>,
}

/// Plans every call of one handler; `Err` names the first finding that cannot be rewritten.
fn plan_handler(
    cx: &Cx,
    fns: &[FnSite],
    site: &FnSite,
    findings: &[&Finding],
    members: &[usize],
) -> Result<HandlerPlan, (usize, String)> {
    let body = text::Uses::in_block(site.block, cx.idx);
    let mut taken: Vec<String> = Vec::new();
    let mut calls = Vec::new();
    for &m in members {
        let f = findings[m];
        let call = plan_call(cx, site, f, &body, &mut taken).map_err(|why| (m, why))?;
        calls.push(call);
    }
    refuse_kept_errors(cx, &calls, members)?;
    if let Some(first) = calls.iter().map(|c| c.at).min() {
        if let Some((name, ty)) = sealable::unsealable_kept(cx, fns, site, first) {
            return Err((
                members[0],
                format!(
                    "`{name}` (a `{ty}`, which does not derive `Serialize` and `Deserialize`) \
would be kept across the ask"
                ),
            ));
        }
    }
    let (alias_edits, freed) = call::unused_aliases(cx, site, &calls, &body);
    // A context parameter the rewrite leaves unused becomes the `Mrtr` parameter.
    let mut replace = None;
    if site.kind == Kind::Tool {
        // The uses the rewrite removes, per receiver: receivers that name the parameter (not an
        // alias).
        let mut rewritten: crate::model::fast_hash::HashMap<&str, usize> = Default::default();
        for c in &calls {
            *rewritten.entry(c.receiver.as_str()).or_default() += c.receiver_uses;
        }
        for (p, k) in &freed {
            if let Some(n) = rewritten.get_mut(p.as_str()) {
                *n += k;
            }
        }
        for c in &calls {
            if body.count(&c.receiver) == rewritten[c.receiver.as_str()] {
                replace = Some(c.receiver.clone());
                break;
            }
        }
    }
    let (mut edits, mut imports) =
        handler::edits(site, cx, replace.as_deref()).map_err(|why| (members[0], why))?;
    edits.extend(alias_edits);
    let mut messages = Vec::new();
    for c in calls {
        edits.extend(c.edits);
        imports.extend(c.imports.iter().copied());
        messages.push(c.message);
    }
    Ok(HandlerPlan {
        edits,
        messages,
        imports,
        self_tys: site.self_ty.iter().cloned().collect(),
        needs_scope: false,
        own_edits: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The findings the engine reports for `src`: one per `list_roots` call, at its name.
    fn findings_at_calls(src: &str) -> Vec<Finding> {
        let idx = LineIndex::new(src);
        src.match_indices("list_roots")
            .map(|(at, _)| {
                let (line, column) = idx.line_col(at);
                Finding {
                    code: "MCP003".into(),
                    name: "legacy-roots-request".into(),
                    level: crate::finding::Level::Warning,
                    path: "src/lib.rs".into(),
                    line,
                    column,
                    end_line: line,
                    end_column: column + 10,
                    message: "a legacy `roots/list` request".into(),
                    mcp_method: Some("roots/list".into()),
                    sdk: Some("rmcp".into()),
                    help: None,
                    fix: None,
                }
            })
            .collect()
    }

    /// Plans a file with `n` asks in a `#[tool]`, `n` in a helper its tool calls and `n` in a
    /// free function on one line; how many bodies the planner walked to find them, and how many
    /// findings got a fix with edits.
    fn walks_for(n: usize) -> (usize, usize) {
        let asks = "ctx.peer.list_roots().await?;\n        ".repeat(n);
        let through = "peer.list_roots().await?;\n    ".repeat(n);
        let line = "ctx.peer.list_roots(); ".repeat(n);
        let src = format!(
            "impl S {{\n    #[tool(description = \"t\")]\n    async fn tool(&self, ctx: \
RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {{\n        {asks}Ok(done())\n    \
}}\n    #[tool(description = \"u\")]\n    async fn other(&self, ctx: RequestContext<RoleServer>) \
-> Result<CallToolResult, ErrorData> {{\n        helper(&ctx.peer).await?;\n        \
Ok(done())\n    }}\n}}\nasync fn helper(peer: &Peer<RoleServer>) -> Result<(), ErrorData> {{\n    \
{through}Ok(())\n}}\nasync fn dense(ctx: RequestContext<RoleServer>) {{ {line}}}\n"
        );
        let file = syn::parse_file(&src).unwrap();
        let idx = LineIndex::new(&src);
        let findings = findings_at_calls(&src);
        assert_eq!(findings.len(), 3 * n);
        let refs: Vec<&Finding> = findings.iter().collect();
        locate::WALKS.with(|w| w.set(0));
        let fixes = plan_parsed(&idx, &file, &refs, super::super::Tiers::default());
        let fixed = fixes
            .iter()
            .filter(|f| f.as_ref().is_some_and(|f| !f.edits.is_empty()))
            .count();
        (locate::WALKS.with(|w| w.get()), fixed)
    }

    /// A function's calls are found in one walk of its body, however many asks it holds: one
    /// walk per ask made a 4 MB line of asks take minutes (`fuzz/hand_checks.sh`,
    /// `huge-line-dense`).
    #[test]
    fn the_planner_walks_each_body_once_whatever_the_number_of_asks() {
        let (few, fixed_few) = walks_for(2);
        let (many, fixed_many) = walks_for(24);
        assert!(few >= 1, "the planner looked calls up through the index");
        assert_eq!(
            few, many,
            "walks grew with the asks: {few} for 2 each, {many} for 24"
        );
        // The handlers were planned, not skipped: the tool and the helper's chain got fixes.
        assert!(
            fixed_few >= 4 && fixed_many >= 48,
            "{fixed_few} {fixed_many}"
        );
    }
}
