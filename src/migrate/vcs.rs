//! The tree `migrate` changes: refused when git holds uncommitted changes in it (as `cargo fix`
//! refuses), so that the migration is one reviewable diff that `git checkout` can undo; and a
//! snapshot of its sources and manifests, to tell which files the run changed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// `Ok` when `root` lies in a git work tree with no uncommitted change (untracked files count,
/// ignored ones do not); `Err` says what is dirty, or that there is no git tree, and how to go
/// ahead anyway.
pub fn check_clean(root: &Path) -> Result<(), String> {
    let dir = if root.is_dir() {
        root
    } else {
        root.parent().unwrap_or(root)
    };
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["status", "--porcelain", "--untracked-files=all"])
        .output();
    let out = match out {
        Ok(o) if o.status.success() => o,
        Ok(_) => {
            return Err(format!(
                "{} is not in a git repository: the migration would leave no diff to review or \
undo; commit it to git first, or pass --allow-dirty",
                dir.display()
            ))
        }
        Err(e) => {
            return Err(format!(
                "cannot run git to see whether the tree has uncommitted changes ({e}); pass \
--allow-dirty to migrate anyway"
            ))
        }
    };
    let dirty: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.len() > 3)
        .map(|l| l[3..].to_string())
        .collect();
    if dirty.is_empty() {
        return Ok(());
    }
    let shown: Vec<&str> = dirty.iter().take(10).map(String::as_str).collect();
    Err(format!(
        "the working tree has uncommitted changes, and the migration would mix its edits with \
them: {}{}; commit or stash them first, or pass --allow-dirty",
        shown.join(", "),
        if dirty.len() > shown.len() {
            format!(" and {} more", dirty.len() - shown.len())
        } else {
            String::new()
        }
    ))
}

/// A file's contents, by path: the `.rs` files and `Cargo.toml`s under `root` (ignored files
/// left out), and the workspace manifest above it, which the rmcp upgrade may raise.
pub type Snapshot = BTreeMap<PathBuf, Vec<u8>>;

pub fn snapshot(root: &Path) -> Snapshot {
    let mut files = Snapshot::new();
    let mut add = |p: &Path| {
        if let Ok(bytes) = std::fs::read(p) {
            files.insert(p.to_path_buf(), bytes);
        }
    };
    if root.is_file() {
        add(root);
    } else {
        for e in crate::reading::discover::walker(root)
            .build()
            .filter_map(Result::ok)
        {
            let p = e.path();
            let wanted = p.extension().is_some_and(|x| x == "rs")
                || p.file_name().is_some_and(|n| n == "Cargo.toml");
            if wanted && e.file_type().is_some_and(|t| t.is_file()) {
                add(p);
            }
        }
    }
    let start = if root.is_dir() {
        root.join("Cargo.toml")
    } else {
        root.to_path_buf()
    };
    if let Some(ws) = crate::fix::manifest_edit::workspace_root(&start) {
        add(&ws);
    }
    files
}

/// The files whose contents differ between two snapshots (a file that appeared counts).
pub fn changed(before: &Snapshot, after: &Snapshot) -> Vec<PathBuf> {
    after
        .iter()
        .filter(|(p, bytes)| before.get(*p) != Some(*bytes))
        .map(|(p, _)| p.clone())
        .collect()
}
