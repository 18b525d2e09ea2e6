//! The fix loop over files, and what `--fix` / `--diff` print.
//!
//! Per file: take the findings' fixes this run admits, splice them in (overlapping ones wait),
//! check that the result still parses, lint the new text again (suppressions and configuration
//! included) and repeat, up to [`MAX_PASSES`]. A pass whose result would not parse leaves the
//! file exactly as it was read and is reported. `--fix` then writes each file's fix set through
//! `atomic_write::write_all_or_none` (all of the set or none of it; a special or read-only file
//! is refused, a symlink's real file replaced, mode and owner kept) after removing the temporary
//! files a killed run left in the folders it writes to; `--diff` prints the unified diff and
//! writes nothing.
//!
//! Exit status of `--diff`: 0 nothing to change, 1 some file would change, 2 a file could not be
//! fixed (its fixes break its syntax, or it could not be read). `--fix` exits like a plain run
//! over the fixed files (0 / 1 by the remaining findings), or 2 when a file could not be fixed or
//! written.

use std::path::Path;
use std::sync::Arc;

use crate::finding::{Applicability, Finding, Report};
use crate::fix::apply::apply_fixes;
use crate::fix::Allowed;
use crate::gate::config::Resolver;
use crate::gate::{self, GateOptions, Texts};
use crate::lint::{Settings, Sources};
use crate::model::manifest::{Package, Packages};

/// Passes per file before the loop gives up (each pass applies every non-overlapping fix; more
/// than a few means fixes keep producing new fixable findings).
pub const MAX_PASSES: usize = 10;

/// What happened to one file.
#[derive(Debug, Clone)]
pub struct FileFix {
    pub path: String,
    pub original: String,
    /// The text after the last good pass (the original when nothing applied or a pass failed).
    pub text: String,
    /// Findings whose fix was applied, in the order of the passes.
    pub fixed: Vec<Finding>,
    /// The findings of `text`.
    pub remaining: Vec<Finding>,
    pub passes: usize,
    /// Why the file was left as it was read.
    pub error: Option<String>,
    /// Fixes were still pending when [`MAX_PASSES`] ran out.
    pub unfinished: bool,
}

/// After the fixes of a file: the imports they made unused removed, and, with `format`, the file
/// formatted again when it was rustfmt-clean (`fix::unused_imports`, `fix::format`). `None` when
/// neither changes anything, or the result would not parse.
fn cleaned_up(path: &std::path::Path, original: &str, fixed: &str, format: bool) -> Option<String> {
    let edition = crate::fix::format::edition_of(path);
    let pruned = crate::fix::unused_imports::prune(original, fixed, &edition);
    let text = pruned.as_deref().unwrap_or(fixed);
    let formatted = format
        .then(|| crate::fix::format::format_written(original, text, path, &edition))
        .flatten();
    let clean = formatted.or(pruned)?;
    crate::reading::parse::parse(clean.as_bytes())
        .is_ok()
        .then_some(clean)
}

/// Runs the fix loop on one text. `relint` lints a text of this file again and returns its
/// findings, fixes attached. `format`: a file on disk, formatted again after its fixes when it was
/// rustfmt-clean (a library caller's text is left as the fixes wrote it).
pub fn fix_text(
    path: &str,
    original: &str,
    first: Vec<Finding>,
    allowed: Allowed,
    relint: &mut dyn FnMut(&str) -> Vec<Finding>,
    format: bool,
) -> FileFix {
    if let Err(e) = crate::reading::parse::parse(original.as_bytes()) {
        // Its findings are unknown, so even a suppression that looks unused may not be.
        return FileFix {
            path: path.to_string(),
            original: original.to_string(),
            text: original.to_string(),
            fixed: Vec::new(),
            remaining: first,
            passes: 0,
            error: Some(format!(
                "the file does not parse ({}:{}: {}); make it parse first",
                e.line, e.column, e.message
            )),
            unfinished: false,
        };
    }
    // A pass that fails leaves the file as it was read, with these findings in it.
    let as_read = first.clone();
    let mut text = original.to_string();
    let mut findings = first;
    let mut fixed = Vec::new();
    let mut passes = 0;
    let mut unfinished = false;
    loop {
        let mut chosen: Vec<&Finding> = findings
            .iter()
            .filter(|f| {
                f.fix
                    .as_ref()
                    .is_some_and(|x| allowed.admits(x.applicability) && !x.edits.is_empty())
            })
            .collect();
        // rmcp upgrade fixes first: an MRTR rewrite that overlaps one waits for the next pass and
        // is then planned on code that already speaks rmcp 3.x.
        chosen.sort_by_key(|f| !crate::fix::upgrade::wants(f));
        if chosen.is_empty() {
            break;
        }
        if passes == MAX_PASSES {
            unfinished = true;
            break;
        }
        passes += 1;
        let fixes: Vec<&crate::finding::Fix> =
            chosen.iter().filter_map(|f| f.fix.as_ref()).collect();
        let applied = apply_fixes(&text, &fixes);
        if applied.text == text {
            break;
        }
        if let Err(e) = crate::reading::parse::parse(applied.text.as_bytes()) {
            return FileFix {
                path: path.to_string(),
                original: original.to_string(),
                text: original.to_string(),
                fixed: Vec::new(),
                remaining: as_read,
                passes,
                error: Some(format!(
                    "pass {passes} would leave the file unparsable ({}:{}: {}); left unchanged",
                    e.line, e.column, e.message
                )),
                unfinished: false,
            };
        }
        fixed.extend(applied.applied.iter().map(|&i| chosen[i].clone()));
        text = applied.text;
        findings = relint(&text);
    }
    // The imports the fixes made unused go (a pruned text that did not parse is not kept).
    // Only code a fix wrote wants the clean-up (a removed suppression comment does not), and it
    // costs a rustfmt run or two.
    if text != original && fixed.iter().any(|f| !f.code.starts_with("MCP9")) {
        if let Some(clean) = cleaned_up(std::path::Path::new(path), original, &text, format) {
            text = clean;
            findings = relint(&text);
        }
    }
    FileFix {
        path: path.to_string(),
        original: original.to_string(),
        text,
        fixed,
        remaining: findings,
        passes,
        error: None,
        unfinished,
    }
}

/// The fix loop for one text without configuration files or suppressions (what a library user or
/// an editor integration wants): lint, attach fixes, apply, lint again.
pub fn fix_source(path: &str, text: &str, settings: &Settings, allowed: Allowed) -> FileFix {
    // The engine's file pass (`lint::FILE_PASSES`) has attached the fixes already.
    let mut lint = |t: &str| crate::lint::lint_source(path, t.as_bytes(), settings).findings;
    let first = lint(text);
    fix_text(path, text, first, allowed, &mut lint, false)
}

/// Lints `text` as the file `path`, through the same package (its manifest's dependency versions),
/// configuration, suppressions and baseline as the run, with fixes attached: a later pass sees the
/// findings a plain run over the fixed file would (a finding the baseline hides is not fixed in a
/// later pass either, and an SDK the package does not depend on stays out).
pub fn relint(
    path: &str,
    text: &str,
    package: Option<Arc<Package>>,
    settings: &Settings,
    resolver: &mut Resolver,
    baseline: Option<&std::path::Path>,
) -> Result<Vec<Finding>, String> {
    let result = crate::lint::lint_source_in(path, text.as_bytes(), settings, package);
    let report = Report {
        version: crate::lint::REPORT_VERSION,
        findings: result.findings,
        errors: Vec::new(),
        summary: Default::default(),
    };
    let mut sources = Sources::default();
    sources.files.insert(path.to_string(), text.to_string());
    let mut texts = Texts::new(&sources, &settings.base_dir);
    let gated = gate::apply(
        report,
        &[path.to_string()],
        &mut texts,
        resolver,
        &GateOptions {
            baseline: baseline.map(std::path::Path::to_path_buf),
            ..GateOptions::default()
        },
    )?;
    Ok(gated.report.findings)
}

/// Options of a fix run.
#[derive(Debug, Clone)]
pub struct Options {
    pub allowed: Allowed,
    /// `--diff`: print, do not write.
    pub diff_only: bool,
    /// The `mrtr` requirement a package gets when its fixed code starts using the runtime, as
    /// `--mrtr-dependency` gave it (a TOML value); `None`: the workspace's, or this release's
    /// (`fix::runtime_dependency::manifest_with_runtime`).
    pub runtime_requirement: Option<String>,
    /// The paths the run was given (absolute): a package outside them is not written, even
    /// when it depends on a package the run fixes. Empty: no limit.
    pub within: Vec<std::path::PathBuf>,
}

/// What a fix run did, for the caller's exit status.
#[derive(Debug, Default)]
pub struct RunOutcome {
    pub changed: usize,
    pub failed: usize,
    pub fixes: usize,
    /// Each file counted in `failed`, with why: the report that follows `--fix` carries them where
    /// its format has a place for an incomplete run (SARIF's `executionSuccessful`).
    pub not_fixed: Vec<crate::finding::FileError>,
    /// Each finding whose fix was written (or shown, with `--diff`), with its fix's whole
    /// message: what `cargo mcp-lint migrate` sorts into tiers for its report.
    pub fixed: Vec<(Finding, String)>,
}

fn not_fixed(path: &str, message: &str) -> crate::finding::FileError {
    crate::finding::FileError {
        path: path.to_string(),
        message: message.to_string(),
    }
}

/// Fixes every file of `report` that has an admitted fix; prints the diff (`--diff`, stdout) or
/// what was fixed and what remains (stderr).
pub fn run(
    report: &Report,
    texts: &mut Texts,
    settings: &Settings,
    resolver: &mut Resolver,
    opts: &Options,
    out: &mut dyn std::io::Write,
    err: &mut dyn std::io::Write,
) -> Result<RunOutcome, String> {
    run_with_baseline(report, texts, settings, resolver, opts, None, out, err)
}

/// [`run`] for a run with `--baseline FILE`: the findings it records are left alone in every
/// pass, not only in the first.
#[allow(clippy::too_many_arguments)]
pub fn run_with_baseline(
    report: &Report,
    texts: &mut Texts,
    settings: &Settings,
    resolver: &mut Resolver,
    opts: &Options,
    baseline: Option<&Path>,
    out: &mut dyn std::io::Write,
    err: &mut dyn std::io::Write,
) -> Result<RunOutcome, String> {
    let mut by_path: std::collections::BTreeMap<&str, Vec<Finding>> = Default::default();
    for f in &report.findings {
        by_path.entry(f.path.as_str()).or_default().push(f.clone());
    }
    // Each file's package, read as the first run read it.
    let packages = Packages::new();
    let mut outcome = RunOutcome::default();
    let mut pending = (0usize, 0usize, 0usize);
    // Findings left in files that could not be fixed or written, whatever their fixes.
    let mut left_in_failed = 0usize;
    // Temporary files older than this are a killed run's, never this run's.
    let started = std::time::SystemTime::now();
    // Per file: the rmcp findings the file-by-file rewrite left, and its text after this run.
    let mut leftover: Vec<(String, Vec<Finding>)> = Vec::new();
    let mut now: std::collections::HashMap<String, String> = Default::default();
    let mut cleaned = std::collections::BTreeSet::new();
    // A package whose manifest does not parse gets no file written: its sources would be fixed
    // without the manifest edit they need (the `mrtr` line, the rmcp bump). One line per manifest.
    let broken = broken_manifests(report, &settings.base_dir);
    let mut told = std::collections::BTreeSet::new();
    for (path, findings) in by_path {
        let as_read = findings.len();
        if let Some(m) = under_broken(&settings.base_dir.join(path), &broken) {
            if told.insert(m.clone()) {
                let shown = crate::reading::source::display_path(m, &settings.base_dir);
                writeln!(
                    err,
                    "{shown}: does not parse; no file of its package is fixed (mend it and run again)"
                )
                .map_err(output_error)?;
                outcome.failed += 1;
                outcome.not_fixed.push(not_fixed(
                    &shown,
                    "does not parse; no file of its package is fixed",
                ));
            }
            left_in_failed += as_read;
            continue;
        }
        let admitted = findings.iter().any(|f| {
            f.fix
                .as_ref()
                .is_some_and(|x| opts.allowed.admits(x.applicability) && !x.edits.is_empty())
        });
        let result = if admitted {
            let Some(original) = texts.get(path) else {
                writeln!(err, "{path}: cannot read the file to fix it").map_err(output_error)?;
                outcome.failed += 1;
                outcome
                    .not_fixed
                    .push(not_fixed(path, "cannot read the file to fix it"));
                left_in_failed += as_read;
                continue;
            };
            let package = packages.for_file(&settings.base_dir.join(path));
            let mut again =
                |t: &str| match relint(path, t, package.clone(), settings, resolver, baseline) {
                    Ok(f) => f,
                    Err(e) => {
                        let _ = writeln!(err, "{path}: cannot lint the fixed text again: {e}");
                        Vec::new()
                    }
                };
            let mut fixed = fix_text(path, &original, findings, opts.allowed, &mut again, true);
            // Lines a fix adds are LF; a CRLF source keeps its CRLF.
            fixed.text = crate::fix::apply::with_line_endings_of(&fixed.original, fixed.text);
            fixed
        } else {
            FileFix {
                path: path.to_string(),
                original: String::new(),
                text: String::new(),
                fixed: Vec::new(),
                remaining: findings,
                passes: 0,
                error: None,
                unfinished: false,
            }
        };
        if let Some(e) = &result.error {
            writeln!(err, "{path}: not fixed: {e}").map_err(output_error)?;
            outcome.failed += 1;
            outcome
                .not_fixed
                .push(not_fixed(path, &format!("not fixed: {e}")));
            left_in_failed += as_read;
            continue;
        }
        // What the file-by-file rewrite left of the rmcp requests, for the pass across files.
        if opts.allowed.unsafe_fixes {
            let left: Vec<Finding> = result
                .remaining
                .iter()
                .filter(|f| crate::fix::taken_across(f, settings.tiers))
                .cloned()
                .collect();
            if !left.is_empty() {
                leftover.push((path.to_string(), left));
            }
            if admitted && result.text != result.original {
                now.insert(path.to_string(), result.text.clone());
            }
        }
        if result.text == result.original {
            count_pending(&result.remaining, opts.allowed, &mut pending);
            continue;
        }
        // The package's manifest, when the fixed text starts using the runtime it lacks.
        let file = crate::reading::source::os_path(&settings.base_dir, path);
        let manifest = match packages.for_file(&file).map(|p| p.manifest.clone()) {
            Some(m) => crate::fix::runtime_dependency::manifest_with_runtime(
                &m,
                &result.original,
                &result.text,
                opts.runtime_requirement.as_deref(),
            )
            .map(|edit| edit.map(|(old, new)| (m, old, new))),
            None => Ok(None),
        };
        let manifest = match manifest {
            Ok(m) => m,
            Err(e) => {
                writeln!(err, "{path}: not fixed: its Cargo.toml: {e}").map_err(output_error)?;
                outcome.failed += 1;
                outcome
                    .not_fixed
                    .push(not_fixed(path, &format!("not fixed: its Cargo.toml: {e}")));
                left_in_failed += as_read;
                continue;
            }
        };
        let manifest_shown = manifest
            .as_ref()
            .map(|(m, _, _)| crate::reading::source::display_path(m, &settings.base_dir));
        if opts.diff_only {
            count_pending(&result.remaining, opts.allowed, &mut pending);
            outcome.changed += 1;
            outcome.fixes += result.fixed.len();
            out.write_all(
                crate::fix::diff::unified(path, &result.original, &result.text).as_bytes(),
            )
            .map_err(output_error)?;
            if let (Some((_, old, new)), Some(shown)) = (&manifest, &manifest_shown) {
                out.write_all(crate::fix::diff::unified(shown, old, new).as_bytes())
                    .map_err(output_error)?;
            }
            writeln!(
                err,
                "{path}: would apply {} fix{}",
                result.fixed.len(),
                plural_es(result.fixed.len())
            )
            .map_err(output_error)?;
        } else {
            if let Some(dir) = file.parent() {
                if cleaned.insert(dir.to_path_buf()) {
                    for old in crate::atomic_write::clean_leftovers(dir, started) {
                        writeln!(
                            err,
                            "removed {}, a temporary file an interrupted run left",
                            old.display()
                        )
                        .map_err(output_error)?;
                    }
                }
            }
            let mut set = vec![(file, result.original.as_str(), result.text.as_str())];
            if let Some((m, old, new)) = &manifest {
                set.push((m.clone(), old.as_str(), new.as_str()));
            }
            match write_checked(&set) {
                Ok(()) => {
                    if let Some(shown) = &manifest_shown {
                        writeln!(
                            err,
                            "{shown}: added `mrtr` to `[dependencies]` (used by {path})"
                        )
                        .map_err(output_error)?;
                    }
                    count_pending(&result.remaining, opts.allowed, &mut pending);
                    outcome.changed += 1;
                    outcome.fixes += result.fixed.len();
                    outcome.fixed.extend(result.fixed.iter().map(|f| {
                        let msg = f.fix.as_ref().map_or("", |x| x.message.as_str());
                        (f.clone(), msg.to_string())
                    }));
                    writeln!(
                        err,
                        "{path}: fixed {} finding{}",
                        result.fixed.len(),
                        plural(result.fixed.len())
                    )
                    .map_err(output_error)?;
                    for f in &result.fixed {
                        // The first clause; the report (`--format json`) has the whole message.
                        let msg = f.fix.as_ref().map_or("", |x| x.message.as_str());
                        let msg = msg.split("; ").next().unwrap_or(msg);
                        writeln!(err, "  {}:{} {} {}", f.line, f.column, f.code, msg)
                            .map_err(output_error)?;
                    }
                }
                Err(e) => {
                    // On disk it is as it was: nothing of it for the pass across files.
                    leftover.retain(|(p, _)| p != path);
                    now.remove(path);
                    writeln!(err, "{path}: not written: {e}").map_err(output_error)?;
                    outcome.failed += 1;
                    outcome
                        .not_fixed
                        .push(not_fixed(path, &format!("not written: {e}")));
                    // The file holds what it held: the fixed findings are still in it.
                    left_in_failed += as_read;
                    continue;
                }
            }
        }
        if result.unfinished {
            writeln!(
                err,
                "{path}: fixes still pending after {MAX_PASSES} passes; run again"
            )
            .map_err(output_error)?;
        }
    }
    // Helpers whose callers sit in other files: planned over each package's files together.
    let (across, written) = fix_across(
        &leftover,
        &now,
        settings,
        &packages,
        opts,
        &mut outcome,
        out,
        err,
    )?;
    pending.1 = pending.1.saturating_sub(across.display_only);
    pending.2 = pending.2.saturating_sub(across.without_fix);
    // Deferred asks written by this run need their servers' request scope.
    if settings.tiers.deferred {
        now.extend(written);
        scope_servers(&now, settings, &packages, opts, &mut outcome, out, err)?;
    }
    let verb = if opts.diff_only { "would fix" } else { "fixed" };
    writeln!(
        err,
        "{verb} {} finding{} in {} file{}; remaining: {} with an unsafe fix (add --unsafe-fixes), {} with a \
display-only suggestion, {} without a fix",
        outcome.fixes,
        plural(outcome.fixes),
        outcome.changed,
        plural(outcome.changed),
        pending.0,
        pending.1,
        pending.2
    )
    .map_err(output_error)?;
    if left_in_failed > 0 {
        writeln!(
            err,
            "and {left_in_failed} finding{} in the {} file{} not fixed (see above)",
            plural(left_in_failed),
            outcome.failed,
            plural(outcome.failed)
        )
        .map_err(output_error)?;
    }
    Ok(outcome)
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// How many findings the pass across files fixed, by how the file-by-file report counted them.
#[derive(Debug, Default)]
struct AcrossFixed {
    display_only: usize,
    without_fix: usize,
}

/// The pass across files (`fix::rmcp::across`): per package with rmcp findings left, its
/// `src/` files as this run leaves them, planned together; the files a plan changes (and the
/// manifest, for the runtime) are written as one all-or-none set, or printed as diffs. Returns
/// how many findings it fixed (those with a display-only suggestion, and those without a fix),
/// and the texts it wrote (by shown path).
#[allow(clippy::too_many_arguments)]
fn fix_across(
    leftover: &[(String, Vec<Finding>)],
    now: &std::collections::HashMap<String, String>,
    settings: &Settings,
    packages: &Packages,
    opts: &Options,
    outcome: &mut RunOutcome,
    out: &mut dyn std::io::Write,
    err: &mut dyn std::io::Write,
) -> Result<(AcrossFixed, std::collections::HashMap<String, String>), String> {
    let base = &settings.base_dir;
    // Per package (by manifest): its name and its findings left.
    let mut by_package: std::collections::BTreeMap<std::path::PathBuf, (String, Vec<Finding>)> =
        Default::default();
    for (path, left) in leftover {
        if let Some(p) = packages.for_file(&base.join(path)) {
            by_package
                .entry(p.manifest.clone())
                .or_insert_with(|| (p.name.clone(), Vec::new()))
                .1
                .extend(left.iter().cloned());
        }
    }
    // Texts written (or shown, with --diff) by an earlier set of this pass: a package's set can
    // reach into a dependent package's files, which that package's own set then reads.
    let mut written: std::collections::HashMap<String, String> = Default::default();
    // A package whose plan found nothing to do, or failed, may succeed once another package's
    // set has changed the files it reads (a server crate's handler, rewritten for a library's
    // relay, then takes its own helper's asks): it is planned again, while sets get written and
    // none of its findings' files changed under them (their positions would be stale).
    let mut workspaces = Workspaces::default();
    let mut pending: Vec<Pending> = by_package
        .into_iter()
        .map(|(manifest, (name, findings))| {
            let mut dependents = workspaces.dependents(&manifest, &name, packages);
            dependents
                .retain(|m| opts.within.is_empty() || opts.within.iter().any(|w| m.starts_with(w)));
            Pending {
                manifest,
                dependents,
                findings,
            }
        })
        .collect();
    let mut fixed_total = AcrossFixed::default();
    let mut gave_up: Vec<String> = Vec::new();
    loop {
        let mut progressed = false;
        let mut again = Vec::new();
        gave_up.clear();
        for p in std::mem::take(&mut pending) {
            if p.findings.iter().any(|f| written.contains_key(&f.path)) {
                continue;
            }
            let overlay = |shown: &str| written.get(shown).or_else(|| now.get(shown)).cloned();
            let planned = plan_package_across(
                &p.manifest,
                &p.dependents,
                base,
                &p.findings,
                &overlay,
                opts.runtime_requirement.as_deref(),
                settings.tiers,
            );
            match planned {
                Ok(Some(planned)) => {
                    // Of the findings it fixes, those the file-by-file report counted without
                    // a fix (an exchange's) rather than display-only (an rmcp helper's).
                    let fixless = planned
                        .fixed
                        .iter()
                        .filter(|(f, _)| f.fix.is_none())
                        .count();
                    if let Some(fixed) = put_across(&planned, base, opts, outcome, out, err)? {
                        progressed = true;
                        fixed_total.display_only += fixed.saturating_sub(fixless);
                        fixed_total.without_fix += fixed.min(fixless);
                        for (path, _, new) in planned.set {
                            written.insert(crate::reading::source::display_path(&path, base), new);
                        }
                    }
                }
                Ok(None) => again.push(p),
                Err(e) => {
                    gave_up.push(e);
                    again.push(p);
                }
            }
        }
        pending = again;
        if !progressed || pending.is_empty() {
            break;
        }
    }
    for e in gave_up {
        writeln!(err, "{e}").map_err(output_error)?;
    }
    Ok((fixed_total, written))
}

/// The server side of the deferred asks this run wrote (`fix::rmcp::scope`): every
/// `impl ServerHandler` of the packages whose files now hold one, and of the members of their
/// workspace that depend on them, gets `#[mrtr::mrtr_server]` (and the type `impl
/// mrtr::MrtrServer` where its package has none), so that each request those servers serve runs
/// in the scope the asks look for. Written as one all-or-none set per package with its manifest
/// (the runtime dependency), or printed with `--diff`. `texts`: this run's new texts, by path
/// as shown.
fn scope_servers(
    texts: &std::collections::HashMap<String, String>,
    settings: &Settings,
    packages: &Packages,
    opts: &Options,
    outcome: &mut RunOutcome,
    out: &mut dyn std::io::Write,
    err: &mut dyn std::io::Write,
) -> Result<(), String> {
    use crate::fix::rmcp::scope;
    let base = &settings.base_dir;
    let mut asking: std::collections::BTreeMap<std::path::PathBuf, String> = Default::default();
    // The packages whose asks are rmcp's (their `impl ServerHandler`s take the attribute) and
    // those whose asks are hand-built requests (their own dispatch takes the scope).
    // The third: a `#[mrtr_handler]` was written, whose server type needs `impl MrtrServer`
    // (the file's own rewrite writes it only where the `impl ServerHandler` is in that file).
    let mut kinds: std::collections::BTreeMap<std::path::PathBuf, (bool, bool, bool)> =
        Default::default();
    for (path, text) in texts {
        let rmcp = text.contains("mrtr::rmcp::deferred::");
        let jsonrpc = text.contains("mrtr::jsonrpc::Question");
        let compiled = text.contains("#[mrtr_handler]");
        if rmcp || jsonrpc || compiled {
            if let Some(p) = packages.for_file(&base.join(path)) {
                asking.insert(p.manifest.clone(), p.name.clone());
                let k = kinds.entry(p.manifest.clone()).or_default();
                k.0 |= rmcp;
                k.1 |= jsonrpc;
                k.2 |= compiled;
            }
        }
    }
    let mut workspaces = Workspaces::default();
    let mut done: std::collections::BTreeSet<std::path::PathBuf> = Default::default();
    for (manifest, name) in &asking {
        let mut manifests = vec![manifest.clone()];
        let mut dependents = workspaces.dependents(manifest, name, packages);
        dependents
            .retain(|m| opts.within.is_empty() || opts.within.iter().any(|w| m.starts_with(w)));
        manifests.extend(dependents);
        let (rmcp_asks, jsonrpc_asks, compiled) = kinds.get(manifest).copied().unwrap_or_default();
        for m in manifests {
            if !done.insert(m.clone()) {
                continue;
            }
            let files = package_sources(&m, base, &|shown| texts.get(shown).cloned());
            let all: String = files.iter().map(|(_, _, t)| t.as_str()).collect();
            // Handlers that map a request message to a response message take the scope where
            // they are called, which may be any file of the package.
            let message_handlers = if jsonrpc_asks {
                let texts: Vec<&str> = files.iter().map(|(_, _, t)| t.as_str()).collect();
                crate::fix::jsonrpc::message_scope::handlers(&texts)
            } else {
                Vec::new()
            };
            let mut set: Vec<(std::path::PathBuf, String, String)> = Vec::new();
            let mut scoped = Vec::new();
            for (path, shown, text) in &files {
                let serves_rmcp = (rmcp_asks || compiled) && text.contains("ServerHandler");
                let dispatches = jsonrpc_asks
                    && (text.contains("\"tools/call\"")
                        || text.contains("\"prompts/get\"")
                        || text.contains("\"resources/read\""));
                let calls_handler = message_handlers
                    .iter()
                    .any(|h| text.contains(&format!("{h}(")));
                if !serves_rmcp && !dispatches && !calls_handler {
                    continue;
                }
                let Ok(file) = syn::parse_file(text) else {
                    continue;
                };
                let idx = crate::reading::source::LineIndex::new(text);
                let impls = if serves_rmcp {
                    scope::server_impls(&file.items, &idx)
                } else {
                    Vec::new()
                };
                let given = |ty: &str| scope::text_implements_mrtr_server(&all, ty);
                let (mut edits, mut tys) = scope::edits_for(&impls, &idx, &given, rmcp_asks);
                let (calls, handlers, bodies) =
                    crate::fix::jsonrpc::message_scope::edits(&file, &idx, &message_handlers);
                edits.extend(calls);
                tys.extend(handlers);
                if dispatches {
                    // A server with its own JSON-RPC dispatch: its arms take the scope, except
                    // inside a message handler, whose calls took it already.
                    let (more, arms, left) =
                        crate::fix::jsonrpc::dispatch::edits(&file, &idx, &all);
                    let inside = |e: &crate::finding::Edit| {
                        bodies.iter().any(|(s, end)| *s <= e.start && e.end <= *end)
                    };
                    if !more.iter().any(inside) {
                        edits.extend(more);
                        tys.extend(arms);
                    }
                    // A dispatch inside a message handler needs no scope of its own.
                    for why in left.iter().filter(|_| bodies.is_empty()) {
                        writeln!(err, "{shown}: {why}").map_err(output_error)?;
                    }
                }
                if edits.is_empty() {
                    continue;
                }
                edits.sort_by_key(|e| e.start);
                if text.contains("\r\n") {
                    for e in &mut edits {
                        e.replacement = crate::fix::rmcp::text::crlf(&e.replacement);
                    }
                }
                let fix = crate::finding::Fix {
                    applicability: crate::finding::Applicability::Unsafe,
                    message: String::new(),
                    edits,
                    other_files: Vec::new(),
                };
                let new = crate::fix::apply::apply_fixes(text, &[&fix]).text;
                if syn::parse_file(&new).is_err() {
                    writeln!(
                        err,
                        "{shown}: the request scope would not parse; left unchanged"
                    )
                    .map_err(output_error)?;
                    continue;
                }
                let on_disk = std::fs::read_to_string(path).unwrap_or_default();
                set.push((path.clone(), on_disk, new));
                scoped.extend(tys.into_iter().map(|t| format!("{shown}: `{t}`")));
            }
            if set.is_empty() {
                continue;
            }
            let uses: String = set.iter().map(|(_, _, t)| t.as_str()).collect();
            match crate::fix::runtime_dependency::manifest_with_runtime(
                &m,
                "",
                &uses,
                opts.runtime_requirement.as_deref(),
            ) {
                Ok(Some((old, new))) => set.push((m.clone(), old, new)),
                Ok(None) => {}
                Err(e) => {
                    writeln!(err, "{}: not scoped: {e}", m.display()).map_err(output_error)?;
                    outcome.failed += 1;
                    continue;
                }
            }
            // The files hold this run's texts already where the run changed them: what is
            // replaced is what is on disk now.
            if opts.diff_only {
                for (path, old, new) in &set {
                    let shown = crate::reading::source::display_path(path, base);
                    let old = texts.get(&shown).unwrap_or(old);
                    out.write_all(crate::fix::diff::unified(&shown, old, new).as_bytes())
                        .map_err(output_error)?;
                }
            } else {
                let writes: Vec<(std::path::PathBuf, &str, &str)> = set
                    .iter()
                    .map(|(p, o, n)| (p.clone(), o.as_str(), n.as_str()))
                    .collect();
                if let Err(e) = write_checked(&writes) {
                    writeln!(err, "{}: not scoped: {e}", m.display()).map_err(output_error)?;
                    outcome.failed += 1;
                    continue;
                }
                // Files this run had changed already are counted once.
                outcome.changed += set
                    .iter()
                    .filter(|(p, _, _)| {
                        !texts.contains_key(&crate::reading::source::display_path(p, base))
                    })
                    .count();
            }
            if rmcp_asks || jsonrpc_asks {
                let verb = if opts.diff_only { "would run" } else { "runs" };
                writeln!(
                    err,
                    "{verb} every request in an MRTR scope for the deferred asks ({}): {}",
                    scope::ATTRIBUTE,
                    scoped.join(", ")
                )
                .map_err(output_error)?;
            } else {
                let verb = if opts.diff_only { "would add" } else { "adds" };
                writeln!(
                    err,
                    "{verb} `impl mrtr::MrtrServer` for the servers of its `#[mrtr_handler]`s: {}",
                    scoped.join(", ")
                )
                .map_err(output_error)?;
            }
        }
    }
    Ok(())
}

/// The `.rs` files under the `src/` of the package of `manifest`: path, path as shown, and text
/// (as `overlay` gives it by the shown path, else as on disk), in a stable order.
fn package_sources(
    manifest: &std::path::Path,
    base: &std::path::Path,
    overlay: &dyn Fn(&str) -> Option<String>,
) -> Vec<(std::path::PathBuf, String, String)> {
    let Some(src) = manifest.parent().map(|d| d.join("src")) else {
        return Vec::new();
    };
    let mut paths: Vec<std::path::PathBuf> = crate::reading::discover::walker(&src)
        .build()
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_type().is_some_and(|t| t.is_file())
                && e.path().extension().is_some_and(|x| x == "rs")
        })
        .map(|e| e.into_path())
        .collect();
    paths.sort();
    paths
        .into_iter()
        .filter_map(|p| {
            let shown = crate::reading::source::display_path(&p, base);
            let text = overlay(&shown).or_else(|| std::fs::read_to_string(&p).ok())?;
            Some((p, shown, text))
        })
        .collect()
}

/// What a failed write to the output (stdout, stderr) becomes.
fn output_error(e: std::io::Error) -> String {
    format!("cannot write the output: {e}")
}

/// A package the pass across files has yet to rewrite: its manifest, the members of its
/// workspace that depend on it (within the run's paths), and its findings left.
struct Pending {
    manifest: std::path::PathBuf,
    dependents: Vec<std::path::PathBuf>,
    findings: Vec<Finding>,
}

/// Writes one planned set all or none (or prints it as diffs, with `--diff`) and says what it
/// fixed. `Some(findings fixed)`, or `None` when it could not be written.
fn put_across(
    planned: &AcrossSet,
    base: &std::path::Path,
    opts: &Options,
    outcome: &mut RunOutcome,
    out: &mut dyn std::io::Write,
    err: &mut dyn std::io::Write,
) -> Result<Option<usize>, String> {
    let AcrossSet { set, fixed, left } = planned;
    for why in left {
        writeln!(err, "{why}").map_err(output_error)?;
    }
    // The imports the pass made unused in the files it rewrote go, as in a file's own fix loop.
    let set: Vec<(std::path::PathBuf, String, String)> = set
        .iter()
        .map(|(p, old, new)| {
            let pruned = match p.extension().and_then(|e| e.to_str()) {
                Some("rs") if old != new => cleaned_up(p, old, new, true),
                _ => None,
            };
            (
                p.clone(),
                old.clone(),
                pruned.unwrap_or_else(|| new.clone()),
            )
        })
        .collect();
    let shown_files: Vec<String> = set
        .iter()
        .map(|(p, _, _)| crate::reading::source::display_path(p, base))
        .collect();
    if opts.diff_only {
        for ((_, old, new), shown) in set.iter().zip(&shown_files) {
            out.write_all(crate::fix::diff::unified(shown, old, new).as_bytes())
                .map_err(output_error)?;
        }
    } else {
        let writes: Vec<(std::path::PathBuf, &str, &str)> = set
            .iter()
            .map(|(p, o, n)| (p.clone(), o.as_str(), n.as_str()))
            .collect();
        if let Err(e) = write_checked(&writes) {
            writeln!(err, "{}: not written: {e}", shown_files.join(", ")).map_err(output_error)?;
            outcome.failed += 1;
            return Ok(None);
        }
    }
    let verb = if opts.diff_only { "would fix" } else { "fixed" };
    writeln!(
        err,
        "{verb} {} finding{} across {} file{} ({})",
        fixed.len(),
        plural(fixed.len()),
        set.len(),
        plural(set.len()),
        shown_files.join(", ")
    )
    .map_err(output_error)?;
    for (f, message) in fixed {
        let first = message.split("; ").next().unwrap_or(message);
        writeln!(
            err,
            "  {}:{}:{} {} {first}",
            f.path, f.line, f.column, f.code
        )
        .map_err(output_error)?;
    }
    outcome.changed += set.len();
    outcome.fixes += fixed.len();
    outcome.fixed.extend(fixed.iter().cloned());
    Ok(Some(fixed.len()))
}

/// The members of the workspaces a fix run meets, each workspace's tree walked once.
#[derive(Default)]
pub struct Workspaces {
    members: std::collections::HashMap<
        std::path::PathBuf,
        Vec<std::sync::Arc<crate::model::manifest::Package>>,
    >,
}

impl Workspaces {
    /// The manifests of the members of `manifest`'s workspace that depend on its package
    /// (`name`), not only for development, in a stable order: where the request handlers that
    /// reach a library's relay or stored peer sit. Read from the workspace's tree, not from the
    /// files with findings: a server crate whose handlers send nothing has none. Empty outside a
    /// workspace.
    pub fn dependents(
        &mut self,
        manifest: &std::path::Path,
        name: &str,
        packages: &Packages,
    ) -> Vec<std::path::PathBuf> {
        let is_workspace_root = |dir: &std::path::Path| {
            std::fs::read_to_string(dir.join("Cargo.toml"))
                .is_ok_and(|t| t.lines().any(|l| l.trim() == "[workspace]"))
        };
        let Some(root) = manifest
            .parent()
            .and_then(|dir| dir.ancestors().find(|a| is_workspace_root(a)))
        else {
            return Vec::new();
        };
        let members = self.members.entry(root.to_path_buf()).or_insert_with(|| {
            crate::reading::discover::walker(root)
                .build()
                .filter_map(Result::ok)
                .filter(|e| e.file_name() == "Cargo.toml")
                .filter_map(|e| packages.for_file(e.path()))
                .collect()
        });
        let mut found: Vec<std::path::PathBuf> = members
            .iter()
            .filter(|p| {
                p.manifest != manifest
                    && p.dependencies
                        .iter()
                        .any(|d| d.package == name && !d.dev_only)
            })
            .map(|p| p.manifest.clone())
            .collect();
        found.sort();
        found.dedup();
        found
    }
}

/// What the pass across files changes in one package: each file's path, its text as read and
/// its new text (the manifest last, when the runtime is added), and the findings it fixes.
pub struct AcrossSet {
    pub set: Vec<(std::path::PathBuf, String, String)>,
    pub fixed: Vec<(Finding, String)>,
    /// Why findings the plan looked at are left (an exchange whose receive is not proven), one
    /// line each, naming the finding.
    pub left: Vec<String>,
}

/// Plans the pass across files for one package (`manifest`): its `src/` files, each as
/// `overlay` gives it (by its path as findings show it: what this run or an editor holds) or as
/// on disk, planned together for `findings`. `dependents` are the manifests of packages that
/// depend on it (a workspace's server crate over its gateway library): their files join the
/// plan, since the request handlers that reach a relay or a stored peer may sit there, and each
/// manifest whose files come to use the runtime gets it. `Ok(None)`: nothing to rewrite; `Err`:
/// why not, one line naming the package or file.
pub fn plan_package_across(
    manifest: &std::path::Path,
    dependents: &[std::path::PathBuf],
    base: &std::path::Path,
    findings: &[Finding],
    overlay: &dyn Fn(&str) -> Option<String>,
    requirement: Option<&str>,
    tiers: crate::fix::Tiers,
) -> Result<Option<AcrossSet>, String> {
    let manifests: Vec<&std::path::Path> = std::iter::once(manifest)
        .chain(dependents.iter().map(|d| d.as_path()))
        .collect();
    // Each file's text, and the manifest (an index into `manifests`) whose `src/` holds it.
    let mut files = Vec::new();
    let mut owner = Vec::new();
    for (m, manifest) in manifests.iter().enumerate() {
        for (_, shown, text) in package_sources(manifest, base, overlay) {
            files.push((shown, text));
            owner.push(m);
        }
    }
    let mut plan = match crate::fix::rmcp::across::plan(&files, findings, tiers) {
        Ok(Some(plan)) => plan,
        Ok(None) => crate::fix::rmcp::across::Across::default(),
        Err(e) => {
            let shown = crate::reading::source::display_path(manifest, base);
            return Err(format!(
                "{shown}: helpers with callers in other files not rewritten: {e}"
            ));
        }
    };
    let left = if tiers.deferred {
        exchanges_across(&files, findings, &mut plan)
    } else {
        Vec::new()
    };
    if plan.texts.is_empty() {
        // Nothing to write: an exchange left says why (as a plan that failed does).
        return match left.is_empty() {
            true => Ok(None),
            false => Err(left.join("\n")),
        };
    }
    if let Some((path, _)) = plan.texts.iter().find(|(_, t)| syn::parse_file(t).is_err()) {
        return Err(format!(
            "{}: the rewrite across files would leave it unparsable; left unchanged",
            files[*path].0
        ));
    }
    let mut set: Vec<(std::path::PathBuf, String, String)> = plan
        .texts
        .iter()
        .map(|(i, t)| {
            let (shown, old) = &files[*i];
            // The plan writes LF lines; a CRLF source keeps its CRLF.
            let new = crate::fix::apply::with_line_endings_of(old, t.clone());
            (
                crate::reading::source::os_path(base, shown),
                old.clone(),
                new,
            )
        })
        .collect();
    for (m, manifest) in manifests.iter().enumerate() {
        let uses_runtime = plan
            .texts
            .iter()
            .filter(|(i, _)| owner[*i] == m)
            .map(|(_, t)| t.as_str())
            .collect::<String>();
        if uses_runtime.is_empty() {
            continue;
        }
        match crate::fix::runtime_dependency::manifest_with_runtime(
            manifest,
            "",
            &uses_runtime,
            requirement,
        ) {
            Ok(Some((old, new))) => set.push((manifest.to_path_buf(), old, new)),
            Ok(None) => {}
            Err(e) => return Err(format!("{}: {e}", manifest.display())),
        }
    }
    Ok(Some(AcrossSet {
        set,
        fixed: plan.fixed,
        left,
    }))
}

/// The exchanges a hand-rolled server runs itself (`fix::jsonrpc::exchange`), planned over the
/// package's files as the rmcp pass leaves them: a request built in one file is often written
/// and received in another.
/// Returns why the exchanges it could not rewrite are left.
fn exchanges_across(
    files: &[(String, String)],
    findings: &[Finding],
    plan: &mut crate::fix::rmcp::across::Across,
) -> Vec<String> {
    let current: Vec<(String, String)> = files
        .iter()
        .enumerate()
        .map(|(i, (shown, text))| {
            let now = plan.texts.iter().find(|(j, _)| *j == i).map(|(_, t)| t);
            (shown.clone(), now.unwrap_or(text).clone())
        })
        .collect();
    let planned = crate::fix::jsonrpc::exchange::plan_package(&current, findings);
    for (i, mut edits) in planned.edits {
        edits.sort_by_key(|e| e.start);
        let fix = crate::finding::Fix {
            applicability: crate::finding::Applicability::Unsafe,
            message: String::new(),
            edits,
            other_files: Vec::new(),
        };
        let new = crate::fix::apply::apply_fixes(&current[i].1, &[&fix]).text;
        match plan.texts.iter_mut().find(|(j, _)| *j == i) {
            Some((_, t)) => *t = new,
            None => plan.texts.push((i, new)),
        }
    }
    plan.fixed.extend(
        planned
            .fixed
            .into_iter()
            .map(|(f, _, _)| (f, crate::fix::jsonrpc::exchange::MESSAGE.to_string())),
    );
    planned.left
}

/// The fixes of the exchanges whose request is built in one fn and written in another, shown in
/// a report as `--fix` would make them: a file alone cannot prove them (the write and the
/// receive sit in another fn, often another file), so each package holding one is planned once
/// over its files as on disk. The edits in the finding's own file stay in `edits`; those of
/// other files go to `other_files`, under their paths as findings show them.
pub fn show_exchanges_across(
    report: &mut crate::finding::Report,
    base: &std::path::Path,
    packages: &Packages,
) {
    use crate::fix::jsonrpc::exchange;
    let mut by_package: std::collections::BTreeMap<std::path::PathBuf, Vec<usize>> =
        Default::default();
    for (k, f) in report.findings.iter().enumerate() {
        if !matches!(exchange::wanted(f), Some(exchange::Anchor::Written { .. })) {
            continue;
        }
        if let Some(p) = packages.for_file(&crate::reading::source::os_path(base, &f.path)) {
            by_package.entry(p.manifest.clone()).or_default().push(k);
        }
    }
    for (manifest, ks) in by_package {
        let files: Vec<(String, String)> = package_sources(&manifest, base, &|_| None)
            .into_iter()
            .map(|(_, shown, text)| (shown, text))
            .collect();
        let findings: Vec<Finding> = ks.iter().map(|&k| report.findings[k].clone()).collect();
        let planned = exchange::plan_package(&files, &findings);
        for (fixed, file, edits) in planned.fixed {
            let Some(&k) = ks.iter().find(|&&k| report.findings[k] == fixed) else {
                continue;
            };
            let f = &mut report.findings[k];
            let path = &files[file].0;
            let (own, other_files) = match *path == f.path {
                true => (edits, Vec::new()),
                false => (
                    Vec::new(),
                    vec![crate::finding::FileEdits {
                        path: path.clone(),
                        edits,
                    }],
                ),
            };
            f.fix = Some(crate::finding::Fix {
                applicability: crate::finding::Applicability::Unsafe,
                message: exchange::MESSAGE.to_string(),
                edits: own,
                other_files,
            });
        }
    }
}

fn plural_es(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "es"
    }
}

/// Replaces each file of one fix set with its new text, all or none (`atomic_write`), unless a
/// file is not one `--fix` may replace (a special or read-only file: checked before reading it
/// again, so a FIFO is never opened) or no longer holds what the run read (edited meanwhile).
/// The manifests the run reported as not parsing (absolute).
fn broken_manifests(report: &Report, base: &Path) -> Vec<std::path::PathBuf> {
    report
        .errors
        .iter()
        .map(|e| base.join(&e.path))
        .filter(|p| p.file_name().is_some_and(|n| n == "Cargo.toml"))
        .filter_map(|p| std::path::absolute(p).ok())
        .collect()
}

/// The broken manifest that is the nearest `Cargo.toml` above `file`, if it is one of `broken`.
fn under_broken<'a>(
    file: &Path,
    broken: &'a [std::path::PathBuf],
) -> Option<&'a std::path::PathBuf> {
    if broken.is_empty() {
        return None;
    }
    let file = std::path::absolute(file).ok()?;
    for dir in file.ancestors().skip(1) {
        let manifest = dir.join("Cargo.toml");
        if let Some(b) = broken.iter().find(|b| **b == manifest) {
            return Some(b);
        }
        if manifest.is_file() {
            return None;
        }
    }
    None
}

fn write_checked(set: &[(std::path::PathBuf, &str, &str)]) -> Result<(), String> {
    use crate::atomic_write::{check_target, write_all_or_none, Kind};
    // The message is printed after the first file's name: another file of the set (its
    // `Cargo.toml`) is named in it.
    let about = |file: &Path, message: String| match set.first() {
        Some((first, _, _)) if first != file => format!("{}: {message}", file.display()),
        _ => message,
    };
    for (file, _, _) in set {
        check_target(file, Kind::Source).map_err(|e| about(file, e.message))?;
    }
    for (file, original, _) in set {
        let now = std::fs::read(file).map_err(|e| about(file, format!("cannot read: {e}")))?;
        if now != original.as_bytes() {
            return Err(about(
                file,
                "the file changed on disk during the run".into(),
            ));
        }
    }
    let writes: Vec<(&Path, &str)> = set.iter().map(|(f, _, t)| (f.as_path(), *t)).collect();
    write_all_or_none(&writes, Kind::Source).map_err(|e| about(&e.path, e.message))
}

/// Counts findings left in a file by what would fix them: (unsafe fix not admitted,
/// display-only, no fix).
fn count_pending(remaining: &[Finding], allowed: Allowed, pending: &mut (usize, usize, usize)) {
    for f in remaining {
        match f.fix.as_ref().map(|x| x.applicability) {
            Some(Applicability::Unsafe) if !allowed.unsafe_fixes => pending.0 += 1,
            Some(Applicability::DisplayOnly) => pending.1 += 1,
            _ => pending.2 += 1,
        }
    }
}
