//! Turning bytes into a syntax tree without ever crashing: non-UTF-8 text, nesting too deep for
//! the parser's recursion, and syntax errors all become a parse-error finding (MCP900).

use std::borrow::Cow;

use proc_macro2::LineColumn;

use crate::reading::lexer::{Lexer, Token};

/// Deepest bracket nesting analysed. rustc itself rarely sees more than a few dozen levels; past
/// this, syn's recursion (and ours) could exhaust the stack, so the file is reported instead.
pub const MAX_NESTING: usize = 1000;

/// Largest file parsed. syn's tree takes about 160 bytes of memory per byte of source (a 50 MB
/// one-line file took 8 GB and 39 s); the largest file of this workspace's 9,400 vendored
/// dependency files is 1.4 MB. A larger file is reported instead of parsed.
pub const MAX_PARSE_BYTES: usize = 8 << 20;

pub struct ParseFailure {
    pub line: usize,
    /// 1-based char column.
    pub column: usize,
    pub message: String,
    /// The file's text when it is UTF-8: [`parse_skeleton`] takes the bytes over, and a caller
    /// that reports the failure still shows the file.
    pub text: Option<String>,
}

pub fn parse(bytes: &[u8]) -> Result<(String, syn::File), ParseFailure> {
    parse_skeleton(Cow::Borrowed(bytes), None, &[]).map(|p| (p.text, p.file))
}

/// A file as [`parse_skeleton`] read it.
pub struct Parsed {
    /// The file's text (not the skeleton's).
    pub text: String,
    pub file: syn::File,
    /// The identifiers of the file in order, when the skeleton pass listed them (see
    /// [`crate::reading::skeleton::Skeleton::idents`]).
    pub idents: Option<Vec<std::ops::Range<usize>>>,
}

/// [`parse`], but with the bodies of fns that hold none of `keys` blanked before parsing (see
/// `skeleton.rs`): the tree has every item and signature and the bodies that can matter, with
/// the file's own spans. The text returned is the file's. When the blanked text does not parse,
/// the file is parsed as it is, so a syntax error is reported where it is.
///
/// Owned bytes become the returned text as they are: a file is not copied to be parsed.
pub fn parse_skeleton(
    bytes: Cow<'_, [u8]>,
    keys: Option<&crate::reading::skeleton::BodyKeys>,
    aliases: &[&str],
) -> Result<Parsed, ParseFailure> {
    let text: Cow<'_, str> = match bytes {
        Cow::Borrowed(b) => match std::str::from_utf8(b) {
            Ok(t) => Cow::Borrowed(t),
            Err(e) => return Err(not_utf8(b, e)),
        },
        Cow::Owned(v) => match String::from_utf8(v) {
            Ok(t) => Cow::Owned(t),
            Err(e) => return Err(not_utf8(e.as_bytes(), e.utf8_error())),
        },
    };
    if text.len() > MAX_PARSE_BYTES {
        return Err(ParseFailure {
            line: 1,
            column: 1,
            message: format!(
                "the file is {:.1} MB and files over {} MB are not analysed (the syntax tree would \
take about 160 times its size in memory); split it, or exclude it in mcp-lint.toml",
                text.len() as f64 / (1 << 20) as f64,
                MAX_PARSE_BYTES >> 20
            ),
            text: Some(text.into_owned()),
        });
    }
    let read = crate::timings::stage(crate::timings::Stage::Skeleton, || match keys {
        Some(keys) => crate::reading::skeleton::read(&text, keys, aliases),
        None => too_deep(&text).map_or(
            Ok(crate::reading::skeleton::Skeleton {
                blanked: None,
                idents: None,
            }),
            Err,
        ),
    });
    let (blanked, idents) = match read {
        Ok(s) => (s.blanked, s.idents),
        Err(TooDeep { what, at }) => {
            let line = text[..at].matches('\n').count() + 1;
            let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
            let column = text[line_start..at].chars().count() + 1;
            return Err(ParseFailure {
                line,
                column,
                message: format!("{what}; the file was not analysed"),
                text: Some(text.into_owned()),
            });
        }
    };
    let parsed = |text: Cow<'_, str>, file| Parsed {
        text: text.into_owned(),
        file,
        idents,
    };
    if let Some(blanked) = blanked {
        if let Ok(f) =
            crate::timings::stage(crate::timings::Stage::Parse, || syn::parse_file(&blanked))
        {
            return Ok(parsed(text, f));
        }
    }
    match syn::parse_file(&text) {
        Ok(f) => Ok(parsed(text, f)),
        Err(e) => {
            let LineColumn { line, column } = e.span().start();
            Err(ParseFailure {
                line: line.max(1),
                column: column + 1,
                message: e.to_string(),
                text: Some(text.into_owned()),
            })
        }
    }
}

fn not_utf8(bytes: &[u8], e: std::str::Utf8Error) -> ParseFailure {
    let ok = &bytes[..e.valid_up_to()];
    let line = ok.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = ok.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let column = String::from_utf8_lossy(&ok[line_start..]).chars().count() + 1;
    ParseFailure {
        line,
        column,
        message: format!(
            "file is not valid UTF-8 (invalid byte at offset {})",
            e.valid_up_to()
        ),
        text: None,
    }
}

/// Most links in one chain (see [`DepthGuard`]): operators, prefix keywords, the brackets of
/// calls and indexes, fn and closure arrows. `1 + 1 + ..`, `a.b().c()..`, `& & & x`, `return
/// return ..` and `fn() -> fn() -> ..` build trees as deep as the chain is long, which syn parses
/// and every pass walks by recursion: a long enough one exhausts any stack (the costliest link,
/// `fn(u8) -> `, takes about 5 KB of syn's stack). Real code stays far below this.
pub const MAX_CHAIN: usize = 10_000;

/// Most `<` not yet closed by a `>` in one statement at one bracket level: `A<u8, A<u8, ..>>`
/// nests generic arguments without brackets. Comparisons and shifts count too (the lexer cannot
/// tell them from generics), hence a bound well above what nested generics ever need.
pub const MAX_ANGLES: usize = 3_000;

/// Why a text is refused before parsing, and where (byte offset).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooDeep {
    pub what: String,
    pub at: usize,
}

/// The first place where brackets nest deeper than [`MAX_NESTING`], an expression, type or
/// pattern chains more than [`MAX_CHAIN`] links, or generics nest deeper than [`MAX_ANGLES`],
/// ignoring strings, chars and comments.
pub(crate) fn too_deep(text: &str) -> Option<TooDeep> {
    let bytes = text.as_bytes();
    let mut guard = DepthGuard::default();
    let mut lexer = Lexer::new(bytes);
    while let Some(token) = lexer.next() {
        if let Err(e) = guard.token(&token, bytes, lexer.start()) {
            return Some(e);
        }
    }
    None
}

/// [`too_deep`] one token at a time, so that a pass that lexes the file anyway (the skeleton)
/// checks it on the way instead of in a second pass over the text.
///
/// Every production that recurses in syn (or in a walk of its tree) without a bracket per level
/// adds a link to the chain of its bracket level: binary, unary and assignment operators, `..`,
/// `?`, `.`, `->`, `@`, `|` (closures and or-patterns), `return`/`break`/`yield`/`else`/`as`, and
/// the brackets of a call or index (`f()()()..`, one link to the level outside them). A chain
/// ends where syn's recursion returns to a loop at the same depth: `;`, `=>`, a `,` (but not one
/// between a closure's pipes, `|a, b| |a, b| ..`), and the end of a block that no operator
/// continues (`fn a() {} fn b() {}`, but not `{1} + {1} + ..`). A bracket saves the chain of its
/// level and restores it when it closes, so `1 + (1, 1).0 + ..` is one chain. Generic arguments
/// (`A<u8, A<u8, ..>>`) are counted apart, as `<` not yet closed, since commas do not end them.
#[derive(Default)]
pub(crate) struct DepthGuard {
    depth: usize,
    level: Level,
    /// The levels outside the open brackets, restored when each closes.
    outer: Vec<Level>,
    /// Their links and open `<`, summed: syn's recursion for `(return return (return ..` is the
    /// sum over the open levels, so that is what the limits bound.
    outer_chain: u32,
    outer_angles: u32,
    /// The previous token when it was punctuation, and where it ended: tells `->` and `=>` from
    /// `-` and `=`, and `..` from `.`.
    prev_punct: Option<(u8, usize)>,
    /// A block just closed: the next token says whether the chain goes on.
    after_block: bool,
}

/// The chain of one bracket level.
#[derive(Default, Clone, Copy)]
struct Level {
    chain: u32,
    angles: u32,
    /// An odd number of `|` since the chain started: inside a closure's parameters (or an
    /// or-pattern, or a bitwise or), where a comma does not end the chain.
    pipes: bool,
}

impl DepthGuard {
    /// Takes the next token of `text`, which starts at `at`.
    #[inline]
    pub fn token(&mut self, token: &Token, text: &[u8], at: usize) -> Result<(), TooDeep> {
        let joint = |prev: u8| self.prev_punct == Some((prev, at));
        let punct = match token {
            Token::Punct(c) => Some(*c),
            _ => None,
        };
        if std::mem::take(&mut self.after_block) && !continues(token, text) {
            self.level = Level::default();
        }
        match token {
            Token::Punct(b';') => self.level = Level::default(),
            Token::Punct(b',') if !self.level.pipes => self.level.chain = 0,
            Token::Punct(b'>') if joint(b'=') => self.level = Level::default(),
            // The `-` of `->` was the link.
            Token::Punct(b'>') if joint(b'-') => {}
            Token::Punct(b'>') => {
                self.level.angles = self.level.angles.saturating_sub(1);
                self.link(at)?;
            }
            Token::Punct(b'<') => {
                self.level.angles += 1;
                if (self.outer_angles + self.level.angles) as usize > MAX_ANGLES {
                    return Err(TooDeep {
                        what: format!("generic arguments nest deeper than {MAX_ANGLES} levels"),
                        at,
                    });
                }
                self.link(at)?;
            }
            Token::Punct(b'|') => {
                self.level.pipes = !self.level.pipes;
                self.link(at)?;
            }
            Token::Punct(b'=') => {
                // `<=` compares: its `<` opened nothing.
                if joint(b'<') {
                    self.level.angles = self.level.angles.saturating_sub(1);
                }
                self.link(at)?;
            }
            Token::Punct(
                b'+' | b'-' | b'*' | b'/' | b'%' | b'^' | b'&' | b'.' | b'?' | b'!' | b'@',
            ) => self.link(at)?,
            Token::Punct(b'(' | b'[' | b'{') => {
                // A call's or an index's brackets are a link of the level outside them.
                if punct != Some(b'{') {
                    self.link(at)?;
                }
                self.depth += 1;
                if self.depth > MAX_NESTING {
                    return Err(TooDeep {
                        what: format!("nesting deeper than {MAX_NESTING} levels"),
                        at,
                    });
                }
                self.outer_chain += self.level.chain;
                self.outer_angles += self.level.angles;
                self.outer.push(std::mem::take(&mut self.level));
            }
            Token::Punct(c @ (b')' | b']' | b'}')) => {
                self.depth = self.depth.saturating_sub(1);
                self.level = self.outer.pop().unwrap_or_default();
                self.outer_chain -= self.level.chain;
                self.outer_angles -= self.level.angles;
                if *c == b'}' {
                    self.after_block = true;
                }
            }
            Token::Ident(r) if is_link_keyword(&text[r.clone()]) => self.link(at)?,
            _ => {}
        }
        self.prev_punct = punct.map(|c| (c, at + 1));
        Ok(())
    }

    fn link(&mut self, at: usize) -> Result<(), TooDeep> {
        self.level.chain += 1;
        if (self.outer_chain + self.level.chain) as usize > MAX_CHAIN {
            return Err(TooDeep {
                what: format!("an expression, type or pattern chains more than {MAX_CHAIN} links"),
                at,
            });
        }
        Ok(())
    }
}

/// Prefix keywords recurse in syn like unary operators (`return return ..`); `else` chains `if`s
/// and `as` casts. Asked of every identifier of every file: inlined, it is a length compare.
#[inline]
fn is_link_keyword(word: &[u8]) -> bool {
    matches!(word, b"return" | b"break" | b"yield" | b"else" | b"as")
}

/// Whether a token after a block's `}` goes on with the expression the block is part of
/// (`{1} + {1}`, `if a {} else {}`, `match x {}.len()`) rather than starting a new item or
/// statement.
fn continues(token: &Token, text: &[u8]) -> bool {
    match token {
        Token::Punct(c) => !matches!(c, b';' | b',' | b'#' | b'}' | b')' | b']' | b'{'),
        Token::Ident(r) => is_link_keyword(&text[r.clone()]),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_over_the_size_limit_is_reported_not_parsed() {
        let line = "fn f() { peer.create_message(p); }\n";
        let big = line.repeat(MAX_PARSE_BYTES / line.len() + 1);
        let Err(err) = parse(big.as_bytes()) else {
            panic!("must be refused")
        };
        assert!(err.message.contains("are not analysed"), "{}", err.message);
        let small = line.repeat(MAX_PARSE_BYTES / line.len() / 64);
        assert!(parse(small.as_bytes()).is_ok());
    }

    #[test]
    fn deep_nesting_is_reported_not_parsed() {
        let src = format!(
            "fn f() {{ let x = {}1{}; }}",
            "(".repeat(5000),
            ")".repeat(5000)
        );
        let Err(err) = parse(src.as_bytes()) else {
            panic!("must be refused")
        };
        assert!(err.message.contains("nesting deeper"), "{}", err.message);
        assert_eq!(err.line, 1);
    }

    #[test]
    fn endless_operator_chains_are_reported_not_parsed() {
        let src = format!(
            "fn f() {{ let x = {}; }}",
            vec!["1"; MAX_CHAIN + 10].join(" + ")
        );
        let Err(err) = parse(src.as_bytes()) else {
            panic!("must be refused")
        };
        assert!(err.message.contains("chains more than"), "{}", err.message);
        let ok = format!("const T: [u8; 20000] = [{}];", vec!["1"; 20000].join(", "));
        assert!(too_deep(&ok).is_none(), "commas end a chain");
    }

    #[test]
    fn prefix_keyword_and_not_chains_are_reported_not_parsed() {
        for prefix in ["return ", "break ", "yield ", "!"] {
            let src = format!("fn f() {{ loop {{ {}1 }} }}", prefix.repeat(MAX_CHAIN + 10));
            let Err(err) = parse(src.as_bytes()) else {
                panic!("must be refused")
            };
            assert!(
                err.message.contains("chains more than"),
                "{prefix}: {}",
                err.message
            );
        }
        let ok = "fn f() -> u8 { let returned = 1; if !false { return returned; } break_it(); 0 }";
        assert!(too_deep(ok).is_none());
    }

    #[test]
    fn the_chains_of_every_open_bracket_add_up() {
        // Each level alone is far below the limit; syn recurses through all of them at once.
        let level = format!("({}", "return ".repeat(20));
        let levels = MAX_CHAIN / 20 + 10;
        assert!(levels < MAX_NESTING);
        let src = format!(
            "fn f() {{ {}1{}; }}",
            level.repeat(levels),
            ")".repeat(levels)
        );
        let err = too_deep(&src).expect("refused");
        assert!(err.what.contains("chains more than"), "{}", err.what);
        // Closed brackets give their links back.
        let src = format!("fn f() {{ {} }}", format!("{level}1);").repeat(levels));
        assert!(too_deep(&src).is_none());
    }

    #[test]
    fn generics_count_apart_from_comparisons_and_arrows() {
        let deep = format!(
            "type T = {}u8{};",
            "A<u8, ".repeat(MAX_ANGLES + 1),
            ">".repeat(MAX_ANGLES + 1)
        );
        let err = too_deep(&deep).expect("refused");
        assert!(err.what.contains("generic arguments"), "{}", err.what);
        // `->`, `=>` and `<=` open no generic; `>` closes one; `;` ends the statement.
        let fine = format!(
            "fn f(a: u8) -> u8 {{ match a {{ {} _ => 0 }} }}",
            "x if x <= 1 => 1, ".repeat(MAX_ANGLES + 1)
        );
        assert!(too_deep(&fine).is_none());
        let fine = "fn f() -> bool { a < b }\n".repeat(MAX_ANGLES + 1);
        assert!(too_deep(&fine).is_none());
        let fine = "let x = a < b;".repeat(MAX_ANGLES + 1);
        assert!(too_deep(&fine).is_none());
    }

    #[test]
    fn commas_between_closure_pipes_do_not_end_a_chain() {
        let deep = format!("fn f() {{ let c = {}1; }}", "|a, b| ".repeat(MAX_CHAIN));
        assert!(too_deep(&deep).is_some());
        let fine = format!("fn f() {{ let v = [{}]; }}", "a | b, ".repeat(MAX_CHAIN));
        assert!(too_deep(&fine).is_none());
    }

    #[test]
    fn a_block_ends_a_chain_unless_an_operator_goes_on() {
        let items = "fn f() -> Vec<u8> { g() }\n".repeat(MAX_CHAIN);
        assert!(too_deep(&items).is_none());
        let deep = format!("fn f() {{ let x = {}1; }}", "{ 1 } + ".repeat(MAX_CHAIN));
        assert!(too_deep(&deep).is_some());
        let deep = format!(
            "fn f(a: bool) {{ {}{{}} }}",
            "if a {} else ".repeat(MAX_CHAIN)
        );
        assert!(too_deep(&deep).is_some());
    }

    #[test]
    fn brackets_in_strings_and_comments_do_not_count() {
        let src = format!(
            "// {}\nfn f() {{ let s = \"{}\"; let r = r#\"{}\"#; let c = '('; }}",
            "(".repeat(5000),
            "[".repeat(5000),
            "{".repeat(5000)
        );
        assert!(parse(src.as_bytes()).is_ok());
    }

    #[test]
    fn invalid_utf8_names_the_line() {
        let mut src = b"fn a() {}\nfn b() { \"".to_vec();
        src.push(0xff);
        let err = parse(&src).err().unwrap();
        assert_eq!((err.line, err.column), (2, 11));
        assert!(err.message.contains("UTF-8"));
    }

    #[test]
    fn syntax_errors_carry_syns_message_and_line() {
        let err = parse(b"fn ok() {}\nfn broken( {\n").err().unwrap();
        assert_eq!(err.line, 2);
        assert!(!err.message.is_empty());
    }
}
