//! Compile-time probes the `#[mrtr_handler]` expansion runs on every binding it keeps across an
//! ask, so a borrowed binding is reported by name with a fix, instead of rustc's
//! "implementation of `Deserialize` is not general enough" pointed at the attribute.
//!
//! Which kind a probe reports is picked by method resolution ("autoref specialization"): the
//! `Borrowed` impls match the probe itself, the `Owned` fallback only its reference, so a
//! reference-like type finds `Borrowed` first. The expansion then passes the marker to a trait
//! it defines next to the binding, implemented for `Owned` only, whose message names the binding.

use std::marker::PhantomData;

use crate::flow::StateBinding;

/// What the expansion probes: the type of one kept binding.
pub struct KeptProbe<T>(PhantomData<T>);

/// Builds the probe for `value`'s type (never looks at the value).
pub fn kept_probe<T>(_value: &T) -> KeptProbe<T> {
    KeptProbe(PhantomData)
}

/// The probe for the items a `for` loop holding asks saves (their type comes from the iterable,
/// so it is known here).
pub fn kept_item_probe<T>(_items: &[T]) -> KeptProbe<T> {
    KeptProbe(PhantomData)
}

/// The binding owns its data: it can travel in the sealed state (if it serializes).
pub struct Owned;

/// The binding borrows: restoring it in a later round would need data that no longer exists.
pub struct Borrowed;

/// Matches reference-like types first.
pub trait ProbeBorrowed {
    fn kept_kind(&self) -> Borrowed {
        Borrowed
    }
}

// Only borrows that serde could deserialize if the lifetimes allowed it (`&str`, `&[u8]`,
// `Option<&str>` ...): those pass type checking and would end in rustc's lifetime error. A borrow
// serde cannot deserialize at all (`&String`) already fails `StateBinding`, whose message
// covers it; reporting it here too would print two errors for one binding.
impl<'a, U: ?Sized> ProbeBorrowed for KeptProbe<&'a U> where &'a U: StateBinding {}
impl<'a, U: ?Sized> ProbeBorrowed for KeptProbe<&'a mut U> where &'a mut U: StateBinding {}
// Only references themselves: a container of references (`Vec<&U>`, `Option<&U>`) would also
// match a container whose item type is not inferred yet (`let mut done = Vec::new();`) and
// force it to a reference.

/// Everything else (reached through one more autoref, so only when no `Borrowed` impl matched).
pub trait ProbeOwned {
    fn kept_kind(&self) -> Owned {
        Owned
    }
}

impl<T> ProbeOwned for &KeptProbe<T> {}
