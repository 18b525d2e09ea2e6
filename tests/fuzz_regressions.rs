//! Replays every input the fuzzer kept (`fuzz/corpus/engine/`) and every minimal reproduction of an
//! engine bug (`fuzz/regressions/`) through the whole engine, with the fuzz target's own checks
//! (`fuzz/common/exercise.rs`): no panic, no caught internal error, findings inside the file, the
//! prefilter hiding nothing, every reporter, the JSON round trip.

use std::path::{Path, PathBuf};

#[path = "../fuzz/common/exercise.rs"]
mod exercise;

fn inputs(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("readable directory entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

fn replay(dir: &str, at_least: usize) {
    let files = inputs(dir);
    assert!(
        files.len() >= at_least,
        "{dir} has {} inputs, expected at least {at_least}",
        files.len()
    );
    // The inputs are independent: spread them over the cores (CI has two) to keep the suite fast.
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = files.len().div_ceil(workers).max(1);
    let failed: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = files
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    part.iter()
                        .filter_map(|f| replay_one(f))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("replay worker"))
            .collect()
    });
    assert!(
        failed.is_empty(),
        "{} of {} inputs failed:\n{}",
        failed.len(),
        files.len(),
        failed.join("\n")
    );
}

/// `None` when the input passes, else the input's path and the first line of what broke.
fn replay_one(f: &Path) -> Option<String> {
    let data = std::fs::read(f).expect("readable input");
    let panic = std::panic::catch_unwind(|| exercise::exercise(&data)).err()?;
    let why = panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    Some(format!(
        "{}: {}",
        f.display(),
        why.lines().next().unwrap_or("")
    ))
}

#[test]
fn fuzz_corpus_replays_cleanly() {
    replay("fuzz/corpus/engine", 50);
}

#[test]
fn engine_bug_reproductions_stay_fixed() {
    replay("fuzz/regressions", 1);
}
