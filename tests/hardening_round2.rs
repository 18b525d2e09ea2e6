//! Issue 32, the second adversarial round, each case built the way it was found: the release
//! binary run on a hostile project, its peak memory read from the kernel (`wait4`), its output and
//! the files left on disk checked.

#[path = "gate_fixtures/common.rs"]
mod common;

use std::path::Path;
use std::process::{Command, Stdio};

use common::Project;

// The server of `tests/fix_cli.rs`: `--fix --unsafe-fixes` rewrites its ask into MRTR code, which
// needs the `mrtr` line in its manifest, and deletes a stale suppression (a safe fix).
const MANIFEST: &str = "[package]\nname = \"p\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n\
[dependencies]\nrmcp = { version = \"3.11\", features = [\"server\", \"elicitation\"] }\n";

/// One `#[tool]` whose elicitation the rewrite takes, and a stale suppression (MCP901, safe fix).
const SERVER: &str = r#"use rmcp::model::*;
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, ErrorData, RoleServer};

// mcp-lint: allow(MCP003) -- nothing asks for roots here any more
pub struct S;

#[tool_router]
impl S {
    /// Asks for a name.
    #[tool(description = "Greets")]
    async fn greet(&self, ctx: RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let name = ctx.peer.elicit::<Name>("Your name?").await; // the old way
        let text = match name {
            Ok(Some(n)) => n.name,
            _ => "stranger".to_string(),
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
    }
}
"#;

fn package(manifest: &str, server: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("Cargo.toml"), manifest).unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/lib.rs"), server).unwrap();
    dir
}

fn run(dir: &Path, args: &[&str]) -> common::Run {
    common::run_in(dir, args)
}

/// Every LF of `text` ends a CRLF.
fn all_crlf(text: &str) -> bool {
    let b = text.as_bytes();
    b.iter()
        .enumerate()
        .all(|(i, &c)| c != b'\n' || (i > 0 && b[i - 1] == b'\r'))
}

/// Runs the linter in `dir` and returns (exit code, stdout, stderr, peak resident memory in bytes
/// of the process and every process it waited for: the supervised child included).
// The child is waited for with `wait4` (for its resource usage), which clippy does not see.
#[allow(clippy::zombie_processes)]
fn run_measured(dir: &Path, args: &[&str]) -> (i32, String, String, u64) {
    let child = Command::new(env!("CARGO_BIN_EXE_cargo-mcp-lint"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let (mut out, mut err) = (child.stdout.unwrap(), child.stderr.unwrap());
    let reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        std::io::Read::read_to_end(&mut err, &mut s).unwrap();
        s
    });
    let mut stdout = Vec::new();
    std::io::Read::read_to_end(&mut out, &mut stdout).unwrap();
    let stderr = reader.join().unwrap();
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our child, not yet waited for (the `Child` handle was taken apart).
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid);
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    (
        code,
        String::from_utf8_lossy(&stdout).into_owned(),
        String::from_utf8_lossy(&stderr).into_owned(),
        usage.ru_maxrss as u64 * 1024,
    )
}

/// 25,000 unused suppressions in one file (1.1 MB): every MCP901 finding once held its own copy
/// of the file (24 GB before the OOM killer). Now one copy per file: well under 200 MB in every
/// format that shows source.
#[test]
fn a_file_of_25000_unused_suppressions_takes_memory_linear_in_its_size() {
    let p = Project::new();
    std::fs::remove_file(p.path("src/tools.rs")).unwrap();
    let mut src = String::new();
    for n in 0..25_000 {
        src.push_str(&format!("fn t{n}() {{}} // mcp-lint: allow(MCP003) -- x\n"));
    }
    p.write("src/lib.rs", &src);
    for format in ["human", "concise", "json", "sarif"] {
        let (code, out, err, peak) =
            run_measured(p.dir.path(), &["--format", format, "--color", "never"]);
        assert!(code == 0 || code == 1, "{format}: exit {code}: {err}");
        assert!(out.matches("MCP901").count() >= 25_000, "{format}");
        assert!(
            peak < 200 << 20,
            "{format}: peak {} MB for a 1.1 MB file",
            peak >> 20
        );
    }
}

/// The same shape with the directives alone on their lines, in one block: each looked ahead over
/// every comment line after it for the code it covers.
#[test]
fn a_block_of_25000_directive_lines_is_read_in_one_pass() {
    let p = Project::new();
    std::fs::remove_file(p.path("src/tools.rs")).unwrap();
    let mut src = String::new();
    for _ in 0..25_000 {
        src.push_str("// mcp-lint: allow(MCP003) -- x\n");
    }
    src.push_str("fn f() {}\n");
    p.write("src/lib.rs", &src);
    let (code, out, err, peak) = run_measured(p.dir.path(), &["--format", "concise"]);
    assert!(code == 0 || code == 1, "exit {code}: {err}");
    assert_eq!(out.matches("MCP901").count(), 25_000);
    assert!(peak < 200 << 20, "peak {} MB", peak >> 20);
}

#[test]
fn update_baseline_over_a_subset_refuses_a_baseline_that_does_not_parse() {
    let p = Project::new();
    p.write("src/other.rs", common::TOOLS);
    let r = p.run(&["--baseline", "bl.json", "--update-baseline", "src"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // A merge conflict in the baseline.
    let good = p.read("bl.json");
    let conflicted = format!("<<<<<<< HEAD\n{good}=======\n{good}>>>>>>> branch\n");
    p.write("bl.json", &conflicted);
    let r = p.run(&["--baseline", "bl.json", "--update-baseline", "src/tools.rs"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("bl.json"), "{}", r.stderr);
    assert_eq!(p.read("bl.json"), conflicted, "left as it was");
    // A truncation.
    let truncated = &good[..good.len() / 2];
    p.write("bl.json", truncated);
    let r = p.run(&["--baseline", "bl.json", "--update-baseline", "src/tools.rs"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(p.read("bl.json"), truncated);
}

#[test]
fn a_manifest_that_does_not_parse_gets_one_error_line_and_no_file_written() {
    for broken in [
        // An unterminated string, and a table header cut short.
        MANIFEST.replace("rmcp = { version = \"3.11\"", "rmcp = { version = \"3.11"),
        MANIFEST.replace("[dependencies]", "[dependencies"),
    ] {
        let dir = package(&broken, SERVER);
        let r = run(dir.path(), &["--fix", "--unsafe-fixes"]);
        assert_eq!(r.code, 2, "{}", r.stderr);
        let lines: Vec<&str> = r
            .stderr
            .lines()
            .filter(|l| l.contains("Cargo.toml") && l.contains("does not parse"))
            .collect();
        assert!(!lines.is_empty(), "{}", r.stderr);
        let fixer: Vec<&&str> = lines.iter().filter(|l| l.contains("no file")).collect();
        assert!(fixer.len() <= 1, "one line from the fix run: {}", r.stderr);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap(),
            SERVER,
            "the source was written: {}",
            r.stderr
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("Cargo.toml")).unwrap(),
            broken
        );
    }
}

#[test]
fn crlf_sources_and_manifests_keep_crlf_through_a_fix() {
    let dir = package(
        &MANIFEST.replace('\n', "\r\n"),
        &SERVER.replace('\n', "\r\n"),
    );
    let r = run(dir.path(), &["--fix", "--unsafe-fixes"]);
    assert!(r.code == 0 || r.code == 1, "{}", r.stderr);
    let lib = std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap();
    let manifest = std::fs::read_to_string(dir.path().join("Cargo.toml")).unwrap();
    assert!(lib.contains("mrtr.elicit"), "fixed: {lib}");
    assert!(manifest.contains("mrtr"), "{manifest}");
    assert!(all_crlf(&lib), "{lib:?}");
    assert!(all_crlf(&manifest), "{manifest:?}");
}

#[cfg(unix)]
#[test]
fn a_read_only_manifest_is_named_as_the_file_not_written() {
    use std::os::unix::fs::PermissionsExt;
    let dir = package(MANIFEST, SERVER);
    let manifest = dir.path().join("Cargo.toml");
    std::fs::set_permissions(&manifest, std::fs::Permissions::from_mode(0o444)).unwrap();
    let r = run(dir.path(), &["--fix", "--unsafe-fixes"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    let line = r
        .stderr
        .lines()
        .find(|l| l.contains("not written"))
        .unwrap_or_else(|| panic!("{}", r.stderr));
    assert!(
        line.contains("Cargo.toml") && line.contains("read-only"),
        "{line}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap(),
        SERVER
    );
}

#[test]
fn output_over_a_linted_file_or_a_manifest_is_refused() {
    let p = Project::new();
    for target in ["src/tools.rs", "Cargo.toml", "./src/../Cargo.lock"] {
        let before = std::fs::read(p.path(target)).ok();
        let r = p.run(&["--format", "json", "--output", target]);
        assert_eq!(r.code, 2, "{target}: {}", r.stderr);
        assert!(r.stderr.contains("--output"), "{}", r.stderr);
        assert_eq!(std::fs::read(p.path(target)).ok(), before, "{target}");
    }
    // Another name for a linted file: a link to it.
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(p.path("src/tools.rs"), p.path("report.json")).unwrap();
        let r = p.run(&["--output", "report.json"]);
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert_eq!(p.read("src/tools.rs"), common::TOOLS);
    }
    // A new file is fine.
    let r = p.run(&["--format", "json", "--output", "out.json"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(p.read("out.json").contains("MCP001"));
}

#[cfg(unix)]
#[test]
fn sarif_percent_encodes_a_backslash_in_a_file_name() {
    let p = Project::new();
    std::fs::rename(p.path("src/tools.rs"), p.path("src/back\\slash.rs")).unwrap();
    let r = p.run(&["--format", "sarif"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stdout.contains("\"uri\": \"src/back%5Cslash.rs\""),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("src/back/slash.rs"));
}

#[cfg(unix)]
#[test]
fn control_characters_in_file_names_are_escaped_in_every_text_format() {
    let p = Project::new();
    let name = "src/a\u{1b}[31mred\rb\nc.rs";
    std::fs::rename(p.path("src/tools.rs"), p.path(name)).unwrap();
    for args in [
        &["--format", "github"][..],
        &["--format", "human", "--color", "never"],
        &["--format", "concise"],
    ] {
        let r = p.run(args);
        assert_eq!(r.code, 1, "{args:?}: {}", r.stderr);
        assert!(r.stdout.contains("MCP001"), "{args:?}: {}", r.stdout);
        for raw in ['\u{1b}', '\r'] {
            assert!(
                !r.stdout.contains(raw),
                "{args:?}: raw {raw:?} in {:?}",
                r.stdout
            );
        }
        assert!(
            !r.stdout.contains("red\nb") && !r.stdout.contains("b\nc"),
            "{args:?}"
        );
        assert!(r.stdout.contains("%1B"), "{args:?}: {}", r.stdout);
    }
}

#[cfg(unix)]
#[test]
fn a_file_name_that_is_not_utf8_is_read_fixed_and_pointed_at_by_its_real_name() {
    use std::os::unix::ffi::OsStrExt;
    let dir = package(MANIFEST, SERVER);
    let real = dir
        .path()
        .join("src")
        .join(std::ffi::OsStr::from_bytes(b"caf\xe9.rs"));
    std::fs::rename(dir.path().join("src/lib.rs"), &real).unwrap();
    let r = run(dir.path(), &["--format", "concise"]);
    assert!(r.stdout.contains("src/caf\\xE9.rs:"), "{}", r.stdout);
    let r = run(dir.path(), &["--format", "sarif"]);
    assert!(
        r.stdout.contains("\"uri\": \"src/caf%E9.rs\""),
        "{}",
        r.stdout
    );
    let r = run(dir.path(), &["--fix", "--unsafe-fixes"]);
    assert!(r.code == 0 || r.code == 1, "{}", r.stderr);
    let fixed = std::fs::read_to_string(&real).unwrap();
    assert!(fixed.contains("mrtr.elicit"), "{fixed}");
    assert!(!fixed.contains("mcp-lint: allow(MCP003)"), "{fixed}");
}

/// SARIF over 10,000 findings: its results are written one at a time, so the run's peak is the
/// plain run's plus about the output's size (a tree of values for the whole log peaked at 14
/// times the output).
#[test]
fn sarif_over_many_findings_peaks_near_its_output_size() {
    let p = Project::new();
    std::fs::remove_file(p.path("src/tools.rs")).unwrap();
    let body: String = (0..10_000)
        .map(|i| format!("    let _r{i} = context.peer.list_roots().await;\n"))
        .collect();
    p.write(
        "src/lib.rs",
        &format!(
            "use rmcp::service::RequestContext;\nuse rmcp::{{tool, tool_router, RoleServer}};\n\
             pub struct S;\n#[tool_router]\nimpl S {{\n#[tool(description = \"x\")]\n\
             async fn t(&self, context: RequestContext<RoleServer>) -> String {{\n{body}    String::new()\n}}\n}}\n"
        ),
    );
    let (code, concise, _, plain_peak) = run_measured(p.dir.path(), &["--format", "concise"]);
    assert_eq!(code, 1);
    assert_eq!(concise.lines().count(), 10_000);
    let (code, sarif, err, sarif_peak) = run_measured(p.dir.path(), &["--format", "sarif"]);
    assert_eq!(code, 1, "{err}");
    let extra = sarif_peak.saturating_sub(plain_peak);
    assert!(
        extra < 4 * sarif.len() as u64,
        "SARIF took {} MB more than concise for {} MB of output",
        extra >> 20,
        sarif.len() >> 20
    );
}

/// The pass across files (a helper in one file, its caller in another) on CRLF sources: the
/// lines it adds keep the files' CRLF.
#[test]
fn the_pass_across_files_keeps_crlf_in_crlf_sources() {
    let manifest = "[package]\nname = \"p\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n\
[dependencies]\nrmcp = { version = \"3.11\", features = [\"server\"] }\n";
    let helper = "use rmcp::{ErrorData, Peer, RoleServer};\n\n\
pub(crate) async fn sure(peer: &Peer<RoleServer>) -> Result<bool, ErrorData> {\n\
    let listed = peer.list_roots().await.map_err(|e| ErrorData::internal_error(e.to_string(), None))?;\n\
    Ok(!listed.roots.is_empty())\n}\n";
    let tool = "use rmcp::model::*;\nuse rmcp::service::RequestContext;\n\
use rmcp::{tool, tool_router, ErrorData, RoleServer};\n\nmod shared;\n\npub struct S;\n\n\
#[tool_router]\nimpl S {\n    #[tool(description = \"d\")]\n\
    async fn t(&self, ctx: RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {\n\
        let ok = crate::shared::sure(&ctx.peer).await?;\n\
        Ok(CallToolResult::success(vec![ContentBlock::text(ok.to_string())]))\n    }\n}\n";
    let dir = package(&manifest.replace('\n', "\r\n"), &tool.replace('\n', "\r\n"));
    std::fs::write(
        dir.path().join("src/shared.rs"),
        helper.replace('\n', "\r\n"),
    )
    .unwrap();
    let r = run(
        dir.path(),
        &["--no-deferred-fixes", "--fix", "--unsafe-fixes"],
    );
    assert!(r.code == 0 || r.code == 1, "{}", r.stderr);
    let shared = std::fs::read_to_string(dir.path().join("src/shared.rs")).unwrap();
    assert!(
        shared.contains("#[mrtr_helper]"),
        "rewritten across files: {shared}"
    );
    for file in ["src/shared.rs", "src/lib.rs", "Cargo.toml"] {
        let text = std::fs::read_to_string(dir.path().join(file)).unwrap();
        assert!(all_crlf(&text), "{file}: {text:?}");
    }
    // The deferred tier (the default) and the pass that scopes the server keep CRLF too.
    let server = "use rmcp::{tool_handler, ServerHandler};

#[tool_handler]
impl ServerHandler for S {}
";
    let dir = package(&manifest.replace('\n', "\r\n"), &tool.replace('\n', "\r\n"));
    std::fs::write(
        dir.path().join("src/shared.rs"),
        helper.replace('\n', "\r\n"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("src/server.rs"),
        server.replace('\n', "\r\n"),
    )
    .unwrap();
    let r = run(dir.path(), &["--fix", "--unsafe-fixes"]);
    assert!(r.code == 0 || r.code == 1, "{}", r.stderr);
    let shared = std::fs::read_to_string(dir.path().join("src/shared.rs")).unwrap();
    assert!(
        shared.contains("mrtr::rmcp::deferred::list_roots"),
        "{shared}"
    );
    let scoped = std::fs::read_to_string(dir.path().join("src/server.rs")).unwrap();
    assert!(scoped.contains("#[mrtr::mrtr_server]"), "{scoped}");
    for file in ["src/shared.rs", "src/server.rs", "Cargo.toml"] {
        let text = std::fs::read_to_string(dir.path().join(file)).unwrap();
        assert!(all_crlf(&text), "{file}: {text:?}");
    }
}

/// `--fix --upgrade-rmcp` writes the sources before the manifest: a run killed between the two
/// leaves rmcp 3.x names under a 2.x requirement. The run says so before it writes anything, and
/// the next run finishes it.
#[test]
fn upgrade_rmcp_says_before_writing_that_an_interrupted_run_is_finished_by_the_next() {
    let manifest =
        "[package]\nname = \"srv\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nrmcp = \"2.2\"\n";
    let dir = package(
        manifest,
        "use rmcp::model::*;\n\npub fn t() -> ContentBlock {\n    Content::text(\"x\")\n}\n",
    );
    let r = run(dir.path(), &["--fix", "--upgrade-rmcp", "."]);
    let note = r
        .stderr
        .find("interrupted, run the same command again")
        .unwrap_or_else(|| panic!("{}", r.stderr));
    let first_write = r.stderr.find("fixed").unwrap_or(r.stderr.len());
    assert!(note < first_write, "{}", r.stderr);
    // As a run killed after the sources: the manifest still on 2.x. The same command finishes.
    std::fs::write(dir.path().join("Cargo.toml"), manifest).unwrap();
    let r = run(dir.path(), &["--fix", "--upgrade-rmcp", "."]);
    assert!(r.code == 0 || r.code == 1, "{}", r.stderr);
    let now = std::fs::read_to_string(dir.path().join("Cargo.toml")).unwrap();
    assert!(now.contains("rmcp = \"3."), "{now}");
    let lib = std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap();
    assert!(lib.contains("ContentBlock::text(\"x\")"), "{lib}");
}

/// A package that renamed rmcp (`mcp = { package = "rmcp" }`) and writes `mcp::` paths: the
/// rewrite's own paths into rmcp (the old result rebuilt from the answer) name it `mcp::` too,
/// where `rmcp::` would not resolve. Only the runtime's module (`mrtr::rmcp::..`) keeps its name.
#[test]
fn a_renamed_rmcp_dependency_gets_its_own_name_in_the_rewritten_paths() {
    let manifest = MANIFEST.replace("rmcp = { version", "mcp = { package = \"rmcp\", version");
    // The old result is matched on after the ask: the rewrite rebuilds it from the answer with
    // rmcp's own types.
    let server = r#"use mcp::model::*;
use mcp::service::RequestContext;
use mcp::{tool, tool_router, ErrorData, RoleServer};

pub struct S;

#[tool_router]
impl S {
    #[tool(description = "Counts roots")]
    async fn count(&self, ctx: RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let n = match ctx.peer.list_roots().await {
            Ok(listed) => listed.roots.len(),
            Err(_) => 0,
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(n.to_string())]))
    }
}
"#;
    let dir = package(&manifest, server);
    let r = run(dir.path(), &["--fix", "--unsafe-fixes", "."]);
    assert!(r.code == 0 || r.code == 1, "{}", r.stderr);
    let lib = std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap();
    assert!(
        lib.contains("#[mrtr_handler]"),
        "the compiled rewrite ran:\n{lib}"
    );
    assert!(
        lib.contains("Ok::<_, mcp::ServiceError>(mcp::model::ListRootsResult::new("),
        "{lib}"
    );
    let stray = lib
        .match_indices("rmcp::")
        .filter(|(at, _)| !lib[..*at].ends_with("mrtr::"))
        .count();
    assert_eq!(
        stray, 0,
        "a path names the crate by its package name:\n{lib}"
    );
}

/// `files_parsed` is the same for any number of worker threads (issue 32 saw it differ between
/// 1 and 8): a tree of parsed files, a file that does not parse, files the prefilter turns
/// away, and a file whose analysis kills the process (a stack overflow on demand, debug builds),
/// whose rerun is what depends on the threads (the files under way when it died are suspects).
#[test]
fn files_parsed_is_the_same_for_one_and_eight_threads() {
    let dir = package(MANIFEST, SERVER);
    for i in 0..24 {
        std::fs::write(dir.path().join(format!("src/t{i}.rs")), SERVER).unwrap();
        std::fs::write(
            dir.path().join(format!("src/plain{i}.rs")),
            "pub fn f() -> u8 { 1 }\n",
        )
        .unwrap();
    }
    std::fs::write(dir.path().join("src/broken.rs"), format!("{SERVER}\nfn (")).unwrap();
    std::fs::write(dir.path().join("src/overflow.rs"), SERVER).unwrap();
    let summary = |threads: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_cargo-mcp-lint"))
            .args(["--format", "json", "--threads", threads, "."])
            .current_dir(dir.path())
            .env("MCP_LINT_TEST_OVERFLOW", "src/overflow.rs")
            .stderr(Stdio::null())
            .output()
            .unwrap();
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        report["summary"].clone()
    };
    let one = summary("1");
    let eight = summary("8");
    assert_eq!(one, eight);
    // lib.rs and the 24 servers; not the plain files, the broken one or the one that crashed.
    assert_eq!(one["files_parsed"], 25, "{one}");
    assert_eq!(one["files_seen"], 51, "{one}");
}
