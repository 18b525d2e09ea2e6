//! Reads of a method's result that compile on the old result and on the new one, for the methods
//! whose result type changed under the same name (`Kind::MethodResult`: `peer_info()` gave
//! `Option<&T>` and gives `Option<Arc<T>>` since rmcp 2.0). Such a read needs no change, so it is
//! not reported: before the fix it is a finding nobody can act on, and after it (code whose
//! evidence keeps its package below the release, an API with no successor left in it, is linted
//! again) it would report what the fix wrote.
//!
//! The reads told apart are the ones whose value cannot borrow from the result:
//! - asking only whether there is one: `.is_some()`, `.is_none()`;
//! - a closure over the value (`.map(|info| ..)`, `.and_then`, `.is_some_and`, `.map_or(d, ..)`),
//!   the block (and the rest of the condition) of `if let Some(info) = x.peer_info()`, or the
//!   rest of the block of `let info = x.peer_info();`, that reads `info` only through field paths
//!   whose value is owned or copied (`info.a.b.clone()`, `info.a.is_some()`, a macro's argument
//!   `info.a.b`, `info.a == b`) or in a format string (`"{info:?}"`: `Debug` of either);
//! - where no field of the result became optional, the change's `borrow` adapter (`.as_deref()`,
//!   what the fix writes).
//!
//! Where a field became optional (a 3.x client's `server_info`), a path through that field is
//! not such a read. Anything else (`.map(|i| &i.name)`, `f(info)`, `&info.a`, `info.clone()`,
//! `.cloned()`) may need the change.

use crate::model::sdk::rmcp_upgrade::OPTION_CLOSURE_READS;
use crate::reading::lexer::{is_ident, Lexer, Token};
use crate::rules::engine::Cx;

/// Methods that, called at the end of a field path, give a value that borrows nothing from it.
const OWNED: [&str; 7] = [
    "clone",
    "to_string",
    "to_owned",
    "is_some",
    "is_none",
    "len",
    "is_empty",
];

/// How the code reads one call's result.
pub(super) struct Read<'a> {
    /// The call's first method call after it, compacted (`is_some()`, `map(`), or empty.
    next: String,
    /// Where the value is bound, and the text that reads the binding: a closure's parameter
    /// and body, `if let Some(binding) = call`'s binding and the rest of its condition and its
    /// block, or `let binding = call;`'s binding and the rest of its block.
    bound: Option<(&'a str, &'a str)>,
}

impl<'a> Read<'a> {
    pub(super) fn of(cx: &Cx<'a>, mc: &syn::ExprMethodCall) -> Read<'a> {
        let idx = cx.line_index();
        let text: &'a str = idx.text();
        let start = idx.range(syn::spanned::Spanned::span(&*mc.receiver)).start;
        let end = idx.range(mc.paren_token.span.close()).end;
        let (before, after) = (
            text.get(..start).unwrap_or_default(),
            text.get(end..).unwrap_or_default(),
        );
        let next = compact_method_call(after);
        let with_closure = next
            .strip_suffix('(')
            .is_some_and(|m| OPTION_CLOSURE_READS.contains(&m));
        let bound = if with_closure {
            closure_of(after)
        } else {
            if_let_region(text, before, end).or_else(|| let_region(text, before, end))
        };
        Read { next, bound }
    }

    /// Whether this read compiles on both results of a change whose result has a `borrow`
    /// adapter, and whose field `optional` became an `Option`.
    pub(super) fn alike(&self, borrow: Option<&str>, optional: Option<&str>) -> bool {
        if ["is_some()", "is_none()"].contains(&self.next.as_str()) {
            return true;
        }
        if let Some((binding, reads)) = self.bound {
            return reads_owned_fields_only(binding, reads, optional);
        }
        optional.is_none()
            && borrow.is_some_and(|b| b.strip_prefix('.') == Some(self.next.as_str()))
    }
}

/// The method call that opens `text` (`.as_deref()`, `\n  .is_some_and(|i| ..)`), without its
/// whitespace, up to its `(` and, when it takes no argument, its `)`; empty when `text` opens
/// with no method call.
fn compact_method_call(text: &str) -> String {
    let Some(rest) = text.trim_start().strip_prefix('.') else {
        return String::new();
    };
    let rest = rest.trim_start();
    let name_len = rest.bytes().take_while(|b| is_ident(*b)).count();
    let (name, rest) = rest.split_at(name_len);
    let Some(args) = rest.trim_start().strip_prefix('(') else {
        return String::new();
    };
    if args.trim_start().starts_with(')') {
        format!("{name}()")
    } else {
        format!("{name}(")
    }
}

/// For `text` that opens with `.method(.., |param| body)`: the closure's parameter and body (up
/// to the call's closing parenthesis). None for a closure with a pattern or a typed parameter,
/// or a function passed by name.
fn closure_of(text: &str) -> Option<(&str, &str)> {
    let open = text.find('(')?;
    let mut lexer = Lexer::new(text.as_bytes());
    lexer.seek(open + 1);
    let (mut depth, mut arg_start) = (0usize, open + 1);
    let close = loop {
        match lexer.next()? {
            Token::Punct(b'(' | b'[' | b'{') => depth += 1,
            Token::Punct(b')') if depth == 0 => break lexer.start(),
            Token::Punct(b')' | b']' | b'}') => depth = depth.saturating_sub(1),
            // The closure is the last argument (`map_or(default, |info| ..)`).
            Token::Punct(b',') if depth == 0 => arg_start = lexer.offset(),
            _ => {}
        }
    };
    let arg = text[arg_start..close].trim_start();
    let arg = arg.strip_prefix("move").map_or(arg, str::trim_start);
    let rest = arg.strip_prefix('|')?;
    let bar = rest.find('|')?;
    let param = rest[..bar].trim();
    plain_binding(param).then(|| (param, &rest[bar + 1..]))
}

/// A binding that is one identifier (not `mut`, `_` or a pattern).
fn plain_binding(name: &str) -> bool {
    !name.is_empty()
        && name.bytes().all(is_ident)
        && !name.as_bytes()[0].is_ascii_digit()
        && !["mut", "ref", "_"].contains(&name)
}

/// A stretch of text, lexed and read by token index.
struct Tokens<'t> {
    text: &'t str,
    tokens: Vec<Token>,
    starts: Vec<usize>,
}

impl<'t> Tokens<'t> {
    fn of(text: &'t str) -> Tokens<'t> {
        let mut lexer = Lexer::new(text.as_bytes());
        let (mut tokens, mut starts) = (Vec::new(), Vec::new());
        while let Some(t) = lexer.next() {
            tokens.push(t);
            starts.push(lexer.start());
        }
        Tokens {
            text,
            tokens,
            starts,
        }
    }

    fn word(&self, i: usize) -> Option<&'t str> {
        match self.tokens.get(i) {
            Some(Token::Ident(r)) => Some(&self.text[r.clone()]),
            _ => None,
        }
    }

    fn punct(&self, i: usize) -> Option<u8> {
        match self.tokens.get(i) {
            Some(Token::Punct(p)) => Some(*p),
            _ => None,
        }
    }

    /// `x` when the tokens before `end` are `if let Some(x) =`.
    fn if_let_some(&self, end: usize) -> Option<&'t str> {
        let j = end.checked_sub(7)?;
        let shape = self.word(j) == Some("if")
            && self.word(j + 1) == Some("let")
            && self.word(j + 2) == Some("Some")
            && self.punct(j + 3) == Some(b'(')
            && self.punct(j + 5) == Some(b')')
            && self.punct(j + 6) == Some(b'=');
        self.word(j + 4).filter(|x| shape && plain_binding(x))
    }

    /// The `}` that closes the `{` at token `open`.
    fn matching(&self, open: usize) -> Option<usize> {
        let mut depth = 0usize;
        for i in open..self.tokens.len() {
            match self.tokens[i] {
                Token::Punct(b'{') => depth += 1,
                Token::Punct(b'}') => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        return Some(i);
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// Whether the innermost parentheses around token `k` are a formatting macro's
    /// (`assert!(`, `tracing::info!(`).
    fn formatting_macro_around(&self, k: usize) -> bool {
        let mut depth = 0usize;
        for i in (0..k).rev() {
            match self.tokens[i] {
                Token::Punct(b')' | b']' | b'}') => depth += 1,
                Token::Punct(b'(' | b'[' | b'{') if depth > 0 => depth -= 1,
                Token::Punct(b'(') => {
                    return i >= 2
                        && self.punct(i - 1) == Some(b'!')
                        && self.word(i - 2).is_some_and(|m| FORMATTING.contains(&m));
                }
                Token::Punct(b'[' | b'{') => return false,
                _ => {}
            }
        }
        false
    }

    /// `x` when the tokens before `end` are `let x =`.
    fn let_plain(&self, end: usize) -> Option<&'t str> {
        let j = end.checked_sub(3)?;
        let shape = self.word(j) == Some("let") && self.punct(j + 2) == Some(b'=');
        self.word(j + 1).filter(|x| shape && plain_binding(x))
    }
}

/// The statement `before` ends in: its text after the last `;`, `{` or `}` (a brace in a string
/// there cuts it short, and the shapes read from it then do not match).
fn statement_tail(before: &str) -> Tokens<'_> {
    let from = memchr::memrchr3(b';', b'{', b'}', before.as_bytes()).map_or(0, |i| i + 1);
    Tokens::of(&before[from..])
}

/// For a call that is the whole scrutinee of `if let Some(binding) = CALL`: the binding, and the
/// text from the call's end (`end` in `text`) through the block's closing brace: the rest of a
/// let chain's condition (`&& binding.a.is_some()`) and the block.
fn if_let_region<'a>(text: &'a str, before: &'a str, end: usize) -> Option<(&'a str, &'a str)> {
    let tail = statement_tail(before);
    let binding = tail.if_let_some(tail.tokens.len())?;
    // The block opens at the first `{` outside the condition's own brackets.
    let mut lexer = Lexer::new(text.as_bytes());
    lexer.seek(end);
    let mut depth = 0usize;
    loop {
        match lexer.next()? {
            Token::Punct(b'(' | b'[') => depth += 1,
            Token::Punct(b')' | b']') => depth = depth.checked_sub(1)?,
            Token::Punct(b'{') if depth == 0 => break,
            // The end of a statement, or a closure's block in the condition: not an `if let`'s.
            Token::Punct(b';' | b'}' | b'{') => return None,
            _ => {}
        }
    }
    let close = lexer.skip_block()?;
    Some((binding, &text[end..=close]))
}

/// For a call that is the whole value of `let binding = CALL;`: the binding, and the rest of the
/// block it is declared in (its uses). A `let mut` is not followed: what is assigned later is
/// another value.
fn let_region<'a>(text: &'a str, before: &'a str, end: usize) -> Option<(&'a str, &'a str)> {
    let tail = statement_tail(before);
    let binding = tail.let_plain(tail.tokens.len())?;
    if !text[end..].trim_start().starts_with(';') {
        return None;
    }
    let mut lexer = Lexer::new(text.as_bytes());
    lexer.seek(end);
    let close = lexer.skip_block()?;
    Some((binding, &text[end..=close]))
}

/// Whether every use of `binding` in `block` is a field path (`binding.a.b`) whose value is
/// owned or copied: it ends in a call of one of [`OWNED`], or where a value is taken or compared
/// (`,` `)` `;` `}` `==` `!=` `&&` `||`). A path through `optional` (a field that became an
/// `Option`) is not. A field of a field (`other.binding`) is not a use; a reborrow
/// (`if let Some(x) = &binding {`) is read again as `x`, in its block.
fn reads_owned_fields_only(binding: &str, block: &str, optional: Option<&str>) -> bool {
    let t = Tokens::of(block);
    for k in 0..t.tokens.len() {
        if t.word(k) != Some(binding) {
            continue;
        }
        // Not the binding: another value's field (`other.info`), a path's segment
        // (`tracing::info!`, `info::x`), a macro's name, a field's name in a literal.
        let before = k.checked_sub(1).and_then(|i| t.punct(i));
        if matches!(before, Some(b'.' | b':')) || matches!(t.punct(k + 1), Some(b'!' | b':')) {
            continue;
        }
        if let Some((x, inner)) = rebound(&t, k) {
            if !reads_owned_fields_only(x, inner, optional) {
                return false;
            }
            continue;
        }
        if let Some((x, inner)) = rebound_field(&t, k, optional) {
            if !reads_locally(x, inner) {
                return false;
            }
            continue;
        }
        // `&binding..` or `*binding..` takes the result itself, not a field's value (`&&` before
        // it is a condition's `and`).
        let and = k > 1 && t.punct(k - 2) == Some(b'&');
        if matches!(before, Some(b'*')) || (matches!(before, Some(b'&')) && !and) {
            return false;
        }
        if !owned_field_path(&t, k + 1, optional) {
            return false;
        }
    }
    true
}

/// Whether the tokens from `i`, right after a use of the binding, are a field path whose value
/// is owned: `.a.b` taken whole where a value ends, or `.a.b.clone()` (one of [`OWNED`]).
fn owned_field_path(t: &Tokens<'_>, mut i: usize, optional: Option<&str>) -> bool {
    let mut fields = 0;
    while t.punct(i) == Some(b'.') {
        let Some(name) = t.word(i + 1) else {
            return false;
        };
        if fields == 0 && optional == Some(name) {
            return false;
        }
        if t.punct(i + 2) == Some(b'(') {
            // A call on the result itself (`info.clone()`) changes with its type; an owned
            // value may be used any way at all.
            let empty_args = t.punct(i + 3) == Some(b')');
            return fields > 0 && OWNED.contains(&name) && empty_args;
        }
        fields += 1;
        i += 2;
    }
    // A field's value, where it is taken whole.
    fields > 0
        && match t.punct(i) {
            Some(b',' | b')' | b';' | b'}') => true,
            Some(b'=' | b'!') => t.punct(i + 1) == Some(b'='),
            Some(b'&') => t.punct(i + 1) == Some(b'&'),
            Some(b'|') => t.punct(i + 1) == Some(b'|'),
            _ => i >= t.tokens.len(),
        }
}

/// Methods of a field's value (a `&String`, a `&Vec<T>`) whose result borrows nothing from it,
/// besides [`OWNED`]: tests of it.
const TESTS_OF_VALUE: [&str; 5] = ["contains", "starts_with", "ends_with", "eq", "ne"];

/// Macros that only format their arguments: an argument borrowed for the call.
const FORMATTING: [&str; 20] = [
    "print",
    "println",
    "eprint",
    "eprintln",
    "format",
    "write",
    "writeln",
    "panic",
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "trace",
    "debug",
    "info",
    "warn",
    "error",
    "unreachable",
];

/// For the use of a binding at token `k` in `if let Some(x) = &binding.a.b {`: `x` (a reference
/// into a field, of the same type on the old result and the new one; only where it may live
/// differs), and the block's text. A path through `optional` is not followed.
fn rebound_field<'t>(
    t: &Tokens<'t>,
    k: usize,
    optional: Option<&str>,
) -> Option<(&'t str, &'t str)> {
    if k == 0 || t.punct(k - 1) != Some(b'&') {
        return None;
    }
    let x = t.if_let_some(k - 1)?;
    let mut i = k + 1;
    while t.punct(i) == Some(b'.') {
        let name = t.word(i + 1)?;
        if i == k + 1 && optional == Some(name) {
            return None;
        }
        i += 2;
    }
    if i == k + 1 || t.punct(i) != Some(b'{') {
        return None;
    }
    let close = t.matching(i)?;
    Some((x, &t.text[t.starts[i]..=t.starts[close]]))
}

/// Whether every use of `x`, a reference into the result, in `block` keeps it there: a method
/// whose result borrows nothing from it (`x.contains(..)`), a field path taken whole, or an
/// argument of a formatting macro (`assert!(.., "{}", x)`). A reference handed anywhere else
/// may outlive the new result, which the block's end drops.
fn reads_locally(x: &str, block: &str) -> bool {
    let t = Tokens::of(block);
    (0..t.tokens.len())
        .filter(|&k| t.word(k) == Some(x))
        .all(|k| {
            let before = k.checked_sub(1).and_then(|i| t.punct(i));
            if matches!(before, Some(b'.' | b':')) || matches!(t.punct(k + 1), Some(b'!' | b':')) {
                return true;
            }
            if t.punct(k + 1) == Some(b'.') && t.punct(k + 3) == Some(b'(') {
                return t
                    .word(k + 2)
                    .is_some_and(|m| OWNED.contains(&m) || TESTS_OF_VALUE.contains(&m));
            }
            if t.punct(k + 1) == Some(b'.') {
                return owned_field_path(&t, k + 1, None);
            }
            matches!(before, Some(b',' | b'('))
                && matches!(t.punct(k + 1), Some(b',' | b')'))
                && t.formatting_macro_around(k)
        })
}

/// For the use of a binding at token `k` that is the whole scrutinee of `if let Some(x) =
/// binding {` or `= &binding {`: `x`, and the block's text.
fn rebound<'t>(t: &Tokens<'t>, k: usize) -> Option<(&'t str, &'t str)> {
    if t.punct(k + 1) != Some(b'{') {
        return None;
    }
    let end = if k > 0 && t.punct(k - 1) == Some(b'&') {
        k - 1
    } else {
        k
    };
    let x = t.if_let_some(end)?;
    let mut depth = 0usize;
    for i in k + 1..t.tokens.len() {
        match t.tokens[i] {
            Token::Punct(b'{') => depth += 1,
            Token::Punct(b'}') => {
                depth -= 1;
                if depth == 0 {
                    return Some((x, &t.text[t.starts[k + 1]..=t.starts[i]]));
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_method_call_is_read_compactly_and_only_at_the_start() {
        assert_eq!(
            compact_method_call("\n    .as_deref()\n    .map(|i| x)"),
            "as_deref()"
        );
        assert_eq!(
            compact_method_call(" . is_some_and ( |i| i.a )"),
            "is_some_and("
        );
        assert_eq!(compact_method_call("; x.is_some()"), "");
        assert_eq!(compact_method_call(".field"), "");
    }

    #[test]
    fn a_block_that_reads_owned_field_values_only_is_told_from_one_that_borrows() {
        for quiet in [
            "{ tracing::info!(\"{} {}\", info.client_info.name, info.client_info.version); }",
            "{ let n = info.client_info.name.clone(); self.name = n; }",
            "{ if info.protocol_version == v { return true; } }",
            "{ if info.capabilities.sampling.is_some() { go() } }",
            "&& info.capabilities.sampling.is_some() && info.ok || x { go() }",
            "{ names.push(info.client_info.name.to_string()) }",
            "{ other.info.x(); }",
            "{ log::info!(\"{}\", info.a); Foo { info: info.b.clone() }; }",
            "; if let Some(i) = &info { go(i.instructions.len()) }",
            "; if let Some(i) = info { log!(\"{}\", i.a); }",
            "; if let Some(i) = &info { if let Some(s) = &i.instructions { assert!(s.contains(\"x\"), \"{}\", s); } }",
            "{ if let Some(s) = &info.instructions { println!(\"{}\", s.len()); } }",
            "{ }",
        ] {
            assert!(reads_owned_fields_only("info", quiet, None), "{quiet}");
        }
        for borrowing in [
            "{ return &info.client_info.name; }",
            "{ keep(info) }",
            "{ info.clone() }",
            "{ info.client_info.name.as_str() }",
            "{ let r = &*info; }",
            "{ info.client_info.name.trim() }",
            "{ match info.a { Some(ref x) => x, None => y } }",
            "; if let Some(i) = &info { return &i.name; }",
            "; if let Some(i) = &info { keep(i) }",
            "{ if let Some(s) = &info.instructions { self.kept = s; } }",
            "{ if let Some(s) = &info.instructions { return s.as_str(); } }",
            "{ if let Some(s) = &info.instructions { keep(s) } }",
            "{ if let Some(s) = &info.instructions { v.push(s) } }",
        ] {
            assert!(
                !reads_owned_fields_only("info", borrowing, None),
                "{borrowing}"
            );
        }
        // A field that became optional is read the old way through any path.
        let through = "{ println!(\"{}\", info.server_info.name); }";
        assert!(reads_owned_fields_only("info", through, None));
        assert!(!reads_owned_fields_only(
            "info",
            through,
            Some("server_info")
        ));
        let reborrowed = "{ if let Some(s) = &info.server_info.title { println!(\"{}\", s) } }";
        assert!(!reads_owned_fields_only(
            "info",
            reborrowed,
            Some("server_info")
        ));
        let beside = "{ println!(\"{}\", info.instructions.clone()); }";
        assert!(reads_owned_fields_only("info", beside, Some("server_info")));
    }

    #[test]
    fn a_closure_s_parameter_and_body_are_found_in_the_last_argument() {
        assert_eq!(
            closure_of(".map(|info| info.a.is_some()).unwrap_or(false)"),
            Some(("info", " info.a.is_some()"))
        );
        assert_eq!(
            closure_of(".map_or(f(a, b), move |i| { i.x.clone() })"),
            Some(("i", " { i.x.clone() }"))
        );
        assert_eq!(closure_of(".map(ToString::to_string)"), None);
        assert_eq!(closure_of(".map(|(a, b)| a)"), None);
        assert_eq!(closure_of(".map(|i: &Info| i.a)"), None);
    }

    type Region = for<'t> fn(&'t str, &'t str, usize) -> Option<(&'t str, &'t str)>;

    /// `region` asked, as `Read::of` asks it, of the call `p.peer_info()` in `text`.
    fn at_call(text: &str, region: Region) -> Option<(&str, &str)> {
        let start = text.find("p.peer").unwrap();
        region(text, &text[..start], start + "p.peer_info()".len())
    }

    #[test]
    fn a_let_binding_s_region_is_the_rest_of_its_block() {
        let region = |text| at_call(text, let_region);
        assert_eq!(
            region("fn f() { let info = p.peer_info(); log!(\"{info:?}\"); } fn g() {}"),
            Some(("info", "; log!(\"{info:?}\"); }"))
        );
        for other in [
            "fn f() { let mut info = p.peer_info(); }",
            "fn f() { let info = p.peer_info().unwrap(); }",
            "fn f() { let (a, info) = p.peer_info(); }",
            "fn f() { x = p.peer_info(); }",
        ] {
            assert!(region(other).is_none(), "{other}");
        }
    }

    #[test]
    fn only_the_whole_scrutinee_of_an_if_let_some_has_a_region() {
        let region = |text| at_call(text, if_let_region);
        assert_eq!(
            region("fn f() { if let Some(info) = p.peer_info() { x(info.a) } }"),
            Some(("info", " { x(info.a) }"))
        );
        assert_eq!(
            region("fn f() { if let Some(info) = p.peer_info() && info.a.is_some() { y() } }"),
            Some(("info", " && info.a.is_some() { y() }"))
        );
        for other in [
            "fn f() { while let Some(info) = p.peer_info() { x(info.a) } }",
            "fn f() { if let Some(mut) = p.peer_info() { } }",
            "fn f() { if a == p.peer_info() { } }",
            "fn f() { let Some(info) = p.peer_info() else { return }; }",
        ] {
            assert!(region(other).is_none(), "{other}");
        }
    }
}
