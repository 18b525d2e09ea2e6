//! The parts of a file the rules can use. Most of a server file is code no rule can fire in:
//! helpers, conversions, tests of other things. Parsing a fn body costs the same whether or not
//! anything in it matters, so before parsing, the bodies of fns that cannot matter are blanked:
//! every character between their braces becomes a space (newlines stay), so every line and
//! column, and so every span, is the same as in the file.
//!
//! A body is kept when it holds a key (a trigger token, or an SDK crate name or the name the
//! package gives one: what any rule or the scope model starts from), or when it mentions a kept fn
//! by name, since the call graph needs every caller of a fn with a finding. Nested fns are judged
//! on their own; a kept body keeps everything inside it.
//!
//! This runs on text, before parsing, with a small lexer that knows comments, strings, raw
//! strings and char literals. A mistake in it cannot lose a finding silently: a key anywhere in a
//! body keeps it, and when the blanked text does not parse, the caller parses the file as it is.

use std::collections::HashMap;
use std::ops::Range;

use aho_corasick::AhoCorasick;

use crate::reading::const_items::{ConstItem, ConstItems};
use crate::reading::lexer::{Lexer, Shapes, Token};
use crate::reading::parse::{DepthGuard, TooDeep};

/// What keeps a body. Only a body with a trigger token can hold a finding, so only those (and
/// their callers, for the call graph) are followed up the calls; a body with context alone (an
/// SDK crate name, as in a nested `use`) is kept for the scope model, but its callers are not.
#[derive(Clone)]
pub struct BodyKeys {
    pub triggers: AhoCorasick,
    /// More trigger tokens, in an automaton of their own (see `Prefilter::new`). Scanned apart,
    /// the two lists keep the same bodies as one scan for both: a match hides another only where
    /// they overlap, and no token holds a brace, so both start inside the same body.
    pub more_triggers: Option<AhoCorasick>,
    /// The rmcp upgrade names worth keeping a body for in this file's package (see
    /// `Prefilter::body_keys`).
    pub upgrade: Option<UpgradeKeys>,
    /// Crate names, matched against the file's identifiers.
    pub context: Vec<&'static str>,
    /// Names that keep a body only in a file whose `use` of an SDK crate names them: rmcp's
    /// `Meta` and `Error` before 3.x, too common to count anywhere else.
    pub imported: &'static [&'static str],
    /// String values that make a `const`/`static` of the file a key: every body naming the
    /// constant is kept as if it held the value (`json!({"method": ROOTS})`).
    pub const_values: &'static [&'static str],
    /// Constants declared in other files of the package with one of those values
    /// (`item_index.rs`): a body naming one is kept the same way.
    pub package_consts: Vec<String>,
}

/// How the rmcp upgrade names keep a body.
#[derive(Clone)]
pub enum UpgradeKeys {
    /// Anywhere in its text, inside a longer name too (a package below rmcp 3.0, or of unknown
    /// version).
    Anywhere(AhoCorasick),
    /// Standing alone (a package on rmcp 3.x, where most old names start a current one:
    /// `Content` of `ContentBlock`): a plain name as one of the body's identifiers, looked up
    /// per identifier the skeleton's lexer listed; a name with punctuation in it (`.raw.`)
    /// through `marked` (`lexer::whole_names_automaton`), its match standing alone.
    Whole {
        names: std::sync::Arc<WholeNames>,
        marked: Option<AhoCorasick>,
    },
}

/// Plain identifiers, looked up by their bytes; [`Shapes`] rules out most identifiers unhashed.
pub struct WholeNames {
    names: std::collections::HashSet<&'static [u8]>,
    shapes: Shapes,
}

impl WholeNames {
    pub fn new(names: &[&'static str]) -> WholeNames {
        WholeNames {
            names: names.iter().map(|n| n.as_bytes()).collect(),
            shapes: Shapes::of(names.iter().map(|n| n.as_bytes())),
        }
    }

    fn contains(&self, ident: &[u8]) -> bool {
        self.shapes.may_be(ident) && self.names.contains(ident)
    }
}

/// One fn body (or an enum's variants): the offsets of its braces, the item's name, and the body
/// it is nested in.
#[derive(Debug)]
struct Body {
    name: Range<usize>,
    open: usize,
    close: usize,
    parent: Option<usize>,
    /// An enum's variants are blanked like a body when they hold no key: no rule reads them
    /// (the scope model takes only the enum's name), and they can be a tenth of a file. Naming
    /// an enum is no call: its name keeps no body, and a kept enum keeps no callers.
    is_fn: bool,
}

/// `text` with the bodies of fns that cannot matter blanked, or `None` when every body matters
/// (or the file has none); `Err` when the text is too deep to parse at all (see
/// [`crate::reading::parse::too_deep`], which this checks on the way).
/// `aliases`: the names the file's package gives an SDK crate (`mcp = { package = "rmcp" }`),
/// context like the crate names themselves.
pub fn skeleton(text: &str, keys: &BodyKeys, aliases: &[&str]) -> Result<Option<String>, TooDeep> {
    read(text, keys, aliases).map(|s| s.blanked)
}

/// What the skeleton pass read of a file: the text with bodies blanked (see [`skeleton`]), and
/// the identifiers of the whole file in order (code only: not in comments or strings), which
/// later passes can take instead of scanning the text again; `None` when the braces do not
/// balance and the pass gave up.
pub struct Skeleton {
    pub blanked: Option<String>,
    pub idents: Option<Vec<Range<usize>>>,
}

/// [`skeleton`], with the identifiers it lexed on the way.
pub fn read(text: &str, keys: &BodyKeys, aliases: &[&str]) -> Result<Skeleton, TooDeep> {
    let bytes = text.as_bytes();
    // Constants are read only where one can hold a key value: most files hold none, and the
    // const reader would otherwise look at every token.
    let read_consts = keys
        .const_values
        .iter()
        .any(|v| memchr::memmem::find(bytes, v.as_bytes()).is_some());
    let Some((bodies, idents, consts)) = fn_bodies(bytes, read_consts)? else {
        return Ok(Skeleton {
            blanked: None,
            idents: None,
        });
    };
    let blanked = blank_bodies(text, keys, aliases, &bodies, &idents, &consts);
    Ok(Skeleton {
        blanked,
        idents: Some(idents),
    })
}

/// The names of [`BodyKeys::imported`] that a `use` of an SDK crate (or of a name the package
/// gives one) names: each `use` statement of the file, to its `;`, is read once.
fn imported_from_an_sdk(
    bytes: &[u8],
    keys: &BodyKeys,
    aliases: &[&str],
    idents: &[Range<usize>],
) -> Vec<&'static str> {
    let mut found: Vec<&'static str> = Vec::new();
    if keys.imported.is_empty() {
        return found;
    }
    for r in idents.iter().filter(|r| &bytes[(*r).clone()] == b"use") {
        let end = memchr::memchr(b';', &bytes[r.end..]).map_or(bytes.len(), |i| r.end + i);
        let words: Vec<&[u8]> = bytes[r.end..end]
            .split(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
            .collect();
        let names_a_crate = words.iter().any(|w| {
            keys.context.iter().any(|c| c.as_bytes() == *w)
                || aliases.iter().any(|a| a.as_bytes() == *w)
        });
        if !names_a_crate {
            continue;
        }
        for name in keys.imported {
            if !found.contains(name) && words.contains(&name.as_bytes()) {
                found.push(name);
            }
        }
    }
    found
}

fn blank_bodies(
    text: &str,
    keys: &BodyKeys,
    aliases: &[&str],
    bodies: &[Body],
    idents: &[Range<usize>],
    consts: &[ConstItem],
) -> Option<String> {
    let bytes = text.as_bytes();
    if bodies.is_empty() {
        return None;
    }
    let mut kept = vec![false; bodies.len()];
    for triggers in std::iter::once(&keys.triggers).chain(&keys.more_triggers) {
        for m in triggers.find_iter(bytes) {
            keep_around(bodies, &mut kept, m.start(), &mut |_| {});
        }
    }
    if let Some(upgrade) = &keys.upgrade {
        keep_upgrade_names(bytes, upgrade, bodies, idents, &mut kept);
    }
    keep_naming_consts(bytes, keys, consts, bodies, idents, &mut kept);
    keep_callers(bytes, bodies, idents, &mut kept);
    let imported = imported_from_an_sdk(bytes, keys, aliases, idents);
    // Every identifier of the file is asked about a dozen names.
    let names = || {
        let context = keys.context.iter().chain(aliases).chain(&imported);
        context.map(|n| n.as_bytes())
    };
    let shapes = Shapes::of(names());
    for r in idents {
        let ident = &bytes[r.clone()];
        if shapes.may_be(ident) && names().any(|n| n == ident) {
            keep_around(bodies, &mut kept, r.start, &mut |_| {});
        }
    }

    let blank: Vec<&Body> = bodies
        .iter()
        .enumerate()
        .filter(|(i, b)| !kept[*i] && b.parent.is_none_or(|p| kept[p]))
        .map(|(_, b)| b)
        .collect();
    if blank.is_empty() {
        return None;
    }
    let mut out: Vec<u8> = Vec::with_capacity(text.len());
    let mut at = 0;
    for b in blank {
        out.extend_from_slice(&bytes[at..=b.open]);
        let inside = &bytes[b.open + 1..b.close];
        let space = |c: u8| if c == b'\n' || c == b'\r' { c } else { b' ' };
        if inside.is_ascii() {
            out.extend(inside.iter().map(|&c| space(c)));
        } else {
            // One space per char, not per byte: spans count chars, so columns after the
            // closing brace on its line stay where they were. Continuation bytes are dropped.
            out.extend(
                inside
                    .iter()
                    .filter(|&&c| !(0x80..0xC0).contains(&c))
                    .map(|&c| space(c)),
            );
        }
        at = b.close;
    }
    out.extend_from_slice(&bytes[at..]);
    // Only whole chars were replaced, by ASCII: still UTF-8.
    String::from_utf8(out).ok()
}

/// Keeps the bodies still to blank that hold one of the upgrade names. Only a body still to
/// blank can change, so only those are looked at (the outermost of them: a nested one is in its
/// parent's text).
fn keep_upgrade_names(
    bytes: &[u8],
    upgrade: &UpgradeKeys,
    bodies: &[Body],
    idents: &[Range<usize>],
    kept: &mut [bool],
) {
    let outermost: Vec<usize> = (0..bodies.len())
        .filter(|&i| !kept[i] && bodies[i].parent.is_none_or(|p| kept[p]))
        .collect();
    // Each body's scan finds the matches a scan of the whole text finds there: no name holds a
    // `{`, so no match of the whole text runs across a body's opening brace, and a scan from just
    // after it takes the same steps; it reads on past the closing brace by the longest name, so
    // a match that starts inside ends where it would.
    let scan = |ac: &AhoCorasick, whole: bool, kept: &mut [bool]| {
        for &i in &outermost {
            let b = &bodies[i];
            let from = b.open + 1;
            let to = (b.close + ac.max_pattern_len()).min(bytes.len());
            let inside = |&start: &usize| start < b.close;
            if whole {
                let found = crate::reading::lexer::standing_alone(ac, bytes, from..to);
                for start in found.map(|(start, _)| start).take_while(inside) {
                    keep_around(bodies, kept, start, &mut |_| {});
                }
            } else {
                let found = ac.find_iter(&bytes[from..to]).map(|m| from + m.start());
                for start in found.take_while(inside) {
                    keep_around(bodies, kept, start, &mut |_| {});
                }
            }
        }
    };
    match upgrade {
        // The names run without SIMD search (there are too many): most of their cost, and why
        // a package on 3.x looks its names up by identifier instead.
        UpgradeKeys::Anywhere(ac) => scan(ac, false, kept),
        UpgradeKeys::Whole { names, marked } => {
            if let Some(marked) = marked {
                scan(marked, true, kept);
            }
            for &i in &outermost {
                let b = &bodies[i];
                let first = idents.partition_point(|r| r.start <= b.open);
                for r in idents[first..].iter().take_while(|r| r.start < b.close) {
                    if names.contains(&bytes[r.clone()]) {
                        keep_around(bodies, kept, r.start, &mut |_| {});
                    }
                }
            }
        }
    }
}

/// Keeps every body that names a constant whose value is one of [`BodyKeys::const_values`] (a
/// string literal of exactly that text), and so the callers of those bodies after it.
fn keep_naming_consts(
    bytes: &[u8],
    keys: &BodyKeys,
    consts: &[ConstItem],
    bodies: &[Body],
    idents: &[Range<usize>],
    kept: &mut [bool],
) {
    let holds_a_key = |v: &[u8]| {
        keys.const_values.iter().any(|k| {
            memchr::memmem::find_iter(v, k.as_bytes())
                .any(|at| at > 0 && v[at - 1] == b'"' && v.get(at + k.len()) == Some(&b'"'))
        })
    };
    let names: Vec<&[u8]> = consts
        .iter()
        .filter(|c| holds_a_key(&bytes[c.value.clone()]))
        .map(|c| &bytes[c.name.clone()])
        .chain(keys.package_consts.iter().map(|c| c.as_bytes()))
        .collect();
    if names.is_empty() {
        return;
    }
    let shapes = Shapes::of(names.iter().copied());
    for r in idents {
        let ident = &bytes[r.clone()];
        if shapes.may_be(ident) && names.contains(&ident) {
            keep_around(bodies, kept, r.start, &mut |_| {});
        }
    }
}

/// Marks the innermost body holding offset `at`, and every body around it; `newly` is told of
/// each body that was not marked before.
fn keep_around(bodies: &[Body], kept: &mut [bool], at: usize, newly: &mut impl FnMut(usize)) {
    let mut inner = innermost(bodies, at);
    while let Some(i) = inner {
        if kept[i] {
            // Its ancestors were marked with it.
            return;
        }
        kept[i] = true;
        newly(i);
        inner = bodies[i].parent;
    }
}

/// The innermost body whose braces enclose `at`. Bodies are in order of their opening brace, so
/// the last one opening before `at` that also closes after it is the innermost.
fn innermost(bodies: &[Body], at: usize) -> Option<usize> {
    let upto = bodies.partition_point(|b| b.open < at);
    let mut i = upto.checked_sub(1)?;
    loop {
        if bodies[i].close > at {
            return Some(i);
        }
        i = bodies[i].parent?;
    }
}

/// Keeps every body that mentions the name of a kept fn, and so on up the calls. `idents` are
/// the identifiers of the file, in order: which bodies mention which fn names is read off them
/// once, so following the calls is linear however long the chain.
fn keep_callers(bytes: &[u8], bodies: &[Body], idents: &[Range<usize>], kept: &mut [bool]) {
    // Keyed by names of the file at hand, for this file only: no need for SipHash's keyed hash.
    let mut ids: HashMap<&[u8], usize, foldhash::fast::RandomState> = HashMap::default();
    for b in bodies.iter().filter(|b| b.is_fn) {
        let n = ids.len();
        ids.entry(&bytes[b.name.clone()]).or_insert(n);
    }
    // For each name: the offsets where it is used.
    let shapes = Shapes::of(ids.keys().copied());
    let mut mentions: Vec<Vec<usize>> = vec![Vec::new(); ids.len()];
    for r in idents {
        let ident = &bytes[r.clone()];
        if !shapes.may_be(ident) {
            continue;
        }
        if let Some(&id) = ids.get(ident) {
            mentions[id].push(r.start);
        }
    }
    let mut followed = vec![false; ids.len()];
    let mut queue: Vec<usize> = (0..bodies.len())
        .filter(|&i| kept[i] && bodies[i].is_fn)
        .collect();
    while let Some(body) = queue.pop() {
        if !bodies[body].is_fn {
            continue;
        }
        let id = ids[&bytes[bodies[body].name.clone()]];
        if std::mem::replace(&mut followed[id], true) {
            continue;
        }
        for &at in &mentions[id] {
            keep_around(bodies, kept, at, &mut |i| queue.push(i));
        }
    }
}

type Bodies = (Vec<Body>, Vec<Range<usize>>, Vec<ConstItem>);

/// Every fn body (and enum's variants) in the file, in order of their opening braces, and every
/// identifier; `None`
/// when the braces do not balance. In the same pass, since it is the same lexing, the depth guard
/// sees every token: `Err` when the file nests or chains too deep to be parsed.
/// `read_consts`: also the file's `const`/`static` items (else none).
fn fn_bodies(bytes: &[u8], read_consts: bool) -> Result<Option<Bodies>, TooDeep> {
    let mut guard = DepthGuard::default();
    let mut idents = Vec::new();
    let mut lexer = Lexer::new(bytes);
    let mut bodies: Vec<Body> = Vec::new();
    // Open braces: the index of the body each opens, if it opens one.
    let mut braces: Vec<Option<usize>> = Vec::new();
    // After `fn name` (or `enum name`): the name, the depth of `(`/`[` inside the signature,
    // and whether it is a fn.
    let mut pending: Option<(Range<usize>, usize, bool)> = None;
    // After `fn` (true) or `enum` (false).
    let mut after: Option<bool> = None;
    let mut consts = ConstItems::default();
    while let Some(tok) = lexer.next() {
        guard.token(&tok, bytes, lexer.start())?;
        if read_consts {
            consts.token(&tok, bytes, lexer.offset(), braces.len());
        }
        match tok {
            Token::Ident(r) => {
                idents.push(r.clone());
                if let Some(is_fn) = after.take() {
                    pending = Some((r, 0, is_fn));
                } else {
                    match &bytes[r] {
                        b"fn" => after = Some(true),
                        b"enum" => after = Some(false),
                        _ => {}
                    }
                }
                continue;
            }
            Token::Punct(b'{') => {
                let body = match pending.take() {
                    Some((name, 0, is_fn)) => {
                        let parent = braces.iter().rev().find_map(|b| *b);
                        bodies.push(Body {
                            name,
                            open: lexer.offset() - 1,
                            close: usize::MAX,
                            parent,
                            is_fn,
                        });
                        Some(bodies.len() - 1)
                    }
                    other => {
                        pending = other;
                        None
                    }
                };
                braces.push(body);
            }
            Token::Punct(b'}') => {
                // A `}` closing a block in the signature (`[u8; { N }]`) leaves it pending.
                if pending.as_ref().is_some_and(|(_, d, _)| *d == 0) {
                    pending = None;
                }
                match braces.pop() {
                    Some(Some(i)) => bodies[i].close = lexer.offset() - 1,
                    Some(None) => {}
                    None => {
                        while let Some(tok) = lexer.next() {
                            guard.token(&tok, bytes, lexer.start())?;
                        }
                        return Ok(None);
                    }
                }
            }
            Token::Punct(b'(' | b'[') => {
                if let Some((_, depth, _)) = &mut pending {
                    *depth += 1;
                }
            }
            Token::Punct(b')' | b']') => {
                if let Some((_, depth, _)) = &mut pending {
                    *depth = depth.saturating_sub(1);
                }
            }
            Token::Punct(b';') if pending.as_ref().is_some_and(|(_, d, _)| *d == 0) => {
                pending = None;
            }
            // Other punctuation, literals; comments do not come from `Lexer::new`.
            _ => {}
        }
        // `fn` not followed by a name is a fn pointer type (`fn(u32) -> u32`).
        after = None;
    }
    // Unbalanced braces: the file does not parse as it is, and no body can be trusted. (Dropping
    // only the unclosed ones would leave `parent` pointing at the wrong bodies.)
    if !braces.is_empty() || bodies.iter().any(|b| b.close == usize::MAX) {
        return Ok(None);
    }
    Ok(Some((bodies, idents, consts.finish())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blank(text: &str, keys: &BodyKeys) -> Option<String> {
        skeleton(text, keys, &[]).expect("not too deep")
    }

    #[test]
    fn upgrade_names_keep_the_bodies_a_scan_of_the_whole_text_keeps() {
        let names = [".size }", "Content", "ContentPart"];
        let text = "fn a() { trigger() }\nfn b() { ContentPart::x() }\nfn c() { s.size }\n\
fn d() { Contents }\nfn e() { let y = 1; }\nfn f() { fn g() { Content::text() } }\n\
fn h() { \"Content\" } // Content\n";
        // Leftmost-first, as the prefilter builds its scanners.
        let scanner = |names: &[&str]| {
            aho_corasick::AhoCorasickBuilder::new()
                .match_kind(aho_corasick::MatchKind::LeftmostFirst)
                .build(names)
                .unwrap()
        };
        let anywhere = UpgradeKeys::Anywhere(scanner(&names));
        let whole = UpgradeKeys::Whole {
            names: std::sync::Arc::new(WholeNames::new(&names[1..])),
            marked: crate::reading::lexer::whole_names_automaton(&names[..1]),
        };
        for (upgrade, is_whole) in [(anywhere, false), (whole, true)] {
            let keys = BodyKeys {
                upgrade: Some(upgrade),
                ..keys(&["trigger"])
            };
            let out = blank(text, &keys).expect("e is blanked");
            // Kept either way: a name standing alone (`ContentPart`, not hidden by `Content`,
            // which starts it), one with punctuation, one in a nested fn.
            for kept in [
                "trigger()",
                "ContentPart::x()",
                "s.size",
                "fn g() { Content::text()",
            ] {
                assert!(out.contains(kept), "{is_whole}: {kept} in {out}");
            }
            assert!(!out.contains("let y"), "{out}");
            // Inside a longer name, or in a string: only a package below 3.0 keeps the body.
            assert_eq!(out.contains("Contents"), !is_whole, "{out}");
            assert_eq!(out.contains("\"Content\""), !is_whole, "{out}");
        }
    }

    #[test]
    fn too_deep_text_is_refused_in_the_same_pass() {
        let deep = format!(
            "fn f() {{ {} }}",
            "(".repeat(crate::reading::parse::MAX_NESTING + 1)
        );
        let err = skeleton(&deep, &keys(&["x"]), &[]).expect_err("too deep");
        assert!(err.what.contains("nesting deeper"), "{}", err.what);
        // The body's `{` is level 1: the run's last allowed `(` is level MAX_NESTING.
        let run = deep.find("{ (").unwrap() + 2;
        assert_eq!(err.at, run + crate::reading::parse::MAX_NESTING - 1);
        assert_eq!(crate::reading::parse::too_deep(&deep), Some(err));
        // Also after a stray `}` has ended the search for bodies.
        let stray = format!(
            "}} {}",
            "return ".repeat(crate::reading::parse::MAX_CHAIN + 1)
        );
        let err = skeleton(&stray, &keys(&["x"]), &[]).expect_err("too long a chain");
        assert!(err.what.contains("chains more than"), "{}", err.what);
        assert_eq!(crate::reading::parse::too_deep(&stray), Some(err));
    }

    fn keys(k: &[&str]) -> BodyKeys {
        BodyKeys {
            triggers: AhoCorasick::new(k).unwrap(),
            more_triggers: None,
            upgrade: None,
            context: vec!["rmcp"],
            imported: &[],
            const_values: &[],
            package_consts: Vec::new(),
        }
    }

    fn positions(text: &str) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for (l, line) in text.lines().enumerate() {
            for (c, ch) in line.chars().enumerate() {
                if !ch.is_whitespace() {
                    out.push((l, c));
                }
            }
        }
        out
    }

    #[test]
    fn trigger_free_bodies_are_blanked_and_positions_kept() {
        let text = "fn helper(x: u32) -> u32 {\n    let s = \"é}{\"; x + 1\n}\nfn handler() { peer.list_roots(); helper(1) }\nfn other() { 'a'; '{'; 2 }\n";
        let out = blank(text, &keys(&["list_roots"])).expect("something blanked");
        // `helper` is called from a kept body, but callees are not kept: only callers are.
        assert!(out.starts_with("fn helper(x: u32) -> u32 {\n"));
        assert!(!out.contains("x + 1"));
        assert!(out.contains("fn handler() { peer.list_roots(); helper(1) }"));
        assert!(out.contains("fn other() {"));
        assert!(!out.contains("'{'"));
        assert_eq!(text.lines().count(), out.lines().count());
        // Every line keeps its length in chars, so spans after a blanked body do not move.
        for (a, b) in text.lines().zip(out.lines()) {
            assert_eq!(a.chars().count(), b.chars().count());
        }
        syn::parse_file(&out).expect("the skeleton parses");
        assert!(positions(&out).iter().all(|p| positions(text).contains(p)));
    }

    #[test]
    fn a_body_naming_a_constant_with_a_key_value_is_kept_with_its_callers() {
        let keys = BodyKeys {
            const_values: &["roots/list"],
            package_consts: Vec::new(),
            ..keys(&["list_roots"])
        };
        let text = "const ROOTS: &str = \"roots/list\";\nconst LIMIT: &str = \"roots/listing\";\n\
fn ask(id: u64) -> Value {\n    json!({\"id\": id, \"method\": ROOTS})\n}\n\
fn start() {\n    send(ask(1))\n}\n\
fn cap() -> &'static str {\n    LIMIT\n}\n";
        let out = blank(text, &keys).expect("cap is blanked");
        assert!(out.contains("\"method\": ROOTS"), "{out}");
        assert!(
            out.contains("send(ask(1))"),
            "a caller of a kept body: {out}"
        );
        assert!(
            !out.contains("    LIMIT"),
            "a constant of another value keeps nothing: {out}"
        );
        // Without the value among the keys, the constant keeps nothing.
        let out = blank(text, &keys_without(&keys)).expect("all blanked");
        assert!(!out.contains("ROOTS})"), "{out}");
    }

    fn keys_without(k: &BodyKeys) -> BodyKeys {
        BodyKeys {
            const_values: &[],
            package_consts: Vec::new(),
            ..k.clone()
        }
    }

    #[test]
    fn a_common_name_keeps_a_body_only_where_a_use_of_an_sdk_names_it() {
        let keys = BodyKeys {
            imported: &["Meta"],
            ..keys(&["list_roots"])
        };
        let body = "fn m() -> Meta {\n    Meta(map())\n}\nfn o() { 1 }\n";
        for from_rmcp in [
            format!("use rmcp::model::{{Tool, Meta}};\n{body}"),
            format!("use rmcp::{{model::{{Tool}}, model::Meta}};\n{body}"),
        ] {
            let out = blank(&from_rmcp, &keys).expect("o is blanked");
            assert!(out.contains("    Meta(map())"), "{out}");
        }
        // Another crate's `Meta`, or rmcp's under a glob, keeps nothing.
        for other in [
            format!("use serde_meta::Meta;\n{body}"),
            format!("use rmcp::model::*;\n{body}"),
        ] {
            let out = blank(&other, &keys).expect("bodies blanked");
            assert!(!out.contains("Meta(map())"), "{out}");
        }
    }

    #[test]
    fn enum_variants_are_blanked_unless_they_hold_a_key_and_name_no_callers() {
        let text = "enum Plain<T> where T: Copy {\n    A { id: u64 },\n    B(T),\n}\nenum Keyed {\n    Ask(ListRootsRequest),\n}\nfn uses() { Keyed::Ask(x); Plain::B(1) }\nfn other() { peer.list_roots() }\n";
        let out = blank(text, &keys(&["list_roots", "ListRootsRequest"])).expect("blanked");
        syn::parse_file(&out).expect("the skeleton parses");
        assert!(out.starts_with("enum Plain<T> where T: Copy {\n"), "{out}");
        assert!(!out.contains("A { id: u64 }"), "{out}");
        assert!(
            out.contains("    Ask(ListRootsRequest),"),
            "a key keeps the variants: {out}"
        );
        // Naming a kept enum is no call: `uses` is blanked.
        assert!(!out.contains("Keyed::Ask(x)"), "{out}");
        assert!(out.contains("fn other() { peer.list_roots() }"));
        for (a, b) in text.lines().zip(out.lines()) {
            assert_eq!(a.chars().count(), b.chars().count());
        }
        // Inside a kept fn, an enum is judged on its own, like a nested fn.
        let text = "fn f() {\n    enum E { X, Y }\n    peer.list_roots();\n}\n";
        let out = blank(text, &keys(&["list_roots"])).expect("E is blanked");
        assert!(!out.contains("X, Y"), "{out}");
        assert!(out.contains("peer.list_roots();"));
    }

    #[test]
    fn callers_of_kept_fns_are_kept_transitively() {
        let text = "fn a() { b() }\nfn b() { c() }\nfn c() { peer.list_roots() }\nfn d() { 1 }\n";
        let out = blank(text, &keys(&["list_roots"])).expect("d is blanked");
        assert!(out.contains("fn a() { b() }"));
        assert!(out.contains("fn b() { c() }"));
        assert!(!out.contains("{ 1 }"));
        // A name inside a longer identifier is no mention.
        let text = "fn c() { peer.list_roots() }\nfn e() { cc() }\n";
        let out = blank(text, &keys(&["list_roots"])).unwrap();
        assert!(!out.contains("cc()"));
    }

    #[test]
    fn nested_fns_are_judged_on_their_own_and_kept_bodies_keep_everything() {
        let text = "fn outer() {\n    fn inner() { 1 }\n    peer.list_roots();\n}\nfn plain() {\n    fn deep() { peer.list_roots() }\n}\n";
        let out = blank(text, &keys(&["list_roots"])).expect("inner is blanked");
        assert!(
            !out.contains("{ 1 }"),
            "inner is blanked inside a kept body"
        );
        assert!(out.contains("fn deep() { peer.list_roots() }"));
        assert!(out.contains("fn plain() {"));
    }

    #[test]
    fn strings_comments_raw_strings_and_signatures_do_not_confuse_it() {
        let text = r####"
fn a() -> [u8; { 3 }] { let s = r#"}"#; let b = b'}'; /* } /* { */ */ // }
    let c = br##"{"##; let r#fn = 1; 0 }
fn b(f: fn(u32) -> u32) -> impl Fn() { move || () }
trait T { fn decl(&self); fn default(&self) { () } }
extern "C" { fn ext(); }
fn lifetimes<'a>(x: &'a str) -> &'a str { 'outer: loop { break 'outer; } x }
"####;
        let out = blank(text, &keys(&["nothing-matches"])).expect("bodies blanked");
        syn::parse_file(&out).expect("the skeleton parses");
        assert!(!out.contains("r#\"}\"#"));
        assert!(!out.contains("move"));
        assert!(!out.contains("'outer"));
        assert!(out.contains("fn decl(&self);"));
        assert!(out.contains("fn ext();"));
        assert!(out.contains("fn a() -> [u8; { 3 }] {"));
    }

    #[test]
    fn context_keeps_a_body_but_not_its_callers() {
        let text = "fn a() { b() }\nfn b() { use rmcp::Peer; }\n";
        let out = blank(text, &keys(&["list_roots"])).expect("a is blanked");
        assert!(out.contains("fn b() { use rmcp::Peer; }"));
        assert!(!out.contains("b() }\nfn b"));
    }

    #[test]
    fn a_renamed_sdk_crate_is_context_too() {
        let text = "fn a() { 1 }\nfn b() { use mcp::Peer; }\n";
        let plain = blank(text, &keys(&["list_roots"])).expect("blanked");
        assert!(
            !plain.contains("use mcp::Peer"),
            "not context without the rename"
        );
        let renamed = skeleton(text, &keys(&["list_roots"]), &["mcp"])
            .expect("not too deep")
            .expect("a is blanked");
        assert!(renamed.contains("fn b() { use mcp::Peer; }"));
        assert!(!renamed.contains("1"));
    }

    #[test]
    fn nothing_to_blank_gives_none() {
        assert!(blank("struct S;", &keys(&["x"])).is_none());
        assert!(blank("fn f() { peer.list_roots() }", &keys(&["list_roots"])).is_none());
        // Unbalanced: nothing is blanked.
        assert!(blank("fn f() { 1", &keys(&["x"])).is_none());
        assert!(blank("fn f() { 1 } fn g() { fn h() { 2 }", &keys(&["x"])).is_none());
        assert!(blank("fn f() { 1 } }", &keys(&["x"])).is_none());
    }
}
