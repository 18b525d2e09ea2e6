//! The server's own stdio transport: `Content-Length` framing and JSON-RPC decoding that answer a
//! bad message with an error and read on, where `lsp-server`'s reader ends the connection (and the
//! server with it) on the first frame it cannot decode.
//!
//! - A body is read as its bytes arrive, never into a buffer sized from the header, and a message
//!   longer than [`MAX_MESSAGE`] is skipped (read and dropped in small pieces) and answered with
//!   an error: a header may promise gigabytes it never sends.
//! - Header lines are capped at [`MAX_HEADER_LINE`] bytes; a header block without a usable
//!   `Content-Length` is answered with a parse error, and reading starts again at the next block.
//! - A body that is not UTF-8 or not JSON is a parse error (-32700); a batch (an array: LSP has
//!   none), or a JSON value that is not a message, is an invalid request (-32600), with the
//!   request's `id` when it has one.
//! - A lone UTF-16 surrogate escape (`"\ud83d"`, which editors built on JavaScript send when a
//!   buffer holds half a pair) is not text: the message is a parse error (-32700, with the
//!   request's id when it has one), and when it was about a document (a `didOpen`, a `didChange`)
//!   the server is told ([`REFUSED_TEXT`]): it stops following that document, whose copy would be
//!   out of step with the editor from then on, and says so (see `server::Server::refused`).

use std::io::{self, BufRead, Read, Write};
use std::thread;

use crossbeam_channel::{Receiver, Sender};
use lsp_server::{Connection, Message};
use serde_json::{json, Value};

/// The largest message read (64 MiB, as other language servers cap theirs).
pub const MAX_MESSAGE: u64 = 64 << 20;

/// The longest header line kept; the rest of a longer line is dropped unread into memory.
pub const MAX_HEADER_LINE: usize = 8 << 10;

/// JSON-RPC's "Parse error".
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's "Invalid Request".
pub const INVALID_REQUEST: i64 = -32600;

/// The notification the reader hands the server for a message refused for its text (a lone
/// surrogate), with the refused message's `method` and document `uri`: the reader answers the
/// client, the server deals with the document.
pub const REFUSED_TEXT: &str = "mcp-lint/refusedText";

/// What one frame of input was.
#[derive(Debug)]
pub enum Frame {
    /// A message for the server.
    Message(Message),
    /// A frame that is not a message: the JSON-RPC error response to send back.
    Rejected(Value),
    /// A message refused for its text: the error response to send back, and the
    /// [`REFUSED_TEXT`] notification for the server.
    RefusedText(Value, Message),
}

/// Reads the next frame. `Ok(None)` at the end of the input (also in the middle of a frame: the
/// client is gone).
pub fn read_frame(r: &mut impl BufRead) -> io::Result<Option<Frame>> {
    let mut length: Option<Result<u64, String>> = None;
    let mut seen_header = false;
    loop {
        let Some(line) = read_header_line(r)? else {
            return Ok(None);
        };
        if line.is_empty() {
            if !seen_header {
                // Blank lines between frames: nothing to answer.
                continue;
            }
            break;
        }
        seen_header = true;
        let text = String::from_utf8_lossy(&line);
        let Some((name, value)) = text.split_once(':') else {
            continue;
        };
        if name.trim().eq_ignore_ascii_case("content-length") {
            length = Some(
                value
                    .trim()
                    .parse::<u64>()
                    .map_err(|_| format!("Content-Length `{}` is not a number", value.trim())),
            );
        }
    }
    let length = match length {
        Some(Ok(n)) => n,
        Some(Err(e)) => return Ok(Some(Frame::Rejected(error(Value::Null, PARSE_ERROR, &e)))),
        None => {
            return Ok(Some(Frame::Rejected(error(
                Value::Null,
                PARSE_ERROR,
                "a header without Content-Length",
            ))))
        }
    };
    if length > MAX_MESSAGE {
        let skipped = io::copy(&mut r.take(length), &mut io::sink())?;
        if skipped < length {
            return Ok(None);
        }
        return Ok(Some(Frame::Rejected(error(
            Value::Null,
            INVALID_REQUEST,
            &format!("a message of {length} bytes; the limit is {MAX_MESSAGE}"),
        ))));
    }
    // Grows as the bytes come: the header alone never decides how much memory is taken.
    let mut body = Vec::new();
    r.take(length).read_to_end(&mut body)?;
    if (body.len() as u64) < length {
        return Ok(None);
    }
    Ok(Some(decode(&body)))
}

/// One header line without its `\r\n` (or `\n`), at most [`MAX_HEADER_LINE`] bytes of it kept.
/// None at the end of the input.
fn read_header_line(r: &mut impl BufRead) -> io::Result<Option<Vec<u8>>> {
    let mut line = Vec::new();
    let mut any = false;
    loop {
        let buf = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            return Ok(any.then_some(line));
        }
        any = true;
        let (chunk, done) = match memchr::memchr(b'\n', buf) {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        let room = MAX_HEADER_LINE.saturating_sub(line.len());
        line.extend_from_slice(&chunk[..chunk.len().min(room)]);
        let used = done.unwrap_or(buf.len());
        r.consume(used);
        if done.is_some() {
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            return Ok(Some(line));
        }
    }
}

/// A body as a message, or the error that answers it.
pub fn decode(body: &[u8]) -> Frame {
    let Ok(text) = std::str::from_utf8(body) else {
        return Frame::Rejected(error(Value::Null, PARSE_ERROR, "the message is not UTF-8"));
    };
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(first) => {
            return match repair_lone_surrogates(text).map(|t| serde_json::from_str(&t)) {
                Some(Ok(v)) => refused_text(&v),
                _ => Frame::Rejected(error(
                    Value::Null,
                    PARSE_ERROR,
                    &format!("the message is not JSON: {first}"),
                )),
            }
        }
    };
    let id = match &value {
        Value::Object(o) => o.get("id").cloned().unwrap_or(Value::Null),
        Value::Array(_) => {
            return Frame::Rejected(error(
                Value::Null,
                INVALID_REQUEST,
                "batches are not part of the language server protocol",
            ))
        }
        _ => {
            return Frame::Rejected(error(
                Value::Null,
                INVALID_REQUEST,
                "a message is a JSON object",
            ))
        }
    };
    // Only an id that is a number or a string can be echoed (JSON-RPC 2.0, section 5).
    let id = match id {
        Value::Number(_) | Value::String(_) => id,
        _ => Value::Null,
    };
    match serde_json::from_value::<Message>(value) {
        Ok(m) => Frame::Message(m),
        Err(e) => Frame::Rejected(error(
            id,
            INVALID_REQUEST,
            &format!("not a JSON-RPC request, notification or response: {e}"),
        )),
    }
}

/// A message whose strings hold a lone surrogate, read with each one as U+FFFD (`value`): a
/// parse error with its id, and the server told which document it was about.
fn refused_text(value: &Value) -> Frame {
    let id = match value.get("id") {
        Some(id @ (Value::Number(_) | Value::String(_))) => id.clone(),
        _ => Value::Null,
    };
    let method = value.get("method").and_then(Value::as_str).unwrap_or("");
    let reply = error(
        id,
        PARSE_ERROR,
        &format!(
            "the message{} holds a lone UTF-16 surrogate escape (half of a pair, such as \
`\\ud83d`), which is not Unicode text; it was not applied",
            if method.is_empty() {
                String::new()
            } else {
                format!(" `{method}`")
            }
        ),
    );
    let uri = value.pointer("/params/textDocument/uri").cloned();
    let notice = lsp_server::Notification::new(
        REFUSED_TEXT.into(),
        json!({ "method": method, "uri": uri.unwrap_or(Value::Null) }),
    );
    Frame::RefusedText(reply, Message::Notification(notice))
}

/// `text` with each `\uXXXX` escape of an unpaired surrogate replaced by `\uFFFD`; None when it
/// has none. Outside strings JSON has no backslash, so a scan of escapes needs no string state.
pub fn repair_lone_surrogates(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let hex4 = |at: usize| -> Option<u32> {
        let digits = std::str::from_utf8(b.get(at..at + 4)?).ok()?;
        u32::from_str_radix(digits, 16).ok()
    };
    let is_high = |u: u32| (0xD800..0xDC00).contains(&u);
    let is_low = |u: u32| (0xDC00..0xE000).contains(&u);
    let mut out = String::new();
    let mut last = 0;
    let mut changed = false;
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        if b.get(i + 1) != Some(&b'u') {
            i += 2;
            continue;
        }
        let Some(u) = hex4(i + 2) else {
            i += 2;
            continue;
        };
        let paired = is_high(u)
            && b.get(i + 6..i + 8) == Some(b"\\u".as_slice())
            && hex4(i + 8).is_some_and(is_low);
        if paired {
            i += 12;
        } else if is_high(u) || is_low(u) {
            out.push_str(&text[last..i]);
            out.push_str("\\uFFFD");
            i += 6;
            last = i;
            changed = true;
        } else {
            i += 6;
        }
    }
    if !changed {
        return None;
    }
    out.push_str(&text[last..]);
    Some(out)
}

/// A JSON-RPC error response.
pub fn error(id: Value, code: i64, message: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } })
}

/// `value` framed for the wire.
pub fn frame(value: &Value) -> Vec<u8> {
    let body = serde_json::to_vec(value).unwrap_or_default();
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(&body);
    out
}

/// Writes an error response whole under stdout's lock, so it never splits another frame.
fn reply(e: &Value) -> io::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(&frame(e))?;
    out.flush()
}

/// The writer thread; joined after the server's last sender is gone, so every reply is out.
pub struct Writer(thread::JoinHandle<io::Result<()>>);

impl Writer {
    pub fn join(self) -> io::Result<()> {
        self.0
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the writer thread panicked")))
    }
}

/// A connection over stdin and stdout with this module's reader. The reader thread is not joined:
/// it may sit in a read of stdin the client never closes; the process ends without it.
pub fn stdio() -> io::Result<(Connection, Writer)> {
    let (to_writer, from_server): (Sender<Message>, Receiver<Message>) =
        crossbeam_channel::bounded(0);
    let (to_server, from_reader) = crossbeam_channel::bounded::<Message>(0);
    let writer = thread::Builder::new()
        .name("lsp-writer".into())
        .spawn(move || {
            for msg in from_server {
                let mut out = io::stdout().lock();
                msg.write(&mut out)?;
            }
            Ok(())
        })?;
    thread::Builder::new()
        .name("lsp-reader".into())
        .spawn(move || {
            let mut input = io::stdin().lock();
            while let Ok(Some(got)) = read_frame(&mut input) {
                match got {
                    Frame::Message(m) => {
                        let exit = matches!(&m, Message::Notification(n) if n.method == "exit");
                        if to_server.send(m).is_err() || exit {
                            break;
                        }
                    }
                    // Written here, whole under stdout's lock, so it never splits another frame.
                    Frame::Rejected(e) => {
                        if reply(&e).is_err() {
                            break;
                        }
                    }
                    Frame::RefusedText(e, notice) => {
                        if reply(&e).is_err() || to_server.send(notice).is_err() {
                            break;
                        }
                    }
                }
            }
        })?;
    Ok((
        Connection {
            sender: to_writer,
            receiver: from_reader,
        },
        Writer(writer),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &[u8]) -> Vec<Frame> {
        let mut r = io::BufReader::new(input);
        let mut out = Vec::new();
        while let Some(f) = read_frame(&mut r).unwrap() {
            out.push(f);
        }
        out
    }

    fn framed(body: &[u8]) -> Vec<u8> {
        let mut v = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        v.extend_from_slice(body);
        v
    }

    fn code(f: &Frame) -> i64 {
        match f {
            Frame::Rejected(v) | Frame::RefusedText(v, _) => v["error"]["code"].as_i64().unwrap(),
            Frame::Message(m) => panic!("expected an error, got {m:?}"),
        }
    }

    const GOOD: &[u8] = br#"{"jsonrpc":"2.0","id":7,"method":"mcp-lint/stats"}"#;

    #[test]
    fn bad_bodies_are_answered_and_the_next_frame_is_read() {
        let mut input = Vec::new();
        for bad in [
            &br#"{"jsonrpc":"2.0","id":1,"meth"#[..],
            br#"[{"jsonrpc":"2.0","id":2,"method":"x"}]"#,
            b"{\"jsonrpc\":\"2.0\",\"method\":\"\xff\xfe\"}",
            br#"{"jsonrpc":"2.0","id":3,"method":5}"#,
            b"42",
        ] {
            input.extend(framed(bad));
        }
        input.extend(framed(GOOD));
        let got = frames(&input);
        let codes: Vec<i64> = got[..5].iter().map(code).collect();
        assert_eq!(codes, [-32700, -32600, -32700, -32600, -32600]);
        // The id of an invalid request is echoed when there is one.
        let Frame::Rejected(v) = &got[3] else {
            unreachable!()
        };
        assert_eq!(v["id"], 3);
        assert!(
            matches!(&got[5], Frame::Message(Message::Request(r)) if r.method == "mcp-lint/stats")
        );
    }

    #[test]
    fn an_oversized_message_is_skipped_without_holding_it() {
        // The header promises more than the cap; the bytes that follow are skipped.
        let mut input = format!("Content-Length: {}\r\n\r\n", MAX_MESSAGE + 1).into_bytes();
        input.resize(input.len() + MAX_MESSAGE as usize + 1, b' ');
        input.extend(framed(GOOD));
        let got = frames(&input);
        assert_eq!(code(&got[0]), -32600);
        assert!(matches!(&got[1], Frame::Message(_)));
        // A header promising 2^60 bytes that never come: end of input, nothing allocated for it.
        let got = frames(b"Content-Length: 1152921504606846976\r\n\r\n{}");
        assert!(got.is_empty());
    }

    #[test]
    fn headers_without_a_length_or_with_a_bad_one_are_parse_errors() {
        let mut input = b"Content-Type: x\r\n\r\n".to_vec();
        input.extend(b"Content-Length: lots\r\n\r\n");
        input.extend(vec![b'a'; MAX_HEADER_LINE * 3]);
        input.extend(b"\r\n\r\n");
        input.extend(framed(GOOD));
        let got = frames(&input);
        let codes: Vec<i64> = got[..3].iter().map(code).collect();
        assert_eq!(codes, [-32700, -32700, -32700]);
        assert!(matches!(&got[3], Frame::Message(_)));
    }

    #[test]
    fn lone_surrogates_are_found_and_pairs_stay() {
        let body = r#"{"t":"a\ud83d b\ude00 \ud83d\ude00 \\ud83d"}"#;
        let repaired: Value = serde_json::from_str(&repair_lone_surrogates(body).unwrap()).unwrap();
        assert_eq!(repaired["t"], "a\u{fffd} b\u{fffd} \u{1f600} \\ud83d");
        assert_eq!(repair_lone_surrogates(r#""\ud83d\ude00""#), None);
        // A surrogate pair and an escaped backslash before `ud83d` are text: the message is read.
        let fine = r#"{"jsonrpc":"2.0","method":"m","params":{"t":"\ud83d\ude00 \\ud83d"}}"#;
        assert!(matches!(decode(fine.as_bytes()), Frame::Message(_)));
    }

    #[test]
    fn a_lone_surrogate_is_a_parse_error_and_the_server_hears_of_the_document() {
        let change = r#"{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///a.rs","version":2},"contentChanges":[{"text":"\ud83d"}]}}"#;
        let Frame::RefusedText(reply, Message::Notification(n)) = decode(change.as_bytes()) else {
            panic!("not refused")
        };
        assert_eq!(reply["error"]["code"], PARSE_ERROR);
        assert_eq!(reply["id"], Value::Null);
        assert_eq!(n.method, REFUSED_TEXT);
        assert_eq!(n.params["method"], "textDocument/didChange");
        assert_eq!(n.params["uri"], "file:///a.rs");
        // A request is answered with its id.
        let hover =
            r#"{"jsonrpc":"2.0","id":4,"method":"textDocument/hover","params":{"x":"\udc00"}}"#;
        let Frame::RefusedText(reply, _) = decode(hover.as_bytes()) else {
            panic!("not refused")
        };
        assert_eq!(reply["id"], 4);
        assert_eq!(reply["error"]["code"], PARSE_ERROR);
    }
}
