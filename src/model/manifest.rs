//! The package a source file belongs to and what its manifest says about MCP SDKs.
//!
//! The rules decide with the SDK and its version in hand: `ctx.elicit(params)` is legacy in neva
//! 0.3 and does not exist in neva 0.5, where `ctx.elicit(key, params)` is already the MRTR API.
//! For each file we find the nearest `Cargo.toml` with a `[package]`, read its dependencies
//! (renamed ones through `package = "..."`, workspace-inherited ones through the workspace root,
//! features, target-specific and dev tables), and the workspace `Cargo.lock` for the version
//! cargo resolved. Without a lock the requirement's lowest admitted version stands in.
//!
//! [`Packages`] caches by directory and by manifest, so a run reads each manifest and each lock
//! once, never once per file. A manifest that does not parse is reported once and the files under
//! it fall back to syntax, as if there were no manifest.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The code evidence of a package's source file, by its absolute, normalized path, when the
/// caller has it already (a run's first pass scans the files it reads, on every thread): what
/// [`written_below`](crate::model::sdk::rmcp_upgrade::written_below) says of its text. `None`:
/// not known, so the file is read and scanned.
pub type KnownEvidence<'a> = &'a dyn Fn(&Path) -> Option<Option<Version>>;

/// `major.minor.patch`; pre-release and build metadata are dropped (`4.0.0-alpha.1` is 4.0.0:
/// what matters here is which API line a version belongs to).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version(pub u64, pub u64, pub u64);

impl Version {
    /// `1`, `1.2`, `1.2.3`, `1.2.3-rc.1+meta`. `None` for anything else.
    pub fn parse(s: &str) -> Option<Version> {
        let core = s.trim().split(['-', '+']).next()?;
        let mut parts = core.split('.');
        let mut num = |required: bool| -> Option<u64> {
            match parts.next() {
                Some(p) => p.parse().ok(),
                None if required => None,
                None => Some(0),
            }
        };
        let v = Version(num(true)?, num(false)?, num(false)?);
        parts.next().is_none().then_some(v)
    }

    /// The lowest version a requirement admits: `"0.3"`, `"^0.3.1"`, `"~2"`, `"=4.0.0-alpha.1"`,
    /// `">=1.2, <2"`. `None` for `*` or a requirement with no lower bound.
    pub fn lowest_admitted(req: &str) -> Option<Version> {
        req.split(',')
            .filter_map(|part| {
                let p = part.trim();
                let p = p
                    .strip_prefix(">=")
                    .or_else(|| p.strip_prefix('^'))
                    .or_else(|| p.strip_prefix('~'))
                    .or_else(|| p.strip_prefix('='))
                    .unwrap_or(p);
                if p.starts_with(['<', '>', '*']) {
                    return None;
                }
                Version::parse(p.trim_end_matches(".*").trim())
            })
            .max()
    }
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.0, self.1, self.2)
    }
}

/// Where a dependency's version came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VersionSource {
    /// Resolved by cargo, read from `Cargo.lock`.
    Lock,
    /// The lowest version the `Cargo.toml` requirement admits (no lock, or the lock lacks it).
    Requirement,
    /// Below what the manifest and lock say: the package's code is written for an older release
    /// (a requirement bumped ahead of the code; see [`code_evidence`]).
    Code,
}

/// One dependency of a package.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dependency {
    /// The name code uses in paths: the `[dependencies]` key with `-` turned into `_`.
    pub name: String,
    /// The crate's real name (`package = "..."` when renamed, else the key).
    pub package: String,
    /// The requirement as written, if any (a path or git dependency may have none).
    pub requirement: Option<String>,
    pub version: Option<Version>,
    pub version_source: Option<VersionSource>,
    /// Features turned on explicitly: the dependency's own `features` and the package's default
    /// features that name it (`default = ["neva/legacy-spec"]`).
    pub features: Vec<String>,
    pub default_features: bool,
    /// Only in `[dev-dependencies]`.
    pub dev_only: bool,
}

impl Dependency {
    pub fn has_feature(&self, feature: &str) -> bool {
        self.features.iter().any(|f| f == feature)
    }

    /// `neva 0.3.4` (resolved) or `neva 0.3` (requirement), for messages.
    pub fn describe(&self) -> String {
        match (&self.version_source, &self.requirement, &self.version) {
            (Some(VersionSource::Lock), _, Some(v)) => format!("{} {v}", self.package),
            (_, Some(req), _) => format!("{} {}", self.package, req.trim_start_matches(['^', '='])),
            (_, None, Some(v)) => format!("{} {v}", self.package),
            _ => self.package.clone(),
        }
    }
}

/// A package: its manifest and dependencies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Package {
    pub manifest: PathBuf,
    pub name: String,
    pub dependencies: Vec<Dependency>,
    /// Names the package gives an SDK in paths other than the crate's own
    /// (`mcp = { package = "rmcp" }`) → index into `SDKS`; worked out once per package.
    pub sdk_aliases: HashMap<String, usize>,
    /// For an SDK's own package: the same package depending on itself, which its examples,
    /// tests and benches do (they `use rmcp::..` without a dependency on it). Its `src/`, the SDK
    /// itself, keeps the plain package: the SDK's own request methods are not legacy calls.
    pub as_sdk_user: Option<Arc<Package>>,
}

impl Package {
    /// The package as the file at `path` (absolute) sees it: for an SDK's own package, a file outside its
    /// `src/` depends on the SDK.
    pub fn seen_from(self: &Arc<Package>, path: &Path) -> Arc<Package> {
        let Some(user) = &self.as_sdk_user else {
            return self.clone();
        };
        match self.manifest.parent().map(|d| d.join("src")) {
            Some(src) if !path.starts_with(&src) => user.clone(),
            _ => self.clone(),
        }
    }

    fn new(manifest: PathBuf, name: String, dependencies: Vec<Dependency>) -> Package {
        let mut package = Package {
            manifest,
            name,
            dependencies,
            sdk_aliases: HashMap::new(),
            as_sdk_user: None,
        };
        for (i, sdk) in crate::model::sdk::SDKS.iter().enumerate() {
            if let Some(dep) = package.dependency_on(sdk.packages) {
                if !sdk.crates.contains(&dep.name.as_str()) {
                    package.sdk_aliases.insert(dep.name.clone(), i);
                }
            }
        }
        package
    }

    /// The dependency on the first of these crates the package has (an SDK's main crate before
    /// its sub-crates), a normal one before a dev-only one.
    pub fn dependency_on(&self, packages: &[&str]) -> Option<&Dependency> {
        packages.iter().find_map(|name| {
            let mut found = self.dependencies.iter().filter(|d| d.package == *name);
            let first = found.next()?;
            if first.dev_only {
                return found.find(|d| !d.dev_only).or(Some(first));
            }
            Some(first)
        })
    }

    /// Reads `manifest` (a `Cargo.toml` with a `[package]`). `Ok(None)` for a virtual manifest.
    pub fn read(manifest: &Path) -> Result<Option<Package>, String> {
        Package::read_cached(manifest, &mut Cache::default(), &|_| None)
    }

    fn read_cached(
        manifest: &Path,
        cache: &mut Cache,
        known: KnownEvidence<'_>,
    ) -> Result<Option<Package>, String> {
        let table = read_toml(manifest)?;
        let Some(pkg) = table.get("package").and_then(|p| p.as_table()) else {
            return Ok(None);
        };
        let name = pkg
            .get("name")
            .and_then(|n| n.as_str())
            .unwrap_or_default()
            .to_string();
        let dir = manifest.parent().unwrap_or(Path::new("."));
        let workspace = find_workspace(dir, pkg)?;
        let inherited = workspace
            .as_ref()
            .and_then(|(_, ws)| {
                ws.get("workspace")?
                    .get("dependencies")?
                    .as_table()
                    .cloned()
            })
            .unwrap_or_default();
        let mut deps = Vec::new();
        let mut tables: Vec<(&toml::Table, bool)> = Vec::new();
        for (key, dev) in [
            ("dependencies", false),
            ("build-dependencies", false),
            ("dev-dependencies", true),
        ] {
            if let Some(t) = table.get(key).and_then(|t| t.as_table()) {
                tables.push((t, dev));
            }
        }
        if let Some(targets) = table.get("target").and_then(|t| t.as_table()) {
            for cfg in targets.values().filter_map(|c| c.as_table()) {
                for (key, dev) in [("dependencies", false), ("dev-dependencies", true)] {
                    if let Some(t) = cfg.get(key).and_then(|t| t.as_table()) {
                        tables.push((t, dev));
                    }
                }
            }
        }
        for (t, dev) in tables {
            for (key, spec) in t {
                deps.push(dependency(key, spec, &inherited, dev));
            }
        }
        apply_default_features(&table, &mut deps);
        let lock_dir = workspace.as_ref().map_or(dir, |(root, _)| root.as_path());
        let lock = lock_dir.join("Cargo.lock");
        if let Some(lock) = cache.lockfile(&lock) {
            for d in &mut deps {
                if let Some(v) = lock.resolve(&name, &d.package, d.version) {
                    d.version = Some(v);
                    d.version_source = Some(VersionSource::Lock);
                }
            }
        }
        code_evidence(dir, &name, &mut deps, known);
        let mut package = Package::new(manifest.to_path_buf(), name.clone(), deps);
        let own_sdk = crate::model::sdk::SDKS
            .iter()
            .any(|s| s.packages.contains(&name.as_str()));
        if own_sdk && package.dependency_on(&[name.as_str()]).is_none() {
            let mut user = package.clone();
            let features = table
                .get("features")
                .and_then(|f| f.as_table())
                .map(|f| f.keys().cloned().collect())
                .unwrap_or_default();
            user.dependencies.push(Dependency {
                name: name.replace('-', "_"),
                package: name.clone(),
                requirement: None,
                version: pkg
                    .get("version")
                    .and_then(|v| v.as_str())
                    .and_then(Version::parse),
                version_source: Some(VersionSource::Requirement),
                // Examples and tests turn on the features they need (`required-features`).
                features,
                default_features: true,
                dev_only: false,
            });
            package.as_sdk_user = Some(Arc::new(user));
        }
        Ok(Some(package))
    }
}

/// A package whose manifest (and lock) put rmcp at or above a release its code cannot build on:
/// its rmcp dependencies are taken to be just below the lowest such release, so the upgrade rules
/// and the prefilter treat the code as what it is. A manifest bumped by hand, Dependabot or
/// Renovate, with the code left as it was, is the usual way a server meets the upgrade; the
/// manifest alone would switch the upgrade off exactly there. rmcp's own package is left alone.
fn code_evidence(dir: &Path, name: &str, deps: &mut [Dependency], known: KnownEvidence<'_>) {
    use crate::model::sdk::rmcp_upgrade::just_below;
    let rmcp = crate::model::sdk::rmcp::RMCP.packages;
    if rmcp.contains(&name) {
        return;
    }
    // Only a version the evidence could lower is worth the scan.
    let Some(highest) = deps
        .iter()
        .filter(|d| rmcp.contains(&d.package.as_str()))
        .filter_map(|d| d.version)
        .max()
    else {
        return;
    };
    let Some(below) = package_sources_written_below(dir, highest, known) else {
        return;
    };
    for d in deps
        .iter_mut()
        .filter(|d| rmcp.contains(&d.package.as_str()))
    {
        if d.version.is_some_and(|v| v >= below) {
            d.version = Some(just_below(below));
            d.version_source = Some(VersionSource::Code);
        }
    }
}

/// [`written_below`](crate::model::sdk::rmcp_upgrade::written_below) over the package's `.rs`
/// files (the folder of its manifest, without `target/`, hidden folders and nested packages),
/// when that is at or below `version`. Bounded: at most 20,000 files and 256 MiB are read, so a
/// huge tree costs a bounded scan (a file past the bound is no evidence). A file whose evidence
/// is `known` is not read again.
fn package_sources_written_below(
    dir: &Path,
    version: Version,
    known: KnownEvidence<'_>,
) -> Option<Version> {
    const MAX_FILES: usize = 20_000;
    const MAX_BYTES: u64 = 256 << 20;
    let (mut files, mut bytes) = (0usize, 0u64);
    let mut lowest: Option<Version> = None;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            let Ok(kind) = e.file_type() else { continue };
            let file_name = e.file_name();
            let hidden = file_name.to_string_lossy().starts_with('.');
            if kind.is_dir() {
                if !hidden && file_name != "target" && !path.join("Cargo.toml").is_file() {
                    stack.push(path);
                }
                continue;
            }
            if !kind.is_file() || path.extension().is_none_or(|x| x != "rs") {
                continue;
            }
            files += 1;
            if files > MAX_FILES {
                return lowest.filter(|l| *l <= version);
            }
            // Only the files read here count toward the bytes bound: a known one costs nothing.
            let evidence = match known(&crate::model::item_index::normalize(&path)) {
                Some(evidence) => evidence,
                None => {
                    bytes += e.metadata().map_or(0, |m| m.len());
                    if bytes > MAX_BYTES {
                        return lowest.filter(|l| *l <= version);
                    }
                    match std::fs::read(&path) {
                        Ok(text) => crate::model::sdk::rmcp_upgrade::written_below(&text),
                        Err(_) => continue,
                    }
                }
            };
            if let Some(v) = evidence {
                lowest = Some(lowest.map_or(v, |l| l.min(v)));
            }
        }
    }
    lowest.filter(|l| *l <= version)
}

fn read_toml(path: &Path) -> Result<toml::Table, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read: {e}"))?;
    let text = String::from_utf8(bytes).map_err(|_| "not UTF-8 text, so not TOML".to_string())?;
    text.parse::<toml::Table>()
        .map_err(|e| format!("invalid TOML: {}", e.to_string().trim()))
}

fn dependency(
    key: &str,
    spec: &toml::Value,
    inherited: &toml::Table,
    dev_only: bool,
) -> Dependency {
    let mut d = Dependency {
        name: key.replace('-', "_"),
        package: key.to_string(),
        requirement: None,
        version: None,
        version_source: None,
        features: Vec::new(),
        default_features: true,
        dev_only,
    };
    let read_spec = |spec: &toml::Value, d: &mut Dependency| match spec {
        toml::Value::String(req) => d.requirement = Some(req.clone()),
        toml::Value::Table(t) => {
            if let Some(req) = t.get("version").and_then(|v| v.as_str()) {
                d.requirement = Some(req.to_string());
            }
            if let Some(p) = t.get("package").and_then(|v| v.as_str()) {
                d.package = p.to_string();
            }
            if let Some(fs) = t.get("features").and_then(|v| v.as_array()) {
                d.features
                    .extend(fs.iter().filter_map(|f| f.as_str()).map(str::to_string));
            }
            let default = t
                .get("default-features")
                .or_else(|| t.get("default_features"));
            if let Some(false) = default.and_then(|v| v.as_bool()) {
                d.default_features = false;
            }
        }
        _ => {}
    };
    // `foo = { workspace = true, features = [..] }`: the workspace entry, plus local features.
    if spec.get("workspace").and_then(|w| w.as_bool()) == Some(true) {
        if let Some(ws) = inherited.get(key) {
            read_spec(ws, &mut d);
        }
    }
    read_spec(spec, &mut d);
    d.version = d.requirement.as_deref().and_then(Version::lowest_admitted);
    d.version_source = d.version.map(|_| VersionSource::Requirement);
    d
}

/// `default = ["neva/legacy-spec", "extra"]` with `extra = ["dep:neva", "neva?/x"]`: features of
/// dependencies that are on unless the build turns default features off.
fn apply_default_features(table: &toml::Table, deps: &mut [Dependency]) {
    let Some(features) = table.get("features").and_then(|f| f.as_table()) else {
        return;
    };
    let mut queue: Vec<String> = vec!["default".into()];
    let mut seen: Vec<String> = Vec::new();
    while let Some(f) = queue.pop() {
        if seen.contains(&f) {
            continue;
        }
        seen.push(f.clone());
        let Some(list) = features.get(&f).and_then(|l| l.as_array()) else {
            continue;
        };
        for item in list.iter().filter_map(|i| i.as_str()) {
            match item.split_once('/') {
                Some((dep, feat)) => {
                    let dep = dep.trim_end_matches('?');
                    for d in deps
                        .iter_mut()
                        .filter(|d| d.package == dep || d.name == dep.replace('-', "_"))
                    {
                        if !d.has_feature(feat) {
                            d.features.push(feat.to_string());
                        }
                    }
                }
                None if !item.starts_with("dep:") => queue.push(item.to_string()),
                None => {}
            }
        }
    }
}

/// The workspace root that has this package as a member, with its manifest: `package.workspace`
/// when given, else the nearest ancestor with `[workspace]` whose `members` match the package
/// (and `exclude` does not). A package outside every workspace is its own root.
fn find_workspace(dir: &Path, pkg: &toml::Table) -> Result<Option<(PathBuf, toml::Table)>, String> {
    if let Some(p) = pkg.get("workspace").and_then(|w| w.as_str()) {
        let root = dir.join(p);
        let t = read_toml(&root.join("Cargo.toml"))?;
        return Ok(Some((root, t)));
    }
    for anc in dir.ancestors() {
        let manifest = anc.join("Cargo.toml");
        if !manifest.is_file() {
            continue;
        }
        // A broken ancestor manifest is someone else's problem: this package just has no
        // workspace to inherit from.
        let Ok(t) = read_toml(&manifest) else {
            continue;
        };
        let Some(ws) = t.get("workspace").and_then(|w| w.as_table()) else {
            continue;
        };
        if anc == dir || is_member(anc, dir, ws) {
            return Ok(Some((anc.to_path_buf(), t)));
        }
        // The nearest `[workspace]` decides: a package it does not list belongs to no workspace.
        return Ok(None);
    }
    Ok(None)
}

fn is_member(root: &Path, dir: &Path, ws: &toml::Table) -> bool {
    let Ok(rel) = dir.strip_prefix(root) else {
        return false;
    };
    let rel = rel.to_string_lossy().replace('\\', "/");
    let matches = |key: &str| {
        ws.get(key).and_then(|m| m.as_array()).is_some_and(|list| {
            list.iter().filter_map(|m| m.as_str()).any(|pat| {
                let pat = pat.trim_start_matches("./").trim_end_matches('/');
                globset::Glob::new(pat)
                    .map(|g| g.compile_matcher().is_match(&rel))
                    .unwrap_or(pat == rel)
            })
        })
    };
    matches("members") && !matches("exclude")
}

/// The parts of `Cargo.lock` we read.
#[derive(Debug, Default)]
struct Lockfile {
    packages: Vec<LockedPackage>,
}

#[derive(Debug)]
struct LockedPackage {
    name: String,
    version: Option<Version>,
    /// `name`, `name version` or `name version (source)`, as cargo writes them.
    dependencies: Vec<String>,
    /// Workspace members have no source.
    local: bool,
}

impl Lockfile {
    fn read(path: &Path) -> Result<Lockfile, String> {
        let t = read_toml(path)?;
        let packages = t
            .get("package")
            .and_then(|p| p.as_array())
            .map(|list| {
                list.iter()
                    .filter_map(|p| p.as_table())
                    .map(|p| LockedPackage {
                        name: p
                            .get("name")
                            .and_then(|n| n.as_str())
                            .unwrap_or_default()
                            .to_string(),
                        version: p
                            .get("version")
                            .and_then(|v| v.as_str())
                            .and_then(Version::parse),
                        dependencies: p
                            .get("dependencies")
                            .and_then(|d| d.as_array())
                            .map(|d| {
                                d.iter()
                                    .filter_map(|s| s.as_str())
                                    .map(str::to_string)
                                    .collect()
                            })
                            .unwrap_or_default(),
                        local: p.get("source").is_none(),
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(Lockfile { packages })
    }

    /// The version of `dep` that `member` was resolved against. When the lock does not list the
    /// member (not this lock's workspace), `None`: a foreign lock must not decide.
    fn resolve(&self, member: &str, dep: &str, wanted: Option<Version>) -> Option<Version> {
        let me = self.packages.iter().find(|p| p.local && p.name == member)?;
        let entry = me
            .dependencies
            .iter()
            .find(|d| d.split(' ').next() == Some(dep))?;
        if let Some(v) = entry.split(' ').nth(1).and_then(Version::parse) {
            return Some(v);
        }
        // A bare name: the lock has exactly one version of it, or pick the one the requirement
        // admits (same major, or same minor below 1.0).
        let all: Vec<Version> = self
            .packages
            .iter()
            .filter(|p| p.name == dep)
            .filter_map(|p| p.version)
            .collect();
        match (all.as_slice(), wanted) {
            ([one], _) => Some(*one),
            (_, Some(w)) => all.iter().copied().filter(|v| compatible(w, *v)).max(),
            _ => None,
        }
    }
}

/// A manifest whose text defines a package and names no SDK package, in either spelling, cannot
/// depend on one. Dependencies inherited from a workspace may be renamed there, so a manifest that
/// inherits any is not judged by its text.
fn manifest_text_names_no_sdk(text: &str) -> bool {
    let defines_a_package = text.lines().any(|l| l.trim() == "[package]");
    let inherits = text.contains("workspace = true")
        || text.contains("workspace=true")
        || text.contains(".workspace");
    defines_a_package
        && !inherits
        && crate::model::sdk::SDKS
            .iter()
            .flat_map(|s| s.packages)
            .all(|name| !text.contains(name) && !text.contains(name.replace('-', "_").as_str()))
}

fn compatible(req: Version, v: Version) -> bool {
    v >= req
        && if req.0 > 0 {
            v.0 == req.0
        } else {
            v.0 == 0 && v.1 == req.1
        }
}

/// What one run has read: packages by directory, locks by path, and what failed to parse.
#[derive(Default)]
struct Cache {
    by_dir: HashMap<PathBuf, Option<Arc<Package>>>,
    /// The nearest `Cargo.toml` above a folder, if any.
    manifest_of: HashMap<PathBuf, Option<PathBuf>>,
    /// Per manifest: whether its text alone shows a package without an SDK dependency.
    sdk_free: HashMap<PathBuf, bool>,
    locks: HashMap<PathBuf, Option<Arc<Lockfile>>>,
    errors: Vec<(PathBuf, String)>,
}

impl Cache {
    /// The lock at `path`, read once; a lock that does not parse is reported and ignored (the
    /// requirements in `Cargo.toml` still stand).
    fn lockfile(&mut self, path: &Path) -> Option<Arc<Lockfile>> {
        if let Some(hit) = self.locks.get(path) {
            return hit.clone();
        }
        let lock = if path.is_file() {
            match Lockfile::read(path) {
                Ok(l) => Some(Arc::new(l)),
                Err(e) => {
                    self.errors.push((path.to_path_buf(), e));
                    None
                }
            }
        } else {
            None
        };
        self.locks.insert(path.to_path_buf(), lock.clone());
        lock
    }

    fn nearest_manifest(&mut self, dir: &Path) -> Option<PathBuf> {
        if let Some(hit) = self.manifest_of.get(dir) {
            return hit.clone();
        }
        let manifest = dir.join("Cargo.toml");
        let found = if manifest.is_file() {
            Some(manifest)
        } else {
            dir.parent()
                .and_then(|parent| self.nearest_manifest(parent))
        };
        self.manifest_of.insert(dir.to_path_buf(), found.clone());
        found
    }

    fn certainly_without_an_sdk(&mut self, dir: &Path) -> bool {
        let Some(manifest) = self.nearest_manifest(dir) else {
            return false;
        };
        if let Some(hit) = self.sdk_free.get(&manifest) {
            return *hit;
        }
        let verdict =
            std::fs::read_to_string(&manifest).is_ok_and(|text| manifest_text_names_no_sdk(&text));
        self.sdk_free.insert(manifest, verdict);
        verdict
    }

    fn for_dir(&mut self, dir: &Path, known: KnownEvidence<'_>) -> Option<Arc<Package>> {
        if let Some(hit) = self.by_dir.get(dir) {
            return hit.clone();
        }
        let manifest = dir.join("Cargo.toml");
        let found = if manifest.is_file() {
            match Package::read_cached(&manifest, self, known) {
                Ok(Some(p)) => Some(Arc::new(p)),
                // A virtual manifest: the folder belongs to a workspace, not to a package.
                Ok(None) => None,
                Err(e) => {
                    self.errors.push((manifest, e));
                    None
                }
            }
        } else {
            dir.parent().and_then(|parent| self.for_dir(parent, known))
        };
        self.by_dir.insert(dir.to_path_buf(), found.clone());
        found
    }
}

/// The per-run cache, shared by the worker threads. Lookups hold one lock for the whole walk up
/// the folders, so each manifest and each lock is parsed once per run; after the first file of a
/// folder, a lookup is one hash probe.
#[derive(Default)]
pub struct Packages {
    cache: Mutex<Cache>,
    /// The working directory, read once: `std::path::absolute` reads it for every relative
    /// path, a system call per file looked up.
    cwd: std::sync::OnceLock<Option<PathBuf>>,
}

impl Packages {
    pub fn new() -> Packages {
        Packages::default()
    }

    /// The package of the file at `path`, or `None` when no `Cargo.toml` with a `[package]`
    /// encloses it (or it does not parse: see [`Packages::errors`]).
    pub fn for_file(&self, path: &Path) -> Option<Arc<Package>> {
        self.for_file_with(path, &|_| None)
    }

    /// [`Packages::for_file`], taking the code evidence of the package's sources from `known`
    /// where it has it (a run's first pass scanned most of them) before reading the disk.
    pub fn for_file_with(&self, path: &Path, known: KnownEvidence<'_>) -> Option<Arc<Package>> {
        let abs = self.absolute(path)?;
        let dir = abs.parent()?;
        let package = self
            .cache
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .for_dir(dir, known)?;
        Some(package.seen_from(&abs))
    }

    /// Whether the package of the file at `path` certainly has no MCP SDK among its dependencies,
    /// judged from the text of its manifest without parsing it (large manifests such as
    /// `windows-sys`'s cost more to parse than the file costs to scan). `false` when unsure.
    pub fn certainly_without_an_sdk(&self, path: &Path) -> bool {
        let Some(dir) = self
            .absolute(path)
            .and_then(|p| p.parent().map(Path::to_path_buf))
        else {
            return false;
        };
        self.cache
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .certainly_without_an_sdk(&dir)
    }

    /// `path` made absolute as `std::path::absolute` makes it (its `.` components dropped, its
    /// `..` kept), from the working directory as it was at the first look-up.
    fn absolute(&self, path: &Path) -> Option<PathBuf> {
        if path.is_absolute() {
            return std::path::absolute(path).ok();
        }
        let cwd = self
            .cwd
            .get_or_init(|| std::env::current_dir().ok())
            .as_ref()?;
        let mut abs = cwd.clone();
        abs.extend(
            path.components()
                .filter(|c| *c != std::path::Component::CurDir),
        );
        Some(abs)
    }

    /// Manifests and locks that could not be read, each once, in a stable order.
    pub fn errors(&self) -> Vec<(PathBuf, String)> {
        let mut e = self
            .cache
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .errors
            .clone();
        e.sort();
        e.dedup();
        e
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_are_made_absolute_as_the_standard_library_makes_them() {
        let packages = Packages::new();
        for p in [
            "a/b.rs",
            "./a/./b.rs",
            "a//b.rs",
            "../x/y.rs",
            "a/../b/c.rs",
            ".",
            "/abs/./p.rs",
        ] {
            let p = Path::new(p);
            assert_eq!(
                packages.absolute(p),
                std::path::absolute(p).ok(),
                "{}",
                p.display()
            );
        }
    }

    #[test]
    fn versions_and_requirements() {
        assert_eq!(Version::parse("4.0.0-alpha.1"), Some(Version(4, 0, 0)));
        assert_eq!(Version::parse("0.5"), Some(Version(0, 5, 0)));
        assert_eq!(Version::parse("x"), None);
        assert_eq!(Version::parse("1.2.3.4"), None);
        assert_eq!(Version::lowest_admitted("^0.3.1"), Some(Version(0, 3, 1)));
        assert_eq!(
            Version::lowest_admitted(">=1.2, <2"),
            Some(Version(1, 2, 0))
        );
        assert_eq!(
            Version::lowest_admitted("=4.0.0-alpha.1"),
            Some(Version(4, 0, 0))
        );
        assert_eq!(Version::lowest_admitted("~2"), Some(Version(2, 0, 0)));
        assert_eq!(Version::lowest_admitted("*"), None);
        assert_eq!(Version::lowest_admitted("<2"), None);
        assert!(compatible(Version(0, 3, 0), Version(0, 3, 4)));
        assert!(!compatible(Version(0, 3, 0), Version(0, 5, 4)));
        assert!(compatible(Version(2, 1, 0), Version(2, 3, 7)));
    }

    #[test]
    fn code_written_for_an_older_rmcp_lowers_a_bumped_requirement() {
        let dir = tempfile::tempdir().unwrap();
        let write = |rel: &str, text: &str| {
            let p = dir.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        write(
            "Cargo.toml",
            "[package]\nname = \"s\"\nversion = \"0.1.0\"\n\n[dependencies]\nrmcp = \"3.11\"\n",
        );
        write("src/lib.rs", "pub mod tools;\n");
        // A nested package and `target/` are not this package's code.
        write(
            "nested/Cargo.toml",
            "[package]\nname = \"n\"\nversion = \"0.1.0\"\n",
        );
        write(
            "nested/src/lib.rs",
            "fn f() -> CallToolResult { CallToolResult { content } }\n",
        );
        write(
            "target/debug/build/x.rs",
            "use rmcp::model::PromptMessageRole;\n",
        );
        let rmcp = |p: &Package| p.dependency_on(&["rmcp"]).cloned().unwrap();
        let p = Package::read(&dir.path().join("Cargo.toml"))
            .unwrap()
            .unwrap();
        assert_eq!(rmcp(&p).version, Some(Version(3, 11, 0)));
        assert_eq!(rmcp(&p).version_source, Some(VersionSource::Requirement));
        write(
            "src/tools.rs",
            "pub fn n(p: &rmcp::model::CallToolRequestParam) {}\n",
        );
        let p = Package::read(&dir.path().join("Cargo.toml"))
            .unwrap()
            .unwrap();
        let d = rmcp(&p);
        assert!(d
            .version
            .is_some_and(|v| v < Version(3, 0, 0) && v > Version(2, 2, 0)));
        assert_eq!(d.version_source, Some(VersionSource::Code));
        // Messages show the requirement, not the stand-in version.
        assert_eq!(d.describe(), "rmcp 3.11");
        // A requirement already below the evidence keeps its own version.
        write(
            "Cargo.toml",
            "[package]\nname = \"s\"\nversion = \"0.1.0\"\n\n[dependencies]\nrmcp = \"2.2\"\n",
        );
        let p = Package::read(&dir.path().join("Cargo.toml"))
            .unwrap()
            .unwrap();
        assert_eq!(rmcp(&p).version, Some(Version(2, 2, 0)));
    }

    #[test]
    fn evidence_the_first_pass_has_is_taken_and_the_rest_read() {
        let dir = tempfile::tempdir().unwrap();
        let root = crate::model::item_index::normalize(&std::path::absolute(dir.path()).unwrap());
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(
            root.join("Cargo.toml"),
            "[package]\nname = \"s\"\nversion = \"0.1.0\"\n\n[dependencies]\nrmcp = \"3.11\"\n",
        )
        .unwrap();
        std::fs::write(root.join("src/lib.rs"), "pub mod tools;\n").unwrap();
        let tools = root.join("src/tools.rs");
        std::fs::write(
            &tools,
            "pub fn n(p: &rmcp::model::CallToolRequestParam) {}\n",
        )
        .unwrap();
        let version = |known: KnownEvidence<'_>| {
            Packages::new()
                .for_file_with(&root.join("src/lib.rs"), known)
                .and_then(|p| p.dependency_on(&["rmcp"]).and_then(|d| d.version))
                .unwrap()
        };
        // What the caller scanned stands for the file's text: here it saw nothing old in it.
        let scanned_clean = |p: &Path| (p == tools).then_some(None);
        assert_eq!(version(&scanned_clean), Version(3, 11, 0));
        // A file it did not scan is read from the disk, as is every file without the caller.
        let scanned_lib = |p: &Path| (p == root.join("src/lib.rs")).then_some(None);
        assert!(version(&scanned_lib) < Version(3, 0, 0));
        assert!(version(&|_| None) < Version(3, 0, 0));
    }
}
