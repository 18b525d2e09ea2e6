//! The command line: `cargo mcp-lint [PATHS...]`, `cargo mcp-lint rules`, `cargo mcp-lint rule CODE`.
//!
//! Exit status: 0 no finding at error level, 1 findings at error level, 2 usage or internal error.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::catalog::{catalog, render_doc};
use crate::finding::Level;
use crate::lint::{lint_paths_with_sources, Settings};
use crate::report::{render, Format, RenderOptions};

pub const EXIT_CLEAN: i32 = 0;
pub const EXIT_FINDINGS: i32 = 1;
pub const EXIT_ERROR: i32 = 2;

#[derive(Debug, Parser)]
#[command(
    name = "cargo-mcp-lint",
    bin_name = "cargo mcp-lint",
    version,
    about = "Finds legacy server-to-client MCP requests (elicitation, sampling, roots) in Rust MCP \
servers and explains how to move them to MRTR (2026-07-28)",
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub lint: LintArgs,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List every rule: code, name, default level, summary.
    Rules,
    /// Print one rule's documentation (by code or name).
    Rule { code: String },
}

#[derive(Debug, Args)]
pub struct LintArgs {
    /// Files and folders to lint (default: the current workspace or package root).
    pub paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Colour the human output.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Worker threads (default: all cores). The output is the same for any value.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Parse every file, even those without any rule's trigger tokens.
    #[arg(long)]
    pub no_prefilter: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// Runs the command line `args` (as `std::env::args()` gives them) and returns the exit status.
pub fn run(args: Vec<String>) -> i32 {
    let args = strip_cargo_subcommand(args);
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { EXIT_ERROR } else { EXIT_CLEAN };
        }
    };
    let result = match &cli.command {
        Some(Command::Rules) => list_rules(),
        Some(Command::Rule { code }) => show_rule(code),
        None => run_lint(&cli.lint),
    };
    match result {
        Ok(code) => code,
        Err(msg) => {
            eprintln!("error: {msg}");
            EXIT_ERROR
        }
    }
}

/// Cargo runs `cargo-mcp-lint mcp-lint ARGS`; run directly it is `cargo-mcp-lint ARGS`.
fn strip_cargo_subcommand(mut args: Vec<String>) -> Vec<String> {
    if args.get(1).map(String::as_str) == Some("mcp-lint") {
        args.remove(1);
    }
    args
}

fn list_rules() -> Result<i32, String> {
    let mut s = String::new();
    for r in &catalog().rules {
        let level = match r.level {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Allow => "allow",
        };
        s.push_str(&format!("{}  {:<34} {:<8} {}\n", r.code, r.name, level, r.summary));
    }
    write_stdout(&s)?;
    Ok(EXIT_CLEAN)
}

fn show_rule(code: &str) -> Result<i32, String> {
    match catalog().get(code) {
        Some(r) => {
            write_stdout(&render_doc(r))?;
            Ok(EXIT_CLEAN)
        }
        None => {
            let known: Vec<&str> = catalog().rules.iter().map(|r| r.code.as_str()).collect();
            Err(format!("unknown rule `{code}`; known rules: {}", known.join(", ")))
        }
    }
}

/// The settings a lint run uses, from the command line.
pub fn settings_from_args(args: &LintArgs) -> Result<Settings, String> {
    let base_dir = std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    Ok(Settings { prefilter: !args.no_prefilter, threads: args.threads, base_dir, ..Settings::default() })
}

fn run_lint(args: &LintArgs) -> Result<i32, String> {
    let settings = settings_from_args(args)?;
    let paths = if args.paths.is_empty() {
        vec![crate::discover::default_root(&settings.base_dir)]
    } else {
        args.paths.clone()
    };
    let (report, sources) = lint_paths_with_sources(&paths, &settings);
    let color = match args.color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
    };
    let out = render(args.format, &report, &sources, &RenderOptions { color });
    write_stdout(&out)?;
    let failed = report.findings.iter().any(|f| f.level == Level::Error);
    Ok(if failed { EXIT_FINDINGS } else { EXIT_CLEAN })
}

fn write_stdout(s: &str) -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    match out.write_all(s.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => Ok(()),
        // A closed pipe (`| head`) is the reader's choice, not our failure.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(format!("cannot write the report: {e}")),
    }
}
