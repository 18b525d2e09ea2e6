//! Reading: from a file's bytes to a syntax tree. Nothing here knows about MCP; the stages above
//! hand in what matters (trigger tokens, crate names).

pub mod discover;
pub mod lexer;
pub mod macro_body;
pub mod parse;
pub mod skeleton;
pub mod source;
