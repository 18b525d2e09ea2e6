//! The command line: `cargo mcp-lint [PATHS...]`, `cargo mcp-lint rules`, `cargo mcp-lint rule CODE`.
//!
//! Exit status: 0 no finding at error level, 1 findings at error level, 2 usage or internal error
//! (including a file that could not be read: the run is incomplete).

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::catalog::{catalog, render_doc};
use crate::finding::Level;
use crate::gate::config::Resolver;
use crate::gate::{self, GateOptions};
use crate::lint::Settings;
use crate::report::{render, render_gated, render_statistics, Format, GateFormat, RenderOptions};

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
    /// Run the language server on stdin/stdout (live findings, fixes and rule docs in editors).
    Server(ServerArgs),
    /// Migrate a server in one go: the rmcp upgrade, the MRTR fixes (unsafe ones after a
    /// confirmation, or with --yes), the runtime dependency, then `cargo check`; prints a report
    /// for the pull request.
    Migrate(MigrateArgs),
}

/// `cargo mcp-lint migrate`.
#[derive(Debug, Clone, Args)]
pub struct MigrateArgs {
    /// The package or workspace to migrate (default: the current workspace or package).
    pub path: Option<PathBuf>,
    /// Apply the unsafe fixes without asking (without a terminal and without --yes, only the
    /// safe fixes are applied).
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Change files even when the git tree has uncommitted changes, or there is no git tree.
    #[arg(long)]
    pub allow_dirty: bool,
    /// Also write the report to FILE (atomically); without FILE, MIGRATION.md in the tree
    /// migrated.
    #[arg(long, value_name = "FILE", num_args = 0..=1)]
    pub report: Option<Option<PathBuf>>,
    /// The `mrtr` requirement written into a migrated package's `[dependencies]`, as a TOML
    /// value (default: `{ workspace = true }` where the workspace declares it, else this
    /// release's version).
    #[arg(long, value_name = "TOML")]
    pub mrtr_dependency: Option<String>,
    /// Do not run `cargo check` after the fixes.
    #[arg(long)]
    pub no_check: bool,
    /// As for a lint run: a config file, or KEY=VALUE beating every config file. Repeatable.
    #[arg(long = "config", value_name = "FILE|KEY=VALUE")]
    pub config: Vec<String>,
}

/// `cargo mcp-lint server`: the options of a lint run that apply to every buffer.
#[derive(Debug, Clone, Args)]
pub struct ServerArgs {
    /// As for a lint run: a config file, or KEY=VALUE beating every config file. Repeatable.
    #[arg(long = "config", value_name = "FILE|KEY=VALUE")]
    pub config: Vec<String>,
    /// As for a lint run: hide the findings recorded in FILE.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
}

#[derive(Debug, Clone, Args)]
pub struct LintArgs {
    /// Files and folders to lint (default: the current workspace or package root).
    pub paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Colour the human output.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Worker threads (default: all cores; at most 4 per core). The output is the same for any
    /// value.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Parse every file, even those without any rule's trigger tokens.
    #[arg(long)]
    pub no_prefilter: bool,
    /// Write the report to FILE (atomically: a temporary file renamed over it; a device or FIFO,
    /// such as /dev/stdout, is written in place) instead of stdout.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Print counts per rule and per MCP method instead of the findings (JSON with --format json).
    #[arg(long)]
    pub statistics: bool,
    /// A config file to use for every linted file, or KEY=VALUE (a TOML value) that beats every
    /// config file, e.g. `--config 'rules.MCP001="warn"'`. Repeatable.
    #[arg(long = "config", value_name = "FILE|KEY=VALUE")]
    pub config: Vec<String>,
    /// Print the effective settings (for the first path) and where they come from, then exit.
    #[arg(long)]
    pub show_settings: bool,
    /// Write `// mcp-lint: allow(CODE) -- REASON` above every finding that would be reported.
    #[arg(long, value_name = "REASON")]
    pub add_suppressions: Option<String>,
    /// Hide the findings recorded in FILE and report only new ones.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Write the current findings to the --baseline FILE (sorted JSON; entries of files this run
    /// did not lint are kept) and exit 0. Exit 2, writing nothing, when a path could not be read.
    #[arg(long, requires = "baseline")]
    pub update_baseline: bool,
    /// Exit 1 when the baseline has stale entries (findings that were fixed), so it only shrinks.
    #[arg(long, requires = "baseline")]
    pub strict_baseline: bool,
    /// Drop the baseline's stale entries (never adding new findings), then report as usual.
    #[arg(long, requires = "baseline", conflicts_with = "update_baseline")]
    pub prune_baseline: bool,
    /// Apply the safe fixes in place (atomically, permissions kept; read-only and special files are
    /// refused), then report what is left.
    #[arg(long, conflicts_with_all = ["add_suppressions", "update_baseline"])]
    pub fix: bool,
    /// With --fix or --diff: also apply the unsafe fixes (they change behaviour; review them).
    #[arg(long)]
    pub unsafe_fixes: bool,
    /// Print the unified diff of what --fix would change and change nothing. Exit 0: nothing to
    /// change, 1: some file would change, 2: a file could not be fixed.
    #[arg(long, conflicts_with_all = ["fix", "add_suppressions", "update_baseline"])]
    pub diff: bool,
    /// With --fix or --diff: also raise the rmcp requirement (and its renamed features) in
    /// Cargo.toml to the rmcp the upgrade rules (MCP201-205) target.
    #[arg(long)]
    pub upgrade_rmcp: bool,
    /// With --fix or --diff: the `mrtr` requirement written into the `[dependencies]` of a
    /// package whose fixed code starts using the runtime, as a TOML value (default: `{ workspace =
    /// true }` in a workspace that declares `mrtr` in `[workspace.dependencies]`, else this
    /// release's, e.g. '"0.1"'; '{ path = "../mrtr/runtime" }' for a local checkout).
    #[arg(long, value_name = "TOML")]
    pub mrtr_dependency: Option<String>,
    /// Offer only the compiled MRTR rewrite (`#[mrtr_handler]`, `#[mrtr_helper]`): a request it
    /// cannot take keeps a display-only fix saying why, instead of the deferred form
    /// (`mrtr::rmcp::deferred::*`, which replays the request up to the ask on each round).
    #[arg(long)]
    pub no_deferred_fixes: bool,
    /// Files the `--fix` before this report could not fix: the SARIF report of what remains says
    /// the run did not succeed (not a flag).
    #[arg(skip)]
    pub not_fixed: Vec<crate::finding::FileError>,
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
            return if e.use_stderr() {
                EXIT_ERROR
            } else {
                EXIT_CLEAN
            };
        }
    };
    let result = match &cli.command {
        Some(Command::Rules) => list_rules(),
        Some(Command::Rule { code }) => show_rule(code),
        Some(Command::Server(a)) => crate::server::run_stdio(crate::server::Options {
            config: a.config.clone(),
            baseline: a.baseline.clone(),
        }),
        Some(Command::Migrate(a)) => run_migrate(a),
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

fn run_migrate(a: &MigrateArgs) -> Result<i32, String> {
    let report = a.report.as_ref().map(|file| match file {
        Some(f) => f.clone(),
        None => {
            let root = a.path.clone().unwrap_or_else(|| {
                crate::reading::discover::default_root(&std::env::current_dir().unwrap_or_default())
            });
            crate::migrate::default_report_path(&root)
        }
    });
    crate::migrate::run(&crate::migrate::Options {
        path: a.path.clone(),
        yes: a.yes,
        allow_dirty: a.allow_dirty,
        report,
        mrtr_dependency: a.mrtr_dependency.clone(),
        no_check: a.no_check,
        config: a.config.clone(),
    })
}

fn list_rules() -> Result<i32, String> {
    let mut s = String::new();
    for r in &catalog().rules {
        let level = match r.level {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Allow => "allow",
        };
        s.push_str(&format!(
            "{}  {:<34} {:<8} {}\n",
            r.code, r.name, level, r.summary
        ));
    }
    write_stdout(&s)?;
    Ok(EXIT_CLEAN)
}

fn show_rule(code: &str) -> Result<i32, String> {
    match catalog().get(code) {
        Some(r) => {
            let mut doc = render_doc(r);
            doc.push_str(&see_also(&r.code));
            write_stdout(&doc)?;
            Ok(EXIT_CLEAN)
        }
        None => {
            let known: Vec<&str> = catalog().rules.iter().map(|r| r.code.as_str()).collect();
            Err(format!(
                "unknown rule `{code}`; known rules: {}",
                known.join(", ")
            ))
        }
    }
}

/// The reference pages a rule's docs point to (paths in the project's repository).
fn see_also(code: &str) -> String {
    let mut pages = vec![(
        "docs/rules.md".to_string(),
        "every rule, its fix and its limits",
    )];
    if code.starts_with("MCP00") {
        pages.push((
            "docs/mrtr-handler.md".into(),
            "what the fix writes: #[mrtr_handler]",
        ));
        pages.push((
            "docs/mrtr-runtime-contract.md".into(),
            "the runtime contract",
        ));
        pages.push((
            "docs/cli.md#migrating-in-one-command-migrate".into(),
            "`cargo mcp-lint migrate`, and --fix",
        ));
    } else if code.starts_with("MCP1") {
        pages.push((
            "docs/mrtr-runtime-contract.md".into(),
            "the runtime contract",
        ));
    } else if code.starts_with("MCP2") {
        pages.push((
            "docs/cli.md#upgrading-rmcp---upgrade-rmcp".into(),
            "--upgrade-rmcp and `migrate`",
        ));
    } else if code.starts_with("MCP9") {
        pages.push(("docs/cli.md#suppressing-a-finding".into(), "suppressions"));
    }
    let mut s = String::from(
        "
## See also

",
    );
    for (page, what) in pages {
        s.push_str(&format!(
            "- {page}: {what}
"
        ));
    }
    s
}

/// The settings a lint run uses, from the command line.
pub fn settings_from_args(args: &LintArgs) -> Result<Settings, String> {
    let base_dir =
        std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    let limit = crate::lint::max_threads();
    let threads = match args.threads {
        Some(n) if n > limit => {
            eprintln!(
                "note: --threads {n} is more than {} per core ({} cores); using {limit}",
                crate::lint::THREADS_PER_CORE,
                crate::lint::cores()
            );
            Some(limit)
        }
        other => other,
    };
    Ok(Settings {
        prefilter: !args.no_prefilter,
        threads,
        base_dir,
        tiers: crate::fix::Tiers {
            deferred: !args.no_deferred_fixes,
        },
        ..Settings::default()
    })
}

fn run_lint(args: &LintArgs) -> Result<i32, String> {
    if args.upgrade_rmcp && !args.fix && !args.diff {
        return Err(
            "--upgrade-rmcp edits Cargo.toml: use it with --fix (or --diff to see the edit)".into(),
        );
    }
    let mut settings = settings_from_args(args)?;
    // The global pool (the JSON writer's) would take `RAYON_NUM_THREADS` as it is: capped too.
    let _ = rayon::ThreadPoolBuilder::new()
        .num_threads(crate::lint::worker_threads(settings.threads))
        .build_global();
    let paths = if args.paths.is_empty() {
        vec![crate::reading::discover::default_root(&settings.base_dir)]
    } else {
        args.paths.clone()
    };
    let mut resolver =
        Resolver::new(&settings.base_dir, &args.config, gate::known_codes()).map_err(|e| e.0)?;
    if args.show_settings {
        let r = resolver.for_path(&paths[0]).map_err(|e| e.0)?;
        write_stdout(&r.show(resolver.override_args()))?;
        return Ok(EXIT_CLEAN);
    }
    let mut phases = crate::timings::Phases::start();
    // Not joined: the first file that needs what it builds waits for it there.
    let _warming = crate::lint::warm_up(&settings);
    let (files, walk_errors) = crate::reading::discover::discover(&paths, &settings.base_dir);
    phases.mark("discover");
    let files = gate::drop_excluded(files, &mut resolver)?;
    if let Some(out) = &args.output {
        crate::atomic_write::check_report_target(out, &files)?;
    }
    settings.test_code = gate::test_code_policy(&files, &mut resolver)?;
    phases.mark("exclude");
    let (mut report, mut sources) =
        crate::lint::lint_files_with(&files, &settings, resolver.packages());
    phases.mark("lint");
    crate::timings::print_stages();
    report.errors.extend(walk_errors);
    report.errors.sort_by(|a, b| a.path.cmp(&b.path));
    let color = match args.color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
        }
    };
    let names: Vec<String> = files
        .iter()
        .map(|f| crate::lint::display_path(f, &settings))
        .collect();
    let gate_opts = GateOptions {
        baseline: args.baseline.clone(),
        update_baseline: args.update_baseline,
        strict_baseline: args.strict_baseline,
        prune_baseline: args.prune_baseline,
        fingerprints: args.format == Format::Sarif && !args.statistics,
    };
    let mut texts = gate::Texts::new(&sources, &settings.base_dir);
    let gated = gate::apply(report, &names, &mut texts, &mut resolver, &gate_opts)?;
    phases.mark("gate");
    if args.fix || args.diff {
        return run_fix(args, &gated.report, &mut texts, &settings, &mut resolver);
    }
    let mut gated = gated;
    if settings.tiers.deferred {
        crate::fix_driver::show_exchanges_across(
            &mut gated.report,
            &settings.base_dir,
            resolver.packages(),
        );
    }
    // Meta findings can sit in files the engine had no finding in; the human format shows source.
    // One copy per file, not per finding: 25,000 MCP901s in one file held 25,000 copies of it.
    let missing: std::collections::BTreeSet<&str> = (gated.report.findings.iter())
        .map(|f| f.path.as_str())
        .filter(|p| sources.get(p).is_none())
        .collect();
    let extra: Vec<(String, String)> = missing
        .into_iter()
        .filter_map(|p| texts.get(p).map(|t| (p.to_string(), t)))
        .collect();
    sources.files.extend(extra);
    if let Some(reason) = &args.add_suppressions {
        let (lines, ok) =
            gate::add_suppressions(&gated.report.findings, reason, &settings.base_dir);
        for l in lines {
            eprintln!("{l}");
        }
        return Ok(if ok { EXIT_CLEAN } else { EXIT_ERROR });
    }
    for n in &gated.info {
        eprintln!("{n}");
    }
    if args.update_baseline {
        return Ok(EXIT_CLEAN);
    }
    let base = &settings.base_dir;
    // Concise, GitHub and statistics output have no place for files that could not be read;
    // without these lines such a run exits 2 and says nothing about why.
    if args.statistics
        || matches!(
            args.format,
            Format::Concise | Format::Github | Format::RustcJson
        )
    {
        for e in &gated.report.errors {
            let path = crate::report::concise::escape_path(&e.path);
            eprintln!("error: {path}: {}", e.message);
        }
    }
    let stale_fails = args.strict_baseline && gated.stale > 0;
    let status = exit_status(&gated.report);
    let status = if status == EXIT_CLEAN && stale_fails {
        EXIT_FINDINGS
    } else {
        status
    };
    if !args.statistics && matches!(args.format, Format::Human | Format::Json) {
        // The JSON contract has no place for notes; they go to stderr in both formats.
        for n in &gated.notes {
            eprintln!("note: {n}");
        }
    }
    phases.mark("prepare");
    // The JSON report of a large tree is tens of megabytes: written as it is made, not held.
    if args.format == Format::Json && !args.statistics && args.output.is_none() {
        write_stdout_with(|out| {
            let mut out = std::io::BufWriter::with_capacity(1 << 16, out);
            crate::report::json::write(&gated.report, &mut out)?;
            out.flush()
        })?;
        phases.mark("report");
        drop_elsewhere((gated, sources));
        return Ok(status);
    }
    let out = match args.format {
        _ if args.statistics => render_statistics(&gated, args.format == Format::Json),
        Format::Concise => render_gated(GateFormat::Concise, &gated, base),
        Format::Github => render_gated(GateFormat::Github, &gated, base),
        Format::Sarif if !args.not_fixed.is_empty() => {
            // The fix run before this report failed on these files: the run did not succeed.
            let mut g = gated;
            g.report.errors.extend(args.not_fixed.iter().cloned());
            render_gated(GateFormat::Sarif, &g, base)
        }
        Format::Sarif => render_gated(GateFormat::Sarif, &gated, base),
        // `sources` holds the text of every file with a finding by now (`extra` above); a fix
        // that spans files may edit one without (read from disk).
        Format::RustcJson => crate::report::rustc_json::render(
            &gated.report,
            &mut |p| {
                (sources.get(p).map(str::to_string)).or_else(|| {
                    std::fs::read_to_string(crate::reading::source::os_path(base, p)).ok()
                })
            },
            base,
        ),
        Format::Human | Format::Json => render(
            args.format,
            &gated.report,
            &sources,
            &RenderOptions { color },
        ),
    };
    match &args.output {
        Some(file) => crate::atomic_write::write_file_atomic(
            file,
            out.as_bytes(),
            crate::atomic_write::Kind::Report,
        )
        .map_err(|e| format!("cannot write {e}"))?,
        None => write_stdout(&out)?,
    }
    phases.mark("report");
    Ok(status)
}

/// `--fix` / `--diff`: see `fix_driver` for what each prints and its exit status.
fn run_fix(
    args: &LintArgs,
    report: &crate::finding::Report,
    texts: &mut gate::Texts,
    settings: &Settings,
    resolver: &mut Resolver,
) -> Result<i32, String> {
    if args.upgrade_rmcp && !args.diff {
        // Said before anything is written, so a run killed between the two steps has said it.
        eprintln!(
            "note: --upgrade-rmcp writes the sources first, then Cargo.toml; if this run is \
             interrupted, run the same command again: it finishes the upgrade"
        );
    }
    let opts = crate::fix_driver::Options {
        allowed: crate::fix::Allowed {
            unsafe_fixes: args.unsafe_fixes,
        },
        diff_only: args.diff,
        runtime_requirement: args.mrtr_dependency.clone(),
        within: if args.paths.is_empty() {
            std::path::absolute(".").into_iter().collect()
        } else {
            args.paths
                .iter()
                .filter_map(|p| std::path::absolute(p).ok())
                .collect()
        },
    };
    let (mut out, mut err) = (std::io::stdout().lock(), std::io::stderr().lock());
    let done = crate::fix_driver::run_with_baseline(
        report,
        texts,
        settings,
        resolver,
        &opts,
        args.baseline.as_deref(),
        &mut out,
        &mut err,
    )?;
    let bumped = if args.upgrade_rmcp {
        // The packages of the run's paths, and of every file with a finding (a member crate
        // that declares rmcp itself, under a workspace root given as the path).
        let mut starts = if args.paths.is_empty() {
            vec![settings.base_dir.clone()]
        } else {
            args.paths.clone()
        };
        starts.extend(report.findings.iter().map(|f| PathBuf::from(&f.path)));
        crate::fix::upgrade::bump_manifests(
            &starts,
            &settings.base_dir,
            args.diff,
            &mut out,
            &mut err,
        )?
    } else {
        0
    };
    drop((out, err));
    let failed = done.failed > 0 || !report.errors.is_empty();
    if args.diff {
        return Ok(if failed {
            EXIT_ERROR
        } else if done.changed + bumped > 0 {
            EXIT_FINDINGS
        } else {
            EXIT_CLEAN
        });
    }
    // What is left, reported like a plain run over the files as they are now: the packages'
    // indexes are those of the files as they were.
    crate::model::item_index::forget_all();
    let rest = LintArgs {
        fix: false,
        upgrade_rmcp: false,
        mrtr_dependency: None,
        not_fixed: done.not_fixed,
        ..args.clone()
    };
    let status = run_lint(&rest)?;
    Ok(if failed { EXIT_ERROR } else { status })
}

/// 2 when a file could not be read (the run is incomplete), else 1 when a finding is at error
/// level, else 0.
pub fn exit_status(report: &crate::finding::Report) -> i32 {
    if !report.errors.is_empty() {
        EXIT_ERROR
    } else if report.findings.iter().any(|f| f.level == Level::Error) {
        EXIT_FINDINGS
    } else {
        EXIT_CLEAN
    }
}

fn write_stdout(s: &str) -> Result<(), String> {
    write_stdout_with(|out| {
        out.write_all(s.as_bytes())?;
        out.flush()
    })
}

/// Writes to stdout with `write`; a closed pipe is not an error.
fn write_stdout_with(
    write: impl FnOnce(&mut std::io::StdoutLock<'static>) -> std::io::Result<()>,
) -> Result<(), String> {
    match write(&mut std::io::stdout().lock()) {
        Ok(()) => Ok(()),
        // A closed pipe (`| head`) is the reader's choice, not our failure.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(format!("cannot write the report: {e}")),
    }
}

/// Frees a run's report and texts on a thread of their own: the command exits right after, and
/// freeing ten thousand findings one by one was time the user waited for (the exit does not wait
/// for that thread).
fn drop_elsewhere<T: Send + 'static>(value: T) {
    if let Err(e) = std::thread::Builder::new().spawn(move || drop(value)) {
        // No thread to be had: freed here, as before.
        drop(e);
    }
}
