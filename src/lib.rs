//! `cargo mcp-lint`: finds legacy server-to-client MCP requests and unsafe `requestState` handling
//! in Rust MCP servers. See `docs/architecture.md` for the data flow.

pub mod finding;
pub mod suppress;
pub mod baseline;
pub mod config;
