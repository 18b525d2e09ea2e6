//! The check emitted next to every save of a kept binding: a binding that is a reference
//! (`&str`, `&[u8]`, `&T`) is a compile error that names it, points at it and says how to
//! own it. Without it rustc reports "implementation of `Deserialize` is not general enough" at
//! the attribute. The probe lives in the runtime (`mrtr::__private::kept_probe`); the trait that
//! fails is defined here, per binding, so its message can carry the binding's name.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};

/// What is being kept, for the message.
pub enum Kept<'a> {
    /// A `let` binding (its name).
    Binding(&'a str),
    /// The items of a `for` loop holding asks (the iterable as written).
    LoopItems(&'a str),
}

/// Tokens that fail to compile, at `span`, when `value` (an expression naming the kept value)
/// has a borrowed type.
pub fn owned_check(kept: Kept<'_>, value: &TokenStream, span: Span) -> TokenStream {
    let probe = match kept {
        Kept::Binding(_) => quote!(::mrtr::__private::kept_probe),
        Kept::LoopItems(_) => quote!(::mrtr::__private::kept_item_probe),
    };
    let (message, label, note) = match kept {
        Kept::Binding(name) => (
            format!("`{name}` borrows its value, so it cannot be kept across an ask"),
            format!(
                "`{name}` is used after an ask, so it is saved in the sealed requestState; a later \
                 round restores it from there and cannot restore a borrow"
            ),
            format!(
                "own the value instead: `let {name}: String = ....to_owned();` (or `String::from(..)`, \
                 `.to_vec()` for a slice, `.clone()` for a `&T`), or compute `{name}` again after \
                 the ask"
            ),
        ),
        Kept::LoopItems(iterable) => (
            format!(
                "the items of `{iterable}` are borrowed, so they cannot be kept across an ask"
            ),
            "this loop holds an ask, so its items are saved in the sealed requestState; a later \
             round restores them from there and cannot restore a borrow"
                .to_string(),
            "iterate over owned items instead: `.clone()` the collection, `.iter().cloned()`, or \
             `.into_iter()` on an owned collection"
                .to_string(),
        ),
    };
    quote_spanned! {span=>
        {
            #[allow(unused_imports)]
            use ::mrtr::__private::{ProbeBorrowed as _, ProbeOwned as _};
            #[diagnostic::on_unimplemented(message = #message, label = #label, note = #note)]
            trait __MrtrOwned<R: ?::core::marker::Sized> {}
            impl<R: ?::core::marker::Sized> __MrtrOwned<R> for ::mrtr::__private::Owned {}
            fn __mrtr_owned<R: ?::core::marker::Sized, K: __MrtrOwned<R>>(_kind: K, _value: &R) {}
            __mrtr_owned((&#probe(&#value)).kept_kind(), &#value);
        }
    }
}
