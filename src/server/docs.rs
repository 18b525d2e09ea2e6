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
            let current = std::fs::read(&file).ok();
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
/// mix with an older one's), else the temporary folder.
pub fn default_dir() -> PathBuf {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .filter(|p| p.is_absolute())
        .unwrap_or_else(std::env::temp_dir);
    cache
        .join("mcp-lint")
        .join(env!("CARGO_PKG_VERSION"))
        .join("rules")
}
