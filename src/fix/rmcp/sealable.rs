//! Which values the compiled rewrite may keep across an ask. The state machine seals every
//! binding a later step reads, so it must be `Serialize + Deserialize`; a binding whose type the
//! code shows is not (a struct or enum of the same file without both derives, returned by the
//! function that initialises it) would not compile. Such a handler is left to the deferred tier,
//! which keeps nothing. Types the file does not define are not judged here: the macro's own error
//! names them.

use super::handler::FnSite;
use super::text;
use super::Cx;

/// The first `let` of `site`'s body that stands before the ask at byte `first_ask`, is read
/// after it, and whose type the file shows is not sealable: `(binding, type)`.
pub(super) fn unsealable_kept(
    cx: &Cx,
    fns: &[FnSite],
    site: &FnSite,
    first_ask: usize,
) -> Option<(String, String)> {
    let (_, body_end) = text::block_range(site.block, cx.idx)?;
    for stmt in &site.block.stmts {
        let syn::Stmt::Local(local) = stmt else {
            continue;
        };
        let (_, end) = text::stmt_range(stmt, cx.idx)?;
        if end > first_ask {
            break;
        }
        let syn::Pat::Ident(p) = strip_type(&local.pat) else {
            continue;
        };
        let name = p.ident.to_string();
        if first_ask >= body_end || text::count_in(&cx.src[first_ask..body_end], &name) == 0 {
            continue;
        }
        let ty = annotated(&local.pat)
            .or_else(|| local.init.as_ref().and_then(|i| returned(fns, &i.expr)))?;
        if defined_without_serde(cx.items, &ty) {
            return Some((name, ty));
        }
    }
    None
}

fn strip_type(p: &syn::Pat) -> &syn::Pat {
    match p {
        syn::Pat::Type(t) => &t.pat,
        other => other,
    }
}

fn annotated(p: &syn::Pat) -> Option<String> {
    match p {
        syn::Pat::Type(t) => value_type(&t.ty),
        _ => None,
    }
}

/// The type a call of one of `fns` gives (through `.await`, `?`): its return type, with
/// `Result<T, _>` / `Option<T>` unwrapped.
fn returned(fns: &[FnSite], e: &syn::Expr) -> Option<String> {
    let name = match e {
        syn::Expr::Await(a) => return returned(fns, &a.base),
        syn::Expr::Try(t) => return returned(fns, &t.expr),
        syn::Expr::Paren(p) => return returned(fns, &p.expr),
        syn::Expr::MethodCall(mc) => mc.method.to_string(),
        syn::Expr::Call(c) => match &*c.func {
            syn::Expr::Path(p) => p.path.segments.last()?.ident.to_string(),
            _ => return None,
        },
        _ => return None,
    };
    let mut found = fns.iter().filter(|f| f.sig.ident == name);
    let f = found.next()?;
    if found.next().is_some() {
        return None;
    }
    match &f.sig.output {
        syn::ReturnType::Type(_, ty) => value_type(ty),
        syn::ReturnType::Default => None,
    }
}

/// The last identifier of a type, through `Result<T, _>`, `Option<T>` and `Box<T>`.
fn value_type(ty: &syn::Type) -> Option<String> {
    let syn::Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    let name = last.ident.to_string();
    if matches!(name.as_str(), "Result" | "Option" | "Box") {
        if let syn::PathArguments::AngleBracketed(args) = &last.arguments {
            if let Some(syn::GenericArgument::Type(inner)) = args.args.first() {
                return value_type(inner);
            }
        }
        return None;
    }
    Some(name)
}

/// Whether `items` (modules included) define a struct or enum named `ty` that does not derive
/// both `Serialize` and `Deserialize`.
fn defined_without_serde(items: &[syn::Item], ty: &str) -> bool {
    items.iter().any(|item| {
        let attrs = match item {
            syn::Item::Struct(s) if s.ident == ty => &s.attrs,
            syn::Item::Enum(e) if e.ident == ty => &e.attrs,
            syn::Item::Mod(m) => {
                return m
                    .content
                    .as_ref()
                    .is_some_and(|(_, inner)| defined_without_serde(inner, ty))
            }
            _ => return false,
        };
        let derives = |name: &str| {
            attrs.iter().any(|a| {
                a.path().is_ident("derive")
                    && quote::ToTokens::to_token_stream(&a.meta)
                        .to_string()
                        .split(|c: char| !c.is_alphanumeric() && c != '_')
                        .any(|w| w == name)
            })
        };
        !(derives("Serialize") && derives("Deserialize"))
    })
}
