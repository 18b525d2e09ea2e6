//! Dropping an argument rmcp's attribute macro no longer takes (`Kind::MacroArg`):
//! `#[tool(description = "..", execution(task_support = "optional"), annotations(..))]` loses
//! `execution(..)` with one of its commas. The attribute's arguments are parsed as the macro
//! reads them (a comma-separated list of metas), so the argument is found by its name however
//! it is written (a list, `name = value`, or a bare flag).

use syn::punctuated::Punctuated;
use syn::visit::Visit;

use crate::finding::{Applicability, Edit, Fix};
use crate::model::sdk::rmcp_upgrade::{changes_named, Kind};
use crate::reading::source::LineIndex;

type Metas = Punctuated<syn::Meta, syn::Token![,]>;

/// The fix for the finding on the argument named at `at` (`text` its name), if it is one of a
/// `Kind::MacroArg` row and stands in an attribute of `file`.
pub fn dropped_arg(idx: &LineIndex, file: &syn::File, at: usize, text: &str) -> Option<Fix> {
    let change = changes_named(text).find(|c| matches!(c.kind, Kind::MacroArg { .. }))?;
    let mut find = FindArg {
        idx,
        at,
        edit: None,
    };
    find.visit_file(file);
    Some(Fix {
        applicability: Applicability::Unsafe,
        message: format!("drop `{}(..)`", change.old),
        edits: vec![find.edit?],
        other_files: Vec::new(),
    })
}

struct FindArg<'a> {
    idx: &'a LineIndex<'a>,
    at: usize,
    edit: Option<Edit>,
}

impl<'ast> Visit<'ast> for FindArg<'_> {
    fn visit_attribute(&mut self, attr: &'ast syn::Attribute) {
        if self.edit.is_some() {
            return;
        }
        let range = self.idx.range(syn::spanned::Spanned::span(attr));
        if !(range.start..range.end).contains(&self.at) {
            return;
        }
        let Ok(args) = attr.parse_args_with(Metas::parse_terminated) else {
            return;
        };
        let start = |m: &syn::Meta| self.idx.range(syn::spanned::Spanned::span(m)).start;
        let end = |m: &syn::Meta| {
            crate::fix::rmcp::text::range_of(m, self.idx).map_or(start(m), |(_, e)| e)
        };
        let metas: Vec<&syn::Meta> = args.iter().collect();
        let Some(i) = metas.iter().position(|m| {
            m.path()
                .get_ident()
                .is_some_and(|id| self.idx.range(id.span()).start == self.at)
        }) else {
            return;
        };
        // With the comma after it (up to the next argument), or, the last, the one before it
        // (a trailing comma after it stays). The only argument leaves `#[tool()]`, which the
        // macro reads as no arguments.
        let (from, to) = if i + 1 < metas.len() {
            (start(metas[i]), start(metas[i + 1]))
        } else if i > 0 {
            (end(metas[i - 1]), end(metas[i]))
        } else {
            (start(metas[i]), end(metas[i]))
        };
        self.edit = Some(self.idx.edit(from, to, String::new()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dropped(src: &str) -> Option<String> {
        let file = syn::parse_file(src).unwrap();
        let idx = LineIndex::new(src);
        let at = src.find("execution")?;
        let fix = dropped_arg(&idx, &file, at, "execution")?;
        let mut out = src.to_string();
        let e = &fix.edits[0];
        out.replace_range(e.start..e.end, &e.replacement);
        syn::parse_file(&out).expect("the fixed text parses");
        Some(out)
    }

    #[test]
    fn the_argument_goes_with_one_comma_wherever_it_stands() {
        let middle = "impl S {\n    #[tool(\n        description = \"d\",\n        execution(task_support = \"optional\"),\n        annotations(read_only_hint = true),\n    )]\n    async fn f(&self) {}\n}\n";
        assert_eq!(
            dropped(middle).unwrap(),
            "impl S {\n    #[tool(\n        description = \"d\",\n        annotations(read_only_hint = true),\n    )]\n    async fn f(&self) {}\n}\n"
        );
        let last = "#[tool(description = \"d\", execution(task_support = \"required\"))]\nasync fn f() {}\n";
        assert_eq!(
            dropped(last).unwrap(),
            "#[tool(description = \"d\")]\nasync fn f() {}\n"
        );
        let first = "#[tool(execution(task_support = \"optional\"), description = \"d\")]\nasync fn f() {}\n";
        assert_eq!(
            dropped(first).unwrap(),
            "#[tool(description = \"d\")]\nasync fn f() {}\n"
        );
    }

    #[test]
    fn a_name_that_is_not_an_argument_of_an_attribute_is_left() {
        assert_eq!(dropped("fn f() { let execution = 1; }\n"), None);
        assert_eq!(
            dropped("#[tool(description = \"the execution of it\")]\nfn f() {}\n"),
            None
        );
    }
}
