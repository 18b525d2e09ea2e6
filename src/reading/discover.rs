//! Which files to lint: the given files as they are, and every `.rs` file under the given folders
//! except `target/` and what `.gitignore` (and `.ignore`) files exclude.
//!
//! Symlinks are followed, as rustc follows them to a module file or folder: a linked file is
//! linted when it points at a regular `.rs` file (a link to a device or FIFO is passed over, as
//! such a node itself is), and a linked folder is walked. A link back to a folder being walked (a
//! loop) is detected by the walker and passed over: every file on the loop is reached by the
//! other way in, so nothing is lost.

use std::path::{Path, PathBuf};

use crate::finding::FileError;

/// Files to lint, in a stable order, and the paths that could not be walked.
pub fn discover(paths: &[PathBuf], base: &Path) -> (Vec<PathBuf>, Vec<FileError>) {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for p in paths {
        match std::fs::metadata(p) {
            Ok(m) if m.is_file() => files.push(p.clone()),
            Ok(m) if m.is_dir() => walk(p, base, &mut files, &mut errors),
            // A FIFO, socket or device named on the command line: say so rather than skip it.
            Ok(_) => errors.push(FileError {
                path: crate::reading::source::display_path(p, base),
                message: "not a regular file or a directory".into(),
            }),
            Err(e) => errors.push(FileError {
                path: crate::reading::source::display_path(p, base),
                message: format!("cannot read: {e}"),
            }),
        }
    }
    files.sort();
    files.dedup();
    (files, errors)
}

/// How a project folder is walked, for sources and for manifests alike: ignore files respected,
/// hidden folders and `target` skipped, links followed.
pub fn walker(dir: &Path) -> ignore::WalkBuilder {
    let mut w = ignore::WalkBuilder::new(dir);
    w.hidden(true)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(false)
        .require_git(false)
        .follow_links(true)
        .filter_entry(|e| {
            !(e.file_type().is_some_and(|t| t.is_dir()) && e.file_name() == "target")
        });
    w
}

/// Walks on every core: a vendored tree of ten thousand files took a sixth of a run to list on
/// one thread. The caller sorts what it gets.
fn walk(dir: &Path, base: &Path, files: &mut Vec<PathBuf>, errors: &mut Vec<FileError>) {
    let walker = walker(dir).build_parallel();
    let found = std::sync::Mutex::new((Vec::new(), Vec::new()));
    walker.run(|| {
        let found = &found;
        Box::new(move |entry| {
            let mut found = found.lock().unwrap_or_else(|p| p.into_inner());
            match entry {
                Ok(e) => {
                    if e.file_type().is_some_and(|t| t.is_file())
                        && e.path().extension().is_some_and(|x| x == "rs")
                    {
                        found.0.push(e.into_path());
                    }
                }
                Err(e) if is_loop(&e) => {}
                Err(e) => found.1.push(FileError {
                    path: crate::reading::source::display_path(dir, base),
                    message: format!("cannot walk: {e}"),
                }),
            }
            ignore::WalkState::Continue
        })
    });
    let (mut f, mut e) = found.into_inner().unwrap_or_else(|p| p.into_inner());
    files.append(&mut f);
    // Errors in a stable order whatever the threads did.
    e.sort_by(|a, b| (&a.path, &a.message).cmp(&(&b.path, &b.message)));
    errors.append(&mut e);
}

fn is_loop(e: &ignore::Error) -> bool {
    match e {
        ignore::Error::Loop { .. } => true,
        ignore::Error::WithPath { err, .. }
        | ignore::Error::WithDepth { err, .. }
        | ignore::Error::WithLineNumber { err, .. } => is_loop(err),
        _ => false,
    }
}

/// The directory `cargo mcp-lint` lints when given no paths, as cargo would pick it: the nearest
/// package above `start`, or the workspace that package belongs to (an ancestor whose
/// `[workspace]` lists it in `members` and not in `exclude`, or that is the package itself).
/// Without any `Cargo.toml` above, `start` itself.
pub fn default_root(start: &Path) -> PathBuf {
    let Some(package) = start.ancestors().find(|d| d.join("Cargo.toml").is_file()) else {
        return start.to_path_buf();
    };
    for dir in package.ancestors() {
        let Some(ws) = read_manifest(dir).and_then(|m| m.get("workspace").cloned()) else {
            continue;
        };
        if dir == package {
            return dir.to_path_buf();
        }
        let Ok(rel) = package.strip_prefix(dir) else {
            continue;
        };
        let listed = |key: &str| {
            ws.get(key).and_then(|v| v.as_array()).is_some_and(|globs| {
                globs
                    .iter()
                    .filter_map(|g| g.as_str())
                    .any(|g| glob_matches(g, rel))
            })
        };
        if listed("members") && !listed("exclude") {
            return dir.to_path_buf();
        }
        // The nearest workspace above decides; cargo does not look further.
        break;
    }
    package.to_path_buf()
}

fn read_manifest(dir: &Path) -> Option<toml::Table> {
    let text = std::fs::read_to_string(dir.join("Cargo.toml")).ok()?;
    text.parse::<toml::Table>().ok()
}

fn glob_matches(pattern: &str, rel: &Path) -> bool {
    let rel = rel.to_string_lossy().replace('\\', "/");
    let pattern = pattern.trim_end_matches('/');
    globset::Glob::new(pattern)
        .map(|g| g.compile_matcher().is_match(&rel))
        .unwrap_or(false)
        || pattern == rel
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_fifo_named_on_the_command_line_is_an_error_not_skipped() {
        let t = tempfile::tempdir().unwrap();
        let fifo = t.path().join("pipe.rs");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(
            made.is_ok_and(|s| s.success()),
            "mkfifo (coreutils) makes the FIFO"
        );
        let (files, errors) = discover(std::slice::from_ref(&fifo), t.path());
        assert!(files.is_empty());
        assert_eq!(errors.len(), 1);
        assert!(
            errors[0].message.contains("not a regular file"),
            "{:?}",
            errors[0]
        );
    }

    #[cfg(unix)]
    #[test]
    fn symlinked_module_files_and_folders_are_followed_and_loops_passed_over() {
        use std::os::unix::fs::symlink;
        let t = tempfile::tempdir().unwrap();
        let root = t.path();
        std::fs::create_dir_all(root.join("shared/deep")).unwrap();
        std::fs::write(root.join("shared/tools.rs"), "fn a() {}\n").unwrap();
        std::fs::write(root.join("shared/deep/more.rs"), "fn b() {}\n").unwrap();
        std::fs::create_dir_all(root.join("crate/src")).unwrap();
        std::fs::write(root.join("crate/src/lib.rs"), "mod tools;\n").unwrap();
        symlink(
            root.join("shared/tools.rs"),
            root.join("crate/src/tools.rs"),
        )
        .unwrap();
        symlink(root.join("shared/deep"), root.join("crate/src/deep")).unwrap();
        // A loop: the folder links back to its own ancestor.
        symlink(root.join("crate/src"), root.join("crate/src/again")).unwrap();
        // A link to a device named like a module is not read.
        symlink("/dev/zero", root.join("crate/src/zero.rs")).unwrap();
        let (files, errors) = discover(&[root.join("crate/src")], root);
        let rel: Vec<String> = files
            .iter()
            .map(|f| f.strip_prefix(root).unwrap().display().to_string())
            .collect();
        assert_eq!(
            rel,
            vec![
                "crate/src/deep/more.rs",
                "crate/src/lib.rs",
                "crate/src/tools.rs"
            ]
        );
        assert!(errors.is_empty(), "{errors:?}");
    }

    #[test]
    fn default_root_is_the_workspace_that_lists_the_package() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path();
        std::fs::write(
            root.join("Cargo.toml"),
            "[workspace]\nmembers = [\"crates/*\"]\n",
        )
        .unwrap();
        std::fs::create_dir_all(root.join("crates/a/src")).unwrap();
        std::fs::write(
            root.join("crates/a/Cargo.toml"),
            "[package]\nname = \"a\"\n",
        )
        .unwrap();
        std::fs::create_dir_all(root.join("loose/src")).unwrap();
        std::fs::write(
            root.join("loose/Cargo.toml"),
            "[package]\nname = \"loose\"\n",
        )
        .unwrap();
        assert_eq!(default_root(&root.join("crates/a/src")), root);
        assert_eq!(default_root(&root.join("loose/src")), root.join("loose"));
        let bare = tempfile::tempdir().unwrap();
        assert_eq!(default_root(bare.path()), bare.path());
    }
}
