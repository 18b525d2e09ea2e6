//! The upgrade findings for rmcp APIs that are gone but leave a rewrite behind (their fixes are in
//! `fix::gone`): a wrapper used as a type, a call or a literal; a type with no counterpart; a
//! removed field's assignment; a function that no longer fails; a `match` on an enum that became
//! `#[non_exhaustive]`; a field that became an `Option`, read or logged.

use proc_macro2::Span;
use syn::spanned::Spanned;

use super::{is_rmcp, prefix_path, report, rmcp_version};
use crate::model::sdk::rmcp::RMCP;
use crate::model::sdk::rmcp_upgrade::{applies, changes_named, Change, Kind};
use crate::rules::engine::Cx;

/// What a `Kind::Unit` fix replaces: from the path's start to the type's name, or to its variant
/// (`rmcp::model::TaskSupport::Forbidden`), so that `()` can stand for all of it.
pub(super) fn unit_span(path: &syn::Path, i: usize) -> (Span, Span) {
    let first = path
        .leading_colon
        .map(|c| c.spans[0])
        .unwrap_or_else(|| path.segments[0].ident.span());
    let last = path.segments.get(i + 1).unwrap_or(&path.segments[i]);
    (first, last.ident.span())
}

/// `Annotated<T>` as the path's last segment: its name through the closing `>`.
pub(super) fn unwrapped_type_span(path: &syn::Path, i: usize) -> Option<(Span, Span)> {
    let seg = &path.segments[i];
    match &seg.arguments {
        syn::PathArguments::AngleBracketed(a)
            if i + 1 == path.segments.len() && a.args.len() == 1 =>
        {
            Some((seg.ident.span(), a.gt_token.span))
        }
        _ => None,
    }
}

/// `Old::new(x, a)` or `Old { inner: x, extra: a }` of a `Kind::Unwrapped` wrapper of rmcp's,
/// reported whole (the fix keeps `x`). Whether it was one.
pub(super) fn unwrapped_expr(cx: &mut Cx<'_>, expr: &syn::Expr) -> bool {
    let Some(version) = rmcp_version(cx) else {
        return false;
    };
    let (path, close) = match expr {
        syn::Expr::Call(c) => match &*c.func {
            syn::Expr::Path(p)
                if p.qself.is_none()
                    && p.path.segments.len() >= 2
                    && p.path.segments.last().is_some_and(|s| s.ident == "new") =>
            {
                let mut wrapper = p.path.clone();
                wrapper.segments.pop();
                wrapper.segments.pop_punct();
                (wrapper, c.paren_token.span.close())
            }
            _ => return false,
        },
        syn::Expr::Struct(s) if s.qself.is_none() => (s.path.clone(), s.brace_token.span.close()),
        _ => return false,
    };
    let Some(last) = path.segments.last() else {
        return false;
    };
    let name = last.ident.to_string();
    let strong = path.segments.len() > 1 || cx.facts().imports.contains_key(&name);
    let Some(change) = changes_named(&name)
        .find(|c| matches!(c.kind, Kind::Unwrapped { .. }) && applies(c, version, strong))
    else {
        return false;
    };
    if !is_rmcp(cx, &path) {
        return false;
    }
    let first = path
        .leading_colon
        .map(|c| c.spans[0])
        .unwrap_or_else(|| path.segments[0].ident.span());
    report(cx, change, first, close);
    true
}

/// A call of an rmcp function that no longer returns a `Result` (`Kind::Infallible`). Below the
/// release every call is reported (its result is a `Result` there); on or above it, the name is
/// current and only a call whose result is still handled as one is (`handled`, from the method
/// call or `?` around it).
pub(super) fn infallible_call(cx: &mut Cx<'_>, c: &syn::ExprCall, handled: bool) {
    let Some(version) = rmcp_version(cx) else {
        return;
    };
    let syn::Expr::Path(p) = &*c.func else {
        return;
    };
    let Some(last) = p.path.segments.last() else {
        return;
    };
    let name = last.ident.to_string();
    let strong = p.path.segments.len() > 1 || cx.facts().imports.contains_key(&name);
    let change = changes_named(&name).find(|ch| {
        let below = version.is_none_or(|v| v < ch.since);
        // A bare name not imported is as likely the crate's own helper.
        ch.kind == Kind::Infallible && strong && applies(ch, version, strong) && below != handled
    });
    if let Some(change) = change {
        if is_rmcp(cx, &prefix_path(&p.path, p.path.segments.len() - 1)) {
            report(cx, change, last.ident.span(), last.ident.span());
        }
    }
}

/// The enum path every arm of a `match` names (`Reference::Prompt(p)`, `&Reference::Resource(r)`,
/// or-patterns of them), when no arm is a catch-all.
pub(super) fn matched_enum(m: &syn::ExprMatch) -> Option<syn::Path> {
    fn paths<'p>(p: &'p syn::Pat, out: &mut Vec<&'p syn::Path>) -> bool {
        match p {
            syn::Pat::Path(pp) => out.push(&pp.path),
            syn::Pat::TupleStruct(t) => out.push(&t.path),
            syn::Pat::Struct(st) => out.push(&st.path),
            syn::Pat::Reference(r) => return paths(&r.pat, out),
            syn::Pat::Paren(pp) => return paths(&pp.pat, out),
            syn::Pat::Or(o) => return o.cases.iter().all(|c| paths(c, out)),
            _ => return false,
        }
        true
    }
    let mut all = Vec::new();
    for arm in &m.arms {
        if !paths(&arm.pat, &mut all) {
            return None;
        }
    }
    let first = all.first()?;
    let n = first.segments.len();
    if n < 2 {
        return None;
    }
    let enum_name = &first.segments[n - 2].ident;
    if !all
        .iter()
        .all(|p| p.segments.len() >= 2 && &p.segments[p.segments.len() - 2].ident == enum_name)
    {
        return None;
    }
    Some(prefix_path(first, n - 2))
}

/// A `match` with no catch-all arm over an rmcp enum that became `#[non_exhaustive]`.
pub(super) fn exhaustive_match(cx: &mut Cx<'_>, m: &syn::ExprMatch) {
    let Some(version) = rmcp_version(cx) else {
        return;
    };
    let Some(path) = matched_enum(m) else {
        return;
    };
    let Some(last) = path.segments.last() else {
        return;
    };
    let name = last.ident.to_string();
    let exhaustive = |name: &str| {
        changes_named(name)
            .find(|c| matches!(c.kind, Kind::ExhaustiveMatch { .. }) && applies(c, version, true))
    };
    // A name renamed since (`PrimitiveSchema`, kept by a re-export's alias) matches the enum of
    // its new name.
    let change = exhaustive(&name).or_else(|| {
        changes_named(&name)
            .find(|c| c.kind == Kind::Item)
            .and_then(|c| exhaustive(c.new))
    });
    if let Some(change) = change {
        if is_rmcp(cx, &path) {
            report(cx, change, m.match_token.span, m.expr.span());
        }
    }
}

/// The `Kind::NowOption` row of field `field`, when the package is below its release and the
/// file names the field's struct and rmcp (a field name alone is anybody's).
pub(super) fn now_option(cx: &Cx<'_>, field: &str) -> Option<&'static Change> {
    let version = rmcp_version(cx)?;
    if !cx.facts().mentions(&RMCP) {
        return None;
    }
    let text = cx.line_index().text();
    changes_named(field).find(|c| match c.kind {
        Kind::NowOption { of } => version.is_none_or(|v| v < c.since) && names(text, of),
        _ => false,
    })
}

/// `%param.field` among a macro's tokens (tracing's Display sigil) for a `Kind::NowOption`
/// field: reported from the `%` to the field.
pub(super) fn now_option_logged(cx: &mut Cx<'_>, tokens: &proc_macro2::TokenStream) {
    use proc_macro2::TokenTree;
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    for (i, t) in trees.iter().enumerate() {
        match t {
            TokenTree::Group(g) => now_option_logged(cx, &g.stream()),
            TokenTree::Punct(p) if p.as_char() == '%' => {
                // `% a . b . field`: identifiers joined by dots, the last one the field.
                let mut j = i + 1;
                let mut last = None;
                while let Some(TokenTree::Ident(id)) = trees.get(j) {
                    last = Some(id);
                    match trees.get(j + 1) {
                        Some(TokenTree::Punct(d)) if d.as_char() == '.' => j += 2,
                        _ => break,
                    }
                }
                let Some(field) = last.filter(|_| j > i + 1) else {
                    continue;
                };
                if let Some(change) = now_option(cx, &field.to_string()) {
                    report(cx, change, p.span(), field.span());
                }
            }
            _ => {}
        }
    }
}

/// `x.old = v` of a `Kind::DroppedField` row, where `v` names the row's marker.
pub(super) fn dropped_field(cx: &mut Cx<'_>, a: &syn::ExprAssign) {
    let Some(version) = rmcp_version(cx) else {
        return;
    };
    let syn::Expr::Field(f) = &*a.left else {
        return;
    };
    let syn::Member::Named(field) = &f.member else {
        return;
    };
    if !cx.facts().mentions(&RMCP) {
        return;
    }
    let value = {
        let r = cx.line_index().range(a.right.span());
        cx.line_index().text().get(r.start..r.end).unwrap_or("")
    };
    let change = changes_named(&field.to_string()).find(|c| {
        matches!(c.kind, Kind::DroppedField { marker } if names(value, marker))
            && applies(c, version, true)
    });
    if let Some(change) = change {
        report(cx, change, a.left.span(), a.right.span());
    }
}

/// Whether `text` names `name` (as a whole identifier) only in `use` items. An occurrence is in
/// one when the statement around it, from the `;` before it, starts with `use` (after attributes
/// and a visibility).
pub(super) fn only_imported(text: &str, name: &str) -> bool {
    let bytes = text.as_bytes();
    memchr::memmem::find_iter(bytes, name.as_bytes())
        .filter(|&at| crate::reading::lexer::stands_alone(bytes, at, at + name.len()))
        .all(|at| {
            // The `;` that ended the statement before: not one in a line comment.
            let mut before = at;
            let from = loop {
                match text[..before].rfind(';') {
                    Some(i) => {
                        let line = text[..i].rfind('\n').map_or(0, |l| l + 1);
                        if !text[line..i].contains("//") {
                            break i + 1;
                        }
                        before = i;
                    }
                    None => break 0,
                }
            };
            // Comments, `#[cfg(..)]` lines and a `pub(crate)` before the `use`.
            let mut stmt = text[from..at].trim_start();
            loop {
                let (open, close) = if stmt.starts_with("//") {
                    ("//", "\n")
                } else if stmt.starts_with("/*") {
                    ("/*", "*/")
                } else if stmt.starts_with("#[") {
                    ("#[", "]")
                } else {
                    break;
                };
                stmt = stmt[open.len()..]
                    .find(close)
                    .map_or("", |i| stmt[open.len() + i + close.len()..].trim_start());
            }
            let stmt = stmt.strip_prefix("pub").map_or(stmt, |rest| {
                let rest = rest.trim_start();
                match rest.strip_prefix('(') {
                    Some(r) => r.find(')').map_or(rest, |i| r[i + 1..].trim_start()),
                    None => rest,
                }
            });
            stmt.starts_with("use ")
        })
}

/// Whether `text` holds `name` as a whole identifier.
pub(super) fn names(text: &str, name: &str) -> bool {
    memchr::memmem::find_iter(text.as_bytes(), name.as_bytes())
        .any(|at| crate::reading::lexer::stands_alone(text.as_bytes(), at, at + name.len()))
}

/// `ctx.meta.clone()`: a `Kind::Newtyped` field of an rmcp handler context taken whole, which on
/// the release is the newtype, not the value the code fed on.
pub(super) fn newtyped_field(cx: &mut Cx<'_>, mc: &syn::ExprMethodCall) {
    if !mc.args.is_empty() || mc.method != "clone" {
        return;
    }
    let syn::Expr::Field(f) = &*mc.receiver else {
        return;
    };
    let syn::Member::Named(field) = &f.member else {
        return;
    };
    let Some(version) = rmcp_version(cx) else {
        return;
    };
    let Some(change) =
        changes_named(&field.to_string()).find(|c| matches!(c.kind, Kind::Newtyped { .. }))
    else {
        return;
    };
    let Kind::Newtyped { was, .. } = change.kind else {
        return;
    };
    let on_context = matches!(cx.value_of(&f.base).kind,
        crate::model::scope::Kind::Context { sdk, .. } if std::ptr::eq(sdk, &RMCP));
    // At or above the release the newtype may be what the code wants; a file that still names
    // the old type is code written for the old field.
    let below = version.is_none_or(|v| v < change.since);
    if on_context && (below || names(cx.line_index().text(), was)) {
        report(cx, change, field.span(), field.span());
    }
}

/// `Found { size: resource.size, .. }`, a literal of the crate's own struct whose field keeps the
/// old type of a field rmcp widened (`Kind::Widened`): the value read from rmcp's struct no longer
/// fits. Reported on the read field, where the fix converts it back.
pub(super) fn widened_read(cx: &mut Cx<'_>, lit: &syn::ExprStruct) {
    let Some(version) = rmcp_version(cx) else {
        return;
    };
    let Some(own) = lit.path.get_ident().map(|i| i.to_string()) else {
        return;
    };
    if !cx.facts().local_types.contains(&own) || !cx.facts().mentions(&RMCP) {
        return;
    }
    for f in &lit.fields {
        let syn::Member::Named(field) = &f.member else {
            continue;
        };
        let syn::Expr::Field(read) = &f.expr else {
            continue;
        };
        let syn::Member::Named(read_name) = &read.member else {
            continue;
        };
        let Some(change) = changes_named(&read_name.to_string())
            .find(|c| matches!(c.kind, Kind::Widened { .. }) && applies(c, version, true))
        else {
            continue;
        };
        let Kind::Widened { of, from, .. } = change.kind else {
            continue;
        };
        // The crate's field still has the old type, and the file names the widened struct.
        let narrow = cx
            .facts()
            .fields
            .get(&(own.clone(), field.to_string()))
            .is_some_and(|ty| {
                let t = quote::ToTokens::to_token_stream(ty)
                    .to_string()
                    .replace(' ', "");
                t == format!("Option<{from}>")
            });
        let text = cx.line_index().text();
        if narrow && of.iter().any(|o| names(text, o)) {
            report(cx, change, read_name.span(), read_name.span());
        }
    }
}
