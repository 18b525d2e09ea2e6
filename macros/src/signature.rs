//! The handler's outer shape: how it is written (an `async fn`, or what rmcp's `#[tool]` made of
//! one), where its `Mrtr` comes from, and its declared `Result<T, E>`.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::spanned::Spanned;
use syn::{
    Expr, FnArg, GenericArgument, Ident, ItemFn, Pat, PathArguments, ReturnType, Stmt, Type,
    TypeParamBound,
};

/// Where the handler body lives.
pub enum Body {
    /// `async fn .. { body }`.
    Async(Vec<Stmt>),
    /// `fn .. -> Pin<Box<dyn Future<Output = R> ..>> { Box::pin(async move { body }) }`, the
    /// form rmcp's `#[tool]` gives an async fn before this attribute sees it.
    Boxed(Vec<Stmt>),
}

pub struct Handler {
    pub item: ItemFn,
    pub body: Body,
    pub mrtr: Ident,
    /// Builds `mrtr` for a hand-written `call_tool` / `get_prompt` / `read_resource`.
    pub prelude: TokenStream,
    pub ok_ty: TokenStream,
    pub err_ty: TokenStream,
}

fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        Type::Group(g) => last_segment(&g.elem),
        Type::Paren(p) => last_segment(&p.elem),
        _ => None,
    }
}

fn type_args(segment: &syn::PathSegment) -> Vec<&Type> {
    match &segment.arguments {
        PathArguments::AngleBracketed(args) => args
            .args
            .iter()
            .filter_map(|a| match a {
                GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The `Output = R` of `Pin<Box<dyn Future<Output = R> + ..>>`.
fn boxed_future_output(ty: &mut Type) -> Option<&mut Type> {
    let Type::Path(pin) = ty else { return None };
    let pin = pin.path.segments.last_mut()?;
    if pin.ident != "Pin" {
        return None;
    }
    let PathArguments::AngleBracketed(pin_args) = &mut pin.arguments else {
        return None;
    };
    let Some(GenericArgument::Type(Type::Path(boxed))) = pin_args.args.first_mut() else {
        return None;
    };
    let boxed = boxed.path.segments.last_mut()?;
    if boxed.ident != "Box" {
        return None;
    }
    let PathArguments::AngleBracketed(box_args) = &mut boxed.arguments else {
        return None;
    };
    let Some(GenericArgument::Type(Type::TraitObject(object))) = box_args.args.first_mut() else {
        return None;
    };
    for bound in object.bounds.iter_mut() {
        let TypeParamBound::Trait(bound) = bound else {
            continue;
        };
        let Some(future) = bound.path.segments.last_mut() else {
            continue;
        };
        if future.ident != "Future" {
            continue;
        }
        let PathArguments::AngleBracketed(args) = &mut future.arguments else {
            continue;
        };
        for arg in args.args.iter_mut() {
            if let GenericArgument::AssocType(assoc) = arg {
                if assoc.ident == "Output" {
                    return Some(&mut assoc.ty);
                }
            }
        }
    }
    None
}

/// The statements of `{ Box::pin(async move { .. }) }`.
fn boxed_body(block: &syn::Block) -> Option<Vec<Stmt>> {
    let [Stmt::Expr(Expr::Call(call), None)] = block.stmts.as_slice() else {
        return None;
    };
    let [Expr::Async(inner)] = call.args.iter().collect::<Vec<_>>().as_slice() else {
        return None;
    };
    Some(inner.block.stmts.clone())
}

fn ident_of(pat: &Pat) -> Option<&Ident> {
    match pat {
        Pat::Ident(p) if p.subpat.is_none() => Some(&p.ident),
        _ => None,
    }
}

const HAND_WRITTEN: &[(&str, &str)] = &[
    ("call_tool", "from_call_tool"),
    ("get_prompt", "from_get_prompt"),
    ("read_resource", "from_read_resource"),
];

pub fn analyze(mut item: ItemFn, explicit: Option<Ident>) -> syn::Result<Handler> {
    let sig_span = item.sig.fn_token.span;
    let is_async = item.sig.asyncness.is_some();
    let body = if is_async {
        Body::Async(item.block.stmts.clone())
    } else {
        let mut output = item.sig.output.clone();
        match &mut output {
            ReturnType::Type(_, ty) if boxed_future_output(&mut ty.clone()).is_some() => {
                match boxed_body(&item.block) {
                    Some(stmts) => Body::Boxed(stmts),
                    None => {
                        return Err(syn::Error::new(
                            sig_span,
                            "#[mrtr_handler] needs an `async fn` (or an async `#[tool]` fn)",
                        ))
                    }
                }
            }
            _ => {
                return Err(syn::Error::new(
                    sig_span,
                    "#[mrtr_handler] needs an `async fn` (or an async `#[tool]` fn)",
                ))
            }
        }
    };

    // The declared result type, and its rewrite to the response type.
    let declared: &mut Type = match (&body, &mut item.sig.output) {
        (Body::Async(_), ReturnType::Type(_, ty)) => ty,
        (Body::Boxed(_), ReturnType::Type(_, ty)) => {
            boxed_future_output(ty).expect("checked when the body was read")
        }
        (_, ReturnType::Default) => {
            return Err(syn::Error::new(
                sig_span,
                "#[mrtr_handler] needs a `Result<T, E>` return type: T the complete result \
                 (e.g. `CallToolResult`), E an error that `MrtrError` converts into",
            ))
        }
    };
    let Some((ok_ty, err_ty)) = result_types(declared) else {
        return Err(syn::Error::new(
            declared.span(),
            "#[mrtr_handler] needs a `Result<T, E>` return type",
        ));
    };
    *declared = syn::parse2(quote! {
        ::core::result::Result<<#ok_ty as ::mrtr::__private::Completes>::Response, #err_ty>
    })?;

    // Where the `Mrtr` comes from.
    let mut from_param = None;
    for (index, input) in item.sig.inputs.iter().enumerate() {
        let FnArg::Typed(typed) = input else { continue };
        if last_segment(&typed.ty).is_some_and(|s| s.ident == "Mrtr") {
            let ident = ident_of(&typed.pat).ok_or_else(|| {
                syn::Error::new(typed.pat.span(), "#[mrtr_handler]: name the `Mrtr` parameter with a plain identifier, e.g. `mrtr: Mrtr`")
            })?;
            from_param = Some((index, ident.clone()));
            break;
        }
    }
    let (mrtr, prelude) = match from_param {
        Some((index, ident)) => {
            if matches!(body, Body::Boxed(_)) {
                // rmcp's `Parameters(..)` extractor takes the arguments out of the call context;
                // the `Mrtr` extractor must run first to bind the state to them.
                let first_typed = item
                    .sig
                    .inputs
                    .iter()
                    .position(|a| matches!(a, FnArg::Typed(_)))
                    .unwrap_or(index);
                if first_typed < index {
                    let moved = item.sig.inputs.iter().nth(index).cloned();
                    let mut inputs: Vec<FnArg> = item.sig.inputs.iter().cloned().collect();
                    inputs.remove(index);
                    if let Some(moved) = moved {
                        inputs.insert(first_typed, moved);
                    }
                    item.sig.inputs = inputs.into_iter().collect();
                }
            }
            (ident, TokenStream::new())
        }
        None => {
            let name = item.sig.ident.to_string();
            let Some((_, ctor)) = HAND_WRITTEN.iter().find(|(n, _)| *n == name) else {
                return Err(syn::Error::new(
                    item.sig.ident.span(),
                    "#[mrtr_handler] needs a `mrtr: Mrtr` parameter (or must be a hand-written \
                     `call_tool`, `get_prompt` or `read_resource` of a `ServerHandler`)",
                ));
            };
            if item.sig.receiver().is_none() {
                return Err(syn::Error::new(
                    item.sig.ident.span(),
                    format!("#[mrtr_handler]: a hand-written `{name}` needs `&self` (the server implements `MrtrServer`)"),
                ));
            }
            let typed: Vec<&syn::PatType> = item
                .sig
                .inputs
                .iter()
                .filter_map(|a| match a {
                    FnArg::Typed(t) => Some(t),
                    _ => None,
                })
                .collect();
            let context = typed
                .iter()
                .find(|t| last_segment(&t.ty).is_some_and(|s| s.ident == "RequestContext"));
            let request = typed
                .iter()
                .find(|t| last_segment(&t.ty).is_none_or(|s| s.ident != "RequestContext"));
            let (Some(request), Some(context)) = (request, context) else {
                return Err(syn::Error::new(
                    item.sig.ident.span(),
                    format!("#[mrtr_handler]: a hand-written `{name}` needs its request and `RequestContext` parameters"),
                ));
            };
            let (Some(request), Some(context)) = (ident_of(&request.pat), ident_of(&context.pat))
            else {
                return Err(syn::Error::new(
                    item.sig.ident.span(),
                    "#[mrtr_handler]: name the request and context parameters with plain identifiers",
                ));
            };
            let ctor = Ident::new(ctor, item.sig.ident.span());
            let mrtr = explicit.unwrap_or_else(|| Ident::new("mrtr", item.sig.ident.span()));
            let prelude = quote! {
                let #mrtr = ::mrtr::Mrtr::#ctor(self, &#request, &#context);
            };
            (mrtr, prelude)
        }
    };

    Ok(Handler {
        item,
        body,
        mrtr,
        prelude,
        ok_ty,
        err_ty,
    })
}

/// `T` and `E` of a declared `Result<T, E>`, written directly or through an alias.
pub fn result_types(declared: &Type) -> Option<(TokenStream, TokenStream)> {
    match last_segment(declared) {
        Some(seg) if seg.ident == "Result" && type_args(seg).len() == 2 => {
            let args = type_args(seg);
            Some((args[0].to_token_stream(), args[1].to_token_stream()))
        }
        Some(_) => Some((
            quote!(<#declared as ::mrtr::__private::HandlerResult>::Ok),
            quote!(<#declared as ::mrtr::__private::HandlerResult>::Err),
        )),
        None => None,
    }
}

/// `mut` parameters would come back unmodified in a later round: rejected when the body asks.
pub fn mutable_params(item: &ItemFn) -> Vec<syn::Error> {
    item.sig
        .inputs
        .iter()
        .filter_map(|a| match a {
            FnArg::Typed(t) => match &*t.pat {
                Pat::Ident(p) if p.mutability.is_some() => Some(syn::Error::new(
                    p.ident.span(),
                    format!(
                        "#[mrtr_handler]: a `mut` parameter is not restored across an ask (each \
                         round gets it afresh); rebind it in the body instead: `let mut {0} = {0};`",
                        p.ident
                    ),
                )),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// The identifier asks are made on: the `Mrtr` parameter's, else the explicit one, else `mrtr`.
pub fn mrtr_ident(item: &ItemFn, explicit: Option<Ident>) -> Ident {
    item.sig
        .inputs
        .iter()
        .find_map(|a| match a {
            FnArg::Typed(t) if last_segment(&t.ty).is_some_and(|s| s.ident == "Mrtr") => {
                ident_of(&t.pat).cloned()
            }
            _ => None,
        })
        .or(explicit)
        .unwrap_or_else(|| Ident::new("mrtr", proc_macro2::Span::call_site()))
}
