//! Loops holding asks: `loop`, `while COND` and `for PAT in EXPR`.
//!
//! The rewrite keeps a real loop and makes its progress part of the state: the number of
//! iterations begun (`flow.set_iteration`) and, for `for`, the items themselves, collected once
//! when the loop starts and saved (so the iterable is never evaluated again). A round that
//! resumes inside the loop restores the count, re-binds the item of the iteration in progress,
//! skips the `while` condition for that one iteration, and enters the body at the resume step;
//! the body's own groups skip what that iteration already ran. Bindings declared before the
//! loop that the loop reads are kept like any other binding read after an ask, so a counter or
//! an accumulator carries over with its latest value.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Expr, Stmt};

use super::{count_steps, Rewriter};
use crate::shape::LoopStmt;

/// The body statements of a loop expression.
pub(super) fn body_of(expr: &Expr) -> Vec<Stmt> {
    match expr {
        Expr::Loop(l) => l.body.stmts.clone(),
        Expr::While(w) => w.body.stmts.clone(),
        Expr::ForLoop(f) => f.body.stmts.clone(),
        _ => Vec::new(),
    }
}

impl Rewriter<'_> {
    /// A loop statement with asks in its body.
    pub(super) fn looped(&mut self, looped: LoopStmt, depth: usize) -> TokenStream {
        self.loops += 1;
        let id = self.loops;
        let flow = self.flow.clone();
        let stmts = body_of(&looped.expr);
        let first = self.steps + 1;
        let last = self.steps + count_steps(&stmts, self.mrtr);
        let kind = match &looped.expr {
            Expr::Loop(_) => "loop",
            Expr::While(_) => "while",
            _ => "for",
        };
        self.shape.push(format!("L{id}:{kind}:{first}-{last}"));

        let count = format_ident!("__mrtr_iterations{}", id);
        let resumed = format_ident!("__mrtr_resumed{}", id);
        let body = self.block(stmts, depth + 1);
        let label = match &looped.expr {
            Expr::Loop(l) => l.label.clone(),
            Expr::While(w) => w.label.clone(),
            Expr::ForLoop(f) => f.label.clone(),
            _ => None,
        };
        let attrs = match &looped.expr {
            Expr::Loop(l) => l.attrs.clone(),
            Expr::While(w) => w.attrs.clone(),
            Expr::ForLoop(f) => f.attrs.clone(),
            _ => Vec::new(),
        };
        let start = quote! {
            #[allow(unused_mut)]
            let mut #count: u64 = if #flow.resuming_within(#first, #last) {
                #flow.iteration(#id)?
            } else {
                0
            };
            let mut #resumed = #count > 0;
        };
        // Counts the iteration; a resumed one is already counted.
        let begin = quote! {
            if #resumed {
                #resumed = false;
            } else {
                #count += 1;
            }
            #flow.set_iteration(#id, #count);
        };
        let (prelude, looped_tokens) = match &looped.expr {
            Expr::Loop(_) => (
                start,
                quote! { #(#attrs)* #label loop { #begin { #body } } },
            ),
            Expr::While(w) => {
                let cond = &w.cond;
                (
                    start,
                    quote! {
                        #(#attrs)* #label loop {
                            if !#resumed && !(#cond) {
                                break;
                            }
                            #begin
                            { #body }
                        }
                    },
                )
            }
            Expr::ForLoop(f) => {
                let pat = &f.pat;
                let iterable = &f.expr;
                let items = format_ident!("__mrtr_items{}", id);
                let iter = format_ident!("__mrtr_iter{}", id);
                let key = format!("for:{id}");
                let span = iterable.span();
                let iterable_text = quote!(#iterable)
                    .to_string()
                    .replace("& ", "&")
                    .replace(" . ", ".")
                    .replace(" (", "(");
                let check = crate::owned::owned_check(
                    crate::owned::Kept::LoopItems(&iterable_text),
                    &quote!(__mrtr_collected),
                    span,
                );
                let save =
                    quote_spanned! {span=> #check #flow.save_items(#key, &__mrtr_collected)?; };
                let restore = quote_spanned! {span=> #flow.restore_items(#key)? };
                (
                    quote! {
                        #start
                        let #items: ::std::vec::Vec<_> = if #resumed {
                            #restore
                        } else {
                            let __mrtr_collected: ::std::vec::Vec<_> =
                                ::core::iter::IntoIterator::into_iter(#iterable).collect();
                            #save
                            __mrtr_collected
                        };
                        // The item of the iteration in progress is the `count`-th one.
                        let mut #iter = #items
                            .into_iter()
                            .skip(#count.saturating_sub(1) as usize);
                    },
                    quote! {
                        #(#attrs)* #label loop {
                            let ::core::option::Option::Some(#pat) = #iter.next() else {
                                break;
                            };
                            #begin
                            { #body }
                        }
                    },
                )
            }
            _ => (TokenStream::new(), TokenStream::new()),
        };
        let statement = match (&looped.local, looped.tail) {
            (Some(local), _) => {
                let attrs = &local.attrs;
                let pat = &local.pat;
                quote!(#(#attrs)* let #pat = #looped_tokens;)
            }
            (None, true) => looped_tokens,
            (None, false) => quote!(#looped_tokens;),
        };
        quote! {
            #prelude
            #statement
        }
    }
}
