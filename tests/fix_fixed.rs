//! `cargo mcp-lint --fix --unsafe-fixes` on `tests/fix_fixtures` writes exactly the `.fixed`
//! files that `tests/fix_compile` builds against rmcp 3.x and the runtime (and drives through
//! MRTR rounds with rmcp's client). A change to the rewrite that changes its output fails here
//! until the `.fixed` files are regenerated, and then `tests/fix_compile` proves they still build.
//!
//! Regenerate after an intended change: copy `tests/fix_fixtures` somewhere, run
//! `cargo mcp-lint --fix --unsafe-fixes src/` there, and copy each `src/NAME.rs` back as
//! `src/NAME.fixed`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fix_fixtures")
}

/// The inputs, by name.
fn inputs() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(fixtures().join("src"))
        .expect("fixtures")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter_map(|n| n.strip_suffix(".rs").map(str::to_string))
        .collect();
    names.sort();
    names
}

/// A scratch copy of the fixture package (manifest and inputs, no `.fixed` files).
fn scratch() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::copy(fixtures().join("Cargo.toml"), dir.path().join("Cargo.toml")).unwrap();
    for n in inputs() {
        let from = fixtures().join("src").join(format!("{n}.rs"));
        std::fs::copy(from, dir.path().join("src").join(format!("{n}.rs"))).unwrap();
    }
    dir
}

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-mcp-lint"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("binary runs")
}

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join("src").join(format!("{name}.rs"))).unwrap()
}

#[test]
fn every_fixture_has_its_fixed_file_and_the_fix_writes_it_byte_for_byte() {
    let names = inputs();
    assert!(names.len() >= 3, "{names:?}");
    let dir = scratch();
    let out = run(dir.path(), &["--fix", "--unsafe-fixes", "src"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.code() == Some(1),
        "remaining findings exit 1: {err}"
    );
    for n in &names {
        let expected = std::fs::read_to_string(fixtures().join("src").join(format!("{n}.fixed")))
            .unwrap_or_else(|e| panic!("{n}.fixed: {e}"));
        assert!(
            read(dir.path(), n) == expected,
            "src/{n}.rs after --fix differs from src/{n}.fixed; regenerate it (see this file's header)\n{err}"
        );
    }
    assert!(
        err.contains("src/tool_elicit.rs: fixed 7 findings"),
        "{err}"
    );
    assert!(
        err.contains("src/handwritten.rs: fixed 4 findings"),
        "{err}"
    );
    assert!(err.contains("src/helpers.rs: fixed 3 findings"), "{err}");
    // The six asking helpers, and the two near misses in the deferred form.
    assert!(
        err.contains("src/nonresult_helpers.rs: fixed 8 findings"),
        "{err}"
    );
    // Every shape the compiled rewrite refuses, deferred; only the ask in `on_initialized`, which
    // no request reaches, is left, with one warning the fix makes true: hand_rolled_exchange.rs's
    // `truncate` takes a fresh id (`fetch_add`) before its now deferred ask, once per round
    // (MCP007).
    assert!(err.contains("src/not_fixed.rs: fixed 7 findings"), "{err}");
    assert!(err.contains("2 without a fix"), "{err}");
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        report.contains(
            "`.fetch_add(..)` runs before the deferred `Question::or_send` in `truncate`"
        ),
        "{report}"
    );
    assert!(
        err.contains("src/runtime_schema.rs: fixed 3 findings"),
        "{err}"
    );
    assert!(
        err.contains("src/moved_context.rs: fixed 1 finding"),
        "{err}"
    );
    assert!(
        err.contains("src/progress_helpers.rs: fixed 2 findings"),
        "{err}"
    );
    // A gateway's relay forwarding the upstream's three requests to the agent's stored peer:
    // deferred asks, and the handler that opens the upstream connection a `#[mrtr_handler]`.
    assert!(
        err.contains("src/relay_gateway.rs: fixed 3 findings"),
        "{err}"
    );
    // A gate behind a trait object holding a stored peer: a deferred ask, and the handler that
    // reaches it a `#[mrtr_handler]`.
    assert!(
        err.contains("src/stored_peer_gate.rs: fixed 1 finding"),
        "{err}"
    );
    // A `pub(crate)` helper whose callers are in another file, and a helper reached through a
    // `pub` function: the deferred form at the call site (the compiled rewrite across files is
    // what `--no-deferred-fixes` gets, `tests/fix_shapes.rs`); the servers of the package run
    // their requests in the scope those asks need.
    assert!(
        err.contains("src/across_helpers.rs: fixed 1 finding"),
        "{err}"
    );
    assert!(
        err.contains("src/task_local_context.rs: fixed 1 finding"),
        "{err}"
    );
    // The exchanges a server runs itself: the one built where it is written in its file's pass,
    // the one a builder fn makes in the pass over the package.
    assert!(
        err.contains("src/hand_rolled_exchange.rs: fixed 1 finding"),
        "{err}"
    );
    assert!(
        err.contains("fixed 1 finding across 1 file (src/hand_rolled_exchange.rs)"),
        "{err}"
    );
    assert!(
        err.contains("src/hand_rolled_exchange.rs: `handle_request (line 84)`"),
        "{err}"
    );
    assert!(
        err.contains(
            "runs every request in an MRTR scope for the deferred asks (#[mrtr::mrtr_server]): \
src/across_tools.rs: `Releases`"
        ),
        "{err}"
    );
    // The crate now uses the runtime: its manifest declares it, written with the sources.
    let manifest = std::fs::read_to_string(dir.path().join("Cargo.toml")).unwrap();
    let declared = std::fs::read_to_string(fixtures().join("Cargo.toml")).unwrap();
    let last = "tokio = { version = \"1\", features = [\"rt\", \"time\", \"sync\"] }\n";
    assert!(declared.contains(last), "{declared}");
    assert_eq!(
        manifest,
        declared.replace(last, &format!("{last}mrtr = \"0.1\"\n")),
        "one `mrtr` line at the end of [dependencies]"
    );
    assert!(
        err.contains("Cargo.toml: added `mrtr` to `[dependencies]`"),
        "{err}"
    );
    assert!(
        err.contains("the timeout of `elicit_with_timeout` is dropped"),
        "the timeout loss is said where the fix is listed: {err}"
    );
}

#[test]
fn a_second_fix_run_changes_nothing() {
    let dir = scratch();
    run(dir.path(), &["--fix", "--unsafe-fixes", "src"]);
    let once: Vec<String> = inputs().iter().map(|n| read(dir.path(), n)).collect();
    let again = run(dir.path(), &["--fix", "--unsafe-fixes", "src"]);
    let twice: Vec<String> = inputs().iter().map(|n| read(dir.path(), n)).collect();
    assert_eq!(once, twice);
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(err.contains("fixed 0 findings in 0 files"), "{err}");
    let diff = run(dir.path(), &["--diff", "--unsafe-fixes", "src"]);
    assert_eq!(
        diff.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&diff.stderr)
    );
    assert!(diff.stdout.is_empty());
}

#[test]
fn without_unsafe_fixes_the_rewrite_is_only_offered() {
    let dir = scratch();
    let out = run(dir.path(), &["--fix", "src"]);
    for n in inputs() {
        let original =
            std::fs::read_to_string(fixtures().join("src").join(format!("{n}.rs"))).unwrap();
        assert_eq!(
            read(dir.path(), &n),
            original,
            "{n} changed without --unsafe-fixes"
        );
    }
    let err = String::from_utf8_lossy(&out.stderr);
    // The 8th display-only one is MCP202 on handwritten.rs's `read_resource`, declared with its
    // pre-3.0 result type: only the MRTR rewrite (`#[mrtr_handler]`) makes it compile. Two are
    // the near misses of nonresult_helpers.rs; two (`confirm_change` of across_helpers.rs and
    // `draft_query` of task_local_context.rs) only the pass across files rewrites; one is progress_helpers.rs's second helper,
    // rewritten in the pass after its caller's. hand_rolled.rs adds two (its sends), and
    // hand_rolled_exchange.rs one (the exchange built where it is written). The second without a
    // fix is its other exchange, built in another fn: only the pass over the package rewrites it.
    assert!(
        err.contains("remaining: 60 with an unsafe fix (add --unsafe-fixes), 1 with a display-only suggestion, 2 without a fix"),
        "{err}"
    );
}

#[test]
fn shapes_without_a_rewrite_say_why() {
    let dir = scratch();
    // Each shape the compiled rewrite refuses takes the deferred form by default, at its call
    // site; only what no request reaches (MCP006) has no fix.
    let out = run(dir.path(), &["--format", "json", "src/not_fixed.rs"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let mut deferred = 0;
    for f in report["findings"].as_array().unwrap() {
        if f["code"] == "MCP006" {
            assert!(f["fix"].is_null(), "MCP006 has no fix: {f}");
            continue;
        }
        assert_eq!(f["fix"]["applicability"], "unsafe", "{f}");
        let m = f["fix"]["message"].as_str().unwrap();
        assert!(m.contains(" becomes `mrtr::rmcp::deferred::"), "{m}");
        deferred += 1;
    }
    assert_eq!(deferred, 7);
    // The compiled tier alone says why it refuses each.
    let out = run(
        dir.path(),
        &[
            "--no-deferred-fixes",
            "--format",
            "json",
            "src/not_fixed.rs",
        ],
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let mut seen = Vec::new();
    for f in report["findings"].as_array().unwrap() {
        let line = f["line"].as_u64().unwrap();
        let fix = &f["fix"];
        if f["code"] == "MCP006" {
            assert!(fix.is_null(), "MCP006 has no fix: {f}");
            continue;
        }
        assert_eq!(fix["applicability"], "display-only", "{f}");
        assert_eq!(fix["edits"], serde_json::json!([]), "{f}");
        seen.push((line, fix["message"].as_str().unwrap().to_string()));
    }
    let why = |line: u64| {
        seen.iter()
            .find(|(l, _)| *l == line)
            .map(|(_, m)| m.clone())
            .unwrap_or_else(|| panic!("no finding on line {line}: {seen:?}"))
    };
    assert!(why(26).contains("not in a request handler"), "helper");
    assert!(why(36).contains("inside a loop"), "loop");
    assert!(why(46).contains("macro invocation"), "join!");
    assert!(
        why(55).contains("not reached through the handler's own"),
        "stored peer"
    );
    assert!(
        why(69).contains("not awaited where it is made"),
        "create_elicitation raced"
    );
    assert!(why(76).contains("#[prompt]"), "prompt");
}

/// The helpers of `nonresult_helpers.rs` the rewrite leaves, each with its reason; the others
/// (and their callers) are rewritten.
#[test]
fn helpers_returning_plain_values_that_are_left_say_why() {
    let dir = scratch();
    let out = run(
        dir.path(),
        &[
            "--no-deferred-fixes",
            "--format",
            "json",
            "src/nonresult_helpers.rs",
        ],
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let mut left = Vec::new();
    let mut rewritten = 0;
    for f in report["findings"].as_array().unwrap() {
        let fix = &f["fix"];
        let message = fix["message"].as_str().unwrap().to_string();
        match fix["applicability"].as_str() {
            Some("unsafe") => {
                rewritten += 1;
                assert!(message.contains("(returns `Result`)"), "{message}");
            }
            Some("display-only") => left.push(message),
            other => panic!("{other:?}: {f}"),
        }
    }
    assert_eq!(rewritten, 6, "{left:#?}");
    let prefix = |helper: &str| {
        format!(
            "the request sits in `{helper}`, not in a request handler, and it cannot become an \
asking helper (`#[mrtr_helper]`): "
        )
    };
    assert_eq!(
        left,
        [
            format!(
                "{}`first_root_uri` returns `Option` and applies `?` to one inside an expression \
(`listed.roots.first()?`), which does not compile once it returns `Result`: bind that value \
first with `let Some(..) = .. else {{ return None; }};`",
                prefix("first_root_uri")
            ),
            format!(
                "{}`count` calls `root_count`, but the call stands after `self.bump()` in its \
statement, which runs first and may have effects; hoisting the call into its own `let` would run \
it before: bind `self.bump()` in a `let` first",
                prefix("root_count")
            ),
        ]
    );
}

/// As in clippy and ruff, a rewrite's message is one short line saying what the fix does,
/// including what it adds outside the handler (the `MrtrServer` impl) and what is left to do by
/// hand (the `mrtr` dependency); the long explanation (the wire change, why the fix is unsafe,
/// `Serialize` on kept values) is the rule's documentation, `cargo mcp-lint rule CODE`.
#[test]
fn every_rewrite_message_is_one_short_line_and_the_rule_docs_explain_it() {
    let dir = scratch();
    let out = run(dir.path(), &["--format", "json", "src"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    let mut rewrites = 0;
    let mut codes = std::collections::BTreeSet::new();
    for f in report["findings"].as_array().unwrap() {
        if f["fix"]["applicability"] != "unsafe" {
            continue;
        }
        rewrites += 1;
        codes.insert(f["code"].as_str().unwrap().to_string());
        let m = f["fix"]["message"].as_str().unwrap();
        let at = format!("{}:{}", f["path"], f["line"]);
        assert!(
            !m.contains('\n') && m.len() <= 260,
            "{at}: {} chars: {m}",
            m.len()
        );
        // A request through a stored peer becomes the runtime's deferred form (MCP006).
        assert!(
            m.contains(" becomes `mrtr.")
                || m.contains(" becomes `mrtr::rmcp::deferred::")
                || m.contains(" becomes `mrtr::jsonrpc::Question"),
            "{at}: {m}"
        );
        // The server type gets its `MrtrServer` impl from the plan, or (a deferred ask whose
        // server stands in another file) from the pass that scopes the server.
        assert!(
            m.contains("adds `impl mrtr::MrtrServer for ")
                || m.contains("`#[mrtr::mrtr_server]` on ")
                || m.contains("the dispatch arm gets `mrtr::jsonrpc::RequestScope`"),
            "{at}: {m}"
        );
        assert!(m.contains("adds `mrtr` to `[dependencies]`"), "{at}: {m}");
    }
    assert!(rewrites >= 10, "{rewrites} rewrites");
    for code in codes {
        let docs = run(dir.path(), &["rule", &code]);
        let docs = String::from_utf8_lossy(&docs.stdout);
        assert!(docs.contains("InputRequiredResult"), "{code}: {docs}");
        assert!(docs.contains("runs once"), "{code}: {docs}");
        assert!(docs.contains("serialize"), "{code}: {docs}");
        if code == "MCP006" {
            // The deferred form starts the handler over: the docs must say so.
            assert!(docs.contains("runs again"), "{code}: {docs}");
        }
    }
}
