//! A content value built with the builders of the gone `Annotated<T>` wrapper
//! (`Content::text(x).with_audience(vec![Role::User])`, rmcp below 2.0): the chain the rule
//! reports and the fix rewrites, read off the `Kind::AnnotationMethod` rows.

use super::rmcp_upgrade::{annotation_builders, Change, Kind};

/// The chain a reported call ends: the content constructor's call at its bottom (`Content::text`
/// with its arguments), its row, and the builder calls above it in source order.
pub struct AnnotatedChain<'e> {
    pub constructor: &'e syn::ExprCall,
    /// The variant and the typed content it holds (`Text`, `TextContent`).
    pub variant: (&'static str, &'static str),
    pub builders: Vec<(&'static Change, &'e syn::ExprMethodCall)>,
}

fn annotation_change(method: &syn::Ident) -> Option<&'static Change> {
    annotation_builders()
        .iter()
        .copied()
        .find(|c| method == c.old)
}

/// The chain `call` ends, when `call` is an annotation builder whose receiver is, through more of
/// them, a call of a content constructor under a `Content`/`ContentBlock` path. None otherwise
/// (a builder on a variable, or `Annotations::default().with_audience(..)` on 3.x).
pub fn chain(call: &syn::ExprMethodCall) -> Option<AnnotatedChain<'_>> {
    let mut builders = Vec::new();
    let mut at = call;
    let constructor = loop {
        builders.push((annotation_change(&at.method)?, at));
        match &*at.receiver {
            syn::Expr::MethodCall(inner) => at = inner,
            syn::Expr::Call(c) => break c,
            _ => return None,
        }
    };
    let syn::Expr::Path(p) = &*constructor.func else {
        return None;
    };
    let mut segments = p.path.segments.iter().rev();
    let (name, ty) = (&segments.next()?.ident, &segments.next()?.ident);
    if !crate::reading::ident_is_one_of(ty, &["Content", "ContentBlock"]) {
        return None;
    }
    let Kind::AnnotationMethod {
        constructors,
        typed,
    } = builders[0].0.kind
    else {
        return None;
    };
    let i = constructors.iter().position(|c| name == c)?;
    builders.reverse();
    Some(AnnotatedChain {
        constructor,
        variant: typed[i],
        builders,
    })
}
