//! The language server's answers to hostile input (issue 32), sent the way the adversarial run
//! sent it: raw bytes on the server's stdin. Every bad frame gets a JSON-RPC error, and the
//! server answers a good request afterwards; `shutdown` and `exit` follow the protocol.

mod lsp_client;

use lsp_client::{file_uri, Client};
use serde_json::{json, Value};

fn framed(body: &[u8]) -> Vec<u8> {
    let mut v = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    v.extend_from_slice(body);
    v
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("Cargo.toml"),
        "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nrmcp = \"3\"\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    dir
}

/// The server is alive: it answers a request.
fn answers(c: &mut Client) {
    let r = c.request("mcp-lint/stats", Value::Null);
    assert!(r.get("result").is_some(), "{r}");
}

fn error_with_null_id(c: &mut Client, code: i64) -> Value {
    let e = c.next_where(|v| v.get("error").is_some() && v["id"].is_null());
    assert_eq!(e["error"]["code"], code, "{e}");
    e
}

#[test]
fn undecodable_frames_are_answered_and_the_server_goes_on() {
    let dir = project();
    let mut c = Client::start(dir.path(), &[], json!({}));
    // Truncated JSON.
    c.send_raw(&framed(
        br#"{"jsonrpc":"2.0","id":90,"method":"textDocument/hov"#,
    ));
    error_with_null_id(&mut c, -32700);
    answers(&mut c);
    // A batch.
    c.send_raw(&framed(
        br#"[{"jsonrpc":"2.0","id":91,"method":"mcp-lint/stats"}]"#,
    ));
    error_with_null_id(&mut c, -32600);
    answers(&mut c);
    // A body that is not UTF-8.
    c.send_raw(&framed(
        b"{\"jsonrpc\":\"2.0\",\"id\":92,\"method\":\"x\xff\xfe\"}",
    ));
    error_with_null_id(&mut c, -32700);
    answers(&mut c);
    // JSON that is not a message: answered with its id.
    c.send_raw(&framed(br#"{"jsonrpc":"2.0","id":93,"method":7}"#));
    let e = c.next_where(|v| v["id"] == 93);
    assert_eq!(e["error"]["code"], -32600, "{e}");
    answers(&mut c);
    // A header without a length, then one with a length that is not a number.
    c.send_raw(b"Content-Type: x\r\n\r\n");
    error_with_null_id(&mut c, -32700);
    c.send_raw(b"Content-Length: -5\r\n\r\n");
    error_with_null_id(&mut c, -32700);
    answers(&mut c);
    c.shutdown();
}

#[test]
fn a_message_over_the_cap_is_refused_and_skipped() {
    let dir = project();
    let mut c = Client::start(dir.path(), &[], json!({}));
    let over = (64usize << 20) + 1;
    let mut frame = format!("Content-Length: {over}\r\n\r\n").into_bytes();
    frame.resize(frame.len() + over, b' ');
    c.send_raw(&frame);
    error_with_null_id(&mut c, -32600);
    answers(&mut c);
    c.shutdown();
}

#[test]
fn a_lone_surrogate_in_did_change_is_refused_and_the_document_no_longer_followed() {
    let dir = project();
    let path = dir.path().join("src/main.rs");
    std::fs::write(&path, "fn main() {}\n").unwrap();
    let uri = file_uri(&path);
    let mut c = Client::start(dir.path(), &[], json!({}));
    c.open(&uri, "fn main() {}\n");
    c.diagnostics(&uri, 1);
    // As an editor built on JavaScript sends half of a surrogate pair: escaped, unpaired.
    let body = format!(
        r#"{{"jsonrpc":"2.0","method":"textDocument/didChange","params":{{"textDocument":{{"uri":"{uri}","version":2}},"contentChanges":[{{"text":"// \ud83d\nfn main() {{}}\n"}}]}}}}"#
    );
    c.send_raw(&framed(body.as_bytes()));
    // A parse error (a notification has no id to answer with) ...
    let e = error_with_null_id(&mut c, -32700);
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .contains("textDocument/didChange"),
        "{e}"
    );
    // ... the user told which document is no longer checked, and why ...
    let shown = c.next_where(|v| v["method"] == "window/showMessage");
    assert_eq!(shown["params"]["type"], 1, "{shown}");
    let text = shown["params"]["message"].as_str().unwrap();
    assert!(text.contains(&uri) && text.contains("surrogate"), "{text}");
    // ... its diagnostics cleared (they would point into text the server no longer has) ...
    let cleared = c.diagnostics_where(&uri, |p| p["version"].is_null());
    assert_eq!(cleared["diagnostics"], json!([]));
    // ... and the server goes on: it answers, and a reopened document is linted again.
    answers(&mut c);
    c.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "rust", "version": 5, "text": "fn main() {}\n" } }),
    );
    c.diagnostics(&uri, 5);
    // A request holding one is answered with its id.
    c.send_raw(&framed(
        br#"{"jsonrpc":"2.0","id":77,"method":"textDocument/hover","params":{"x":"\udc00"}}"#,
    ));
    let e = c.next_where(|v| v["id"] == 77);
    assert_eq!(e["error"]["code"], -32700, "{e}");
    answers(&mut c);
    c.shutdown();
}

#[test]
fn a_request_after_shutdown_is_invalid_and_exit_then_succeeds() {
    let dir = project();
    let mut c = Client::start(dir.path(), &[], json!({}));
    let r = c.request("shutdown", Value::Null);
    assert!(r.get("error").is_none(), "{r}");
    let r = c.request("mcp-lint/stats", Value::Null);
    assert_eq!(r["error"]["code"], -32600, "{r}");
    let status = c.exit();
    assert_eq!(status.code(), Some(0), "{status}");
}

#[test]
fn exit_without_shutdown_exits_1() {
    let dir = project();
    let mut c = Client::start(dir.path(), &[], json!({}));
    answers(&mut c);
    let status = c.exit();
    assert_eq!(status.code(), Some(1), "{status}");
}

/// The language server's fuzz corpus (`fuzz/corpus/lsp_frames`) replayed through the framing
/// reader, as the fuzz target runs it: every frame a message or an error the server can send.
#[test]
fn the_framing_fuzz_corpus_reads_without_a_panic() {
    use mcp_lint::server::framing::{self, Frame};
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/lsp_frames");
    let mut inputs = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let data = std::fs::read(entry.unwrap().path()).unwrap();
        inputs += 1;
        let mut r = std::io::BufReader::with_capacity(7, &data[..]);
        while let Some(frame) = framing::read_frame(&mut r).unwrap() {
            if let Frame::Rejected(e) = frame {
                let code = e["error"]["code"].as_i64().unwrap();
                assert!(code == framing::PARSE_ERROR || code == framing::INVALID_REQUEST);
            }
        }
    }
    assert!(inputs >= 8);
}
