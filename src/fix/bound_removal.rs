//! Dropping a bound on a trait that is gone (`fn no_ann<T: AnnotateAble>(raw: T) -> T`).
//!
//! A trait rmcp removed with nothing in its place (`Kind::DropImport`) cannot stay as a bound:
//! the code does not compile on the new release with it, and its methods have gone with it (each
//! call of one is its own finding). The bound goes, with its `+`, or with its `:` when it was the
//! only one; a `where` predicate left with no bound goes whole, and so does a `where` clause left
//! with no predicate. Once nothing names the trait, its import goes on the next pass.
//!
//! A bound that cannot go without a type in its place (`impl AnnotateAble` as a parameter's
//! type, `dyn AnnotateAble`) gets no edit here: the finding keeps its guidance.

use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::visit::Visit;

use crate::finding::Edit;
use crate::reading::source::LineIndex;

/// The edit that drops the trait bound whose last path segment starts at `at`, if `file` has
/// one there in a generic parameter list or a `where` clause.
pub fn bound_removal(idx: &LineIndex, file: &syn::File, at: usize) -> Option<Edit> {
    let mut find = FindBound {
        idx,
        at,
        edit: None,
    };
    find.visit_file(file);
    find.edit
}

type Bounds = Punctuated<syn::TypeParamBound, syn::Token![+]>;

struct FindBound<'a> {
    idx: &'a LineIndex<'a>,
    at: usize,
    edit: Option<Edit>,
}

impl<'ast> Visit<'ast> for FindBound<'_> {
    fn visit_generics(&mut self, generics: &'ast syn::Generics) {
        if self.edit.is_some() {
            return;
        }
        for param in generics.type_params() {
            if let Some(i) = self.position(&param.bounds) {
                let (from, to) = match self.among_others(&param.bounds, i) {
                    Some(range) => range,
                    // `T: Gone` (or `T: Gone = D`): the `:` goes with the only bound.
                    None => (
                        self.idx.range(param.ident.span()).end,
                        self.end_of(&param.bounds[i]),
                    ),
                };
                self.edit = Some(self.idx.edit(from, to, String::new()));
                return;
            }
        }
        if let Some(clause) = &generics.where_clause {
            self.in_where(clause);
        }
        if self.edit.is_none() {
            syn::visit::visit_generics(self, generics);
        }
    }
}

impl FindBound<'_> {
    fn position(&self, bounds: &Bounds) -> Option<usize> {
        bounds.iter().position(|b| match b {
            syn::TypeParamBound::Trait(t) => t
                .path
                .segments
                .last()
                .is_some_and(|s| self.idx.range(s.ident.span()).start == self.at),
            _ => false,
        })
    }

    fn start_of(&self, node: &impl Spanned) -> usize {
        self.idx.range(node.span()).start
    }

    fn end_of(&self, node: &impl quote::ToTokens) -> usize {
        crate::fix::rmcp::text::range_of(node, self.idx).map_or(self.at, |(_, e)| e)
    }

    /// The range that drops bound `i` of several with one `+`: up to the next bound, or from the
    /// end of the previous one for the last. None when it is the only bound.
    fn among_others(&self, bounds: &Bounds, i: usize) -> Option<(usize, usize)> {
        if bounds.len() < 2 {
            return None;
        }
        Some(if i + 1 < bounds.len() {
            (self.start_of(&bounds[i]), self.start_of(&bounds[i + 1]))
        } else {
            (self.end_of(&bounds[i - 1]), self.end_of(&bounds[i]))
        })
    }

    fn in_where(&mut self, clause: &syn::WhereClause) {
        let preds: Vec<_> = clause.predicates.pairs().collect();
        for (p, pair) in preds.iter().enumerate() {
            let syn::WherePredicate::Type(pred) = pair.value() else {
                continue;
            };
            let Some(i) = self.position(&pred.bounds) else {
                continue;
            };
            let range = match self.among_others(&pred.bounds, i) {
                Some(range) => range,
                // The predicate's only bound: the predicate goes, and the clause if it was its
                // only one (from the end of what stands before `where`, so no blank is left).
                None if preds.len() == 1 => {
                    let start = self.start_of(&clause.where_token);
                    let text = self.idx.text();
                    let from = text[..start].trim_end().len();
                    (from, self.end_of(clause))
                }
                None if p + 1 < preds.len() => (
                    self.start_of(*pair.value()),
                    self.start_of(*preds[p + 1].value()),
                ),
                None => (self.end_of(*preds[p - 1].value()), self.end_of(clause)),
            };
            self.edit = Some(self.idx.edit(range.0, range.1, String::new()));
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text after dropping the bound named `Gone` at its `nth` occurrence.
    fn dropped(src: &str, nth: usize) -> Option<String> {
        let file = syn::parse_file(src).unwrap();
        let idx = LineIndex::new(src);
        let at = src.match_indices("Gone").nth(nth)?.0;
        let edit = bound_removal(&idx, &file, at)?;
        let mut out = src.to_string();
        out.replace_range(edit.start..edit.end, &edit.replacement);
        syn::parse_file(&out).expect("the fixed text parses");
        Some(out)
    }

    #[test]
    fn the_only_bound_of_a_parameter_goes_with_its_colon() {
        assert_eq!(
            dropped("fn f<T: Gone>(x: T) -> T { x }", 0).unwrap(),
            "fn f<T>(x: T) -> T { x }"
        );
    }

    #[test]
    fn one_bound_of_several_goes_with_one_plus() {
        assert_eq!(
            dropped("fn f<T: Clone + Gone + Send>(x: T) {}", 0).unwrap(),
            "fn f<T: Clone + Send>(x: T) {}"
        );
        assert_eq!(
            dropped("fn f<T: Clone + Gone>(x: T) {}", 0).unwrap(),
            "fn f<T: Clone>(x: T) {}"
        );
        assert_eq!(
            dropped("fn f<T: Gone + Clone>(x: T) {}", 0).unwrap(),
            "fn f<T: Clone>(x: T) {}"
        );
    }

    #[test]
    fn a_where_predicate_left_empty_goes_and_so_does_an_empty_clause() {
        assert_eq!(
            dropped("fn f<T>(x: T)\nwhere\n    T: Gone,\n{}", 0).unwrap(),
            "fn f<T>(x: T)\n{}"
        );
        assert_eq!(
            dropped("fn f<T, U>(x: T) where T: Gone, U: Clone {}", 0).unwrap(),
            "fn f<T, U>(x: T) where U: Clone {}"
        );
        assert_eq!(
            dropped("fn f<T, U>(x: T) where U: Clone, T: Gone {}", 0).unwrap(),
            "fn f<T, U>(x: T) where U: Clone {}"
        );
        assert_eq!(
            dropped("impl<T> S<T> where T: Gone + Clone {}", 0).unwrap(),
            "impl<T> S<T> where T: Clone {}"
        );
    }

    #[test]
    fn a_bound_of_a_path_and_in_an_impl_block_goes_too() {
        assert_eq!(
            dropped("impl<T: rmcp::model::Gone> S<T> {}", 0).unwrap(),
            "impl<T> S<T> {}"
        );
        assert_eq!(
            dropped("struct S<T: Gone = u8>(T);", 0).unwrap(),
            "struct S<T = u8>(T);"
        );
    }

    #[test]
    fn a_bound_that_needs_a_type_in_its_place_is_left() {
        assert_eq!(dropped("fn f(x: impl Gone) {}", 0), None);
        assert_eq!(dropped("fn f(x: &dyn Gone) {}", 0), None);
        // Not a bound at all: a path in a body.
        assert_eq!(dropped("fn f() { Gone::new(); }", 0), None);
    }
}
