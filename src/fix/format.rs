//! The code a fix writes, formatted as `cargo fmt` would: when a file was rustfmt-clean before
//! the fix, rustfmt formats it after, which changes only what the fix wrote. A file its authors
//! do not format is left as the fix wrote it. rustfmt runs from the file's folder, so it reads the
//! project's `rustfmt.toml`, and in the package's edition; without rustfmt nothing is formatted.
//!
//! Like the import pruning, this is `--fix`'s step after all the fixes of a file, not an edit of
//! any one fix.

use std::path::Path;

/// `fixed` formatted, when `original` was rustfmt-clean and formatting changes `fixed`; `None`
/// otherwise (or when rustfmt is missing or refuses the text).
pub fn format_written(original: &str, fixed: &str, file: &Path, edition: &str) -> Option<String> {
    let dir = file.parent().filter(|d| d.is_dir());
    if rustfmt(original, edition, dir)? != original {
        return None;
    }
    let formatted = rustfmt(fixed, edition, dir)?;
    (formatted != fixed).then_some(formatted)
}

/// `text` as rustfmt formats it (stdin to stdout), run in `dir` so it finds the project's
/// configuration; `None` when rustfmt is not installed or fails.
pub fn rustfmt(text: &str, edition: &str, dir: Option<&Path>) -> Option<String> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut command = Command::new("rustfmt");
    command
        .args(["--edition", edition, "--emit", "stdout"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    let mut child = command.spawn().ok()?;
    // Written from another thread: rustfmt may fill its stdout pipe before it has read all of
    // a large input.
    let mut stdin = child.stdin.take()?;
    let input = text.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().ok()?;
    writer.join().ok()?.ok()?;
    if !out.status.success() {
        return None;
    }
    String::from_utf8(out.stdout).ok()
}

/// The edition of the package `file` belongs to (its nearest manifest's, or its workspace's when it
/// inherits it); 2021 when none is found.
pub fn edition_of(file: &Path) -> String {
    let read = |manifest: &Path| -> Option<toml_edit::DocumentMut> {
        std::fs::read_to_string(manifest).ok()?.parse().ok()
    };
    let manifest = super::upgrade::nearest_manifest(file);
    let edition = manifest.as_deref().and_then(|m| {
        let doc = read(m)?;
        let own = doc.get("package")?.get("edition")?;
        if let Some(e) = own.as_str() {
            return Some(e.to_string());
        }
        let root = crate::fix::manifest_edit::workspace_root(m)?;
        let ws = read(&root)?;
        Some(
            ws.get("workspace")?
                .get("package")?
                .get("edition")?
                .as_str()?
                .to_string(),
        )
    });
    edition.unwrap_or_else(|| "2021".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether rustfmt runs here; in CI (`.ci/run` installs it) a missing one is a failure, not
    /// a skipped test.
    fn installed() -> bool {
        let found = rustfmt("fn a() {}\n", "2021", None).is_some();
        assert!(
            found || std::env::var_os("CI").is_none(),
            "rustfmt is missing in CI"
        );
        found
    }

    #[test]
    fn a_formatted_file_gets_what_the_fix_wrote_formatted() {
        if !installed() {
            return;
        }
        let original = "fn a() -> u8 {\n    1\n}\n";
        let fixed = "fn a() -> u8 {\n    let x = {  1 };\n        x\n}\n";
        assert_eq!(
            format_written(original, fixed, Path::new("src/lib.rs"), "2021").unwrap(),
            "fn a() -> u8 {\n    let x = { 1 };\n    x\n}\n"
        );
    }

    #[test]
    fn a_file_its_authors_do_not_format_is_left_as_the_fix_wrote_it() {
        if !installed() {
            return;
        }
        let original = "fn a()->u8{1}\n";
        let fixed = "fn a()->u8{ let x = {  1 }; x }\n";
        assert_eq!(
            format_written(original, fixed, Path::new("src/lib.rs"), "2021"),
            None
        );
    }
}
