//! `cargo mcp-lint migrate` on a copy of the deploy example (`examples/deploy/before`, a server
//! on rmcp 2.x with three legacy `elicit` calls): the report's counts against the findings, a
//! dirty tree refused, the unsafe fixes refused without a terminal, a cargo that fails for a
//! reason of its own, and (ignored: it compiles rmcp 3.x) the whole migration ending in a green
//! `cargo check`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.email=t@example.invalid", "-c", "user.name=t"])
        .args(args)
        .output()
        .expect("git runs");
    assert!(ok.status.success(), "git {args:?}: {ok:?}");
}

/// The deploy example's sources and manifest in a fresh git repository, committed; `edit` may
/// change the manifest before the commit.
fn example(edit: impl FnOnce(&str) -> String) -> tempfile::TempDir {
    committed_copy("examples/deploy/before", "src/main.rs", edit)
}

/// `src_file` and the manifest and lockfile of the crate at `crate_dir` (relative to the
/// workspace) in a fresh git repository, committed.
fn committed_copy(
    crate_dir: &str,
    src_file: &str,
    edit: impl FnOnce(&str) -> String,
) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let from = root().join(crate_dir);
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::copy(from.join(src_file), dir.path().join(src_file)).unwrap();
    std::fs::copy(from.join("Cargo.lock"), dir.path().join("Cargo.lock")).unwrap();
    let manifest = std::fs::read_to_string(from.join("Cargo.toml")).unwrap();
    std::fs::write(dir.path().join("Cargo.toml"), edit(&manifest)).unwrap();
    std::fs::write(dir.path().join(".gitignore"), "target/\n").unwrap();
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-qm", "before"]);
    dir
}

fn migrate(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-mcp-lint"))
        .arg("migrate")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("the linter runs")
}

/// The rmcp request findings (MCP001-006) of a plain run over `dir`.
fn sites(dir: &Path) -> usize {
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-mcp-lint"))
        .args(["--format", "json"])
        .current_dir(dir)
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"].as_str().unwrap().starts_with("MCP00"))
        .count()
}

/// The number a report line `prefix N` ends with.
fn count(report: &str, prefix: &str) -> usize {
    let line = report
        .lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no `{prefix}` in:\n{report}"));
    line.rsplit(' ').next().unwrap().parse().unwrap()
}

fn text(o: &[u8]) -> String {
    String::from_utf8_lossy(o).into_owned()
}

/// The runtime of this workspace, for the migrated package (`mrtr` is not on the registry).
fn runtime_dependency() -> String {
    format!(
        "{{ path = {:?} }}",
        root().join("runtime").display().to_string()
    )
}

#[test]
fn the_reports_counts_match_the_findings_before_and_after() {
    let dir = example(str::to_string);
    let before = sites(dir.path());
    assert_eq!(before, 3, "the example's three `elicit` calls");
    let out = migrate(
        dir.path(),
        &[
            "--yes",
            "--no-check",
            "--report",
            "--mrtr-dependency",
            &runtime_dependency(),
        ],
    );
    let report = text(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{report}\n{}",
        text(&out.stderr)
    );
    let migrated = count(&report, "## Sites migrated:");
    let left = count(&report, "## Sites left:");
    assert_eq!(migrated + left, before, "every site is migrated or left");
    assert_eq!(
        left,
        sites(dir.path()),
        "the sites left are the findings left"
    );
    // The deploy handler keeps `plan: Plan` across its asks and `Plan` is not `Serialize`: no
    // compiled state machine can hold it, so all three asks take the deferred form.
    assert_eq!(count(&report, "### Compiled state machine"), 0);
    assert_eq!(
        count(&report, "### Deferred replay"),
        3,
        "the deploy handler keeps an unsealable value: deferred"
    );
    assert!(
        report.contains("re-runs `let plan = self.compute_..`"),
        "{report}"
    );
    assert_eq!(count(&report, "## Upgrade findings left (MCP2xx):"), 0);
    assert!(report.contains("- build: not run"), "{report}");
    // The report file is what was printed, next to the manifest.
    let written = std::fs::read_to_string(dir.path().join("MIGRATION.md")).unwrap();
    assert_eq!(written, report);
    // The migration itself: the handler, the runtime dependency, rmcp 3.x.
    let main = std::fs::read_to_string(dir.path().join("src/main.rs")).unwrap();
    assert!(
        main.contains("mrtr::rmcp::deferred::elicit::<Confirm>(&context"),
        "{main}"
    );
    assert!(main.contains("#[mrtr::mrtr_server]"), "{main}");
    let manifest = std::fs::read_to_string(dir.path().join("Cargo.toml")).unwrap();
    assert!(manifest.contains("mrtr = { path = "), "{manifest}");
    assert!(manifest.contains("rmcp = { version = \"3."), "{manifest}");
    for f in ["src/main.rs", "Cargo.toml"] {
        assert!(
            report.contains(&format!("- `{f}`")),
            "{f} listed as changed:\n{report}"
        );
    }
}

#[test]
fn a_dirty_tree_is_refused_and_left_as_it_was() {
    let dir = example(str::to_string);
    let main = dir.path().join("src/main.rs");
    let edited = format!(
        "{}\n// work in progress\n",
        std::fs::read_to_string(&main).unwrap()
    );
    std::fs::write(&main, &edited).unwrap();
    let out = migrate(dir.path(), &["--yes", "--no-check"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("uncommitted changes")
            && err.contains("src/main.rs")
            && err.contains("--allow-dirty"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&main).unwrap(), edited);
    assert!(!text(&out.stdout).contains("Sites migrated"));
    // With --allow-dirty it goes ahead.
    let out = migrate(dir.path(), &["--yes", "--no-check", "--allow-dirty"]);
    assert_eq!(count(&text(&out.stdout), "## Sites migrated:"), 3);

    // A tree outside any git repository has no diff to review: refused the same way.
    let bare = tempfile::tempdir().unwrap();
    std::fs::write(bare.path().join("Cargo.toml"), "[package]\nname = \"x\"\n").unwrap();
    let out = migrate(bare.path(), &["--yes", "--no-check"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("not in a git repository"));
}

#[test]
fn without_a_terminal_or_yes_the_unsafe_fixes_are_refused() {
    let dir = example(str::to_string);
    let main = dir.path().join("src/main.rs");
    let original = std::fs::read_to_string(&main).unwrap();
    let out = migrate(dir.path(), &["--no-check"]);
    let report = text(&out.stdout);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "sites are left:\n{report}");
    assert!(
        err.contains("unsafe fixes refused") && err.contains("--yes"),
        "{err}"
    );
    assert!(report.contains("unsafe fixes: **not applied**"), "{report}");
    assert_eq!(count(&report, "## Sites migrated:"), 0);
    assert_eq!(count(&report, "## Sites left:"), 3);
    assert!(
        report.contains("its fix is unsafe and was not applied"),
        "each site says why it was left:\n{report}"
    );
    assert_eq!(std::fs::read_to_string(&main).unwrap(), original);
}

#[test]
fn a_cargo_failure_of_its_own_is_reported_and_the_migration_kept() {
    // A path dependency that does not exist: cargo stops before compiling anything.
    let dir = example(|m| {
        m.replace(
            "[dependencies]\n",
            "[dependencies]\nvanished = { path = \"../vanished-crate\" }\n",
        )
    });
    let out = migrate(
        dir.path(),
        &["--yes", "--mrtr-dependency", &runtime_dependency()],
    );
    let report = text(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{report}\n{}",
        text(&out.stderr)
    );
    assert!(report.contains("### `Cargo.toml`: failed"), "{report}");
    assert!(
        report.contains("cargo failed before it could report a compiler error")
            && report.contains("vanished"),
        "cargo's own reason is in the report:\n{report}"
    );
    assert_eq!(count(&report, "## Sites migrated:"), 3);
    // Nothing lost: the migrated text is on disk and parses; the manifest kept its line.
    let main = std::fs::read_to_string(dir.path().join("src/main.rs")).unwrap();
    assert!(main.contains("#[mrtr_handler]"));
    syn::parse_file(&main).expect("the migrated file parses");
    let manifest = std::fs::read_to_string(dir.path().join("Cargo.toml")).unwrap();
    assert!(manifest.contains("vanished = { path = \"../vanished-crate\" }"));
    assert!(manifest.contains("mrtr = "));
}

/// The whole migration of an rmcp 2.2 server (the upgrade assistant's fixture
/// `tests/upgrade_fixtures/rmcp2`: elicitation, sampling and roots asks, renamed and changed
/// rmcp APIs), `cargo check` included, ending green. It checks rmcp 3.x and the runtime: about a
/// minute with their check artifacts in the target dir, minutes from cold, so it is run by
/// hand: `cargo test --test migrate -- --ignored`. (The deploy example ends green too, through the
/// deferred tier: its handler keeps a `Plan` that is not `Serialize`; the README shows its report.)
#[test]
#[ignore]
fn an_rmcp2_server_migrates_to_a_green_cargo_check() {
    let dir = committed_copy("tests/upgrade_fixtures/rmcp2", "src/lib.rs", str::to_string);
    let before = sites(dir.path());
    assert!(before >= 4, "{before}");
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-mcp-lint"))
        .args([
            "migrate",
            "--yes",
            "--mrtr-dependency",
            &runtime_dependency(),
        ])
        .current_dir(dir.path())
        // The workspace's target dir: rmcp's check artifacts are shared with other runs.
        .env(
            "CARGO_TARGET_DIR",
            std::env::var_os("CARGO_TARGET_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(|| root().join("target")),
        )
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let report = text(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{report}\n{}",
        text(&out.stderr)
    );
    assert!(report.contains("- build: `cargo check` passed"), "{report}");
    assert!(report.contains("### `Cargo.toml`: passed"), "{report}");
    assert_eq!(count(&report, "## Sites migrated:"), before);
    assert_eq!(count(&report, "## Sites left:"), 0);
    assert_eq!(count(&report, "## Upgrade findings left (MCP2xx):"), 0);
}

/// A hand-rolled server whose request is built in one file and written and received in
/// another: its site needs the unsafe fixes (the exchange of the pass over the package), so
/// `migrate` asks for them, and with `--yes` migrates it.
#[test]
fn an_exchange_written_in_another_file_counts_as_a_site_for_the_unsafe_fixes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("src")).unwrap();
    std::fs::write(
        d.join("Cargo.toml"),
        "[package]\nname = \"x\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n[dependencies]\nserde_json = \"1\"\ntokio = \"1\"\n",
    )
    .unwrap();
    std::fs::write(
        d.join("src/asks.rs"),
        "use serde_json::{json, Value};\n\npub fn ask_request(id: u64) -> Value {\n    json!({ \"jsonrpc\": \"2.0\", \"id\": id, \"method\": \"roots/list\" })\n}\n\npub fn pending(id: u64) -> tokio::sync::oneshot::Receiver<Value> {\n    let (_tx, rx) = tokio::sync::oneshot::channel();\n    let _ = id;\n    rx\n}\n",
    )
    .unwrap();
    let server = "mod asks;\n\nuse serde_json::Value;\nuse tokio::io::AsyncWriteExt;\n\npub async fn roots() -> Result<Value, String> {\n    let request = asks::ask_request(7);\n    let rx = asks::pending(7);\n    let line = serde_json::to_string(&request).map_err(|e| e.to_string())?;\n    tokio::io::stdout().write_all(line.as_bytes()).await.map_err(|e| e.to_string())?;\n    rx.await.map_err(|e| e.to_string())\n}\n";
    std::fs::write(d.join("src/lib.rs"), server).unwrap();
    std::fs::write(d.join(".gitignore"), "target/\n").unwrap();
    git(d, &["init", "-q"]);
    git(d, &["add", "-A"]);
    git(d, &["commit", "-qm", "before"]);

    let refused = migrate(d, &["--no-check"]);
    let err = text(&refused.stderr);
    assert!(
        err.contains("1 site needs an unsafe fix"),
        "the exchange is a site for the unsafe fixes:\n{err}"
    );
    let out = migrate(d, &["--yes", "--no-check", "--allow-dirty"]);
    let report = text(&out.stdout);
    assert_eq!(count(&report, "## Sites migrated:"), 1, "{report}");
    let fixed = std::fs::read_to_string(d.join("src/lib.rs")).unwrap();
    assert!(
        fixed.contains("mrtr::jsonrpc::Question::message(&request).or_send(|_| rx).await"),
        "{fixed}"
    );
}
