//! Turning bytes into a syntax tree without ever crashing: non-UTF-8 text, nesting too deep for
//! the parser's recursion, and syntax errors all become a parse-error finding (MCP900).

use proc_macro2::LineColumn;

use crate::lexer::{Lexer, Token};

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
}

pub fn parse(bytes: &[u8]) -> Result<(String, syn::File), ParseFailure> {
    parse_skeleton(bytes, None, &[])
}

/// [`parse`], but with the bodies of fns that hold none of `keys` blanked before parsing (see
/// `skeleton.rs`): the tree has every item and signature and the bodies that can matter, with
/// the file's own spans. The text returned is the file's. When the blanked text does not parse,
/// the file is parsed as it is, so a syntax error is reported where it is.
pub fn parse_skeleton(
    bytes: &[u8],
    keys: Option<&crate::skeleton::BodyKeys>,
    aliases: &[&str],
) -> Result<(String, syn::File), ParseFailure> {
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let ok = &bytes[..e.valid_up_to()];
            let line = ok.iter().filter(|&&b| b == b'\n').count() + 1;
            let line_start = ok.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            let column = String::from_utf8_lossy(&ok[line_start..]).chars().count() + 1;
            return Err(ParseFailure {
                line,
                column,
                message: format!(
                    "file is not valid UTF-8 (invalid byte at offset {})",
                    e.valid_up_to()
                ),
            });
        }
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
        });
    }
    let blanked = match keys {
        Some(keys) => crate::skeleton::skeleton(text, keys, aliases),
        None => too_deep(text).map_or(Ok(None), Err),
    };
    let blanked = match blanked {
        Ok(blanked) => blanked,
        Err(TooDeep { what, at }) => {
            let line = text[..at].matches('\n').count() + 1;
            let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
            return Err(ParseFailure {
                line,
                column: text[line_start..at].chars().count() + 1,
                message: format!("{what}; the file was not analysed"),
            });
        }
    };
    if let Some(blanked) = blanked {
        if let Ok(f) = syn::parse_file(&blanked) {
            return Ok((text.to_string(), f));
        }
    }
    match syn::parse_file(text) {
        Ok(f) => Ok((text.to_string(), f)),
        Err(e) => {
            let LineColumn { line, column } = e.span().start();
            Err(ParseFailure {
                line: line.max(1),
                column: column + 1,
                message: e.to_string(),
            })
        }
    }
}

/// Longest run of operator characters (`+`, `.`, `&&`, ...) between two `;`, `,`, `{` or `}`.
/// `1 + 1 + ..` and `a.b().c()..` build a tree as deep as the chain is long, so a chain of
/// millions would exhaust any stack; real code stays far below this.
pub const MAX_CHAIN: usize = 100_000;

/// Why a text is refused before parsing, and where (byte offset).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooDeep {
    pub what: String,
    pub at: usize,
}

/// The first place where brackets nest deeper than [`MAX_NESTING`] or an expression chains more
/// than [`MAX_CHAIN`] operators, ignoring strings, chars and comments.
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
#[derive(Default)]
pub(crate) struct DepthGuard {
    depth: usize,
    chain: usize,
}

impl DepthGuard {
    /// Takes the next token of `text`, which starts at `at`.
    #[inline]
    pub fn token(&mut self, token: &Token, text: &[u8], at: usize) -> Result<(), TooDeep> {
        match token {
            Token::Punct(b';' | b',') => self.chain = 0,
            Token::Punct(
                b'+' | b'-' | b'*' | b'%' | b'^' | b'|' | b'&' | b'<' | b'>' | b'=' | b'.' | b'?'
                | b'!',
            ) => self.link(at)?,
            Token::Punct(c @ (b'(' | b'[' | b'{')) => {
                if *c == b'{' {
                    self.chain = 0;
                }
                self.depth += 1;
                if self.depth > MAX_NESTING {
                    return Err(TooDeep {
                        what: format!("nesting deeper than {MAX_NESTING} levels"),
                        at,
                    });
                }
            }
            Token::Punct(c @ (b')' | b']' | b'}')) => {
                if *c == b'}' {
                    self.chain = 0;
                }
                self.depth = self.depth.saturating_sub(1);
            }
            // Prefix keywords recurse in syn like unary operators: `return return ..`.
            Token::Ident(r) if matches!(&text[r.clone()], b"return" | b"break" | b"yield") => {
                self.link(at)?
            }
            _ => {}
        }
        Ok(())
    }

    fn link(&mut self, at: usize) -> Result<(), TooDeep> {
        self.chain += 1;
        if self.chain > MAX_CHAIN {
            return Err(TooDeep {
                what: format!("an expression chains more than {MAX_CHAIN} operators"),
                at,
            });
        }
        Ok(())
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
