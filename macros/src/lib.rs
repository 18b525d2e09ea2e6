//! `#[mrtr_handler]`: compiles a straight-line async MCP handler into a resumable MRTR state
//! machine. Use it through the `mrtr` crate, which re-exports it; `docs/mrtr-handler.md`
//! describes the supported shapes and every error message.

mod asks;
mod fingerprint;
mod names;
mod neutral;
mod rewrite;
mod shape;
mod signature;

use proc_macro::TokenStream;
use proc_macro2::TokenStream as TokenStream2;
use quote::quote;
use syn::{Ident, ItemFn};

use signature::Body;

/// Turns an `async fn` that awaits asks (`mrtr.elicit(..)`, `mrtr.elicit_url(..)`,
/// `mrtr.sample(..)`, `mrtr.list_roots()`, `mrtr.ask(..)`, `mrtr.join(a, b, ..)`) into a handler
/// that answers with an `InputRequiredResult` and resumes from the sealed `requestState`.
///
/// `#[mrtr_handler]` or `#[mrtr_handler(name)]`, where `name` is the identifier of the `Mrtr`
/// a hand-written `call_tool` / `get_prompt` / `read_resource` builds (default `mrtr`).
#[proc_macro_attribute]
pub fn mrtr_handler(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand(attr.into(), item.into()).into()
}

fn expand(attr: TokenStream2, item: TokenStream2) -> TokenStream2 {
    let explicit = if attr.is_empty() {
        None
    } else {
        match syn::parse2::<Ident>(attr) {
            Ok(ident) => Some(ident),
            Err(e) => {
                let message = syn::Error::new(
                    e.span(),
                    "#[mrtr_handler] takes nothing, or the identifier of the `Mrtr` a hand-written \
                     handler builds: `#[mrtr_handler(mrtr)]`",
                )
                .to_compile_error();
                return quote!(#message #item);
            }
        }
    };
    let function: ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(_) => {
            let message = syn::Error::new(
                proc_macro2::Span::call_site(),
                "#[mrtr_handler] goes on a function (an `async fn` handler)",
            )
            .to_compile_error();
            return quote!(#message #item);
        }
    };
    let fallback_ident = signature::mrtr_ident(&function, explicit.clone());
    match rewrite_handler(function.clone(), explicit) {
        Ok(tokens) => tokens,
        Err(errors) => {
            let errors = errors.iter().map(syn::Error::to_compile_error);
            // The original function stays (asks replaced by typed stand-ins), so the rest of the
            // crate and the editor keep working and only the errors above are reported.
            let original = neutral::neutralize(function, &fallback_ident);
            quote!(#(#errors)* #original)
        }
    }
}

fn rewrite_handler(
    function: ItemFn,
    explicit: Option<Ident>,
) -> Result<TokenStream2, Vec<syn::Error>> {
    let handler = signature::analyze(function, explicit).map_err(|e| vec![e])?;
    let stmts = match &handler.body {
        Body::Async(stmts) | Body::Boxed(stmts) => stmts.clone(),
    };
    let mrtr = &handler.mrtr;

    let mut check = shape::Check::new(mrtr);
    check.block(&stmts);
    let mut errors = check.errors;
    if !errors.is_empty() {
        return Err(errors);
    }

    let mut rewriter = rewrite::Rewriter::new(mrtr);
    let body = rewriter.block(stmts, 0);
    errors.extend(std::mem::take(&mut rewriter.errors));
    let steps = rewriter.steps();
    if steps > 0 {
        errors.extend(signature::mutable_params(&handler.item));
    }
    if !errors.is_empty() {
        return Err(errors);
    }

    let fingerprint = fingerprint::of(&handler.item.sig.ident.to_string(), steps, &rewriter.shape);
    let ok_ty = &handler.ok_ty;
    let err_ty = &handler.err_ty;
    let prelude = &handler.prelude;
    let inner = quote! {
        #prelude
        let mut __mrtr_flow = match ::mrtr::__private::Flow::start(&#mrtr, #fingerprint, #steps) {
            ::core::result::Result::Ok(flow) => flow,
            ::core::result::Result::Err(error) => {
                return ::core::result::Result::Err(::mrtr::__private::into_error(error));
            }
        };
        let __mrtr_outcome: ::core::result::Result<#ok_ty, #err_ty> = async { #body }.await;
        __mrtr_flow.finish(__mrtr_outcome)
    };
    let block = match handler.body {
        Body::Async(_) => quote!({ #inner }),
        Body::Boxed(_) => quote!({ ::std::boxed::Box::pin(async move { #inner }) }),
    };
    let syn::ItemFn {
        attrs, vis, sig, ..
    } = &handler.item;
    Ok(quote! {
        #(#attrs)*
        #vis #sig #block
    })
}
