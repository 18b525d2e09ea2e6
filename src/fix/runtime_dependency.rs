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

/// Whether every path through the runtime in `text` is one of its SDK-neutral modules
/// (`mrtr::jsonrpc`), which build without the `rmcp` feature.
fn uses_only_sdk_neutral_forms(text: &str) -> bool {
    text.match_indices("mrtr::")
        .all(|(at, m)| text[at + m.len()..].starts_with("jsonrpc::"))
}

/// The new text of `manifest` when a file went from `original` to `fixed`, and that made it use
/// the runtime the manifest does not declare yet; `None` when nothing changes. `requirement`:
/// what `--mrtr-dependency` gave, else `{ workspace = true }` in a workspace that declares the
/// runtime in `[workspace.dependencies]`, else [`default_requirement`].
pub fn manifest_with_runtime(
    manifest: &Path,
    original: &str,
    fixed: &str,
    requirement: Option<&str>,
) -> Result<Option<(String, String)>, String> {
    if !uses_runtime(fixed) || uses_runtime(original) {
        return Ok(None);
    }
    let text = std::fs::read_to_string(manifest).map_err(|e| format!("cannot read: {e}"))?;
    let mut edit = ManifestEdit::parse(&text)?;
    let requirement = match requirement {
        Some(r) => r.to_string(),
        None if workspace_declares_runtime(manifest) => "{ workspace = true }".to_string(),
        // A server that speaks JSON-RPC itself gets only the SDK-neutral forms: the runtime's
        // default `rmcp` feature would pull an SDK it does not use into its build.
        None if !edit.depends_on("rmcp") && uses_only_sdk_neutral_forms(fixed) => {
            format!(
                "{{ version = {}, default-features = false }}",
                default_requirement()
            )
        }
        None => default_requirement(),
    };
    match edit.ensure_dependency("mrtr", &requirement)? {
        Outcome::Changed => Ok(Some((text, edit.text()))),
        _ => Ok(None),
    }
}

/// Whether the workspace above `manifest` declares the runtime for its members.
fn workspace_declares_runtime(manifest: &Path) -> bool {
    super::manifest_edit::workspace_root(manifest)
        .and_then(|root| std::fs::read_to_string(root).ok())
        .and_then(|text| ManifestEdit::parse(&text).ok())
        .is_some_and(|ws| ws.declares_workspace_dependency("mrtr"))
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

    #[test]
    fn a_server_without_rmcp_gets_the_runtime_without_its_sdk_feature() {
        let fixed = "let a = mrtr::jsonrpc::Question::new(m, p).or_send(|p| s(p)).await;";
        let (_d, path) =
            manifest("[package]\nname = \"s\"\n\n[dependencies]\nserde_json = \"1\"\n");
        let (_, new) = manifest_with_runtime(&path, "fn a() {}", fixed, None)
            .unwrap()
            .expect("added");
        let want = format!(
            "mrtr = {{ version = {}, default-features = false }}\n",
            default_requirement()
        );
        assert!(new.ends_with(&want), "{new}");
        // With rmcp declared, or with a path through the rmcp adapter, the defaults stay.
        let (_d, path) = manifest(MANIFEST);
        let (_, new) = manifest_with_runtime(&path, "fn a() {}", fixed, None)
            .unwrap()
            .unwrap();
        assert!(
            new.ends_with(&format!("mrtr = {}\n", default_requirement())),
            "{new}"
        );
        let (_d, path) = manifest("[package]\nname = \"s\"\n");
        let rmcp_form = format!("{fixed} mrtr::rmcp::deferred::elicit(p).await;");
        let (_, new) = manifest_with_runtime(&path, "fn a() {}", &rmcp_form, None)
            .unwrap()
            .unwrap();
        assert!(
            new.ends_with(&format!("mrtr = {}\n", default_requirement())),
            "{new}"
        );
    }

    const MANIFEST: &str = "[package]\nname = \"s\"\n\n[dependencies]\nrmcp = \"3.11\" # the SDK\n";

    #[test]
    fn a_file_that_starts_using_the_runtime_adds_it_once() {
        let (_d, path) = manifest(MANIFEST);
        let (old, new) =
            manifest_with_runtime(&path, "fn a() {}", "use mrtr::Mrtr;", Some("\"0.1\""))
                .unwrap()
                .expect("added");
        assert_eq!(old, MANIFEST);
        assert_eq!(new, format!("{MANIFEST}mrtr = \"0.1\"\n"));
        std::fs::write(&path, &new).unwrap();
        assert_eq!(
            manifest_with_runtime(&path, "fn a() {}", "use mrtr::Mrtr;", Some("\"0.1\"")).unwrap(),
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
                manifest_with_runtime(&path, original, fixed, Some("\"0.1\"")).unwrap(),
                None
            );
        }
    }

    #[test]
    fn a_bad_requirement_or_manifest_is_an_error() {
        let (_d, path) = manifest(MANIFEST);
        assert!(manifest_with_runtime(&path, "", "use mrtr::Mrtr;", Some("{ nope")).is_err());
        let (_d2, broken) = manifest("[dependencies\n");
        assert!(manifest_with_runtime(&broken, "", "use mrtr::Mrtr;", Some("\"0.1\"")).is_err());
    }

    #[test]
    fn a_workspace_that_declares_the_runtime_is_inherited_from() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("Cargo.toml"),
            "[workspace]\nmembers = [\"s\"]\n\n[workspace.dependencies]\nmrtr = \"0.1\"\n",
        )
        .unwrap();
        std::fs::create_dir(dir.path().join("s")).unwrap();
        let member = dir.path().join("s/Cargo.toml");
        std::fs::write(&member, MANIFEST).unwrap();
        let (_, new) = manifest_with_runtime(&member, "", "use mrtr::Mrtr;", None)
            .unwrap()
            .expect("added");
        assert_eq!(new, format!("{MANIFEST}mrtr = {{ workspace = true }}\n"));
        // Given on the command line, the requirement wins.
        let (_, new) = manifest_with_runtime(&member, "", "use mrtr::Mrtr;", Some("\"0.2\""))
            .unwrap()
            .expect("added");
        assert_eq!(new, format!("{MANIFEST}mrtr = \"0.2\"\n"));
        // Without the declaration: this release's.
        let (_keep, plain) = manifest(MANIFEST);
        let (_, new) = manifest_with_runtime(&plain, "", "use mrtr::Mrtr;", None)
            .unwrap()
            .expect("added");
        assert_eq!(new, format!("{MANIFEST}mrtr = {}\n", default_requirement()));
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
