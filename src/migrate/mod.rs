//! `cargo mcp-lint migrate [PATH]`: the whole migration in one command, built on the `--fix`
//! machinery (`fix_driver`, `fix::upgrade::bump_manifests`) rather than beside it.
//!
//! In order: refuse a dirty tree (as `cargo fix` does) unless `--allow-dirty`; lint the tree;
//! decide on the unsafe fixes (`--yes`, or a question on the terminal; with neither, only the safe
//! fixes run and the report says why); run the fix loop with the rmcp upgrade fixes first (the
//! driver orders them) and the runtime dependency written with each migrated file; raise the rmcp
//! requirement in the manifests; lint again; `cargo check` every package whose files changed;
//! print the report (`report.rs`) and, with `--report`, write it atomically.
//!
//! Exit status: 0 nothing left at error level and the build passed (or was not run), 1 findings
//! left or the build failed, 2 refused (dirty tree) or could not run.

pub mod build;
pub mod report;
pub mod vcs;

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};

use crate::finding::{Applicability, Finding, Level, Report};
use crate::gate::config::Resolver;
use crate::gate::{self, GateOptions, Texts};
use crate::lint::{Settings, Sources};
use report::{Migration, UnsafeFixes};

/// What `migrate` was asked to do.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The tree to migrate; `None`: the current workspace or package.
    pub path: Option<PathBuf>,
    /// Apply the unsafe fixes without asking.
    pub yes: bool,
    /// Change files even when the git tree has uncommitted changes (or there is no git tree).
    pub allow_dirty: bool,
    /// Where to write the report as well as printing it.
    pub report: Option<PathBuf>,
    /// `--mrtr-dependency`: the runtime requirement, as a TOML value.
    pub mrtr_dependency: Option<String>,
    /// Skip `cargo check`.
    pub no_check: bool,
    /// `--config` as for a lint run.
    pub config: Vec<String>,
}

/// The default report file: `MIGRATION.md` next to the manifest of the tree migrated.
pub fn default_report_path(root: &Path) -> PathBuf {
    root.join("MIGRATION.md")
}

/// Runs the migration; returns the exit status.
pub fn run(opts: &Options) -> Result<i32, String> {
    let base =
        std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    let root = match &opts.path {
        Some(p) => std::path::absolute(p).map_err(|e| format!("{}: {e}", p.display()))?,
        None => crate::reading::discover::default_root(&base),
    };
    if !root.exists() {
        return Err(format!("{}: no such file or folder", root.display()));
    }
    let shown_root = crate::reading::source::display_path(&root, &base);
    let mut err = std::io::stderr().lock();
    if !opts.allow_dirty {
        if let Err(why) = vcs::check_clean(&root) {
            writeln!(err, "error: {why}").map_err(output_error)?;
            return Ok(crate::cli::EXIT_ERROR);
        }
    }
    let mut settings = Settings {
        base_dir: base.clone(),
        ..Settings::default()
    };
    let mut resolver = Resolver::new(&base, &opts.config, gate::known_codes()).map_err(|e| e.0)?;

    // 1. What is there.
    let (report, sources, names) = lint_tree(&root, &mut settings, &mut resolver)?;
    let mut texts = Texts::new(&sources, &base);
    let gated = gate::apply(
        report,
        &names,
        &mut texts,
        &mut resolver,
        &GateOptions::default(),
    )?;
    let report = gated.report;

    // 2. The unsafe fixes: asked for, confirmed, or refused.
    let needing = unsafe_sites(&report.findings);
    let decision = if needing == 0 {
        UnsafeFixes::NoneNeeded
    } else if opts.yes {
        UnsafeFixes::Applied
    } else if std::io::stdin().is_terminal() {
        drop(err);
        let yes = confirm(needing)?;
        err = std::io::stderr().lock();
        if yes {
            UnsafeFixes::Applied
        } else {
            UnsafeFixes::Refused("declined at the prompt".into())
        }
    } else {
        let why = format!(
            "{needing} site{} need{} an unsafe fix (the handler's behaviour changes: review the \
diff), and there is no terminal to confirm on; re-run with --yes to apply them",
            plural(needing),
            if needing == 1 { "s" } else { "" }
        );
        writeln!(
            err,
            "error: unsafe fixes refused: {why}; applying the safe fixes only"
        )
        .map_err(output_error)?;
        UnsafeFixes::Refused(why)
    };

    // 3. The fixes, the runtime dependency with each migrated file, the rmcp requirement.
    let before = vcs::snapshot(&root);
    let fix_opts = crate::fix_driver::Options {
        allowed: crate::fix::Allowed {
            unsafe_fixes: decision == UnsafeFixes::Applied,
        },
        diff_only: false,
        runtime_requirement: opts.mrtr_dependency.clone(),
        within: vec![root.clone()],
    };
    let mut sink = Vec::new();
    let outcome = crate::fix_driver::run(
        &report,
        &mut texts,
        &settings,
        &mut resolver,
        &fix_opts,
        &mut sink,
        &mut err,
    )?;
    let mut starts = vec![root.clone()];
    starts.extend(report.findings.iter().map(|f| base.join(&f.path)));
    if let Err(e) = crate::fix::upgrade::bump_manifests(&starts, &base, false, &mut sink, &mut err)
    {
        writeln!(err, "error: the rmcp requirement was not raised: {e}").map_err(output_error)?;
    }
    let after = vcs::snapshot(&root);
    let changed = vcs::changed(&before, &after);

    // 4. What is left.
    let (left, sources_after, names_after) = lint_tree(&root, &mut settings, &mut resolver)?;
    let mut texts_after = Texts::new(&sources_after, &base);
    let left = gate::apply(
        left,
        &names_after,
        &mut texts_after,
        &mut resolver,
        &GateOptions::default(),
    )?
    .report;

    // 5. The build of every package a change touched. Stderr is not held locked meanwhile: the
    // thread that reads cargo's own lines writes the progress line.
    drop(err);
    let build = if opts.no_check {
        None
    } else {
        let manifests = touched_manifests(&changed);
        let migrated: Vec<Finding> = outcome.fixed.iter().map(|(f, _)| f.clone()).collect();
        Some(
            manifests
                .iter()
                .map(|m| build::check(m, &base, &left.findings, &migrated, &mut std::io::stderr()))
                .collect(),
        )
    };
    let mut err = std::io::stderr().lock();
    let migration = Migration {
        root: shown_root,
        unsafe_fixes: Some(decision),
        fixed: outcome.fixed,
        not_fixed: outcome.not_fixed,
        changed: changed
            .iter()
            .map(|p| crate::reading::source::display_path(p, &base))
            .collect(),
        remaining: left.findings.clone(),
        errors: left.errors.clone(),
        build,
    };
    let text = report::render(&migration);
    if let Some(file) = &opts.report {
        crate::atomic_write::write_file_atomic(
            file,
            text.as_bytes(),
            crate::atomic_write::Kind::Report,
        )
        .map_err(|e| format!("cannot write {e}"))?;
        writeln!(err, "wrote the report to {}", file.display()).map_err(output_error)?;
    }
    drop(err);
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        Err(e) => return Err(format!("cannot write the report: {e}")),
    }
    let clean = !left.findings.iter().any(|f| f.level == Level::Error)
        && migration.build_passed() != Some(false)
        && migration.not_fixed.is_empty()
        && left.errors.is_empty();
    Ok(if clean {
        crate::cli::EXIT_CLEAN
    } else {
        crate::cli::EXIT_FINDINGS
    })
}

/// Discovers and lints the tree at `root` as a plain run would (configuration, test-code policy),
/// before the gate: the report, the texts read, and the display names of the files.
fn lint_tree(
    root: &Path,
    settings: &mut Settings,
    resolver: &mut Resolver,
) -> Result<(Report, Sources, Vec<String>), String> {
    let (files, walk_errors) =
        crate::reading::discover::discover(&[root.to_path_buf()], &settings.base_dir);
    let files = gate::drop_excluded(files, resolver)?;
    settings.test_code = gate::test_code_policy(&files, resolver)?;
    let (mut report, sources) = crate::lint::lint_files(&files, settings);
    report.errors.extend(walk_errors);
    report.errors.sort_by(|a, b| a.path.cmp(&b.path));
    let names = files
        .iter()
        .map(|f| crate::lint::display_path(f, settings))
        .collect();
    Ok((report, sources, names))
}

/// Sites whose migration needs the unsafe fixes: an unsafe fix of their own, or an rmcp request
/// or a hand-rolled exchange left to the pass across files (which runs only with the unsafe
/// fixes).
pub fn unsafe_sites(findings: &[Finding]) -> usize {
    findings
        .iter()
        .filter(|f| match f.fix.as_ref() {
            Some(x) if !x.edits.is_empty() => x.applicability == Applicability::Unsafe,
            _ => crate::fix::taken_across(f, crate::fix::Tiers::default()),
        })
        .count()
}

/// Asks on the terminal whether to apply `n` unsafe fixes.
fn confirm(n: usize) -> Result<bool, String> {
    let mut err = std::io::stderr().lock();
    write!(
        err,
        "{n} site{} need{} an unsafe fix: handlers become `#[mrtr_handler]` state machines or \
replay from the top on a retry (review the diff). Apply {}? [y/N] ",
        plural(n),
        if n == 1 { "s" } else { "" },
        if n == 1 { "it" } else { "them" }
    )
    .and_then(|()| err.flush())
    .map_err(output_error)?;
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .map_err(|e| format!("cannot read the answer: {e}"))?;
    Ok(matches!(answer.trim(), "y" | "Y" | "yes" | "Yes" | "YES"))
}

/// The manifests to `cargo check`: the package of each changed file (a manifest is its own
/// package's), in a stable order. A virtual workspace manifest stands for its whole workspace.
pub fn touched_manifests(changed: &[PathBuf]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = changed
        .iter()
        .filter_map(|p| {
            p.parent()?
                .ancestors()
                .map(|d| d.join("Cargo.toml"))
                .find(|m| m.is_file())
        })
        .collect();
    out.sort();
    out.dedup();
    // A virtual workspace manifest is checked with `--workspace`: its members need no run of
    // their own (each would unify features anew and rebuild dependencies).
    let virtual_roots: Vec<PathBuf> = out
        .iter()
        .filter(|m| {
            std::fs::read_to_string(m).is_ok_and(|t| !t.lines().any(|l| l.trim() == "[package]"))
        })
        .filter_map(|m| m.parent().map(Path::to_path_buf))
        .collect();
    out.retain(|m| {
        !virtual_roots
            .iter()
            .any(|root| m.starts_with(root) && m.parent() != Some(root.as_path()))
    });
    out
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn output_error(e: std::io::Error) -> String {
    format!("cannot write the output: {e}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_virtual_workspace_covers_its_members_and_a_package_stands_alone() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        std::fs::write(ws.join("Cargo.toml"), "[workspace]\nmembers = [\"a\"]\n").unwrap();
        std::fs::create_dir_all(ws.join("a/src")).unwrap();
        std::fs::write(ws.join("a/Cargo.toml"), "[package]\nname = \"a\"\n").unwrap();
        let changed = vec![ws.join("Cargo.toml"), ws.join("a/src/lib.rs")];
        assert_eq!(touched_manifests(&changed), vec![ws.join("Cargo.toml")]);
        // Without the workspace manifest changed, the member alone.
        assert_eq!(
            touched_manifests(&[ws.join("a/src/lib.rs")]),
            vec![ws.join("a/Cargo.toml")]
        );
    }
}
