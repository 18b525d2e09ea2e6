//! `match` arms over rmcp's `Result<Option<T>, ElicitationError>` rewritten over
//! `mrtr::Elicitation<T>`: `Ok(Some(p))` → `Elicitation::Accept(p)`,
//! `Err(ElicitationError::UserDeclined)` → `Elicitation::Decline`, `UserCancelled` → `Cancel`.
//! `Ok(None)` and the transport errors (`Service`, `ParseError`, ...) have no counterpart: an
//! accepted answer always has content, and a failed round returns from the handler through `?`.

use super::text::{expr_uses_of, range_of};
use crate::finding::Edit;
use crate::reading::source::LineIndex;

#[derive(Debug, Clone, PartialEq)]
enum Alt {
    Accept(String),
    Decline,
    Cancel,
    /// `Err(_)` / `Err(e)`: whatever of decline/cancel earlier arms left.
    AnyErr(Option<String>),
    Wild,
    /// `Ok(None)`: cannot happen any more.
    Gone,
    /// `Err(ElicitationError::Service(..))` and the other failures: one `MrtrError` now.
    Failed,
}

fn classify(p: &syn::Pat, src: &str, idx: &LineIndex) -> Result<Vec<Alt>, String> {
    let text = |p: &syn::Pat| {
        range_of(p, idx)
            .map(|(s, e)| src[s..e].to_string())
            .ok_or_else(|| "a pattern without a position".to_string())
    };
    Ok(match p {
        syn::Pat::Or(or) => {
            let mut all = Vec::new();
            for c in &or.cases {
                all.extend(classify(c, src, idx)?);
            }
            all
        }
        syn::Pat::Wild(_) => vec![Alt::Wild],
        syn::Pat::TupleStruct(ts) if ts.elems.len() == 1 => {
            let inner = &ts.elems[0];
            match super::text::path_end(&ts.path).as_str() {
                "Ok" => match inner {
                    syn::Pat::TupleStruct(s)
                        if super::text::path_end(&s.path) == "Some" && s.elems.len() == 1 =>
                    {
                        vec![Alt::Accept(text(&s.elems[0])?)]
                    }
                    syn::Pat::Ident(i) if i.ident == "None" => vec![Alt::Gone],
                    syn::Pat::Path(pp) if super::text::path_end(&pp.path) == "None" => {
                        vec![Alt::Gone]
                    }
                    syn::Pat::Wild(_) => vec![Alt::Accept("_".into())],
                    _ => return Err("an `Ok(..)` arm binds the whole `Option`".into()),
                },
                "Err" => vec![error_alt(inner)],
                _ => return Err("an arm matches something other than `Ok`/`Err`".into()),
            }
        }
        _ => return Err("an arm binds the whole result".into()),
    })
}

fn error_alt(p: &syn::Pat) -> Alt {
    let variant = match p {
        syn::Pat::Wild(_) => return Alt::AnyErr(None),
        syn::Pat::Ident(i) if i.subpat.is_none() => {
            let name = i.ident.to_string();
            if name.starts_with(|c: char| c.is_lowercase() || c == '_') {
                return Alt::AnyErr(Some(name));
            }
            name
        }
        syn::Pat::Path(pp) => super::text::path_end(&pp.path),
        syn::Pat::TupleStruct(ts) => super::text::path_end(&ts.path),
        syn::Pat::Struct(s) => super::text::path_end(&s.path),
        _ => return Alt::Failed,
    };
    match variant.as_str() {
        "UserDeclined" => Alt::Decline,
        "UserCancelled" => Alt::Cancel,
        // Service, ParseError, NoContent, CapabilityNotSupported: now a `?` out of the handler.
        _ => Alt::Failed,
    }
}

/// `P` of a lone `Ok(Some(P))` pattern (an `if let` over the old result).
pub fn accept_pattern(p: &syn::Pat, src: &str, idx: &LineIndex) -> Option<String> {
    match classify(p, src, idx).ok()?.as_slice() {
        [Alt::Accept(inner)] => Some(inner.clone()),
        _ => None,
    }
}

/// The edits that turn the arms of `m` into arms over `Elicitation<T>`, or why they cannot be.
pub fn rewrite(m: &syn::ExprMatch, src: &str, idx: &LineIndex) -> Result<Vec<Edit>, String> {
    let (mut declined, mut cancelled, mut wild) = (false, false, false);
    let mut edits = Vec::new();
    for arm in &m.arms {
        let alts = classify(&arm.pat, src, idx)?;
        let mut out: Vec<String> = Vec::new();
        for alt in alts {
            match alt {
                Alt::Accept(p) => out.push(format!("Elicitation::Accept({p})")),
                Alt::Decline if !declined => {
                    declined = arm.guard.is_none();
                    out.push("Elicitation::Decline".into());
                }
                Alt::Cancel if !cancelled => {
                    cancelled = arm.guard.is_none();
                    out.push("Elicitation::Cancel".into());
                }
                Alt::AnyErr(binding) => {
                    let rest: Vec<&str> = [
                        (!declined, "Elicitation::Decline"),
                        (!cancelled, "Elicitation::Cancel"),
                    ]
                    .into_iter()
                    .filter_map(|(left, s)| left.then_some(s))
                    .collect();
                    if rest.is_empty() {
                        continue;
                    }
                    if let Some(b) = binding {
                        if expr_uses_of(&arm.body, idx, &b) > 0
                            || arm
                                .guard
                                .as_ref()
                                .is_some_and(|(_, g)| expr_uses_of(g, idx, &b) > 0)
                        {
                            return Err(format!("the `Err({b})` arm reads the error"));
                        }
                    }
                    if arm.guard.is_none() {
                        declined = true;
                        cancelled = true;
                    }
                    out.extend(rest.into_iter().map(String::from));
                }
                Alt::Wild => {
                    if arm.guard.is_none() {
                        wild = true;
                    }
                    out.push("_".into());
                }
                Alt::Decline | Alt::Cancel | Alt::Gone | Alt::Failed => {}
            }
        }
        edits.extend(rewritten_arm(arm, &out, src, idx)?);
    }
    if !(wild || declined && cancelled) {
        return Err("the arms do not cover both a declined and a cancelled answer".into());
    }
    Ok(edits)
}

/// The edits that turn the arms of `m` into arms over `Result<Elicitation<T>, MrtrError>`, the
/// value of an ask awaited without `?` (a helper that handled the request's errors itself keeps
/// handling them): `Ok(Some(p))` → `Ok(Elicitation::Accept(p))`, `Err(UserDeclined)` →
/// `Ok(Elicitation::Decline)`, `Err(_)` → whatever of decline, cancel and `Err(_)` earlier arms
/// left. An arm naming another failure (`Err(ElicitationError::Service(..))`) is refused: the
/// runtime has one error for all of them.
pub fn rewrite_keeping(
    m: &syn::ExprMatch,
    src: &str,
    idx: &LineIndex,
) -> Result<Vec<Edit>, String> {
    let (mut declined, mut cancelled, mut failed, mut wild) = (false, false, false, false);
    let mut edits = Vec::new();
    for arm in &m.arms {
        let alts = classify(&arm.pat, src, idx)?;
        let guarded = arm.guard.is_some();
        let mut out: Vec<String> = Vec::new();
        for alt in alts {
            match alt {
                Alt::Accept(p) => out.push(format!("Ok(Elicitation::Accept({p}))")),
                Alt::Decline if !declined => {
                    declined = !guarded;
                    out.push("Ok(Elicitation::Decline)".into());
                }
                Alt::Cancel if !cancelled => {
                    cancelled = !guarded;
                    out.push("Ok(Elicitation::Cancel)".into());
                }
                Alt::AnyErr(binding) => {
                    let read = binding.as_ref().is_some_and(|b| {
                        expr_uses_of(&arm.body, idx, b) > 0
                            || arm
                                .guard
                                .as_ref()
                                .is_some_and(|(_, g)| expr_uses_of(g, idx, b) > 0)
                    });
                    let inspected = binding.as_ref().is_some_and(|b| error_inspected(arm, b));
                    if read && (inspected || !(declined && cancelled)) {
                        return Err(format!(
                            "the `Err({})` arm reads the error, which held a decline or a \
cancellation too, or has the old error type",
                            binding.unwrap_or_default()
                        ));
                    }
                    let error = match (&binding, read) {
                        (Some(b), true) => format!("Err({b})"),
                        _ => "Err(_)".to_string(),
                    };
                    let rest: Vec<String> = [
                        (!declined, "Ok(Elicitation::Decline)".to_string()),
                        (!cancelled, "Ok(Elicitation::Cancel)".to_string()),
                        (!failed, error),
                    ]
                    .into_iter()
                    .filter_map(|(left, s)| left.then_some(s))
                    .collect();
                    if !guarded {
                        (declined, cancelled, failed) = (true, true, true);
                    }
                    out.extend(rest);
                }
                Alt::Wild => {
                    wild |= !guarded;
                    out.push("_".into());
                }
                Alt::Failed => {
                    return Err(
                        "an arm matches one kind of failure, and the runtime has one error for \
all of them"
                            .into(),
                    )
                }
                Alt::Decline | Alt::Cancel | Alt::Gone => {}
            }
        }
        edits.extend(rewritten_arm(arm, &out, src, idx)?);
    }
    if !(wild || declined && cancelled && failed) {
        return Err("the arms do not cover a declined, a cancelled and a failed answer".into());
    }
    Ok(edits)
}

/// Whether an arm reads the error bound to `name` other than to show it (in a macro's tokens,
/// such as `format!("{e}")`, or through `.to_string()`): then the error's old type matters.
pub fn error_inspected(arm: &syn::Arm, name: &str) -> bool {
    struct Reads<'n> {
        name: &'n str,
        shown: usize,
        all: usize,
    }
    impl<'a> syn::visit::Visit<'a> for Reads<'_> {
        fn visit_expr(&mut self, e: &'a syn::Expr) {
            let named =
                |e: &syn::Expr| matches!(e, syn::Expr::Path(p) if p.path.is_ident(self.name));
            match e {
                syn::Expr::MethodCall(mc) if mc.method == "to_string" && named(&mc.receiver) => {
                    self.shown += 1;
                    self.all += 1;
                    return;
                }
                e if named(e) => self.all += 1,
                _ => {}
            }
            syn::visit::visit_expr(self, e);
        }
    }
    let mut r = Reads {
        name,
        shown: 0,
        all: 0,
    };
    if let Some((_, g)) = &arm.guard {
        syn::visit::Visit::visit_expr(&mut r, g);
    }
    syn::visit::Visit::visit_expr(&mut r, &arm.body);
    r.all > r.shown
}

/// Deletes an arm with its comma, and its lines when it has them to itself.
/// The edit that gives `arm` the alternatives `kept` (`A | B`), or removes it when none are left;
/// nothing when its pattern already reads so.
fn rewritten_arm(
    arm: &syn::Arm,
    kept: &[String],
    src: &str,
    idx: &LineIndex,
) -> Result<Option<Edit>, String> {
    if kept.is_empty() {
        return remove_arm(arm, src, idx).map(Some);
    }
    let (s, e) = range_of(&arm.pat, idx).ok_or("an arm without a position")?;
    let new = kept.join(" | ");
    Ok((src[s..e] != new).then(|| idx.edit(s, e, new)))
}

fn remove_arm(arm: &syn::Arm, src: &str, idx: &LineIndex) -> Result<Edit, String> {
    let (mut s, mut e) = range_of(arm, idx).ok_or("an arm without a position")?;
    let rest = &src[e..];
    let after = rest.len() - rest.trim_start_matches([' ', '\t']).len();
    if rest[after..].starts_with(',') && arm.comma.is_none() {
        e += after + 1;
    }
    let line_start = src[..s].rfind('\n').map_or(0, |i| i + 1);
    let tail = &src[e..];
    let to_eol = tail.find('\n');
    if src[line_start..s].trim().is_empty() && to_eol.is_some_and(|n| tail[..n].trim().is_empty()) {
        s = line_start;
        e += to_eol.unwrap_or(0) + 1;
    }
    Ok(idx.edit(s, e, String::new()))
}
