//! The model: what code means for MCP. The SDK tables and the package's dependencies, the
//! prefilter that decides from them which files are worth parsing, the crate index, and per file
//! the facts, call graph and request helpers the rules read.

pub mod callgraph;
pub mod fast_hash;
pub mod item_index;
pub mod manifest;
pub mod prefilter;
pub mod request_flow;
pub mod request_helpers;
pub(crate) mod scan;
pub mod scope;
pub mod sdk;
pub mod state;
pub mod wrappers;
