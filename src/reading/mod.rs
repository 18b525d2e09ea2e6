//! Reading: from a file's bytes to a syntax tree. Nothing here knows about MCP; the stages above
//! hand in what matters (trigger tokens, crate names).

pub mod const_items;
pub mod discover;
pub mod lexer;
pub mod macro_body;
pub mod name;
pub mod parse;
pub mod skeleton;
pub mod source;

/// Whether `ident` is one of `names`, compared in place: every call and method of every walked
/// body is asked this, and making each name's `String` first was most of the cost.
pub fn ident_is_one_of(ident: &proc_macro2::Ident, names: &[&str]) -> bool {
    names.iter().any(|n| ident == n)
}

/// The names a pattern binds.
pub fn pat_names(p: &syn::Pat) -> Vec<String> {
    let mut out = Vec::new();
    collect_pat(p, &mut out);
    out
}

fn collect_pat(p: &syn::Pat, out: &mut Vec<String>) {
    match p {
        syn::Pat::Ident(pi) => {
            out.push(pi.ident.to_string());
            if let Some((_, sub)) = &pi.subpat {
                collect_pat(sub, out);
            }
        }
        syn::Pat::Type(pt) => collect_pat(&pt.pat, out),
        syn::Pat::Reference(r) => collect_pat(&r.pat, out),
        syn::Pat::Paren(x) => collect_pat(&x.pat, out),
        syn::Pat::TupleStruct(ts) => ts.elems.iter().for_each(|p| collect_pat(p, out)),
        syn::Pat::Tuple(t) => t.elems.iter().for_each(|p| collect_pat(p, out)),
        syn::Pat::Struct(s) => s.fields.iter().for_each(|f| collect_pat(&f.pat, out)),
        syn::Pat::Slice(s) => s.elems.iter().for_each(|p| collect_pat(p, out)),
        syn::Pat::Or(o) => o.cases.iter().for_each(|p| collect_pat(p, out)),
        _ => {}
    }
}

/// Where a receiver chain starts (`self` in `self.inner.read().await.peer`), through fields,
/// method calls, `.await`, `?`, parentheses, references and derefs; with the named field read
/// first off it (`inner`), when the chain's first step is one.
pub fn chain_root(e: &syn::Expr) -> (&syn::Expr, Option<&syn::Ident>) {
    let mut e = e;
    let mut first_field = None;
    loop {
        e = match e {
            syn::Expr::Field(f) => {
                first_field = match &f.member {
                    syn::Member::Named(n) => Some(n),
                    syn::Member::Unnamed(_) => None,
                };
                &f.base
            }
            syn::Expr::MethodCall(mc) => {
                first_field = None;
                &mc.receiver
            }
            syn::Expr::Await(a) => &a.base,
            syn::Expr::Try(t) => &t.expr,
            syn::Expr::Paren(p) => &p.expr,
            syn::Expr::Reference(r) => &r.expr,
            syn::Expr::Unary(u) => &u.expr,
            root => return (root, first_field),
        };
    }
}

/// Whether `e` is the path `name` alone (`tx`, `self`).
pub fn is_path_named(e: &syn::Expr, name: &str) -> bool {
    matches!(e, syn::Expr::Path(p) if p.path.is_ident(name))
}
