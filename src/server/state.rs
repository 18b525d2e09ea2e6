//! What the main loop and the lint worker share: the open buffers, the last findings of each,
//! and the workspace. Each behind its own lock, held briefly (the workspace for one lint).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::finding::Finding;

use super::docs::DocLinks;
use super::workspace::Workspace;

/// An open buffer: the editor's text, not the file on disk.
#[derive(Debug, Clone)]
pub struct Document {
    pub text: Arc<str>,
    pub version: i32,
    /// The file it stands for (its configuration and package apply).
    pub path: PathBuf,
}

/// The findings of one version of a buffer, with the text they were computed on (their byte
/// offsets point into it).
#[derive(Debug, Clone)]
pub struct Linted {
    pub version: i32,
    pub generation: u64,
    pub text: Arc<str>,
    pub findings: Arc<Vec<Finding>>,
}

pub struct Shared {
    pub docs: Mutex<HashMap<String, Document>>,
    pub linted: Mutex<HashMap<String, Linted>>,
    pub workspace: Mutex<Workspace>,
    pub links: DocLinks,
}

impl Shared {
    pub fn new(workspace: Workspace, links: DocLinks) -> Shared {
        Shared {
            docs: Mutex::default(),
            linted: Mutex::default(),
            workspace: Mutex::new(workspace),
            links,
        }
    }

    pub fn docs(&self) -> MutexGuard<'_, HashMap<String, Document>> {
        self.docs.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn linted(&self) -> MutexGuard<'_, HashMap<String, Linted>> {
        self.linted.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn workspace(&self) -> MutexGuard<'_, Workspace> {
        self.workspace.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The findings of `uri` as the buffer is now, so positions and fixes fit its text: the
    /// worker's when it has linted this version, else linted here and now (a code action asked
    /// for right after a keystroke, before the debounce ran out, such as a fix-all on save). The
    /// worker still lints and publishes that version itself.
    pub fn current(&self, uri: &str) -> Option<Linted> {
        let doc = self.docs().get(uri)?.clone();
        if let Some(l) = self.linted().get(uri) {
            if l.version == doc.version {
                return Some(l.clone());
            }
        }
        let mut ws = self.workspace();
        let findings = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            ws.lint(&doc.path, &doc.text)
        }))
        .ok()?
        .ok()?;
        Some(Linted {
            version: doc.version,
            generation: ws.generation,
            text: doc.text,
            findings: Arc::new(findings),
        })
    }
}
