//! `cargo mcp-lint server` driven over stdio with JSON-RPC, as an editor drives it: diagnostics of
//! the unsaved buffer, configuration, manifest and lock applied as on the command line, hover,
//! the code actions and their kinds, debounce and out-of-date runs.

mod lsp_client;

use std::path::Path;
use std::process::Command;

use lsp_client::{apply_edits, file_uri, Client};
use serde_json::{json, Value};

const LEGACY: &str = include_str!("fixtures/editor-legacy/src/main.rs");
const MANIFEST: &str = include_str!("fixtures/editor-legacy/Cargo.toml");
const CLEAN: &str = "fn main() {\n    println!(\"hi\");\n}\n";

/// A copy of the editor fixture crate whose `src/main.rs` on disk is `on_disk`.
fn workspace(on_disk: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("Cargo.toml"), MANIFEST).unwrap();
    std::fs::write(dir.path().join("src/main.rs"), on_disk).unwrap();
    dir
}

fn codes(diags: &[Value]) -> Vec<(String, u64)> {
    let mut v: Vec<(String, u64)> = diags
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["range"]["start"]["line"].as_u64().unwrap() + 1,
            )
        })
        .collect();
    v.sort();
    v
}

/// What the command line reports for `file` under `root`: (code, line, level).
fn cli_findings(root: &Path, file: &str, args: &[&str]) -> Vec<(String, u64, String)> {
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-mcp-lint"))
        .args(["--format", "json"])
        .args(args)
        .arg(file)
        .current_dir(root)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut v: Vec<(String, u64, String)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
                f["level"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    v.sort();
    v
}

fn server_findings(diags: &[Value]) -> Vec<(String, u64, String)> {
    let mut v: Vec<(String, u64, String)> = diags
        .iter()
        .map(|d| {
            let level = match d["severity"].as_u64() {
                Some(1) => "error",
                _ => "warning",
            };
            (
                d["code"].as_str().unwrap().to_string(),
                d["range"]["start"]["line"].as_u64().unwrap() + 1,
                level.to_string(),
            )
        })
        .collect();
    v.sort();
    v
}

fn line_of(text: &str, needle: &str) -> u64 {
    text.lines().position(|l| l.contains(needle)).unwrap() as u64
}

#[test]
fn diagnostics_are_of_the_unsaved_buffer_with_code_name_and_docs() {
    let dir = workspace(CLEAN);
    let uri = file_uri(&dir.path().join("src/main.rs"));
    let mut c = Client::start(dir.path(), &[], Value::Null);
    c.open(&uri, LEGACY);
    let diags = c.diagnostics(&uri, 1);
    assert_eq!(
        codes(&diags),
        vec![
            ("MCP001".into(), line_of(LEGACY, ".elicit::<Confirm>") + 1),
            (
                "MCP901".into(),
                line_of(LEGACY, "mcp-lint: allow(MCP002)") + 1
            ),
        ]
    );
    let d = diags.iter().find(|d| d["code"] == "MCP001").unwrap();
    assert_eq!(d["source"], "mcp-lint");
    assert_eq!(d["severity"], 1);
    assert!(
        d["message"]
            .as_str()
            .unwrap()
            .starts_with("legacy-elicitation-request: `elicit` sends"),
        "{d}"
    );
    assert_eq!(d["data"]["name"], "legacy-elicitation-request");
    assert_eq!(d["data"]["fix"], "unsafe");
    // `.elicit` is the 14th column (1-based) of its line.
    assert_eq!(d["range"]["start"]["character"], 13);
    // The link is a local file holding the rule's docs.
    let href = d["codeDescription"]["href"].as_str().unwrap();
    let path = href.strip_prefix("file://").expect("a file URI");
    assert!(path.starts_with(c.cache_dir().to_str().unwrap()), "{href}");
    let doc = std::fs::read_to_string(path).unwrap();
    assert!(
        doc.starts_with("MCP001 legacy-elicitation-request"),
        "{doc}"
    );
    assert!(doc.contains("## Why"));
    // The buffer changes (unsaved): the findings follow it, not the disk.
    c.change_all(&uri, 2, CLEAN);
    assert!(c.diagnostics(&uri, 2).is_empty());
    c.change_all(&uri, 3, LEGACY);
    assert_eq!(c.diagnostics(&uri, 3).len(), 2);
    // Closing clears them.
    c.notify(
        "textDocument/didClose",
        json!({ "textDocument": { "uri": uri } }),
    );
    let p = c.diagnostics_where(&uri, |p| p["version"].is_null());
    assert!(p["diagnostics"].as_array().unwrap().is_empty());
    c.shutdown();
}

#[test]
fn configuration_and_overrides_apply_as_on_the_command_line() {
    let dir = workspace(LEGACY);
    std::fs::write(
        dir.path().join("mcp-lint.toml"),
        "[rules]\nMCP001 = \"warn\"\n",
    )
    .unwrap();
    let uri = file_uri(&dir.path().join("src/main.rs"));
    let expected = cli_findings(dir.path(), "src/main.rs", &[]);
    assert!(
        expected.contains(&("MCP001".into(), 41, "warning".into())),
        "{expected:?}"
    );
    let mut c = Client::start(dir.path(), &[], Value::Null);
    c.open(&uri, LEGACY);
    assert_eq!(server_findings(&c.diagnostics(&uri, 1)), expected);
    c.shutdown();

    // A `--config` override beats the file, in both.
    let args = ["--config", "rules.MCP901=\"allow\""];
    let expected = cli_findings(dir.path(), "src/main.rs", &args);
    assert_eq!(expected, vec![("MCP001".into(), 41, "warning".into())]);
    let mut c = Client::start(dir.path(), &args, Value::Null);
    c.open(&uri, LEGACY);
    assert_eq!(server_findings(&c.diagnostics(&uri, 1)), expected);

    // Saving the configuration applies the new one to the open buffers.
    std::fs::write(dir.path().join("mcp-lint.toml"), "ignore = [\"MCP001\"]\n").unwrap();
    c.notify(
        "textDocument/didSave",
        json!({ "textDocument": { "uri": file_uri(&dir.path().join("mcp-lint.toml")) } }),
    );
    let p = c.diagnostics_where(&uri, |p| p["version"] == 1);
    assert!(p["diagnostics"].as_array().unwrap().is_empty(), "{p}");
    assert_eq!(cli_findings(dir.path(), "src/main.rs", &args), vec![]);
    c.shutdown();
}

#[test]
fn the_lock_file_decides_the_sdk_version_and_a_saved_lock_is_read_again() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sdk_neva/src/lib.rs");
    let text = std::fs::read_to_string(src).unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/lib.rs"), &text).unwrap();
    std::fs::write(
        dir.path().join("Cargo.toml"),
        "[package]\nname = \"fixture\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nneva = \">=0.3\"\n",
    )
    .unwrap();
    let lock = |v: &str| {
        format!("version = 4\n\n[[package]]\nname = \"fixture\"\nversion = \"0.1.0\"\ndependencies = [\n \"neva\",\n]\n\n[[package]]\nname = \"neva\"\nversion = \"{v}\"\nsource = \"registry+index\"\n")
    };
    std::fs::write(dir.path().join("Cargo.lock"), lock("0.3.4")).unwrap();
    let uri = file_uri(&dir.path().join("src/lib.rs"));
    let expected = cli_findings(dir.path(), "src/lib.rs", &[]);
    assert!(expected.iter().any(|f| f.0 == "MCP001"), "{expected:?}");
    let mut c = Client::start(dir.path(), &[], Value::Null);
    c.open(&uri, &text);
    let diags = c.diagnostics(&uri, 1);
    assert_eq!(server_findings(&diags), expected);
    assert!(diags
        .iter()
        .any(|d| d["message"].as_str().unwrap().contains("(neva 0.3.4)")));
    // Locked at 0.5.4 the keyed API is current: quiet, once the lock's change is seen.
    std::fs::write(dir.path().join("Cargo.lock"), lock("0.5.4")).unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({ "changes": [{ "uri": file_uri(&dir.path().join("Cargo.lock")), "type": 2 }] }),
    );
    let p = c.diagnostics_where(&uri, |p| p["version"] == 1);
    assert_eq!(
        server_findings(p["diagnostics"].as_array().unwrap()),
        cli_findings(dir.path(), "src/lib.rs", &[])
    );
    assert!(p["diagnostics"].as_array().unwrap().is_empty(), "{p}");
    c.shutdown();
}

#[test]
fn only_open_buffers_are_linted() {
    let dir = workspace(LEGACY);
    // Another legacy file on disk, never opened.
    std::fs::write(dir.path().join("src/other.rs"), LEGACY).unwrap();
    let uri = file_uri(&dir.path().join("src/main.rs"));
    let mut c = Client::start(dir.path(), &[], Value::Null);
    c.open(&uri, LEGACY);
    c.diagnostics(&uri, 1);
    c.change_all(&uri, 2, CLEAN);
    c.diagnostics(&uri, 2);
    c.request("mcp-lint/stats", Value::Null);
    let published: Vec<&Value> = c
        .notifications
        .iter()
        .filter(|n| n["method"] == "textDocument/publishDiagnostics")
        .collect();
    assert!(
        published.is_empty(),
        "only main.rs was linted: {published:?}"
    );
    c.shutdown();
}

#[test]
fn a_burst_of_changes_costs_one_lint_and_stale_results_are_never_published() {
    let dir = workspace(CLEAN);
    let uri = file_uri(&dir.path().join("src/main.rs"));
    // A debounce long enough that the burst below is sent well within it.
    let mut c = Client::start(dir.path(), &[], json!({ "debounceMs": 400 }));
    c.open(&uri, LEGACY);
    c.diagnostics(&uri, 1);
    let before = c.request("mcp-lint/stats", Value::Null)["result"].clone();
    for v in 2..=6 {
        let text = if v % 2 == 0 { CLEAN } else { LEGACY };
        c.change_all(&uri, v, text);
    }
    // Version 6 is CLEAN; the answer comes for it alone.
    assert!(c.diagnostics(&uri, 6).is_empty());
    let after = c.request("mcp-lint/stats", Value::Null)["result"].clone();
    assert_eq!(
        after["published"].as_u64().unwrap() - before["published"].as_u64().unwrap(),
        1,
        "{before} -> {after}"
    );
    let stale: Vec<&Value> = c
        .notifications
        .iter()
        .filter(|n| n["method"] == "textDocument/publishDiagnostics")
        .collect();
    assert!(stale.is_empty(), "{stale:?}");

    // Without a debounce, changes that arrive while a lint runs make it out of date: whatever
    // runs, only results for the newest version may follow a newer change, and it comes last.
    c.shutdown();
    let mut c = Client::start(dir.path(), &[], json!({ "debounceMs": 0 }));
    c.open(&uri, LEGACY);
    c.diagnostics(&uri, 1);
    for v in 2..=30 {
        let text = if v % 2 == 0 { CLEAN } else { LEGACY };
        c.change_all(&uri, v, text);
    }
    assert!(c.diagnostics(&uri, 30).is_empty());
    let stats = c.request("mcp-lint/stats", Value::Null)["result"].clone();
    let versions: Vec<i64> = c
        .notifications
        .iter()
        .filter(|n| n["method"] == "textDocument/publishDiagnostics")
        .map(|n| n["params"]["version"].as_i64().unwrap())
        .collect();
    assert!(versions.windows(2).all(|w| w[0] < w[1]), "{versions:?}");
    assert!(versions.iter().all(|&v| v < 30), "{versions:?}");
    // The counter agrees with what arrived: versions 1 and 30, and those in between.
    assert_eq!(
        stats["published"].as_u64().unwrap(),
        versions.len() as u64 + 2,
        "{stats}"
    );
    c.shutdown();
}

#[test]
fn hover_shows_the_rule_docs() {
    let dir = workspace(LEGACY);
    let uri = file_uri(&dir.path().join("src/main.rs"));
    let mut c = Client::start(dir.path(), &[], Value::Null);
    c.open(&uri, LEGACY);
    c.diagnostics(&uri, 1);
    let line = line_of(LEGACY, ".elicit::<Confirm>");
    let r = c.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": uri }, "position": { "line": line, "character": 15 } }),
    );
    let md = r["result"]["contents"]["value"].as_str().unwrap();
    assert_eq!(r["result"]["contents"]["kind"], "markdown");
    assert!(
        md.starts_with("**MCP001** `legacy-elicitation-request`"),
        "{md}"
    );
    let rule = mcp_lint::catalog::catalog().get("MCP001").unwrap();
    assert!(md.contains(&mcp_lint::catalog::render_doc(rule)), "{md}");
    // Away from any finding: nothing.
    let r = c.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": uri }, "position": { "line": 0, "character": 2 } }),
    );
    assert!(r["result"].is_null(), "{r}");
    c.shutdown();
}

fn actions_at(c: &mut Client, uri: &str, line: u64, only: Option<Vec<&str>>) -> Vec<Value> {
    actions_at_column(c, uri, line, 14, only)
}

fn actions_at_column(
    c: &mut Client,
    uri: &str,
    line: u64,
    character: u64,
    only: Option<Vec<&str>>,
) -> Vec<Value> {
    let mut context = json!({ "diagnostics": [] });
    if let Some(only) = only {
        context["only"] = json!(only);
    }
    let r = c.request(
        "textDocument/codeAction",
        json!({
            "textDocument": { "uri": uri },
            "range": { "start": { "line": line, "character": character }, "end": { "line": line, "character": character } },
            "context": context,
        }),
    );
    r["result"].as_array().unwrap().clone()
}

fn edits_of(action: &Value, uri: &str) -> Vec<Value> {
    action["edit"]["changes"][uri].as_array().unwrap().clone()
}

#[test]
fn code_actions_are_labelled_by_safety_and_kind() {
    let dir = workspace(LEGACY);
    let uri = file_uri(&dir.path().join("src/main.rs"));
    let mut c = Client::start(dir.path(), &[], Value::Null);
    c.open(&uri, LEGACY);
    c.diagnostics(&uri, 1);

    // On the legacy ask: its unsafe fix, which says it changes behaviour, and a suppression.
    let ask = line_of(LEGACY, ".elicit::<Confirm>");
    let actions = actions_at(&mut c, &uri, ask, Some(vec!["quickfix"]));
    let titles: Vec<&str> = actions
        .iter()
        .map(|a| a["title"].as_str().unwrap())
        .collect();
    assert_eq!(actions.len(), 2, "{titles:?}");
    let fix = &actions[0];
    assert_eq!(fix["kind"], "quickfix");
    assert!(
        fix["title"]
            .as_str()
            .unwrap()
            .starts_with("Unsafe fix MCP001 (changes behaviour):"),
        "{titles:?}"
    );
    assert!(fix.get("isPreferred").is_none());
    assert_eq!(fix["diagnostics"][0]["code"], "MCP001");
    let migrated = apply_edits(LEGACY, &edits_of(fix, &uri));
    assert!(migrated.contains("#[mrtr_handler]") && migrated.contains("mrtr.elicit::<Confirm>"));
    assert!(syn::parse_file(&migrated).is_ok());
    // The code it writes uses the runtime: the same edit adds it to the package, as `--fix` does.
    let manifest_uri = file_uri(&dir.path().join("Cargo.toml"));
    let manifest = apply_edits(MANIFEST, &edits_of(fix, &manifest_uri));
    assert!(
        manifest.contains("schemars = \"1\"\nmrtr = \"0.1\"\n"),
        "at the end of [dependencies]: {manifest}"
    );
    assert_eq!(manifest.replace("mrtr = \"0.1\"\n", ""), MANIFEST);

    let suppress = &actions[1];
    assert_eq!(suppress["kind"], "quickfix");
    let suppressed = apply_edits(LEGACY, &edits_of(suppress, &uri));
    assert!(
        suppressed.contains(
            "        // mcp-lint: allow(MCP001) -- TODO: say why this is acceptable here\n            .elicit::<Confirm>"
        ),
        "{suppressed}"
    );
    c.change_all(&uri, 2, &suppressed);
    let left: Vec<String> = codes(&c.diagnostics(&uri, 2))
        .into_iter()
        .map(|c| c.0)
        .collect();
    assert_eq!(left, vec!["MCP901"]);

    // On the stale directive: its safe fix, a plain preferred quick fix; no suppression of a
    // suppression finding.
    c.change_all(&uri, 3, LEGACY);
    c.diagnostics(&uri, 3);
    let directive = line_of(LEGACY, "mcp-lint: allow(MCP002)");
    let actions = actions_at(&mut c, &uri, directive, Some(vec!["quickfix"]));
    assert_eq!(actions.len(), 1, "{actions:?}");
    assert_eq!(actions[0]["kind"], "quickfix");
    assert_eq!(actions[0]["isPreferred"], true);
    assert_eq!(
        actions[0]["title"],
        "Fix MCP901: remove the unused suppression"
    );

    // Fix-all: asked for by its kind or its parent kind, never among the quick fixes.
    for only in [
        vec!["source.fixAll.mcp-lint"],
        vec!["source.fixAll"],
        vec!["source"],
    ] {
        let actions = actions_at(&mut c, &uri, 0, Some(only.clone()));
        assert_eq!(actions.len(), 1, "{only:?}: {actions:?}");
        assert_eq!(actions[0]["kind"], "source.fixAll.mcp-lint");
        let fixed = apply_edits(LEGACY, &edits_of(&actions[0], &uri));
        assert!(!fixed.contains("mcp-lint: allow"), "{fixed}");
        // Safe fixes only: the legacy ask is still there.
        assert!(fixed.contains("context\n            .peer\n            .elicit::<Confirm>"));
    }
    let quick = actions_at(&mut c, &uri, 0, Some(vec!["quickfix"]));
    assert!(quick.is_empty(), "{quick:?}");
    let none = actions_at(&mut c, &uri, 0, Some(vec!["refactor"]));
    assert!(none.is_empty(), "{none:?}");
    c.shutdown();
}

#[test]
fn incremental_changes_and_errors_in_the_configuration() {
    let dir = workspace(CLEAN);
    std::fs::write(dir.path().join("mcp-lint.toml"), "rules = 3\n").unwrap();
    let uri = file_uri(&dir.path().join("src/main.rs"));
    let mut c = Client::start(dir.path(), &[], Value::Null);
    c.open(&uri, LEGACY);
    // A broken configuration is shown, not swallowed.
    let deadline = std::time::Instant::now() + lsp_client::WAIT;
    while !c
        .notifications
        .iter()
        .any(|n| n["method"] == "window/showMessage")
    {
        assert!(std::time::Instant::now() < deadline, "no error shown");
        c.request("mcp-lint/stats", Value::Null);
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let shown = c
        .notifications
        .iter()
        .find(|n| n["method"] == "window/showMessage")
        .unwrap()
        .clone();
    assert!(
        shown["params"]["message"]
            .as_str()
            .unwrap()
            .contains("mcp-lint.toml"),
        "{shown}"
    );
    // Typing on does not repeat it.
    c.change_all(&uri, 2, CLEAN);
    c.change_all(&uri, 3, LEGACY);
    std::thread::sleep(std::time::Duration::from_millis(300));
    c.request("mcp-lint/stats", Value::Null);
    let shown = c
        .notifications
        .iter()
        .filter(|n| n["method"] == "window/showMessage")
        .count();
    assert_eq!(shown, 1, "{:?}", c.notifications);
    // Fixed and saved: linted again; then an incremental edit deletes the stale directive.
    std::fs::write(dir.path().join("mcp-lint.toml"), "").unwrap();
    c.notify(
        "textDocument/didSave",
        json!({ "textDocument": { "uri": file_uri(&dir.path().join("mcp-lint.toml")) } }),
    );
    assert_eq!(c.diagnostics(&uri, 3).len(), 2);
    let line = line_of(LEGACY, "mcp-lint: allow(MCP002)");
    c.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": 4 }, "contentChanges": [{
            "range": { "start": { "line": line, "character": 0 }, "end": { "line": line + 1, "character": 0 } },
            "text": ""
        }] }),
    );
    assert_eq!(codes(&c.diagnostics(&uri, 4)), vec![("MCP001".into(), 40)]);
    c.shutdown();
}

#[test]
fn actions_and_hover_right_after_a_change_see_the_new_text() {
    let dir = workspace(CLEAN);
    let uri = file_uri(&dir.path().join("src/main.rs"));
    // The worker would wait a minute: what answers below is linted on demand.
    let mut c = Client::start(dir.path(), &[], json!({ "debounceMs": 60000 }));
    c.open(&uri, LEGACY);
    c.diagnostics(&uri, 1);
    let moved = format!("// a new first line\n{LEGACY}");
    c.change_all(&uri, 2, &moved);
    let actions = actions_at(&mut c, &uri, 0, Some(vec!["source.fixAll.mcp-lint"]));
    assert_eq!(actions.len(), 1, "{actions:?}");
    let fixed = apply_edits(&moved, &edits_of(&actions[0], &uri));
    assert!(
        fixed.starts_with("// a new first line\n//! A legacy"),
        "{fixed}"
    );
    assert!(!fixed.contains("mcp-lint: allow"), "{fixed}");
    let line = line_of(&moved, ".elicit::<Confirm>");
    let r = c.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": uri }, "position": { "line": line, "character": 15 } }),
    );
    assert!(r["result"]["contents"]["value"]
        .as_str()
        .unwrap()
        .starts_with("**MCP001**"));
    // Nothing was published for version 2: the debounce has not run out.
    assert!(
        !c.notifications
            .iter()
            .any(|n| n["method"] == "textDocument/publishDiagnostics"),
        "{:?}",
        c.notifications
    );
    c.shutdown();
}

/// The quick fix whose title starts with `title`, among the actions at the first `needle` of
/// the buffer `text` (a little inside it).
fn quickfix_titled(c: &mut Client, uri: &str, text: &str, needle: &str, title: &str) -> Value {
    let line = line_of(text, needle);
    let column = text
        .lines()
        .nth(line as usize)
        .unwrap()
        .find(needle)
        .unwrap() as u64;
    let actions = actions_at_column(c, uri, line, column + 2, Some(vec!["quickfix"]));
    actions
        .iter()
        .find(|a| a["title"].as_str().unwrap().starts_with(title))
        .cloned()
        .unwrap_or_else(|| panic!("{actions:?}"))
}

/// A helper whose caller sits in another file: the buffer alone has no fix, the package's files
/// together have one. The editor gets it as one action editing both files and the manifest (the
/// caller's file as on disk, the helper's as in the buffer).
#[test]
fn a_helper_with_callers_in_other_files_gets_one_action_over_the_files() {
    let dir = tempfile::tempdir().unwrap();
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
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("Cargo.toml"), manifest).unwrap();
    std::fs::write(dir.path().join("src/lib.rs"), tool).unwrap();
    // On disk the helper asks nothing yet: the action must read the buffer, not the disk.
    std::fs::write(dir.path().join("src/shared.rs"), "").unwrap();
    let uri = file_uri(&dir.path().join("src/shared.rs"));
    let mut c = Client::start(dir.path(), &[], Value::Null);
    c.open(&uri, helper);
    c.diagnostics(&uri, 1);
    let across = quickfix_titled(
        &mut c,
        &uri,
        helper,
        "list_roots",
        "Unsafe fix MCP003 across 3 files",
    );
    let helper_fixed = apply_edits(helper, &edits_of(&across, &uri));
    assert!(
        helper_fixed.contains("#[mrtr_helper]\npub(crate) async fn sure(mrtr: &Mrtr)"),
        "{helper_fixed}"
    );
    let tool_uri = file_uri(&dir.path().join("src/lib.rs"));
    let tool_fixed = apply_edits(tool, &edits_of(&across, &tool_uri));
    assert!(
        tool_fixed.contains("crate::shared::sure(&mrtr).await?"),
        "{tool_fixed}"
    );
    assert!(
        tool_fixed.contains("impl mrtr::MrtrServer for S {}"),
        "{tool_fixed}"
    );
    let manifest_uri = file_uri(&dir.path().join("Cargo.toml"));
    let manifest_fixed = apply_edits(manifest, &edits_of(&across, &manifest_uri));
    assert!(
        manifest_fixed.ends_with("mrtr = \"0.1\"\n"),
        "{manifest_fixed}"
    );
    // Nothing is written by the server: the editor applies the edit.
    assert_eq!(
        std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap(),
        tool
    );
    c.shutdown();
}

/// An exchange whose request is built in one file and written in another: the builder's
/// buffer has the finding, the writer's file the edits. One action carries them and the
/// manifest's runtime, as `--fix` writes them (but for the request scope around the dispatch).
#[test]
fn an_exchange_written_in_another_file_gets_one_action_over_the_files() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = "[package]\nname = \"x\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n\
[dependencies]\nserde_json = \"1\"\ntokio = \"1\"\n";
    let builder = "use serde_json::{json, Value};\n\n\
pub fn ask_request(id: u64) -> Value {\n\
    json!({ \"jsonrpc\": \"2.0\", \"id\": id, \"method\": \"elicitation/create\", \"params\": { \"message\": \"Go?\" } })\n}\n\n\
pub fn pending(id: u64) -> tokio::sync::oneshot::Receiver<Value> {\n\
    let (_tx, rx) = tokio::sync::oneshot::channel();\n    let _ = id;\n    rx\n}\n";
    let server = "mod asks;\n\nuse serde_json::Value;\nuse tokio::io::AsyncWriteExt;\n\n\
pub async fn confirm() -> Result<Value, String> {\n\
    let request = asks::ask_request(7);\n\
    let rx = asks::pending(7);\n\
    let line = serde_json::to_string(&request).map_err(|e| e.to_string())?;\n\
    tokio::io::stdout().write_all(line.as_bytes()).await.map_err(|e| e.to_string())?;\n\
    rx.await.map_err(|e| e.to_string())\n}\n";
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("Cargo.toml"), manifest).unwrap();
    std::fs::write(dir.path().join("src/lib.rs"), server).unwrap();
    std::fs::write(dir.path().join("src/asks.rs"), builder).unwrap();
    let uri = file_uri(&dir.path().join("src/asks.rs"));
    let mut c = Client::start(dir.path(), &[], Value::Null);
    c.open(&uri, builder);
    c.diagnostics(&uri, 1);
    let across = quickfix_titled(
        &mut c,
        &uri,
        builder,
        "elicitation/create",
        "Unsafe fix MCP004 across 2 files",
    );
    let server_uri = file_uri(&dir.path().join("src/lib.rs"));
    let server_fixed = apply_edits(server, &edits_of(&across, &server_uri));
    assert!(
        server_fixed.contains("if mrtr::jsonrpc::Question::message(&request).sends() {"),
        "{server_fixed}"
    );
    assert!(
        server_fixed.contains("mrtr::jsonrpc::Question::message(&request).or_send(|_| rx).await"),
        "{server_fixed}"
    );
    // The builder's file is not edited.
    assert!(across["edit"]["changes"][&uri].is_null(), "{across}");
    let manifest_uri = file_uri(&dir.path().join("Cargo.toml"));
    let manifest_fixed = apply_edits(manifest, &edits_of(&across, &manifest_uri));
    assert!(manifest_fixed.contains("mrtr = "), "{manifest_fixed}");
    c.shutdown();
}
