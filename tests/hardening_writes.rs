//! The write paths and the data-loss cases of issue 20, as a user (or an attacker with write access
//! to a folder) meets them: planted symlinks on every write path, symlinked targets, device nodes
//! and FIFOs, read-only files, killed runs' leftovers, baselines over a subset of the paths,
//! `--update-baseline` with unreadable paths, nested `//!` suppressions, a BOM, symlinked modules,
//! honest fix summaries, SARIF's `executionSuccessful` and a non-UTF-8 `Cargo.toml`.
//!
//! These run as root in CI: read-only refusal is checked through the mode bits, which root's
//! permission bypass does not change.

#[path = "gate_fixtures/common.rs"]
mod common;

use std::path::Path;
use std::process::Command;

use common::{run_in, Project, Run};

/// A file whose only finding (an unused suppression, MCP901) has a safe fix: `--fix` deletes the
/// directive line.
const FIXABLE: &str =
    "// mcp-lint: allow(MCP003) -- nothing asks for roots here any more\npub fn f() {}\n";
const FIXED: &str = "pub fn f() {}\n";

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_cargo-mcp-lint")
}

/// Runs the linter through `sh -c` so a shell can plant a symlink at the old predictable temporary
/// name `.<name>.mcp-lint-<pid>.tmp` first: `exec` keeps the shell's pid (`$$`) for the linter.
fn run_with_planted_link(
    dir: &Path,
    planted_in: &str,
    name: &str,
    victim: &Path,
    args: &[&str],
) -> Run {
    let script = format!(
        "ln -s '{}' '{planted_in}/.{name}.mcp-lint-'$$'.tmp' && exec '{}' \"$@\"",
        victim.display(),
        bin()
    );
    let out = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg("sh")
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn is_symlink(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink())
}

/// Names in `dir` that look like a temporary file of ours, old or new style.
fn temporaries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| {
            n.starts_with(".mcp-lint-tmp-")
                || (n.contains(".mcp-lint-") && n.ends_with(".tmp") && !n.starts_with(".planted"))
        })
        .collect()
}

#[test]
fn a_link_planted_at_the_old_temporary_name_is_not_followed_on_any_write_path() {
    let p = Project::new();
    p.write("src/lib.rs", FIXABLE);
    let victim = p.path("victim.txt");
    std::fs::write(&victim, "precious").unwrap();
    let check = |what: &str, planted: &Path| {
        assert_eq!(
            std::fs::read_to_string(&victim).unwrap(),
            "precious",
            "{what} wrote through the planted link"
        );
        assert!(
            is_symlink(planted),
            "{what}: the planted link is left alone"
        );
        std::fs::remove_file(planted).unwrap();
    };
    let planted_in = |dir: &str, name: &str| -> std::path::PathBuf {
        let found: Vec<_> = std::fs::read_dir(p.path(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|q| {
                let n = q.file_name().unwrap().to_string_lossy().into_owned();
                n.starts_with(&format!(".{name}.mcp-lint-")) && is_symlink(q)
            })
            .collect();
        assert_eq!(found.len(), 1, "{found:?}");
        found[0].clone()
    };

    // --fix
    let r = run_with_planted_link(
        p.dir.path(),
        "src",
        "lib.rs",
        &victim,
        &["--fix", "src/lib.rs"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(p.read("src/lib.rs"), FIXED);
    assert!(
        !is_symlink(&p.path("src/lib.rs")),
        "the target is a regular file"
    );
    check("--fix", &planted_in("src", "lib.rs"));

    // --output
    let r = run_with_planted_link(
        p.dir.path(),
        ".",
        "report.txt",
        &victim,
        &[
            "--format",
            "concise",
            "--output",
            "report.txt",
            "src/tools.rs",
        ],
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(p.read("report.txt").contains("error[MCP001]"));
    check("--output", &planted_in(".", "report.txt"));

    // --update-baseline
    let r = run_with_planted_link(
        p.dir.path(),
        ".",
        "bl.json",
        &victim,
        &["--baseline", "bl.json", "--update-baseline", "src"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(p.read("bl.json").contains("\"MCP001\""));
    check("--update-baseline", &planted_in(".", "bl.json"));

    // --add-suppressions
    let r = run_with_planted_link(
        p.dir.path(),
        "src",
        "tools.rs",
        &victim,
        &["--add-suppressions", "legacy", "src/tools.rs"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(p
        .read("src/tools.rs")
        .contains("// mcp-lint: allow(MCP001) -- legacy"));
    check("--add-suppressions", &planted_in("src", "tools.rs"));

    assert!(temporaries(&p.path("src")).is_empty());
    assert!(temporaries(p.dir.path()).is_empty());
}

#[cfg(unix)]
#[test]
fn a_symlinked_target_has_its_real_file_replaced_and_the_link_kept() {
    use std::os::unix::fs::symlink;
    let p = Project::new();
    p.write("real/lib.rs", FIXABLE);
    p.write("real/report.txt", "old report");
    symlink(p.path("real/lib.rs"), p.path("src/lib.rs")).unwrap();
    symlink(p.path("real/report.txt"), p.path("report.txt")).unwrap();
    let r = p.run(&["--fix", "src/lib.rs"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(is_symlink(&p.path("src/lib.rs")));
    assert_eq!(p.read("real/lib.rs"), FIXED);
    let r = p.run(&[
        "--format",
        "concise",
        "--output",
        "report.txt",
        "src/tools.rs",
    ]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(is_symlink(&p.path("report.txt")));
    assert!(p.read("real/report.txt").contains("error[MCP001]"));
    assert!(temporaries(&p.path("real")).is_empty());
}

/// A copy of a character device (`mknod NAME c MAJOR MINOR`); None where this user may not make
/// one (only root may, and CI runs as root).
#[cfg(unix)]
fn char_device(at: &Path, major: u32, minor: u32) -> Option<()> {
    let ok = Command::new("mknod")
        .arg(at)
        .args(["c", &major.to_string(), &minor.to_string()])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        eprintln!("skipped: mknod needs root");
    }
    ok.then_some(())
}

#[cfg(unix)]
fn is_char_device(p: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_char_device())
}

#[cfg(unix)]
#[test]
fn output_to_a_device_writes_in_place_and_fix_refuses_it() {
    let p = Project::new();
    // A copy of /dev/null takes the report; a copy of /dev/full fails it (no space), exit 2.
    let (null, full) = (p.path("null"), p.path("full"));
    if char_device(&null, 1, 3).is_none() || char_device(&full, 1, 7).is_none() {
        return;
    }
    let r = p.run(&["--format", "concise", "--output", "null", "src"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(is_char_device(&null), "the device is still a device");
    let r = p.run(&["--format", "concise", "--output", "full", "src"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("cannot write full: cannot write"),
        "{}",
        r.stderr
    );
    assert!(is_char_device(&full));
    // `--fix` never replaces a device: named on the command line it is an error line.
    char_device(&p.path("src/dev.rs"), 1, 3).unwrap();
    let r = p.run(&["--fix", "src/dev.rs"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stdout.contains("src/dev.rs: not a regular file"),
        "{}",
        r.stdout
    );
    assert!(is_char_device(&p.path("src/dev.rs")));
}

/// Opens and closes the FIFO's write end without blocking, so a reader still waiting (the run did
/// not write to it) gets an end of file instead of hanging the test.
#[cfg(unix)]
fn release(fifo: &Path) {
    use std::os::unix::fs::OpenOptionsExt;
    let _ = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(fifo);
}

#[cfg(unix)]
#[test]
fn output_to_a_fifo_and_to_dev_stdout_writes_in_place() {
    use std::os::unix::fs::FileTypeExt;
    let p = Project::new();
    let fifo = p.path("pipe");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success()));
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    let r = p.run(&["--format", "concise", "--output", "pipe", "src"]);
    // Checked before joining the reader: a FIFO replaced by a regular file would leave the reader
    // waiting for a writer forever.
    assert!(std::fs::symlink_metadata(&fifo)
        .unwrap()
        .file_type()
        .is_fifo());
    release(&fifo);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(reader.join().unwrap().contains("error[MCP001]"));
    // `--fix` given the FIFO refuses it without opening it (opening would block).
    let r = p.run(&["--fix", "pipe"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stdout.contains("pipe: not a regular file"),
        "{}",
        r.stdout
    );

    let r = p.run(&["--format", "concise", "--output", "/dev/stdout", "src"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stdout.contains("error[MCP001]"), "{}", r.stderr);

    // Stdout appending to a log (`>> log`): the log keeps its lines and gets the report after them.
    let log = p.path("log.txt");
    std::fs::write(&log, "earlier line\n").unwrap();
    let append = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    let status = Command::new(bin())
        .args(["--format", "concise", "--output", "/dev/stdout", "src"])
        .current_dir(p.dir.path())
        .stdout(append)
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(1));
    let text = p.read("log.txt");
    assert!(text.starts_with("earlier line\nsrc/tools.rs:"), "{text}");
    assert!(text.contains("error[MCP001]"), "{text}");
}

#[cfg(unix)]
#[test]
fn fix_refuses_a_read_only_file_and_says_what_is_left() {
    use std::os::unix::fs::PermissionsExt;
    let p = Project::new();
    p.write("src/lib.rs", FIXABLE);
    let lib = p.path("src/lib.rs");
    std::fs::set_permissions(&lib, std::fs::Permissions::from_mode(0o444)).unwrap();
    let r = p.run(&["--fix", "src/lib.rs"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("src/lib.rs: not written: is read-only"),
        "{}",
        r.stderr
    );
    assert_eq!(p.read("src/lib.rs"), FIXABLE);
    let mode = std::fs::metadata(&lib).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o444);
    // The summary counts the finding still in the file instead of claiming nothing remains.
    assert!(
        r.stderr.contains("fixed 0 findings in 0 files"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("and 1 finding in the 1 file not fixed"),
        "{}",
        r.stderr
    );
    // And an option-less plain run afterwards still sees it.
    let r = p.run(&["--format", "concise", "src/lib.rs"]);
    assert!(r.stdout.contains("MCP901"), "{}", r.stdout);
}

#[test]
fn fix_removes_leftovers_of_a_killed_run_in_the_folders_it_writes() {
    let p = Project::new();
    p.write("src/lib.rs", FIXABLE);
    let old = p.path("src/.mcp-lint-tmp-Ab3xY9qLp0Zr");
    std::fs::write(&old, "half a file").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&old)
        .unwrap()
        .set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(3600))
        .unwrap();
    // Not ours (another name) and in a folder the run does not write: both stay.
    p.write("src/.lib.rs.swp", "editor");
    p.write("docs/.mcp-lint-tmp-elsewhere", "x");
    let r = p.run(&["--fix", "src/lib.rs"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(p.read("src/lib.rs"), FIXED);
    assert!(!old.exists(), "{}", r.stderr);
    assert!(
        r.stderr
            .contains("a temporary file an interrupted run left"),
        "{}",
        r.stderr
    );
    assert!(p.path("src/.lib.rs.swp").exists());
    assert!(p.path("docs/.mcp-lint-tmp-elsewhere").exists());
}

fn entries_for(p: &Project, file: &str, path: &str) -> usize {
    let b: serde_json::Value = serde_json::from_str(&p.read(file)).unwrap();
    b["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["path"] == path)
        .count()
}

#[test]
fn a_baseline_used_with_a_subset_of_the_paths_keeps_the_other_files_entries() {
    let p = Project::new();
    p.write("src/other.rs", common::TOOLS);
    let r = p.run(&["--baseline", "bl.json", "--update-baseline", "src"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(entries_for(&p, "bl.json", "src/other.rs"), 3);
    assert_eq!(entries_for(&p, "bl.json", "src/tools.rs"), 3);

    // Linting one file: the other file's entries are not stale.
    let r = p.run(&["--baseline", "bl.json", "--strict-baseline", "src/tools.rs"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!r.stderr.contains("stale"), "{}", r.stderr);

    // Pruning over one file drops only what that file no longer has.
    let fixed = common::TOOLS.replace("context.peer.list_roots().await", "Vec::<u8>::new()");
    p.write("src/tools.rs", &fixed);
    let r = p.run(&["--baseline", "bl.json", "--prune-baseline", "src/tools.rs"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(entries_for(&p, "bl.json", "src/other.rs"), 3);
    assert_eq!(entries_for(&p, "bl.json", "src/tools.rs"), 2);

    // Updating over one file rewrites that file's entries and keeps the others.
    p.write("src/tools.rs", common::TOOLS);
    let r = p.run(&["--baseline", "bl.json", "--update-baseline", "src/tools.rs"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(entries_for(&p, "bl.json", "src/other.rs"), 3);
    assert_eq!(entries_for(&p, "bl.json", "src/tools.rs"), 3);
}

#[test]
fn update_baseline_refuses_when_a_path_cannot_be_read() {
    let p = Project::new();
    let r = p.run(&[
        "--baseline",
        "bl.json",
        "--update-baseline",
        "src",
        "missing.rs",
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("could not be read"), "{}", r.stderr);
    assert!(r.stderr.contains("missing.rs"), "{}", r.stderr);
    assert!(!p.path("bl.json").exists(), "nothing written");
    // An existing baseline is left as it was.
    p.write("bl.json", "{\"version\": 1, \"entries\": []}\n");
    let r = p.run(&[
        "--baseline",
        "bl.json",
        "--update-baseline",
        "src",
        "missing.rs",
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(p.read("bl.json"), "{\"version\": 1, \"entries\": []}\n");
}

#[test]
fn an_inner_suppression_in_a_nested_item_covers_that_item_only() {
    let p = Project::new();
    // Inside `deploy`'s body: its MCP001 is suppressed; the other two tools' findings are not, and
    // the codes the directive names that `deploy` does not have are reported unused.
    let nested = common::TOOLS.replace(
        "-> Result<String, String> {\n",
        "-> Result<String, String> {\n        //! mcp-lint: allow(MCP001, MCP002, MCP003) -- this tool only\n",
    );
    p.write("src/tools.rs", &nested);
    let r = p.run(&["--format", "concise", "src"]);
    let codes: Vec<String> = r.concise().into_iter().map(|(_, _, c)| c).collect();
    assert_eq!(
        codes,
        vec!["MCP901", "MCP002", "MCP003"],
        "{}\n{}",
        r.stdout,
        r.stderr
    );
}

#[test]
fn a_file_with_a_bom_is_fixed_and_keeps_its_bom() {
    let p = Project::new();
    p.write(
        "Cargo.toml",
        "[package]\nname = \"p\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n[dependencies]\nrmcp = { version = \"3.11\", features = [\"server\", \"elicitation\"] }\n",
    );
    // The first item on line 1, right after the mark: the `use` goes between them.
    let src = "\u{feff}pub struct S;\n\n#[rmcp::tool_router]\nimpl S {\n    #[rmcp::tool(description = \"Greets\")]\n    async fn greet(&self, ctx: rmcp::service::RequestContext<rmcp::RoleServer>) -> Result<CallToolResult, ErrorData> {\n        let name = ctx.peer.elicit::<Name>(\"Your name?\").await;\n        let text = match name {\n            Ok(Some(n)) => n.name,\n            _ => \"stranger\".to_string(),\n        };\n        Ok(CallToolResult::success(vec![ContentBlock::text(text)]))\n    }\n}\n";
    std::fs::remove_file(p.path("src/tools.rs")).unwrap();
    p.write("src/lib.rs", src);
    let r = p.run(&["--fix", "--unsafe-fixes", "src"]);
    assert!(!r.stderr.contains("not fixed"), "{}", r.stderr);
    assert!(
        r.stderr.contains("src/lib.rs: fixed 1 finding"),
        "{}",
        r.stderr
    );
    let text = p.read("src/lib.rs");
    assert!(text.starts_with("\u{feff}use mrtr::"), "{text}");
    assert!(text.contains("#[mrtr_handler]"), "{text}");
}

#[cfg(unix)]
#[test]
fn symlinked_module_files_and_folders_are_linted() {
    use std::os::unix::fs::symlink;
    let p = Project::new();
    p.write("shared/tools.rs", common::TOOLS);
    p.write("shared/more/roots.rs", common::TOOLS);
    std::fs::remove_file(p.path("src/tools.rs")).unwrap();
    symlink(p.path("shared/tools.rs"), p.path("src/tools.rs")).unwrap();
    symlink(p.path("shared/more"), p.path("src/more")).unwrap();
    symlink(p.path("src"), p.path("src/loop")).unwrap();
    let r = p.run(&["--format", "concise", "src"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let files: std::collections::BTreeSet<String> =
        r.concise().into_iter().map(|(f, _, _)| f).collect();
    assert_eq!(
        files.into_iter().collect::<Vec<_>>(),
        vec!["src/more/roots.rs", "src/tools.rs"],
        "{}",
        r.stderr
    );
}

#[test]
fn sarif_says_the_execution_failed_when_a_file_could_not_be_read() {
    let p = Project::new();
    let flag = |r: &Run| {
        let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        v["runs"][0]["invocations"][0]["executionSuccessful"].clone()
    };
    let r = p.run(&["--format", "sarif", "src"]);
    assert_eq!((r.code, flag(&r)), (1, serde_json::json!(true)));
    let r = p.run(&["--format", "sarif", "src", "missing.rs"]);
    assert_eq!((r.code, flag(&r)), (2, serde_json::json!(false)));
}

#[cfg(unix)]
#[test]
fn sarif_after_a_failed_fix_says_the_execution_failed() {
    use std::os::unix::fs::PermissionsExt;
    let p = Project::new();
    p.write("src/lib.rs", FIXABLE);
    std::fs::set_permissions(p.path("src/lib.rs"), std::fs::Permissions::from_mode(0o444)).unwrap();
    let r = p.run(&["--fix", "--format", "sarif", "src/lib.rs"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let inv = &v["runs"][0]["invocations"][0];
    assert_eq!(inv["executionSuccessful"], serde_json::json!(false));
    let text = inv["toolExecutionNotifications"].to_string();
    assert!(text.contains("not written: is read-only"), "{text}");
}

#[test]
fn a_cargo_toml_that_is_not_utf8_is_one_error_line() {
    let p = Project::new();
    std::fs::write(
        p.path("Cargo.toml"),
        b"[package]\nname = \"d\xffmo\"\nversion = \"0.1.0\"\n\n[dependencies]\nrmcp = \"3\"\n",
    )
    .unwrap();
    let r = p.run(&["--format", "concise", "src"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    let errors: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.starts_with("error"))
        .collect();
    assert_eq!(errors.len(), 1, "{}", r.stderr);
    assert!(
        errors[0].contains("Cargo.toml") && errors[0].contains("UTF-8"),
        "{}",
        r.stderr
    );
    // The run went on: the files were linted.
    assert!(r.stdout.contains("error[MCP001]"), "{}", r.stdout);
}

#[cfg(unix)]
#[test]
fn concise_keeps_a_file_name_with_a_newline_on_one_line() {
    let p = Project::new();
    std::fs::rename(p.path("src/tools.rs"), p.path("src/to\nols.rs")).unwrap();
    let r = run_in(p.dir.path(), &["--format", "concise", "src"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", r.stdout);
    assert!(
        lines.iter().all(|l| l.starts_with("src/to%0Aols.rs:")),
        "{}",
        r.stdout
    );
}

#[test]
fn a_file_whose_fix_breaks_its_syntax_keeps_its_findings_as_remaining() {
    use mcp_lint::finding::{Applicability, Edit, Finding, Fix, Level};
    use mcp_lint::fix::Allowed;
    use mcp_lint::fix_driver::fix_text;
    let finding = |line: usize, start: usize, end: usize| Finding {
        code: "MCP001".into(),
        name: "legacy-elicitation-request".into(),
        level: Level::Error,
        path: "src/lib.rs".into(),
        line,
        column: 1,
        end_line: line,
        end_column: 2,
        message: "m".into(),
        mcp_method: None,
        sdk: None,
        help: None,
        fix: Some(Fix {
            applicability: Applicability::Safe,
            message: "deletes a brace".into(),
            edits: vec![Edit {
                start,
                end,
                line,
                column: 1,
                end_line: line,
                end_column: 2,
                replacement: String::new(),
            }],
            other_files: Vec::new(),
        }),
    };
    let src = "fn a() {}\nfn b() {}\n";
    let first = vec![finding(1, 8, 9), finding(2, 18, 19)];
    let r = fix_text(
        "src/lib.rs",
        src,
        first,
        Allowed {
            unsafe_fixes: false,
        },
        &mut |_| Vec::new(),
        false,
    );
    assert!(r.error.is_some());
    assert_eq!(r.text, src);
    // The file is as it was read, so both findings are still in it.
    assert_eq!(r.remaining.len(), 2);
}
