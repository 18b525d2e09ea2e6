//! `cargo mcp-lint`: finds legacy server-to-client MCP requests and unsafe `requestState` handling
//! in Rust MCP servers. See `docs/architecture.md` for the data flow and the rule API.
//!
//! Library entry points: [`lint_source`], [`lint_paths`], [`lint_files`], [`catalog::catalog`],
//! and the [`engine::Rule`] trait new rules implement.

pub mod atomic_write;
pub mod catalog;
pub mod cli;
pub mod finding;
pub mod fix;
pub mod fix_driver;
pub mod gate;
pub mod lint;
pub mod model;
pub mod reading;
pub mod report;
pub mod rules;
pub mod server;
pub mod supervise;
pub mod timings;

pub use lint::{
    lint_files, lint_paths, lint_paths_with_sources, lint_source, FileResult, Settings, Sources,
};
