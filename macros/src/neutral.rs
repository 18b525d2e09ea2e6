//! The copy of a handler emitted next to its compile errors: every ask replaced by a typed
//! stand-in, so the body still type-checks and only the macro's own error is reported.

use quote::quote;
use syn::visit_mut::VisitMut;
use syn::{Expr, Ident, ItemFn};

use crate::asks::{parse_ask_lenient, AskKind};

struct Neutralize<'m> {
    mrtr: &'m Ident,
}

impl VisitMut for Neutralize<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        if let Some(ask) = parse_ask_lenient(expr, self.mrtr) {
            let mut replaced: Expr = match ask.kind {
                AskKind::Single(inner) => {
                    syn::parse_quote!(::mrtr::__private::unrewritten_ask(#inner))
                }
                AskKind::Join(asks) => {
                    syn::parse_quote!(::mrtr::__private::unrewritten_join((#(#asks,)*)))
                }
            };
            syn::visit_mut::visit_expr_mut(self, &mut replaced);
            *expr = replaced;
            return;
        }
        syn::visit_mut::visit_expr_mut(self, expr);
    }
}

/// `item` with its asks replaced (the signature untouched).
pub fn neutralize(mut item: ItemFn, mrtr: &Ident) -> proc_macro2::TokenStream {
    Neutralize { mrtr }.visit_block_mut(&mut item.block);
    quote!(#item)
}
