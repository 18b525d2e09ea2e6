//! `.raw` of the wrapper rmcp 2.0 removed (`Annotated<T>`, #927): a `Content` was an
//! `Annotated<RawContent>` and a `Resource` an `Annotated<RawResource>`, whose `raw` field held
//! the value. Since, the value is the content or resource itself, so `x.raw` becomes `x` where
//! the code shows it read the wrapper's field: a field or method of the wrapped type read through
//! it (`resource.raw.uri`), or a pattern of the wrapped type matched against it
//! (`match &content.raw { RawContent::Text(t) => .. }`). The fix (`fix::upgrade`) drops `.raw`.

use crate::model::fast_hash::HashSet;

use syn::spanned::Spanned;

use super::{rmcp_version, RENAMED};
use crate::model::sdk::rmcp::RMCP;
use crate::model::sdk::rmcp_upgrade::{applies, changes_named, Change, Kind};
use crate::rules::engine::{Cx, Draft};

/// `x.raw` read through (`x.raw.uri`, `x.raw.as_text()`) where `raw` is the field of a wrapper
/// rmcp removed: the wrapped value's fields and methods are the value's own since. Called with
/// the base of a field access or the receiver of a call, so a lone `x.raw` (another type's
/// field, or the wrapped value handed on whole) is left alone here, and so is what reads on
/// with a name the wrapped types do not have (`frame.raw.len()`). Only in a package below the
/// release (or whose code shows it is), in a file that names rmcp and a type that was wrapped.
pub(super) fn wrapper_field(cx: &mut Cx<'_>, base: &syn::Expr, next: &syn::Ident) {
    // The fields of the resources and templates `Annotated` wrapped, and the accessors of its
    // contents.
    const WRAPPED: &[&str] = &[
        "uri",
        "uri_template",
        "name",
        "title",
        "description",
        "mime_type",
        "size",
        "icons",
        "meta",
        "as_text",
        "as_image",
        "as_resource",
        "as_audio",
        "as_resource_link",
    ];
    // The wrapped value taken whole (`resource.raw.clone()`): since the wrapper went, the value
    // is that copy itself. A `raw` field of the file's own structs is another story.
    const WHOLE: &[&str] = &["clone", "to_owned"];
    let whole = WHOLE.iter().any(|w| next == w);
    if !whole && !WRAPPED.iter().any(|w| next == w) {
        return;
    }
    let syn::Expr::Field(inner) = base else {
        return;
    };
    let Some((change, name)) = wrapper_of(inner) else {
        return;
    };
    // Where no struct of this file has a field of that name, `x.raw` read through is the code's
    // own evidence of the old API, whatever the manifest now says (a bump by hand); a clone of
    // it is only then the wrapper's.
    let own_field = cx.facts().fields_by_name.contains_key(&name);
    if whole && own_field {
        return;
    }
    let text = cx.line_index().text();
    if !["Resource", "Content", "Annotated"]
        .iter()
        .any(|w| memchr::memmem::find(text.as_bytes(), w.as_bytes()).is_some())
    {
        return;
    }
    emit(cx, inner, change, &name, !own_field);
}

/// `x.raw` matched against a pattern of a type the wrapper held: `match &content.raw {
/// RawContent::Text(t) => .. }`, `if let RawContent::Text(ref mut t) = block.raw`,
/// `let RawContent::Text(t) = c.raw else { .. }`, `matches!(c.raw, RawContent::Image(_))`. The
/// pattern is the evidence (rmcp names the wrapped types `Raw*`, which the upgrade renames to the
/// types that stand alone since), so it counts whatever the manifest says; and since the
/// content is the enum itself now, `match &content` binds as `match &content.raw` did.
pub(super) fn wrapper_scrutinee<'p>(
    cx: &mut Cx<'_>,
    scrutinee: &syn::Expr,
    pats: impl IntoIterator<Item = &'p syn::Pat>,
) {
    let Some((inner, change, name)) = lone_wrapper_field(scrutinee) else {
        return;
    };
    let local = &cx.facts().local_types;
    // A sampling message's content matched by a content variant, whichever name the same run's
    // rename left on it (`RawContent::Text`, `ContentBlock::Text`): only rmcp's sampled content
    // has that path and those variants.
    let sampled = of_sampled_content(cx, inner);
    if !pats
        .into_iter()
        .any(|p| names_wrapped_type(p, change, local) || (sampled && names_content_variant(p)))
    {
        return;
    }
    emit(cx, inner, change, &name, true);
}

/// Whether the pattern is a variant of a content enum by any of its names (`RawContent::Text(t)`,
/// `ContentBlock::Text(t)`, `Content::Image { .. }`), or an `|` of such.
fn names_content_variant(pat: &syn::Pat) -> bool {
    let path = match pat {
        syn::Pat::Or(o) => return o.cases.iter().any(names_content_variant),
        syn::Pat::Reference(r) => return names_content_variant(&r.pat),
        syn::Pat::TupleStruct(t) => &t.path,
        syn::Pat::Struct(s) => &s.path,
        syn::Pat::Path(p) => &p.path,
        _ => return false,
    };
    crate::model::sdk::rmcp_upgrade::names_content_variant(path)
}

/// `x.raw` handed to a fn of this file whose parameter there has a type the wrapper held:
/// `describe(&content.raw)` into `fn describe(raw: &RawContent)`, which the upgrade renames
/// `&ContentBlock`, what `&content` is since.
pub(super) fn wrapper_argument<'a>(
    cx: &mut Cx<'_>,
    callee: &syn::Ident,
    args: impl IntoIterator<Item = &'a syn::Expr>,
) {
    if cx.facts().old_typed_params.is_empty() {
        return;
    }
    for (i, arg) in args.into_iter().enumerate() {
        let Some((inner, change, name)) = lone_wrapper_field(arg) else {
            continue;
        };
        let typed = cx
            .facts()
            .old_typed_params
            .get(&callee.to_string())
            .and_then(|ps| ps.iter().find(|(at, _)| *at == i))
            .is_some_and(|(_, ty)| is_wrapped_name(ty, change, &cx.facts().local_types));
        if typed {
            emit(cx, inner, change, &name, true);
        }
    }
}

/// `x.raw`, `&x.raw` or `&mut x.raw` of the wrapper: the field access, its row and its name.
fn lone_wrapper_field(e: &syn::Expr) -> Option<(&syn::ExprField, &'static Change, String)> {
    let mut e = e;
    loop {
        match e {
            syn::Expr::Reference(r) => e = &r.expr,
            syn::Expr::Paren(p) => e = &p.expr,
            _ => break,
        }
    }
    let syn::Expr::Field(inner) = e else {
        return None;
    };
    let (change, name) = wrapper_of(inner)?;
    Some((inner, change, name))
}

/// The `Annotated` row whose wrapped field `inner` reads (`x.raw`), and the field's name.
fn wrapper_of(inner: &syn::ExprField) -> Option<(&'static Change, String)> {
    let syn::Member::Named(member) = &inner.member else {
        return None;
    };
    let name = member.to_string();
    let change = changes_named("Annotated")
        .find(|c| matches!(c.kind, Kind::Unwrapped { inner, .. } if inner == name))?;
    Some((change, name))
}

/// Whether the pattern names a type the wrapper held: one the upgrade renames in the wrapper's
/// own release (`RawContent`, `RawResource`), at any depth of the pattern.
fn names_wrapped_type(pat: &syn::Pat, wrapper: &Change, local: &HashSet<String>) -> bool {
    let wrapped = |path: &syn::Path| {
        path.segments
            .iter()
            .any(|s| is_wrapped_name(&s.ident.to_string(), wrapper, local))
    };
    let any = |p: &syn::Pat| names_wrapped_type(p, wrapper, local);
    match pat {
        syn::Pat::TupleStruct(t) => wrapped(&t.path) || t.elems.iter().any(any),
        syn::Pat::Struct(s) => wrapped(&s.path),
        syn::Pat::Path(p) => wrapped(&p.path),
        syn::Pat::Or(o) => o.cases.iter().any(any),
        syn::Pat::Reference(r) => any(&r.pat),
        syn::Pat::Paren(p) => any(&p.pat),
        syn::Pat::Ident(i) => i.subpat.as_ref().is_some_and(|(_, p)| any(p)),
        _ => false,
    }
}

/// A type the wrapper held (rmcp names them `Raw*`: `RawContent`, `RawResource`), which the
/// upgrade renames in the wrapper's own release to the type that stands alone since.
/// A type of the file's own by that name is not rmcp's.
fn is_wrapped_name(name: &str, wrapper: &Change, local: &HashSet<String>) -> bool {
    name.starts_with("Raw")
        && !local.contains(name)
        && changes_named(name)
            .any(|c| c.kind == Kind::Item && c.pr == wrapper.pr && c.since == wrapper.since)
}

/// The finding on `.raw`, in a package below the wrapper's release, or on or above it when
/// `evidence` (the code's own) says the wrapper is meant; only in a file that names rmcp.
fn emit(cx: &mut Cx<'_>, inner: &syn::ExprField, change: &Change, name: &str, evidence: bool) {
    let Some(version) = rmcp_version(cx) else {
        return;
    };
    if !applies(change, version, evidence) || !cx.facts().mentions(&RMCP) {
        return;
    }
    let since = format!("{}.{}", change.since.0, change.since.1);
    let help = if of_sampled_content(cx, inner) {
        // Not a content of the kind the wrapper held: a sampling message's, one block or several
        // since 0.15, so dropping `.raw` would not fit (the fix leaves it to this guidance).
        format!("{SAMPLED_CONTENT_HELP} (rmcp PRs #628, #{})", change.pr)
    } else {
        format!(
            "drop `.{name}` (rmcp PR #{}): read the field of the value itself",
            change.pr
        )
    };
    cx.emit(Draft {
        code: RENAMED,
        first: inner.dot_token.span,
        last: inner.member.span(),
        message: format!(
            "`.{name}` is gone in rmcp {since} and later: `{}<T>` went, and its `T`'s fields are the value's own",
            change.old
        ),
        mcp_method: None,
        sdk: Some(RMCP.name),
        help: Some(help),
    });
}

/// Whether `x.raw` is read off a sampling message's content (`result.message.content.raw`).
fn of_sampled_content(cx: &Cx<'_>, inner: &syn::ExprField) -> bool {
    let base = cx.line_index().range(inner.base.span());
    let text = cx.line_index().text().get(base.start..base.end);
    use crate::model::sdk::rmcp_upgrade::{receiver_ends_in, SAMPLED_CONTENT};
    receiver_ends_in(text.unwrap_or_default(), SAMPLED_CONTENT)
}

/// What to write for `.raw` of a sampling message's content.
pub(crate) const SAMPLED_CONTENT_HELP: &str = "a sampling message's `content` is a \
`SamplingContent` since rmcp 0.15 (one block or several): match its first block, \
`if let Some(SamplingMessageContentBlock::Text(t)) = result.message.content.first()`";
