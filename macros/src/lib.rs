//! `#[mrtr_handler]`: compiles a straight-line async MCP handler into a resumable MRTR state
//! machine. Use it through the `mrtr` crate, which re-exports it; `docs/mrtr-handler.md`
//! describes the supported shapes and every error message.

mod asks;
mod fingerprint;
mod helper;
mod names;
mod neutral;
mod owned;
mod rewrite;
mod server;
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

/// Turns an `async fn` that asks, taking `mrtr: &Mrtr` and returning `Result<T, E>`, into an
/// asking helper: a sub-machine that a `#[mrtr_handler]` (or another helper) calls as
/// `helper(&mrtr, ..).await`, whose progress nests in the caller's sealed state.
#[proc_macro_attribute]
pub fn mrtr_helper(attr: TokenStream, item: TokenStream) -> TokenStream {
    helper::expand(attr.into(), item.into()).into()
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
    let server_check = server::check(&handler.item, &handler.body);
    let inner = quote! {
        #server_check
        #prelude
        let mut __mrtr_flow = match ::mrtr::__private::Flow::start(&#mrtr, #fingerprint, #steps) {
            ::core::result::Result::Ok(flow) => flow,
            ::core::result::Result::Err(error) => {
                return ::core::result::Result::Err(::mrtr::__private::into_error(error));
            }
        };
        // Asks made below the handler by code the macro does not rewrite (a gate behind a
        // trait object) land in the flow through this scope; see `mrtr::deferred`.
        let __mrtr_deferred = __mrtr_flow.deferred();
        let __mrtr_outcome: ::core::result::Result<#ok_ty, #err_ty> =
            __mrtr_deferred.run(async { #body }).await;
        let __mrtr_outcome = __mrtr_flow.settle_deferred(__mrtr_outcome);
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

#[cfg(test)]
mod tests {
    use quote::quote;

    fn errors_of(item: proc_macro2::TokenStream) -> String {
        super::expand(proc_macro2::TokenStream::new(), item).to_string()
    }

    fn assert_error(item: proc_macro2::TokenStream, message: &str) {
        let out = errors_of(item);
        assert!(out.contains("compile_error"), "no error in: {out}");
        assert!(out.contains(message), "`{message}` not in: {out}");
        // The original function is still emitted, its asks replaced by stand-ins.
        assert!(
            out.contains("unrewritten_ask") || out.contains("unrewritten_join"),
            "{out}"
        );
    }

    #[test]
    fn an_ask_inside_a_macro_is_reported() {
        assert_error(
            quote! { async fn h(mrtr: Mrtr) -> Result<V, E> {
                let s = mrtr.elicit::<A>("a").await?;
                println!("{:?}", mrtr.elicit::<A>("b").await);
                Ok(s)
            } },
            "inside a macro invocation",
        );
    }

    #[test]
    fn asks_in_scrutinees_guards_and_unsafe_blocks_are_reported() {
        assert_error(
            quote! { async fn h(mrtr: Mrtr) -> Result<V, E> {
                match mrtr.elicit::<A>("a").await? { _ => {} }
                let a = mrtr.elicit::<A>("a").await?;
                Ok(a)
            } },
            "in a `match` scrutinee",
        );
        assert_error(
            quote! { async fn h(mrtr: Mrtr) -> Result<V, E> {
                match x { Some(_) if mrtr.elicit::<A>("a").await?.ok() => {}, _ => {} }
                Ok(())
            } },
            "in a `match` guard",
        );
        assert_error(
            quote! { async fn h(mrtr: Mrtr) -> Result<V, E> {
                unsafe { let a = mrtr.elicit::<A>("a").await?; }
                Ok(())
            } },
            "inside an `unsafe` block",
        );
    }

    #[test]
    fn unkeepable_bindings_are_reported() {
        assert_error(
            quote! { async fn h(mrtr: Mrtr) -> Result<V, E> {
                let x;
                x = 1;
                let a = mrtr.elicit::<A>("a").await?;
                Ok((a, x))
            } },
            "without an initializer",
        );
        assert_error(
            quote! { async fn h(mrtr: Mrtr) -> Result<V, E> {
                let ref x = 1;
                let a = mrtr.elicit::<A>("a").await?;
                Ok((a, x))
            } },
            "a `ref` binding cannot be kept",
        );
        assert_error(
            quote! { async fn h(mrtr: Mrtr) -> Result<V, E> {
                let x = 1;
                let c = mrtr.elicit::<A>("c").await?;
                let y = if c {
                    let x = 2;
                    let b = mrtr.elicit::<A>("b").await?;
                    b + x
                } else { 0 };
                Ok((x, y))
            } },
            "hides an outer `x`",
        );
    }

    #[test]
    fn a_tool_boxed_handler_is_rewritten_and_mrtr_moves_before_parameters() {
        let out = errors_of(quote! {
            fn deploy(&self, Parameters(args): Parameters<A>, mrtr: Mrtr)
                -> ::std::pin::Pin<Box<dyn ::std::future::Future<Output = Result<CallToolResult, McpError>> + Send + '_>>
            {
                Box::pin(async move {
                    let ok = mrtr.elicit::<A>("a").await?;
                    Ok(ok)
                })
            }
        });
        assert!(!out.contains("compile_error"), "{out}");
        assert!(out.contains("Completes > :: Response"), "{out}");
        let mrtr_at = out.find("mrtr : Mrtr").expect("the parameter");
        let params_at = out.find("Parameters (args)").expect("the parameter");
        assert!(mrtr_at < params_at, "{out}");
    }
}
