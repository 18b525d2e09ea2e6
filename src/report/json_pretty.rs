//! One finding as `serde_json`'s pretty printer writes it, byte for byte, written by hand. The
//! JSON report of the all-parse bench tree is 27 MB of findings with their fixes, and serde's
//! generic serializer (a call through the formatter for every brace, key and indent) took about
//! 2.5% of the run's CPU time; this writes the same bytes with a few copies per field. The frame
//! around the findings (`errors`, `summary`) is still serde's (`json.rs`), and the tests there
//! compare every field of a finding with serde's output, so a field added to [`Finding`] and not
//! here fails them.

use crate::finding::{Applicability, Edit, FileEdits, Finding, Fix, Level};

/// `f` as the element of an array two levels deep (four spaces in), as serde writes it there.
pub fn finding(out: &mut Vec<u8>, f: &Finding) {
    out.extend_from_slice(b"    ");
    let mut o = Object::open(out, 2);
    o.string("code", &f.code);
    o.string("name", &f.name);
    o.string("level", level(f.level));
    o.string("path", &f.path);
    o.number("line", f.line);
    o.number("column", f.column);
    o.number("end_line", f.end_line);
    o.number("end_column", f.end_column);
    o.string("message", &f.message);
    o.optional("mcp_method", f.mcp_method.as_deref());
    o.optional("sdk", f.sdk.as_deref());
    if let Some(help) = &f.help {
        o.string("help", help);
    }
    match &f.fix {
        Some(fix) => {
            o.key("fix");
            self::fix(o.out, fix, 3);
        }
        None => o.optional("fix", None),
    }
    o.close();
}

fn level(l: Level) -> &'static str {
    match l {
        Level::Allow => "allow",
        Level::Warning => "warning",
        Level::Error => "error",
    }
}

fn fix(out: &mut Vec<u8>, fix: &Fix, depth: usize) {
    let mut o = Object::open(out, depth);
    o.string(
        "applicability",
        match fix.applicability {
            Applicability::Safe => "safe",
            Applicability::Unsafe => "unsafe",
            Applicability::DisplayOnly => "display-only",
        },
    );
    o.string("message", &fix.message);
    o.key("edits");
    edits(o.out, &fix.edits, depth + 2);
    if !fix.other_files.is_empty() {
        o.key("other_files");
        array(o.out, &fix.other_files, depth + 2, file_edits);
    }
    o.close();
}

fn file_edits(out: &mut Vec<u8>, f: &FileEdits, depth: usize) {
    let mut o = Object::open(out, depth);
    o.string("path", &f.path);
    o.key("edits");
    edits(o.out, &f.edits, depth + 2);
    o.close();
}

fn edits(out: &mut Vec<u8>, edits: &[Edit], depth: usize) {
    array(out, edits, depth, edit);
}

fn edit(out: &mut Vec<u8>, e: &Edit, depth: usize) {
    let mut o = Object::open(out, depth);
    o.number("start", e.start);
    o.number("end", e.end);
    o.number("line", e.line);
    o.number("column", e.column);
    o.number("end_line", e.end_line);
    o.number("end_column", e.end_column);
    o.string("replacement", &e.replacement);
    o.close();
}

/// An array whose elements stand at `depth` (their own indentation written here): `[]` when
/// empty, as serde writes it.
fn array<T>(out: &mut Vec<u8>, items: &[T], depth: usize, each: fn(&mut Vec<u8>, &T, usize)) {
    if items.is_empty() {
        out.extend_from_slice(b"[]");
        return;
    }
    out.push(b'[');
    for (i, item) in items.iter().enumerate() {
        out.extend_from_slice(if i == 0 { b"\n" } else { b",\n" });
        indent(out, depth);
        each(out, item, depth);
    }
    out.push(b'\n');
    indent(out, depth - 1);
    out.push(b']');
}

/// An object whose `{` stands at `depth` (already indented by the caller): its keys are one
/// level deeper.
struct Object<'a> {
    out: &'a mut Vec<u8>,
    depth: usize,
    empty: bool,
}

impl<'a> Object<'a> {
    fn open(out: &'a mut Vec<u8>, depth: usize) -> Object<'a> {
        out.push(b'{');
        Object {
            out,
            depth,
            empty: true,
        }
    }

    fn key(&mut self, key: &str) {
        self.out
            .extend_from_slice(if self.empty { b"\n" } else { b",\n" });
        self.empty = false;
        indent(self.out, self.depth + 1);
        self.out.push(b'"');
        self.out.extend_from_slice(key.as_bytes());
        self.out.extend_from_slice(b"\": ");
    }

    fn string(&mut self, key: &str, value: &str) {
        self.key(key);
        string(self.out, value);
    }

    fn optional(&mut self, key: &str, value: Option<&str>) {
        self.key(key);
        match value {
            Some(v) => string(self.out, v),
            None => self.out.extend_from_slice(b"null"),
        }
    }

    fn number(&mut self, key: &str, value: usize) {
        self.key(key);
        number(self.out, value);
    }

    fn close(self) {
        if !self.empty {
            self.out.push(b'\n');
            indent(self.out, self.depth);
        }
        self.out.push(b'}');
    }
}

fn indent(out: &mut Vec<u8>, depth: usize) {
    const SPACES: &[u8] = b"                                                                ";
    let mut n = depth * 2;
    while n > 0 {
        let step = n.min(SPACES.len());
        out.extend_from_slice(&SPACES[..step]);
        n -= step;
    }
}

fn number(out: &mut Vec<u8>, mut n: usize) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// A JSON string as serde escapes it: `"` and `\`, and the control characters (`\n`, `\t`, `\r`,
/// `\b`, `\f` by name, the others as `\u00XX` in lowercase hex); everything else as it is.
/// Most of the report is fix text, code with a quote or a line break every few words: the next
/// byte to escape is found eight bytes at a time, and the text up to it copied in one piece.
fn string(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    let bytes = s.as_bytes();
    let mut from = 0;
    let mut i = 0;
    while i < bytes.len() {
        let at = match bytes.get(i..i + 8) {
            Some(word) => {
                let mask = escapes(u64::from_le_bytes(word.try_into().unwrap_or_default()));
                if mask == 0 {
                    i += 8;
                    continue;
                }
                // The lowest flagged byte is always a true one (see `escapes`).
                i + (mask.trailing_zeros() / 8) as usize
            }
            None => match bytes[i..].iter().position(|&b| escape(b).is_some()) {
                Some(k) => i + k,
                None => break,
            },
        };
        out.extend_from_slice(&bytes[from..at]);
        let b = bytes[at];
        match escape(b) {
            Some(named) if !named.is_empty() => out.extend_from_slice(named),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(b"\\u00");
                out.push(HEX[usize::from(b >> 4)]);
                out.push(HEX[usize::from(b & 15)]);
            }
        }
        from = at + 1;
        i = at + 1;
    }
    out.extend_from_slice(&bytes[from..]);
    out.push(b'"');
}

/// How `b` is written inside a JSON string when it is not written as it is: by name, or `&[]`
/// for `\u00XX`; `None` for a byte written as it is.
fn escape(b: u8) -> Option<&'static [u8]> {
    Some(match b {
        b'"' => b"\\\"",
        b'\\' => b"\\\\",
        b'\n' => b"\\n",
        b'\t' => b"\\t",
        b'\r' => b"\\r",
        0x08 => b"\\b",
        0x0c => b"\\f",
        0..=0x1f => b"",
        _ => return None,
    })
}

/// The bytes of `word` (read little-endian, the first byte lowest) that may need an escape, as
/// their high bits: a control character, `"` or `\`. A borrow can flag a byte above a flagged
/// one that needs none, never one below: the lowest flag is exact.
fn escapes(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // A byte below `n` (`n` at most 0x80) sets its high bit in `x - n` while its own is clear.
    let below = |x: u64, n: u64| x.wrapping_sub(ONES * n) & !x & HIGH;
    let quote = word ^ (ONES * u64::from(b'"'));
    let backslash = word ^ (ONES * u64::from(b'\\'));
    below(word, 0x20) | below(quote, 1) | below(backslash, 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_escaped_as_serde_escapes_them_wherever_the_byte_stands() {
        for b in 0u8..0x80 {
            for before in 0..18 {
                for after in [0, 1, 7, 8, 9] {
                    let s = format!(
                        "{}{}{}é{}",
                        "a".repeat(before),
                        char::from(b),
                        "b".repeat(after),
                        char::from(b)
                    );
                    let mut out = Vec::new();
                    string(&mut out, &s);
                    assert_eq!(
                        String::from_utf8(out).unwrap(),
                        serde_json::to_string(&s).unwrap(),
                        "byte {b:#04x}, {before} before"
                    );
                }
            }
        }
    }

    #[test]
    fn numbers_are_written_in_full() {
        for n in [0, 7, 10, 99, 100, 123_456_789, usize::MAX] {
            let mut out = Vec::new();
            number(&mut out, n);
            assert_eq!(String::from_utf8(out).unwrap(), n.to_string());
        }
    }
}
