//! Shared by the fixture tests (`fixtures_expected`, `sdk_*`): lint a fixture crate (or a copy of it under another manifest) and
//! compare the findings with `// ~ CODE` annotations or with an explicit list.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use mcp_lint::finding::{Finding, Report};
use mcp_lint::{lint_paths, Settings};

/// (path relative to the crate, line) → sorted codes.
pub type Expected = BTreeMap<(String, usize), Vec<String>>;

pub fn fixture_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

pub fn lint_dir(dir: &Path) -> Report {
    let settings = Settings {
        base_dir: dir.to_path_buf(),
        ..Settings::default()
    };
    let report = lint_paths(&[dir.to_path_buf()], &settings);
    assert!(
        report.errors.is_empty(),
        "{}: {:?}",
        dir.display(),
        report.errors
    );
    report
}

/// Only the codes this work is about: other rules (MCP1xx safety checks) have their own tests.
pub fn legacy_codes(report: &Report) -> Vec<&Finding> {
    report
        .findings
        .iter()
        .filter(|f| {
            matches!(
                f.code.as_str(),
                "MCP001" | "MCP002" | "MCP003" | "MCP004" | "MCP006"
            )
        })
        .collect()
}

pub fn got(report: &Report) -> Expected {
    let mut out = Expected::new();
    for f in legacy_codes(report) {
        out.entry((f.path.clone(), f.line))
            .or_default()
            .push(f.code.clone());
    }
    for codes in out.values_mut() {
        codes.sort();
    }
    out
}

fn is_code(c: &str) -> bool {
    c.len() == 6 && c.starts_with("MCP") && c[3..].chars().all(|d| d.is_ascii_digit())
}

/// The `// ~ CODE ...` annotations of every `.rs` file under `dir`.
pub fn annotations(dir: &Path) -> Expected {
    let mut out = Expected::new();
    for path in rust_files(dir) {
        let text = std::fs::read_to_string(&path).unwrap();
        let rel = path
            .strip_prefix(dir)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        for (i, line) in text.lines().enumerate() {
            if let Some(pos) = line.find("// ~ ") {
                let mut codes: Vec<String> = line[pos + 5..]
                    .split_whitespace()
                    .map(str::to_string)
                    .collect();
                assert!(
                    !codes.is_empty() && codes.iter().all(|c| is_code(c)),
                    "{rel}:{}: malformed annotation {line:?}",
                    i + 1
                );
                codes.sort();
                out.insert((rel.clone(), i + 1), codes);
            }
        }
    }
    out
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

pub fn assert_same(what: &str, want: &Expected, report: &Report) {
    let got = got(report);
    let missing: Vec<_> = want
        .iter()
        .filter(|(k, v)| got.get(*k) != Some(v))
        .collect();
    let extra: Vec<_> = got
        .iter()
        .filter(|(k, v)| want.get(*k) != Some(v))
        .collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "{what}:\n  expected but not found (or different): {missing:#?}\n  found but not expected: {extra:#?}\n  all: {:#?}",
        legacy_codes(report)
            .iter()
            .map(|f| format!("{}:{} {} [{:?}] {}", f.path, f.line, f.code, f.sdk, f.message))
            .collect::<Vec<_>>()
    );
}

/// A copy of a fixture crate's sources in a fresh temp dir, under the given `Cargo.toml` (none:
/// no manifest anywhere above the files, so the rules fall back to syntax) and `Cargo.lock`.
pub fn copy_with_manifest(
    fixture: &str,
    manifest: Option<&str>,
    lock: Option<&str>,
) -> tempfile::TempDir {
    let src = fixture_dir(fixture);
    let tmp = tempfile::tempdir().unwrap();
    for path in rust_files(&src) {
        let rel = path.strip_prefix(&src).unwrap();
        let to = tmp.path().join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&path, &to).unwrap();
    }
    if let Some(m) = manifest {
        std::fs::write(tmp.path().join("Cargo.toml"), m).unwrap();
    }
    if let Some(l) = lock {
        std::fs::write(tmp.path().join("Cargo.lock"), l).unwrap();
    }
    tmp
}

/// The 1-based line of the only line of `file` (under `dir`) that contains `needle`.
pub fn line_of(dir: &Path, file: &str, needle: &str) -> usize {
    let text = std::fs::read_to_string(dir.join(file)).unwrap();
    let hits: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains(needle))
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(
        hits.len(),
        1,
        "{needle:?} must be on exactly one line of {file}: {hits:?}"
    );
    hits[0]
}

/// An expectation built from `(needle, code)` pairs in `src/lib.rs`.
pub fn expect_lines(dir: &Path, pairs: &[(&str, &str)]) -> Expected {
    let mut out = Expected::new();
    for (needle, code) in pairs {
        out.entry(("src/lib.rs".to_string(), line_of(dir, "src/lib.rs", needle)))
            .or_default()
            .push(code.to_string());
    }
    for codes in out.values_mut() {
        codes.sort();
    }
    out
}

/// A minimal manifest with one dependency line.
pub fn manifest(dep_line: &str) -> String {
    format!("[package]\nname = \"fixture\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n{dep_line}\n")
}
