//! Whether the error type of a handler or helper the compiled form rewrites can hold the
//! runtime's `MrtrError`: `#[mrtr_handler]` and `#[mrtr_helper]` end a round, and report a
//! refused state, through `E: From<MrtrError>`, and the asks' `?` needs the same. Only a type
//! known to convert is taken; any other leaves the site to the deferred form, which keeps the
//! code's own error handling (a tool erring with a `CallToolResult`, a crate's own error enum).
//!
//! Known to convert: rmcp's `ErrorData` (`McpError`), `String`, `anyhow::Error`, eyre's
//! `Report`, `Box<dyn Error ..>`, and any type the file converts itself
//! (`impl From<MrtrError> for AppError`). A one-argument `Result<T>` is read through the file's
//! own `type Result<T> = ..;`, or is anyhow's when the path or the file's imports say so.

use quote::ToTokens;

use super::text::{last_ident, type_args};

/// Error types rmcp and the common error crates spell, by last segment, that `MrtrError`
/// converts into (`impl From<MrtrError> for ErrorData` in the runtime; `String` by its message;
/// the error-box crates through `std::error::Error`).
const HOLDS: [&str; 4] = ["ErrorData", "McpError", "String", "Report"];

/// `Ok` when the error type of `sig`'s `Result` is known to hold an `MrtrError`; else why not.
/// `items`: the items of the file the fn is in (its imports, aliases and `impl`s).
pub fn check(sig: &syn::Signature, items: &[syn::Item]) -> Result<(), String> {
    let name = sig.ident.to_string();
    let syn::ReturnType::Type(_, ty) = &sig.output else {
        return Err(format!("`{name}` does not return `Result<T, E>`"));
    };
    let syn::Type::Path(p) = &**ty else {
        return Err(format!("`{name}` does not return `Result<T, E>`"));
    };
    let last = p
        .path
        .segments
        .last()
        .ok_or("a return type without a name")?;
    if last.ident != "Result" && !last.ident.to_string().ends_with("Result") {
        return Err(format!("`{name}` does not return `Result<T, E>`"));
    }
    let args = type_args(last);
    let holds = match args.get(1) {
        Some(err) => holds(err, items),
        None => alias_holds(&p.path, items),
    };
    if holds {
        return Ok(());
    }
    let err = match args.get(1) {
        Some(err) => err.to_token_stream().to_string().replace(' ', ""),
        None => ty.to_token_stream().to_string().replace(' ', ""),
    };
    Err(format!(
        "the error type of `{name}` (`{err}`) is not known to hold the runtime's `MrtrError` \
(no `From<MrtrError>`)"
    ))
}

/// Whether `err` is one of the known types, or one the file converts `MrtrError` into.
fn holds(err: &syn::Type, items: &[syn::Item]) -> bool {
    match err {
        syn::Type::Path(p) => {
            let Some(last) = p.path.segments.last() else {
                return false;
            };
            let name = last.ident.to_string();
            if HOLDS.contains(&name.as_str()) {
                return true;
            }
            if name == "Box" {
                return err.to_token_stream().to_string().contains("dyn");
            }
            let from_anyhow = p.path.segments.iter().any(|s| s.ident == "anyhow")
                || (p.path.segments.len() == 1 && imports_from_anyhow(items, "Error"));
            (name == "Error" && from_anyhow) || converts_itself(&name, items)
        }
        syn::Type::Paren(t) => holds(&t.elem, items),
        syn::Type::Group(t) => holds(&t.elem, items),
        _ => false,
    }
}

/// A `Result<T>` with one argument: anyhow's by its path (`anyhow::Result<T>`) or the file's
/// import, or the file's own alias (`type Result<T> = std::result::Result<T, AppError>;`).
fn alias_holds(path: &syn::Path, items: &[syn::Item]) -> bool {
    if path.segments.iter().any(|s| s.ident == "anyhow") {
        return true;
    }
    let alias = path.segments.last().map(|s| s.ident.to_string());
    let alias = alias.as_deref().unwrap_or("Result");
    if path.segments.len() == 1 && imports_from_anyhow(items, alias) {
        return true;
    }
    all_items(items).any(|item| match item {
        syn::Item::Type(t) if t.ident == alias => match &*t.ty {
            syn::Type::Path(p) => {
                let err = p
                    .path
                    .segments
                    .last()
                    .and_then(|s| type_args(s).get(1).copied());
                match err {
                    Some(err) => holds(err, items),
                    None => p.path.segments.iter().any(|s| s.ident == "anyhow"),
                }
            }
            _ => false,
        },
        _ => false,
    })
}

/// The items of the file, those of its inline modules included.
fn all_items(items: &[syn::Item]) -> impl Iterator<Item = &syn::Item> {
    items.iter().flat_map(|item| {
        let inner: Box<dyn Iterator<Item = &syn::Item>> = match item {
            syn::Item::Mod(m) => match &m.content {
                Some((_, items)) => Box::new(all_items(items)),
                None => Box::new(std::iter::empty()),
            },
            _ => Box::new(std::iter::empty()),
        };
        std::iter::once(item).chain(inner)
    })
}

/// Whether a `use` of the file brings anyhow's item into scope as `name` (`use anyhow::Error;`,
/// `use anyhow::{Context, Result};`, `use anyhow::Result as AResult;`).
fn imports_from_anyhow(items: &[syn::Item], name: &str) -> bool {
    fn leaf_named(tree: &syn::UseTree, name: &str) -> bool {
        match tree {
            syn::UseTree::Path(p) => leaf_named(&p.tree, name),
            syn::UseTree::Group(g) => g.items.iter().any(|t| leaf_named(t, name)),
            syn::UseTree::Name(n) => n.ident == name,
            syn::UseTree::Rename(r) => r.rename == name,
            syn::UseTree::Glob(_) => false,
        }
    }
    all_items(items).any(|item| match item {
        syn::Item::Use(u) => match &u.tree {
            syn::UseTree::Path(p) if p.ident == "anyhow" => leaf_named(&p.tree, name),
            _ => false,
        },
        _ => false,
    })
}

/// `impl From<MrtrError> for NAME` (the error by any path: `mrtr::MrtrError`) in the file.
fn converts_itself(name: &str, items: &[syn::Item]) -> bool {
    all_items(items).any(|item| {
        let syn::Item::Impl(imp) = item else {
            return false;
        };
        let Some((_, trait_path, _)) = &imp.trait_ else {
            return false;
        };
        let from_mrtr = trait_path.segments.last().is_some_and(|s| {
            s.ident == "From"
                && type_args(s)
                    .first()
                    .and_then(|t| last_ident(t))
                    .is_some_and(|t| t == "MrtrError")
        });
        from_mrtr && last_ident(&imp.self_ty).is_some_and(|t| t == name)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_fn(src: &str) -> Result<(), String> {
        let file = syn::parse_file(src).unwrap();
        let f = file
            .items
            .iter()
            .find_map(|i| match i {
                syn::Item::Fn(f) if f.sig.ident == "h" => Some(f),
                _ => None,
            })
            .unwrap();
        check(&f.sig, &file.items)
    }

    #[test]
    fn known_error_types_hold_the_runtime_s_error_and_others_do_not() {
        for ok in [
            "async fn h() -> Result<CallToolResult, ErrorData> { todo!() }",
            "async fn h() -> Result<CallToolResult, rmcp::ErrorData> { todo!() }",
            "async fn h() -> Result<CallToolResult, McpError> { todo!() }",
            "async fn h() -> Result<String, String> { todo!() }",
            "async fn h() -> Result<u8, anyhow::Error> { todo!() }",
            "async fn h() -> anyhow::Result<u8> { todo!() }",
            "use anyhow::Result;\nasync fn h() -> Result<u8> { todo!() }",
            "use anyhow::{Context, Result as AResult};\nasync fn h() -> AResult<u8> { todo!() }",
            "mod errors { pub type Result<T> = std::result::Result<T, rmcp::ErrorData>; }\nuse errors::Result;\nasync fn h() -> Result<u8> { todo!() }",
            "async fn h() -> Result<u8, Box<dyn std::error::Error + Send + Sync>> { todo!() }",
            "type Result<T> = std::result::Result<T, rmcp::ErrorData>;\nasync fn h() -> Result<u8> { todo!() }",
            "enum AppError { M(String) }\nimpl From<mrtr::MrtrError>\n    for AppError { fn from(e: mrtr::MrtrError) -> Self { AppError::M(e.to_string()) } }\nasync fn h() -> Result<u8, AppError> { todo!() }",
        ] {
            assert_eq!(check_fn(ok), Ok(()), "{ok}");
        }
        for no in [
            "async fn h() -> Result<Json<u8>, CallToolResult> { todo!() }",
            "enum AppError { Io }\nasync fn h() -> Result<u8, AppError> { todo!() }",
            "async fn h() -> Result<u8, std::io::Error> { todo!() }",
            "async fn h() -> Result<u8> { todo!() }",
            "type Result<T> = std::result::Result<T, AppError>;\nasync fn h() -> Result<u8> { todo!() }",
            "async fn h() -> Result<u8, &'static str> { todo!() }",
            "async fn h() -> Result<u8, ()> { todo!() }",
        ] {
            assert!(check_fn(no).is_err(), "{no}");
        }
    }
}
