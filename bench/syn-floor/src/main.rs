//! The parse floor of the benchmark: read and `syn::parse_file` every `.rs` file under the given
//! paths on one thread, and print what it did as one `key=value` line.
//!
//! File discovery uses the `ignore` crate with its defaults (the same rules as `rg --files` and a
//! gitignore-aware linter), so all tools in `bench/run.sh` see the same file set.

use std::path::PathBuf;
use std::time::{Duration, Instant};

fn main() {
    let roots: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    if roots.is_empty() {
        eprintln!("usage: syn-floor PATH...");
        std::process::exit(2);
    }

    let walk_start = Instant::now();
    let mut files = Vec::new();
    for root in &roots {
        for entry in ignore::WalkBuilder::new(root).build() {
            match entry {
                Ok(entry) => {
                    let is_file = entry.file_type().is_some_and(|t| t.is_file());
                    if is_file && entry.path().extension().is_some_and(|e| e == "rs") {
                        files.push(entry.into_path());
                    }
                }
                Err(err) => eprintln!("walk error: {err}"),
            }
        }
    }
    let walk = walk_start.elapsed();

    let mut read = Duration::ZERO;
    let mut parse = Duration::ZERO;
    let (mut bytes, mut lines, mut parsed, mut failed, mut unreadable) = (0u64, 0u64, 0u64, 0u64, 0u64);
    for path in &files {
        let t = Instant::now();
        let text = match std::fs::read(path).map(String::from_utf8) {
            Ok(Ok(text)) => text,
            _ => {
                unreadable += 1;
                continue;
            }
        };
        read += t.elapsed();
        bytes += text.len() as u64;
        lines += text.lines().count() as u64;

        let t = Instant::now();
        let result = syn::parse_file(&text);
        parse += t.elapsed();
        match result {
            Ok(file) => {
                parsed += 1;
                // Dropping the tree is part of the cost a linter pays too.
                drop(std::hint::black_box(file));
            }
            Err(_) => failed += 1,
        }
    }

    let mb_per_s = bytes as f64 / 1e6 / parse.as_secs_f64().max(1e-9);
    println!(
        "files={} parsed={} parse_errors={} unreadable={} bytes={} lines={} walk_ms={:.1} read_ms={:.1} parse_ms={:.1} parse_mb_per_s={:.2}",
        files.len(),
        parsed,
        failed,
        unreadable,
        bytes,
        lines,
        walk.as_secs_f64() * 1e3,
        read.as_secs_f64() * 1e3,
        parse.as_secs_f64() * 1e3,
        mb_per_s
    );
}
