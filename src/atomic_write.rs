//! Every file the linter writes goes through here: `--fix`, `--add-suppressions`, `--output` and
//! the baseline writes.
//!
//! [`write_file_atomic`] replaces one file; a reader sees the old bytes or the new ones, never half
//! a file, and an interrupted run leaves the target as it was:
//!
//! - the new bytes go to a temporary file in the target's folder, created with `O_CREAT|O_EXCL|
//!   O_NOFOLLOW` under an unpredictable name starting with [`TEMP_PREFIX`]: a symlink or file
//!   planted there makes the create fail (and another name is tried), it is never written through;
//! - the temporary file is fsynced, then renamed over the target; on every error path it is
//!   removed;
//! - the target's mode is kept, and its owner and group where the process may set them (root);
//! - a symlinked target is resolved and the real file replaced, never the link;
//! - a target that is not a regular file (a device, a FIFO, a socket) is written in place when the
//!   caller allows it ([`Kind::Report`]: `--output /dev/stdout` works), else refused
//!   ([`Kind::Source`]: `--fix` never turns a device into a regular file); a report path under
//!   `/dev` or `/proc` (`/dev/stdout`, `/dev/fd/N`) is always written through, appending, even when
//!   it leads to a regular file (`>> log`), so the log keeps what it held;
//! - a read-only target (no write bit in its mode, or not writable by this user) is refused: the
//!   rename would otherwise bypass the permission the user set. The mode bits are checked, not
//!   only the open, because root may write anything.
//!
//! [`write_all_or_none`] replaces a set of files together (a fix that edits a helper and its
//! callers, or a source file and `Cargo.toml`). Its guarantee:
//!
//! 1. every target is checked and every temporary file written and fsynced before any target is
//!    touched; if any of that fails, no target is replaced and every temporary file is removed;
//! 2. the renames then run in order; if one fails, the targets already replaced are put back from
//!    the bytes they held (a target that did not exist is removed again), and the error says which
//!    file failed and whether every restore succeeded. Only a failure of the restore itself (the
//!    disk failing twice) can leave a mix, and the error then names the files left new.
//!
//! The renames are not one atomic step: a reader (or a crash) between two renames sees some files
//! new and some old. What cannot happen is a half-written file or a write through a planted link.
//!
//! [`clean_leftovers`] removes temporary files a killed run left behind (a SIGKILL between the
//! create and the rename): files with our prefix last modified before the current run started.

use std::fs::{File, Metadata, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Every temporary file starts with this, so leftovers are recognisable (and hidden: a dot file).
pub const TEMP_PREFIX: &str = ".mcp-lint-tmp-";

/// What the caller writes, which decides how special targets are treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A source file (`--fix`, `--add-suppressions`): only a regular file is replaced.
    Source,
    /// A report or a baseline (`--output`, `--update-baseline`): a device, FIFO or socket is
    /// written in place, as a shell redirection would.
    Report,
}

/// Why a write was refused or failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorKind {
    /// A device, FIFO, socket or directory where a regular file was needed.
    NotRegular,
    /// The target's mode has no write bit, or this user may not write it.
    ReadOnly,
    /// Creating, writing, syncing or renaming failed.
    Io,
}

#[derive(Debug, Clone)]
pub struct WriteError {
    pub path: PathBuf,
    pub kind: ErrorKind,
    pub message: String,
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

impl std::error::Error for WriteError {}

fn error(path: &Path, kind: ErrorKind, message: impl Into<String>) -> WriteError {
    WriteError {
        path: path.to_path_buf(),
        kind,
        message: message.into(),
    }
}

fn io_error(path: &Path, what: &str, e: std::io::Error) -> WriteError {
    error(path, ErrorKind::Io, format!("{what}: {e}"))
}

/// Where the bytes go.
#[derive(Debug)]
enum Plan {
    /// Replace the regular file `real` (the resolved target); `meta` is its metadata, None for a
    /// file that does not exist yet.
    Replace {
        real: PathBuf,
        meta: Option<Metadata>,
    },
    /// Write into the special file at `path` (opened through the path as given, so
    /// `/dev/stdout` reaches this process's stdout).
    InPlace(PathBuf),
}

/// Refuses a report target (`--output FILE`) that is one of the run's own inputs: a file being
/// linted (the report would replace the source it describes) or a package's `Cargo.toml` or
/// `Cargo.lock`. Compared by file identity, so a link or another spelling of the path is caught.
pub fn check_report_target(output: &Path, inputs: &[PathBuf]) -> Result<(), String> {
    let manifest = |p: &Path| {
        p.file_name()
            .is_some_and(|n| n == "Cargo.toml" || n == "Cargo.lock")
    };
    let resolved = std::fs::canonicalize(output).ok();
    if manifest(output) || resolved.as_deref().is_some_and(manifest) {
        return Err(format!(
            "--output {}: a manifest; the report is not written over it",
            output.display()
        ));
    }
    let Ok(meta) = std::fs::metadata(output) else {
        return Ok(());
    };
    if !meta.is_file() {
        return Ok(());
    }
    let same = |m: &Metadata| -> bool {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            m.dev() == meta.dev() && m.ino() == meta.ino()
        }
        #[cfg(not(unix))]
        {
            let _ = m;
            false
        }
    };
    for input in inputs {
        let hit = match std::fs::metadata(input) {
            Ok(m) if cfg!(unix) => same(&m),
            _ => std::fs::canonicalize(input).ok() == resolved,
        };
        if hit {
            return Err(format!(
                "--output {}: a file this run lints; the report is not written over it",
                output.display()
            ));
        }
    }
    Ok(())
}

/// Checks `path` as a target for `kind` without writing anything: refuses what
/// [`write_file_atomic`] would refuse (a special file for [`Kind::Source`], a read-only file, a
/// dangling link, a directory). `--fix` calls it before reading the file again, so a FIFO is never
/// opened.
pub fn check_target(path: &Path, kind: Kind) -> Result<(), WriteError> {
    plan(path, kind).map(|_| ())
}

fn plan(path: &Path, kind: Kind) -> Result<Plan, WriteError> {
    // `/dev/stdout`, `/dev/fd/1`, `/proc/self/fd/1` name an open descriptor, which may be a
    // regular file opened for appending (`>> log`): replacing the file it resolves to would drop
    // what the log held. Such a report is written through the descriptor, like a redirection.
    if kind == Kind::Report && (path.starts_with("/dev") || path.starts_with("/proc")) {
        if let Ok(meta) = std::fs::metadata(path) {
            if !meta.is_dir() {
                return Ok(Plan::InPlace(path.to_path_buf()));
            }
        }
    }
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if std::fs::symlink_metadata(path).is_ok() {
                return Err(error(
                    path,
                    ErrorKind::Io,
                    "is a symlink to a file that does not exist; not followed",
                ));
            }
            return Ok(Plan::Replace {
                real: path.to_path_buf(),
                meta: None,
            });
        }
        Err(e) => return Err(io_error(path, "cannot inspect", e)),
    };
    if meta.is_dir() {
        return Err(error(path, ErrorKind::NotRegular, "is a directory"));
    }
    if !meta.is_file() {
        return match kind {
            Kind::Report => Ok(Plan::InPlace(path.to_path_buf())),
            Kind::Source => Err(error(
                path,
                ErrorKind::NotRegular,
                format!(
                    "is a {}, not a regular file; refusing to replace it",
                    file_type_name(&meta)
                ),
            )),
        };
    }
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    let real = if is_link {
        // Renaming over the link would replace the link; the file it points at is the target.
        std::fs::canonicalize(path).map_err(|e| io_error(path, "cannot resolve the symlink", e))?
    } else {
        path.to_path_buf()
    };
    if meta.permissions().readonly() {
        return Err(error(
            path,
            ErrorKind::ReadOnly,
            "is read-only (its mode has no write permission); not replaced",
        ));
    }
    // Opening for writing (no truncation, no creation) asks the kernel whether this user may
    // write the file; renaming over it in a writable folder would not ask.
    if let Err(e) = OpenOptions::new().write(true).open(&real) {
        if e.kind() == std::io::ErrorKind::PermissionDenied {
            return Err(error(
                path,
                ErrorKind::ReadOnly,
                "is not writable by this user; not replaced",
            ));
        }
    }
    Ok(Plan::Replace {
        real,
        meta: Some(meta),
    })
}

fn file_type_name(meta: &Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_char_device() {
            return "character device";
        }
        if t.is_block_device() {
            return "block device";
        }
        if t.is_fifo() {
            return "FIFO";
        }
        if t.is_socket() {
            return "socket";
        }
    }
    let _ = meta;
    "special file"
}

/// Replaces `path` with `bytes` (see the module docs for every guarantee).
pub fn write_file_atomic(path: &Path, bytes: &[u8], kind: Kind) -> Result<(), WriteError> {
    match plan(path, kind)? {
        Plan::InPlace(p) => write_in_place(&p, bytes),
        Plan::Replace { real, meta } => {
            let staged = stage(&real, bytes, meta.as_ref())?;
            commit(staged, &real)
        }
    }
}

fn write_in_place(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    // No `create`: the node exists, and a vanished one must not become a regular file here. No
    // truncation: through `/dev/stdout` the node may be a log opened for appending, and for a
    // device or FIFO appending is writing.
    let mut f = OpenOptions::new()
        .append(true)
        .open(path)
        .map_err(|e| io_error(path, "cannot open", e))?;
    f.write_all(bytes)
        .and_then(|()| f.flush())
        .map_err(|e| io_error(path, "cannot write", e))
}

fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// A fresh temporary file beside `real` holding `bytes`, with the target's mode and owner,
/// fsynced. Dropping it removes it.
fn stage(
    real: &Path,
    bytes: &[u8],
    meta: Option<&Metadata>,
) -> Result<tempfile::TempPath, WriteError> {
    let dir = folder_of(real);
    let mut tmp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .rand_bytes(12)
        .make_in(dir, create_exclusive)
        .map_err(|e| io_error(real, "cannot create a temporary file beside it", e))?;
    // From here on, an early return drops `tmp`, which removes the temporary file.
    tmp.as_file_mut()
        .write_all(bytes)
        .map_err(|e| io_error(real, "cannot write the temporary file", e))?;
    if let Some(meta) = meta {
        keep_owner_and_mode(tmp.as_file(), meta)
            .map_err(|e| io_error(real, "cannot keep its mode", e))?;
    }
    tmp.as_file()
        .sync_all()
        .map_err(|e| io_error(real, "cannot sync the temporary file", e))?;
    Ok(tmp.into_temp_path())
}

/// `O_CREAT|O_EXCL` refuses any existing name (a planted symlink included); `O_NOFOLLOW` says so
/// again for kernels and filesystems that would treat a link differently. A new file gets 0666
/// before the umask, as any editor's new file.
fn create_exclusive(path: &Path) -> std::io::Result<File> {
    let mut o = OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o666)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC);
    }
    o.open(path)
}

fn keep_owner_and_mode(file: &File, meta: &Metadata) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let mine = file.metadata()?;
        if (mine.uid(), mine.gid()) != (meta.uid(), meta.gid()) {
            // Only root may give a file away; anyone else keeps at least the group when it is one
            // of theirs. Failing either is not an error: the bytes still go where they belong.
            if std::os::unix::fs::fchown(file, Some(meta.uid()), Some(meta.gid())).is_err() {
                let _ = std::os::unix::fs::fchown(file, None, Some(meta.gid()));
            }
        }
    }
    // After the owner: chown clears set-id bits, the mode puts back what the target had.
    file.set_permissions(meta.permissions())
}

fn commit(tmp: tempfile::TempPath, real: &Path) -> Result<(), WriteError> {
    // On failure the error carries the TempPath, whose drop removes the temporary file.
    tmp.persist(real)
        .map_err(|e| io_error(real, "cannot rename the temporary file over it", e.error))?;
    sync_folder(folder_of(real));
    Ok(())
}

/// The rename is durable once the folder is synced; a failure here loses nothing that the rename
/// did not already make visible, so it is not reported.
fn sync_folder(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Replaces every `(path, bytes)` or none of them (see the module docs for the exact guarantee).
/// Every target must be a regular file or not exist yet; special files cannot be staged.
pub fn write_all_or_none<P: AsRef<Path>, B: AsRef<[u8]>>(
    files: &[(P, B)],
    kind: Kind,
) -> Result<(), WriteError> {
    write_all_or_none_with(files, kind, &mut |tmp, real| commit(tmp, real))
}

/// [`write_all_or_none`] with the rename as a parameter, so a failing rename can be tested.
fn write_all_or_none_with<P: AsRef<Path>, B: AsRef<[u8]>>(
    files: &[(P, B)],
    kind: Kind,
    rename: &mut dyn FnMut(tempfile::TempPath, &Path) -> Result<(), WriteError>,
) -> Result<(), WriteError> {
    // 1. Check every target and keep what each held, before touching anything.
    let mut targets: Vec<(PathBuf, Option<Metadata>, Option<Vec<u8>>)> = Vec::new();
    for (path, _) in files {
        let path = path.as_ref();
        let (real, meta) = match plan(path, kind)? {
            Plan::Replace { real, meta } => (real, meta),
            Plan::InPlace(p) => {
                return Err(error(
                    &p,
                    ErrorKind::NotRegular,
                    "is not a regular file; a set of files is only written as regular files",
                ))
            }
        };
        let real_abs = std::path::absolute(&real).unwrap_or_else(|_| real.clone());
        if targets
            .iter()
            .any(|(r, _, _)| std::path::absolute(r).unwrap_or_else(|_| r.clone()) == real_abs)
        {
            return Err(error(
                path,
                ErrorKind::Io,
                "is named twice in one set of writes (directly or through a symlink)",
            ));
        }
        let before = match &meta {
            Some(_) => Some(
                std::fs::read(&real)
                    .map_err(|e| io_error(path, "cannot read it to keep a copy", e))?,
            ),
            None => None,
        };
        targets.push((real, meta, before));
    }
    // 2. Stage every new text; an error drops (and so removes) what was staged.
    let mut staged = Vec::with_capacity(files.len());
    for ((_, bytes), (real, meta, _)) in files.iter().zip(&targets) {
        staged.push(stage(real, bytes.as_ref(), meta.as_ref())?);
    }
    // 3. Rename in order; on a failure put back what was replaced.
    let mut done: Vec<usize> = Vec::new();
    for (i, tmp) in staged.into_iter().enumerate() {
        let real = &targets[i].0;
        if let Err(e) = rename(tmp, real) {
            // The temporaries not renamed yet are dropped (removed) with the rest of `staged`.
            let mut unrestored = Vec::new();
            for &j in &done {
                let (real, meta, before) = &targets[j];
                let back = match before {
                    Some(bytes) => {
                        stage(real, bytes, meta.as_ref()).and_then(|tmp| commit(tmp, real))
                    }
                    None => std::fs::remove_file(real).map_err(|e| io_error(real, "remove", e)),
                };
                if back.is_err() {
                    unrestored.push(real.display().to_string());
                }
            }
            let outcome = if unrestored.is_empty() {
                format!("; no file of the set was changed ({} put back)", done.len())
            } else {
                format!(
                    "; could not put back {} (it holds the new text)",
                    unrestored.join(", ")
                )
            };
            return Err(WriteError {
                message: format!("{}{outcome}", e.message),
                ..e
            });
        }
        done.push(i);
    }
    Ok(())
}

/// Removes temporary files a killed run left in `dir`: regular files named with [`TEMP_PREFIX`]
/// last modified before `started` (this run's start, so a concurrent run's fresh file stays).
/// Symlinks are never removed: we never create one, so one with our prefix is not ours.
/// Returns the paths removed.
pub fn clean_leftovers(dir: &Path, started: SystemTime) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut removed = Vec::new();
    for entry in entries.flatten() {
        if !entry.file_name().to_string_lossy().starts_with(TEMP_PREFIX) {
            continue;
        }
        let path = entry.path();
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        let old = meta.modified().is_ok_and(|m| m < started);
        if meta.file_type().is_file() && old && std::fs::remove_file(&path).is_ok() {
            removed.push(path);
        }
    }
    removed.sort();
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn replaces_a_file_and_leaves_no_temporary_file() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("a.rs");
        std::fs::write(&p, "old").unwrap();
        write_file_atomic(&p, b"new", Kind::Source).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new");
        assert_eq!(names(t.path()), vec!["a.rs"]);
        // A file that does not exist yet is created.
        let q = t.path().join("new.json");
        write_file_atomic(&q, b"{}", Kind::Report).unwrap();
        assert_eq!(std::fs::read_to_string(&q).unwrap(), "{}");
    }

    #[cfg(unix)]
    #[test]
    fn through_a_symlink_the_real_file_is_replaced_and_the_link_kept() {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir(t.path().join("real")).unwrap();
        let target = t.path().join("real/x.rs");
        let link = t.path().join("link.rs");
        std::fs::write(&target, "old").unwrap();
        std::os::unix::fs::symlink(&target, &link).unwrap();
        write_file_atomic(&link, b"new", Kind::Source).unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        // The temporary file was made beside the real file, not beside the link.
        assert_eq!(names(&t.path().join("real")), vec!["x.rs"]);
    }

    #[cfg(unix)]
    #[test]
    fn keeps_the_mode() {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("x.rs");
        std::fs::write(&p, "old").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_file_atomic(&p, b"new", Kind::Source).unwrap();
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o640);
    }

    #[cfg(unix)]
    #[test]
    fn keeps_the_owner_when_root() {
        use std::os::unix::fs::MetadataExt;
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("x.rs");
        std::fs::write(&p, "old").unwrap();
        // Giving the file away only works as root; elsewhere there is nothing to keep.
        if std::os::unix::fs::chown(&p, Some(12345), Some(23456)).is_err() {
            eprintln!("not root: the owner case needs chown rights");
            return;
        }
        write_file_atomic(&p, b"new", Kind::Source).unwrap();
        let m = std::fs::metadata(&p).unwrap();
        assert_eq!((m.uid(), m.gid()), (12345, 23456));
    }

    #[cfg(unix)]
    #[test]
    fn read_only_targets_are_refused_even_for_root() {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("x.rs");
        std::fs::write(&p, "old").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o444)).unwrap();
        for kind in [Kind::Source, Kind::Report] {
            let e = write_file_atomic(&p, b"new", kind).unwrap_err();
            assert_eq!(e.kind, ErrorKind::ReadOnly, "{e}");
            assert!(e.to_string().contains("read-only"), "{e}");
        }
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "old");
        assert_eq!(names(t.path()), vec!["x.rs"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_as_source_and_written_in_place_as_report() {
        use std::os::unix::fs::FileTypeExt;
        let t = tempfile::tempdir().unwrap();
        let fifo = t.path().join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo makes the FIFO");
        let e = write_file_atomic(&fifo, b"x", Kind::Source).unwrap_err();
        assert_eq!(e.kind, ErrorKind::NotRegular);
        assert!(e.message.contains("FIFO"), "{e}");
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).unwrap())
        };
        write_file_atomic(&fifo, b"report\n", Kind::Report).unwrap();
        // Before joining: had the FIFO been replaced, the reader would wait for a writer forever.
        let m = std::fs::symlink_metadata(&fifo).unwrap();
        assert!(m.file_type().is_fifo(), "the FIFO is still a FIFO");
        assert_eq!(reader.join().unwrap(), b"report\n");
    }

    #[cfg(unix)]
    #[test]
    fn a_planted_link_at_a_temporary_name_is_not_followed() {
        let t = tempfile::tempdir().unwrap();
        let victim = t.path().join("victim");
        std::fs::write(&victim, "precious").unwrap();
        // Every name the create may try cannot be planted (it is random), so plant the create's
        // own callback's view: a link where the file would be created must make it fail.
        let planted = t.path().join(format!("{TEMP_PREFIX}planted"));
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        let e = create_exclusive(&planted).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    }

    #[test]
    fn a_set_is_written_whole() {
        let t = tempfile::tempdir().unwrap();
        let (a, b, c) = (
            t.path().join("a.rs"),
            t.path().join("b.rs"),
            t.path().join("c.rs"),
        );
        std::fs::write(&a, "a0").unwrap();
        std::fs::write(&b, "b0").unwrap();
        write_all_or_none(&[(&a, "a1"), (&b, "b1"), (&c, "c1")], Kind::Source).unwrap();
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "a1");
        assert_eq!(std::fs::read_to_string(&b).unwrap(), "b1");
        assert_eq!(std::fs::read_to_string(&c).unwrap(), "c1");
        assert_eq!(names(t.path()), vec!["a.rs", "b.rs", "c.rs"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_set_with_a_refused_member_changes_nothing() {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        let (a, b) = (t.path().join("a.rs"), t.path().join("b.rs"));
        std::fs::write(&a, "a0").unwrap();
        std::fs::write(&b, "b0").unwrap();
        std::fs::set_permissions(&b, std::fs::Permissions::from_mode(0o444)).unwrap();
        let e = write_all_or_none(&[(&a, "a1"), (&b, "b1")], Kind::Source).unwrap_err();
        assert_eq!(e.kind, ErrorKind::ReadOnly);
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "a0");
        assert_eq!(names(t.path()), vec!["a.rs", "b.rs"]);
        // The same file twice, once through a link, is refused before anything is written.
        let link = t.path().join("link.rs");
        std::os::unix::fs::symlink(&a, &link).unwrap();
        let e = write_all_or_none(&[(&a, "a1"), (&link, "a2")], Kind::Source).unwrap_err();
        assert!(e.message.contains("twice"), "{e}");
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "a0");
    }

    #[test]
    fn a_rename_failing_midway_puts_back_what_was_replaced() {
        let t = tempfile::tempdir().unwrap();
        let (a, b, c) = (
            t.path().join("a.rs"),
            t.path().join("b.rs"),
            t.path().join("c.rs"),
        );
        std::fs::write(&a, "a0").unwrap();
        std::fs::write(&c, "c0").unwrap();
        let mut calls = 0;
        let mut flaky = |tmp: tempfile::TempPath, real: &Path| {
            calls += 1;
            if calls == 3 {
                return Err(error(real, ErrorKind::Io, "injected failure"));
            }
            commit(tmp, real)
        };
        let e = write_all_or_none_with(
            &[(&a, "a1"), (&b, "b1"), (&c, "c1")],
            Kind::Source,
            &mut flaky,
        )
        .unwrap_err();
        assert!(e.message.contains("injected failure"), "{e}");
        assert!(e.message.contains("no file of the set was changed"), "{e}");
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "a0");
        assert!(!b.exists(), "a file the set created is removed again");
        assert_eq!(std::fs::read_to_string(&c).unwrap(), "c0");
        assert_eq!(
            names(t.path()),
            vec!["a.rs", "c.rs"],
            "no temporary file left"
        );
    }

    #[test]
    fn leftovers_older_than_the_run_are_removed_and_nothing_else() {
        let t = tempfile::tempdir().unwrap();
        let old = t.path().join(format!("{TEMP_PREFIX}abc"));
        let fresh = t.path().join(format!("{TEMP_PREFIX}def"));
        let other = t.path().join(".x.rs.tmp");
        for p in [&old, &fresh, &other] {
            std::fs::write(p, "partial").unwrap();
        }
        let hour = std::time::Duration::from_secs(3600);
        let started = SystemTime::now();
        let set = |p: &Path, when: SystemTime| {
            File::options()
                .write(true)
                .open(p)
                .unwrap()
                .set_modified(when)
                .unwrap()
        };
        set(&old, started - hour);
        set(&other, started - hour);
        set(&fresh, started + hour);
        assert_eq!(clean_leftovers(t.path(), started), vec![old.clone()]);
        assert!(fresh.exists() && other.exists() && !old.exists());
    }
}
