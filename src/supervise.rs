//! The second line of defence: when one file's analysis kills the process, the other files are
//! still linted and fixed.
//!
//! The depth guard (`parse.rs`) refuses every nesting shape known to exhaust the stack, and a
//! panic in one file's analysis is caught on its thread (`lint.rs`). A stack overflow cannot be
//! caught: the runtime aborts the whole process. `stacker` only grows the stack where it is
//! called, and the deepest recursion is syn's own; a signal handler that jumps out of the
//! overflowing thread would skip destructors and leave its thread-local state (syn's span table)
//! broken. So the command runs in a child process, and this process watches it: the child notes
//! in a journal each file's analysis as it starts and ends; when the child dies by a signal,
//! the files whose analysis was under way are the suspects, and the command runs again with
//! those files reported as an internal error (MCP900) instead of analysed. Nothing is written
//! before the analysis ends (reports, fixes, baselines), so the run that completes is the only
//! one that writes. The cost is one more process per run (measured in the README).

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// In the child: the journal to append to.
const JOURNAL_ENV: &str = "MCP_LINT_JOURNAL";
/// In the child: the files not to analyse, hex-encoded display paths, one per line.
const CRASHED_ENV: &str = "MCP_LINT_CRASHED";
/// In the child: analyse one file at a time, so that a crash has one suspect.
const ONE_THREAD_ENV: &str = "MCP_LINT_ONE_THREAD";
/// Runs of the command at most: each run after a crash skips at least one more file.
const MAX_RUNS: usize = 8;

fn hex(s: &str) -> String {
    let mut out = String::with_capacity(s.len() * 2);
    push_hex(&mut out, s);
    out
}

/// Appends `s` hex-encoded: two notes per analysed file, so no `format!` (and no allocation) per
/// byte.
fn push_hex(out: &mut String, s: &str) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for b in s.bytes() {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 15)]));
    }
}

fn unhex(s: &str) -> Option<String> {
    let bytes: Option<Vec<u8>> = (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect();
    String::from_utf8(bytes?).ok()
}

/// The journal, in the child. Notes are stored into a shared mapping of the journal file: a
/// store is in the page cache at once, where the watching process reads it after a crash, and
/// takes no system call (two `write`s per analysed file were about 1% of a run's CPU). Where the
/// file cannot be mapped, each note is one `write`.
enum Journal {
    #[cfg(unix)]
    Mapped(Mapped),
    Appended(std::fs::File),
}

impl Journal {
    fn open(path: &Path) -> Option<Journal> {
        #[cfg(unix)]
        if let Some(m) = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .ok()
            .and_then(Mapped::new)
        {
            return Some(Journal::Mapped(m));
        }
        let file = std::fs::OpenOptions::new().append(true).open(path).ok()?;
        Some(Journal::Appended(file))
    }

    /// Appends the note `mark` for `path`: `S`tarted or `E`nded.
    fn note(&mut self, mark: u8, path: &str) {
        #[cfg(unix)]
        if let Journal::Mapped(m) = self {
            if m.note(mark, path) {
                return;
            }
            // The file could not grow: later notes are written after what is mapped (the
            // reader skips the zeros between).
            use std::io::Seek;
            let Ok(mut file) = m.file.try_clone() else {
                return;
            };
            if file.seek(std::io::SeekFrom::End(0)).is_err() {
                return;
            }
            *self = Journal::Appended(file);
        }
        if let Journal::Appended(f) = self {
            let mut line = String::with_capacity(path.len() * 2 + 3);
            line.push(char::from(mark));
            line.push(' ');
            push_hex(&mut line, path);
            line.push('\n');
            let _ = f.write_all(line.as_bytes());
        }
    }
}

/// Bytes the journal file grows by: a run of a few thousand files fits in one.
#[cfg(unix)]
const CHUNK: usize = 1 << 20;

/// The part of the journal file mapped for writing: `chunk` starts at `offset` in the file, and
/// its first `used` bytes hold notes.
#[cfg(unix)]
struct Mapped {
    file: std::fs::File,
    offset: u64,
    chunk: &'static [std::sync::atomic::AtomicU8],
    used: usize,
}

#[cfg(unix)]
impl Mapped {
    fn new(file: std::fs::File) -> Option<Mapped> {
        let mut m = Mapped {
            file,
            offset: 0,
            chunk: &[],
            used: 0,
        };
        m.grow(0)?;
        Some(m)
    }

    /// Extends the file and maps the new part, at least `need` bytes. Earlier chunks stay
    /// mapped until the process ends (a handful per run at most; unmapping them buys nothing).
    fn grow(&mut self, need: usize) -> Option<()> {
        use std::os::fd::AsRawFd;
        let len = need.div_ceil(CHUNK).max(1) * CHUNK;
        let offset = self.offset + self.chunk.len() as u64;
        self.file.set_len(offset + len as u64).ok()?;
        // SAFETY: a fresh mapping of a part of the file that exists (just extended), at an
        // offset that is a multiple of CHUNK and so of the page size; nothing else maps it or
        // truncates the file while this process runs (the parent creates the file before it
        // starts this process and reads it after this process is gone).
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                self.file.as_raw_fd(),
                libc::off_t::try_from(offset).ok()?,
            )
        };
        if ptr == libc::MAP_FAILED {
            return None;
        }
        // SAFETY: the mapping is `len` bytes, readable and writable, zero-filled, and never
        // unmapped, so it lives as long as the process; `AtomicU8` has the layout of `u8`, and
        // every access goes through it, so threads that store notes side by side do not race.
        self.chunk = unsafe { std::slice::from_raw_parts(ptr.cast(), len) };
        self.offset = offset;
        self.used = 0;
        Some(())
    }

    /// Stores one note; `false` when the file cannot grow to hold it. The mark is stored last:
    /// a note cut short by the death of the process has none, and the reader skips it.
    fn note(&mut self, mark: u8, path: &str) -> bool {
        use std::sync::atomic::Ordering::{Relaxed, Release};
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let n = path.len() * 2 + 3;
        if self.chunk.len() - self.used < n && self.grow(n).is_none() {
            return false;
        }
        let slots = &self.chunk[self.used..self.used + n];
        slots[1].store(b' ', Relaxed);
        for (pair, b) in slots[2..].chunks_exact(2).zip(path.bytes()) {
            pair[0].store(DIGITS[usize::from(b >> 4)], Relaxed);
            pair[1].store(DIGITS[usize::from(b & 15)], Relaxed);
        }
        slots[n - 1].store(b'\n', Relaxed);
        slots[0].store(mark, Release);
        self.used += n;
        true
    }
}

fn journal() -> Option<&'static Mutex<Journal>> {
    static JOURNAL: OnceLock<Option<Mutex<Journal>>> = OnceLock::new();
    JOURNAL
        .get_or_init(|| {
            let path = std::env::var_os(JOURNAL_ENV)?;
            Some(Mutex::new(Journal::open(Path::new(&path))?))
        })
        .as_ref()
}

fn note(mark: u8, path: &str) {
    if let Some(j) = journal() {
        if let Ok(mut j) = j.lock() {
            j.note(mark, path);
        }
    }
}

/// Runs one file's analysis (`path` as findings name it), noted in the journal when this process
/// is watched; `None` when an earlier run of the command died analysing this file.
pub fn analysis<T>(path: &str, work: impl FnOnce() -> T) -> Option<T> {
    if crashed().contains(path) {
        return None;
    }
    note(b'S', path);
    let out = work();
    note(b'E', path);
    Some(out)
}

/// The files an earlier run died analysing.
fn crashed() -> &'static BTreeSet<String> {
    static CRASHED: OnceLock<BTreeSet<String>> = OnceLock::new();
    CRASHED.get_or_init(|| {
        std::env::var(CRASHED_ENV)
            .unwrap_or_default()
            .lines()
            .filter_map(unhex)
            .collect()
    })
}

/// Whether an earlier run died with several files under way, so this one analyses one at a time.
pub fn one_thread() -> bool {
    std::env::var_os(ONE_THREAD_ENV).is_some()
}

/// In the parent: runs the command in a child process until a run ends without dying by a
/// signal, and returns its exit status (`error_status` when no run completes). `None` when this
/// process is the child, or no child can be started (the caller then runs the command itself,
/// unwatched).
#[cfg(unix)]
pub fn supervise(args: &[String], error_status: i32) -> Option<i32> {
    use std::os::unix::process::ExitStatusExt;
    if std::env::var_os(JOURNAL_ENV).is_some() {
        follow_the_parent(error_status);
        return None;
    }
    let exe = std::env::current_exe().ok()?;
    let dir = PrivateDir::new()?;
    let journal = dir.0.join("journal");
    let mut skipped: BTreeSet<String> = BTreeSet::new();
    let mut one_thread = false;
    for _ in 0..MAX_RUNS {
        std::fs::File::create(&journal).ok()?;
        let mut child = std::process::Command::new(&exe);
        child
            .args(args.iter().skip(1))
            .env(JOURNAL_ENV, &journal)
            .env(
                CRASHED_ENV,
                skipped.iter().map(|p| hex(p) + "\n").collect::<String>(),
            );
        if one_thread {
            child.env(ONE_THREAD_ENV, "1");
        }
        let status = child.status().ok()?;
        let Some(signal) = status.signal() else {
            return Some(status.code().unwrap_or(error_status));
        };
        let under_way = under_way(&journal);
        if under_way.is_empty() || under_way.is_subset(&skipped) {
            eprintln!(
                "error: the linter died (signal {signal}) outside the analysis of any one file; \
please report it"
            );
            return Some(error_status);
        }
        if under_way.len() > 1 {
            // Which of them did it is unknown: run again one at a time to find out.
            one_thread = true;
            continue;
        }
        for p in &under_way {
            eprintln!(
                "note: the linter died (signal {signal}) analysing {p}; running again without \
analysing it"
            );
        }
        skipped.extend(under_way);
    }
    eprintln!("error: the linter died {MAX_RUNS} times; please report it");
    Some(error_status)
}

/// In the child: ends this process when the watching one is gone (killed by a signal sent to it
/// alone, as a service manager may), rather than go on linting and fixing for no one.
#[cfg(unix)]
fn follow_the_parent(error_status: i32) {
    let parent = std::os::unix::process::parent_id();
    let _ = std::thread::Builder::new()
        .name("parent-watch".into())
        .stack_size(64 << 10)
        .spawn(move || loop {
            std::thread::sleep(std::time::Duration::from_millis(250));
            if std::os::unix::process::parent_id() != parent {
                std::process::exit(error_status);
            }
        });
}

#[cfg(not(unix))]
pub fn supervise(_args: &[String], _error_status: i32) -> Option<i32> {
    None
}

/// Files whose analysis started and did not end, per the journal.
fn under_way(journal: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(journal).unwrap_or_default();
    let mut open = BTreeSet::new();
    // A mapped journal ends in zeros, and a note the death of the process cut short has a zero
    // for its mark: both are skipped.
    for line in text.split(['\n', '\0']) {
        let Some((mark, path)) = line.split_once(' ') else {
            continue;
        };
        let Some(path) = unhex(path) else { continue };
        match mark {
            "S" => {
                open.insert(path);
            }
            "E" => {
                open.remove(&path);
            }
            _ => {}
        }
    }
    open
}

/// A directory only this user can enter, under an unguessable name, removed when dropped: the
/// journal cannot be planted or read by anyone else.
struct PrivateDir(PathBuf);

impl PrivateDir {
    #[cfg(unix)]
    fn new() -> Option<PrivateDir> {
        use std::os::unix::fs::DirBuilderExt;
        let base = std::env::temp_dir();
        for attempt in 0..16u32 {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            let name = format!(
                "mcp-lint-{}-{:x}",
                std::process::id(),
                nanos ^ (u128::from(attempt) << 64) ^ u128::from(random_bits())
            );
            let dir = base.join(name);
            // `create` fails when anything, a planted link included, is already there.
            if std::fs::DirBuilder::new().mode(0o700).create(&dir).is_ok() {
                return Some(PrivateDir(dir));
            }
        }
        None
    }
}

/// Bits from std's per-process random hasher keys: no dependency for an unguessable name.
fn random_bits() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    h.finish()
}

impl Drop for PrivateDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_survive_the_journal_encoding() {
        for p in ["src/a.rs", "src/new\nline.rs", "é/ü.rs", ""] {
            assert_eq!(unhex(&hex(p)).as_deref(), Some(p));
        }
        assert_eq!(unhex("zz"), None);
    }

    #[test]
    fn under_way_is_started_and_not_ended() {
        let dir = tempfile::tempdir().unwrap();
        let j = dir.path().join("j");
        let text = format!(
            "S {}\nS {}\nE {}\nS {}\ngarbage\n",
            hex("a.rs"),
            hex("b.rs"),
            hex("a.rs"),
            hex("c\n.rs")
        );
        std::fs::write(&j, text).unwrap();
        let got: Vec<String> = under_way(&j).into_iter().collect();
        assert_eq!(got, ["b.rs", "c\n.rs"]);
    }

    #[test]
    fn the_journal_reads_back_what_the_notes_said_past_a_chunk_and_a_torn_note() {
        let dir = tempfile::tempdir().unwrap();
        let j = dir.path().join("j");
        std::fs::File::create(&j).unwrap();
        let mut journal = Journal::open(&j).unwrap();
        #[cfg(unix)]
        assert!(matches!(journal, Journal::Mapped(_)));
        // Past one chunk, and a path longer than a chunk.
        let long = "x".repeat(600 << 10);
        let names: Vec<String> = (0..20_000).map(|i| format!("src/f{i}.rs")).collect();
        for n in &names {
            journal.note(b'S', n);
            if n != "src/f7.rs" {
                journal.note(b'E', n);
            }
        }
        journal.note(b'S', &long);
        journal.note(b'S', "é/ü.rs");
        journal.note(b'E', "é/ü.rs");
        drop(journal);
        let got: Vec<String> = under_way(&j).into_iter().collect();
        assert_eq!(got, ["src/f7.rs".to_string(), long.clone()]);
        // A note the death of the process cut short: no mark yet, its path half written, in
        // the zeros a mapped journal ends with.
        if !cfg!(unix) {
            return;
        }
        let mut text = std::fs::read(&j).unwrap();
        let end = text.iter().rposition(|&b| b == b'\n').unwrap() + 1;
        let torn = format!("\0 {}", hex("src/torn.rs"));
        text[end..end + 12].copy_from_slice(&torn.as_bytes()[..12]);
        std::fs::write(&j, text).unwrap();
        let got: Vec<String> = under_way(&j).into_iter().collect();
        assert_eq!(got, ["src/f7.rs".to_string(), long]);
    }
}
