//! `#[mrtr_server]` on a server's `impl ServerHandler`: every `tools/call`, `prompts/get` and
//! `resources/read` it serves runs in the runtime's request scope (`mrtr::rmcp::scope`), so a
//! deferred ask anywhere below the handler finds its MRTR round.
//!
//! The handlers may be written in the impl or generated into it by rmcp's `#[tool_handler]` /
//! `#[prompt_handler]`. Attribute macros expand outside in, so when those attributes still stand
//! on the impl this one re-emits the impl with itself placed after them: it then sees the
//! generated methods. A method that is itself a `#[mrtr_handler]` keeps its own flow and is left
//! alone.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, ToTokens};
use syn::{FnArg, ImplItem, ImplItemFn, ItemImpl, Pat};

/// The handler methods and the runtime function that opens each one's scope.
const SCOPED: [(&str, &str); 3] = [
    ("call_tool", "call_tool"),
    ("get_prompt", "get_prompt"),
    ("read_resource", "read_resource"),
];

/// rmcp's attributes that add handler methods to the impl when they expand.
const GENERATORS: [&str; 2] = ["tool_handler", "prompt_handler"];

pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    if !attr.is_empty() {
        return error(Span::call_site(), "#[mrtr_server] takes no arguments", item);
    }
    let mut imp: ItemImpl = match syn::parse2(item.clone()) {
        Ok(imp) => imp,
        Err(_) => {
            return error(
                Span::call_site(),
                "#[mrtr_server] goes on a server's `impl ServerHandler for ..` block",
                item,
            )
        }
    };
    if let Some(at) = imp.attrs.iter().position(is_generator) {
        // Expand after rmcp's generator, so the generated handlers are there to wrap.
        let later = imp.attrs.split_off(at);
        let mut generators = Vec::new();
        let mut rest = Vec::new();
        for a in later {
            if is_generator(&a) {
                generators.push(a);
            } else {
                rest.push(a);
            }
        }
        imp.attrs.extend(generators);
        imp.attrs.push(syn::parse_quote!(#[::mrtr::mrtr_server]));
        imp.attrs.extend(rest);
        return imp.into_token_stream();
    }
    for item in &mut imp.items {
        if let ImplItem::Fn(f) = item {
            if let Some((_, runtime_fn)) = SCOPED.iter().find(|(name, _)| f.sig.ident == name) {
                if !is_mrtr_handler(f) {
                    if let Err(e) = wrap(f, runtime_fn) {
                        return error(e.span(), &e.to_string(), imp.into_token_stream());
                    }
                }
            }
        }
    }
    imp.into_token_stream()
}

fn error(span: Span, message: &str, item: TokenStream) -> TokenStream {
    let e = syn::Error::new(span, message).to_compile_error();
    quote!(#e #item)
}

fn last_segment_is(attr: &syn::Attribute, names: &[&str]) -> bool {
    attr.path()
        .segments
        .last()
        .is_some_and(|s| names.iter().any(|n| s.ident == n))
}

fn is_generator(attr: &syn::Attribute) -> bool {
    last_segment_is(attr, &GENERATORS)
}

fn is_mrtr_handler(f: &ImplItemFn) -> bool {
    f.attrs
        .iter()
        .any(|a| last_segment_is(a, &["mrtr_handler"]))
}

/// `async fn call_tool(&self, request: P, context: C) -> R { BODY }` becomes
/// `{ let scope = ::mrtr::rmcp::scope::call_tool(self, &request, &context); scope.run(async move
/// { BODY }).await }`. Parameters that are patterns rather than names are bound to names first
/// and destructured inside the moved block.
fn wrap(f: &mut ImplItemFn, runtime_fn: &str) -> syn::Result<()> {
    if f.sig.receiver().is_none() {
        return Err(syn::Error::new_spanned(
            &f.sig,
            "#[mrtr_server]: a handler method without `&self`",
        ));
    }
    let typed: Vec<&mut syn::PatType> = f
        .sig
        .inputs
        .iter_mut()
        .filter_map(|arg| match arg {
            FnArg::Typed(t) => Some(t),
            FnArg::Receiver(_) => None,
        })
        .collect();
    if typed.len() != 2 {
        return Err(syn::Error::new_spanned(
            &f.sig,
            "#[mrtr_server]: a handler takes the request's params and its context",
        ));
    }
    let mut names = Vec::new();
    let mut unpack = Vec::new();
    for (i, t) in typed.into_iter().enumerate() {
        let name = match &*t.pat {
            Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => p.ident.clone(),
            other => {
                let name = format_ident!("__mrtr_param_{}", i);
                unpack.push(quote!(let #other = #name;));
                name
            }
        };
        // `_request` and `mut request` alike: the scope only borrows it first.
        if let Pat::Ident(p) = &mut *t.pat {
            if p.by_ref.is_none() && p.subpat.is_none() {
                names.push((p.ident.clone(), p.mutability.is_some()));
                continue;
            }
        }
        *t.pat = syn::parse_quote!(#name);
        names.push((name, false));
    }
    let (request, _) = &names[0];
    let (context, _) = &names[1];
    let open = format_ident!("{}", runtime_fn);
    let body = &f.block;
    let scope = quote!(__mrtr_request_scope);
    f.block = if f.sig.asyncness.is_some() {
        syn::parse_quote!({
            let #scope = ::mrtr::rmcp::scope::#open(self, &#request, &#context);
            #scope.run(async move { #(#unpack)* #body }).await
        })
    } else {
        // `fn call_tool(..) -> impl Future<Output = ..> + Send + '_`: the body is a future.
        syn::parse_quote!({
            let #scope = ::mrtr::rmcp::scope::#open(self, &#request, &#context);
            let __mrtr_body = { #(#unpack)* #body };
            async move { #scope.run(__mrtr_body).await }
        })
    };
    Ok(())
}
