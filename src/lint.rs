//! The library entry points: lint one source text, or files and folders.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rayon::prelude::*;
use syn::visit::Visit;

use crate::catalog::catalog;
use crate::finding::{FileError, Finding, Level, Report, Summary};
use crate::model::callgraph::CallGraph;
use crate::model::item_index::Held;
use crate::model::manifest::{KnownEvidence, Package, Packages, Version};
use crate::model::prefilter::Prefilter;
use crate::model::scope::FileFacts;
use crate::reading::source::{LineIndex, Range};
use crate::rules;
use crate::rules::engine::Draft;

/// The JSON report's `version`.
pub const REPORT_VERSION: u32 = 1;

/// Stack for each analysis thread: syn and the walk recurse once per nesting level.
pub(crate) const STACK_SIZE: usize = 256 << 20;

/// Most worker threads per core. Each worker reserves an analysis stack of [`STACK_SIZE`], and
/// past a few per core more threads buy nothing: `--threads 20000` spent minutes starting
/// threads before linting one file.
pub const THREADS_PER_CORE: usize = 4;

/// The cores this process may use (1 when unknown).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The most worker threads a run starts: [`THREADS_PER_CORE`] per core.
pub fn max_threads() -> usize {
    cores() * THREADS_PER_CORE
}

/// The worker threads a run uses: as asked (`None` or 0: `RAYON_NUM_THREADS`, else every core),
/// at most [`max_threads`].
pub fn worker_threads(requested: Option<usize>) -> usize {
    let from_env = || {
        std::env::var("RAYON_NUM_THREADS")
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
    };
    if crate::supervise::one_thread() {
        return 1;
    }
    requested
        .filter(|&n| n > 0)
        .or_else(|| from_env().filter(|&n| n > 0))
        .unwrap_or_else(cores)
        .min(max_threads())
}

/// What to run and how.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Per-code level overrides; `Level::Allow` turns a code off. Codes not listed use the
    /// catalog's default level.
    pub levels: BTreeMap<String, Level>,
    /// Skip files that contain none of the enabled rules' trigger tokens (on by default).
    pub prefilter: bool,
    /// Worker threads; `None` uses every core. Output does not depend on it.
    pub threads: Option<usize>,
    /// Paths in findings are relative to this directory.
    pub base_dir: PathBuf,
    /// Whether legacy requests in test code are reported (the `report-test-code` setting).
    pub test_code: TestCode,
    /// Which forms the MRTR rewrite may take (`--no-deferred-fixes`).
    pub tiers: crate::fix::Tiers,
}

/// Where legacy requests (MCP001-004, MCP006) in test code are reported. Quiet by default: on
/// public servers, those findings were mock servers and fixtures nobody migrates.
#[derive(Debug, Clone, Default)]
pub enum TestCode {
    #[default]
    Quiet,
    Report,
    /// Reported in these files only (absolute, normalized): their configuration asks for it.
    ReportIn(std::sync::Arc<BTreeSet<PathBuf>>),
}

impl TestCode {
    /// Whether legacy requests in test code are reported in the file at `path` (absolute, or
    /// relative to `base`).
    pub fn reports(&self, path: &Path, base: &Path) -> bool {
        match self {
            TestCode::Quiet => false,
            TestCode::Report => true,
            TestCode::ReportIn(files) => {
                files.contains(&crate::model::item_index::normalize(&base.join(path)))
            }
        }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            levels: BTreeMap::new(),
            prefilter: true,
            threads: None,
            base_dir: std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
            test_code: TestCode::default(),
            tiers: crate::fix::Tiers::default(),
        }
    }
}

impl Settings {
    /// The level a code reports at, after overrides.
    pub fn level(&self, code: &str) -> Level {
        self.levels
            .get(code)
            .copied()
            .or_else(|| catalog().get(code).map(|r| r.level))
            .unwrap_or(Level::Error)
    }

    /// The trigger tokens of every enabled rule ([`crate::model::prefilter::trigger_tokens`]).
    pub fn trigger_tokens(&self) -> Vec<String> {
        crate::model::prefilter::trigger_tokens(|code| {
            self.level(code) != Level::Allow && !rules::ENGINE_CODES.contains(&code)
        })
    }
}

/// What every suppression directive starts with (`// mcp-lint: allow(..)`, see
/// `gate::suppress`); a file without it has nothing to suppress. The engine run notes which files
/// hold it ([`FileResult::has_directives`]), so the gate reads only those again.
pub const DIRECTIVE: &str = "mcp-lint:";

/// The outcome for one file.
#[derive(Debug, Clone, Default)]
pub struct FileResult {
    pub findings: Vec<Finding>,
    /// Whether the file was parsed (false: skipped by the prefilter, or did not parse).
    pub parsed: bool,
    /// The file's text, when it was parsed or had a finding (for the human report).
    pub text: Option<String>,
    /// Whether the bytes hold a `mcp-lint:` suppression directive (set by [`lint_files`], which
    /// has the bytes in hand, so the gate need not read every file again to look).
    pub has_directives: bool,
}

/// Builds, on a thread of its own, what the analysis builds on first use: the prefilter's
/// automata and the rules' tables (about 8 ms of one core on this machine, `bench/run.sh`). The
/// command starts it before it walks the tree, one core's work, so the other core does it: the
/// first files on both workers found it built, where before one built it while the other waited.
/// A small server file of our own is linted for it, so whatever the rules build on first use is
/// built, whichever rules those are.
pub fn warm_up(settings: &Settings) -> Option<std::thread::JoinHandle<()>> {
    const SERVER: &str = "use rmcp::{model::*, service::RequestContext, ErrorData, RoleServer};\n\
struct Warm;\n\
impl Warm {\n    \
async fn ask(&self, ctx: RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {\n        \
let roots = ctx.peer.list_roots().await;\n        \
let _ = ctx.peer.create_elicitation(CreateElicitationRequestParam::default()).await;\n        \
Ok(CallToolResult::success(vec![Content::text(format!(\"{roots:?}\"))]))\n    }\n}\n";
    // One worker asked for (or a rerun after a crash, one file at a time): no second thread.
    if worker_threads(settings.threads) < 2 {
        return None;
    }
    let settings = settings.clone();
    std::thread::Builder::new()
        .name("warm-up".into())
        .spawn(move || drop(lint_source("warm-up.rs", SERVER.as_bytes(), &settings)))
        .ok()
}

/// Lints one file's bytes. `path` is used as given in the findings. Runs on a thread with a
/// large stack, so deeply nested input cannot overflow the caller's.
pub fn lint_source(path: &str, source: &[u8], settings: &Settings) -> FileResult {
    lint_source_in(path, source, settings, None)
}

/// [`lint_source`] for a text of a file whose package is known (`Packages::for_file`), so the
/// rules decide as [`lint_files`] does: the fix loop lints each fixed text this way.
pub fn lint_source_in(
    path: &str,
    source: &[u8],
    settings: &Settings,
    package: Option<std::sync::Arc<Package>>,
) -> FileResult {
    let prefilter = settings
        .prefilter
        .then(|| crate::model::prefilter::shared(&settings.trigger_tokens()));
    let run = || {
        let admitted = prefilter
            .as_deref()
            .is_none_or(|p| p.admits(source, package.as_deref()))
            || package
                .as_deref()
                .is_some_and(|p| names_a_method_const(&p.manifest, source));
        if !admitted {
            return FileResult::default();
        }
        lint_admitted(
            path,
            std::borrow::Cow::Borrowed(source),
            settings,
            prefilter.as_deref(),
            package.clone(),
        )
    };
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(STACK_SIZE)
            .spawn_scoped(s, run)
            .map(|h| h.join().unwrap_or_else(|_| internal_error(path)))
            // No thread to be had: the caller's stack it is.
            .unwrap_or_else(|_| run())
    })
}

/// Whether `source` names a constant that a file of the package declares with a legacy method's
/// name (`const ROOTS: &str = "roots/list";` in `methods.rs`, `"method": ROOTS` here). The
/// prefilter sees one file at a time and turns such a file away; the package's item index knows
/// the constants.
fn names_a_method_const(manifest: &Path, source: &[u8]) -> bool {
    let index = crate::model::item_index::for_package(manifest);
    index
        .method_consts
        .keys()
        .any(|c| crate::reading::lexer::mentions_word(source, c))
}

fn internal_error(path: &str) -> FileResult {
    FileResult {
        findings: vec![meta_finding(
            path,
            1,
            1,
            "internal error while analysing this file; please report it".into(),
        )],
        parsed: false,
        text: None,
        has_directives: false,
    }
}

fn meta_finding(path: &str, line: usize, column: usize, message: String) -> Finding {
    let name = catalog()
        .get("MCP900")
        .map_or("parse-error".to_string(), |r| r.name.clone());
    Finding {
        code: "MCP900".into(),
        name,
        level: Level::Error,
        path: path.to_string(),
        line,
        column,
        end_line: line,
        end_column: column,
        message,
        mcp_method: None,
        sdk: None,
        help: Some("make the file parse as Rust (`cargo check` shows syntax errors too); until it does, its other findings are unknown".into()),
        fix: None,
    }
}

/// Parses and analyses, on the current thread, a file the prefilter admitted (`prefilter` still
/// decides which fn bodies are blanked). `package` is the file's package when the caller found it
/// (`lint_files` does; a bare source text has none, and the rules fall back to syntax).
fn lint_admitted(
    path: &str,
    source: std::borrow::Cow<'_, [u8]>,
    settings: &Settings,
    prefilter: Option<&Prefilter>,
    package: Option<std::sync::Arc<Package>>,
) -> FileResult {
    crate::supervise::analysis(path, || {
        #[cfg(debug_assertions)]
        overflow_for_tests(path);
        analyse_admitted(path, source, settings, prefilter, package)
    })
    .unwrap_or_else(|| {
        let mut r = internal_error(path);
        r.findings[0].message = "analysing this file killed the linter (a stack overflow or an \
abort) in an earlier run of this command, so it was not analysed; please report it"
            .into();
        r
    })
}

/// A stack overflow on demand (`MCP_LINT_TEST_OVERFLOW=<end of a path>`), for the tests of the
/// second line of defence: the depth guard leaves no known input that overflows. Debug builds only.
#[cfg(debug_assertions)]
fn overflow_for_tests(path: &str) {
    fn recurse(n: u64) -> u64 {
        let pad = std::hint::black_box([n; 64]);
        if pad[1] == u64::MAX {
            return 0;
        }
        recurse(pad[1] + 1) + pad[0]
    }
    if std::env::var("MCP_LINT_TEST_OVERFLOW").is_ok_and(|p| !p.is_empty() && path.ends_with(&p)) {
        std::hint::black_box(recurse(0));
    }
}

fn analyse_admitted(
    path: &str,
    source: std::borrow::Cow<'_, [u8]>,
    settings: &Settings,
    prefilter: Option<&Prefilter>,
    package: Option<std::sync::Arc<Package>>,
) -> FileResult {
    // A renamed SDK crate is context for the skeleton like the crate's own name.
    let aliases: Vec<&str> = package
        .as_deref()
        .map(|p| p.sdk_aliases.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let mut keys = prefilter.and_then(|p| p.body_keys(package.as_deref()));
    if let (Some(keys), Some(p)) = (keys.as_mut(), package.as_deref()) {
        keys.package_consts = crate::model::item_index::for_package(&p.manifest)
            .method_consts
            .keys()
            .cloned()
            .collect();
    }
    let parsed = match crate::reading::parse::parse_skeleton(source, keys.as_ref(), &aliases) {
        Ok(ok) => ok,
        Err(f) => {
            let mut findings = Vec::new();
            let level = settings.level("MCP900");
            if level != Level::Allow {
                let mut finding = meta_finding(
                    path,
                    f.line,
                    f.column,
                    format!("file does not parse: {}", f.message),
                );
                finding.level = level;
                findings.push(finding);
            }
            return FileResult {
                findings,
                parsed: false,
                text: f.text,
                has_directives: false,
            };
        }
    };
    let crate::reading::parse::Parsed { text, file, idents } = parsed;
    let findings = analyse(path, &text, &file, idents.as_deref(), settings, package);
    crate::timings::stage(crate::timings::Stage::Drop, || drop(file));
    // Spans live in a per-thread table that grows with every file parsed on this thread.
    proc_macro2::extra::invalidate_current_thread_spans();
    FileResult {
        findings,
        parsed: true,
        text: Some(text),
        has_directives: false,
    }
}

fn analyse(
    path: &str,
    text: &str,
    file: &syn::File,
    idents: Option<&[std::ops::Range<usize>]>,
    settings: &Settings,
    package: Option<std::sync::Arc<Package>>,
) -> Vec<Finding> {
    // Test folders count inside the package only: a server crate that happens to sit under some
    // `tests/` folder (a monorepo's, or this project's fixtures) is not test code.
    let full = settings.base_dir.join(path);
    let full = std::path::absolute(&full).unwrap_or(full);
    let in_package = package
        .as_deref()
        .and_then(|p| p.manifest.parent())
        .and_then(|root| full.strip_prefix(root).ok())
        .map(|p| p.to_string_lossy().into_owned());
    use crate::timings::{stage, Stage};
    let (mut facts, callgraph) = stage(Stage::Facts, || {
        let facts = FileFacts::gather_with(file, text, idents, package);
        let callgraph = CallGraph::build(file, &facts);
        (facts, callgraph)
    });
    // A module file declared under `#[cfg(test)]` elsewhere in the crate is test code too.
    facts.test_file = FileFacts::is_test_path(in_package.as_deref().unwrap_or(path))
        || facts
            .items
            .as_deref()
            .is_some_and(|i| i.is_test_file(&full));
    facts.report_test_code = settings
        .test_code
        .reports(Path::new(path), &settings.base_dir);
    let lines = LineIndex::new(text);
    let mut walker =
        crate::rules::walk::Walker::new(&facts, &callgraph, &lines, rules::ALL, all_triggers());
    stage(Stage::Walk, || walker.visit_file(file));
    let drafts: Vec<(Range, Draft)> = std::mem::take(&mut walker.out);
    let mut seen = crate::model::fast_hash::HashSet::default();
    let mut findings = Vec::new();
    for (range, d) in drafts {
        if !seen.insert((d.code, range.start, range.end)) {
            continue;
        }
        let level = settings.level(d.code);
        if level == Level::Allow {
            continue;
        }
        let name = catalog()
            .get(d.code)
            .map_or_else(|| d.code.to_string(), |r| r.name.clone());
        findings.push(Finding {
            code: d.code.to_string(),
            name,
            level,
            path: path.to_string(),
            line: range.line,
            column: range.column,
            end_line: range.end_line,
            end_column: range.end_column,
            message: d.message,
            mcp_method: d.mcp_method.map(|m| m.wire().to_string()),
            sdk: d.sdk.map(str::to_string),
            help: d.help,
            fix: None,
        });
    }
    sort_findings(&mut findings);
    stage(Stage::FilePasses, || {
        for pass in FILE_PASSES {
            pass(&lines, file, &mut findings, settings.tiers);
        }
    });
    findings
}

/// What the walk tests a macro body with before parsing it: the prefilter of every trigger token
/// of the catalog and the SDK tables, whatever rules are enabled: a superset, so a macro body it
/// turns away holds nothing for any rule. (With default settings it is the very prefilter
/// `lint_files` uses.)
fn all_triggers() -> &'static Prefilter {
    static ALL: std::sync::LazyLock<std::sync::Arc<Prefilter>> = std::sync::LazyLock::new(|| {
        crate::model::prefilter::shared(&Settings::default().trigger_tokens())
    });
    &ALL
}

/// A pass over one file's findings after the rules ran, with the file's line index (and so its
/// text) and the tree the engine parsed: on the worker thread, in parallel with other files,
/// without parsing or indexing again (fixes).
/// It may fill `fix` and edit messages; it must keep the findings' order and positions.
pub type FilePass =
    fn(lines: &LineIndex, file: &syn::File, findings: &mut [Finding], tiers: crate::fix::Tiers);

/// The file passes, in order: the autofix plans each file's fixes from the tree parsed here.
pub static FILE_PASSES: &[FilePass] = &[crate::fix::file_pass];

pub fn sort_findings(findings: &mut [Finding]) {
    findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
}

/// Sources of the files a report mentions, for renderers that show code.
#[derive(Debug, Default, Clone)]
pub struct Sources {
    pub files: BTreeMap<String, String>,
    /// Files the engine read whose bytes hold no `mcp-lint:` directive: nothing in them can
    /// suppress, so the gate does not read them again.
    pub without_directives: BTreeSet<String>,
}

impl Sources {
    pub fn get(&self, path: &str) -> Option<&str> {
        self.files.get(path).map(String::as_str)
    }
}

/// Lints files and folders (see [`crate::reading::discover::discover`]).
pub fn lint_paths(paths: &[PathBuf], settings: &Settings) -> Report {
    lint_paths_with_sources(paths, settings).0
}

pub fn lint_paths_with_sources(paths: &[PathBuf], settings: &Settings) -> (Report, Sources) {
    let (files, errors) = crate::reading::discover::discover(paths, &settings.base_dir);
    let (mut report, sources) = lint_files(&files, settings);
    report.errors.extend(errors);
    report.errors.sort_by(|a, b| a.path.cmp(&b.path));
    (report, sources)
}

/// Lints exactly these files, in parallel; the report is the same whatever the thread count.
pub fn lint_files(files: &[PathBuf], settings: &Settings) -> (Report, Sources) {
    lint_files_with(files, settings, &Packages::new())
}

/// [`lint_files`] with the run's package cache: a caller that asks about the same packages
/// afterwards (the gate, for the readiness rules) then finds them read, not read again (reading
/// one scans all its sources for the rmcp release they were written for).
pub fn lint_files_with(
    files: &[PathBuf],
    settings: &Settings,
    packages: &Packages,
) -> (Report, Sources) {
    let prefilter = settings
        .prefilter
        .then(|| crate::model::prefilter::shared(&settings.trigger_tokens()));
    // Each file's package, read once per package: the rules decide with the SDK version in hand.
    let base = settings.base_dir.clone();
    // Two passes. First every file is read and scanned; the few the prefilter admits keep their
    // bytes. Then those are parsed and analysed, largest first: on a vendored tree a handful of
    // big files are most of the work, and started last on one core they left the other idle.
    let scan = |f: &PathBuf| -> Scanned {
        let display = crate::reading::source::display_path(f, &base);
        let bytes = match std::fs::read(f) {
            Ok(bytes) => bytes,
            Err(e) => return Scanned::Unreadable(display, format!("cannot read: {e}")),
        };
        let has_directives = memchr::memmem::find(&bytes, DIRECTIVE.as_bytes()).is_some();
        // The trigger scan needs no package, so most files are turned away before their
        // manifest is looked up; of the rest, those without an anchor in a package whose
        // manifest names no SDK are turned away before it is parsed.
        let has_trigger = prefilter.as_deref().is_none_or(|p| p.has_trigger(&bytes));
        let admitted = |p: &Prefilter| {
            let may_use_an_sdk = || !packages.certainly_without_an_sdk(f);
            if has_trigger {
                p.has_anchor(&bytes) || may_use_an_sdk()
            } else {
                may_use_an_sdk() && p.has_upgrade_trigger(&bytes)
            }
        };
        if prefilter.as_deref().is_none_or(admitted) {
            // The package's code evidence reads every source of it: scanned here, on every
            // thread, rather than read again under the package cache's lock.
            let evidence = crate::model::sdk::rmcp_upgrade::written_below(&bytes);
            Scanned::Admitted(
                display,
                Mutex::new(bytes),
                has_directives,
                has_trigger,
                evidence,
            )
        } else {
            Scanned::Skipped(display, has_directives)
        }
    };
    let analyse = |f: &PathBuf,
                   display: &str,
                   bytes: &Mutex<Vec<u8>>,
                   has_trigger: bool,
                   held: Held<'_>,
                   known: KnownEvidence<'_>|
     -> FileResult {
        let package = crate::timings::stage(crate::timings::Stage::Package, || {
            packages.for_file_with(f, known)
        });
        // The first pass saw a trigger token; with the package in hand, the second tier decides.
        if prefilter
            .as_deref()
            .is_some_and(|p| !p.admits_with(has_trigger, &lock(bytes), package.as_deref()))
        {
            return FileResult::default();
        }
        // The crate index this file's analysis asks for, built (by the first file of the
        // package) from the bytes the first pass read, before this file's own are taken.
        if let Some(p) = package.as_deref() {
            crate::timings::stage(crate::timings::Stage::ItemIndex, || {
                crate::model::item_index::for_package_with(&p.manifest, held)
            });
        }
        // The analysis takes the bytes over: they become the parsed file's text, with no copy.
        let bytes = std::borrow::Cow::Owned(std::mem::take(&mut *lock(bytes)));
        lint_admitted(display, bytes, settings, prefilter.as_deref(), package)
    };
    let run = || -> Vec<Outcome> {
        let mut phases = crate::timings::Phases::start();
        let scanned: Vec<Scanned> = files
            .par_iter()
            .map(|f| {
                guarded(|| crate::timings::stage(crate::timings::Stage::Scan, || scan(f)))
                    .unwrap_or_else(|| {
                        let display = f.to_string_lossy().replace('\\', "/");
                        let r = internal_error(&display);
                        Scanned::Failed(display, r)
                    })
            })
            .collect();
        phases.mark("  read");
        let mut order: Vec<usize> = (0..files.len())
            .filter(|&i| matches!(scanned[i], Scanned::Admitted(..)))
            .collect();
        order.sort_by_key(|&i| match &scanned[i] {
            Scanned::Admitted(_, bytes, ..) => std::cmp::Reverse(lock(bytes).len()),
            _ => std::cmp::Reverse(0),
        });
        // Admitted files by absolute path, for the crate index: what it finds here it does not
        // read again. (`std::path::absolute` asks the OS for the working directory each time:
        // a system call per file, on one thread.)
        let cwd = std::env::current_dir().ok();
        let by_path: crate::model::fast_hash::HashMap<PathBuf, usize> = order
            .iter()
            .filter_map(|&i| {
                let f = &files[i];
                let abs = match &cwd {
                    _ if f.is_absolute() => f.clone(),
                    Some(cwd) => cwd.join(f),
                    None => std::path::absolute(f).ok()?,
                };
                Some((crate::model::item_index::normalize(&abs), i))
            })
            .collect();
        let held = |path: &Path| match &scanned[*by_path.get(path)?] {
            Scanned::Admitted(_, bytes, ..) => Some(lock(bytes).clone()).filter(|b| !b.is_empty()),
            _ => None,
        };
        let known = |path: &Path| match &scanned[*by_path.get(path)?] {
            Scanned::Admitted(.., evidence) => Some(*evidence),
            _ => None,
        };
        phases.mark("  order");
        let analysed: Vec<(usize, FileResult)> = order
            .par_iter()
            .with_max_len(1)
            .map(|&i| {
                let Scanned::Admitted(display, bytes, has_directives, has_trigger, _) = &scanned[i]
                else {
                    unreachable!("only admitted files are analysed")
                };
                let r = guarded(|| {
                    let mut r = analyse(&files[i], display, bytes, *has_trigger, &held, &known);
                    r.has_directives = *has_directives;
                    r
                });
                (i, r.unwrap_or_else(|| internal_error(display)))
            })
            .collect();
        phases.mark("  analyse");
        let mut done: Vec<Option<FileResult>> = (0..files.len()).map(|_| None).collect();
        for (i, r) in analysed {
            done[i] = Some(r);
        }
        if prefilter.is_some() {
            for (i, r) in admitted_late(files, &scanned, &order, packages, settings, &prefilter) {
                done[i] = Some(r);
            }
        }
        phases.mark("  late");
        scanned
            .into_iter()
            .zip(done)
            .map(|(s, r)| match s {
                Scanned::Unreadable(display, e) => (display, Err(e)),
                Scanned::Skipped(display, has_directives) => {
                    let r = r.unwrap_or_default();
                    (
                        display,
                        Ok(FileResult {
                            has_directives,
                            ..r
                        }),
                    )
                }
                Scanned::Admitted(display, ..) => {
                    let r = r.unwrap_or_else(|| internal_error(&display));
                    (display, Ok(r))
                }
                Scanned::Failed(display, r) => (display, Ok(r)),
            })
            .collect()
    };
    let results: Vec<Outcome> = match rayon::ThreadPoolBuilder::new()
        .num_threads(worker_threads(settings.threads))
        .stack_size(STACK_SIZE)
        .build()
    {
        Ok(pool) => pool.install(run),
        // No pool: one thread does it all. The analysis must run on a thread with a big stack,
        // which `lint_source` provides.
        Err(_) => std::thread::scope(|s| {
            match std::thread::Builder::new()
                .stack_size(STACK_SIZE)
                .spawn_scoped(s, run)
            {
                Ok(h) => h.join().unwrap_or_default(),
                Err(_) => run(),
            }
        }),
    };
    let (mut report, sources) = assemble(results);
    for (manifest, message) in packages.errors() {
        let path = crate::reading::source::display_path(&manifest, &base);
        let message =
            format!("{message}; files of this package were linted without its dependency versions");
        report.errors.push(FileError { path, message });
    }
    report.errors.sort_by(|a, b| a.path.cmp(&b.path));
    (report, sources)
}

/// The files the prefilter turned away that name a constant another file of their package
/// declares with a legacy method's name ([`names_a_method_const`]), analysed now. Only packages
/// whose item index the first round built (those with an admitted file; a constant holding a
/// method's name is itself a trigger) and that have such a constant are looked at: most runs
/// read no file again.
fn admitted_late(
    files: &[PathBuf],
    scanned: &[Scanned],
    order: &[usize],
    packages: &Packages,
    settings: &Settings,
    prefilter: &Option<std::sync::Arc<Prefilter>>,
) -> Vec<(usize, FileResult)> {
    let mut with_consts: Vec<(PathBuf, PathBuf)> = Vec::new();
    // The files of a folder share a package: one look-up per folder, not per file (this loop runs
    // on one thread, between the parallel passes).
    let mut folders: crate::model::fast_hash::HashSet<&Path> = Default::default();
    for &i in order {
        if !folders.insert(files[i].parent().unwrap_or(Path::new(""))) {
            continue;
        }
        let Some(p) = packages.for_file(&files[i]) else {
            continue;
        };
        if with_consts.iter().any(|(m, _)| *m == p.manifest) {
            continue;
        }
        let has = crate::model::item_index::built(&p.manifest)
            .is_some_and(|ix| !ix.method_consts.is_empty());
        if has {
            let dir = p
                .manifest
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default();
            with_consts.push((p.manifest.clone(), dir));
        }
    }
    if with_consts.is_empty() {
        return Vec::new();
    }
    let base = &settings.base_dir;
    let late: Vec<usize> = (0..files.len())
        .filter(|&i| matches!(scanned[i], Scanned::Skipped(..)))
        .filter(|&i| {
            let abs = std::path::absolute(&files[i])
                .map(|a| crate::model::item_index::normalize(&a))
                .unwrap_or_default();
            with_consts.iter().any(|(_, dir)| abs.starts_with(dir))
        })
        .collect();
    late.par_iter()
        .with_max_len(1)
        .filter_map(|&i| {
            let package = packages.for_file(&files[i])?;
            if !with_consts.iter().any(|(m, _)| *m == package.manifest) {
                return None;
            }
            let bytes = std::fs::read(&files[i]).ok()?;
            if !names_a_method_const(&package.manifest, &bytes) {
                return None;
            }
            let display = crate::reading::source::display_path(&files[i], base);
            let r = guarded(|| {
                lint_admitted(
                    &display,
                    std::borrow::Cow::Owned(bytes),
                    settings,
                    prefilter.as_deref(),
                    Some(package),
                )
            });
            Some((i, r.unwrap_or_else(|| internal_error(&display))))
        })
        .collect()
}

/// One file's outcome: its display path and its result, or why it could not be read.
type Outcome = (String, Result<FileResult, String>);

/// A file after the first pass (`Failed`: the pass panicked on it, an internal-error finding).
enum Scanned {
    Unreadable(String, String),
    Skipped(String, bool),
    /// The display path, the bytes (until the analysis takes them; the crate index may read
    /// them before), whether they hold a suppression directive, and whether the first pass found
    /// a trigger token (the second look needs not scan for it again), and the file's code
    /// evidence (`Packages::for_file_with`).
    Admitted(String, Mutex<Vec<u8>>, bool, bool, Option<Version>),
    Failed(String, FileResult),
}

/// A file's bytes: a panic that poisoned the lock left them as they were.
fn lock(bytes: &Mutex<Vec<u8>>) -> std::sync::MutexGuard<'_, Vec<u8>> {
    bytes.lock().unwrap_or_else(|p| p.into_inner())
}

/// Runs one pass over one file; `None` when it panicked (the caller reports an internal error
/// for the file and the run goes on).
fn guarded<T>(work: impl FnOnce() -> T) -> Option<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).ok()
}

fn assemble(results: Vec<(String, Result<FileResult, String>)>) -> (Report, Sources) {
    let mut summary = Summary::default();
    let mut findings = Vec::new();
    let mut errors = Vec::new();
    let mut sources = Sources::default();
    for (path, r) in results {
        match r {
            Ok(fr) => {
                summary.files_seen += 1;
                if fr.parsed {
                    summary.files_parsed += 1;
                }
                if !fr.has_directives {
                    sources.without_directives.insert(path.clone());
                }
                if !fr.findings.is_empty() {
                    if let Some(t) = fr.text {
                        sources.files.insert(path.clone(), t);
                    }
                }
                findings.extend(fr.findings);
            }
            Err(message) => errors.push(FileError { path, message }),
        }
    }
    sort_findings(&mut findings);
    summary.findings = findings.len();
    errors.sort_by(|a, b| a.path.cmp(&b.path));
    (
        Report {
            version: REPORT_VERSION,
            findings,
            errors,
            summary,
        },
        sources,
    )
}

/// `path` relative to the settings' base directory, as findings show it.
pub fn display_path(path: &Path, settings: &Settings) -> String {
    crate::reading::source::display_path(path, &settings.base_dir)
}
