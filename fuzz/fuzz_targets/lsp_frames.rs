//! Arbitrary bytes as the language server's input stream: the framing reader and the JSON-RPC
//! decoding (`mcp_lint::server::framing`). Every frame must come out as a message or as a JSON-RPC
//! error the server can send back (-32700 or -32600, an id that is null, a number or a string),
//! never a panic; the reader must end at the end of the input; a body the reader takes must
//! decode the same way alone.
#![no_main]

use std::io::BufReader;

use libfuzzer_sys::fuzz_target;
use mcp_lint::server::framing::{self, Frame};

fuzz_target!(|data: &[u8]| {
    // A small buffer, so frames straddle refills as they do on a pipe.
    let mut r = BufReader::with_capacity(7, data);
    let mut frames = 0usize;
    while let Ok(Some(frame)) = framing::read_frame(&mut r) {
        frames += 1;
        assert!(frames <= data.len() + 1, "more frames than bytes");
        match frame {
            Frame::Message(m) => {
                // What the server reads it can write back.
                let mut out = Vec::new();
                m.write(&mut out).expect("a message writes");
            }
            Frame::Rejected(e) => {
                let code = e["error"]["code"].as_i64().expect("an error code");
                assert!(code == framing::PARSE_ERROR || code == framing::INVALID_REQUEST);
                assert!(e["id"].is_null() || e["id"].is_number() || e["id"].is_string());
                let wire = framing::frame(&e);
                let mut again = BufReader::new(&wire[..]);
                // The answer is one whole frame of JSON.
                assert!(matches!(framing::read_frame(&mut again), Ok(Some(_))));
                assert!(framing::read_frame(&mut again).unwrap().is_none());
            }
        }
    }
    // The body alone: decoding never panics, and a repaired text is still the same JSON shape.
    let _ = framing::decode(data);
    if let Ok(text) = std::str::from_utf8(data) {
        if let Some(fixed) = framing::repair_lone_surrogates(text) {
            assert!(fixed.len() >= text.len());
        }
    }
});
