//! Fixes for the rmcp upgrade findings (MCP201-203, `rules::rmcp_upgrade`): a rename is a splice
//! of the old name, a dropped call is deleted, a handler's result type is changed and its body's
//! result converted; a removed API gets the guidance only.

use crate::finding::{Applicability, Edit, Finding, Fix};
use crate::model::sdk::rmcp_upgrade::{builder, changes_named, struct_row, Kind};
use crate::reading::source::LineIndex;
use crate::rules::rmcp_upgrade::{CALL_ARGS, HANDLER_RESULT, REMOVED, RENAMED, STRUCT_LITERAL};

/// Whether a finding is an upgrade finding (its fix goes first in a pass, so the MRTR rewrite plans
/// on code that already speaks rmcp 3.x).
pub fn wants(f: &Finding) -> bool {
    [
        RENAMED,
        HANDLER_RESULT,
        REMOVED,
        STRUCT_LITERAL,
        CALL_ARGS,
        REMOVED_URL_API,
    ]
    .contains(&f.code.as_str())
}

/// The removed URL-elicitation API (MCP005, `rules::removed_api`): only a comparison with its
/// error code has a fix.
const REMOVED_URL_API: &str = "MCP005";

/// The finding's byte range in `idx`'s text.
fn span_of(idx: &LineIndex, f: &Finding) -> (usize, usize) {
    let start = idx.offset(f.line, f.column.saturating_sub(1));
    let end = idx
        .offset(f.end_line, f.end_column.saturating_sub(1))
        .max(start);
    (start, end)
}

/// Attaches the fixes of the upgrade findings of one file, once the MRTR rewrite's are planned.
pub fn attach(idx: &LineIndex, file: &syn::File, findings: &mut [Finding]) {
    for i in 0..findings.len() {
        if findings[i].fix.is_some() || !wants(&findings[i]) {
            continue;
        }
        let fix = if findings[i].code == HANDLER_RESULT && mrtr_rewrites(idx, file, findings, i) {
            Some(Fix {
                applicability: Applicability::DisplayOnly,
                message: "the MRTR rewrite of this handler (`--unsafe-fixes`) puts it under \
`#[mrtr_handler]`, which declares the old result type and converts it"
                    .into(),
                edits: Vec::new(),
                other_files: Vec::new(),
            })
        } else {
            plan(idx, file, &findings[i])
        };
        findings[i].fix = fix;
    }
}

/// Whether the handler holding finding `at` is rewritten by the MRTR fix of another finding in it.
fn mrtr_rewrites(idx: &LineIndex, file: &syn::File, findings: &[Finding], at: usize) -> bool {
    let (start, _) = span_of(idx, &findings[at]);
    let Some(f) = find_fn(idx, &file.items, start) else {
        return false;
    };
    let open = idx.range(f.block.brace_token.span.open()).start;
    let close = idx.range(f.block.brace_token.span.close()).end;
    findings.iter().any(|g| {
        let (s, _) = span_of(idx, g);
        super::rmcp::wants(g)
            && (open..close).contains(&s)
            && g.fix.as_ref().is_some_and(|x| {
                x.applicability != Applicability::DisplayOnly && !x.edits.is_empty()
            })
    })
}

/// Where a dropped link of a method chain (`.no_annotation()`, `.raw`) starts with the line
/// break and indent before it, when it stands on a line of its own: dropping only the link would
/// leave a blank line in the chain.
fn chain_link_start(text: &str, dot: usize) -> usize {
    let before = &text[..dot];
    let kept = before.trim_end_matches([' ', '\t', '\n', '\r']);
    // A line comment on the line before would swallow what follows the link.
    let last_line = &kept[kept.rfind('\n').map_or(0, |i| i + 1)..];
    if before[kept.len()..].contains('\n') && !last_line.contains("//") {
        kept.len()
    } else {
        dot
    }
}

/// The fix of one upgrade finding, or `None` when the text under it is not what the rule saw.
pub fn plan(idx: &LineIndex, file: &syn::File, f: &Finding) -> Option<Fix> {
    let (start, end) = span_of(idx, f);
    let text = idx.text().get(start..end)?;
    match f.code.as_str() {
        c if c == RENAMED => {
            if let Some(change) = super::gone::wrapper_in(text) {
                return super::gone::plan(idx, file, start, end, change)
                    .or_else(|| Some(guidance(f)));
            }
            // `.raw` of a wrapper rmcp removed: the value's own fields are read instead.
            let wrapper_field = text.strip_prefix('.').is_some_and(|field| {
                changes_named("Annotated")
                    .any(|c| matches!(c.kind, Kind::Unwrapped { inner, .. } if inner == field))
            });
            // A sampling message's content is not a content of the kind the wrapper held (one
            // block or several since 0.15): dropping `.raw` would not fit; the guidance stays.
            if wrapper_field && super::sampled_content::is_sampled(idx, file, end) {
                return super::sampled_content::plan(idx, file, start, end)
                    .or_else(|| Some(guidance(f)));
            }
            if wrapper_field {
                return Some(Fix {
                    applicability: Applicability::Safe,
                    message: format!("drop `{text}`"),
                    edits: vec![idx.edit(chain_link_start(idx.text(), start), end, String::new())],
                    other_files: Vec::new(),
                });
            }
            if let Some(call) = text.strip_prefix('.') {
                let name = call.split('(').next()?.trim();
                changes_named(name).find(|c| c.kind == Kind::DropCall)?;
                return Some(Fix {
                    applicability: Applicability::Safe,
                    message: format!("drop `.{name}()`"),
                    edits: vec![idx.edit(chain_link_start(idx.text(), start), end, String::new())],
                    other_files: Vec::new(),
                });
            }
            if let Some(gone) = changes_named(text).find(|c| c.kind == Kind::DropImport) {
                // Elsewhere than a `use` leaf, the name is used for more than its import.
                if let Some(edit) = use_leaf_removal(idx, file, start) {
                    return Some(Fix {
                        applicability: Applicability::Safe,
                        message: format!("drop the import of `{}`", gone.old),
                        edits: vec![edit],
                        other_files: Vec::new(),
                    });
                }
                // A bound on it: the trait and its methods are gone, so the bound goes (and the
                // import on the next pass). Unsafe: a body that called its methods has findings
                // of its own to fix first.
                return Some(
                    match super::bound_removal::bound_removal(idx, file, start) {
                        Some(edit) => Fix {
                            applicability: Applicability::Unsafe,
                            message: format!(
                                "drop the bound `{}`: rmcp removed the trait",
                                gone.old
                            ),
                            edits: vec![edit],
                            other_files: Vec::new(),
                        },
                        None => guidance(f),
                    },
                );
            }
            let change = changes_named(text)
                .find(|c| matches!(c.kind, Kind::Item | Kind::Variant { .. } | Kind::Method))?;
            // `use rmcp::model::{RawResource, Resource}`: the new name is imported already, so
            // the renamed leaf would import it twice (E0252); the old one goes instead.
            let duplicate = imported_elsewhere(idx, file, change.new, start)
                .then(|| use_leaf_removal(idx, file, start))
                .flatten();
            if let Some(edit) = duplicate {
                return Some(Fix {
                    applicability: Applicability::Safe,
                    message: format!(
                        "drop the import of `{}`: `{}` is imported already",
                        change.old, change.new
                    ),
                    edits: vec![edit],
                    other_files: Vec::new(),
                });
            }
            // A struct that became a struct variant of the renamed enum: a literal or pattern
            // names the variant (E0574 on the enum's bare name).
            let variant = crate::model::sdk::rmcp_upgrade::struct_became_variant(change.new)
                .filter(|_| names_a_struct(idx, file, start));
            // The file re-exports the old name (`New as Old` at its `use`): a literal names the
            // variant under it; nothing else here changes.
            let kept_name = !is_use_leaf(idx, file, start) && reexports(file, change.old);
            let new = match variant {
                Some(v) if kept_name => format!("{}::{v}", change.old),
                _ if kept_name => return Some(guidance(f)),
                Some(v) => format!("{}::{v}", change.new),
                // A re-export (`pub use rmcp::model::{CreateElicitationResult, ..}`) keeps the
                // name the crate's other modules import from it (E0432 there otherwise).
                None if reexported_leaf(idx, file, start) => {
                    format!("{} as {}", change.new, change.old)
                }
                None => change.new.to_string(),
            };
            Some(Fix {
                applicability: Applicability::Safe,
                message: format!("rename `{}` to `{new}`", change.old),
                edits: vec![idx.edit(start, end, new)],
                other_files: Vec::new(),
            })
        }
        c if c == HANDLER_RESULT => handler_result(idx, file, start, end, text),
        c if c == CALL_ARGS && text.starts_with('%') => Some(Fix {
            applicability: Applicability::Unsafe,
            message: "log the `Option` with `?` (Debug)".into(),
            edits: vec![idx.edit(start, start + 1, "?".to_string())],
            other_files: Vec::new(),
        }),
        c if c == CALL_ARGS && text == "get_stream" => {
            super::optional_session::plan(idx, start).or_else(|| Some(guidance(f)))
        }
        c if c == CALL_ARGS => super::gone::retyped_field(idx, end, text)
            .or_else(|| super::annotated_content::plan(idx, file, start))
            .or_else(|| call_args(idx, file, start, text))
            .or_else(|| super::gone::mapped(idx, file, start, text))
            .or_else(|| super::gone::replaced(idx, file, start, text))
            .or_else(|| super::gone::borrowed(idx, file, start, text, f))
            .or_else(|| super::gone::infallible(idx, file, start, text))
            .or_else(|| Some(guidance(f))),
        // A struct pattern's closing brace: `..` goes before it.
        c if c == STRUCT_LITERAL && text == "}" => Some(pattern_rest(idx, start)),
        c if c == STRUCT_LITERAL && text.starts_with("match") => {
            super::gone::catch_all(idx, file, start, f).or_else(|| Some(guidance(f)))
        }
        c if c == STRUCT_LITERAL && text.starts_with(char::is_lowercase) => {
            super::gone::field_into(idx, file, start).or_else(|| Some(guidance(f)))
        }
        c if c == STRUCT_LITERAL => {
            struct_literal(idx, file, start, text).or_else(|| Some(guidance(f)))
        }
        c if c == REMOVED => super::macro_arg::dropped_arg(idx, file, start, text)
            .or_else(|| super::gone::removed(idx, file, start, end))
            .or_else(|| super::gone::dropped_method(idx, file, start, text))
            .or_else(|| Some(guidance(f))),
        c if c == REMOVED_URL_API => super::gone::url_code_compared(idx, file, start, text),
        _ => Some(guidance(f)),
    }
}

/// The real name of what a file-level `use` imports as `local` (`Prompt` for
/// `use rmcp::model::Prompt as McpPrompt`).
fn renamed_import(file: &syn::File, local: &str) -> Option<String> {
    fn find(tree: &syn::UseTree, local: &str) -> Option<String> {
        match tree {
            syn::UseTree::Path(p) => find(&p.tree, local),
            syn::UseTree::Rename(r) if r.rename == local => Some(r.ident.to_string()),
            syn::UseTree::Group(g) => g.items.iter().find_map(|t| find(t, local)),
            _ => None,
        }
    }
    file.items.iter().find_map(|i| match i {
        syn::Item::Use(u) => find(&u.tree, local),
        _ => None,
    })
}

/// Whether the ident at `at` is a leaf of one of the file's `use` items.
fn is_use_leaf(idx: &LineIndex, file: &syn::File, at: usize) -> bool {
    fn has_leaf(tree: &syn::UseTree, idx: &LineIndex, at: usize) -> bool {
        match tree {
            syn::UseTree::Path(p) => has_leaf(&p.tree, idx, at),
            syn::UseTree::Name(n) => idx.range(n.ident.span()).start == at,
            syn::UseTree::Rename(r) => idx.range(r.ident.span()).start == at,
            syn::UseTree::Group(g) => g.items.iter().any(|t| has_leaf(t, idx, at)),
            syn::UseTree::Glob(_) => false,
        }
    }
    file.items
        .iter()
        .any(|i| matches!(i, syn::Item::Use(u) if has_leaf(&u.tree, idx, at)))
}

/// Whether a `pub use` of the file imports `name` under that name (a re-export).
fn reexports(file: &syn::File, name: &str) -> bool {
    file.items.iter().any(|i| {
        matches!(i, syn::Item::Use(u) if !matches!(u.vis, syn::Visibility::Inherited)
            && crate::model::scope::use_names(&u.tree).iter().any(|n| n == name))
    })
}

/// Whether the `use` leaf at `at` (a plain name, not renamed) stands in a `use` item that is
/// visible outside its module (`pub`, `pub(crate)`, ..): a re-export.
fn reexported_leaf(idx: &LineIndex, file: &syn::File, at: usize) -> bool {
    fn has_leaf(tree: &syn::UseTree, idx: &LineIndex, at: usize) -> bool {
        match tree {
            syn::UseTree::Path(p) => has_leaf(&p.tree, idx, at),
            syn::UseTree::Name(n) => idx.range(n.ident.span()).start == at,
            syn::UseTree::Group(g) => g.items.iter().any(|t| has_leaf(t, idx, at)),
            _ => false,
        }
    }
    fn in_items(items: &[syn::Item], idx: &LineIndex, at: usize) -> bool {
        items.iter().any(|item| match item {
            syn::Item::Use(u) => {
                !matches!(u.vis, syn::Visibility::Inherited) && has_leaf(&u.tree, idx, at)
            }
            syn::Item::Mod(m) => m
                .content
                .as_ref()
                .is_some_and(|(_, items)| in_items(items, idx, at)),
            _ => false,
        })
    }
    in_items(&file.items, idx, at)
}

/// Whether the path whose last segment starts at `at` is a struct literal's or a struct
/// pattern's (`X { .. }`), macro bodies that parse as Rust included for literals.
fn names_a_struct(idx: &LineIndex, file: &syn::File, at: usize) -> bool {
    use syn::visit::Visit;
    let ends_at = |p: &syn::Path| {
        p.segments
            .last()
            .is_some_and(|l| idx.range(l.ident.span()).start == at)
    };
    let literal = super::find_expr::find(
        file,
        &|e| matches!(e, syn::Expr::Struct(s) if ends_at(&s.path)),
    );
    struct Patterns<'f> {
        ends_at: &'f dyn Fn(&syn::Path) -> bool,
        found: bool,
    }
    impl<'ast> Visit<'ast> for Patterns<'_> {
        fn visit_pat_struct(&mut self, p: &'ast syn::PatStruct) {
            self.found |= (self.ends_at)(&p.path);
            syn::visit::visit_pat_struct(self, p);
        }
    }
    let mut pats = Patterns {
        ends_at: &ends_at,
        found: false,
    };
    if literal.is_none() {
        pats.visit_file(file);
    }
    literal.is_some() || pats.found
}

/// Whether a `use` item of the file imports `name` under that name, other than the leaf at `at`,
/// or will once an earlier leaf of the same item is renamed to it.
fn imported_elsewhere(idx: &LineIndex, file: &syn::File, name: &str, at: usize) -> bool {
    fn leaves(tree: &syn::UseTree, out: &mut Vec<syn::Ident>) {
        match tree {
            syn::UseTree::Path(p) => leaves(&p.tree, out),
            syn::UseTree::Name(n) => out.push(n.ident.clone()),
            syn::UseTree::Group(g) => g.items.iter().for_each(|t| leaves(t, out)),
            _ => {}
        }
    }
    let renamed_to = |old: &syn::Ident| {
        let old = old.to_string();
        changes_named(&old)
            .find(|c| matches!(c.kind, Kind::Item | Kind::Variant { .. } | Kind::Method))
            .map(|c| c.new)
    };
    for item in &file.items {
        let syn::Item::Use(u) = item else { continue };
        let mut all = Vec::new();
        leaves(&u.tree, &mut all);
        let ours = all.iter().any(|i| idx.range(i.span()).start == at);
        for i in &all {
            let start = idx.range(i.span()).start;
            if start == at {
                continue;
            }
            // The name itself, or an earlier leaf of the same `use` that this pass renames to it
            // (`{Content, RawContent}`, both `ContentBlock` on 3.x): the first rename stands.
            if i == name || (ours && start < at && renamed_to(i) == Some(name)) {
                return true;
            }
        }
    }
    false
}

/// The edit that removes the `use` leaf whose name starts at `at`: with its comma inside a group,
/// or the whole `use` item (and its line) when it is the item's only leaf.
pub(super) fn use_leaf_removal(idx: &LineIndex, file: &syn::File, at: usize) -> Option<Edit> {
    fn leaf_at(tree: &syn::UseTree, idx: &LineIndex, at: usize) -> bool {
        matches!(tree, syn::UseTree::Name(n) if idx.range(n.ident.span()).start == at)
    }
    fn group_of<'t>(
        tree: &'t syn::UseTree,
        idx: &LineIndex,
        at: usize,
    ) -> Option<&'t syn::UseGroup> {
        match tree {
            syn::UseTree::Path(p) => group_of(&p.tree, idx, at),
            syn::UseTree::Group(g) if g.items.iter().any(|t| leaf_at(t, idx, at)) => Some(g),
            syn::UseTree::Group(g) => g.items.iter().find_map(|t| group_of(t, idx, at)),
            _ => None,
        }
    }
    fn single(tree: &syn::UseTree, idx: &LineIndex, at: usize) -> bool {
        match tree {
            syn::UseTree::Path(p) => single(&p.tree, idx, at),
            t => leaf_at(t, idx, at),
        }
    }
    for item in &file.items {
        let syn::Item::Use(u) = item else { continue };
        if single(&u.tree, idx, at) {
            // The whole item: its attributes and visibility too.
            let start = idx.range(syn::spanned::Spanned::span(u)).start;
            let mut end = idx.range(u.semi_token.span).end;
            let text = idx.text();
            if text[end..].starts_with('\n') {
                end += 1;
            }
            let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
            let from = if text[line_start..start].trim().is_empty() {
                line_start
            } else {
                start
            };
            return Some(idx.edit(from, end, String::new()));
        }
        let Some(group) = group_of(&u.tree, idx, at) else {
            continue;
        };
        let pairs: Vec<_> = group.items.pairs().collect();
        let i = pairs.iter().position(|p| leaf_at(p.value(), idx, at))?;
        let leaf_end = idx.range(syn::spanned::Spanned::span(pairs[i].value())).end;
        let (from, to) = match pairs[i].punct() {
            Some(comma) => {
                let next = pairs
                    .get(i + 1)
                    .map(|p| idx.range(syn::spanned::Spanned::span(p.value())).start);
                (at, next.unwrap_or(idx.range(comma.span).end))
            }
            None if i > 0 => (idx.range(pairs[i - 1].punct()?.span).start, leaf_end),
            None => return None,
        };
        return Some(idx.edit(from, to, String::new()));
    }
    None
}

/// The finding's help as a display-only fix.
fn guidance(f: &Finding) -> Fix {
    Fix {
        applicability: Applicability::DisplayOnly,
        message: f.help.clone().unwrap_or_default(),
        edits: Vec::new(),
        other_files: Vec::new(),
    }
}

/// `async fn read_resource(..) -> Result<ReadResourceResult, E> { BODY }` becomes
/// `-> Result<ReadResourceResponse, E> { let result: Result<ReadResourceResult, E> = async move
/// BODY.await; result.map(Into::into) }`: the body, its `return`s and `?`s keep their meaning, and
/// the old result converts into the new one (rmcp implements `From`). Unsafe: the code's shape
/// changes, and a body that relies on the fn's own `async` context (none does today) may differ.
fn handler_result(
    idx: &LineIndex,
    file: &syn::File,
    start: usize,
    end: usize,
    old: &str,
) -> Option<Fix> {
    let change = changes_named(old).find(|c| matches!(c.kind, Kind::HandlerResult { .. }))?;
    let f = find_fn(idx, &file.items, start)?;
    let syn::ReturnType::Type(_, ty) = &f.sig.output else {
        return None;
    };
    // An `async fn` body becomes an `async move` block as it is; a plain fn returning a future
    // (`-> impl Future<Output = ..>`, or a boxed one) keeps its body as the old future and awaits
    // it in a new one.
    // A plain fn returning the result itself (`IntoCallToolResult::into_call_tool_result`) keeps
    // its body as a closure called at once: its `return`s and `?`s still end that body.
    let (future, sync) = match (&f.sig.asyncness, &**ty) {
        (Some(_), _) => (None, false),
        (None, syn::Type::ImplTrait(_)) => (Some(false), false),
        (None, t) if is_boxed_future(t) => (Some(true), false),
        (None, syn::Type::Path(_)) => (None, true),
        _ => return None,
    };
    let ty_range = idx.range_between(first_span(ty), last_span(ty));
    let old_ty = idx.text().get(ty_range.start..ty_range.end)?;
    let open = idx.range(f.block.brace_token.span.open()).start;
    let close = idx.range(f.block.brace_token.span.close()).end;
    // A body that hands the request to rmcp's own router (`self.tool_router.call(ctx)`,
    // `self.prompt_router.get_prompt(ctx)`) and never names the old type gets its values from a
    // router that returns the new type on 3.x: only the signature changes.
    let body = idx.text().get(open..close)?;
    let router = match change.kind {
        Kind::HandlerResult {
            method: "call_tool",
            ..
        } => Some((".tool_router", ".call(")),
        Kind::HandlerResult {
            method: "get_prompt",
            ..
        } => Some((".prompt_router", ".get_prompt(")),
        _ => None,
    };
    // A fully qualified old name keeps its path; a bare one is in scope the way the old one was
    // (a glob of `rmcp::model`), or is written with its path otherwise: the signature sees no
    // `use` inside the body.
    let new_name = match import_prefix(file, old) {
        Some(prefix) => format!("{prefix}::{}", change.new),
        None => change.new.to_string(),
    };
    let delegates = router.is_some_and(|(field, call)| body.contains(field) && body.contains(call));
    if delegates && crate::fix::rmcp::text::count_in(body, old) == 0 {
        return Some(Fix {
            applicability: Applicability::Unsafe,
            message: format!(
                "return `{}`, which rmcp 3.x's router already gives",
                change.new
            ),
            edits: vec![idx.edit(start, end, new_name)],
            other_files: Vec::new(),
        });
    }
    if let Some(boxed) = future {
        let converted = "async move { old_future.await.map(Into::into) }";
        let converted = if boxed {
            format!("Box::pin({converted})")
        } else {
            converted.to_string()
        };
        return Some(Fix {
            applicability: Applicability::Unsafe,
            message: format!(
                "return a future of `{}`: the body's future of `{}` is awaited and converted",
                change.new, change.old
            ),
            edits: vec![
                idx.edit(start, end, new_name),
                idx.edit(open, open, "{\n        let old_future = ".to_string()),
                idx.edit(close, close, format!(";\n        {converted}\n    }}")),
            ],
            other_files: Vec::new(),
        });
    }
    let (head, tail) = if sync {
        (
            format!("{{\n        let result: {old_ty} = (move || -> {old_ty} "),
            ")();\n        result.map(Into::into)\n    }",
        )
    } else {
        (
            format!("{{\n        let result: {old_ty} = async move "),
            ".await;\n        result.map(Into::into)\n    }",
        )
    };
    Some(Fix {
        applicability: Applicability::Unsafe,
        message: format!(
            "return `{}` and convert the body's `{}` into it",
            change.new, change.old
        ),
        edits: vec![
            idx.edit(start, end, new_name),
            idx.edit(open, open, head),
            idx.edit(close, close, tail.to_string()),
        ],
        other_files: Vec::new(),
    })
}

/// `..` written into a struct pattern whose closing brace is at `brace`: after its last field
/// (and its comma), or alone in an empty pattern.
fn pattern_rest(idx: &LineIndex, brace: usize) -> Fix {
    let before = idx.text()[..brace].trim_end();
    let at = before.len();
    let rest = match before.chars().last() {
        Some('{') | Some(',') => " ..",
        _ => ", ..",
    };
    Fix {
        applicability: Applicability::Safe,
        message: "end the pattern with `..`".into(),
        edits: vec![idx.edit(at, at, rest.to_string())],
        other_files: Vec::new(),
    }
}

/// `Pin<Box<dyn Future<..>>>` or a `BoxFuture<..>` alias: a boxed future, built with `Box::pin`.
fn is_boxed_future(ty: &syn::Type) -> bool {
    let syn::Type::Path(p) = ty else {
        return false;
    };
    let Some(last) = p.path.segments.last() else {
        return false;
    };
    last.ident == "BoxFuture"
        || (last.ident == "Pin"
            && matches!(&last.arguments, syn::PathArguments::AngleBracketed(a)
                if a.args.iter().any(|g| matches!(g, syn::GenericArgument::Type(syn::Type::Path(b))
                    if b.path.segments.last().is_some_and(|s| s.ident == "Box")))))
}

/// `.old(a, b, c)` → `.old(TEMPLATE)` (see `Kind::CallArgs`).
fn call_args(idx: &LineIndex, file: &syn::File, at: usize, name: &str) -> Option<Fix> {
    use syn::visit::Visit;
    struct Find<'i, 'a> {
        idx: &'i LineIndex<'a>,
        at: usize,
        found: Option<syn::ExprMethodCall>,
    }
    impl<'ast> Visit<'ast> for Find<'_, '_> {
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            if self.found.is_none() && self.idx.range(m.method.span()).start == self.at {
                self.found = Some(m.clone());
            }
            syn::visit::visit_expr_method_call(self, m);
        }
    }
    let change = changes_named(name).find(|c| matches!(c.kind, Kind::CallArgs { .. }))?;
    let Kind::CallArgs { arity, template } = change.kind else {
        return None;
    };
    let mut find = Find {
        idx,
        at,
        found: None,
    };
    find.visit_file(file);
    let call = find.found?;
    if call.args.len() != arity {
        return None;
    }
    let args: Vec<&syn::Expr> = call.args.iter().collect();
    let text_of = |e: &syn::Expr| expr_text(idx, e);
    let rendered = render(template, &args, &text_of)?;
    // The template names rmcp by its crate name; a package that renamed it
    // (`mcp = { package = "rmcp" }`) writes paths with the name it gave it.
    let rendered = match rmcp_root(file) {
        Some(root) if root != "rmcp" => rendered.replace("rmcp::", &format!("{root}::")),
        _ => rendered,
    };
    let open = idx.range(call.paren_token.span.open()).end;
    let close = idx.range(call.paren_token.span.close()).start;
    Some(Fix {
        applicability: Applicability::Unsafe,
        message: format!(
            "pass `{name}` its rmcp {}.{} arguments",
            change.since.0, change.since.1
        ),
        edits: vec![idx.edit(open, close, rendered)],
        other_files: Vec::new(),
    })
}

/// `X { a: .., b: Some(..), ..Default::default() }` → `X::new(a).with_b(..)` from the type's
/// [`builder`] row (MCP204). Unsafe: the value is built another way (a constructor's defaults for
/// the fields the literal left to `Default`), though to the same fields. `None` when the literal
/// has a field or a value the row cannot carry over: the guidance stays.
fn struct_literal(idx: &LineIndex, file: &syn::File, at: usize, name: &str) -> Option<Fix> {
    let found = super::find_expr::find(file, &|e| {
        matches!(e, syn::Expr::Struct(s) if s.path.segments.last()
            .is_some_and(|l| idx.range(l.ident.span()).start == at))
    });
    let Some(syn::Expr::Struct(lit)) = found else {
        return None;
    };
    if lit.qself.is_some() {
        return None;
    }
    // A struct imported under another name (`Prompt as McpPrompt`): its rows are by its own.
    let real = renamed_import(file, name);
    let name = real.as_deref().unwrap_or(name);
    // An old name kept by the crate's own re-export (`pub use rmcp::model::ElicitResult as
    // CreateElicitationResult` in another module): the rows are by the name it was renamed to.
    let name = if struct_row(name).is_none() && builder(name).is_none() {
        changes_named(name)
            .find(|c| c.kind == Kind::Item && struct_row(c.new).is_some())
            .map_or(name, |c| c.new)
    } else {
        name
    };
    if changes_named(name).any(|c| matches!(c.kind, Kind::GainedFields { .. })) {
        return super::gone::defaulted_rest(idx, &lit, name);
    }
    if let Some(fix) = unwrapped_alias(idx, &lit, name) {
        return Some(fix);
    }
    builder(name)
        .and_then(|row| built_literal(idx, file, &lit, name, row))
        .or_else(|| defaulted_literal(idx, &lit, name))
        .or_else(|| constructed_literal(idx, &lit, name))
}

/// `Resource { raw: e1, annotations: e2 }`: a literal of a 0.x alias of a `Kind::Unwrapped`
/// wrapper (`Resource` was `Annotated<RawResource>`), of a struct that carries the wrapper's extra
/// field itself on 3.x (`raw`'s type is renamed to it by MCP201): `{ let mut r = e1;
/// r.annotations = e2; r }`. The wrapper's own name (`Annotated { .. }`) is `gone::plan`'s.
/// Unsafe, as for the other forms.
fn unwrapped_alias(idx: &LineIndex, lit: &syn::ExprStruct, name: &str) -> Option<Fix> {
    let row = crate::model::sdk::rmcp_upgrade::struct_row(name)?;
    let (inner, extra) = crate::model::sdk::rmcp_upgrade::CHANGES
        .iter()
        .find_map(|c| match c.kind {
            Kind::Unwrapped { inner, extra, .. }
                if row.fields.contains(&extra) && !row.fields.contains(&inner) =>
            {
                Some((inner, extra))
            }
            _ => None,
        })?;
    if lit.rest.is_some() || lit.fields.len() != 2 {
        return None;
    }
    let value = |field: &str| {
        lit.fields.iter().find_map(|f| match &f.member {
            syn::Member::Named(i) if i == field => expr_text(idx, &f.expr),
            _ => None,
        })
    };
    let (wrapped, extra_value) = (value(inner)?, value(extra)?);
    let var = binding(name, lit);
    let (_, whole) = literal_span(idx, lit)?;
    let set = format!("{var}.{extra} = {extra_value};");
    Some(Fix {
        applicability: Applicability::Unsafe,
        message: format!(
            "`{name}` carries its `{extra}` itself: the `{inner}` value, with them set"
        ),
        edits: vec![idx.edit(
            whole.start,
            whole.end,
            bound_block(idx, whole.start, &var, &wrapped, &[set]),
        )],
        other_files: Vec::new(),
    })
}

/// `{ let mut var = init; <each of sets>; var }`, one statement a line, indented as the code at
/// `at`: a value built, then its fields set.
fn bound_block(idx: &LineIndex, at: usize, var: &str, init: &str, sets: &[String]) -> String {
    let indent = crate::fix::rmcp::text::indent_at(idx.text(), at);
    let mut out = format!("{{\n{indent}    let mut {var} = {init};");
    for set in sets {
        out.push_str(&format!("\n{indent}    {set}"));
    }
    out.push_str(&format!("\n{indent}    {var}\n{indent}}}"));
    out
}

/// `X { a: e1, b: e2, c: e3 }` of a struct whose rmcp 3.x `new(a, b)` sets the fields of its
/// parameters' names (the generated struct table) → `{ let mut x = X::new(e1, e2); x.c = e3; x }`.
/// The fields the literal names must be public fields on 3.x (a field that went, left at `None`
/// or carrying a gone type, goes with it), and it must name every parameter. Unsafe, as for the
/// other constructor forms.
fn constructed_literal(idx: &LineIndex, lit: &syn::ExprStruct, name: &str) -> Option<Fix> {
    use syn::ext::IdentExt;
    let row = crate::model::sdk::rmcp_upgrade::struct_row(name)?;
    let params = row.new?;
    if !base_is_default(lit) {
        return None;
    }
    let text_of = |e: &syn::Expr| expr_text(idx, e);
    let var = binding(name, lit);
    let mut args: Vec<Option<String>> = vec![None; params.len()];
    let mut sets = Vec::new();
    for f in &lit.fields {
        let syn::Member::Named(ident) = &f.member else {
            return None;
        };
        let field = ident.unraw().to_string();
        if let Some(i) = params.iter().position(|p| *p == field) {
            let value = match &f.expr {
                syn::Expr::MethodCall(m)
                    if row.new_into.contains(&field.as_str())
                        && m.method == "into"
                        && m.args.is_empty() =>
                {
                    &m.receiver
                }
                e => e,
            };
            args[i] = Some(text_of(value)?);
        } else if row.fields.contains(&field.as_str()) {
            // The constructor leaves the other fields empty: `None`, or their type's default
            // (`meta: Meta::default()` in a test's `RequestContext`, whose type 3.x changed).
            if option_literal(&f.expr).is_some_and(|v| v.is_none())
                || default_call(&f.expr).is_some()
            {
                continue;
            }
            let value = widened_value(idx, name, &field, &f.expr)?;
            sets.push(format!("{var}.{ident} = {value};"));
        } else if super::gone::dropped_field_value(&field, &text_of(&f.expr)?)
            || option_literal(&f.expr).is_some_and(|v| v.is_none())
        {
            continue;
        } else {
            return None;
        }
    }
    let args: Vec<String> = args.into_iter().collect::<Option<_>>()?;
    let (path, whole) = literal_span(idx, lit)?;
    let head = format!("{path}::new({})", args.join(", "));
    let built = if sets.is_empty() {
        head
    } else {
        bound_block(idx, whole.start, &var, &head, &sets)
    };
    Some(Fix {
        applicability: Applicability::Unsafe,
        message: format!("build `{name}` with `{name}::new(..)` and set its other fields"),
        edits: vec![idx.edit(whole.start, whole.end, built)],
        other_files: Vec::new(),
    })
}

/// The constructor-and-setters form of a literal, from its [`builder`] row.
fn built_literal(
    idx: &LineIndex,
    file: &syn::File,
    lit: &syn::ExprStruct,
    name: &str,
    row: &crate::model::sdk::rmcp_upgrade::Builder,
) -> Option<Fix> {
    // Only `..Default::default()` may fill the rest: the constructor does the same.
    if !base_is_default(lit) {
        return None;
    }
    let text_of = |e: &syn::Expr| expr_text(idx, e);
    let mut fields: Vec<(String, &syn::Expr)> = Vec::new();
    for f in &lit.fields {
        let syn::Member::Named(name) = &f.member else {
            return None;
        };
        fields.push((name.to_string(), &f.expr));
    }
    let value = |field: &str| fields.iter().find(|(n, _)| n == field).map(|(_, e)| *e);
    // The value's text, without a trailing `.into()` where the parameter is `impl Into<String>`,
    // and in the field's 3.x type where it moved to another enum.
    let carried = |field: &str, e: &syn::Expr| -> Option<String> {
        let text = match e {
            syn::Expr::MethodCall(m)
                if row.into_string.contains(&field) && m.method == "into" && m.args.is_empty() =>
            {
                text_of(&m.receiver)
            }
            _ => text_of(e),
        }?;
        Some(
            match crate::model::sdk::rmcp_upgrade::field_value(name, field, &text) {
                Some(moved) => in_scope_or_qualified(file, moved),
                None => text,
            },
        )
    };
    let mut ctor = row.ctor;
    let mut args = Vec::new();
    for a in row.args {
        args.push(carried(a, value(a)?)?);
    }
    let mut tail: Vec<String> = Vec::new();
    // Fields set on the built value: 3.x keeps them public, but no setter takes their value as
    // written.
    let settable = |field: &str| struct_row(name).is_some_and(|r| r.fields.contains(&field));
    let mut sets: Vec<(&str, String)> = Vec::new();
    for (field, e) in &fields {
        let field = field.as_str();
        if row.args.contains(&field) {
            continue;
        }
        if let Some((_, alt)) = row.switch.filter(|(f, _)| *f == field) {
            match option_literal(e)? {
                None => {}
                Some(syn::Expr::Lit(l)) => match &l.lit {
                    syn::Lit::Bool(b) if b.value => ctor = alt,
                    syn::Lit::Bool(_) => {}
                    _ => return None,
                },
                Some(_) => return None,
            }
        } else if let Some((_, method)) = row.options.iter().find(|(f, _)| *f == field) {
            match option_literal(e) {
                Some(Some(inner)) => {
                    let arg = widened_inner(name, field, inner, carried(field, inner)?);
                    tail.push(format!(".{method}({arg})"))
                }
                Some(None) => {}
                None if settable(field) => sets.push((field, widened_value(idx, name, field, e)?)),
                None => return None,
            }
        } else if let Some((_, method)) = row.plain.iter().find(|(f, _)| *f == field) {
            // `None` is what the constructor leaves in an `Option` field.
            if option_literal(e).is_some_and(|v| v.is_none()) {
                continue;
            }
            tail.push(format!(".{method}({})", carried(field, e)?));
        } else if row.none_only.contains(&field) {
            match option_literal(e) {
                Some(None) => {}
                _ if settable(field) => sets.push((field, text_of(e)?)),
                _ => return None,
            }
        } else {
            return None;
        }
    }
    let (path, whole) = literal_span(idx, lit)?;
    let head = format!("{path}::{ctor}({})", args.join(", "));
    // One line when it fits as rustfmt would keep it, else one setter per line.
    let built = if head.len() + tail.iter().map(String::len).sum::<usize>() <= 80 {
        format!("{head}{}", tail.concat())
    } else {
        let indent = format!(
            "{}    ",
            crate::fix::rmcp::text::indent_at(idx.text(), whole.start)
        );
        let mut out = head;
        for t in &tail {
            out.push('\n');
            out.push_str(&indent);
            out.push_str(t);
        }
        out
    };
    let built = if sets.is_empty() {
        built
    } else {
        let var = binding(name, lit);
        let sets: Vec<String> = sets
            .iter()
            .map(|(field, value)| format!("{var}.{field} = {value};"))
            .collect();
        bound_block(idx, whole.start, &var, &built, &sets)
    };
    Some(Fix {
        applicability: Applicability::Unsafe,
        message: format!("build `{name}` with `{name}::{ctor}(..)`"),
        edits: vec![idx.edit(whole.start, whole.end, built)],
        other_files: Vec::new(),
    })
}

/// The local a rebuilt literal of `name` is bound to: its capitals, lower-cased (`pc` for
/// `PromptsCapability`), with a number added while the literal already names it: the field
/// values are read after the binding, so `r.title = r.title` would read the new value.
fn binding(name: &str, lit: &syn::ExprStruct) -> String {
    fn idents(tokens: proc_macro2::TokenStream, out: &mut std::collections::HashSet<String>) {
        for t in tokens {
            match t {
                proc_macro2::TokenTree::Ident(i) => {
                    out.insert(i.to_string());
                }
                proc_macro2::TokenTree::Group(g) => idents(g.stream(), out),
                _ => {}
            }
        }
    }
    let mut taken = std::collections::HashSet::new();
    idents(quote::ToTokens::to_token_stream(lit), &mut taken);
    let v: String = name
        .chars()
        .filter(char::is_ascii_uppercase)
        .collect::<String>()
        .to_ascii_lowercase();
    let v = if v.is_empty() { "v".to_string() } else { v };
    std::iter::once(v.clone())
        .chain((2..).map(|n| format!("{v}{n}")))
        .find(|c| !taken.contains(c))
        .expect("an unbounded sequence of names has a free one")
}

/// Whether a struct literal's base is absent or `..Default::default()`.
fn base_is_default(lit: &syn::ExprStruct) -> bool {
    lit.rest
        .as_deref()
        .is_none_or(|rest| is_default_call(rest, &["Default"]))
}

/// `T::default()` for one of `types`.
fn is_default_call(e: &syn::Expr, types: &[&str]) -> bool {
    default_call(e)
        .is_some_and(|p| p.segments.len() == 2 && types.iter().any(|t| p.segments[0].ident == t))
}

/// The path of a `..::default()` call (`Default::default()`, `T::default()`): what a constructor
/// leaves in a field it is not given.
fn default_call(e: &syn::Expr) -> Option<&syn::Path> {
    match e {
        syn::Expr::Call(c) if c.args.is_empty() => match &*c.func {
            syn::Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "default") => {
                Some(&p.path)
            }
            _ => None,
        },
        _ => None,
    }
}

/// An `Option` written out: `None` (also `Option::default()`, `Default::default()`) is
/// `Some(None)`, `Some(x)` is `Some(Some(x))`; anything else `None`.
pub(super) fn option_literal(e: &syn::Expr) -> Option<Option<&syn::Expr>> {
    match e {
        syn::Expr::Path(p) if p.path.is_ident("None") => Some(None),
        _ if is_default_call(e, &["Option", "Default"]) => Some(None),
        syn::Expr::Call(c)
            if c.args.len() == 1
                && matches!(&*c.func, syn::Expr::Path(p) if p.path.is_ident("Some")) =>
        {
            Some(Some(&c.args[0]))
        }
        _ => None,
    }
}

/// The text of a literal's `Option` field value in the field's 3.x type, where rmcp widened it
/// (`size: Some(n)` → `Some(u64::from(n))`, `size: v` → `v.map(u64::from)`): the old value,
/// a `u32`, converts without loss. An integer literal or `None` infers the new type as written.
fn widened_value(idx: &LineIndex, ty: &str, field: &str, e: &syn::Expr) -> Option<String> {
    let text = expr_text(idx, e)?;
    let Some(to) = crate::model::sdk::rmcp_upgrade::widened(ty, field) else {
        return Some(text);
    };
    Some(match option_literal(e) {
        Some(None) => text,
        Some(Some(inner)) => format!(
            "Some({})",
            widened_inner(ty, field, inner, expr_text(idx, inner)?)
        ),
        None if matches!(
            e,
            syn::Expr::Path(_) | syn::Expr::Field(_) | syn::Expr::MethodCall(_)
        ) =>
        {
            format!("{text}.map({to}::from)")
        }
        None => format!("({text}).map({to}::from)"),
    })
}

/// `text`, the value inside a widened field's `Some(..)`, converted to the new type; an integer
/// literal infers it as written (`u64::from(4096)` would not: the literal defaults to `i32`).
fn widened_inner(ty: &str, field: &str, inner: &syn::Expr, text: String) -> String {
    match crate::model::sdk::rmcp_upgrade::widened(ty, field) {
        Some(to) if !matches!(inner, syn::Expr::Lit(_)) => format!("{to}::from({text})"),
        _ => text,
    }
}

/// The source text of an expression.
pub(super) fn expr_text(idx: &LineIndex, e: &syn::Expr) -> Option<String> {
    let r = idx.range_between(first_token(e), last_token(e));
    idx.text().get(r.start..r.end).map(str::to_string)
}

/// The literal's path as written and the byte range of the whole literal.
fn literal_span<'t>(
    idx: &LineIndex<'t>,
    lit: &syn::ExprStruct,
) -> Option<(&'t str, std::ops::Range<usize>)> {
    let first = first_path_span(&lit.path);
    let path_end = idx.range(lit.path.segments.last()?.ident.span()).end;
    let path = idx.text().get(idx.range(first).start..path_end)?;
    let whole = idx.range_between(first, lit.brace_token.span.close());
    Some((path, whole.start..whole.end))
}

/// `X { a: e1, b: e2 }` of a struct rmcp 3.x gives `Default` (the generated struct table) →
/// `{ let mut x = X::default(); x.a = e1; x.b = e2; x }`: every field the literal names must
/// still be a field on 3.x. Unsafe, as for the constructor form.
fn defaulted_literal(idx: &LineIndex, lit: &syn::ExprStruct, name: &str) -> Option<Fix> {
    let row = crate::model::sdk::rmcp_upgrade::struct_row(name).filter(|r| r.default)?;
    if !base_is_default(lit) {
        return None;
    }
    let text_of = |e: &syn::Expr| expr_text(idx, e);
    let var = binding(name, lit);
    let mut sets = Vec::new();
    for f in &lit.fields {
        let syn::Member::Named(field) = &f.member else {
            return None;
        };
        let field = field.to_string();
        if !row.fields.contains(&field.as_str()) {
            // A field that went with its type (`execution: Some(ToolExecution::..)`) goes too,
            // as its assignment does (`gone::removed`).
            if super::gone::dropped_field_value(&field, &text_of(&f.expr)?) {
                continue;
            }
            // A field 3.x no longer has, left at `None` (`task: None` of a 0.x sampling
            // request): nothing was set, so nothing is lost.
            if matches!(&f.expr, syn::Expr::Path(p) if p.path.is_ident("None")) {
                continue;
            }
            return None;
        }
        sets.push(format!("{var}.{field} = {};", text_of(&f.expr)?));
    }
    let (path, whole) = literal_span(idx, lit)?;
    let built = if sets.is_empty() {
        format!("{path}::default()")
    } else {
        let one_line = format!(
            "{{ let mut {var} = {path}::default(); {} {var} }}",
            sets.join(" ")
        );
        if one_line.len() <= 60 {
            one_line
        } else {
            bound_block(idx, whole.start, &var, &format!("{path}::default()"), &sets)
        }
    };
    Some(Fix {
        applicability: Applicability::Unsafe,
        message: format!("build `{name}` from `{name}::default()` and set its fields"),
        edits: vec![idx.edit(whole.start, whole.end, built)],
        other_files: Vec::new(),
    })
}

fn first_path_span(p: &syn::Path) -> proc_macro2::Span {
    p.leading_colon
        .map(|c| c.spans[0])
        .or_else(|| p.segments.first().map(|s| s.ident.span()))
        .unwrap_or_else(proc_macro2::Span::call_site)
}

/// Fills a `Kind::CallArgs` template; `None` when an argument is not of the shape it needs.
fn render(
    template: &str,
    args: &[&syn::Expr],
    text_of: &dyn Fn(&syn::Expr) -> Option<String>,
) -> Option<String> {
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = open + rest[open..].find('}')?;
        let spec = &rest[open + 1..close];
        rest = &rest[close + 1..];
        let digits = spec.chars().take_while(char::is_ascii_digit).count();
        let n: usize = spec[..digits].parse().ok()?;
        let arg = *args.get(n.checked_sub(1)?)?;
        let (mode, pattern) = spec[digits..].split_at(spec.len().min(digits + 1) - digits);
        match mode {
            "" => out.push_str(&text_of(arg)?),
            "?" => {
                if let Some(inner) = option_literal(arg)? {
                    out.push_str(&pattern.replace('$', &text_of(inner)?));
                }
            }
            "*" => {
                let empty = matches!(arg, syn::Expr::Reference(r)
                    if matches!(&*r.expr, syn::Expr::Array(a) if a.elems.is_empty()));
                if !empty {
                    out.push_str(&pattern.replace('$', &text_of(arg)?));
                }
            }
            _ => return None,
        }
    }
    out.push_str(rest);
    Some(out)
}

pub(super) fn first_token(e: &syn::Expr) -> proc_macro2::Span {
    use quote::ToTokens;
    e.to_token_stream()
        .into_iter()
        .next()
        .map_or_else(proc_macro2::Span::call_site, |t| t.span())
}

pub(super) fn last_token(e: &syn::Expr) -> proc_macro2::Span {
    use quote::ToTokens;
    e.to_token_stream()
        .into_iter()
        .last()
        .map_or_else(proc_macro2::Span::call_site, |t| t.span())
}

fn first_span(ty: &syn::Type) -> proc_macro2::Span {
    use quote::ToTokens;
    ty.to_token_stream()
        .into_iter()
        .next()
        .map_or_else(proc_macro2::Span::call_site, |t| t.span())
}

fn last_span(ty: &syn::Type) -> proc_macro2::Span {
    use quote::ToTokens;
    ty.to_token_stream()
        .into_iter()
        .last()
        .map_or_else(proc_macro2::Span::call_site, |t| t.span())
}

/// When `name` reaches the file only through a `use` line naming it (not a glob), the module path
/// that line takes it from (`rmcp::model`, or `mcp::model` where the package renamed rmcp): the
/// new name needs the same path, written out.
fn import_prefix(file: &syn::File, name: &str) -> Option<String> {
    fn find(tree: &syn::UseTree, name: &str, path: &mut Vec<String>) -> Option<String> {
        match tree {
            syn::UseTree::Path(p) => {
                path.push(p.ident.to_string());
                let found = find(&p.tree, name, path);
                path.pop();
                found
            }
            syn::UseTree::Group(g) => g.items.iter().find_map(|t| find(t, name, path)),
            syn::UseTree::Name(n) if n.ident == name => Some(path.join("::")),
            syn::UseTree::Rename(r) if r.ident == name => Some(path.join("::")),
            _ => None,
        }
    }
    file.items.iter().find_map(|i| match i {
        syn::Item::Use(u) => {
            let found = find(&u.tree, name, &mut Vec::new())?;
            // `use super::X`, `use self::X`: the module's own path means nothing here.
            Some(
                if found.is_empty() || found.starts_with("self") || found.starts_with("super") {
                    "rmcp::model".to_string()
                } else {
                    found
                },
            )
        }
        _ => None,
    })
}

/// `Type::rest` (a value the upgrade rewrote into another of rmcp's types, `SamplingMessageContentBlock::
/// text(..)`) as written when the file imports `Type` (by name, as a rename's target, or through a
/// glob), else with rmcp's model path before it: the file imported the old type, not the new one.
fn in_scope_or_qualified(file: &syn::File, value: String) -> String {
    let Some((ty, _)) = value.split_once("::") else {
        return value;
    };
    let root = rmcp_root(file).unwrap_or_else(|| "rmcp".into());
    // `glob`: a glob here imports from rmcp (the tree is under its root).
    fn names(tree: &syn::UseTree, ty: &str, glob: bool) -> bool {
        match tree {
            syn::UseTree::Path(p) => names(&p.tree, ty, glob),
            syn::UseTree::Name(n) => n.ident == ty,
            syn::UseTree::Rename(r) => r.rename == ty,
            syn::UseTree::Glob(_) => glob,
            syn::UseTree::Group(g) => g.items.iter().any(|t| names(t, ty, glob)),
        }
    }
    let imported = file.items.iter().any(|i| match i {
        syn::Item::Use(u) => {
            let from_rmcp = matches!(&u.tree, syn::UseTree::Path(p) if p.ident == root);
            names(&u.tree, ty, from_rmcp)
        }
        _ => false,
    });
    if imported {
        return value;
    }
    format!("{root}::model::{value}")
}

/// The name the file gives rmcp in paths: `rmcp`, or the key of a renamed dependency
/// (`mcp = { package = "rmcp" }`, seen in the file as `use mcp::model::..`). Read off the
/// file's `use` lines: a root followed by rmcp's `model` module (its other module names, such as
/// `transport` or `service`, are as common in other crates). `None`: no such line.
pub(super) fn rmcp_root(file: &syn::File) -> Option<String> {
    const MODULES: &[&str] = &["model"];
    let mut other = None;
    for item in &file.items {
        let syn::Item::Use(u) = item else { continue };
        let syn::UseTree::Path(p) = &u.tree else {
            continue;
        };
        let root = p.ident.to_string();
        if root == "rmcp" {
            return Some(root);
        }
        let next_is_module = |t: &syn::UseTree| match t {
            syn::UseTree::Path(q) => MODULES.iter().any(|m| q.ident == m),
            syn::UseTree::Name(n) => MODULES.iter().any(|m| n.ident == m),
            syn::UseTree::Group(g) => g.items.iter().any(
                |i| matches!(i, syn::UseTree::Path(q) if MODULES.iter().any(|m| q.ident == m)),
            ),
            _ => false,
        };
        let local = ["crate", "self", "super", "std", "core", "alloc"].contains(&root.as_str());
        if other.is_none() && !local && next_is_module(&p.tree) {
            other = Some(root);
        }
    }
    other
}

/// The method of an `impl` (at any module depth) whose return type holds byte `at`.
fn find_fn<'f>(idx: &LineIndex, items: &'f [syn::Item], at: usize) -> Option<&'f syn::ImplItemFn> {
    for item in items {
        match item {
            syn::Item::Impl(i) => {
                for it in &i.items {
                    let syn::ImplItem::Fn(f) = it else { continue };
                    let syn::ReturnType::Type(_, ty) = &f.sig.output else {
                        continue;
                    };
                    let r = idx.range_between(first_span(ty), last_span(ty));
                    if r.start <= at && at < r.end {
                        return Some(f);
                    }
                }
            }
            syn::Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    if let Some(f) = find_fn(idx, items, at) {
                        return Some(f);
                    }
                }
            }
            _ => {}
        }
    }
    None
}

/// `--upgrade-rmcp` on one manifest's text: the rmcp requirement raised to
/// [`TARGET_REQUIREMENT`](crate::model::sdk::rmcp_upgrade::TARGET_REQUIREMENT) when it admits an older
/// rmcp, and the features rmcp no longer has renamed or dropped. Returns the new text (`None`:
/// nothing to change) and one line per change; [`Outcome::Inherited`] when the version lives in
/// the workspace's manifest.
pub fn bump_manifest(
    text: &str,
) -> Result<(Option<String>, Vec<String>, super::manifest_edit::Outcome), String> {
    use super::manifest_edit::{ManifestEdit, Outcome};
    use crate::model::sdk::rmcp_upgrade::{FEATURES, TARGET, TARGET_REQUIREMENT};
    let mut m = ManifestEdit::parse(text)?;
    let mut notes = Vec::new();
    let old = m.dependency_version("rmcp");
    let below = old
        .as_deref()
        .and_then(crate::model::manifest::Version::lowest_admitted)
        .is_some_and(|v| v < TARGET);
    let mut outcome = Outcome::Unchanged;
    // A local checkout or a repository decides which rmcp a path or git entry is: a version
    // written beside it would have to match that checkout, which a bump cannot know. Left alone,
    // and said so.
    let local = m.local_source("rmcp");
    if let Some(kind) = local {
        notes.push(format!(
            "rmcp is a {kind} dependency: its requirement is left as it is; point it at rmcp \
{TARGET_REQUIREMENT} yourself"
        ));
    } else if below || old.is_none() {
        outcome = m.set_dependency_version("rmcp", TARGET_REQUIREMENT);
        if outcome == Outcome::Changed {
            notes.push(format!(
                "rmcp {} -> {TARGET_REQUIREMENT}",
                old.as_deref().unwrap_or("(no version)")
            ));
        }
    }
    // rmcp's own macro crate, named directly (often pinned, `rmcp-macros = "=1.7.0"`, after a
    // release whose macros outran rmcp), is released with it: it follows rmcp's requirement.
    if local.is_none() && (old.is_some() || outcome == Outcome::Changed) {
        let had = m.dependency_version("rmcp-macros");
        let behind = had
            .as_deref()
            .and_then(crate::model::manifest::Version::lowest_admitted)
            .is_some_and(|v| v < TARGET);
        if behind && m.set_dependency_version("rmcp-macros", TARGET_REQUIREMENT) == Outcome::Changed
        {
            notes.push(format!(
                "rmcp-macros {} -> {TARGET_REQUIREMENT} (released with rmcp)",
                had.as_deref().unwrap_or_default()
            ));
        }
    }
    // The crates rmcp's API shares types with follow rmcp's major, in a manifest that names rmcp
    // (another package may use them for something else).
    let rmcp_here = old.is_some() || outcome == Outcome::Inherited;
    for c in crate::model::sdk::rmcp_upgrade::COMPANIONS
        .iter()
        .filter(|_| rmcp_here)
    {
        let Some(required) = crate::model::manifest::Version::lowest_admitted(c.requirement) else {
            continue;
        };
        let had = m.dependency_version(c.name);
        let behind = had
            .as_deref()
            .and_then(crate::model::manifest::Version::lowest_admitted)
            .is_some_and(|v| v.0 < required.0 || (required.0 == 0 && v.1 < required.1));
        if behind && m.set_dependency_version(c.name, c.requirement) == Outcome::Changed {
            notes.push(format!(
                "{} {} -> {} (rmcp 3.x's; rmcp PR #{})",
                c.name,
                had.as_deref().unwrap_or_default(),
                c.requirement,
                c.pr
            ));
        }
    }
    for f in FEATURES {
        // Both places a feature of rmcp is named: the dependency's own list, and the package's
        // `[features]` that turn it on (`sse = ["rmcp/transport-sse-server"]`); cargo rejects the
        // manifest when either names a feature rmcp no longer has.
        let listed = m.rename_feature("rmcp", f.old, f.new) == Outcome::Changed;
        let referenced = m.rename_feature_references("rmcp", f.old, f.new) == Outcome::Changed;
        if listed || referenced {
            notes.push(match f.new {
                Some(n) => format!("rmcp feature `{}` -> `{n}` (rmcp PR #{})", f.old, f.pr),
                None => format!("rmcp feature `{}` dropped (rmcp PR #{})", f.old, f.pr),
            });
        }
    }
    // The features a release dropped that no row above maps: cargo rejects a manifest naming
    // one, and nothing takes its place.
    for g in crate::model::sdk::rmcp_structs::FEATURES_GONE {
        if FEATURES.iter().any(|f| f.old == g.name) {
            continue;
        }
        let listed = m.rename_feature("rmcp", g.name, None) == Outcome::Changed;
        let referenced = m.rename_feature_references("rmcp", g.name, None) == Outcome::Changed;
        if listed || referenced {
            notes.push(format!(
                "rmcp feature `{}` dropped (gone since {}.{}, rmcp PR #{})",
                g.name, g.since.0, g.since.1, g.pr
            ));
        }
    }
    let new = m.text();
    Ok(((new != text).then_some(new), notes, outcome))
}

/// The nearest `Cargo.toml` at or above `start` (a file or a folder).
/// The `Cargo.toml` files under `dir`, walked as the linter walks for sources.
fn manifests_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    crate::reading::discover::walker(dir)
        .build()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_some_and(|t| t.is_file()) && e.file_name() == "Cargo.toml")
        .map(|e| e.into_path())
        .collect()
}

pub(crate) fn nearest_manifest(start: &std::path::Path) -> Option<std::path::PathBuf> {
    let mut dir = if start.is_dir() {
        Some(start)
    } else {
        start.parent()
    };
    while let Some(d) = dir {
        let m = d.join("Cargo.toml");
        if m.is_file() {
            return Some(m);
        }
        dir = d.parent();
    }
    None
}

/// `--upgrade-rmcp`: bumps the manifests of the packages `starts` (files and folders of the run)
/// belong to, and the workspace manifest they inherit rmcp from. Writes atomically, or prints the
/// diff with `diff_only`. Returns how many manifests changed (or would).
pub fn bump_manifests(
    starts: &[std::path::PathBuf],
    base: &std::path::Path,
    diff_only: bool,
    out: &mut dyn std::io::Write,
    err: &mut dyn std::io::Write,
) -> Result<usize, String> {
    let io = |e: std::io::Error| format!("cannot write the output: {e}");
    let mut manifests: Vec<std::path::PathBuf> = starts
        .iter()
        .filter_map(|s| nearest_manifest(&base.join(s)))
        .collect();
    // Every package under a folder the run was given, findings or not: one left on the old rmcp
    // would build both majors and hand their types to each other (a member crate with only an
    // OAuth helper, say).
    for s in starts {
        let dir = base.join(s);
        if dir.is_dir() {
            manifests.extend(manifests_under(&dir));
        }
    }
    manifests.sort();
    manifests.dedup();
    let mut changed = 0;
    let mut i = 0;
    while i < manifests.len() {
        let path = manifests[i].clone();
        i += 1;
        let shown = crate::reading::source::display_path(&path, base);
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{shown}: {e}"))?;
        let (new, notes, outcome) = bump_manifest(&text).map_err(|e| format!("{shown}: {e}"))?;
        if outcome == super::manifest_edit::Outcome::Inherited {
            if let Some(ws) = super::manifest_edit::workspace_root(&path) {
                if !manifests.contains(&ws) {
                    manifests.push(ws);
                }
            }
        }
        let Some(new) = new else {
            // Nothing written, but something to say (a path or git rmcp left alone).
            if !notes.is_empty() {
                writeln!(err, "{shown}: {}", notes.join(", ")).map_err(io)?;
            }
            continue;
        };
        changed += 1;
        if diff_only {
            out.write_all(super::diff::unified(&shown, &text, &new).as_bytes())
                .map_err(io)?;
        } else {
            crate::atomic_write::write_file_atomic(
                &path,
                new.as_bytes(),
                crate::atomic_write::Kind::Source,
            )
            .map_err(|e| format!("{shown}: cannot write: {e}"))?;
        }
        let verb = if diff_only {
            "would upgrade"
        } else {
            "upgraded"
        };
        writeln!(err, "{shown}: {verb} {}", notes.join(", ")).map_err(io)?;
    }
    Ok(changed)
}
