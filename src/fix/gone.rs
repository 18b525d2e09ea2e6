//! Fixes for rmcp APIs that are gone but leave a mechanical rewrite behind (rows of
//! `sdk::rmcp_upgrade`): a wrapper folded into what it wrapped (`Kind::Unwrapped`), a type with
//! no counterpart whose values only fed a removed field (`Kind::Unit`), and the assignment of that
//! field (`Kind::DroppedField`); and the error handling on a call that can no longer fail
//! (`Kind::Infallible`). Each returns `None` where the code is not of the shape the row
//! knows; the finding's guidance stays.

use crate::finding::{Applicability, Edit, Fix};
use crate::model::sdk::rmcp_upgrade::{changes_named, Change, Kind, CHANGES, RESULT_HANDLERS};
use crate::reading::source::LineIndex;

use super::upgrade::{expr_text, first_token, last_token, option_literal, use_leaf_removal};

/// The `Kind::Unwrapped` row whose wrapper the finding's text names (`Annotated<RawResource>`,
/// `rmcp::model::Annotated::new(..)`, a `use` leaf).
pub(super) fn wrapper_in(text: &str) -> Option<&'static Change> {
    let head = text.split(['<', '(', '{']).next()?;
    let name = head
        .trim()
        .trim_end_matches("::new")
        .rsplit("::")
        .next()?
        .trim();
    CHANGES
        .iter()
        .find(|c| c.old == name && matches!(c.kind, Kind::Unwrapped { .. }))
}

/// The fix of a `Kind::Unwrapped` finding over `start..end`.
pub(super) fn plan(
    idx: &LineIndex,
    file: &syn::File,
    start: usize,
    end: usize,
    change: &Change,
) -> Option<Fix> {
    let Kind::Unwrapped {
        inner,
        extra,
        setter,
    } = change.kind
    else {
        return None;
    };
    let text = idx.text().get(start..end)?;
    let old = change.old;
    if text == old {
        // A `use` leaf: the wrapper is no more, nor its import.
        return Some(Fix {
            applicability: Applicability::Safe,
            message: format!("drop the import of `{old}`"),
            edits: vec![use_leaf_removal(idx, file, start)?],
            other_files: Vec::new(),
        });
    }
    if text.ends_with('>') && text.trim_start().starts_with(old) {
        // `Old<T>` is `T`: the name and its brackets go.
        let open = start + text.find('<')? + 1;
        return Some(Fix {
            applicability: Applicability::Safe,
            message: format!("write the type `{old}` wrapped"),
            edits: vec![
                idx.edit(start, open, String::new()),
                idx.edit(end - 1, end, String::new()),
            ],
            other_files: Vec::new(),
        });
    }
    let (wrapped, annotations) = parts(idx, file, start, end, inner, extra)?;
    let range = idx.range_between(first_token(&wrapped), last_token(&wrapped));
    let value = match &annotations {
        None => None,
        Some(a) => option_literal(a)?,
    };
    let Some(value) = value else {
        // `None`: the wrapped value is all there is.
        return Some(Fix {
            applicability: Applicability::Safe,
            message: format!("keep the value `{old}` wrapped"),
            edits: vec![
                idx.edit(start, range.start, String::new()),
                idx.edit(range.end, end, String::new()),
            ],
            other_files: Vec::new(),
        });
    };
    // A value a method call binds to as it is; anything else in parentheses.
    let bare = matches!(
        &wrapped,
        syn::Expr::Struct(_)
            | syn::Expr::Call(_)
            | syn::Expr::MethodCall(_)
            | syn::Expr::Path(_)
            | syn::Expr::Paren(_)
            | syn::Expr::Field(_)
            | syn::Expr::Macro(_)
    );
    let (open, close) = if bare { ("", "") } else { ("(", ")") };
    Some(Fix {
        applicability: Applicability::Unsafe,
        message: format!("set `{extra}` on the value `{old}` wrapped, with `.{setter}(..)`"),
        edits: vec![
            idx.edit(start, range.start, open.to_string()),
            idx.edit(
                range.end,
                end,
                format!("{close}.{setter}({})", expr_text(idx, value)?),
            ),
        ],
        other_files: Vec::new(),
    })
}

/// The wrapped value and the annotations of `Old::new(x, a)` or `Old { inner: x, extra: a }`
/// spanning `start..end`; the annotations `None` when the literal leaves them out.
fn parts(
    idx: &LineIndex,
    file: &syn::File,
    start: usize,
    end: usize,
    inner: &str,
    extra: &str,
) -> Option<(syn::Expr, Option<syn::Expr>)> {
    let found = super::find_expr::find(file, &|e| {
        matches!(e, syn::Expr::Call(_) | syn::Expr::Struct(_)) && {
            let r = idx.range_between(first_token(e), last_token(e));
            (r.start, r.end) == (start, end)
        }
    });
    match found? {
        syn::Expr::Call(c) if c.args.len() == 2 => {
            let mut args = c.args.into_iter();
            Some((args.next()?, args.next()))
        }
        syn::Expr::Struct(s) if s.rest.is_none() => {
            let mut wrapped = None;
            let mut other = None;
            for f in s.fields {
                let syn::Member::Named(name) = &f.member else {
                    return None;
                };
                if name == inner {
                    wrapped = Some(f.expr);
                } else if name == extra && other.is_none() {
                    other = Some(f.expr);
                } else {
                    return None;
                }
            }
            Some((wrapped?, other))
        }
        _ => None,
    }
}

/// The fix of an MCP203 finding over `start..end` whose row knows one: `()` for a
/// `Kind::Unit` type or one of its listed variants (the `use` leaf dropped), the statement of a
/// `Kind::DroppedField` assignment deleted.
pub(super) fn removed(idx: &LineIndex, file: &syn::File, start: usize, end: usize) -> Option<Fix> {
    let text = idx.text().get(start..end)?;
    let last = text.rsplit("::").next()?.trim();
    let unit = |name: &str| {
        changes_named(name).find_map(|c| match c.kind {
            Kind::Unit { variants } => Some((c, variants)),
            _ => None,
        })
    };
    if let Some((change, _)) = unit(last) {
        if let Some(edit) = use_leaf_removal(idx, file, start) {
            return Some(Fix {
                applicability: Applicability::Unsafe,
                message: format!("drop the import of `{}`", change.old),
                edits: vec![edit],
                other_files: Vec::new(),
            });
        }
        return Some(unit_fix(idx, start, end, change.old));
    }
    // `Type::Variant`: the variant must be one the row vouches for.
    let mut segments = text.rsplit("::").map(str::trim);
    let (variant, ty) = (segments.next()?, segments.next()?);
    if let Some((change, variants)) = unit(ty) {
        return variants
            .contains(&variant)
            .then(|| unit_fix(idx, start, end, change.old));
    }
    let field = text.split('=').next()?.trim().rsplit('.').next()?.trim();
    changes_named(field).find(|c| matches!(c.kind, Kind::DroppedField { .. }))?;
    statement_removal(idx, start, end).map(|edit| Fix {
        applicability: Applicability::Unsafe,
        message: format!("drop the assignment of `{field}`, which rmcp 3.x does not have"),
        edits: vec![edit],
        other_files: Vec::new(),
    })
}

fn unit_fix(idx: &LineIndex, start: usize, end: usize, old: &str) -> Fix {
    Fix {
        applicability: Applicability::Unsafe,
        message: format!("write `()` for `{old}`, which carries nothing on rmcp 3.x"),
        edits: vec![idx.edit(start, end, "()".to_string())],
        other_files: Vec::new(),
    }
}

/// The edit deleting the expression statement `start..end;` with its line, when it stands on a
/// line of its own.
fn statement_removal(idx: &LineIndex, start: usize, end: usize) -> Option<Edit> {
    let text = idx.text();
    let after = &text[end..];
    let semi = end + after.find(|c: char| !c.is_whitespace())?;
    if !text[semi..].starts_with(';') {
        return None;
    }
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    if !text[line_start..start].trim().is_empty() {
        return None;
    }
    let mut to = semi + 1;
    if text[to..].starts_with('\n') {
        to += 1;
    }
    Some(idx.edit(line_start, to, String::new()))
}

/// `f::<T>().unwrap_or_else(..)` or `f::<T>()?` of a `Kind::Infallible` function named at `at`:
/// the handling goes, the call stays.
pub(super) fn infallible(idx: &LineIndex, file: &syn::File, at: usize, name: &str) -> Option<Fix> {
    changes_named(name).find(|c| c.kind == Kind::Infallible)?;
    let named_at = |e: &syn::Expr| {
        matches!(e, syn::Expr::Call(c) if matches!(&*c.func, syn::Expr::Path(p)
            if p.path.segments.last().is_some_and(|s| idx.range(s.ident.span()).start == at)))
    };
    let handled = super::find_expr::find(file, &|e| match e {
        syn::Expr::MethodCall(m) => {
            RESULT_HANDLERS.contains(&m.method.to_string().as_str()) && named_at(&m.receiver)
        }
        syn::Expr::Try(t) => named_at(&t.expr),
        _ => false,
    })?;
    let (call, end) = match &handled {
        syn::Expr::MethodCall(m) => (&*m.receiver, idx.range(m.paren_token.span.close()).end),
        syn::Expr::Try(t) => (&*t.expr, idx.range(t.question_token.span).end),
        _ => return None,
    };
    let from = idx.range(last_token(call)).end;
    Some(Fix {
        applicability: Applicability::Unsafe,
        message: format!("drop the error handling: `{name}` cannot fail on rmcp 3.x"),
        edits: vec![idx.edit(from, end, String::new())],
        other_files: Vec::new(),
    })
}

/// A `_ => unreachable!(..)` arm for the `match` at `at` over a `Kind::ExhaustiveMatch` enum,
/// when its unguarded arms name every variant 3.x has: the arm cannot be reached on the release
/// the upgrade lands on.
pub(super) fn catch_all(
    idx: &LineIndex,
    file: &syn::File,
    at: usize,
    f: &crate::finding::Finding,
) -> Option<Fix> {
    let name = f.message.split('`').nth(3)?;
    let variants = changes_named(name).find_map(|c| match c.kind {
        Kind::ExhaustiveMatch { variants } => Some(variants),
        _ => None,
    })?;
    let found = super::find_expr::find(
        file,
        &|e| matches!(e, syn::Expr::Match(m) if idx.range(m.match_token.span).start == at),
    );
    let Some(syn::Expr::Match(m)) = found else {
        return None;
    };
    let mut named = Vec::new();
    for arm in m.arms.iter().filter(|a| a.guard.is_none()) {
        variants_of(&arm.pat, &mut named);
    }
    if !variants.iter().all(|v| named.contains(&v.to_string())) {
        return None;
    }
    let last = m.arms.last()?;
    let text = idx.text();
    let body_end = idx.range(last_token(&last.body)).end;
    let indent = crate::fix::rmcp::text::indent_at(text, idx.range(first_pat(&last.pat)).start);
    let target = crate::model::sdk::rmcp_upgrade::TARGET;
    let arm = format!(
        "\n{indent}_ => unreachable!(\"rmcp {}.{} has no other `{name}`\"),",
        target.0, target.1
    );
    let (at, insert) = match &last.comma {
        Some(comma) => (idx.range(comma.span).end, arm),
        None => (body_end, format!(",{arm}")),
    };
    Some(Fix {
        applicability: Applicability::Unsafe,
        message: format!("add a `_` arm: the match names every `{name}` of rmcp 3.x"),
        edits: vec![idx.edit(at, at, insert)],
        other_files: Vec::new(),
    })
}

/// The variant names a pattern matches (`Reference::Prompt(..)` gives `Prompt`).
fn variants_of(p: &syn::Pat, out: &mut Vec<String>) {
    let path = match p {
        syn::Pat::Path(pp) => &pp.path,
        syn::Pat::TupleStruct(t) => &t.path,
        syn::Pat::Struct(s) => &s.path,
        syn::Pat::Reference(r) => return variants_of(&r.pat, out),
        syn::Pat::Paren(pp) => return variants_of(&pp.pat, out),
        syn::Pat::Or(o) => return o.cases.iter().for_each(|c| variants_of(c, out)),
        _ => return,
    };
    if let Some(last) = path.segments.last() {
        out.push(last.ident.to_string());
    }
}

fn first_pat(p: &syn::Pat) -> proc_macro2::Span {
    use quote::ToTokens;
    p.to_token_stream()
        .into_iter()
        .next()
        .map_or_else(proc_macro2::Span::call_site, |t| t.span())
}

/// `.old().await` of a `Kind::MethodMapped` method named at `at` → `.new().await` and the row's
/// `map`. Without the `.await` (a future handed on) the guidance stays.
pub(super) fn mapped(idx: &LineIndex, file: &syn::File, at: usize, name: &str) -> Option<Fix> {
    let change = changes_named(name).find(|c| matches!(c.kind, Kind::MethodMapped { .. }))?;
    let Kind::MethodMapped { map } = change.kind else {
        return None;
    };
    let found = super::find_expr::find(file, &|e| {
        matches!(e, syn::Expr::Await(a) if matches!(&*a.base, syn::Expr::MethodCall(m)
            if idx.range(m.method.span()).start == at))
    });
    let Some(syn::Expr::Await(a)) = found else {
        return None;
    };
    let end = idx.range(a.await_token.span).end;
    Some(Fix {
        applicability: Applicability::Unsafe,
        message: format!("call `{}` and take the old result from it", change.new),
        edits: vec![
            idx.edit(at, at + name.len(), change.new.to_string()),
            idx.edit(end, end, map.to_string()),
        ],
        other_files: Vec::new(),
    })
}

/// `recv.old(..)` (method name at `at`) as the `Kind::Replaced` row writes it, the receiver's
/// text for `$` and the arguments' for `$0`, `$1`, .. In parentheses when more follows the call
/// (`.then(..)`, `?`), which would otherwise bind to the template's last call instead.
pub(super) fn replaced(idx: &LineIndex, file: &syn::File, at: usize, name: &str) -> Option<Fix> {
    let change = changes_named(name).find(|c| matches!(c.kind, Kind::Replaced { .. }))?;
    let Kind::Replaced {
        with,
        receiver: path,
    } = change.kind
    else {
        return None;
    };
    let arity = crate::model::sdk::rmcp_upgrade::replaced_arity(with);
    let found = super::find_expr::find(file, &|e| {
        matches!(e, syn::Expr::MethodCall(m) if m.args.len() == arity
            && idx.range(m.method.span()).start == at)
    });
    let Some(syn::Expr::MethodCall(call)) = found else {
        return None;
    };
    let receiver = super::upgrade::expr_text(idx, &call.receiver)?;
    if path.is_some_and(|p| !crate::model::sdk::rmcp_upgrade::receiver_ends_in(&receiver, p)) {
        return None;
    }
    let args: Vec<String> = call
        .args
        .iter()
        .map(|a| super::upgrade::expr_text(idx, a))
        .collect::<Option<_>>()?;
    let start = idx.range(super::upgrade::first_token(&call.receiver)).start;
    let end = idx.range(call.paren_token.span.close()).end;
    let text = idx.text();
    // A template that is itself a chain on the receiver (`$.first()..`) takes more as it is.
    let more = text[end..].trim_start().starts_with(['.', '?', '[']) && !with.starts_with("$.");
    // One pass: a text put in may hold a `$` of its own.
    let mut body = String::new();
    let mut rest = with;
    while let Some(i) = rest.find('$') {
        body.push_str(&rest[..i]);
        rest = &rest[i + 1..];
        match rest.chars().next().and_then(|c| c.to_digit(10)) {
            Some(n) => {
                body.push_str(args.get(n as usize)?);
                rest = &rest[1..];
            }
            None => body.push_str(&receiver),
        }
    }
    body.push_str(rest);
    Some(Fix {
        applicability: Applicability::Unsafe,
        message: format!("write `{body}` instead of `.{name}(..)`"),
        edits: vec![idx.edit(start, end, if more { format!("({body})") } else { body })],
        other_files: Vec::new(),
    })
}

/// The `impl` of a `Kind::DroppedMethod` trait method named at `at`, deleted with its
/// attributes, doc comment and line.
pub(super) fn dropped_method(
    idx: &LineIndex,
    file: &syn::File,
    at: usize,
    name: &str,
) -> Option<Fix> {
    let change = changes_named(name).find(|c| matches!(c.kind, Kind::DroppedMethod { .. }))?;
    let f = impl_fn_at(idx, &file.items, at)?;
    let text = idx.text();
    // From the first attribute (a doc comment is one) or the signature, to the closing brace.
    let first = f
        .attrs
        .first()
        .map(|a| a.pound_token.span)
        .or_else(|| f.sig.constness.map(|t| t.span))
        .or_else(|| f.sig.asyncness.map(|t| t.span))
        .unwrap_or(f.sig.fn_token.span);
    let start = match &f.vis {
        syn::Visibility::Inherited => idx.range(first).start,
        _ => idx
            .range(first)
            .start
            .min(idx.range(syn::spanned::Spanned::span(&f.vis)).start),
    };
    let end = idx.range(f.block.brace_token.span.close()).end;
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    if !text[line_start..start].trim().is_empty() {
        return None;
    }
    let mut to = end;
    if text[to..].starts_with('\n') {
        to += 1;
    }
    // The blank line that set the method apart goes with it.
    let mut from = line_start;
    if text[..from].ends_with("\n\n") {
        from -= 1;
    }
    Some(Fix {
        applicability: Applicability::Unsafe,
        message: format!("drop `{}`: rmcp 3.x never calls it", change.old),
        edits: vec![idx.edit(from, to, String::new())],
        other_files: Vec::new(),
    })
}

/// The method of an `impl` (at any module depth) whose name starts at byte `at`.
fn impl_fn_at<'f>(
    idx: &LineIndex,
    items: &'f [syn::Item],
    at: usize,
) -> Option<&'f syn::ImplItemFn> {
    items.iter().find_map(|item| match item {
        syn::Item::Impl(i) => i.items.iter().find_map(|it| match it {
            syn::ImplItem::Fn(f) if idx.range(f.sig.ident.span()).start == at => Some(f),
            _ => None,
        }),
        syn::Item::Mod(m) => m
            .content
            .as_ref()
            .and_then(|(_, items)| impl_fn_at(idx, items, at)),
        _ => None,
    })
}

/// After a call whose result changed, a method that the `borrow` adapter gives the value the
/// code read before: a closure over the value, or `.cloned()` (which `Option<Arc<T>>` lacks).
fn reads_through_the_adapter(method: &syn::Ident) -> bool {
    method == "cloned"
        || crate::model::sdk::rmcp_upgrade::OPTION_CLOSURE_READS
            .iter()
            .any(|m| method == m)
}

/// `x.peer_info().and_then(|i| ..)` of the `Kind::MethodResult` rows the finding at `at` names
/// (its help holds their notes): a `borrow` adapter goes after the call, so the closure borrows
/// as it did from the old result, and an `optional` field read in an `and_then` closure goes
/// through `.as_ref()?`. Elsewhere the guidance stays: an owned new result may be what the code
/// needs (`let info = x.peer_info().unwrap();`).
pub(super) fn borrowed(
    idx: &LineIndex,
    file: &syn::File,
    at: usize,
    name: &str,
    f: &crate::finding::Finding,
) -> Option<Fix> {
    let help = f.help.as_deref().unwrap_or_default();
    let (mut adapters, mut optional) = (Vec::new(), Vec::new());
    for c in changes_named(name).filter(|c| help.contains(c.note)) {
        if let Kind::MethodResult {
            borrow,
            optional: o,
            ..
        } = c.kind
        {
            adapters.extend(borrow);
            optional.extend(o);
        }
    }
    let found = super::find_expr::find(file, &|e| {
        matches!(e, syn::Expr::MethodCall(outer)
            if reads_through_the_adapter(&outer.method)
                && matches!(&*outer.receiver, syn::Expr::MethodCall(m)
                    if m.args.is_empty() && idx.range(m.method.span()).start == at))
    });
    let Some(syn::Expr::MethodCall(outer)) = found else {
        return None;
    };
    let syn::Expr::MethodCall(call) = &*outer.receiver else {
        return None;
    };
    // A value whose field became optional (a 3.x client's `ServerPeerInfo`) is another type
    // even when cloned through the adapter: where the code keeps it whole, the guidance stays.
    if outer.method == "cloned" && !optional.is_empty() {
        return None;
    }
    let end = idx.range(call.paren_token.span.close()).end;
    let mut edits: Vec<Edit> = adapters
        .iter()
        .map(|a| idx.edit(end, end, a.to_string()))
        .collect();
    if outer.method == "and_then" {
        for field in &optional {
            edits.extend(through_option(idx, &outer, field));
        }
    }
    if edits.is_empty() {
        return None;
    }
    Some(Fix {
        applicability: Applicability::Unsafe,
        message: format!("read the new result as the old was read; {help}"),
        edits,
        other_files: Vec::new(),
    })
}

/// In `.and_then(|info| BODY)`, an insertion of `.as_ref()?` after each `info.field` that is read
/// further (`info.field.x`).
fn through_option(idx: &LineIndex, outer: &syn::ExprMethodCall, field: &str) -> Vec<Edit> {
    use syn::visit::Visit;
    struct Reads<'i, 'a> {
        idx: &'i LineIndex<'a>,
        param: syn::Ident,
        field: &'i str,
        out: Vec<Edit>,
    }
    impl<'ast> Visit<'ast> for Reads<'_, '_> {
        fn visit_expr_field(&mut self, e: &'ast syn::ExprField) {
            if let syn::Expr::Field(inner) = &*e.base {
                let named = matches!(&inner.member, syn::Member::Named(m) if m == self.field);
                let on_param =
                    matches!(&*inner.base, syn::Expr::Path(p) if p.path.is_ident(&self.param));
                if named && on_param {
                    let end = self.idx.range(last_token(&e.base)).end;
                    self.out
                        .push(self.idx.edit(end, end, ".as_ref()?".to_string()));
                }
            }
            syn::visit::visit_expr_field(self, e);
        }
    }
    let Some(syn::Expr::Closure(c)) = outer.args.first() else {
        return Vec::new();
    };
    let [syn::Pat::Ident(p)] = c.inputs.iter().collect::<Vec<_>>()[..] else {
        return Vec::new();
    };
    let mut reads = Reads {
        idx,
        param: p.ident.clone(),
        field,
        out: Vec::new(),
    };
    reads.visit_expr(&c.body);
    reads.out
}

/// Whether `field: value` (or `x.field = value`) sets a `Kind::DroppedField` field: the row's
/// marker names the value's type.
pub(super) fn dropped_field_value(field: &str, value: &str) -> bool {
    changes_named(field).any(|c| match c.kind {
        Kind::DroppedField { marker } => value.match_indices(marker).any(|(at, _)| {
            crate::reading::lexer::stands_alone(value.as_bytes(), at, at + marker.len())
        }),
        _ => false,
    })
}

/// `code == ErrorCode::URL_ELICITATION_REQUIRED` (or `!=`, either side), the constant rmcp 3.0
/// no longer names, as `code.0 == -32042`: a client that tells an older server's "open this URL"
/// error apart keeps doing so (unsafe: only servers before 2026-07-28 send it). The number itself
/// rather than `ErrorCode(-32042)`, which MCP005 reports as a server spelling the removed code.
/// The constructor, the notification and the constant anywhere else keep their guidance (`None`):
/// what replaces them depends on the flow around them.
pub(super) fn url_code_compared(
    idx: &LineIndex,
    file: &syn::File,
    at: usize,
    text: &str,
) -> Option<Fix> {
    if text != "URL_ELICITATION_REQUIRED" {
        return None;
    }
    let names_it = |e: &syn::Expr| {
        matches!(e, syn::Expr::Path(p) if p.path.segments.last()
            .is_some_and(|s| s.ident == "URL_ELICITATION_REQUIRED" && idx.range(s.ident.span()).start == at))
    };
    let found = super::find_expr::find(file, &|e| {
        matches!(e, syn::Expr::Binary(b)
            if matches!(b.op, syn::BinOp::Eq(_) | syn::BinOp::Ne(_))
                && (names_it(&b.left) || names_it(&b.right)))
    });
    let Some(syn::Expr::Binary(b)) = found else {
        return None;
    };
    let (constant, other) = if names_it(&b.right) {
        (&*b.right, &*b.left)
    } else {
        (&*b.left, &*b.right)
    };
    let (cs, ce) = crate::fix::rmcp::text::range_of(constant, idx)?;
    let (_, oe) = crate::fix::rmcp::text::range_of(other, idx)?;
    let plain = matches!(
        other,
        syn::Expr::Path(_) | syn::Expr::Field(_) | syn::Expr::MethodCall(_) | syn::Expr::Call(_)
    );
    let mut edits = vec![idx.edit(cs, ce, "-32042".into())];
    if plain {
        edits.push(idx.edit(oe, oe, ".0".into()));
    } else {
        let (os, _) = crate::fix::rmcp::text::range_of(other, idx)?;
        edits.push(idx.edit(os, os, "(".into()));
        edits.push(idx.edit(oe, oe, ").0".into()));
    }
    Some(Fix {
        applicability: Applicability::Unsafe,
        message: "compare the code's number, `-32042` (only an older server sends it)".into(),
        edits,
        other_files: Vec::new(),
    })
}

/// The value of the literal field named at `at` (a `Kind::FieldInto` row), converted into the
/// field's new type: `Some(e)` → `Some(e.into())`, `v` → `v.map(Into::into)`.
pub(super) fn field_into(idx: &LineIndex, file: &syn::File, at: usize) -> Option<Fix> {
    let named_here = |f: &syn::FieldValue| matches!(&f.member, syn::Member::Named(m) if idx.range(m.span()).start == at);
    let found = super::find_expr::find(
        file,
        &|e| matches!(e, syn::Expr::Struct(s) if s.fields.iter().any(named_here)),
    );
    let Some(syn::Expr::Struct(lit)) = found else {
        return None;
    };
    let field = lit.fields.iter().find(|f| named_here(f))?;
    let text = idx.text();
    // What the conversion is applied to, and how: inside `Some(..)`, or to the whole `Option`.
    let (value, suffix) = match &field.expr {
        syn::Expr::Call(c)
            if c.args.len() == 1
                && matches!(&*c.func, syn::Expr::Path(p) if p.path.is_ident("Some")) =>
        {
            (&c.args[0], ".into()")
        }
        v => (v, ".map(Into::into)"),
    };
    let (s, e) = crate::fix::rmcp::text::range_of(value, idx)?;
    let simple = matches!(
        value,
        syn::Expr::Path(_)
            | syn::Expr::Call(_)
            | syn::Expr::MethodCall(_)
            | syn::Expr::Field(_)
            | syn::Expr::Paren(_)
            | syn::Expr::Macro(_)
    );
    let edits = if simple {
        vec![idx.edit(e, e, suffix.to_string())]
    } else {
        vec![idx.edit(s, e, format!("({}){suffix}", &text[s..e]))]
    };
    Some(Fix {
        applicability: Applicability::Unsafe,
        message: format!("convert the value into the field's new type (`{suffix}`)"),
        edits,
        other_files: Vec::new(),
    })
}

/// `X { a, b }` of a `Kind::GainedFields` struct → `X { a, b, ..Default::default() }`.
pub(super) fn defaulted_rest(idx: &LineIndex, lit: &syn::ExprStruct, name: &str) -> Option<Fix> {
    if lit.rest.is_some() || lit.dot2_token.is_some() {
        return None;
    }
    let close = idx.range(lit.brace_token.span.close()).start;
    let text = idx.text();
    // After the last field: its comma, if written, stays; a line break keeps the layout.
    let before = text[..close].trim_end();
    let at = before.len();
    let comma = if before.ends_with(',') || before.ends_with('{') {
        ""
    } else {
        ","
    };
    let multiline = text[at..close].contains('\n');
    let insert = if multiline {
        let indent = crate::fix::rmcp::text::indent_at(text, at);
        format!("{comma}\n{indent}..Default::default()")
    } else {
        format!("{comma} ..Default::default()")
    };
    Some(Fix {
        applicability: Applicability::Unsafe,
        message: format!("give `{name}`'s new fields the values of `{name}::default()`"),
        edits: vec![idx.edit(at, at, insert)],
        other_files: Vec::new(),
    })
}

/// A field whose type rmcp changed under the same name, read where the old type is wanted
/// (MCP205 on the field's name): a widened one converted back to the crate's narrower type
/// (`Kind::Widened`, unsafe), a newtyped one read through to the value inside (`Kind::Newtyped`,
/// safe). `end`: where the field's name ends.
pub(super) fn retyped_field(idx: &LineIndex, end: usize, field: &str) -> Option<Fix> {
    changes_named(field).find_map(|c| match c.kind {
        Kind::Widened { from, .. } => Some(Fix {
            applicability: Applicability::Unsafe,
            message: format!("convert it back to `{from}` (`None` when it does not fit)"),
            edits: vec![idx.edit(end, end, format!(".and_then(|v| {from}::try_from(v).ok())"))],
            other_files: Vec::new(),
        }),
        Kind::Newtyped { .. } => Some(Fix {
            applicability: Applicability::Safe,
            message: format!("read `.{field}.0`, the value the field held before"),
            edits: vec![idx.edit(end, end, ".0".to_string())],
            other_files: Vec::new(),
        }),
        _ => None,
    })
}
