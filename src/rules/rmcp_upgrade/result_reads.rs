//! Reads of a method's result that compile on the old result and on the new one, for the methods
//! whose result type changed under the same name (`Kind::MethodResult`: `peer_info()` gave
//! `Option<&T>` and gives `Option<Arc<T>>` since rmcp 2.0). Such a read needs no change, so it is
//! not reported: before the fix it is a finding nobody can act on, and after it (code whose
//! evidence keeps its package below the release, an API with no successor left in it, is linted
//! again) it would report what the fix wrote.
//!
//! The reads told apart are the ones whose value cannot borrow from the result:
//! - asking only whether there is one: `.is_some()`, `.is_none()`;
//! - where no field of the result became optional: `.is_some_and(..)` (its closure yields a
//!   `bool`), the change's `borrow` adapter (`.as_deref()`, what the fix writes), and
//!   `if let Some(info) = x.peer_info() { .. }` whose block reads `info` only through field
//!   paths that end in a value owned or copied (`info.a.b.clone()`, a macro's argument
//!   `info.a.b`, `info.a == b`).
//!
//! Anything else (`.map(|i| &i.name)`, `f(info)`, `&info.a`, `info.clone()`) may need the change.

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
    /// The text of the block of `if let Some(binding) = call { .. }`, with its binding.
    if_let: Option<(&'a str, &'a str)>,
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
        Read {
            next: compact_method_call(after),
            if_let: if_let_block(text, before, end),
        }
    }

    /// Whether this read compiles on both results of a change whose result has a `borrow`
    /// adapter, and some field of which may have become optional.
    pub(super) fn alike(&self, borrow: Option<&str>, field_became_optional: bool) -> bool {
        if ["is_some()", "is_none()"].contains(&self.next.as_str()) {
            return true;
        }
        if field_became_optional {
            return false;
        }
        self.next == "is_some_and("
            || borrow.is_some_and(|b| b.strip_prefix('.') == Some(self.next.as_str()))
            || self
                .if_let
                .is_some_and(|(binding, block)| reads_owned_fields_only(binding, block))
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

/// For a call that is the whole scrutinee of `if let Some(binding) = CALL {`, the binding and the
/// block's text, braces included; `end` is where the call ends in `text`.
fn if_let_block<'a>(text: &'a str, before: &'a str, end: usize) -> Option<(&'a str, &'a str)> {
    let rest = before.trim_end().strip_suffix('=')?.trim_end();
    // Not `==`, `<=`, `>=` or `!=`.
    if rest.ends_with(['=', '<', '>', '!']) {
        return None;
    }
    let rest = rest.strip_suffix(')')?.trim_end();
    let name_len = rest.bytes().rev().take_while(|b| is_ident(*b)).count();
    let (rest, binding) = rest.split_at(rest.len() - name_len);
    if binding.is_empty() || binding.as_bytes()[0].is_ascii_digit() || binding == "mut" {
        return None;
    }
    let rest = rest.trim_end().strip_suffix('(')?.trim_end();
    let rest = whole_word_suffix(rest, "Some")?.trim_end();
    let rest = whole_word_suffix(rest, "let")?.trim_end();
    whole_word_suffix(rest, "if")?;
    let after = &text[end..];
    let open = end + (after.len() - after.trim_start().len());
    if text.as_bytes().get(open) != Some(&b'{') {
        return None;
    }
    let mut lexer = Lexer::new(text.as_bytes());
    lexer.seek(open + 1);
    let close = lexer.skip_block()?;
    Some((binding, &text[open..=close]))
}

/// `text` without `word` at its end, when `word` stands there whole.
fn whole_word_suffix<'a>(text: &'a str, word: &str) -> Option<&'a str> {
    let rest = text.strip_suffix(word)?;
    (!rest.bytes().last().is_some_and(is_ident)).then_some(rest)
}

/// Whether every use of `binding` in `block` is a field path (`binding.a.b`) whose value is
/// owned or copied: it ends the path where a value is taken or compared (`,` `)` `;` `}` `==`
/// `!=`), or in a call of one of [`OWNED`]. A field of a field (`other.binding`) is not a use.
fn reads_owned_fields_only(binding: &str, block: &str) -> bool {
    let bytes = block.as_bytes();
    let tokens: Vec<Token> = Lexer::new(bytes).collect();
    let word = |t: Option<&Token>| match t {
        Some(Token::Ident(r)) => Some(&block[r.clone()]),
        _ => None,
    };
    let punct = |t: Option<&Token>| match t {
        Some(Token::Punct(p)) => Some(*p),
        _ => None,
    };
    for (k, t) in tokens.iter().enumerate() {
        if word(Some(t)) != Some(binding) {
            continue;
        }
        // Not the binding: another value's field (`other.info`), a path's segment
        // (`tracing::info!`, `info::x`), a macro's name, a field's name in a literal.
        let before = (k > 0).then(|| punct(tokens.get(k - 1))).flatten();
        if matches!(before, Some(b'.' | b':'))
            || matches!(punct(tokens.get(k + 1)), Some(b'!' | b':'))
        {
            continue;
        }
        // `&binding..` or `*binding..` takes the result itself, not a field's value.
        if k > 0 && matches!(punct(tokens.get(k - 1)), Some(b'&' | b'*')) {
            return false;
        }
        let mut i = k + 1;
        let mut fields = 0;
        loop {
            if punct(tokens.get(i)) != Some(b'.') {
                break;
            }
            let Some(name) = word(tokens.get(i + 1)) else {
                return false;
            };
            if punct(tokens.get(i + 2)) == Some(b'(') {
                // A call on the result itself (`info.clone()`) changes with its type.
                let empty_args = punct(tokens.get(i + 3)) == Some(b')');
                if fields == 0 || !OWNED.contains(&name) || !empty_args {
                    return false;
                }
                i += 4;
                // What an owned value is read through afterwards is no borrow of the result.
                break;
            }
            fields += 1;
            i += 2;
        }
        if fields == 0 {
            return false;
        }
        let ends_a_value = match punct(tokens.get(i)) {
            Some(b',' | b')' | b';' | b'}' | b'.') => true,
            Some(b'=' | b'!') => punct(tokens.get(i + 1)) == Some(b'='),
            _ => tokens.get(i).is_none(),
        };
        if !ends_a_value {
            return false;
        }
    }
    true
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
            "{ names.push(info.client_info.name.to_string()) }",
            "{ other.info.x(); }",
            "{ log::info!(\"{}\", info.a); Foo { info: info.b.clone() }; }",
            "{ }",
        ] {
            assert!(reads_owned_fields_only("info", quiet), "{quiet}");
        }
        for borrowing in [
            "{ return &info.client_info.name; }",
            "{ keep(info) }",
            "{ info.clone() }",
            "{ info.client_info.name.as_str() }",
            "{ let r = &*info; }",
            "{ info.client_info.name.trim() }",
        ] {
            assert!(!reads_owned_fields_only("info", borrowing), "{borrowing}");
        }
    }

    #[test]
    fn only_the_whole_scrutinee_of_an_if_let_some_has_a_block() {
        let text = "fn f() { if let Some(info) = p.peer_info() { x(info.a) } }";
        let call_end = text.find("peer_info()").unwrap() + "peer_info()".len();
        let call_start = text.find("p.peer").unwrap();
        let (binding, block) = if_let_block(text, &text[..call_start], call_end).unwrap();
        assert_eq!((binding, block), ("info", "{ x(info.a) }"));
        for other in [
            "fn f() { while let Some(info) = p.peer_info() { x(info.a) } }",
            "fn f() { if let Some(info) = p.peer_info() && y { x(info.a) } }",
            "fn f() { if let Some(mut) = p.peer_info() { } }",
            "fn f() { if a == p.peer_info() { } }",
        ] {
            let start = other.find("p.peer").unwrap();
            let end = start + "p.peer_info()".len();
            assert!(
                if_let_block(other, &other[..start], end).is_none(),
                "{other}"
            );
        }
    }
}
