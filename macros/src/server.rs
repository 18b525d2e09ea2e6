//! rmcp `#[tool]` handlers need their server type to implement `mrtr::MrtrServer` (the `Mrtr`
//! extractor reads the configuration from it). Without the impl, rmcp's `#[tool_router]`
//! reports only that its route trait is not implemented; a check in the handler names the impl
//! to write, at the handler.

use proc_macro2::TokenStream;
use quote::quote;
use syn::ItemFn;

use crate::signature::Body;

/// `assert_mrtr_server::<Self>()` for a method that is (or is about to become) an rmcp tool.
pub fn check(item: &ItemFn, body: &Body) -> TokenStream {
    let is_tool = matches!(body, Body::Boxed(_))
        || item.attrs.iter().any(|a| {
            a.path()
                .segments
                .last()
                .is_some_and(|segment| segment.ident == "tool")
        });
    if is_tool && item.sig.receiver().is_some() {
        quote!(::mrtr::__private::assert_mrtr_server::<Self>();)
    } else {
        TokenStream::new()
    }
}
