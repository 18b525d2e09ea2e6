//! What a lint of one buffer needs, kept between runs: the settings, the configuration resolver
//! and the package cache. A buffer goes through the command line's own pipeline
//! ([`crate::fix_driver::relint`]: engine, then configuration, suppressions and baseline), with
//! the package (manifest and lock file, so the SDK versions) of the file on disk it stands for.

use std::path::{Path, PathBuf};

use crate::finding::Finding;
use crate::fix::Allowed;
use crate::fix_driver::{fix_text, relint};
use crate::gate;
use crate::gate::config::Resolver;
use crate::lint::Settings;
use crate::model::manifest::Packages;

/// The command-line options the server takes, applied as a lint run applies them.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// `--config FILE|KEY=VALUE`, as for a lint run.
    pub config: Vec<String>,
    /// `--baseline FILE`: the findings it records are not shown.
    pub baseline: Option<PathBuf>,
}

pub struct Workspace {
    settings: Settings,
    options: Options,
    resolver: Resolver,
    packages: Packages,
    /// Bumped by [`Workspace::reload`], so results of an older configuration count as stale.
    pub generation: u64,
}

impl Workspace {
    /// `root` plays the part of the directory a lint run starts in: relative `--config` and
    /// `--baseline` paths and the paths of findings are relative to it.
    pub fn new(root: &Path, options: Options) -> Result<Workspace, String> {
        let settings = Settings {
            base_dir: root.to_path_buf(),
            ..Settings::default()
        };
        let resolver =
            Resolver::new(root, &options.config, gate::known_codes()).map_err(|e| e.0)?;
        Ok(Workspace {
            settings,
            options,
            resolver,
            packages: Packages::new(),
            generation: 0,
        })
    }

    /// Forgets every configuration and manifest read so far (one of them was saved).
    pub fn reload(&mut self) -> Result<(), String> {
        self.resolver = Resolver::new(
            &self.settings.base_dir,
            &self.options.config,
            gate::known_codes(),
        )
        .map_err(|e| e.0)?;
        self.packages = Packages::new();
        self.generation += 1;
        Ok(())
    }

    pub fn root(&self) -> &Path {
        &self.settings.base_dir
    }

    /// The findings of `text` as the contents of the file at `path` (absolute), fixes attached.
    pub fn lint(&mut self, path: &Path, text: &str) -> Result<Vec<Finding>, String> {
        let display = crate::reading::source::display_path(path, &self.settings.base_dir);
        let package = self.packages.for_file(path);
        let baseline = self.baseline();
        relint(
            &display,
            text,
            package,
            &self.settings,
            &mut self.resolver,
            baseline.as_deref(),
        )
    }

    /// `text` with every safe fix applied, pass after pass, as `--fix` would leave the file;
    /// `None` when nothing changes or a pass would break the syntax.
    pub fn fix_all(&mut self, path: &Path, text: &str, findings: Vec<Finding>) -> Option<String> {
        let display = crate::reading::source::display_path(path, &self.settings.base_dir);
        let allowed = Allowed {
            unsafe_fixes: false,
        };
        let mut again = |t: &str| self.lint(path, t).unwrap_or_default();
        let done = fix_text(&display, text, findings, allowed, &mut again, false);
        (done.error.is_none() && done.text != text).then_some(done.text)
    }

    /// The `Cargo.toml` edit an unsafe fix of the file at `path` needs: `mrtr` added when the
    /// fixed text starts using the runtime and the package does not declare it (as `--fix`
    /// writes it, in the same set). `(manifest, its text, its new text)`.
    pub fn runtime_manifest(
        &mut self,
        path: &Path,
        original: &str,
        fixed: &str,
    ) -> Option<(PathBuf, String, String)> {
        let manifest = self.packages.for_file(path)?.manifest.clone();
        let (old, new) =
            crate::fix::runtime_dependency::manifest_with_runtime(&manifest, original, fixed, None)
                .ok()??;
        Some((manifest, old, new))
    }

    /// The pass across files for `finding` of the file at `path` (a helper whose callers sit in
    /// other files, a stored peer whose handlers do): the package's files as the editor holds them
    /// (`open`, by the path findings show) or as on disk, planned together, as `--fix` does.
    pub fn fix_across(
        &mut self,
        path: &Path,
        finding: &Finding,
        open: &dyn Fn(&str) -> Option<String>,
    ) -> Option<crate::fix_driver::AcrossSet> {
        let package = self.packages.for_file(path)?;
        let dependents = crate::fix_driver::Workspaces::default().dependents(
            &package.manifest,
            &package.name,
            &self.packages,
        );
        let planned = crate::fix_driver::plan_package_across(
            &package.manifest,
            &dependents,
            &self.settings.base_dir,
            std::slice::from_ref(finding),
            open,
            None,
            // The compiled rewrite across files; the deferred form is the file's own action,
            // but for an exchange written in another fn, which only the package's files prove.
            crate::fix::Tiers {
                deferred: crate::fix::jsonrpc::exchange::wanted(finding).is_some(),
            },
        )
        .ok()??;
        let fixes_it = planned
            .fixed
            .iter()
            .any(|(f, _)| f.line == finding.line && f.column == finding.column);
        fixes_it.then_some(planned)
    }

    fn baseline(&self) -> Option<PathBuf> {
        self.options
            .baseline
            .as_ref()
            .map(|b| self.settings.base_dir.join(b))
    }
}

/// Whether saving this file can change what other files report: a configuration, a manifest
/// or a lock file.
pub fn changes_settings(path: &Path) -> bool {
    matches!(
        path.file_name().and_then(|n| n.to_str()),
        Some(crate::gate::config::CONFIG_FILE | "Cargo.toml" | "Cargo.lock")
    )
}
