//! Configuration: where it is found, what it may say, and how it filters findings.
//!
//! Sources, for each linted file (the nearest wins, like ruff; files are not merged):
//! walking up from the file's directory, the first directory that has
//! 1. `mcp-lint.toml` (settings at its top level), else
//! 2. a `Cargo.toml` with `[package.metadata.mcp-lint]`, else
//! 3. a `Cargo.toml` with `[workspace.metadata.mcp-lint]`
//!
//! provides the settings. A `Cargo.toml` without either table is passed over; one with both is an
//! error. `--config FILE` names the file for every linted file instead. `--config KEY=VALUE`
//! overrides (TOML values; tables such as `rules` merge key by key) beat every file. Globs in
//! `exclude` and `per-file-ignores` are relative to the directory of the file that defines them,
//! anchored the way gitignore anchors (see `PathGlob`).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use globset::{Glob, GlobBuilder, GlobMatcher};
use serde::Serialize;
use toml::{Table, Value};

use crate::finding::{Finding, Level};

/// Protocol revisions a project can target. Before 2026-07-28 a server may still send requests to
/// the client mid-request, so findings about those requests are off for older targets.
pub const PROTOCOLS: &[&str] = &["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"];
pub const MRTR_PROTOCOL: &str = "2026-07-28";

const KEYS: &[&str] = &[
    "select",
    "ignore",
    "rules",
    "exclude",
    "per-file-ignores",
    "target-protocol",
    "require-suppression-reason",
    "report-test-code",
];

pub const CONFIG_FILE: &str = "mcp-lint.toml";

/// The settings as written (after defaults), printed by `--show-settings`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct Settings {
    pub select: Vec<String>,
    pub ignore: Vec<String>,
    pub exclude: Vec<String>,
    pub target_protocol: String,
    /// Whether `target-protocol` was written (not the default): it then decides whether the
    /// 2026-07-28 readiness rules report, whatever the package's SDK version.
    #[serde(skip)]
    pub target_protocol_set: bool,
    pub require_suppression_reason: bool,
    /// Report legacy requests (MCP001-004, MCP006) in test code too: `#[test]` fns,
    /// `#[cfg(test)]` items and the module files they declare, `tests/` and `benches/`.
    pub report_test_code: bool,
    pub rules: BTreeMap<String, String>,
    pub per_file_ignores: BTreeMap<String, Vec<String>>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            select: vec!["ALL".into()],
            ignore: Vec::new(),
            exclude: Vec::new(),
            target_protocol: MRTR_PROTOCOL.into(),
            target_protocol_set: false,
            require_suppression_reason: false,
            report_test_code: false,
            rules: BTreeMap::new(),
            per_file_ignores: BTreeMap::new(),
        }
    }
}

/// Where settings came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The file, or None for the built-in defaults.
    pub file: Option<PathBuf>,
    /// `mcp-lint.toml`, `[package.metadata.mcp-lint]` or `[workspace.metadata.mcp-lint]`.
    pub table: &'static str,
}

/// Settings ready to filter findings: validated, globs compiled, relative to `root`.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub settings: Settings,
    pub origin: Origin,
    /// Directory globs are relative to.
    pub root: PathBuf,
    levels: BTreeMap<String, Level>,
    exclude: Vec<PathGlob>,
    per_file: Vec<(PathGlob, Vec<String>)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

fn err<T>(msg: impl Into<String>) -> Result<T, ConfigError> {
    Err(ConfigError(msg.into()))
}

/// Parses one `--config KEY=VALUE` into a table to lay over the file's settings.
pub fn parse_override(arg: &str) -> Result<Table, ConfigError> {
    let Some((key, value)) = arg.split_once('=') else {
        return err(format!(
            "--config {arg}: expected KEY=VALUE (e.g. `select=[\"MCP001\"]`) or the path of a config file"
        ));
    };
    let (key, value) = (key.trim(), value.trim());
    if key.is_empty() {
        return err(format!("--config {arg}: empty key"));
    }
    let as_toml = format!("{key} = {value}");
    if let Ok(t) = toml::from_str::<Table>(&as_toml) {
        return Ok(t);
    }
    // A bare word (`rules.MCP001=warn`) is meant as a string.
    let quoted = format!(
        "{key} = {}",
        serde_json::to_string(value).expect("string serializes")
    );
    toml::from_str::<Table>(&quoted)
        .or_else(|e| err(format!("--config {arg}: not a TOML key = value: {e}")))
}

/// Lays `over` onto `base`: tables merge key by key, anything else is replaced.
pub fn merge(base: &mut Table, over: &Table) {
    for (k, v) in over {
        match (base.get_mut(k), v) {
            (Some(Value::Table(b)), Value::Table(o)) => merge(b, o),
            _ => {
                base.insert(k.clone(), v.clone());
            }
        }
    }
}

/// Reads the mcp-lint settings table from a config file, or None if it has none (a `Cargo.toml`
/// without our tables).
pub fn read_file(path: &Path) -> Result<Option<(Table, &'static str)>, ConfigError> {
    let is_manifest = path.file_name().is_some_and(|n| n == "Cargo.toml");
    let bytes =
        std::fs::read(path).or_else(|e| err(format!("cannot read {}: {e}", path.display())))?;
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        // A manifest that is not UTF-8 is not TOML, so it holds no settings of ours: it is passed
        // over here and reported once, as an error line, where its dependencies are read.
        Err(_) if is_manifest => return Ok(None),
        Err(_) => return err(format!("{} is not UTF-8 text", path.display())),
    };
    // A manifest without our table is most manifests of a large tree (every vendored crate);
    // parsing each one cost more than linting the files beside it. Its TOML errors are still
    // reported where its dependencies are read (`manifest.rs`).
    if is_manifest && !text.contains("mcp-lint") {
        return Ok(None);
    }
    let doc: Table = toml::from_str(&text)
        .or_else(|e| err(format!("{} is not valid TOML: {e}", path.display())))?;
    if !is_manifest {
        return Ok(Some((doc, "mcp-lint.toml")));
    }
    let get = |section: &str| -> Result<Option<Table>, ConfigError> {
        match doc
            .get(section)
            .and_then(|s| s.get("metadata"))
            .and_then(|m| m.get("mcp-lint"))
        {
            None => Ok(None),
            Some(Value::Table(t)) => Ok(Some(t.clone())),
            Some(_) => err(format!(
                "{}: [{section}.metadata.mcp-lint] must be a table",
                path.display()
            )),
        }
    };
    match (get("package")?, get("workspace")?) {
        (Some(_), Some(_)) => err(format!(
            "{} has both [package.metadata.mcp-lint] and [workspace.metadata.mcp-lint]; keep one",
            path.display()
        )),
        (Some(t), None) => Ok(Some((t, "[package.metadata.mcp-lint]"))),
        (None, Some(t)) => Ok(Some((t, "[workspace.metadata.mcp-lint]"))),
        (None, None) => Ok(None),
    }
}

/// The nearest config for files in `dir` (see the module docs for the order).
pub fn discover(dir: &Path) -> Result<Option<(PathBuf, Table, &'static str)>, ConfigError> {
    for d in dir.ancestors() {
        if let Some(found) = config_in(d)? {
            return Ok(Some(found));
        }
    }
    Ok(None)
}

/// The config defined in `d` itself, if any.
fn config_in(d: &Path) -> Result<Option<(PathBuf, Table, &'static str)>, ConfigError> {
    for name in [CONFIG_FILE, "Cargo.toml"] {
        let file = d.join(name);
        if file.is_file() {
            if let Some((t, kind)) = read_file(&file)? {
                return Ok(Some((file, t, kind)));
            }
        }
    }
    Ok(None)
}

fn string_list(key: &str, v: &Value, ctx: &str) -> Result<Vec<String>, ConfigError> {
    match v {
        Value::Array(a) => a
            .iter()
            .map(|x| match x {
                Value::String(s) => Ok(s.clone()),
                other => err(format!(
                    "{ctx}: `{key}` must be a list of strings, found {other}"
                )),
            })
            .collect(),
        Value::String(s) => Ok(vec![s.clone()]),
        other => err(format!(
            "{ctx}: `{key}` must be a list of strings, found {other}"
        )),
    }
}

fn parse_level(code: &str, s: &str, ctx: &str) -> Result<Level, ConfigError> {
    match s {
        "allow" | "off" => Ok(Level::Allow),
        "warn" | "warning" => Ok(Level::Warning),
        "error" | "deny" => Ok(Level::Error),
        other => err(format!(
            "{ctx}: rules.{code} = \"{other}\" is not a level; valid levels: allow, warn, error"
        )),
    }
}

/// Checks a code or prefix against the catalog; `ALL` selects everything.
fn check_selector(
    sel: &str,
    known: &BTreeSet<String>,
    ctx: &str,
    key: &str,
) -> Result<(), ConfigError> {
    if sel == "ALL" || known.iter().any(|c| c.starts_with(sel)) && !sel.is_empty() {
        return Ok(());
    }
    err(format!(
        "{ctx}: unknown rule code `{sel}` in `{key}`; valid codes (or any prefix of them, or ALL): {}",
        known.iter().cloned().collect::<Vec<_>>().join(", ")
    ))
}

/// A glob over paths relative to a config's directory, with gitignore's anchoring: a pattern
/// with a `/` matches from the config's directory (`src/gen/*.rs`), one without matches a file or
/// directory name at any depth (`generated`, `*_pb.rs`). Matching a directory matches everything
/// below it.
#[derive(Debug, Clone)]
struct PathGlob {
    matcher: GlobMatcher,
    anchored: bool,
}

impl PathGlob {
    fn new(pattern: &str, ctx: &str) -> Result<PathGlob, ConfigError> {
        let p = pattern.trim_start_matches("./");
        let anchored = p.contains('/');
        let p = p.trim_start_matches('/').trim_end_matches('/');
        GlobBuilder::new(p)
            .literal_separator(true)
            .build()
            .map(|g: Glob| PathGlob {
                matcher: g.compile_matcher(),
                anchored,
            })
            .or_else(|e| err(format!("{ctx}: bad glob `{pattern}`: {e}")))
    }

    /// `rel` is `/`-separated and relative to the config's directory.
    fn matches(&self, rel: &str) -> bool {
        let mut end = 0;
        for part in rel.split('/') {
            end += part.len();
            let hit = if self.anchored {
                self.matcher.is_match(&rel[..end])
            } else {
                self.matcher.is_match(part)
            };
            if hit {
                return true;
            }
            end += 1;
        }
        false
    }
}

impl Resolved {
    /// Validates `table` (unknown keys, types, rule codes) and compiles it.
    pub fn from_table(
        table: &Table,
        origin: Origin,
        root: PathBuf,
        known: &BTreeSet<String>,
    ) -> Result<Resolved, ConfigError> {
        let ctx = match &origin.file {
            Some(f) if origin.table.starts_with('[') => format!("{} {}", f.display(), origin.table),
            Some(f) => f.display().to_string(),
            None => "--config".to_string(),
        };
        let mut s = Settings::default();
        for (key, v) in table {
            match key.as_str() {
                "select" => s.select = string_list(key, v, &ctx)?,
                "ignore" => s.ignore = string_list(key, v, &ctx)?,
                "exclude" => s.exclude = string_list(key, v, &ctx)?,
                "target-protocol" => {
                    s.target_protocol_set = true;
                    s.target_protocol = match v {
                        Value::String(p) => p.clone(),
                        Value::Datetime(d) => d.to_string(),
                        other => {
                            return err(format!(
                                "{ctx}: `target-protocol` must be a string, found {other}"
                            ))
                        }
                    }
                }
                "require-suppression-reason" => match v {
                    Value::Boolean(b) => s.require_suppression_reason = *b,
                    other => {
                        return err(format!(
                        "{ctx}: `require-suppression-reason` must be true or false, found {other}"
                    ))
                    }
                },
                "report-test-code" => match v {
                    Value::Boolean(b) => s.report_test_code = *b,
                    other => {
                        return err(format!(
                            "{ctx}: `report-test-code` must be true or false, found {other}"
                        ))
                    }
                },
                "rules" => {
                    let Value::Table(t) = v else {
                        return err(format!(
                            "{ctx}: `rules` must be a table like `[rules] MCP001 = \"warn\"`"
                        ));
                    };
                    for (code, lv) in t {
                        let Value::String(l) = lv else {
                            return err(format!(
                                "{ctx}: rules.{code} must be \"allow\", \"warn\" or \"error\""
                            ));
                        };
                        s.rules.insert(code.clone(), l.clone());
                    }
                }
                "per-file-ignores" => {
                    let Value::Table(t) = v else {
                        return err(format!(
                            "{ctx}: `per-file-ignores` must be a table like {{ \"tests/**\" = [\"MCP001\"] }}"
                        ));
                    };
                    for (g, codes) in t {
                        s.per_file_ignores.insert(
                            g.clone(),
                            string_list(&format!("per-file-ignores.\"{g}\""), codes, &ctx)?,
                        );
                    }
                }
                other => {
                    return err(format!(
                        "{ctx}: unknown key `{other}`; valid keys: {}",
                        KEYS.join(", ")
                    ))
                }
            }
        }
        for sel in &s.select {
            check_selector(sel, known, &ctx, "select")?;
        }
        for sel in &s.ignore {
            check_selector(sel, known, &ctx, "ignore")?;
        }
        let mut levels = BTreeMap::new();
        for (code, l) in &s.rules {
            if !known.contains(code) {
                return err(format!(
                    "{ctx}: unknown rule code `{code}` in `rules`; valid codes: {}",
                    known.iter().cloned().collect::<Vec<_>>().join(", ")
                ));
            }
            levels.insert(code.clone(), parse_level(code, l, &ctx)?);
        }
        let mut per_file = Vec::new();
        for (g, codes) in &s.per_file_ignores {
            for c in codes {
                check_selector(c, known, &ctx, &format!("per-file-ignores.\"{g}\""))?;
            }
            per_file.push((PathGlob::new(g, &ctx)?, codes.clone()));
        }
        if !PROTOCOLS.contains(&s.target_protocol.as_str()) {
            return err(format!(
                "{ctx}: target-protocol \"{}\" is not a known protocol revision; valid: {}",
                s.target_protocol,
                PROTOCOLS.join(", ")
            ));
        }
        let exclude = s
            .exclude
            .iter()
            .map(|g| PathGlob::new(g, &ctx))
            .collect::<Result<_, _>>()?;
        Ok(Resolved {
            settings: s,
            origin,
            root,
            levels,
            exclude,
            per_file,
        })
    }

    /// `path` relative to this config's root, `/`-separated, or None if it lies outside.
    fn relative(&self, abs: &Path) -> Option<String> {
        let rel = abs.strip_prefix(&self.root).ok()?;
        Some(
            rel.components()
                .filter_map(|c| match c {
                    Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join("/"),
        )
    }

    /// Whether any `exclude` glob is set (when none is, callers need not make paths absolute).
    pub fn excludes_anything(&self) -> bool {
        !self.exclude.is_empty()
    }

    /// Whether `abs`, or a directory above it up to the config's directory, matches an `exclude`
    /// glob.
    pub fn is_excluded(&self, abs: &Path) -> bool {
        // Asked for every finding: no path built when there is no glob to match it against.
        if self.exclude.is_empty() {
            return false;
        }
        match self.relative(abs) {
            Some(rel) => self.exclude.iter().any(|g| g.matches(&rel)),
            None => false,
        }
    }

    /// Whether rule `code` reports in `abs` at all.
    pub fn rule_enabled(&self, code: &str, abs: &Path) -> bool {
        let sel = |list: &[String]| {
            list.iter()
                .any(|s| s == "ALL" || code.starts_with(s.as_str()))
        };
        if !sel(&self.settings.select) || sel(&self.settings.ignore) {
            return false;
        }
        if self.levels.get(code) == Some(&Level::Allow) {
            return false;
        }
        if self.per_file.is_empty() {
            return true;
        }
        if let Some(rel) = self.relative(abs) {
            for (g, codes) in &self.per_file {
                if g.matches(&rel) && sel(codes) {
                    return false;
                }
            }
        }
        true
    }

    /// The finding as this config wants it reported, or None if the config silences it.
    /// Readiness findings (MCP3xx) are treated as in a package that does not target 2026-07-28.
    pub fn filter(&self, f: Finding, abs: &Path) -> Option<Finding> {
        self.filter_in(f, abs, || false)
    }

    /// [`Resolved::filter`], with whether the file's package targets 2026-07-28 (asked only for
    /// readiness findings).
    pub fn filter_in(
        &self,
        mut f: Finding,
        abs: &Path,
        package_targets_mrtr: impl FnOnce() -> bool,
    ) -> Option<Finding> {
        if self.is_excluded(abs) || !self.rule_enabled(&f.code, abs) {
            return None;
        }
        if crate::rules::readiness_codes().contains(&f.code.as_str())
            && (!self.readiness_on(&f.code, package_targets_mrtr)
                || (!self.settings.report_test_code && under_a_test_folder(&f.path)))
        {
            return None;
        }
        if f.mcp_method.is_some() && self.settings.target_protocol.as_str() < MRTR_PROTOCOL {
            return None;
        }
        if let Some(l) = self.levels.get(&f.code) {
            f.level = *l;
        }
        Some(f)
    }

    /// Whether a 2026-07-28 readiness rule (MCP3xx) reports here. An explicit `target-protocol`
    /// decides: on for 2026-07-28, off for older revisions. Without one, the rule is on where the
    /// config selects it by code or prefix (not just `ALL`) or gives it a level, and otherwise
    /// where the file's package targets 2026-07-28 by its SDK version (rmcp 3.x, ...): a server
    /// still on rmcp 2.x is told about the three requests first, and opts in to the rest.
    pub fn readiness_on(&self, code: &str, package_targets_mrtr: impl FnOnce() -> bool) -> bool {
        if self.settings.target_protocol_set {
            return self.settings.target_protocol.as_str() >= MRTR_PROTOCOL;
        }
        let selected = self
            .settings
            .select
            .iter()
            .any(|s| s != "ALL" && code.starts_with(s.as_str()));
        let leveled = self.levels.get(code).is_some_and(|l| *l != Level::Allow);
        selected || leveled || package_targets_mrtr()
    }

    /// The effective settings as TOML, headed by where they came from.
    pub fn show(&self, overrides: &[String]) -> String {
        let mut out = String::new();
        match &self.origin.file {
            Some(f) => out.push_str(&format!(
                "# source: {} {}\n",
                f.display(),
                self.origin.table
            )),
            None => out.push_str(
                "# source: built-in defaults (no mcp-lint.toml or Cargo.toml metadata found)\n",
            ),
        }
        out.push_str(&format!("# globs relative to: {}\n", self.root.display()));
        for o in overrides {
            out.push_str(&format!("# override: --config {o}\n"));
        }
        out.push_str(&toml::to_string(&self.settings).expect("settings serialize"));
        out
    }
}

/// Finds and caches the settings for each linted file.
pub struct Resolver {
    cwd: PathBuf,
    known: BTreeSet<String>,
    overrides: Table,
    override_args: Vec<String>,
    explicit: Option<Arc<Resolved>>,
    /// Effective settings per directory of a linted file.
    by_dir: HashMap<PathBuf, Arc<Resolved>>,
    /// The settings a directory defines itself (None: it defines none), so every manifest of a
    /// large tree is read once, not once per directory below it.
    defined_in: HashMap<PathBuf, Option<Arc<Resolved>>>,
    /// The folder of the last file looked up, as the caller spelled it, and its settings.
    last_given_dir: Option<(PathBuf, Arc<Resolved>)>,
    /// Packages of files with readiness findings, read once each: whether they target 2026-07-28.
    packages: crate::model::manifest::Packages,
}

impl Resolver {
    /// `config_args` are the `--config` values: file paths and KEY=VALUE overrides.
    pub fn new(
        cwd: &Path,
        config_args: &[String],
        known: BTreeSet<String>,
    ) -> Result<Resolver, ConfigError> {
        let mut overrides = Table::new();
        let mut file = None;
        let mut override_args = Vec::new();
        for a in config_args {
            if !a.contains('=') && (a.ends_with(".toml") || Path::new(a).is_file()) {
                if file.is_some() {
                    return err("--config FILE given twice");
                }
                file = Some(cwd.join(a));
            } else {
                merge(&mut overrides, &parse_override(a)?);
                override_args.push(a.clone());
            }
        }
        let mut r = Resolver {
            cwd: cwd.to_path_buf(),
            known,
            overrides,
            override_args,
            explicit: None,
            by_dir: HashMap::new(),
            defined_in: HashMap::new(),
            last_given_dir: None,
            packages: crate::model::manifest::Packages::new(),
        };
        if let Some(path) = file {
            let (table, kind) = read_file(&path)?.ok_or_else(|| {
                ConfigError(format!(
                    "{} has no [package.metadata.mcp-lint] or [workspace.metadata.mcp-lint] table",
                    path.display()
                ))
            })?;
            let root = path
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_else(|| cwd.to_path_buf());
            r.explicit = Some(Arc::new(r.build(table, Some(path), kind, root)?));
        }
        // Validate the overrides on their own, so a typo fails even when no file is linted.
        r.build(Table::new(), None, "defaults", cwd.to_path_buf())?;
        Ok(r)
    }

    fn build(
        &self,
        mut table: Table,
        file: Option<PathBuf>,
        kind: &'static str,
        root: PathBuf,
    ) -> Result<Resolved, ConfigError> {
        merge(&mut table, &self.overrides);
        Resolved::from_table(&table, Origin { file, table: kind }, root, &self.known)
    }

    /// Settings for a file or directory given relative to the working directory.
    pub fn for_path(&mut self, path: &Path) -> Result<Arc<Resolved>, ConfigError> {
        if let Some(e) = &self.explicit {
            return Ok(e.clone());
        }
        let abs = normalize(&self.cwd.join(path));
        if abs.is_dir() {
            self.for_dir(abs)
        } else {
            self.for_file(path)
        }
    }

    /// Settings for a path known to be a file (a linted file): no file-system look-up unless its
    /// directory is new, which keeps this cheap for every file of a large tree.
    pub fn for_file(&mut self, path: &Path) -> Result<Arc<Resolved>, ConfigError> {
        if let Some(e) = &self.explicit {
            return Ok(e.clone());
        }
        // Most files share their folder with the previous one: look the folder up as given first.
        let given = path.parent().unwrap_or(Path::new(""));
        if let Some((d, r)) = &self.last_given_dir {
            if d == given {
                return Ok(r.clone());
            }
        }
        let abs = normalize(&self.cwd.join(path));
        let dir = abs.parent().map(Path::to_path_buf).unwrap_or(abs);
        let r = self.for_dir(dir)?;
        self.last_given_dir = Some((given.to_path_buf(), r.clone()));
        Ok(r)
    }

    fn for_dir(&mut self, dir: PathBuf) -> Result<Arc<Resolved>, ConfigError> {
        if let Some(r) = self.by_dir.get(&dir) {
            return Ok(r.clone());
        }
        let mut found = None;
        for d in dir.ancestors() {
            let here = match self.defined_in.get(d) {
                Some(cached) => cached.clone(),
                None => {
                    let r = match config_in(d)? {
                        Some((file, table, kind)) => Some(Arc::new(self.build(
                            table,
                            Some(file),
                            kind,
                            d.to_path_buf(),
                        )?)),
                        None => None,
                    };
                    self.defined_in.insert(d.to_path_buf(), r.clone());
                    r
                }
            };
            if here.is_some() {
                found = here;
                break;
            }
        }
        let r = match found {
            Some(r) => r,
            None => Arc::new(self.build(Table::new(), None, "defaults", self.cwd.clone())?),
        };
        self.by_dir.insert(dir, r.clone());
        Ok(r)
    }

    /// Whether the package of the file at `abs` targets 2026-07-28 by its SDK dependencies
    /// (`model::sdk::readiness::package_targets_mrtr`).
    pub fn package_targets_mrtr(&self, abs: &Path) -> bool {
        self.packages
            .for_file(abs)
            .is_some_and(|p| crate::model::sdk::readiness::package_targets_mrtr(&p))
    }

    /// The package cache the readiness check reads: the lint run can fill it first
    /// (`lint::lint_files_with`), so each package is read once per run.
    pub fn packages(&self) -> &crate::model::manifest::Packages {
        &self.packages
    }

    pub fn override_args(&self) -> &[String] {
        &self.override_args
    }

    pub fn absolute(&self, path: &str) -> PathBuf {
        normalize(&self.cwd.join(path))
    }
}

/// Whether a reported path (as the run shows it) lies under a `tests` or `benches` folder. The
/// readiness rules are quiet there even in a crate of its own: a mock server in a test folder,
/// or a test fixture of a linter, is no server to get ready.
fn under_a_test_folder(path: &str) -> bool {
    let mut parts: Vec<&str> = path.split(['/', '\\']).collect();
    parts.pop();
    parts.iter().any(|p| *p == "tests" || *p == "benches")
}

/// Resolves `.` and `..` without touching the file system.
pub fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known() -> BTreeSet<String> {
        ["MCP001", "MCP002", "MCP101", "MCP901"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    }

    fn finding(code: &str, path: &str) -> Finding {
        Finding {
            code: code.into(),
            name: "n".into(),
            level: Level::Error,
            path: path.into(),
            line: 1,
            column: 1,
            end_line: 1,
            end_column: 2,
            message: "m".into(),
            mcp_method: Some("elicitation/create".into()),
            sdk: None,
            help: None,
            fix: None,
        }
    }

    fn resolved(toml_text: &str) -> Result<Resolved, ConfigError> {
        let t: Table = toml::from_str(toml_text).unwrap();
        Resolved::from_table(
            &t,
            Origin {
                file: Some("/r/mcp-lint.toml".into()),
                table: "mcp-lint.toml",
            },
            "/r".into(),
            &known(),
        )
    }

    #[test]
    fn select_ignore_levels_and_per_file_ignores() {
        let r = resolved(
            "select = [\"MCP0\"]\nignore = [\"MCP002\"]\n[rules]\nMCP001 = \"warn\"\n[per-file-ignores]\n\"tests/**\" = [\"MCP001\"]\n",
        )
        .unwrap();
        let p = |s: &str| PathBuf::from("/r").join(s);
        let f = r
            .filter(finding("MCP001", "src/a.rs"), &p("src/a.rs"))
            .unwrap();
        assert_eq!(f.level, Level::Warning);
        assert!(r
            .filter(finding("MCP002", "src/a.rs"), &p("src/a.rs"))
            .is_none());
        assert!(r
            .filter(finding("MCP101", "src/a.rs"), &p("src/a.rs"))
            .is_none());
        assert!(r
            .filter(finding("MCP001", "tests/x/a.rs"), &p("tests/x/a.rs"))
            .is_none());
    }

    #[test]
    fn exclude_matches_files_and_directories() {
        let r = resolved("exclude = [\"vendor\", \"gen/*.rs\", \"*_pb.rs\", \"/top\"]\n").unwrap();
        let ex = |p: &str| r.is_excluded(&Path::new("/r").join(p));
        assert!(ex("vendor/x/y.rs"));
        assert!(
            ex("src/vendor/y.rs"),
            "a name without `/` matches at any depth"
        );
        assert!(ex("gen/a.rs"));
        assert!(!ex("gen/sub/a.rs"), "`*` stays within one directory");
        assert!(!ex("src/gen/a.rs"), "a pattern with `/` is anchored");
        assert!(!ex("src/vendor.rs"));
        assert!(ex("src/api/user_pb.rs"));
        assert!(ex("top/a.rs"));
        assert!(!ex("src/top/a.rs"), "a leading `/` anchors");
        assert!(
            !r.is_excluded(Path::new("/elsewhere/vendor/a.rs")),
            "outside the config's directory"
        );
    }

    #[test]
    fn older_target_protocol_turns_off_request_findings() {
        let r = resolved("target-protocol = 2025-11-25\n").unwrap();
        assert!(r
            .filter(finding("MCP001", "a.rs"), Path::new("/r/a.rs"))
            .is_none());
        let mut other = finding("MCP101", "a.rs");
        other.mcp_method = None;
        assert!(r.filter(other, Path::new("/r/a.rs")).is_some());
    }

    #[test]
    fn readiness_findings_follow_the_package_the_selection_and_an_explicit_target() {
        let p = Path::new("/r/src/a.rs");
        let mut f = finding("MCP302", "src/a.rs");
        f.mcp_method = None;
        let known: BTreeSet<String> = ["MCP001", "MCP302"].iter().map(|s| s.to_string()).collect();
        let with = |toml_text: &str| {
            let t: Table = toml::from_str(toml_text).unwrap();
            Resolved::from_table(
                &t,
                Origin {
                    file: None,
                    table: "defaults",
                },
                "/r".into(),
                &known,
            )
            .unwrap()
        };
        let defaults = with("");
        assert!(
            defaults.filter_in(f.clone(), p, || true).is_some(),
            "rmcp 3.x"
        );
        assert!(
            defaults.filter_in(f.clone(), p, || false).is_none(),
            "rmcp 2.x"
        );
        assert!(defaults.filter(f.clone(), p).is_none());
        let selected = with("select = [\"MCP0\", \"MCP3\"]\n");
        assert!(selected.filter_in(f.clone(), p, || false).is_some());
        let all = with("select = [\"ALL\"]\n");
        assert!(
            all.filter_in(f.clone(), p, || false).is_none(),
            "ALL is the default"
        );
        let target = with("target-protocol = \"2026-07-28\"\n");
        assert!(target.filter_in(f.clone(), p, || false).is_some());
        let older = with("target-protocol = \"2025-11-25\"\n");
        assert!(older.filter_in(f.clone(), p, || true).is_none());
        let mut in_tests = f.clone();
        in_tests.path = "tests/fixtures/mock/src/lib.rs".into();
        assert!(target.filter_in(in_tests.clone(), p, || true).is_none());
        let report = with("report-test-code = true\ntarget-protocol = \"2026-07-28\"\n");
        assert!(report.filter_in(in_tests, p, || true).is_some());
    }

    #[test]
    fn unknown_keys_codes_and_levels_list_what_is_valid() {
        let e = resolved("selct = [\"MCP001\"]\n").unwrap_err().0;
        assert!(
            e.contains("unknown key `selct`") && e.contains("valid keys: select, ignore"),
            "{e}"
        );
        let e = resolved("select = [\"MCP777\"]\n").unwrap_err().0;
        assert!(
            e.contains("`MCP777`") && e.contains("MCP001, MCP002, MCP101, MCP901"),
            "{e}"
        );
        let e = resolved("[rules]\nMCP001 = \"loud\"\n").unwrap_err().0;
        assert!(e.contains("valid levels: allow, warn, error"), "{e}");
        let e = resolved("target-protocol = \"2024-01-01\"\n")
            .unwrap_err()
            .0;
        assert!(e.contains("2026-07-28"), "{e}");
    }

    #[test]
    fn overrides_parse_values_and_merge_tables() {
        let mut base: Table = toml::from_str("[rules]\nMCP002 = \"warn\"\n").unwrap();
        merge(&mut base, &parse_override("rules.MCP001=error").unwrap());
        merge(&mut base, &parse_override("select=[\"MCP0\"]").unwrap());
        merge(
            &mut base,
            &parse_override("require-suppression-reason = true").unwrap(),
        );
        let r = Resolved::from_table(
            &base,
            Origin {
                file: None,
                table: "defaults",
            },
            "/r".into(),
            &known(),
        )
        .unwrap();
        assert_eq!(r.settings.rules.len(), 2);
        assert_eq!(r.settings.select, vec!["MCP0"]);
        assert!(r.settings.require_suppression_reason);
        assert!(parse_override("select").is_err());
    }

    #[test]
    fn nearest_config_wins_and_manifests_without_tables_are_skipped() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        std::fs::write(
            root.join("Cargo.toml"),
            "[workspace]\nmembers = [\"a\", \"b\"]\n[workspace.metadata.mcp-lint]\nignore = [\"MCP002\"]\n",
        )
        .unwrap();
        std::fs::create_dir_all(root.join("a/src")).unwrap();
        std::fs::create_dir_all(root.join("b/src")).unwrap();
        std::fs::write(root.join("a/Cargo.toml"), "[package]\nname = \"a\"\n").unwrap();
        std::fs::write(
            root.join("b/Cargo.toml"),
            "[package]\nname = \"b\"\n[package.metadata.mcp-lint]\nignore = [\"MCP001\"]\n",
        )
        .unwrap();
        std::fs::write(root.join("b/src/mcp-lint.toml"), "select = [\"MCP101\"]\n").unwrap();
        let mut res = Resolver::new(root, &[], known()).unwrap();
        let a = res.for_path(Path::new("a/src/lib.rs")).unwrap();
        assert_eq!(a.origin.table, "[workspace.metadata.mcp-lint]");
        let b = res.for_path(Path::new("b/lib.rs")).unwrap();
        assert_eq!(b.origin.table, "[package.metadata.mcp-lint]");
        let bs = res.for_path(Path::new("b/src/lib.rs")).unwrap();
        assert_eq!(bs.origin.table, "mcp-lint.toml");
        assert_eq!(bs.settings.ignore, Vec::<String>::new());
        // CLI overrides beat every file.
        let mut res = Resolver::new(root, &["ignore=[]".to_string()], known()).unwrap();
        assert!(res
            .for_path(Path::new("b/lib.rs"))
            .unwrap()
            .settings
            .ignore
            .is_empty());
        // Both tables in one manifest is an error.
        std::fs::write(
            root.join("a/Cargo.toml"),
            "[package]\nname = \"a\"\n[package.metadata.mcp-lint]\n[workspace.metadata.mcp-lint]\n",
        )
        .unwrap();
        let mut res = Resolver::new(root, &[], known()).unwrap();
        assert!(res
            .for_path(Path::new("a/src/lib.rs"))
            .unwrap_err()
            .0
            .contains("keep one"));
    }
}
