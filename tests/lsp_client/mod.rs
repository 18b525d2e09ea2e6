//! A minimal LSP client for the protocol tests: spawns `cargo-mcp-lint server`, frames JSON-RPC
//! with `Content-Length`, and collects what the server sends on a reader thread.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

pub const WAIT: Duration = Duration::from_secs(60);

pub struct Client {
    child: Child,
    stdin: ChildStdin,
    rx: Receiver<Value>,
    next_id: i64,
    /// Every notification received so far, in order.
    pub notifications: Vec<Value>,
    _cache: tempfile::TempDir,
}

pub fn file_uri(path: &Path) -> String {
    let mut out = String::from("file://");
    for b in path.to_str().unwrap().bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

impl Client {
    /// Starts the server with `args` after `server`, in `root`, and initialises it.
    pub fn start(root: &Path, args: &[&str], init_options: Value) -> Client {
        let cache = tempfile::tempdir().unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_cargo-mcp-lint"))
            .arg("server")
            .args(args)
            .current_dir(root)
            .env("XDG_CACHE_HOME", cache.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start the server");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let mut len = None;
                loop {
                    let mut line = String::new();
                    if r.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(v) = line.strip_prefix("Content-Length: ") {
                        len = v.parse::<usize>().ok();
                    }
                }
                let mut body = vec![0; len.expect("a Content-Length header")];
                if r.read_exact(&mut body).is_err() {
                    return;
                }
                let v: Value = serde_json::from_slice(&body).expect("JSON body");
                if tx.send(v).is_err() {
                    return;
                }
            }
        });
        let mut c = Client {
            child,
            stdin,
            rx,
            next_id: 0,
            notifications: Vec::new(),
            _cache: cache,
        };
        let uri = file_uri(root);
        let r = c.request(
            "initialize",
            json!({
                "processId": null,
                "rootUri": uri,
                "workspaceFolders": [{ "uri": uri, "name": "ws" }],
                "capabilities": {},
                "initializationOptions": init_options,
            }),
        );
        assert!(r["result"]["capabilities"].is_object(), "{r}");
        c.notify("initialized", json!({}));
        c
    }

    pub fn cache_dir(&self) -> PathBuf {
        self._cache.path().to_path_buf()
    }

    /// Writes `bytes` to the server's input as they are (framing included, or not).
    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).unwrap();
        self.stdin.flush().unwrap();
    }

    /// The next message the server sends that `accept` takes (earlier ones are kept as
    /// notifications); panics after [`WAIT`].
    pub fn next_where(&mut self, accept: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.notifications.iter().position(&accept) {
            return self.notifications.remove(i);
        }
        let deadline = Instant::now() + WAIT;
        loop {
            let v = self
                .recv(deadline)
                .unwrap_or_else(|| panic!("no such message; got {:?}", self.notifications));
            if accept(&v) {
                return v;
            }
            self.notifications.push(v);
        }
    }

    /// Sends `exit` (after a `shutdown` or not) and returns the exit status.
    pub fn exit(mut self) -> std::process::ExitStatus {
        self.notify("exit", Value::Null);
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "the server did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn send(&mut self, v: &Value) {
        let body = serde_json::to_vec(v).unwrap();
        write!(self.stdin, "Content-Length: {}\r\n\r\n", body.len()).unwrap();
        self.stdin.write_all(&body).unwrap();
        self.stdin.flush().unwrap();
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    /// Sends a request and waits for its response (keeping the notifications that come first).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        let deadline = Instant::now() + WAIT;
        loop {
            let v = self
                .recv(deadline)
                .unwrap_or_else(|| panic!("no response to {method}"));
            if v.get("id") == Some(&json!(id)) && v.get("method").is_none() {
                return v;
            }
            self.notifications.push(v);
        }
    }

    fn recv(&mut self, deadline: Instant) -> Option<Value> {
        let left = deadline.saturating_duration_since(Instant::now());
        self.rx.recv_timeout(left).ok()
    }

    /// Waits for the next `publishDiagnostics` for `uri` (already received ones first) that
    /// `accept` takes; returns its params.
    pub fn diagnostics_where(&mut self, uri: &str, accept: impl Fn(&Value) -> bool) -> Value {
        let is_it = |v: &Value| {
            v["method"] == "textDocument/publishDiagnostics"
                && v["params"]["uri"] == uri
                && accept(&v["params"])
        };
        if let Some(i) = self.notifications.iter().position(is_it) {
            return self.notifications.remove(i)["params"].clone();
        }
        let deadline = Instant::now() + WAIT;
        loop {
            let v = self.recv(deadline).unwrap_or_else(|| {
                panic!("no diagnostics for {uri}; got {:?}", self.notifications)
            });
            if is_it(&v) {
                return v["params"].clone();
            }
            self.notifications.push(v);
        }
    }

    /// The diagnostics of `version` of `uri`.
    pub fn diagnostics(&mut self, uri: &str, version: i64) -> Vec<Value> {
        let p = self.diagnostics_where(uri, |p| p["version"] == version);
        p["diagnostics"].as_array().unwrap().clone()
    }

    pub fn open(&mut self, uri: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri, "languageId": "rust", "version": 1, "text": text } }),
        );
    }

    /// Replaces the whole text (a change event without a range).
    pub fn change_all(&mut self, uri: &str, version: i64, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": uri, "version": version }, "contentChanges": [{ "text": text }] }),
        );
    }

    /// Stops the server the way a client does; panics if it does not exit cleanly.
    pub fn shutdown(mut self) {
        let r = self.request("shutdown", Value::Null);
        assert!(r.get("error").is_none(), "{r}");
        self.notify("exit", Value::Null);
        let status = self.child.wait().unwrap();
        assert!(status.success(), "server exit status {status}");
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Applies LSP text edits (UTF-16 positions; the fixtures are ASCII, so bytes) to `text`.
pub fn apply_edits(text: &str, edits: &[Value]) -> String {
    let starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let offset = |p: &Value| {
        let line = p["line"].as_u64().unwrap() as usize;
        let ch = p["character"].as_u64().unwrap() as usize;
        starts.get(line).map_or(text.len(), |s| s + ch)
    };
    let mut spans: Vec<(usize, usize, String)> = edits
        .iter()
        .map(|e| {
            (
                offset(&e["range"]["start"]),
                offset(&e["range"]["end"]),
                e["newText"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    spans.sort_by_key(|s| (s.0, s.1));
    let mut out = String::new();
    let mut at = 0;
    for (s, e, t) in spans {
        out.push_str(&text[at..s]);
        out.push_str(&t);
        at = e;
    }
    out.push_str(&text[at..]);
    out
}
