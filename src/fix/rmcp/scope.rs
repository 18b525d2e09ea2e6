//! The request scope a deferred ask needs: `#[mrtr::mrtr_server]` on the server's
//! `impl ServerHandler`, which makes the runtime open a scope around every `tools/call`,
//! `prompts/get` and `resources/read` the server serves (`mrtr::rmcp::scope`). With it, a
//! request sent anywhere below a handler (a `pub` helper of another crate, a peer in an
//! `Option` or a field, a dispatch chain, a macro body) can be rewritten at its call site alone
//! (`mrtr::rmcp::deferred::*`, see [`super::deferred`]), whatever the code around it is.
//!
//! The attribute goes on the impl wherever it stands: in the file of the ask, or, when the ask
//! sits in a library or another module, in the files the fix driver reads after the rewrite
//! (`fix_driver::scope_servers`). The server type also needs `impl mrtr::MrtrServer`, written
//! right after the `impl ServerHandler` block when its crate has none; that pass also writes it
//! for a `#[mrtr_handler]` of the compiled form whose server's impl is in another file.

use super::text::{indent_at, range_of};
use crate::finding::Edit;
use crate::reading::source::LineIndex;

/// The attribute's path as the fix writes it, and the name the check looks for.
pub const ATTRIBUTE: &str = "#[mrtr::mrtr_server]";
const NAME: &str = "mrtr_server";

/// One `impl .. ServerHandler for T` of a file.
pub struct ServerImpl {
    /// The last identifier of the self type (`Server` for `impl ServerHandler for my::Server<X>`).
    pub ty: String,
    /// Already scoped.
    pub scoped: bool,
    /// Where the attribute goes: the first token after the impl's own attributes.
    at: usize,
    /// The end of the block.
    end: usize,
    /// `impl<..>`'s parameters, the self type and the where clause, as the source writes them.
    generics: String,
    self_ty: String,
    where_clause: String,
}

/// Every `impl ServerHandler for T` among `items` (modules included), in source order.
pub fn server_impls(items: &[syn::Item], idx: &LineIndex) -> Vec<ServerImpl> {
    let mut out = Vec::new();
    collect(items, idx, &mut out);
    out
}

fn collect(items: &[syn::Item], idx: &LineIndex, out: &mut Vec<ServerImpl>) {
    for item in items {
        match item {
            syn::Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    collect(inner, idx, out);
                }
            }
            syn::Item::Impl(imp) => {
                if let Some(found) = server_impl(imp, idx) {
                    out.push(found);
                }
            }
            _ => {}
        }
    }
}

fn server_impl(imp: &syn::ItemImpl, idx: &LineIndex) -> Option<ServerImpl> {
    let (_, trait_path, _) = imp.trait_.as_ref()?;
    if trait_path.segments.last()?.ident != "ServerHandler" {
        return None;
    }
    let syn::Type::Path(self_path) = &*imp.self_ty else {
        return None;
    };
    let ty = self_path.path.segments.last()?.ident.to_string();
    let scoped = imp
        .attrs
        .iter()
        .any(|a| a.path().segments.last().is_some_and(|s| s.ident == NAME));
    let src = idx.text();
    let first = match (&imp.defaultness, &imp.unsafety) {
        (Some(d), _) => d.span,
        (None, Some(u)) => u.span,
        (None, None) => imp.impl_token.span,
    }
    .start();
    let at = idx.offset(first.line, first.column);
    let (_, end) = range_of(imp, idx)?;
    let text_of = |tokens: proc_macro2::TokenStream| -> Option<String> {
        let (s, e) = super::text::range_of_tokens(tokens, idx)?;
        Some(src[s..e].to_string())
    };
    let generics = if imp.generics.params.is_empty() {
        String::new()
    } else {
        let lt = imp.generics.lt_token.as_ref()?;
        let gt = imp.generics.gt_token.as_ref()?;
        let (s, _) = range_of(lt, idx)?;
        let (_, e) = range_of(gt, idx)?;
        src[s..e].to_string()
    };
    let where_clause = match &imp.generics.where_clause {
        Some(w) => format!(" {}", text_of(quote::ToTokens::to_token_stream(w))?),
        None => String::new(),
    };
    Some(ServerImpl {
        ty,
        scoped,
        at,
        end,
        generics,
        self_ty: text_of(quote::ToTokens::to_token_stream(&*imp.self_ty))?,
        where_clause,
    })
}

/// The edits that scope every unscoped server impl among `impls`, and give a type that
/// `has_mrtr_server` says lacks it an `impl mrtr::MrtrServer` (once per type). Returns the
/// edits and the types they scope.
pub fn edits(
    impls: &[ServerImpl],
    idx: &LineIndex,
    has_mrtr_server: &dyn Fn(&str) -> bool,
) -> (Vec<Edit>, Vec<String>) {
    edits_for(impls, idx, has_mrtr_server, true)
}

/// [`edits`], or with `attribute` off only the `impl mrtr::MrtrServer` of each server type that
/// has none: what a `#[mrtr_handler]` written in another file than its server's `impl
/// ServerHandler` needs (the compiled form carries its own rounds, so no scope is opened).
pub fn edits_for(
    impls: &[ServerImpl],
    idx: &LineIndex,
    has_mrtr_server: &dyn Fn(&str) -> bool,
    attribute: bool,
) -> (Vec<Edit>, Vec<String>) {
    let src = idx.text();
    let mut edits = Vec::new();
    let mut scoped = Vec::new();
    let mut given: Vec<&str> = Vec::new();
    for imp in impls.iter().filter(|i| !i.scoped) {
        let indent = indent_at(src, imp.at).to_string();
        let needs_impl = !has_mrtr_server(&imp.ty) && !given.contains(&imp.ty.as_str());
        if !attribute && !needs_impl {
            continue;
        }
        if attribute {
            edits.push(idx.edit(imp.at, imp.at, format!("{ATTRIBUTE}\n{indent}")));
        }
        if needs_impl {
            given.push(&imp.ty);
            edits.push(idx.edit(
                imp.end,
                imp.end,
                format!(
                    "\n\n{indent}impl{} mrtr::MrtrServer for {}{} {{}}",
                    imp.generics, imp.self_ty, imp.where_clause
                ),
            ));
        }
        scoped.push(imp.ty.clone());
    }
    (edits, scoped)
}

/// Whether `text` (a crate's source, or several files of it) implements `MrtrServer` for `ty`.
pub fn text_implements_mrtr_server(text: &str, ty: &str) -> bool {
    let needle = "MrtrServer for ";
    text.match_indices(needle).any(|(at, _)| {
        let rest = &text[at + needle.len()..];
        rest.starts_with(ty)
            && !rest[ty.len()..]
                .chars()
                .next()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(src: &str, has: bool) -> String {
        let file = syn::parse_file(src).unwrap();
        let idx = LineIndex::new(src);
        let impls = server_impls(&file.items, &idx);
        let (edits, _) = edits(&impls, &idx, &|_| has);
        let fix = crate::finding::Fix {
            applicability: crate::finding::Applicability::Unsafe,
            message: String::new(),
            edits,
            other_files: Vec::new(),
        };
        crate::fix::apply::apply_fixes(src, &[&fix]).text
    }

    #[test]
    fn an_unscoped_impl_gets_the_attribute_after_its_own_and_an_mrtr_server_impl() {
        let src = "mod s {\n    #[tool_handler]\n    impl<T: Clone> ServerHandler for Srv<T> where T: Send {}\n}\n";
        let out = plan(src, false);
        assert_eq!(
            out,
            "mod s {\n    #[tool_handler]\n    #[mrtr::mrtr_server]\n    impl<T: Clone> ServerHandler for Srv<T> where T: Send {}\n\n    impl<T: Clone> mrtr::MrtrServer for Srv<T> where T: Send {}\n}\n"
        );
        syn::parse_file(&out).unwrap();
    }

    #[test]
    fn a_scoped_impl_and_other_traits_are_left_alone() {
        let src = "#[mrtr::mrtr_server]\nimpl ServerHandler for A {}\nimpl ClientHandler for B {}\nimpl Display for A {}\n";
        assert_eq!(plan(src, false), src);
    }

    #[test]
    fn an_existing_mrtr_server_impl_is_not_written_twice() {
        let src = "impl rmcp::ServerHandler for A {}\n";
        assert_eq!(
            plan(src, true),
            "#[mrtr::mrtr_server]\nimpl rmcp::ServerHandler for A {}\n"
        );
        assert!(text_implements_mrtr_server(
            "impl mrtr::MrtrServer for A {}",
            "A"
        ));
        assert!(!text_implements_mrtr_server(
            "impl mrtr::MrtrServer for AB {}",
            "A"
        ));
    }
}
