//! The `const` and `static` items of a file, read off the skeleton pass's tokens: a constant can
//! hold what a rule looks for (`const ROOTS: &str = ..;`), and a body that names it matters as
//! much as one that holds the value itself.

use std::ops::Range;

use crate::reading::lexer::Token;

/// `const NAME: Type = value;` (or a `static`, `static mut`): where the name and the value are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConstItem {
    pub name: Range<usize>,
    pub value: Range<usize>,
}

#[derive(Default)]
enum State {
    #[default]
    Idle,
    /// After `const` or `static` (and `mut`).
    Keyword,
    /// After the item's name: a `:` must follow (`*const u8` has none).
    Name(Range<usize>),
    /// In the type: how deep in `(`/`[` (`[&str; 2]` holds a `;`).
    Type(Range<usize>, usize),
    /// In the value: where it starts, and how many braces were open at its `=`.
    Value(Range<usize>, usize, usize),
}

/// Fed every token of a file in order; a const generic (`<const N: usize>`), a `const fn`, a
/// `const { .. }` block and a raw pointer's `*const` are no items and are let go.
#[derive(Default)]
pub struct ConstItems {
    state: State,
    found: Vec<ConstItem>,
}

impl ConstItems {
    /// `end`: the offset just past the token; `braces`: how many braces are open before it.
    pub fn token(&mut self, tok: &Token, bytes: &[u8], end: usize, braces: usize) {
        // Most tokens of a file are outside any item: this runs on every one of them.
        if matches!(self.state, State::Idle) {
            if let Token::Ident(r) = tok {
                // `'static` is a lifetime.
                let lifetime = r.start > 0 && bytes[r.start - 1] == b'\'';
                if matches!(&bytes[r.clone()], b"const" | b"static") && !lifetime {
                    self.state = State::Keyword;
                }
            }
            return;
        }
        self.state = match (std::mem::take(&mut self.state), tok) {
            (State::Keyword, Token::Ident(r)) => match &bytes[r.clone()] {
                b"mut" => State::Keyword,
                b"fn" | b"unsafe" | b"async" | b"extern" | b"_" => State::Idle,
                _ => State::Name(r.clone()),
            },
            (State::Name(name), Token::Punct(b':')) => State::Type(name, 0),
            (State::Type(name, depth), Token::Punct(p)) => match (p, depth) {
                (b'(' | b'[', _) => State::Type(name, depth + 1),
                (b')' | b']', 0) => State::Idle,
                (b')' | b']', _) => State::Type(name, depth - 1),
                (b'=', 0) => State::Value(name, end, braces),
                (b',' | b'>' | b';' | b'{' | b'}', 0) => State::Idle,
                _ => State::Type(name, depth),
            },
            (State::Type(name, depth), _) => State::Type(name, depth),
            (State::Value(name, start, at), Token::Punct(b';')) if braces == at => {
                self.found.push(ConstItem {
                    name,
                    value: start..end - 1,
                });
                State::Idle
            }
            // The block the item stands in ends: it was no item after all.
            (State::Value(_, _, at), Token::Punct(b'}')) if braces == at => State::Idle,
            (State::Value(name, start, at), _) => State::Value(name, start, at),
            _ => State::Idle,
        };
    }

    pub fn finish(self) -> Vec<ConstItem> {
        self.found
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reading::lexer::Lexer;

    fn items(text: &str) -> Vec<(&str, &str)> {
        let bytes = text.as_bytes();
        let mut lexer = Lexer::new(bytes);
        let mut c = ConstItems::default();
        let mut braces = 0usize;
        while let Some(tok) = lexer.next() {
            c.token(&tok, bytes, lexer.offset(), braces);
            match tok {
                Token::Punct(b'{') => braces += 1,
                Token::Punct(b'}') => braces -= 1,
                _ => {}
            }
        }
        c.finish()
            .into_iter()
            .map(|i| (&text[i.name], text[i.value].trim()))
            .collect()
    }

    #[test]
    fn items_with_their_values_and_lookalikes_without() {
        let got = items(
            r#"
            const ROOTS: &str = "roots/list";
            pub static mut ASK: &'static str = "elicitation/create";
            const PAIR: [&str; 2] = ["a", "b"];
            impl S { const M: &str = { "x" }; }
            const fn f<const N: usize>() -> *const u8 { let x = "y"; x.as_ptr() }
            const _: () = ();
            fn g() { static INNER: &str = "z"; }
            "#,
        );
        assert_eq!(
            got,
            [
                ("ROOTS", r#""roots/list""#),
                ("ASK", r#""elicitation/create""#),
                ("PAIR", r#"["a", "b"]"#),
                ("M", r#"{ "x" }"#),
                ("INNER", r#""z""#),
            ]
        );
    }
}
