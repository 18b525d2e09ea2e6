//! `--fix` gives a package the runtime its fixed code now uses: `mrtr` added to the
//! `[dependencies]` of the file's `Cargo.toml` (a format-preserving edit), written in the same
//! all-or-none set as the file, so a migrated crate never lands without its dependency.

use std::path::Path;

use super::manifest_edit::{ManifestEdit, Outcome};

/// The requirement written by default: the runtime released with this linter (`0.1`), or what
/// `--mrtr-dependency` says (any TOML value: `"0.1"`, `{ path = "../mrtr" }`, ...).
pub fn default_requirement() -> String {
    let version = env!("CARGO_PKG_VERSION");
    let minor: Vec<&str> = version.split('.').take(2).collect();
    format!("\"{}\"", minor.join("."))
}

/// Whether a text names the runtime (an import or a path through it).
fn uses_runtime(text: &str) -> bool {
    text.contains("use mrtr") || text.contains("mrtr::")
}

/// The new text of `manifest` when a file went from `original` to `fixed`, and that made it use
/// the runtime the manifest does not declare yet; `None` when nothing changes.
pub fn manifest_with_runtime(
    manifest: &Path,
    original: &str,
    fixed: &str,
    requirement: &str,
) -> Result<Option<(String, String)>, String> {
    if !uses_runtime(fixed) || uses_runtime(original) {
        return Ok(None);
    }
    let text = std::fs::read_to_string(manifest).map_err(|e| format!("cannot read: {e}"))?;
    let mut edit = ManifestEdit::parse(&text)?;
    match edit.ensure_dependency("mrtr", requirement)? {
        Outcome::Changed => Ok(Some((text, edit.text()))),
        _ => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("Cargo.toml");
        std::fs::write(&path, text).unwrap();
        (dir, path)
    }

    const MANIFEST: &str = "[package]\nname = \"s\"\n\n[dependencies]\nrmcp = \"3.11\" # the SDK\n";

    #[test]
    fn a_file_that_starts_using_the_runtime_adds_it_once() {
        let (_d, path) = manifest(MANIFEST);
        let (old, new) = manifest_with_runtime(&path, "fn a() {}", "use mrtr::Mrtr;", "\"0.1\"")
            .unwrap()
            .expect("added");
        assert_eq!(old, MANIFEST);
        assert_eq!(new, format!("{MANIFEST}mrtr = \"0.1\"\n"));
        std::fs::write(&path, &new).unwrap();
        assert_eq!(
            manifest_with_runtime(&path, "fn a() {}", "use mrtr::Mrtr;", "\"0.1\"").unwrap(),
            None,
            "already declared"
        );
    }

    #[test]
    fn nothing_changes_unless_the_fix_brought_the_runtime_in() {
        let (_d, path) = manifest(MANIFEST);
        for (original, fixed) in [
            ("fn a() {}", "fn b() {}"),
            ("use mrtr::Mrtr;", "use mrtr::{Mrtr, mrtr_handler};"),
        ] {
            assert_eq!(
                manifest_with_runtime(&path, original, fixed, "\"0.1\"").unwrap(),
                None
            );
        }
    }

    #[test]
    fn a_bad_requirement_or_manifest_is_an_error() {
        let (_d, path) = manifest(MANIFEST);
        assert!(manifest_with_runtime(&path, "", "use mrtr::Mrtr;", "{ nope").is_err());
        let (_d2, broken) = manifest("[dependencies\n");
        assert!(manifest_with_runtime(&broken, "", "use mrtr::Mrtr;", "\"0.1\"").is_err());
    }

    #[test]
    fn the_default_requirement_is_this_releases_minor_version() {
        let r = default_requirement();
        assert!(
            r.starts_with('"') && r.ends_with('"') && r.matches('.').count() == 1,
            "{r}"
        );
    }
}
