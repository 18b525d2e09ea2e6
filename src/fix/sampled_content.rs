//! `.raw` of a sampling message's content matched against a content variant, the rmcp 0.14 way:
//! `if let RawContent::Text(t) = &result.message.content.raw`. Since 0.15 (#628) that content is
//! one block or several (`SamplingContent<SamplingMessageContentBlock>`), so dropping `.raw` as
//! for a plain content would not fit. The match reads the first block instead:
//! `if let Some(SamplingMessageContentBlock::Text(t)) = result.message.content.first()`. A
//! binding keeps its type's fields (`t.text`: `RawTextContent` then, `TextContent` now).
//!
//! Every arm but `_` is wrapped in `Some(..)`, its content path renamed (`RawContent`,
//! `ContentBlock` or `Content`, as the rename of the same run may have left it). An arm that
//! binds the whole value (`other =>`) would bind the `Option` now: left to the guidance.

use crate::finding::{Applicability, Fix};
use crate::fix::rmcp::text::range_of;
use crate::reading::source::LineIndex;

/// Whether the `.raw` link ending at `end` reads a sampling message's content
/// (`result.message.content.raw`), by the text of the expression it is read off.
pub fn is_sampled(idx: &LineIndex, file: &syn::File, end: usize) -> bool {
    let raw_field = crate::fix::find_expr::find(
        file,
        &|e| matches!(e, syn::Expr::Field(f) if range_of(&f.member, idx).is_some_and(|(_, e)| e == end)),
    );
    let Some(syn::Expr::Field(f)) = raw_field else {
        return false;
    };
    crate::fix::upgrade::expr_text(idx, &f.base).is_some_and(|base| {
        use crate::model::sdk::rmcp_upgrade::{receiver_ends_in, SAMPLED_CONTENT};
        receiver_ends_in(&base, SAMPLED_CONTENT)
    })
}

/// The fix of `.raw` at `start..end` (the `.raw` link) when it ends the scrutinee of an
/// `if let` or a `match` whose patterns are content variants; `None` otherwise.
pub fn plan(idx: &LineIndex, file: &syn::File, start: usize, end: usize) -> Option<Fix> {
    let scrutinee_of = |e: &syn::Expr| -> Option<(usize, usize)> {
        let mut e = e;
        while let syn::Expr::Reference(r) = e {
            e = &r.expr;
        }
        let syn::Expr::Field(f) = e else { return None };
        let (s, e_end) = range_of(f, idx)?;
        let (_, member_end) = range_of(&f.member, idx)?;
        (member_end == end && s < start).then_some((s, e_end))
    };
    let found = crate::fix::find_expr::find(file, &|e| match e {
        syn::Expr::Let(l) => scrutinee_of(&l.expr).is_some(),
        syn::Expr::Match(m) => scrutinee_of(&m.expr).is_some(),
        _ => false,
    })?;
    let (scrutinee, pats): (&syn::Expr, Vec<&syn::Pat>) = match &found {
        syn::Expr::Let(l) => (&l.expr, vec![&*l.pat]),
        syn::Expr::Match(m) => (&m.expr, m.arms.iter().map(|a| &a.pat).collect()),
        _ => return None,
    };
    let (s, e) = range_of(scrutinee, idx)?;
    let text = idx.text();
    // `&result.message.content.raw` → `result.message.content.first()`.
    let inner = text.get(s..e)?.trim_start_matches('&').trim_start();
    let base = inner.strip_suffix(text.get(start..end)?)?.trim_end();
    let mut edits = vec![idx.edit(s, e, format!("{base}.first()"))];
    for pat in pats {
        if matches!(pat, syn::Pat::Wild(_)) {
            continue;
        }
        let renamed = renamed_pattern(idx, pat)?;
        let (ps, pe) = range_of(pat, idx)?;
        edits.push(idx.edit(ps, pe, format!("Some({renamed})")));
    }
    Some(Fix {
        applicability: Applicability::Unsafe,
        message: "match the first block of the sampling message's content (one block or several \
since rmcp 0.15)"
            .into(),
        edits,
        other_files: Vec::new(),
    })
}

/// The pattern's text with its content path renamed to `SamplingMessageContentBlock` (`A | B`
/// case by case); `None` for a pattern that names no content variant (a binding of the whole
/// value, a literal).
fn renamed_pattern(idx: &LineIndex, pat: &syn::Pat) -> Option<String> {
    let path = match pat {
        syn::Pat::Or(o) => {
            let cases: Option<Vec<String>> =
                o.cases.iter().map(|c| renamed_pattern(idx, c)).collect();
            return cases.map(|c| c.join(" | "));
        }
        syn::Pat::TupleStruct(t) => &t.path,
        syn::Pat::Struct(s) => &s.path,
        syn::Pat::Path(p) => &p.path,
        _ => return None,
    };
    let variant = path.segments.last()?;
    if !crate::model::sdk::rmcp_upgrade::names_content_variant(path) {
        return None;
    }
    // What follows the path (`(t)`, `{ text, .. }`), as written.
    let (_, path_end) = range_of(path, idx)?;
    let (_, pat_end) = range_of(pat, idx)?;
    let rest = idx.text().get(path_end..pat_end)?;
    Some(format!(
        "SamplingMessageContentBlock::{}{rest}",
        variant.ident
    ))
}
