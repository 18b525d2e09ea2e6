//! Reading: from a file's bytes to a syntax tree. Nothing here knows about MCP; the stages above
//! hand in what matters (trigger tokens, crate names).

pub mod const_items;
pub mod discover;
pub mod lexer;
pub mod macro_body;
pub mod parse;
pub mod skeleton;
pub mod source;

/// Whether `ident` is one of `names`, compared in place: every call and method of every walked
/// body is asked this, and making each name's `String` first was most of the cost.
pub fn ident_is_one_of(ident: &proc_macro2::Ident, names: &[&str]) -> bool {
    names.iter().any(|n| ident == n)
}
