//! The CI gate: what happens between the engine's raw findings and the printed report.
//!
//! For each file: its nearest configuration (exclude, select/ignore, levels, per-file ignores,
//! target protocol), then its suppression comments (which add MCP901/MCP902 findings), then the
//! baseline over the whole run. The result is sorted by (path, line, column, code), so it does not
//! depend on the engine's thread count.

pub mod baseline;
pub mod config;
pub mod suppress;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::catalog::catalog;
use crate::finding::{Finding, Report};
use crate::gate::baseline::Baseline;
use crate::gate::config::Resolver;
use crate::gate::suppress::Policy;
use crate::lint::Sources;

/// The engine's code for a file it could not parse (and so did not analyse).
const PARSE_ERROR: &str = "MCP900";

/// The gate's command-line options.
#[derive(Debug, Clone, Default)]
pub struct GateOptions {
    /// `--baseline FILE`
    pub baseline: Option<PathBuf>,
    /// `--update-baseline`: write the current findings to the baseline instead of filtering.
    pub update_baseline: bool,
    /// `--strict-baseline`: stale baseline entries fail the run (exit 1).
    pub strict_baseline: bool,
    /// `--prune-baseline`: rewrite the baseline without its stale entries, adding nothing.
    pub prune_baseline: bool,
    /// Compute `partialFingerprints` (SARIF). Identities cost a second parse of each file with
    /// findings, so they are only computed when a baseline or SARIF needs them.
    pub fingerprints: bool,
}

#[derive(Debug)]
pub struct Gated {
    pub report: Report,
    /// One line each; every format shows them (JSON and human on stderr).
    pub notes: Vec<String>,
    /// Progress lines for stderr (baseline written, findings hidden); not part of any format.
    pub info: Vec<String>,
    /// `partialFingerprints` per finding of `report`.
    pub fingerprints: Vec<String>,
    pub suppressed: usize,
    pub baseline_hidden: usize,
    pub stale: usize,
}

/// Every code of the embedded catalog.
pub fn known_codes() -> BTreeSet<String> {
    catalog().rules.iter().map(|r| r.code.clone()).collect()
}

/// Texts of the files the run looked at: the engine's copies first, the disk otherwise.
pub struct Texts<'a> {
    sources: &'a Sources,
    base: PathBuf,
    read: BTreeMap<String, Option<String>>,
}

impl<'a> Texts<'a> {
    pub fn new(sources: &'a Sources, base: &Path) -> Self {
        Texts {
            sources,
            base: base.to_path_buf(),
            read: BTreeMap::new(),
        }
    }

    /// Whether `path` may hold a `mcp-lint:` directive: false for a file the engine read
    /// without one.
    pub fn may_hold_directives(&self, path: &str) -> bool {
        !self.sources.without_directives.contains(path)
    }

    pub fn get(&mut self, path: &str) -> Option<String> {
        if let Some(t) = self.sources.get(path) {
            return Some(t.to_string());
        }
        if let Some(t) = self.read.get(path) {
            return t.clone();
        }
        if self.sources.without_directives.contains(path) {
            return None;
        }
        let text = std::fs::read_to_string(crate::reading::source::os_path(&self.base, path)).ok();
        // Only texts with directives are asked for again (meta findings, identities); caching
        // every file of a large tree would hold all of it in memory.
        if text
            .as_deref()
            .is_some_and(|t| t.contains(crate::lint::DIRECTIVE))
        {
            self.read.insert(path.to_string(), text.clone());
        }
        text
    }
}

/// Drops the files an `exclude` glob of their nearest config covers, so they are never read or
/// parsed. `files` are as discovery returns them (relative to the working directory, or absolute).
pub fn drop_excluded(files: Vec<PathBuf>, resolver: &mut Resolver) -> Result<Vec<PathBuf>, String> {
    let mut kept = Vec::with_capacity(files.len());
    for f in files {
        let cfg = resolver.for_file(&f).map_err(|e| e.0)?;
        if !cfg.excludes_anything() || !cfg.is_excluded(&resolver.absolute(&f.to_string_lossy())) {
            kept.push(f);
        }
    }
    Ok(kept)
}

/// Which files' configuration asks for legacy requests in test code to be reported
/// (`report-test-code`), for the engine, which decides while it still knows what is test code.
pub fn test_code_policy(
    files: &[PathBuf],
    resolver: &mut Resolver,
) -> Result<crate::lint::TestCode, String> {
    let mut report = std::collections::BTreeSet::new();
    for f in files {
        let cfg = resolver.for_file(f).map_err(|e| e.0)?;
        if cfg.settings.report_test_code {
            report.insert(resolver.absolute(&f.to_string_lossy()));
        }
    }
    Ok(if report.is_empty() {
        crate::lint::TestCode::Quiet
    } else if report.len() == files.len() {
        crate::lint::TestCode::Report
    } else {
        crate::lint::TestCode::ReportIn(std::sync::Arc::new(report))
    })
}

/// Applies configuration, suppressions and the baseline to the engine's report. `files` are the
/// display paths of every linted file, so suppressions in files without findings are checked too.
/// The findings of each file, and every file of the run with none, in path order. The engine's
/// findings come sorted by path, so a file's are one run of them: moved as runs, one path copy
/// per file, where a map entry per finding cost a path copy and a dozen path comparisons each.
/// Unsorted findings are grouped all the same.
fn by_path(findings: Vec<Finding>, files: &[String]) -> Vec<(String, Vec<Finding>)> {
    let mut groups: Vec<(String, Vec<Finding>)> = Vec::with_capacity(files.len());
    for f in findings {
        match groups.last_mut() {
            Some((path, fs)) if *path == f.path => fs.push(f),
            _ => groups.push((f.path.clone(), vec![f])),
        }
    }
    groups.extend(files.iter().map(|f| (f.clone(), Vec::new())));
    // Stable: a file's runs keep their order, and come before its empty entry.
    groups.sort_by(|a, b| a.0.cmp(&b.0));
    groups.dedup_by(|later, kept| {
        if later.0 != kept.0 {
            return false;
        }
        kept.1.append(&mut later.1);
        true
    });
    groups
}

pub fn apply(
    report: Report,
    files: &[String],
    texts: &mut Texts,
    resolver: &mut Resolver,
    opts: &GateOptions,
) -> Result<Gated, String> {
    let known = known_codes();
    let Report {
        version,
        findings,
        errors,
        mut summary,
    } = report;
    let mut kept = Vec::new();
    let mut suppressed = 0;
    for (path, fs) in by_path(findings, files) {
        let abs = resolver.absolute(&path);
        let cfg = resolver.for_file(Path::new(&path)).map_err(|e| e.0)?;
        if cfg.is_excluded(&abs) {
            continue;
        }
        // A file the engine read without a directive in it cannot suppress: its text is neither
        // copied nor searched again (most files of a run, each a copy and a scan).
        let text = texts
            .may_hold_directives(&path)
            .then(|| texts.get(&path))
            .flatten();
        let fs = match text.as_deref() {
            Some(src) if src.contains(crate::lint::DIRECTIVE) => {
                // A file the engine could not analyse says nothing about whether its other
                // suppressions are used, so only its parse-error suppressions can be unused.
                let analysed = !fs.iter().any(|f| f.code == PARSE_ERROR);
                let enabled =
                    |code: &str| (analysed || code == PARSE_ERROR) && cfg.rule_enabled(code, &abs);
                let outcome = suppress::apply(
                    &path,
                    src,
                    fs,
                    &Policy {
                        require_reason: cfg.settings.require_suppression_reason,
                        known_codes: &known,
                        enabled: &enabled,
                    },
                );
                suppressed += outcome.suppressed;
                outcome.findings
            }
            _ => fs,
        };
        let resolver = &*resolver;
        // Asked per readiness finding, answered once per file (a package look-up each).
        let targets_mrtr = std::cell::OnceCell::new();
        let package_targets_mrtr =
            || *targets_mrtr.get_or_init(|| resolver.package_targets_mrtr(&abs));
        kept.extend(
            fs.into_iter()
                .filter_map(|f| cfg.filter_in(f, &abs, package_targets_mrtr)),
        );
    }
    kept.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    let ctxs = if opts.baseline.is_some() || opts.fingerprints {
        baseline::contexts(&kept, |p| texts.get(p))
    } else {
        vec![baseline::FindingContext::default(); kept.len()]
    };
    let mut notes = Vec::new();
    let mut info = Vec::new();
    let mut baseline_hidden = 0;
    let mut stale = 0;
    // Baseline entries name files relative to the baseline's own directory, so the linter can run
    // from any directory of the repository against the same file.
    let baseline_dir = opts.baseline.as_ref().map(|file| {
        let abs = resolver.absolute(&file.to_string_lossy());
        abs.parent().unwrap_or(Path::new("/")).to_path_buf()
    });
    let key_path = |resolver: &Resolver, path: &str| -> String {
        let dir = baseline_dir.as_deref().unwrap_or(Path::new("/"));
        match resolver.absolute(path).strip_prefix(dir) {
            Ok(rel) => rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/"),
            Err(_) => path.to_string(),
        }
    };
    let keyed: Vec<Finding> = match &opts.baseline {
        Some(_) => kept
            .iter()
            .map(|f| {
                let mut k = f.clone();
                k.path = key_path(resolver, &f.path);
                k
            })
            .collect(),
        None => Vec::new(),
    };
    // Only the files this run linted can say whether an entry still matches: a run over a subset
    // of the paths keeps every other file's entries.
    let linted: BTreeSet<String> = match &opts.baseline {
        Some(_) => files.iter().map(|f| key_path(resolver, f)).collect(),
        None => BTreeSet::new(),
    };
    let (kept, ctxs) = match &opts.baseline {
        Some(file) if opts.update_baseline => {
            if !errors.is_empty() {
                let listed: Vec<String> = errors
                    .iter()
                    .take(3)
                    .map(|e| format!("{}: {}", e.path, e.message))
                    .collect();
                return Err(format!(
                    "--update-baseline: {} path{} could not be read ({}{}); baseline {} not written",
                    errors.len(),
                    if errors.len() == 1 { "" } else { "s" },
                    listed.join("; "),
                    if errors.len() > 3 { "; ..." } else { "" },
                    file.display()
                ));
            }
            let mut b = Baseline::from_findings(&keyed, &ctxs);
            // Entries of files this run did not lint stay as they were. A baseline that is there
            // but does not read (a merge conflict, a truncation) is refused, as plain `--baseline`
            // refuses it: replacing it would drop every other file's entries without a word.
            if file.exists() {
                let old = Baseline::load(file).map_err(|e| {
                    format!("--update-baseline: {e}; not replaced (mend it, or delete it to start afresh)")
                })?;
                b.entries.extend(
                    old.entries
                        .into_iter()
                        .filter(|e| !linted.contains(&e.path)),
                );
                b.entries.sort();
            }
            b.save(file)?;
            info.push(format!(
                "wrote {} finding{} ({} entr{}) to baseline {}",
                kept.len(),
                if kept.len() == 1 { "" } else { "s" },
                b.entries.len(),
                if b.entries.len() == 1 { "y" } else { "ies" },
                file.display()
            ));
            (kept, ctxs)
        }
        Some(file) => {
            let b = Baseline::load(file)?;
            let mut applied = b.apply(keyed.clone(), &ctxs);
            applied.stale.retain(|s| linted.contains(&s.entry.path));
            baseline_hidden = applied.hidden;
            if opts.prune_baseline && !applied.stale.is_empty() {
                let pruned = b.pruned(&applied.stale);
                pruned.save(file)?;
                info.push(format!(
                    "pruned baseline {}: {} entr{} left",
                    file.display(),
                    pruned.entries.len(),
                    if pruned.entries.len() == 1 {
                        "y"
                    } else {
                        "ies"
                    }
                ));
            }
            if !opts.prune_baseline {
                stale = applied.stale.iter().map(|s| s.unmatched).sum();
                if let Some(n) = baseline::stale_note(&file.display().to_string(), &applied) {
                    notes.push(n);
                }
            }
            if applied.hidden > 0 {
                info.push(format!(
                    "{} finding{} hidden by baseline {}",
                    applied.hidden,
                    if applied.hidden == 1 { "" } else { "s" },
                    file.display()
                ));
            }
            // `applied.new` is an in-order subsequence of `keyed`: walk both to keep each
            // surviving finding (with its original path) and its context for its fingerprint.
            let mut out_f = Vec::new();
            let mut out_c = Vec::new();
            let mut new = applied.new.into_iter().peekable();
            for ((f, k), c) in kept.into_iter().zip(&keyed).zip(ctxs) {
                if new.peek() == Some(k) {
                    new.next();
                    out_f.push(f);
                    out_c.push(c);
                }
            }
            (out_f, out_c)
        }
        None if opts.update_baseline => {
            return Err("--update-baseline needs --baseline FILE".into());
        }
        None => (kept, ctxs),
    };
    let fingerprints = if opts.fingerprints {
        baseline::fingerprints(&kept, &ctxs)
    } else {
        Vec::new()
    };
    summary.findings = kept.len();
    Ok(Gated {
        report: Report {
            version,
            findings: kept,
            errors,
            summary,
        },
        notes,
        info,
        fingerprints,
        suppressed,
        baseline_hidden,
        stale,
    })
}

/// `--add-suppressions REASON`: a directive above every reported finding's line, file by file,
/// each file written atomically and only if it still parses. Returns a summary line per file.
pub fn add_suppressions(findings: &[Finding], reason: &str, base: &Path) -> (Vec<String>, bool) {
    let mut by_path: BTreeMap<&str, Vec<&Finding>> = BTreeMap::new();
    for f in findings {
        // Meta findings are about suppressions; they are fixed, not suppressed.
        if f.code == suppress::UNUSED_CODE || f.code == suppress::INVALID_CODE {
            continue;
        }
        by_path.entry(&f.path).or_default().push(f);
    }
    let mut lines = Vec::new();
    let mut ok = true;
    for (path, fs) in by_path {
        let file = crate::reading::source::os_path(base, path);
        let result = std::fs::read_to_string(&file)
            .map_err(|e| format!("cannot read: {e}"))
            .and_then(|src| suppress::add_suppressions(&src, &fs, reason))
            .and_then(|(text, n)| {
                crate::atomic_write::write_file_atomic(
                    &file,
                    text.as_bytes(),
                    crate::atomic_write::Kind::Source,
                )
                .map(|_| n)
                .map_err(|e| format!("cannot write: {}", e.message))
            });
        match result {
            Ok(n) => lines.push(format!(
                "{path}: added {n} suppression{}",
                if n == 1 { "" } else { "s" }
            )),
            Err(e) => {
                ok = false;
                lines.push(format!("{path}: not changed: {e}"));
            }
        }
    }
    (lines, ok)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::Level;

    fn at(path: &str, line: usize) -> Finding {
        Finding {
            code: "MCP001".into(),
            name: "n".into(),
            level: Level::Error,
            path: path.into(),
            line,
            column: 1,
            end_line: line,
            end_column: 2,
            message: "m".into(),
            mcp_method: None,
            sdk: None,
            help: None,
            fix: None,
        }
    }

    #[test]
    fn findings_are_grouped_by_file_in_path_order_with_every_file_of_the_run() {
        // Sorted as the engine writes them, and out of order as another caller may pass them.
        for findings in [
            vec![at("a.rs", 1), at("a.rs", 2), at("c.rs", 1)],
            vec![at("c.rs", 1), at("a.rs", 1), at("a.rs", 2)],
        ] {
            let files = ["b.rs", "c.rs", "a.rs"].map(String::from);
            let groups = by_path(findings, &files);
            let seen: Vec<(&str, Vec<usize>)> = groups
                .iter()
                .map(|(p, fs)| (p.as_str(), fs.iter().map(|f| f.line).collect()))
                .collect();
            assert_eq!(
                seen,
                [("a.rs", vec![1, 2]), ("b.rs", vec![]), ("c.rs", vec![1])]
            );
        }
        // A file's findings split in two runs are one group, in their order.
        let groups = by_path(vec![at("a.rs", 3), at("b.rs", 1), at("a.rs", 1)], &[]);
        let lines: Vec<usize> = groups[0].1.iter().map(|f| f.line).collect();
        assert_eq!((groups.len(), lines), (2, vec![3, 1]));
    }
}
