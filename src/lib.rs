//! `cargo mcp-lint`: finds legacy server-to-client MCP requests and unsafe `requestState` handling
//! in Rust MCP servers. See `docs/architecture.md` for the data flow and the rule API.
//!
//! Library entry points: [`lint_source`], [`lint_paths`], [`lint_files`], [`catalog::catalog`],
//! and the [`rules::engine::Rule`] trait new rules implement.
//!
//! The modules are the pipeline's stages, lowest first; a module uses its own stage and those
//! above it in this list, never one below (`tests/architecture_layers.rs` checks).

// Shared by every stage: the report types, the rule catalog, writes, timings, the supervisor.
pub mod atomic_write;
pub mod catalog;
pub mod finding;
pub mod supervise;
pub mod timings;

// Bytes to syntax: lexer, source positions, parse (with the skeleton pass), macro bodies,
// which files a run covers.
pub mod reading;
// What code means for MCP: SDK tables, packages, the prefilter, the crate index, a file's facts,
// call graph and request helpers, the scope state of the walk.
pub mod model;
// The rule API, the walk that drives it, and the rules.
pub mod rules;
// Fix planning (run inside the engine run) and splicing.
pub mod fix;
// The engine run: files in, findings with their fixes out.
pub mod lint;
// Configuration, suppressions and the baseline, over the engine's report.
pub mod gate;
// The output formats.
pub mod report;

// The drivers: the `--fix` loop, `migrate`, the command line, the language server.
pub mod cli;
pub mod fix_driver;
// `cargo mcp-lint migrate`: the fix driver, the rmcp upgrade and `cargo check` in one command.
pub mod migrate;
pub mod server;

pub use lint::{
    lint_files, lint_paths, lint_paths_with_sources, lint_source, FileResult, Settings, Sources,
};
