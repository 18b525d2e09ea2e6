//! The rules' docs as local Markdown files, so a diagnostic's link (`codeDescription.href`)
//! opens the same text `cargo mcp-lint rule CODE` prints, without a network.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use lsp_types::Uri;

use crate::catalog::{catalog, render_doc};

/// The `file:` URI of each rule's rendered docs, by code.
#[derive(Debug, Default)]
pub struct DocLinks {
    links: HashMap<String, Uri>,
}

impl DocLinks {
    /// Writes every rule's docs under `dir` (kept when already there and equal) and remembers
    /// their URIs. A rule whose file cannot be written gets no link; linting goes on.
    pub fn write_to(dir: &Path) -> DocLinks {
        let mut links = HashMap::new();
        if std::fs::create_dir_all(dir).is_err() {
            return DocLinks { links };
        }
        for rule in &catalog().rules {
            let file = dir.join(format!("{}.md", rule.code));
            let text = render_doc(rule);
            // A link where a doc should be is left alone (the atomic write would replace the file
            // it points to), and the rule gets no link.
            let meta = std::fs::symlink_metadata(&file).ok();
            if meta.as_ref().is_some_and(|m| !m.file_type().is_file()) {
                continue;
            }
            let current = meta.and_then(|_| std::fs::read(&file).ok());
            let written = current.as_deref() == Some(text.as_bytes())
                || crate::atomic_write::write_file_atomic(
                    &file,
                    text.as_bytes(),
                    crate::atomic_write::Kind::Report,
                )
                .is_ok();
            if let Some(uri) = written.then(|| super::uri::from_path(&file)).flatten() {
                links.insert(rule.code.clone(), uri);
            }
        }
        DocLinks { links }
    }

    pub fn get(&self, code: &str) -> Option<&Uri> {
        self.links.get(code)
    }
}

/// Where the docs go: the user's cache folder, per linter version (a newer linter's docs never
/// mix with an older one's), else a private folder of this user's under the temporary folder.
/// None when there is no such folder to be had: the docs are then not written, and diagnostics
/// have no link (hover still shows them).
pub fn default_dir() -> Option<PathBuf> {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .filter(|p| p.is_absolute());
    let base = match cache {
        Some(c) => c.join("mcp-lint"),
        None => private_dir(&std::env::temp_dir())?,
    };
    Some(base.join(env!("CARGO_PKG_VERSION")).join("rules"))
}

/// `TMP/mcp-lint-UID`, made with mode 0700 if it is not there, and used only if it is a real
/// folder (not a link) that this user owns and nobody else may enter: the temporary folder is
/// shared, and a folder or link planted there by another user must not receive our writes.
#[cfg(unix)]
pub fn private_dir(tmp: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    // SAFETY: getuid has no preconditions and cannot fail.
    let uid = unsafe { libc::getuid() };
    let dir = tmp.join(format!("mcp-lint-{uid}"));
    let _ = std::fs::DirBuilder::new().mode(0o700).create(&dir);
    let meta = std::fs::symlink_metadata(&dir).ok()?;
    let private = meta.file_type().is_dir() && meta.uid() == uid && meta.mode() & 0o077 == 0;
    private.then_some(dir)
}

/// Without unix permissions to check, the temporary folder is not used.
#[cfg(not(unix))]
pub fn private_dir(_tmp: &Path) -> Option<PathBuf> {
    None
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn the_temporary_folder_is_private_or_not_used() {
        let tmp = tempfile::tempdir().unwrap();
        // Made fresh: mode 0700.
        let dir = private_dir(tmp.path()).expect("a private folder");
        let mode = std::fs::metadata(&dir).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        // Someone else's link planted under the name: refused, nothing followed.
        let tmp = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let uid = unsafe { libc::getuid() };
        std::os::unix::fs::symlink(elsewhere.path(), tmp.path().join(format!("mcp-lint-{uid}")))
            .unwrap();
        assert_eq!(private_dir(tmp.path()), None);
        // A folder others may enter: refused.
        let tmp = tempfile::tempdir().unwrap();
        let open = tmp.path().join(format!("mcp-lint-{uid}"));
        std::fs::create_dir(&open).unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
        assert_eq!(private_dir(tmp.path()), None);
    }

    #[test]
    fn a_link_where_a_doc_goes_is_not_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "keep me").unwrap();
        std::os::unix::fs::symlink(&victim, dir.path().join("MCP001.md")).unwrap();
        let links = DocLinks::write_to(dir.path());
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
        assert!(links.get("MCP001").is_none());
        assert!(links.get("MCP002").is_some());
    }
}
