//! `#[mrtr_handler]`. Use it through the `mrtr` crate, which re-exports it.
