//! After the fixes of a file, the imports they made unused go: a `use` leaf whose name the file
//! used before the fix and no longer uses after it (`Peer`, `RoleServer`, `RequestContext` once a
//! handler asks through `mrtr`). `cargo check` then shows no `unused_imports` the fix caused.
//!
//! The fix answers only for what it removed, so it leaves alone an import that was unused
//! already, a glob, a trait imported `as _` (used through methods, which no name shows), a `self`
//! leaf, a `pub use` (a re-export others may use), and every import of a file that declares an
//! out-of-line module (`mod x;`: that file may reach the import through `use super::*`).
//!
//! A use item left with some of its leaves is written on one line when it was one line and still
//! fits; otherwise rustfmt formats it when it is installed, in the package's edition (whose style
//! orders imports), as `cargo fmt` would.
//!
//! This is `--fix`'s cleanup after all the fixes of a file, not an edit of any one fix: a report's
//! per-finding edits (JSON, rustc JSON, the editor's actions) may be applied one at a time, and
//! then an import is still used by the findings not fixed yet.

use std::collections::HashSet;

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Item, UseTree, Visibility};

use crate::fix::rmcp::text::count_in;
use crate::reading::source::LineIndex;

/// The line width rustfmt keeps to by default.
const MAX_WIDTH: usize = 100;

/// The fixed text without the imports the fix made unused, or `None` when none did.
/// `edition`: the package's (`2021`, `2024`), for rustfmt.
pub fn prune(original: &str, fixed: &str, edition: &str) -> Option<String> {
    let fixed_file = syn::parse_file(fixed).ok()?;
    let original_file = syn::parse_file(original).ok()?;
    if declares_outline_module(&fixed_file.items) {
        return None;
    }
    let fixed_idx = LineIndex::new(fixed);
    let original_idx = LineIndex::new(original);
    let mut fixed_uses = Vec::new();
    private_uses(&fixed_file.items, &mut fixed_uses);
    let mut original_uses = Vec::new();
    private_uses(&original_file.items, &mut original_uses);
    let fixed_code = without(fixed, &fixed_idx, &fixed_uses);
    let original_code = without(original, &original_idx, &original_uses);

    let mut gone: HashSet<String> = HashSet::new();
    for item in &fixed_uses {
        for name in crate::model::scope::use_names(&item.tree) {
            if count_in(&fixed_code, &name) == 0 && count_in(&original_code, &name) > 0 {
                gone.insert(name);
            }
        }
    }
    if gone.is_empty() {
        return None;
    }
    // Rewrite from the end, so earlier offsets stay valid.
    let mut out = fixed.to_string();
    for item in fixed_uses.iter().rev() {
        let (start, end) = range(&fixed_idx, item.span());
        let kept = match kept_tree(&item.tree, &gone) {
            Kept::All => continue,
            Kept::None => {
                let (start, end) = whole_lines(fixed, start, end);
                out.replace_range(start..end, "");
                continue;
            }
            Kept::Some(tree) => tree,
        };
        let use_at = range(&fixed_idx, item.use_token.span).0;
        let head = &fixed[start..use_at];
        let item_text = format!("{head}use {}{kept};", leading_colon(item));
        let indent = indentation(fixed, start);
        let was_one_line = !fixed[start..end].contains('\n');
        let text = if was_one_line && indent.len() + item_text.len() <= MAX_WIDTH {
            item_text
        } else {
            rustfmt(&item_text, indent, edition).unwrap_or(item_text)
        };
        out.replace_range(start..end, &text);
    }
    Some(out)
}

fn leading_colon(item: &syn::ItemUse) -> &'static str {
    if item.leading_colon.is_some() {
        "::"
    } else {
        ""
    }
}

/// Whether any module of `items`, at any depth, is declared without a body (`mod x;`).
fn declares_outline_module(items: &[Item]) -> bool {
    items.iter().any(|item| match item {
        Item::Mod(m) => match &m.content {
            None => true,
            Some((_, inner)) => declares_outline_module(inner),
        },
        _ => false,
    })
}

/// The private `use` items of the file and of its inline modules.
fn private_uses<'a>(items: &'a [Item], out: &mut Vec<&'a syn::ItemUse>) {
    for item in items {
        match item {
            Item::Use(u) if matches!(u.vis, Visibility::Inherited) => out.push(u),
            Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    private_uses(inner, out);
                }
            }
            _ => {}
        }
    }
}

fn range(idx: &LineIndex, span: Span) -> (usize, usize) {
    let (s, e) = (span.start(), span.end());
    (idx.offset(s.line, s.column), idx.offset(e.line, e.column))
}

/// `text` with the use items blanked (newlines kept), so the names they import are not counted as
/// uses of themselves.
fn without(text: &str, idx: &LineIndex, uses: &[&syn::ItemUse]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for item in uses {
        let (start, end) = range(idx, item.span());
        for b in &mut bytes[start..end] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    }
    // Only whole items were blanked, at char boundaries, with ASCII spaces.
    String::from_utf8(bytes).unwrap_or_default()
}

enum Kept {
    All,
    None,
    /// What is left, written out.
    Some(String),
}

fn kept_tree(tree: &UseTree, gone: &HashSet<String>) -> Kept {
    match tree {
        UseTree::Path(p) => match kept_tree(&p.tree, gone) {
            Kept::Some(rest) => Kept::Some(format!("{}::{rest}", p.ident)),
            other => other,
        },
        UseTree::Name(n) if gone.contains(&n.ident.to_string()) => Kept::None,
        UseTree::Rename(r) if gone.contains(&r.rename.to_string()) => Kept::None,
        UseTree::Group(g) => {
            let mut texts = Vec::new();
            let mut changed = false;
            for t in &g.items {
                match kept_tree(t, gone) {
                    Kept::All => texts.push(written(t)),
                    Kept::None => changed = true,
                    Kept::Some(s) => {
                        changed = true;
                        texts.push(s);
                    }
                }
            }
            match (changed, texts.len()) {
                (false, _) => Kept::All,
                (true, 0) => Kept::None,
                (true, 1) => Kept::Some(texts.remove(0)),
                (true, _) => Kept::Some(format!("{{{}}}", texts.join(", "))),
            }
        }
        _ => Kept::All,
    }
}

/// A use tree written out on one line, as rustfmt writes a short one.
fn written(tree: &UseTree) -> String {
    match tree {
        UseTree::Path(p) => format!("{}::{}", p.ident, written(&p.tree)),
        UseTree::Name(n) => n.ident.to_string(),
        UseTree::Rename(r) => format!("{} as {}", r.ident, r.rename),
        UseTree::Glob(_) => "*".to_string(),
        UseTree::Group(g) => {
            let items: Vec<String> = g.items.iter().map(written).collect();
            format!("{{{}}}", items.join(", "))
        }
    }
}

/// The whitespace before `at` on its line.
fn indentation(text: &str, at: usize) -> &str {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let before = &text[line_start..at];
    if before.trim().is_empty() {
        before
    } else {
        ""
    }
}

/// `[start, end)` grown to whole lines when the item stands alone on them (its line terminator
/// included), so removing it leaves no blank line behind.
fn whole_lines(text: &str, start: usize, end: usize) -> (usize, usize) {
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[end..].find('\n').map_or(text.len(), |i| end + i + 1);
    let alone = text[line_start..start].trim().is_empty() && text[end..line_end].trim().is_empty();
    if alone {
        (line_start, line_end)
    } else {
        (start, end)
    }
}

/// `item` formatted by rustfmt, its lines after the first indented by `indent`; `None` when
/// rustfmt is not installed or refuses it.
fn rustfmt(item: &str, indent: &str, edition: &str) -> Option<String> {
    let text = crate::fix::format::rustfmt(item, edition, None)?;
    let lines: Vec<&str> = text.trim_end().lines().collect();
    let mut formatted = String::new();
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            formatted.push('\n');
            if !line.is_empty() {
                formatted.push_str(indent);
            }
        }
        formatted.push_str(line);
    }
    Some(formatted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_leaf_the_fix_made_unused_goes_and_the_rest_stays_on_its_line() {
        let original = "use rmcp::{Peer, RoleServer, model::X};\n\
                        fn f(p: Peer<RoleServer>) -> X { p.x() }\n";
        let fixed =
            "use rmcp::{Peer, RoleServer, model::X};\nfn f(m: &mrtr::Mrtr) -> X { m.x() }\n";
        assert_eq!(
            prune(original, fixed, "2021").unwrap(),
            "use rmcp::model::X;\nfn f(m: &mrtr::Mrtr) -> X { m.x() }\n"
        );
    }

    #[test]
    fn a_use_item_left_empty_goes_with_its_line() {
        let original = "use a::Peer;\nuse b::C;\nfn f(_: Peer, _: C) {}\n";
        let fixed = "use a::Peer;\nuse b::C;\nfn f(_: C) {}\n";
        assert_eq!(
            prune(original, fixed, "2021").unwrap(),
            "use b::C;\nfn f(_: C) {}\n"
        );
    }

    #[test]
    fn imports_unused_before_the_fix_globs_traits_and_reexports_stay() {
        // `Unused` was unused already; `*`, `as _` and `pub use` cannot be judged by name.
        let original = "use a::{Unused, Peer};\nuse b::*;\nuse c::Ext as _;\npub use d::Peer2;\n\
                        fn f(_: Peer, _: Peer2) { x.ext() }\n";
        let fixed = "use a::{Unused, Peer};\nuse b::*;\nuse c::Ext as _;\npub use d::Peer2;\n\
                     fn f() {}\n";
        assert_eq!(
            prune(original, fixed, "2021").unwrap(),
            "use a::Unused;\nuse b::*;\nuse c::Ext as _;\npub use d::Peer2;\nfn f() {}\n"
        );
    }

    #[test]
    fn a_name_still_used_anywhere_but_in_strings_and_comments_stays() {
        let original = "use a::Peer;\nfn f(_: Peer) {}\nfn g(_: Peer) {}\n";
        let fixed = "use a::Peer;\nfn f() {}\nfn g(_: Peer) {}\n";
        assert_eq!(prune(original, fixed, "2021"), None);
        let only_in_a_string = "use a::Peer;\nfn f() { let _ = \"Peer\"; } // Peer\n";
        assert_eq!(
            prune(original, only_in_a_string, "2021").unwrap(),
            "fn f() { let _ = \"Peer\"; } // Peer\n"
        );
    }

    #[test]
    fn a_file_with_an_outline_module_keeps_its_imports() {
        // `mod child;` may read `Peer` through `use super::*`.
        let original = "mod child;\nuse a::Peer;\nfn f(_: Peer) {}\n";
        let fixed = "mod child;\nuse a::Peer;\nfn f() {}\n";
        assert_eq!(prune(original, fixed, "2021"), None);
    }

    #[test]
    fn imports_of_inline_modules_are_pruned_in_place() {
        let original = "mod m {\n    use a::{Peer, C};\n    fn f(_: Peer, _: C) {}\n}\n";
        let fixed = "mod m {\n    use a::{Peer, C};\n    fn f(_: C) {}\n}\n";
        assert_eq!(
            prune(original, fixed, "2021").unwrap(),
            "mod m {\n    use a::C;\n    fn f(_: C) {}\n}\n"
        );
    }

    #[test]
    fn a_multi_line_group_is_formatted_again() {
        let original = "use rmcp::{\n    model::{A, B},\n    service::RequestContext,\n    Peer, RoleServer,\n};\n\
                        fn f(_: A, _: B, _: RequestContext, _: Peer, _: RoleServer) {}\n";
        let fixed = "use rmcp::{\n    model::{A, B},\n    service::RequestContext,\n    Peer, RoleServer,\n};\n\
                     fn f(_: A, _: B) {}\n";
        let pruned = prune(original, fixed, "2021").unwrap();
        // rustfmt when installed; the one-line form otherwise: either way the leaves are gone.
        assert!(pruned.starts_with("use rmcp::model::{A, B};\n"), "{pruned}");
    }
}
