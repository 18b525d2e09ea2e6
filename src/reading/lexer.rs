//! Just enough of Rust's lexical grammar to tell code from strings, comments and char literals,
//! over bytes and without allocating: for the passes that run on text before or beside syn
//! (the skeleton's body finder, counting a name's uses in a fix, finding suppression comments).
//! It never fails: unclosed strings and comments run to the end of the text.

use std::ops::Range;

/// Whether `b` may be part of an identifier (or a number): ASCII letters, digits, `_`, and every
/// byte of a non-ASCII char. A table, not four compares: every pass over text asks it per byte.
#[inline]
pub fn is_ident(b: u8) -> bool {
    IDENT_BYTES[usize::from(b)]
}

static IDENT_BYTES: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80;
        b += 1;
    }
    t
};

/// Whether `word` occurs in `bytes` as a whole identifier (see [`stands_alone`]).
pub fn mentions_word(bytes: &[u8], word: &str) -> bool {
    memchr::memmem::find_iter(bytes, word.as_bytes())
        .any(|at| stands_alone(bytes, at, at + word.len()))
}

/// Whether `bytes[start..end]` stands as a whole identifier: no identifier byte touches it on
/// either side (`Content` in `Content::text`, not in `ContentBlock`).
pub fn stands_alone(bytes: &[u8], start: usize, end: usize) -> bool {
    // A match that starts or ends with punctuation (`.raw.`) is whole on that side.
    let edge = |i: usize| bytes.get(i).is_some_and(|b| is_ident(*b));
    (!edge(start) || !start.checked_sub(1).is_some_and(edge))
        && (end == start || !edge(end - 1) || !edge(end))
}

/// An automaton for names that must stand alone ([`standing_alone`]): leftmost-longest, since
/// where identifier names start at the same byte only the longest can stand alone (the shorter
/// is followed by the longer one's next byte). It keeps the SIMD search of the leftmost kinds.
pub fn whole_names_automaton(names: &[&str]) -> Option<aho_corasick::AhoCorasick> {
    aho_corasick::AhoCorasick::builder()
        .match_kind(aho_corasick::MatchKind::LeftmostLongest)
        .build(names)
        .ok()
}

/// The matches of `names` in `bytes[span]` that stand alone ([`stands_alone`], read against the
/// whole of `bytes`). A match that does not may hide one that starts inside it
/// (`CreateElicitationRequest` in `CreateElicitationRequestParam`, when only the longer one
/// stands alone there and the automaton found the shorter): after it the search goes on from its
/// next byte, not from its end.
pub fn standing_alone<'a>(
    names: &'a aho_corasick::AhoCorasick,
    bytes: &'a [u8],
    span: Range<usize>,
) -> impl Iterator<Item = (usize, usize)> + 'a {
    let mut at = span.start;
    std::iter::from_fn(move || loop {
        let m = names.find(aho_corasick::Input::new(bytes).span(at..span.end))?;
        if stands_alone(bytes, m.start(), m.end()) {
            at = m.end();
            return Some((m.start(), m.end()));
        }
        at = m.start() + 1;
    })
}

/// Whether `at` lies in prose: a `//` comment (doc comments included) or a string literal
/// (plain, byte, C or raw) that opens on `at`'s line, lexed from the line's start by [`Lexer`].
/// A block comment, or a string that began on an earlier line, is not seen; for a byte scan that
/// wants to skip prose cheaply, after a match.
pub fn in_line_prose(bytes: &[u8], at: usize) -> bool {
    let at = at.min(bytes.len());
    let line = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |i| i + 1);
    let mut lexer = Lexer::with_comments(bytes);
    lexer.seek(line);
    while let Some(token) = lexer.next() {
        if lexer.start() > at {
            return false;
        }
        if let Token::Literal(r) | Token::LineComment(r) = token {
            if r.contains(&at) {
                return true;
            }
        }
    }
    false
}

/// The first byte and length of each of a set of names, a bit per pair: most identifiers of a
/// file have a first byte and length no name of the set has, which one bit test rules out before
/// any compare or hash.
pub struct Shapes([u64; 256]);

impl Shapes {
    pub fn of<'a>(names: impl IntoIterator<Item = &'a [u8]>) -> Shapes {
        let mut bits = [0u64; 256];
        for n in names.into_iter().filter(|n| !n.is_empty()) {
            bits[usize::from(n[0])] |= 1u64 << n.len().min(63);
        }
        Shapes(bits)
    }

    /// Whether `word` may be one of the names.
    pub fn may_be(&self, word: &[u8]) -> bool {
        word.first()
            .is_some_and(|&b| self.0[usize::from(b)] & (1u64 << word.len().min(63)) != 0)
    }
}

/// Every maximal run of identifier bytes ([`is_ident`]) in `bytes`, in strings and comments too:
/// the places where a whole identifier can stand ([`stands_alone`]), without lexing.
pub fn ident_runs(bytes: &[u8]) -> impl Iterator<Item = Range<usize>> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() && !is_ident(bytes[i]) {
            i += 1;
        }
        let start = i;
        while i < bytes.len() && is_ident(bytes[i]) {
            i += 1;
        }
        (i > start).then_some(start..i)
    })
}

pub enum Token {
    Ident(Range<usize>),
    Punct(u8),
    /// A string literal (plain, byte, C or raw), quotes and prefix included.
    Literal(Range<usize>),
    /// A char literal, a lifetime's quote, a number or a raw identifier.
    Other,
    /// `// ..` up to (not including) the line's end; only from [`Lexer::with_comments`].
    LineComment(Range<usize>),
    /// `/* .. */`, nested ones included; only from [`Lexer::with_comments`].
    BlockComment(Range<usize>),
}

/// Just enough of Rust's lexical grammar to never take a brace in a string, comment or char
/// literal for code.
pub struct Lexer<'a> {
    bytes: &'a [u8],
    at: usize,
    start: usize,
    comments: bool,
}

impl<'a> Lexer<'a> {
    /// Tokens of code only: comments are skipped like whitespace.
    pub fn new(bytes: &'a [u8]) -> Self {
        Lexer {
            bytes,
            at: 0,
            start: 0,
            comments: false,
        }
    }

    /// Tokens of code and comments.
    pub fn with_comments(bytes: &'a [u8]) -> Self {
        Lexer {
            comments: true,
            ..Lexer::new(bytes)
        }
    }

    /// The offset where the last token returned starts.
    pub fn start(&self) -> usize {
        self.start
    }

    /// The offset just past the last token returned.
    pub fn offset(&self) -> usize {
        self.at
    }

    /// Goes on lexing at `at` (a caller that skipped a stretch of text by other means).
    pub fn seek(&mut self, at: usize) {
        self.at = at.min(self.bytes.len());
    }

    /// From just inside a `{`: steps past the block to its matching `}` and returns that brace's
    /// offset (`None` at the end of the text), exactly as counting the braces [`Lexer::next`]
    /// returns would, without making tokens: only a quote, a `/` or a short word right before a
    /// quote or `#` (a literal's prefix) can start something that hides a brace, and those go
    /// through the lexer itself. For passes that skip fn bodies (the crate index), where bodies
    /// are most of the text.
    pub fn skip_block(&mut self) -> Option<usize> {
        // Between the bytes that matter the text is passed over by `memchr3`, in two sets of
        // three: each set's next position is looked for again only once the walk is past it.
        let bytes = self.bytes;
        let braces = |from: usize| {
            let at =
                memchr::memchr3(b'{', b'}', b'"', &bytes[from..]).map_or(bytes.len(), |i| from + i);
            #[cfg(test)]
            tests::SCANNED.with(|n| n.set(n.get() + (at - from)));
            at
        };
        // Looked for only up to the next brace (`upto` when there is none before it): a search
        // to the end of the text from each of many small bodies with none of these bytes left
        // after them made the crate index quadratic in the number of fns.
        let others = |from: usize, upto: usize| {
            let upto = upto.max(from);
            let at =
                memchr::memchr3(b'\'', b'/', b'#', &bytes[from..upto]).map_or(upto, |i| from + i);
            #[cfg(test)]
            tests::SCANNED.with(|n| n.set(n.get() + (at - from)));
            at
        };
        let mut depth = 1usize;
        let mut next_brace = braces(self.at);
        let mut next_other = others(self.at, next_brace);
        loop {
            let from = self.at;
            if next_brace < from {
                next_brace = braces(from);
            }
            if next_other < from {
                next_other = others(from, next_brace);
            }
            let i = next_brace.min(next_other);
            let Some(&b) = bytes.get(i) else {
                self.at = bytes.len();
                return None;
            };
            match b {
                b'{' => {
                    depth += 1;
                    self.at = i + 1;
                }
                b'}' => {
                    self.start = i;
                    self.at = i + 1;
                    depth -= 1;
                    if depth == 0 {
                        return Some(i);
                    }
                }
                _ => {
                    // A word of one or two bytes right before a quote or `#` is a literal's
                    // prefix (`b'`, `r#"`, `br"`) or a raw identifier's: the lexer reads it
                    // from the word's start. Words start no earlier than where this step did.
                    let mut word = i;
                    while word > from && i - word < 3 && is_ident(bytes[word - 1]) {
                        word -= 1;
                    }
                    let short_word =
                        word < i && i - word <= 2 && !(word > from && is_ident(bytes[word - 1]));
                    if short_word && b != b'/' {
                        self.at = word;
                        self.next();
                    } else if b == b'#' {
                        self.at = i + 1;
                    } else if b == b'/' {
                        // A comment is skipped here, not through `next`, which would also take
                        // (and lose) the token after it: a body's `}` right after a comment.
                        self.at = i;
                        match bytes.get(i + 1) {
                            Some(b'/') => self.line_comment(),
                            Some(b'*') => self.block_comment(),
                            _ => self.at = i + 1,
                        }
                    } else {
                        self.at = i;
                        self.next();
                    }
                }
            }
        }
    }

    fn peek(&self, ahead: usize) -> Option<u8> {
        self.bytes.get(self.at + ahead).copied()
    }

    fn next_token(&mut self) -> Option<Token> {
        loop {
            let b = self.peek(0)?;
            let start = self.at;
            match b {
                // Indentation comes in runs: passed over in one tight loop.
                b' ' | b'\t' | b'\n' | b'\r' => {
                    self.at += 1;
                    while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.at) {
                        self.at += 1;
                    }
                }
                b'/' if self.peek(1) == Some(b'/') => {
                    self.line_comment();
                    if self.comments {
                        self.start = start;
                        return Some(Token::LineComment(start..self.at));
                    }
                }
                b'/' if self.peek(1) == Some(b'*') => {
                    self.block_comment();
                    if self.comments {
                        self.start = start;
                        return Some(Token::BlockComment(start..self.at));
                    }
                }
                _ => break,
            }
        }
        let b = self.peek(0)?;
        let start = self.at;
        self.start = start;
        if b == b'"' {
            self.at += 1;
            self.string();
            return Some(Token::Literal(start..self.at));
        }
        if b == b'\'' {
            self.quote();
            return Some(Token::Other);
        }
        if is_ident(b) {
            // String prefixes: b"", c"", r"", br"", cr"", r#""#, and raw identifiers r#name.
            let word_end = self.word_end(self.at);
            let word = &self.bytes[start..word_end];
            let next = self.bytes.get(word_end).copied();
            match (word, next) {
                (b"b" | b"c", Some(b'"')) => {
                    self.at = word_end + 1;
                    self.string();
                    return Some(Token::Literal(start..self.at));
                }
                (b"b", Some(b'\'')) => {
                    self.at = word_end;
                    self.quote();
                    return Some(Token::Other);
                }
                (b"r" | b"br" | b"cr", Some(b'"' | b'#')) => {
                    self.at = word_end;
                    if self.raw_string() {
                        return Some(Token::Literal(start..self.at));
                    }
                    // `r#name`: a raw identifier, never a keyword.
                    self.at = self.word_end(self.at + 1);
                    return Some(Token::Other);
                }
                _ => {}
            }
            self.at = word_end;
            if b.is_ascii_digit() {
                return Some(Token::Other);
            }
            return Some(Token::Ident(start..word_end));
        }
        self.at += 1;
        Some(Token::Punct(b))
    }

    fn word_end(&self, from: usize) -> usize {
        let mut i = from;
        while i < self.bytes.len() && is_ident(self.bytes[i]) {
            i += 1;
        }
        i
    }

    fn line_comment(&mut self) {
        self.at =
            memchr::memchr(b'\n', &self.bytes[self.at..]).map_or(self.bytes.len(), |i| self.at + i);
    }

    fn block_comment(&mut self) {
        self.at += 2;
        let mut depth = 1;
        while depth > 0 && self.at < self.bytes.len() {
            match (self.bytes[self.at], self.peek(1)) {
                (b'/', Some(b'*')) => {
                    depth += 1;
                    self.at += 2;
                }
                (b'*', Some(b'/')) => {
                    depth -= 1;
                    self.at += 2;
                }
                _ => self.at += 1,
            }
        }
    }

    /// After the opening quote: up to and past the closing one.
    fn string(&mut self) {
        while let Some(b) = self.peek(0) {
            self.at += 1;
            match b {
                // A backslash as the text's last byte escapes nothing.
                b'\\' => self.at = (self.at + 1).min(self.bytes.len()),
                b'"' => return,
                _ => {}
            }
        }
    }

    /// At `"` or `#` after an `r` prefix: a raw string, if it is one.
    fn raw_string(&mut self) -> bool {
        let mut hashes = 0;
        while self.peek(hashes) == Some(b'#') {
            hashes += 1;
        }
        if self.peek(hashes) != Some(b'"') {
            return false;
        }
        self.at += hashes + 1;
        while self.at < self.bytes.len() {
            if self.bytes[self.at] == b'"' && (1..=hashes).all(|k| self.peek(k) == Some(b'#')) {
                self.at += hashes + 1;
                return true;
            }
            self.at += 1;
        }
        true
    }

    /// At `'`: a char literal (`'a'`, `'\n'`, `'\u{..}'`, `'é'`) or a lifetime or label (`'a`).
    fn quote(&mut self) {
        self.at += 1;
        if self.peek(0) == Some(b'\\') {
            // An escape: the literal ends at the next quote.
            self.at += 2;
            while let Some(b) = self.peek(0) {
                self.at += 1;
                if b == b'\'' {
                    return;
                }
            }
            return;
        }
        // One char (maybe several bytes), then a quote: a char literal.
        let len = match self.peek(0) {
            Some(b) if b < 0x80 => 1,
            Some(b) if b >= 0xF0 => 4,
            Some(b) if b >= 0xE0 => 3,
            Some(_) => 2,
            None => return,
        };
        if self.peek(len) == Some(b'\'') {
            self.at += len + 1;
        }
        // Otherwise a lifetime: its name is lexed next as an identifier, which is harmless.
    }
}

impl Iterator for Lexer<'_> {
    type Item = Token;

    fn next(&mut self) -> Option<Token> {
        let token = self.next_token();
        // An escape or a comment opener in the last bytes steps past the end.
        self.at = self.at.min(self.bytes.len());
        token
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_prose_is_comments_and_strings_told_from_code() {
        let text = "let s = \"a // b\"; c('\"', d) // e\nf // g\nh(\"i \\\" j\", k)";
        let at = |w: &str| text.find(w).unwrap();
        let prose = |w: &str| in_line_prose(text.as_bytes(), at(w));
        // In a string: prose, slashes and all.
        assert!(prose("b\""));
        assert!(prose("a /"));
        // After the string closes, and after a '"' char: code.
        assert!(!prose("c("));
        assert!(!prose("d)"));
        assert!(prose("e\n"));
        assert!(!prose("f "));
        assert!(prose("g"));
        // An escaped quote does not close the string.
        assert!(prose("j\""));
        assert!(!prose("k)"));
        // A raw string's quotes, an escaped quote char and a lifetime are the lexer's to read.
        let text = "f(r#\"a \" b\"#, '\\'', x::<'s>, y) // z";
        let at = |w: &str| text.find(w).unwrap();
        let prose = |w: &str| in_line_prose(text.as_bytes(), at(w));
        assert!(prose("b\""));
        assert!(!prose("x::"));
        assert!(!prose("y)"));
        assert!(prose("z"));
    }

    #[test]
    fn identifier_runs_are_where_a_whole_identifier_stands() {
        let text = "a::Bé_1 (\"x\" // y\n)r#z";
        let runs: Vec<&str> = ident_runs(text.as_bytes()).map(|r| &text[r]).collect();
        assert_eq!(runs, ["a", "Bé_1", "x", "y", "r", "z"]);
        for (start, end) in [(0, 1), (3, 8)] {
            assert!(stands_alone(text.as_bytes(), start, end));
        }
        assert!(ident_runs(b"").next().is_none());
        assert!(ident_runs(b" :: ").next().is_none());
    }

    #[test]
    fn names_standing_alone_are_found_past_a_match_that_does_not() {
        let names = [
            "CreateElicitationRequest",
            "CreateElicitationRequestParam",
            "a.raw",
            ".raw.",
        ];
        let ac = whole_names_automaton(&names).unwrap();
        let found = |text: &str| -> Vec<String> {
            standing_alone(&ac, text.as_bytes(), 0..text.len())
                .map(|(s, e)| text[s..e].to_string())
                .collect()
        };
        // The longer name where both start; neither within a longer identifier.
        assert_eq!(
            found("p: CreateElicitationRequestParam, q: CreateElicitationRequestParams"),
            ["CreateElicitationRequestParam"]
        );
        assert_eq!(
            found("CreateElicitationRequest::new()"),
            ["CreateElicitationRequest"]
        );
        // `a.raw` inside `ba.raw` does not stand alone; `.raw.`, which starts inside it, does.
        assert_eq!(found("ba.raw.x"), [".raw."]);
        // Only within the span, read against the whole text.
        let text = "xCreateElicitationRequest CreateElicitationRequest";
        let (s, e) = standing_alone(&ac, text.as_bytes(), 1..text.len())
            .next()
            .unwrap();
        assert_eq!((s, e), (26, text.len()));
    }

    fn lex(text: &str) -> Vec<String> {
        lex_with(Lexer::new(text.as_bytes()), text)
    }

    fn lex_with(lexer: Lexer, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        for t in lexer {
            out.push(match t {
                Token::Ident(r) => format!("id:{}", &text[r]),
                Token::Punct(b) => format!("p:{}", b as char),
                Token::Literal(r) => format!("lit:{}", &text[r]),
                Token::Other => "other".to_string(),
                Token::LineComment(r) => format!("line:{}", &text[r]),
                Token::BlockComment(r) => format!("block:{}", &text[r]),
            });
        }
        out
    }

    #[test]
    fn strings_are_literals_with_their_prefix_and_quotes() {
        let text = r###"a("q\"}", b"x{", c"y", r#"{"#, br##"z"##); // "no" { }
/* "nor" /* nested { */ */ 'c' 'a: r#fn"###;
        assert_eq!(
            lex(text),
            [
                "id:a",
                "p:(",
                r#"lit:"q\"}""#,
                "p:,",
                r#"lit:b"x{""#,
                "p:,",
                r#"lit:c"y""#,
                "p:,",
                r##"lit:r#"{"#"##,
                "p:,",
                r###"lit:br##"z"##"###,
                "p:)",
                "p:;",
                "other",
                "other",
                "id:a",
                "p::",
                "other",
            ]
        );
    }

    thread_local! {
        /// Bytes `skip_block`'s searches passed over on this thread.
        pub(super) static SCANNED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    /// Bytes scanned to skip every body of `n` one-line fns, as the crate index skips them, and
    /// the text's length.
    fn scanned_for(n: usize) -> (usize, usize) {
        let text: String = (0..n)
            .map(|i| format!("fn t{i}(_p: CreateElicitationRequestParams) {{}}\n"))
            .collect();
        let mut lexer = Lexer::new(text.as_bytes());
        SCANNED.with(|c| c.set(0));
        let mut bodies = 0;
        while let Some(t) = lexer.next() {
            if matches!(t, Token::Punct(b'{')) {
                lexer.skip_block();
                bodies += 1;
            }
        }
        assert_eq!(bodies, n);
        (SCANNED.with(|c| c.get()), text.len())
    }

    /// Skipping passes over each byte of the text a bounded number of times: a search to the end
    /// of the text from each body passed over it once per fn (quadratic: 100k fns took 24 s).
    #[test]
    fn skipping_many_small_bodies_scans_a_linear_number_of_bytes() {
        for n in [2_000, 8_000] {
            let (scanned, len) = scanned_for(n);
            assert!(
                scanned <= 2 * len,
                "{scanned} bytes scanned for {n} fns in {len}"
            );
        }
    }

    #[test]
    fn skip_block_ends_where_counting_braces_ends() {
        let texts = [
            r###"{ a("q\"}", b"x{", c"y", r#"{"#, br##"}"##); // } "
/* "nor" /* nested } */ */ 'c' '{' '\'' b'}' 'a: r#fn { x } 1u8 } tail }"###,
            "{ { } ",
            "{ \"}",
            "{ r#\"}\"# }",
            "{ '\\u{7d}' } }",
            "{ br }",
            "{ ab\"}\" abc\"}\" a#b # r#x } }",
            "{ 'a\"}\" 'b'b\"}\" } }",
            "{ /* } */ / } }",
            // A body's `}` right after a comment (the token after a comment was lost).
            "{ x // c\n} y } z }",
            "{ x /* c */} y }",
            "{ a(); // note\n    }\nfn after() {}",
            "{ é\"}\" xé#\"}\" }",
            "{ b",
            "{ \"",
        ];
        for text in texts {
            let bytes = text.as_bytes();
            let mut counted = Lexer::new(bytes);
            counted.seek(1);
            let mut depth = 1usize;
            let mut expected = None;
            while let Some(t) = counted.next() {
                match t {
                    Token::Punct(b'{') => depth += 1,
                    Token::Punct(b'}') => {
                        depth -= 1;
                        if depth == 0 {
                            expected = Some(counted.start());
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let mut skipping = Lexer::new(bytes);
            skipping.seek(1);
            assert_eq!(skipping.skip_block(), expected, "{text:?}");
            assert_eq!(skipping.offset(), counted.offset(), "{text:?}");
        }
    }

    #[test]
    fn comments_are_tokens_only_when_asked_for() {
        let text = "a // x { \"\n/* b /* c */ \" */ d";
        assert_eq!(lex(text), ["id:a", "id:d"]);
        // Ranges stay inside the text when it ends in an escape or a comment opener.
        for cut in ["\"ab\\", "b\"\\", "x /*", "'\\"] {
            let mut lexer = Lexer::with_comments(cut.as_bytes());
            while let Some(token) = lexer.next() {
                assert!(lexer.offset() <= cut.len(), "{cut:?}");
                if let Token::Literal(r) = token {
                    assert!(r.end <= cut.len(), "{cut:?}");
                }
            }
        }
        let mut lexer = Lexer::with_comments(text.as_bytes());
        let mut starts = Vec::new();
        while lexer.next().is_some() {
            starts.push((lexer.start(), lexer.offset()));
        }
        assert_eq!(starts, [(0, 1), (2, 10), (11, 28), (29, 30)]);
        assert_eq!(
            lex_with(Lexer::with_comments(text.as_bytes()), text),
            ["id:a", "line:// x { \"", "block:/* b /* c */ \" */", "id:d"]
        );
    }
}
