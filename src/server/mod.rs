//! `cargo mcp-lint server`: a language server over stdio.
//!
//! Built on `lsp-server` and `lsp-types` (rust-analyzer's own): a synchronous message loop on
//! plain threads and channels. The linter is synchronous and CPU-bound, so an async runtime
//! (`tower-lsp` brings tokio) would add a dependency tree and buy nothing; with plain threads the
//! debounce and the dropping of out-of-date runs are a few lines we control (`scheduler`).
//!
//! - [`text`]: positions (UTF-16 columns) and incremental edits of the buffers;
//! - [`uri`]: `file:` URIs and paths;
//! - [`workspace`]: the command line's pipeline for one buffer (configuration, manifest, lock);
//! - [`scheduler`]: the lint worker (debounce, out-of-date runs dropped);
//! - [`diagnostics`], [`actions`], [`hover`], [`docs`]: what the editor is sent.

pub mod actions;
pub mod diagnostics;
pub mod docs;
pub mod framing;
pub mod hover;
pub mod scheduler;
pub mod state;
pub mod text;
pub mod uri;
pub mod workspace;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::{
    CodeActionKind, CodeActionOptions, CodeActionParams, CodeActionProviderCapability,
    DidChangeTextDocumentParams, DidChangeWatchedFilesParams, DidCloseTextDocumentParams,
    DidOpenTextDocumentParams, DidSaveTextDocumentParams, HoverParams, HoverProviderCapability,
    SaveOptions, ServerCapabilities, TextDocumentSyncCapability, TextDocumentSyncKind,
    TextDocumentSyncOptions, TextDocumentSyncSaveOptions,
};
use serde_json::{json, Value};

use scheduler::Scheduler;
use state::{Document, Shared};
pub use workspace::Options;

/// How long after a change its lint starts when the client does not say
/// (`initializationOptions.debounceMs`): short enough that a 2,000-line file has its diagnostics
/// within 50 ms of a keystroke (`bench/server_latency.py`), long enough that a burst of
/// keystrokes (or a paste sent as many changes) costs one lint.
pub const DEFAULT_DEBOUNCE: Duration = Duration::from_millis(15);

/// Serves one client on stdin/stdout until it says `exit`; the exit status: 0 after `shutdown`
/// (or when the client closes the input), 1 for an `exit` without one (as the protocol says).
pub fn run_stdio(options: Options) -> Result<i32, String> {
    let (connection, writer) = framing::stdio().map_err(|e| format!("language server I/O: {e}"))?;
    let status = serve(&connection, options)?;
    drop(connection);
    match writer.join() {
        // A client that quits without waiting for the server closes the pipes first.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(status),
        r => r
            .map(|()| status)
            .map_err(|e| format!("language server I/O: {e}")),
    }
}

/// Serves one client on `connection`: the handshake, then the message loop. Returns the exit
/// status (see [`run_stdio`]).
pub fn serve(connection: &Connection, options: Options) -> Result<i32, String> {
    let (id, params) = connection
        .initialize_start()
        .map_err(|e| format!("language server handshake: {e}"))?;
    let root = workspace_root(&params);
    let debounce = params
        .pointer("/initializationOptions/debounceMs")
        .and_then(Value::as_u64)
        .map_or(DEFAULT_DEBOUNCE, Duration::from_millis);
    let capabilities = ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::INCREMENTAL),
                save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                    include_text: Some(false),
                })),
                ..TextDocumentSyncOptions::default()
            },
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![
                CodeActionKind::QUICKFIX,
                CodeActionKind::from(actions::FIX_ALL),
            ]),
            ..CodeActionOptions::default()
        })),
        ..ServerCapabilities::default()
    };
    let result = json!({
        "capabilities": capabilities,
        "serverInfo": { "name": "mcp-lint", "version": env!("CARGO_PKG_VERSION") },
    });
    connection
        .initialize_finish(id, result)
        .map_err(|e| format!("language server handshake: {e}"))?;
    // A configuration error is the user's to fix: shown, and the server waits for the save that
    // fixes it (the defaults apply meanwhile).
    let (workspace, config_error) = match workspace::Workspace::new(&root, options.clone()) {
        Ok(w) => (w, None),
        Err(e) => (
            workspace::Workspace::new(&root, Options::default())?,
            Some(e),
        ),
    };
    let links = docs::default_dir()
        .map(|dir| docs::DocLinks::write_to(&dir))
        .unwrap_or_default();
    let shared = Arc::new(Shared::new(workspace, links));
    let scheduler = Scheduler::start(shared.clone(), connection.sender.clone())?;
    let mut server = Server {
        connection,
        shared,
        scheduler,
        debounce,
        shut_down: false,
    };
    if let Some(e) = config_error {
        server.show_error(&format!("mcp-lint: {e}"));
    }
    server.run()
}

/// The workspace folder the client opened (its first), else the root it names, else the
/// directory the server started in.
fn workspace_root(params: &Value) -> PathBuf {
    let from_uri = |v: Option<&Value>| {
        v.and_then(Value::as_str)
            .and_then(|s| s.parse::<lsp_types::Uri>().ok())
            .and_then(|u| uri::to_path(&u))
    };
    from_uri(params.pointer("/workspaceFolders/0/uri"))
        .or_else(|| from_uri(params.get("rootUri")))
        .or_else(|| {
            params
                .get("rootPath")
                .and_then(Value::as_str)
                .map(PathBuf::from)
        })
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| PathBuf::from("/"))
}

struct Server<'a> {
    connection: &'a Connection,
    shared: Arc<Shared>,
    scheduler: Scheduler,
    debounce: Duration,
    /// `shutdown` was answered: requests are refused, `exit` ends with status 0.
    shut_down: bool,
}

impl Server<'_> {
    fn run(&mut self) -> Result<i32, String> {
        for msg in &self.connection.receiver {
            match msg {
                Message::Request(req) if self.shut_down => {
                    self.send(Message::Response(Response::new_err(
                        req.id,
                        ErrorCode::InvalidRequest as i32,
                        format!("{}: the server is shutting down", req.method),
                    )));
                }
                Message::Request(req) if req.method == "shutdown" => {
                    self.shut_down = true;
                    self.send(Message::Response(Response::new_ok(req.id, Value::Null)));
                }
                Message::Request(req) => {
                    let response = self.request(req);
                    self.send(Message::Response(response));
                }
                Message::Notification(n) if n.method == "exit" => {
                    return Ok(if self.shut_down { 0 } else { 1 });
                }
                Message::Notification(_) if self.shut_down => {}
                Message::Notification(n) => self.notification(n),
                Message::Response(_) => {}
            }
        }
        // The client closed the input without `exit`.
        Ok(0)
    }

    fn request(&mut self, req: Request) -> Response {
        let id = req.id.clone();
        let result = match req.method.as_str() {
            "textDocument/hover" => parse::<HoverParams>(req.params).map(|p| {
                let uri = p.text_document_position_params.text_document.uri;
                let at = p.text_document_position_params.position;
                json!(self
                    .shared
                    .current(uri.as_str())
                    .and_then(|l| hover::hover(&l, at)))
            }),
            "textDocument/codeAction" => parse::<CodeActionParams>(req.params).map(|p| {
                let actions = match self.shared.current(p.text_document.uri.as_str()) {
                    Some(l) => actions::code_actions(&self.shared, &p, &l),
                    None => Vec::new(),
                };
                json!(actions)
            }),
            "mcp-lint/stats" => Ok(json!(self.scheduler.stats())),
            other => Err((
                ErrorCode::MethodNotFound as i32,
                format!("mcp-lint does not handle {other}"),
            )),
        };
        match result {
            Ok(v) => Response::new_ok(id, v),
            Err((code, message)) => Response::new_err(id, code, message),
        }
    }

    fn notification(&mut self, n: Notification) {
        match n.method.as_str() {
            "textDocument/didOpen" => {
                if let Ok(p) = serde_json::from_value::<DidOpenTextDocumentParams>(n.params) {
                    self.open(p);
                }
            }
            "textDocument/didChange" => {
                if let Ok(p) = serde_json::from_value::<DidChangeTextDocumentParams>(n.params) {
                    self.change(p);
                }
            }
            "textDocument/didSave" => {
                if let Ok(p) = serde_json::from_value::<DidSaveTextDocumentParams>(n.params) {
                    self.saved(uri::to_path(&p.text_document.uri).as_deref());
                    self.scheduler
                        .lint(p.text_document.uri.as_str(), Duration::ZERO);
                }
            }
            "workspace/didChangeWatchedFiles" => {
                if let Ok(p) = serde_json::from_value::<DidChangeWatchedFilesParams>(n.params) {
                    for change in p.changes {
                        self.saved(uri::to_path(&change.uri).as_deref());
                    }
                }
            }
            "textDocument/didClose" => {
                if let Ok(p) = serde_json::from_value::<DidCloseTextDocumentParams>(n.params) {
                    self.forget(p.text_document.uri.as_str());
                }
            }
            framing::REFUSED_TEXT => self.refused(&n.params),
            _ => {}
        }
    }

    fn open(&mut self, p: DidOpenTextDocumentParams) {
        let doc = p.text_document;
        let path = uri::to_path(&doc.uri).unwrap_or_else(|| {
            // A buffer with no file (`untitled:`): linted as a file at the root, with its settings.
            self.shared.workspace().root().join("untitled.rs")
        });
        if doc.language_id != "rust" && path.extension().is_none_or(|e| e != "rs") {
            return;
        }
        self.shared.docs().insert(
            doc.uri.as_str().to_string(),
            Document {
                text: doc.text.into(),
                version: doc.version,
                path,
            },
        );
        self.scheduler.lint(doc.uri.as_str(), Duration::ZERO);
    }

    fn change(&mut self, p: DidChangeTextDocumentParams) {
        let uri = p.text_document.uri.as_str();
        {
            let mut docs = self.shared.docs();
            let Some(doc) = docs.get_mut(uri) else {
                return;
            };
            let mut text = doc.text.to_string();
            for change in &p.content_changes {
                text::apply_change(&mut text, change);
            }
            doc.text = text.into();
            doc.version = p.text_document.version;
        }
        self.scheduler.lint(uri, self.debounce);
    }

    /// Stops following a document: its copy and diagnostics go.
    fn forget(&mut self, uri: &str) {
        self.shared.docs().remove(uri);
        self.shared.linted().remove(uri);
        scheduler::publish(&self.connection.sender, uri, Vec::new(), None);
    }

    /// A `didOpen` or `didChange` the reader refused for its text (a lone surrogate; the client
    /// got its parse error). The server's copy of the document now misses an edit the editor
    /// made, and every later incremental change would land in the wrong place: the document is
    /// no longer followed (its diagnostics cleared, which stale ones would not be) until the
    /// editor opens it again, and the user is told which document and why.
    fn refused(&mut self, params: &Value) {
        let method = params.get("method").and_then(Value::as_str).unwrap_or("");
        let Some(uri) = params.get("uri").and_then(Value::as_str) else {
            return;
        };
        if !matches!(method, "textDocument/didOpen" | "textDocument/didChange") {
            return;
        }
        let followed = self.shared.docs().contains_key(uri);
        if method == "textDocument/didChange" && !followed {
            return;
        }
        self.forget(uri);
        self.show_error(&format!(
            "mcp-lint: the editor sent {uri} with a lone UTF-16 surrogate (half of a character \
such as an emoji), which is not text; mcp-lint stopped checking this document: close and reopen \
it once the character is whole"
        ));
    }

    /// A saved configuration, manifest or lock file changes what every open buffer reports.
    fn saved(&mut self, path: Option<&Path>) {
        if !path.is_some_and(workspace::changes_settings) {
            return;
        }
        let reloaded = self.shared.workspace().reload();
        if let Err(e) = reloaded {
            self.show_error(&format!("mcp-lint: {e}"));
        }
        let open: Vec<String> = self.shared.docs().keys().cloned().collect();
        for uri in open {
            self.scheduler.lint(&uri, Duration::ZERO);
        }
    }

    fn show_error(&self, message: &str) {
        let params = lsp_types::ShowMessageParams {
            typ: lsp_types::MessageType::ERROR,
            message: message.to_string(),
        };
        self.send(Message::Notification(Notification::new(
            "window/showMessage".into(),
            params,
        )));
    }

    fn send(&self, msg: Message) {
        let _ = self.connection.sender.send(msg);
    }
}

fn parse<T: serde::de::DeserializeOwned>(params: Value) -> Result<T, (i32, String)> {
    serde_json::from_value(params).map_err(|e| {
        (
            ErrorCode::InvalidParams as i32,
            format!("invalid params: {e}"),
        )
    })
}
