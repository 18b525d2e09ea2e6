//! `cargo check` of the packages a migration touched, with a progress line while cargo runs, and
//! each compiler error tied to the finding that explains it (same file, nearby line).

use std::io::{BufRead, BufReader, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::report::{CompilerError, PackageBuild};
use crate::finding::Finding;

/// Lines between a compiler error and a finding that still count as the same place: a fix the
/// migration could not finish leaves its error at the call or in the lines around it.
const NEARBY: usize = 12;

/// Checks the package of `manifest` and ties its errors to `remaining` (paths relative to
/// `base`). `progress`: where the progress line goes (stderr).
pub fn check(
    manifest: &Path,
    base: &Path,
    remaining: &[Finding],
    migrated: &[Finding],
    progress: &mut dyn Write,
) -> PackageBuild {
    let shown = crate::reading::source::display_path(manifest, base);
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    // A virtual workspace manifest (one with no package) stands for every member.
    let virtual_manifest = std::fs::read_to_string(manifest)
        .is_ok_and(|t| !t.lines().any(|l| l.trim() == "[package]"));
    let child = Command::new(&cargo)
        .args(["check", "--message-format", "json"])
        .arg("--manifest-path")
        .arg(manifest)
        .args(virtual_manifest.then_some("--workspace"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            return PackageBuild {
                manifest: shown,
                passed: false,
                errors: Vec::new(),
                cargo_said: Some(format!("cannot run `{}`: {e}", cargo.to_string_lossy())),
            }
        }
    };
    // Cargo's own lines (`Compiling x`, `error: ..`) on stderr feed the progress line and, when
    // it fails with no compiler error, the report; the JSON messages come on stdout.
    let stderr = child.stderr.take().expect("piped");
    let tty = std::io::stderr().is_terminal();
    let label = shown.clone();
    let said = std::thread::scope(|scope| {
        let reader = scope.spawn(move || {
            let mut said = Vec::new();
            // Not locked for the whole run: the caller may write to stderr meanwhile.
            let mut out = std::io::stderr();
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let status = line.trim_start();
                if tty && !status.is_empty() {
                    let short: String = status.chars().take(70).collect();
                    let _ = write!(out, "\r\x1b[K  cargo check {label}: {short}");
                    let _ = out.flush();
                }
                said.push(line);
            }
            if tty {
                let _ = write!(out, "\r\x1b[K");
            }
            said
        });
        let _ = writeln!(progress, "checking {shown} (cargo check)...");
        let stdout = child.stdout.take().expect("piped");
        let mut messages = Vec::new();
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Some(m) = compiler_error(&line) {
                messages.push(m);
            }
        }
        (messages, reader.join().unwrap_or_default())
    });
    let (messages, said) = said;
    let passed = child.wait().is_ok_and(|s| s.success());
    let errors: Vec<CompilerError> = messages
        .into_iter()
        .map(|m| explain(m, base, remaining, migrated))
        .collect();
    let cargo_said = (!passed && errors.is_empty()).then(|| tail(&said, 15));
    PackageBuild {
        manifest: shown,
        passed,
        errors,
        cargo_said,
    }
}

/// An error as rustc reported it: the file (absolute), line, column and message.
#[derive(Debug, Clone, PartialEq)]
pub struct Raw {
    pub file: PathBuf,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// One line of `--message-format json`: a compiler error's primary span, or `None`.
pub fn compiler_error(line: &str) -> Option<Raw> {
    let v: serde_json::Value = serde_json::from_str(line).ok()?;
    if v.get("reason")?.as_str()? != "compiler-message" {
        return None;
    }
    let msg = v.get("message")?;
    if msg.get("level")?.as_str()? != "error" {
        return None;
    }
    let text = msg.get("message")?.as_str()?;
    let code = msg
        .get("code")
        .and_then(|c| c.get("code"))
        .and_then(|c| c.as_str());
    let span = msg
        .get("spans")?
        .as_array()?
        .iter()
        .find(|s| s.get("is_primary").and_then(|p| p.as_bool()) == Some(true));
    // rustc names a span's file relative to the workspace root; the target's source file is
    // absolute and lies under that root.
    let src_path = v
        .get("target")
        .and_then(|t| t.get("src_path"))
        .and_then(|p| p.as_str())
        .map(PathBuf::from);
    let (file, line, column) = match span {
        Some(s) => {
            let name = PathBuf::from(s.get("file_name")?.as_str()?);
            let file = if name.is_absolute() {
                name
            } else {
                src_path
                    .as_deref()
                    .and_then(|src| {
                        src.ancestors()
                            .map(|a| a.join(&name))
                            .find(|candidate| candidate.is_file())
                    })
                    .unwrap_or(name)
            };
            (
                file,
                s.get("line_start")?.as_u64()? as usize,
                s.get("column_start")?.as_u64()? as usize,
            )
        }
        None => (src_path.unwrap_or_default(), 0, 0),
    };
    let message = match code {
        Some(c) => format!("error[{c}]: {text}"),
        None => format!("error: {text}"),
    };
    Some(Raw {
        file,
        line,
        column,
        message: message.lines().next().unwrap_or_default().to_string(),
    })
}

/// Ties `raw` to the nearest remaining finding in its file within [`NEARBY`] lines, else to the
/// nearest site the migration rewrote there (`migrated`, at its line before the rewrite: an
/// approximation, the rewrite moves lines by a few).
pub fn explain(
    raw: Raw,
    base: &Path,
    remaining: &[Finding],
    migrated: &[Finding],
) -> CompilerError {
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let file = canon(&raw.file);
    let nearest = |list: &[Finding]| -> Option<Finding> {
        list.iter()
            .filter(|f| raw.line.abs_diff(f.line) <= NEARBY)
            .filter(|f| canon(&base.join(&f.path)) == file)
            .min_by_key(|f| raw.line.abs_diff(f.line))
            .cloned()
    };
    let explained_by = match nearest(remaining) {
        Some(f) => Some(format!(
            "{} at `{}:{}` ({})",
            f.code, f.path, f.line, f.name
        )),
        None => nearest(migrated).map(|f| {
            format!(
                "the migration of {} at `{}:{}` (its line before the rewrite)",
                f.code, f.path, f.line
            )
        }),
    };
    CompilerError {
        path: crate::reading::source::display_path(&raw.file, base),
        line: raw.line,
        column: raw.column,
        message: raw.message,
        explained_by,
    }
}

/// At most `n` lines of what cargo said, from its first `error` line (else its last `n`), the
/// status lines (`Compiling`, `Checking`) left out.
fn tail(lines: &[String], n: usize) -> String {
    let kept: Vec<&String> = lines
        .iter()
        .filter(|l| {
            let t = l.trim_start();
            !(t.starts_with("Compiling ")
                || t.starts_with("Checking ")
                || t.starts_with("Downloaded ")
                || t.starts_with("Downloading ")
                || t.starts_with("Locking ")
                || t.starts_with("Adding ")
                || t.starts_with("Updating ")
                || t.starts_with("Blocking "))
        })
        .collect();
    // From cargo's first `error` line (what failed), else the end of what it said.
    let start = kept
        .iter()
        .position(|l| l.starts_with("error"))
        .unwrap_or_else(|| kept.len().saturating_sub(n));
    let end = (start + n).min(kept.len());
    kept[start..end]
        .iter()
        .map(|s| s.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(path: &str, line: usize) -> Finding {
        Finding {
            code: "MCP001".into(),
            name: "legacy-elicitation-request".into(),
            level: crate::finding::Level::Error,
            path: path.into(),
            line,
            column: 1,
            end_line: line,
            end_column: 2,
            message: String::new(),
            mcp_method: None,
            sdk: None,
            help: None,
            fix: None,
        }
    }

    #[test]
    fn an_error_near_a_finding_is_explained_and_one_elsewhere_is_not() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        let main = dir.path().join("src/main.rs");
        std::fs::write(&main, "fn main() {}\n").unwrap();
        let line = |n: usize| {
            format!(
                r#"{{"reason":"compiler-message","target":{{"src_path":"{}"}},"message":{{"level":"error","message":"mismatched types\nmore","code":{{"code":"E0308"}},"spans":[{{"file_name":"src/main.rs","line_start":{n},"column_start":5,"is_primary":true}}]}}}}"#,
                main.display()
            )
        };
        let remaining = [finding("src/main.rs", 40)];
        let near = compiler_error(&line(45)).expect("an error");
        assert_eq!(
            near.file, main,
            "the relative span is found under the target's root"
        );
        assert_eq!(near.message, "error[E0308]: mismatched types");
        let e = explain(near.clone(), dir.path(), &remaining, &[]);
        assert_eq!(e.path, "src/main.rs");
        assert!(
            e.explained_by
                .as_deref()
                .unwrap()
                .starts_with("MCP001 at `src/main.rs:40`"),
            "{e:?}"
        );
        let far = explain(
            compiler_error(&line(90)).unwrap(),
            dir.path(),
            &remaining,
            &[],
        );
        assert_eq!(far.explained_by, None);
        // With no finding left there, a site the migration rewrote nearby explains it.
        let e = explain(near, dir.path(), &[], &remaining);
        assert!(
            e.explained_by
                .as_deref()
                .unwrap()
                .starts_with("the migration of MCP001 at `src/main.rs:40`"),
            "{e:?}"
        );
        // Warnings and other messages are not errors.
        assert!(compiler_error(&line(3).replace("\"error\"", "\"warning\"")).is_none());
        assert!(compiler_error(r#"{"reason":"build-finished","success":false}"#).is_none());
    }

    #[test]
    fn what_cargo_said_leaves_out_its_status_lines() {
        let said: Vec<String> = [
            "    Updating index",
            "   Compiling a v1",
            "error: failed to select a version for `nope`",
            "  required by package `a`",
            "  stack backtrace:",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            tail(&said, 2),
            "error: failed to select a version for `nope`\n  required by package `a`",
            "from the first error line on, at most n lines"
        );
    }
}
