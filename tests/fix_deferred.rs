//! The deferred tier of the MRTR fix, end to end through the CLI: a request no compiled rewrite
//! takes becomes `mrtr::rmcp::deferred::*` at its call site, whatever the code around it; the
//! server that runs it gets the request scope (`#[mrtr::mrtr_server]`), wherever its
//! `impl ServerHandler` stands (another crate of the workspace included); the JSON report shows
//! the fix `--fix` applies; a second run changes nothing. That the fixed code builds and answers
//! as before on both eras is `tests/fix_compile` (fixtures `pub_helper`, `optional_peer`, ...).

use std::path::Path;
use std::process::{Command, Output};

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-mcp-lint"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("binary runs")
}

fn write(dir: &Path, path: &str, text: &str) {
    let p = dir.join(path);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn read(dir: &Path, path: &str) -> String {
    std::fs::read_to_string(dir.join(path)).unwrap()
}

const GATE_LIB: &str = r#"use rmcp::service::Peer;
use rmcp::RoleServer;

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct Confirm {
    pub confirm: bool,
}
rmcp::elicit_safe!(Confirm);

/// Shared by every server of the workspace.
pub async fn confirm_destructive(peer: Option<&Peer<RoleServer>>, what: &str) -> bool {
    let Some(peer) = peer else { return false };
    let question = format!("Really {what}?");
    matches!(peer.elicit::<Confirm>(question).await, Ok(Some(c)) if c.confirm)
}
"#;

const SERVER: &str = r#"use rmcp::model::*;
use rmcp::service::RequestContext;
use rmcp::{tool, tool_handler, tool_router, ErrorData, RoleServer, ServerHandler};

#[derive(Clone, Default)]
pub struct Store;

#[tool_router]
impl Store {
    #[tool(description = "Drop the cache")]
    async fn drop_cache(&self, context: RequestContext<RoleServer>) -> Result<String, ErrorData> {
        if gates::confirm_destructive(Some(&context.peer), "drop the cache").await {
            Ok("dropped".into())
        } else {
            Ok("kept".into())
        }
    }
}

#[tool_handler]
impl ServerHandler for Store {}
"#;

/// A workspace: `gates` (a library that asks through an optional peer) and `server` (its
/// `impl ServerHandler`, depending on `gates`).
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "Cargo.toml",
        "[workspace]\nmembers = [\"gates\", \"server\"]\n",
    );
    let rmcp =
        "rmcp = { version = \"3.11\", features = [\"server\", \"macros\", \"elicitation\"] }\n";
    write(
        d,
        "gates/Cargo.toml",
        &format!("[package]\nname = \"gates\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n{rmcp}"),
    );
    write(d, "gates/src/lib.rs", GATE_LIB);
    write(
        d,
        "server/Cargo.toml",
        &format!("[package]\nname = \"server\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n{rmcp}gates = {{ path = \"../gates\" }}\n"),
    );
    write(d, "server/src/lib.rs", SERVER);
    dir
}

#[test]
fn a_pub_helper_of_a_library_is_deferred_and_the_server_crate_gets_the_scope() {
    let dir = workspace();
    let d = dir.path();
    // The report shows the fix --fix applies: edits, not a display-only suggestion.
    let out = run(d, &["--format", "json", "."]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let f = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "MCP001")
        .expect("the gate's ask is found")
        .clone();
    assert_eq!(f["fix"]["applicability"], "unsafe", "{f}");
    assert_eq!(f["fix"]["edits"].as_array().unwrap().len(), 1, "{f}");
    let message = f["fix"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("`elicit` becomes `mrtr::rmcp::deferred::elicit`"),
        "{message}"
    );
    // It names what replays: the statements before the ask, and the callers.
    assert!(
        message.contains("re-runs `let Some(peer) = peer el..`, `let question = format!(\"..`"),
        "{message}"
    );
    assert!(
        message.contains("the callers of `confirm_destructive`"),
        "{message}"
    );

    let out = run(d, &["--fix", "--unsafe-fixes", "."]);
    let err = String::from_utf8_lossy(&out.stderr);
    let lib = read(d, "gates/src/lib.rs");
    assert!(
        lib.contains("matches!(mrtr::rmcp::deferred::elicit::<Confirm>(&peer, question).await,"),
        "{lib}\n{err}"
    );
    let server = read(d, "server/src/lib.rs");
    assert!(
        server.contains("#[tool_handler]\n#[mrtr::mrtr_server]\nimpl ServerHandler for Store {}"),
        "{server}\n{err}"
    );
    assert!(
        server.contains("impl mrtr::MrtrServer for Store {}"),
        "{server}"
    );
    for path in ["gates/src/lib.rs", "server/src/lib.rs"] {
        syn::parse_file(&read(d, path)).unwrap_or_else(|e| panic!("{path}: {e}"));
    }
    // Both crates now name the runtime, and both manifests declare it.
    for manifest in ["gates/Cargo.toml", "server/Cargo.toml"] {
        assert!(read(d, manifest).contains("mrtr = "), "{manifest}\n{err}");
    }
    assert!(
        err.contains("runs every request in an MRTR scope for the deferred asks"),
        "{err}"
    );

    // A second run changes nothing.
    let before: Vec<String> = ["gates/src/lib.rs", "server/src/lib.rs", "server/Cargo.toml"]
        .iter()
        .map(|p| read(d, p))
        .collect();
    let again = run(d, &["--fix", "--unsafe-fixes", "."]);
    let after: Vec<String> = ["gates/src/lib.rs", "server/src/lib.rs", "server/Cargo.toml"]
        .iter()
        .map(|p| read(d, p))
        .collect();
    assert_eq!(before, after, "{}", String::from_utf8_lossy(&again.stderr));
}

#[test]
fn without_the_deferred_tier_the_request_keeps_a_display_only_fix_and_nothing_is_scoped() {
    let dir = workspace();
    let d = dir.path();
    let out = run(d, &["--no-deferred-fixes", "--format", "json", "."]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let f = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "MCP001")
        .unwrap()
        .clone();
    assert_eq!(f["fix"]["applicability"], "display-only", "{f}");
    run(d, &["--no-deferred-fixes", "--fix", "--unsafe-fixes", "."]);
    assert_eq!(read(d, "gates/src/lib.rs"), GATE_LIB);
    assert_eq!(read(d, "server/src/lib.rs"), SERVER);
}

#[test]
fn a_deferred_ask_after_an_effect_is_warned_about_once_the_fix_wrote_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "Cargo.toml",
        "[package]\nname = \"p\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nrmcp = { version = \"3.11\", features = [\"server\"] }\n",
    );
    write(
        d,
        "src/lib.rs",
        r#"use rmcp::service::Peer;
use rmcp::RoleServer;

pub struct Audit {
    pub entries: std::sync::Mutex<Vec<String>>,
}

impl Audit {
    pub async fn roots_after_logging(&self, peer: Option<&Peer<RoleServer>>) -> usize {
        self.entries.lock().unwrap().push("listing roots".into());
        let Some(peer) = peer else { return 0 };
        peer.list_roots().await.map(|r| r.roots.len()).unwrap_or(0)
    }
}
"#,
    );
    let before = run(d, &["--format", "json", "."]);
    let report: serde_json::Value = serde_json::from_slice(&before.stdout).unwrap();
    assert!(
        !report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["code"] == "MCP007"),
        "no replay before the fix: {report}"
    );
    run(d, &["--fix", "--unsafe-fixes", "."]);
    let after = run(d, &["--format", "json", "."]);
    let report: serde_json::Value = serde_json::from_slice(&after.stdout).unwrap();
    let replay: Vec<&serde_json::Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "MCP007")
        .collect();
    assert_eq!(replay.len(), 1, "{report}");
    assert_eq!(
        replay[0]["line"], 10,
        "the push on the shared log: {report}"
    );
    assert!(
        replay[0]["message"]
            .as_str()
            .unwrap()
            .contains("runs before the deferred `list_roots` in `roots_after_logging`"),
        "{report}"
    );
}

#[test]
fn a_compiled_handler_whose_server_impl_is_in_another_file_gets_its_mrtr_server_impl_there() {
    // The tools (`tools.rs`) ask directly and take the compiled form; the server's `impl
    // ServerHandler` is in `lib.rs`. The handler file's own rewrite cannot see that impl, so the
    // pass across files writes `impl mrtr::MrtrServer` beside it (without it, every
    // `#[mrtr_handler]` of the type fails to build).
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "Cargo.toml",
        "[package]\nname = \"split\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nrmcp = { version = \"3.11\", features = [\"server\", \"macros\", \"elicitation\", \"schemars\"] }\nserde = { version = \"1\", features = [\"derive\"] }\nschemars = \"1\"\n",
    );
    write(
        dir.path(),
        "src/lib.rs",
        "use rmcp::handler::server::router::tool::ToolRouter;\nuse rmcp::{tool_handler, ServerHandler};\n\nmod tools;\n\n#[derive(Clone)]\npub struct Catalog {\n    tool_router: ToolRouter<Catalog>,\n}\n\n#[tool_handler]\nimpl ServerHandler for Catalog {}\n",
    );
    write(
        dir.path(),
        "src/tools.rs",
        "use rmcp::model::*;\nuse rmcp::service::RequestContext;\nuse rmcp::{tool, tool_router, ErrorData, RoleServer};\n\nuse super::Catalog;\n\n#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]\npub struct Confirm {\n    pub confirm: bool,\n}\nrmcp::elicit_safe!(Confirm);\n\n#[tool_router]\nimpl Catalog {\n    #[tool(description = \"Empties the catalog\")]\n    async fn empty(&self, ctx: RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {\n        let answer = ctx.peer.elicit::<Confirm>(\"Empty it?\".to_string()).await;\n        let yes = matches!(answer, Ok(Some(Confirm { confirm: true })));\n        Ok(CallToolResult::success(vec![ContentBlock::text(yes.to_string())]))\n    }\n}\n",
    );
    let out = run(dir.path(), &["--fix", "--unsafe-fixes", "src"]);
    let err = String::from_utf8_lossy(&out.stderr);
    let tools = read(dir.path(), "src/tools.rs");
    assert!(tools.contains("#[mrtr_handler]"), "{tools}\n{err}");
    let lib = read(dir.path(), "src/lib.rs");
    assert!(
        lib.contains("impl ServerHandler for Catalog {}\n\nimpl mrtr::MrtrServer for Catalog {}"),
        "{lib}\n{err}"
    );
    // The compiled form opens no scope of its own: no attribute.
    assert!(!lib.contains("mrtr_server]"), "{lib}");
    assert!(err.contains("adds `impl mrtr::MrtrServer`"), "{err}");
    // A second run writes no second impl.
    run(dir.path(), &["--fix", "--unsafe-fixes", "src"]);
    assert_eq!(read(dir.path(), "src/lib.rs"), lib);
}

/// A server on its own JSON-RPC (serde_json and tokio, no SDK).
const EXCHANGE_MANIFEST: &str = "[package]\nname = \"x\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n[dependencies]\nserde_json = \"1\"\ntokio = \"1\"\n";

const EXCHANGE_MANAGER: &str = r#"use serde_json::{json, Value};
use tokio::sync::oneshot;

#[derive(serde::Deserialize)]
pub struct Answer {
    pub action: String,
}

#[derive(Default)]
pub struct Manager {}

impl Manager {
    pub fn create_request(&self, id: u64, message: &str) -> (u64, Value) {
        let request = json!({ "jsonrpc": "2.0", "id": id, "method": "elicitation/create", "params": { "message": message } });
        (id, request)
    }

    pub async fn register_pending(&self, id: u64) -> oneshot::Receiver<Answer> {
        let (_tx, rx) = oneshot::channel();
        let _ = id;
        rx
    }
}
"#;

const EXCHANGE_SERVER: &str = r#"mod manager;

use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;

pub struct Server {
    manager: manager::Manager,
}

impl Server {
    pub async fn serve(&self, msg: Value) -> Value {
        let response = self.handle_request(msg).await;
        response
    }

    async fn handle_request(&self, request: Value) -> Value {
        let result = match request["method"].as_str().unwrap_or_default() {
            "tools/call" => self.confirm().await,
            _ => Err("unknown".to_string()),
        };
        json!({ "jsonrpc": "2.0", "id": request["id"], "result": result.ok() })
    }

    async fn confirm(&self) -> Result<Value, String> {
        let (id, request) = self.manager.create_request(1, "Go?");
        let rx = self.manager.register_pending(id).await;
        let line = serde_json::to_string(&request).map_err(|e| e.to_string())?;
        let mut stdout = tokio::io::stdout();
        stdout.write_all(line.as_bytes()).await.map_err(|e| e.to_string())?;
        let answer = rx.await.map_err(|e| e.to_string())?;
        Ok(json!({ "action": answer.action }))
    }
}
"#;

#[test]
fn an_exchange_built_in_one_file_and_written_in_another_is_rewritten_where_it_is_written() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "Cargo.toml", EXCHANGE_MANIFEST);
    write(dir.path(), "src/manager.rs", EXCHANGE_MANAGER);
    write(dir.path(), "src/lib.rs", EXCHANGE_SERVER);
    // Without the deferred tier, the exchange is left as it is.
    let off = run(
        dir.path(),
        &["--no-deferred-fixes", "--fix", "--unsafe-fixes", "src"],
    );
    assert_eq!(
        read(dir.path(), "src/lib.rs"),
        EXCHANGE_SERVER,
        "{}",
        String::from_utf8_lossy(&off.stderr)
    );
    let before = run(dir.path(), &["--format", "json", "src"]);
    let report: serde_json::Value = serde_json::from_slice(&before.stdout).unwrap();
    let built = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "MCP004")
        .unwrap_or_else(|| panic!("{report}"));
    assert_eq!(built["path"], "src/manager.rs", "{built}");
    // The report shows the fix --fix makes: none of it in the builder's file, the write and
    // the receive in the file they sit in.
    let fix = &built["fix"];
    assert_eq!(fix["applicability"], "unsafe", "{built}");
    assert_eq!(fix["edits"].as_array().unwrap().len(), 0, "{built}");
    let others = fix["other_files"].as_array().unwrap();
    assert_eq!(others.len(), 1, "{built}");
    assert_eq!(others[0]["path"], "src/lib.rs", "{built}");
    let shown: Vec<mcp_lint::finding::Edit> =
        serde_json::from_value(others[0]["edits"].clone()).unwrap();
    let shown_fix = mcp_lint::finding::Fix {
        applicability: mcp_lint::finding::Applicability::Unsafe,
        message: String::new(),
        edits: shown,
        other_files: Vec::new(),
    };
    let applied = mcp_lint::fix::apply::apply_fixes(EXCHANGE_SERVER, &[&shown_fix]).text;
    // rustc's JSON carries the same edits as spans of src/lib.rs in the fix's help.
    let rustc = run(dir.path(), &["--format", "rustc-json", "src"]);
    let rustc = String::from_utf8_lossy(&rustc.stdout);
    let line = rustc
        .lines()
        .find(|l| l.contains("\"MCP004\""))
        .unwrap_or_else(|| panic!("{rustc}"));
    let message: serde_json::Value = serde_json::from_str(line).unwrap();
    let spans: Vec<&serde_json::Value> = message["message"]["children"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["spans"].as_array().unwrap())
        .filter(|s| s["suggested_replacement"].is_string())
        .collect();
    assert_eq!(spans.len(), 2, "{line}");
    assert!(
        spans.iter().all(|s| s["file_name"] == "src/lib.rs"),
        "{line}"
    );
    // SARIF: one artifact change, in the writer's file.
    let sarif = run(dir.path(), &["--format", "sarif", "src"]);
    let sarif: serde_json::Value = serde_json::from_slice(&sarif.stdout).unwrap();
    let result = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ruleId"] == "MCP004")
        .unwrap_or_else(|| panic!("{sarif}"));
    let changes = result["fixes"][0]["artifactChanges"].as_array().unwrap();
    assert_eq!(changes.len(), 1, "{result}");
    assert_eq!(
        changes[0]["artifactLocation"]["uri"], "src/lib.rs",
        "{result}"
    );
    assert_eq!(
        changes[0]["replacements"].as_array().unwrap().len(),
        2,
        "{result}"
    );

    let out = run(dir.path(), &["--fix", "--unsafe-fixes", "src"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("fixed 1 finding across 2 files (src/lib.rs, Cargo.toml)"),
        "{err}"
    );
    assert_eq!(
        read(dir.path(), "src/manager.rs"),
        EXCHANGE_MANAGER,
        "the builder stays"
    );
    let server = read(dir.path(), "src/lib.rs");
    assert!(
        server.contains(
            "        if mrtr::jsonrpc::Question::message(&request).sends() {\n            let line = serde_json::to_string(&request).map_err(|e| e.to_string())?;\n            let mut stdout = tokio::io::stdout();\n            stdout.write_all(line.as_bytes()).await.map_err(|e| e.to_string())?;\n        }\n"
        ),
        "{server}"
    );
    assert!(
        server.contains(
            "let answer = mrtr::jsonrpc::Question::message(&request).or_send(|_| rx).await"
        ),
        "{server}"
    );
    assert!(
        server.contains(
            "let response = mrtr::jsonrpc::RequestScope::for_message(env!(\"CARGO_PKG_NAME\"), &msg)"
        ),
        "{server}"
    );
    syn::parse_file(&server).unwrap();
    // The shown edits are --fix's, but for the request scope it writes around the dispatch.
    assert_eq!(
        applied,
        server.replace(
            "mrtr::jsonrpc::RequestScope::for_message(env!(\"CARGO_PKG_NAME\"), &msg)\n            .serve(self.handle_request(msg))\n            .await",
            "self.handle_request(msg).await"
        ),
        "{server}"
    );
    // What is left after the run, as a plain run sees it: the request is no longer sent.
    let left = String::from_utf8_lossy(&out.stdout);
    assert!(!left.contains("MCP004"), "{left}");
    let again = run(dir.path(), &["--fix", "--unsafe-fixes", "src"]);
    assert_eq!(
        read(dir.path(), "src/lib.rs"),
        server,
        "a second run changes nothing"
    );
    assert!(
        !String::from_utf8_lossy(&again.stdout).contains("MCP004"),
        "nothing left to rewrite"
    );
}

#[test]
fn a_blocking_exchange_is_left_unchanged_and_the_run_says_why() {
    let src = r#"use std::io::{BufRead, Write};
use serde_json::json;

pub fn confirm(out: &mut impl Write, input: &mut impl BufRead) -> std::io::Result<String> {
    let request = json!({ "jsonrpc": "2.0", "id": 1, "method": "elicitation/create", "params": { "message": "Go?" } });
    writeln!(out, "{request}")?;
    let mut line = String::new();
    input.read_line(&mut line)?;
    Ok(line)
}
"#;
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "Cargo.toml", EXCHANGE_MANIFEST);
    write(dir.path(), "src/lib.rs", src);
    let out = run(dir.path(), &["--fix", "--unsafe-fixes", "src"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("src/lib.rs:5: exchange not rewritten: the exchange runs in a blocking fn"),
        "{err}"
    );
    assert_eq!(read(dir.path(), "src/lib.rs"), src);
    assert!(String::from_utf8_lossy(&out.stdout).contains("MCP004"));
}

/// A tool erring with a `CallToolResult` (so not the compiled form) that asks until the user
/// accepts, going round again on any failure.
const ASKS_UNTIL_YES: &str = r#"use rmcp::model::*;
use rmcp::service::RequestContext;
use rmcp::{tool, tool_handler, tool_router, RoleServer, ServerHandler};

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct Confirm {
    pub confirm: bool,
}
rmcp::elicit_safe!(Confirm);

#[derive(Clone, Default)]
pub struct S;

#[tool_router]
impl S {
    #[tool(description = "Drop the cache")]
    async fn drop_cache(&self, context: RequestContext<RoleServer>) -> Result<CallToolResult, CallToolResult> {
        let c = loop {
            match context.peer.elicit::<Confirm>("Drop it?").await {
                Ok(Some(c)) => break c,
                _ => continue,
            }
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(format!("{}", c.confirm))]))
    }
}

#[tool_handler]
impl ServerHandler for S {}
"#;

#[test]
fn an_ask_in_a_loop_that_goes_on_when_it_fails_is_not_deferred_and_one_that_leaves_is() {
    let manifest = "[package]\nname = \"s\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nrmcp = { version = \"3.11\", features = [\"server\", \"elicitation\"] }\n";
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "Cargo.toml", manifest);
    write(dir.path(), "src/lib.rs", ASKS_UNTIL_YES);
    // Deferred, the ask would fail until the retry and the loop would ask on forever.
    let out = run(dir.path(), &["--fix", "--unsafe-fixes", "src"]);
    assert_eq!(read(dir.path(), "src/lib.rs"), ASKS_UNTIL_YES);
    let report = run(dir.path(), &["src"]);
    let text = String::from_utf8_lossy(&report.stdout);
    assert!(
        text.contains("and not deferred: the ask stands in a `loop` that goes on when it fails"),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The same loop leaving on a failure takes the deferred form.
    let leaves = ASKS_UNTIL_YES.replace(
        "_ => continue,",
        "Ok(None) => continue,\n                Err(e) => return Err(CallToolResult::error(vec![ContentBlock::text(e.to_string())])),",
    );
    write(dir.path(), "src/lib.rs", &leaves);
    run(dir.path(), &["--fix", "--unsafe-fixes", "src"]);
    let fixed = read(dir.path(), "src/lib.rs");
    assert!(
        fixed.contains("mrtr::rmcp::deferred::elicit::<Confirm>(&context.peer, \"Drop it?\")"),
        "{fixed}"
    );
}
