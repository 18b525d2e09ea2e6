//! Which files to lint: the given files as they are, and every `.rs` file under the given folders
//! except `target/` and what `.gitignore` (and `.ignore`) files exclude.

use std::path::{Path, PathBuf};

use crate::finding::FileError;

/// Files to lint, in a stable order, and the paths that could not be walked.
pub fn discover(paths: &[PathBuf], base: &Path) -> (Vec<PathBuf>, Vec<FileError>) {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for p in paths {
        match std::fs::metadata(p) {
            Ok(m) if m.is_file() => files.push(p.clone()),
            Ok(_) => walk(p, base, &mut files, &mut errors),
            Err(e) => errors.push(FileError {
                path: crate::source::display_path(p, base),
                message: format!("cannot read: {e}"),
            }),
        }
    }
    files.sort();
    files.dedup();
    (files, errors)
}

fn walk(dir: &Path, base: &Path, files: &mut Vec<PathBuf>, errors: &mut Vec<FileError>) {
    let walker = ignore::WalkBuilder::new(dir)
        .hidden(true)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(false)
        .require_git(false)
        .filter_entry(|e| !(e.file_type().is_some_and(|t| t.is_dir()) && e.file_name() == "target"))
        .build();
    for entry in walker {
        match entry {
            Ok(e) => {
                if e.file_type().is_some_and(|t| t.is_file())
                    && e.path().extension().is_some_and(|x| x == "rs")
                {
                    files.push(e.into_path());
                }
            }
            Err(e) => errors.push(FileError {
                path: crate::source::display_path(dir, base),
                message: format!("cannot walk: {e}"),
            }),
        }
    }
}

/// The directory `cargo mcp-lint` lints when given no paths: the workspace root above `start`
/// (the outermost `Cargo.toml` with a `[workspace]` table that is an ancestor), else the nearest
/// package, else `start` itself.
pub fn default_root(start: &Path) -> PathBuf {
    let mut nearest: Option<PathBuf> = None;
    let mut workspace: Option<PathBuf> = None;
    for dir in start.ancestors() {
        let manifest = dir.join("Cargo.toml");
        let Ok(text) = std::fs::read_to_string(&manifest) else { continue };
        if nearest.is_none() {
            nearest = Some(dir.to_path_buf());
        }
        if text.lines().any(|l| l.trim() == "[workspace]") {
            workspace = Some(dir.to_path_buf());
        }
    }
    workspace.or(nearest).unwrap_or_else(|| start.to_path_buf())
}
