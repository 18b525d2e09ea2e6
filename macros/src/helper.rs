//! `#[mrtr_helper]`: an `async fn` that asks, called from a handler (or another helper) as
//! `helper(&mrtr, ..).await`, compiled into a sub-machine whose progress nests in the caller's
//! sealed state.
//!
//! The helper keeps its name, its other parameters and its `Result<T, E>`; its `mrtr: &Mrtr`
//! parameter becomes the `Frame` the caller's expansion passes in its place, and its body is
//! rewritten exactly like a handler's, on a child flow (`Flow::start_nested`).

use proc_macro2::{Span, TokenStream};
use quote::{quote, ToTokens};
use syn::spanned::Spanned;
use syn::{FnArg, Ident, ItemFn, Pat, ReturnType, Type};

use crate::{fingerprint, neutral, rewrite, shape, signature};

const NAME: &str = "#[mrtr_helper]";

fn error(span: Span, message: &str) -> syn::Error {
    syn::Error::new(span, format!("{NAME}: {message}"))
}

/// The shape checks and the rewrite speak of `#[mrtr_handler]`; here they are about a helper.
fn as_helper_errors(errors: Vec<syn::Error>) -> Vec<syn::Error> {
    errors
        .into_iter()
        .flat_map(|e| e.into_iter())
        .map(|e| syn::Error::new(e.span(), e.to_string().replace("#[mrtr_handler]", NAME)))
        .collect()
}

/// `&Mrtr` (any path ending in `Mrtr`).
fn is_mrtr_ref(ty: &Type) -> Option<bool> {
    let (inner, by_ref) = match ty {
        Type::Reference(r) if r.mutability.is_none() => (&*r.elem, true),
        other => (other, false),
    };
    match inner {
        Type::Path(p) if p.qself.is_none() => p
            .path
            .segments
            .last()
            .filter(|s| s.ident == "Mrtr")
            .map(|_| by_ref),
        _ => None,
    }
}

/// `Result<..>`, or an alias that takes arguments or whose name says it is one
/// (`McpResult<T>`, `ToolResult`): not `bool` or `String`.
fn names_a_result(ty: &Type) -> bool {
    let Type::Path(path) = ty else { return false };
    path.path.segments.last().is_some_and(|s| {
        s.ident.to_string().ends_with("Result")
            || matches!(s.arguments, syn::PathArguments::AngleBracketed(_))
    })
}

/// The name asks are made on when the signature is wrong: the parameter typed `Mrtr` or
/// `&Mrtr`, else `mrtr`.
fn guess_mrtr(item: &ItemFn) -> Ident {
    item.sig
        .inputs
        .iter()
        .find_map(|input| match input {
            FnArg::Typed(t) if is_mrtr_ref(&t.ty).is_some() => match &*t.pat {
                Pat::Ident(p) => Some(p.ident.clone()),
                _ => None,
            },
            _ => None,
        })
        .unwrap_or_else(|| Ident::new("mrtr", Span::call_site()))
}

struct Helper {
    item: ItemFn,
    mrtr: Ident,
    index: usize,
    ok_ty: TokenStream,
    err_ty: TokenStream,
}

fn analyze(item: ItemFn) -> syn::Result<Helper> {
    let sig_span = item.sig.fn_token.span;
    if item.sig.asyncness.is_none() {
        return Err(error(
            sig_span,
            "needs an `async fn`: `async fn confirm(mrtr: &Mrtr, ..) -> Result<T, E>`",
        ));
    }
    let declared = match &item.sig.output {
        ReturnType::Type(_, ty) => ty,
        ReturnType::Default => {
            return Err(error(
                sig_span,
                "needs a `Result<T, E>` return type, E an error that `MrtrError` converts into",
            ))
        }
    };
    let (ok_ty, err_ty) = match signature::result_types(declared) {
        Some(types) if names_a_result(declared) => types,
        _ => {
            return Err(error(
                declared.span(),
                "needs a `Result<T, E>` return type, E an error that `MrtrError` converts into",
            ))
        }
    };
    let mut found = None;
    for (index, input) in item.sig.inputs.iter().enumerate() {
        let FnArg::Typed(typed) = input else { continue };
        match is_mrtr_ref(&typed.ty) {
            Some(true) => {}
            Some(false) => {
                return Err(error(
                    typed.ty.span(),
                    "an asking helper borrows the request's `Mrtr`: take `mrtr: &Mrtr`",
                ))
            }
            None => continue,
        }
        let Pat::Ident(ident) = &*typed.pat else {
            return Err(error(
                typed.pat.span(),
                "name the `&Mrtr` parameter with a plain identifier, e.g. `mrtr: &Mrtr`",
            ));
        };
        if ident.by_ref.is_some() || ident.mutability.is_some() || ident.subpat.is_some() {
            return Err(error(
                typed.pat.span(),
                "name the `&Mrtr` parameter with a plain identifier, e.g. `mrtr: &Mrtr`",
            ));
        }
        found = Some((index, ident.ident.clone()));
        break;
    }
    let Some((index, mrtr)) = found else {
        return Err(error(
            item.sig.ident.span(),
            "needs a `mrtr: &Mrtr` parameter (the caller passes `&mrtr`)",
        ));
    };
    Ok(Helper {
        item,
        mrtr,
        index,
        ok_ty,
        err_ty,
    })
}

/// The helper's signature with its `&Mrtr` parameter turned into the frame parameter.
fn frame_signature(item: &ItemFn, index: usize) -> syn::Signature {
    let mut sig = item.sig.clone();
    let inputs = sig.inputs.iter().cloned().enumerate().map(|(i, input)| {
        if i == index {
            syn::parse_quote!(mut __mrtr_frame_arg: impl ::mrtr::__private::HelperFrame)
        } else {
            input
        }
    });
    sig.inputs = inputs.collect();
    sig
}

fn prologue(mrtr: &Ident) -> TokenStream {
    quote! {
        let __mrtr_frame: &mut ::mrtr::__private::Frame =
            ::mrtr::__private::HelperFrame::frame(&mut __mrtr_frame_arg);
        let __mrtr_handle: ::mrtr::__private::Mrtr = __mrtr_frame.mrtr().clone();
        // Unused when the helper only hands it to other helpers (each call gets the frame).
        #[allow(unused_variables)]
        let #mrtr: &::mrtr::__private::Mrtr = &__mrtr_handle;
    }
}

pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let function: ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(_) => {
            let message = error(
                Span::call_site(),
                "goes on an `async fn` that asks, taking `mrtr: &Mrtr`",
            )
            .to_compile_error();
            return quote!(#message #item);
        }
    };
    // On a wrong signature the function stays as written, its asks replaced by stand-ins, so
    // only the error above is reported.
    let stand_in = |e: syn::Error| {
        let message = e.to_compile_error();
        let original = neutral::neutralize(function.clone(), &guess_mrtr(&function));
        quote!(#message #original)
    };
    if !attr.is_empty() {
        return stand_in(error(attr.span(), "takes no arguments"));
    }
    let helper = match analyze(function.clone()) {
        Ok(helper) => helper,
        Err(e) => return stand_in(e),
    };
    match rewrite_helper(&helper) {
        Ok(tokens) => tokens,
        Err(errors) => {
            // The helper stays callable (its asks replaced by stand-ins), so its callers and the
            // editor keep working and only the errors above are reported.
            let errors = as_helper_errors(errors);
            let errors = errors.iter().map(syn::Error::to_compile_error);
            let mrtr = &helper.mrtr;
            let neutral: ItemFn = syn::parse2(neutral::neutralize(helper.item.clone(), mrtr))
                .expect("the neutralized helper parses");
            let sig = frame_signature(&helper.item, helper.index);
            let attrs = &helper.item.attrs;
            let vis = &helper.item.vis;
            let prologue = prologue(mrtr);
            let stmts = &neutral.block.stmts;
            quote! {
                #(#errors)*
                #(#attrs)*
                #vis #sig { #prologue #(#stmts)* }
            }
        }
    }
}

fn rewrite_helper(helper: &Helper) -> Result<TokenStream, Vec<syn::Error>> {
    let stmts = helper.item.block.stmts.clone();
    let mrtr = &helper.mrtr;
    let mut check = shape::Check::new(mrtr);
    check.block(&stmts);
    if !check.errors.is_empty() {
        return Err(check.errors);
    }
    let mut rewriter = rewrite::Rewriter::new(mrtr);
    let body = rewriter.block(stmts, 0);
    let mut errors = std::mem::take(&mut rewriter.errors);
    let steps = rewriter.steps();
    if steps > 0 {
        errors.extend(signature::mutable_params(&helper.item));
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let name = format!("helper:{}", helper.item.sig.ident);
    let fingerprint = fingerprint::of(&name, steps, &rewriter.shape);
    let ok_ty = &helper.ok_ty;
    let err_ty = &helper.err_ty;
    let prologue = prologue(mrtr);
    let sig = frame_signature(&helper.item, helper.index);
    let attrs = &helper.item.attrs;
    let vis = &helper.item.vis;
    let doc = format!(
        " Asking helper (`#[mrtr_helper]`): call it as `{}(&mrtr, ..).await` from a \
         `#[mrtr_handler]` or another `#[mrtr_helper]`.",
        helper.item.sig.ident.to_token_stream()
    );
    Ok(quote! {
        #(#attrs)*
        #[doc = ""]
        #[doc = #doc]
        #vis #sig {
            #prologue
            let mut __mrtr_flow = match ::mrtr::__private::Flow::start_nested(
                __mrtr_frame, #fingerprint, #steps,
            ) {
                ::core::result::Result::Ok(flow) => flow,
                ::core::result::Result::Err(error) => {
                    return ::core::result::Result::Err(::mrtr::__private::into_error(error));
                }
            };
            let __mrtr_outcome: ::core::result::Result<#ok_ty, #err_ty> = async { #body }.await;
            __mrtr_flow.finish_nested(__mrtr_frame, __mrtr_outcome)
        }
    })
}
