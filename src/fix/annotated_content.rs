//! The fix for a content value built with the gone `Annotated<T>` wrapper's builders
//! (`Kind::AnnotationMethod`): since rmcp 2.0 a content block is an enum, so
//!
//! ```text
//! Content::text(output).with_audience(vec![Role::Assistant])
//!   -> rmcp::model::ContentBlock::Text(rmcp::model::TextContent::new(output)
//!          .with_annotations(rmcp::model::Annotations::default().with_audience(vec![Role::Assistant])))
//! ```
//!
//! The builders keep their order and arguments; they are `Annotations`' own methods on 3.x. The
//! paths are written in full, so no import changes.

use crate::finding::{Applicability, Fix};
use crate::model::sdk::annotated_content::chain;
use crate::reading::source::LineIndex;

/// The fix of the finding on the builder named at `at`, when it ends a chain the rows know.
pub fn plan(idx: &LineIndex, file: &syn::File, at: usize) -> Option<Fix> {
    let found = super::find_expr::find(
        file,
        &|e| matches!(e, syn::Expr::MethodCall(mc) if idx.range(mc.method.span()).start == at),
    );
    let Some(syn::Expr::MethodCall(call)) = found else {
        return None;
    };
    let found = chain(&call)?;
    let text = |a: &syn::Expr| super::upgrade::expr_text(idx, a);
    let args: Vec<String> = found
        .constructor
        .args
        .iter()
        .map(text)
        .collect::<Option<_>>()?;
    let mut annotations = String::new();
    for (_, builder) in &found.builders {
        let args: Vec<String> = builder.args.iter().map(text).collect::<Option<_>>()?;
        annotations.push_str(&format!(".{}({})", builder.method, args.join(", ")));
    }
    let root = super::upgrade::rmcp_root(file).unwrap_or_else(|| "rmcp".into());
    let (variant, typed) = found.variant;
    let replacement = format!(
        "{root}::model::ContentBlock::{variant}({root}::model::{typed}::new({}).with_annotations({root}::model::Annotations::default(){annotations}))",
        args.join(", ")
    );
    let (s, e) = crate::fix::rmcp::text::range_of(&call, idx)?;
    Some(Fix {
        applicability: Applicability::Unsafe,
        message: format!("build the `{typed}` and set its annotations"),
        edits: vec![idx.edit(s, e, replacement)],
        other_files: Vec::new(),
    })
}
