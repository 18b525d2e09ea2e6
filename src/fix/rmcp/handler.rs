//! The handler around the asks: which functions the rewrite can turn into `#[mrtr_handler]`
//! ones, and the edits on the function itself (attribute, `Mrtr` parameter, return type).

use super::text::{indent_at, last_ident, range_of, starts_line};
use crate::finding::Edit;
use crate::reading::source::LineIndex;

/// How a function with a legacy call is reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// A `#[tool]` method: the runtime's `Mrtr` extractor gives it the handle.
    Tool,
    /// `ServerHandler::call_tool` / `get_prompt` / `read_resource` written by hand: the macro
    /// builds the handle from the request and context parameters.
    HandWritten(&'static str),
    /// A `#[prompt]` method: the runtime has no `Mrtr` extractor for prompts.
    Prompt,
    /// Anything else: a helper, another request, a hook.
    Other,
}

/// A function of the file, with what the rewrite needs to know about it.
pub struct FnSite<'a> {
    pub attrs: &'a [syn::Attribute],
    pub vis: &'a syn::Visibility,
    pub sig: &'a syn::Signature,
    pub block: &'a syn::Block,
    pub kind: Kind,
    /// The type of the enclosing `impl`, when there is one.
    pub self_ty: Option<String>,
    pub range: (usize, usize),
    /// The calls of the body, indexed on first use ([`Self::calls`]).
    calls: std::cell::OnceCell<super::locate::Index<'a>>,
}

impl<'a> FnSite<'a> {
    /// Every call of the body with the nodes around it, from one walk however many of them the
    /// rewrite looks up.
    pub fn calls(&self) -> &super::locate::Index<'a> {
        self.calls
            .get_or_init(|| super::locate::Index::new(self.block))
    }
}

pub(super) fn has_attr(attrs: &[syn::Attribute], name: &str) -> bool {
    attrs
        .iter()
        .any(|a| a.path().segments.last().is_some_and(|s| s.ident == name))
}

pub fn is_mrtr_handler(attrs: &[syn::Attribute]) -> bool {
    has_attr(attrs, "mrtr_handler")
}

/// Every function with a body in the file, nested modules included.
pub fn collect<'a>(items: &'a [syn::Item], idx: &LineIndex, out: &mut Vec<FnSite<'a>>) {
    for item in items {
        match item {
            syn::Item::Fn(f) => {
                if let Some(range) = fn_range(&f.sig, &f.block, idx) {
                    out.push(FnSite {
                        attrs: &f.attrs,
                        vis: &f.vis,
                        sig: &f.sig,
                        block: &f.block,
                        kind: Kind::Other,
                        self_ty: None,
                        range,
                        calls: Default::default(),
                    });
                }
            }
            syn::Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    collect(items, idx, out);
                }
            }
            syn::Item::Impl(imp) => {
                let server_handler = imp
                    .trait_
                    .as_ref()
                    .is_some_and(|(_, p, _)| super::text::path_end(p) == "ServerHandler");
                let self_ty = last_ident(&imp.self_ty);
                for ii in &imp.items {
                    let syn::ImplItem::Fn(f) = ii else { continue };
                    let name = f.sig.ident.to_string();
                    let kind = if has_attr(&f.attrs, "tool") {
                        Kind::Tool
                    } else if has_attr(&f.attrs, "prompt") {
                        Kind::Prompt
                    } else if server_handler {
                        match name.as_str() {
                            "call_tool" => Kind::HandWritten("call_tool"),
                            "get_prompt" => Kind::HandWritten("get_prompt"),
                            "read_resource" => Kind::HandWritten("read_resource"),
                            _ => Kind::Other,
                        }
                    } else {
                        Kind::Other
                    };
                    if let Some(range) = fn_range(&f.sig, &f.block, idx) {
                        out.push(FnSite {
                            attrs: &f.attrs,
                            vis: &f.vis,
                            sig: &f.sig,
                            block: &f.block,
                            kind,
                            self_ty: self_ty.clone(),
                            range,
                            calls: Default::default(),
                        });
                    }
                }
            }
            _ => {}
        }
    }
}

/// The type a parameter named `name` is declared with, by its last path segment.
pub fn param_type(sig: &syn::Signature, name: &str) -> Option<String> {
    sig.inputs.iter().find_map(|a| match a {
        syn::FnArg::Typed(pt) => match &*pt.pat {
            syn::Pat::Ident(i) if i.ident == name => last_ident(&pt.ty),
            _ => None,
        },
        _ => None,
    })
}

/// `T` of `-> Result<T, E>` (or of an alias with `T` first), by its last segment, and where it is.
fn result_ok_type(sig: &syn::Signature) -> Option<&syn::Type> {
    let syn::ReturnType::Type(_, ty) = &sig.output else {
        return None;
    };
    let syn::Type::Path(p) = &**ty else {
        return None;
    };
    let last = p.path.segments.last()?;
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    args.args.iter().find_map(|a| match a {
        syn::GenericArgument::Type(t) => Some(t),
        _ => None,
    })
}

/// Checks that `#[mrtr_handler]` can take the function, and returns the edits on its signature
/// and attributes. `mrtr_param`: for a `#[tool]`, the parameter the `Mrtr` replaces (the request
/// context, when the rewrite leaves no other use of it), else `None` to add one.
pub(super) fn edits(
    site: &FnSite,
    cx: &super::Cx,
    replace_param: Option<&str>,
) -> Result<(Vec<Edit>, Vec<&'static str>), String> {
    edits_returning(site, cx, replace_param, None)
}

/// [`edits`] for a tool whose return type another edit of the same fix rewrites: `ok_name` is
/// the `Ok` type it will have (a tool returning `String` is made to return a `CallToolResult`).
pub(super) fn edits_returning(
    site: &FnSite,
    cx: &super::Cx,
    replace_param: Option<&str>,
    ok_name: Option<&str>,
) -> Result<(Vec<Edit>, Vec<&'static str>), String> {
    let (src, idx) = (cx.src, cx.idx);
    let name = site.sig.ident.to_string();
    if site.sig.asyncness.is_none() {
        return Err(format!("`{name}` is not an `async fn`"));
    }
    if ok_name.is_none() {
        // A return type the fix rewrites (`ok_name`) gets an error that holds it.
        super::error_type::check(site.sig, cx.items)?;
    }
    let ok_ty = result_ok_type(site.sig);
    let ok_name = match (ok_name, ok_ty) {
        (Some(n), _) => n.to_string(),
        (None, Some(t)) => last_ident(t).unwrap_or_default(),
        (None, None) => return Err(format!("`{name}` does not return `Result<T, E>`")),
    };
    let mut out = Vec::new();
    let mut names = Vec::new();
    match &site.kind {
        Kind::Tool => {
            // The runtime completes both (`Json<T>` as structured content).
            if !matches!(ok_name.as_str(), "CallToolResult" | "Json" | "String") {
                return Err(format!(
                    "`{name}` returns `{ok_name}`, which the runtime cannot answer with an \
`InputRequiredResult`: return a `CallToolResult` or rmcp's `Json<T>`"
                ));
            }
            let has_mrtr = site.sig.inputs.iter().any(|a| {
                matches!(a, syn::FnArg::Typed(pt) if last_ident(&pt.ty).as_deref() == Some("Mrtr"))
            });
            if !has_mrtr {
                out.push(mrtr_param(site, src, idx, replace_param)?);
                names.push("Mrtr");
            }
        }
        Kind::HandWritten(method) => {
            let (result, response) = match *method {
                "call_tool" => ("CallToolResult", "CallToolResponse"),
                "get_prompt" => ("GetPromptResult", "GetPromptResponse"),
                _ => ("ReadResourceResult", "ReadResourceResponse"),
            };
            if ok_name == response {
                if let Some(unwrap) = undo_result_wrapper(site, src, idx) {
                    // The upgrade's own wrapper (another pass of this run wrote it): the macro
                    // converts the result, so the handler gets its old body and type back.
                    out.extend(unwrap);
                } else {
                    // The macro writes the response type; the body keeps returning results
                    // (`Ok(result.into())` still type-checks: `From<T> for T`).
                    let Some(syn::Type::Path(p)) = ok_ty else {
                        unreachable!("named above")
                    };
                    let seg = p.path.segments.last().expect("named above");
                    let (s, e) = range_of(&seg.ident, idx).ok_or("a type without a position")?;
                    out.push(idx.edit(s, e, result.to_string()));
                }
            } else if ok_name != result {
                return Err(format!("`{name}` returns `{ok_name}`, not `{result}`"));
            }
            for (i, what) in [(0usize, "request"), (1, "context")] {
                let plain = site.sig.inputs.iter().filter(|a| matches!(a, syn::FnArg::Typed(_))).nth(i).is_some_and(
                    |a| matches!(a, syn::FnArg::Typed(pt) if matches!(&*pt.pat, syn::Pat::Ident(_))),
                );
                if !plain {
                    return Err(format!(
                        "the {what} parameter of `{name}` is not a plain name"
                    ));
                }
            }
        }
        _ => return Err(format!("`{name}` is not a request handler")),
    }
    if !is_mrtr_handler(site.attrs) {
        let first = super::text::header_start(site.vis, site.sig, idx);
        let text = if starts_line(src, first) {
            format!("#[mrtr_handler]\n{}", indent_at(src, first))
        } else {
            "#[mrtr_handler] ".to_string()
        };
        out.push(idx.edit(first, first, text));
        names.push("mrtr_handler");
    }
    Ok((out, names))
}

/// The `mrtr: Mrtr` parameter of a `#[tool]`: in place of the context it replaces, or after
/// `&self` (the macro moves it in front of rmcp's extractors anyway).
fn mrtr_param(
    site: &FnSite,
    src: &str,
    idx: &LineIndex,
    replace_param: Option<&str>,
) -> Result<Edit, String> {
    if let Some(param) = replace_param {
        for a in &site.sig.inputs {
            if let syn::FnArg::Typed(pt) = a {
                if matches!(&*pt.pat, syn::Pat::Ident(i) if i.ident == param) {
                    let (s, e) = super::text::param_range(pt, idx)
                        .ok_or("a parameter without a position")?;
                    return Ok(idx.edit(s, e, "mrtr: Mrtr".into()));
                }
            }
        }
    }
    let mut pairs = site.sig.inputs.pairs();
    let first = pairs.next().ok_or("a `#[tool]` without parameters")?;
    if !matches!(first.value(), syn::FnArg::Receiver(_)) {
        return Err("a `#[tool]` without `&self`".into());
    }
    let next = site.sig.inputs.iter().nth(1);
    match (first.punct(), next) {
        (Some(comma), Some(next)) => {
            let at = idx.range(comma.span).end;
            let next = match next {
                syn::FnArg::Typed(pt) => super::text::param_range(pt, idx),
                receiver => range_of(receiver, idx),
            };
            let (ns, _) = next.ok_or("a parameter without a position")?;
            let text = if src[at..ns].contains('\n') {
                format!("\n{}mrtr: Mrtr,", indent_at(src, ns))
            } else {
                " mrtr: Mrtr,".to_string()
            };
            Ok(idx.edit(at, at, text))
        }
        _ => {
            let (_, at) = range_of(first.value(), idx).ok_or("`self` without a position")?;
            let rest = &src[at..];
            let at = if rest.starts_with(',') { at + 1 } else { at };
            let text = if src[at..].starts_with(',') {
                " mrtr: Mrtr".to_string()
            } else {
                ", mrtr: Mrtr".to_string()
            };
            Ok(idx.edit(at, at, text))
        }
    }
}

/// The file-wide `use mrtr::{..};` for the names the fixes need and the file does not import yet.
pub fn import_edit(file: &syn::File, src: &str, idx: &LineIndex, needed: &[&str]) -> Option<Edit> {
    let mut have: Vec<String> = Vec::new();
    let mut glob = false;
    let mut last_use = None;
    for item in &file.items {
        if let syn::Item::Use(u) = item {
            last_use = super::text::use_range(u, idx).map(|r| r.1);
            if let syn::UseTree::Path(p) = &u.tree {
                if p.ident == "mrtr" {
                    names_in(&p.tree, &mut have, &mut glob);
                }
            }
        }
    }
    if glob {
        return None;
    }
    let mut missing: Vec<&str> = needed
        .iter()
        .copied()
        .filter(|n| !have.iter().any(|h| h == n))
        .collect();
    missing.sort_by_key(|n| (n.starts_with(char::is_uppercase), n.to_string()));
    missing.dedup();
    if missing.is_empty() {
        return None;
    }
    let list = if missing.len() == 1 {
        missing[0].to_string()
    } else {
        format!("{{{}}}", missing.join(", "))
    };
    match last_use {
        Some(at) => Some(idx.edit(at, at, format!("\nuse mrtr::{list};"))),
        None => {
            let at = file
                .items
                .first()
                .and_then(|i| range_of(i, idx))
                .map_or(src.len(), |r| r.0);
            Some(idx.edit(at, at, format!("use mrtr::{list};\n\n")))
        }
    }
}

fn names_in(tree: &syn::UseTree, out: &mut Vec<String>, glob: &mut bool) {
    match tree {
        syn::UseTree::Name(n) => out.push(n.ident.to_string()),
        syn::UseTree::Rename(r) => out.push(r.rename.to_string()),
        syn::UseTree::Glob(_) => *glob = true,
        syn::UseTree::Group(g) => g.items.iter().for_each(|t| names_in(t, out, glob)),
        syn::UseTree::Path(_) => {}
    }
}

/// From `fn` to the body's closing brace, from the spans at hand (turning a whole function into
/// tokens to find its ends would cost a copy of it).
fn fn_range(sig: &syn::Signature, block: &syn::Block, idx: &LineIndex) -> Option<(usize, usize)> {
    let s = sig.fn_token.span.start();
    let e = block.brace_token.span.close().end();
    let (start, end) = (idx.offset(s.line, s.column), idx.offset(e.line, e.column));
    (end > start).then_some((start, end))
}

/// Whether the items implement `MrtrServer` for `ty` (`None`: for any type; the runtime needs it
/// for each server type).
pub fn implements_mrtr_server(items: &[syn::Item], ty: Option<&str>) -> bool {
    items.iter().any(|item| match item {
        syn::Item::Impl(imp) => {
            imp.trait_
                .as_ref()
                .is_some_and(|(_, p, _)| super::text::path_end(p) == "MrtrServer")
                && ty.is_none_or(|t| last_ident(&imp.self_ty).as_deref() == Some(t))
        }
        syn::Item::Mod(m) => m
            .content
            .as_ref()
            .is_some_and(|(_, items)| implements_mrtr_server(items, ty)),
        _ => false,
    })
}

/// `impl mrtr::MrtrServer for Ty {}` right after the definition of `Ty` in this file (the
/// default configuration reads `MRTR_KEYS`); a generic type gets its parameters and bounds
/// (`impl<T: Tools> mrtr::MrtrServer for Ty<T> {}`).
pub fn server_impl_edit(items: &[syn::Item], idx: &LineIndex, ty: &str) -> Option<Edit> {
    for item in items {
        let (ident, generics) = match item {
            syn::Item::Struct(s) => (&s.ident, &s.generics),
            syn::Item::Enum(e) => (&e.ident, &e.generics),
            syn::Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    if let Some(edit) = server_impl_edit(inner, idx, ty) {
                        return Some(edit);
                    }
                }
                continue;
            }
            _ => continue,
        };
        if ident != ty {
            continue;
        }
        let (_, end) = range_of(item, idx)?;
        let indent = indent_at(idx.text(), end).to_string();
        let (params, args, bounds) = impl_generics(generics, idx)?;
        return Some(idx.edit(
            end,
            end,
            format!("\n\n{indent}impl{params} mrtr::MrtrServer for {ty}{args}{bounds} {{}}"),
        ));
    }
    None
}

/// For `struct S<T: Bound = Default, 'a>` (and its `where` clause): the impl's parameters
/// `<T: Bound, 'a>` (defaults dropped), the type's arguments `<T, 'a>`, and ` where ..`, as the
/// source writes them. Empty strings for a type without generics.
fn impl_generics(g: &syn::Generics, idx: &LineIndex) -> Option<(String, String, String)> {
    if g.params.is_empty() {
        return Some(Default::default());
    }
    let text = idx.text();
    let mut params = Vec::new();
    let mut args = Vec::new();
    for p in &g.params {
        let (start, mut end) = range_of(p, idx)?;
        match p {
            syn::GenericParam::Type(t) => {
                if t.eq_token.is_some() {
                    end = match t.bounds.last() {
                        Some(_) => range_of(&t.bounds, idx)?.1,
                        None => range_of(&t.ident, idx)?.1,
                    };
                }
                args.push(t.ident.to_string());
            }
            syn::GenericParam::Lifetime(l) => args.push(l.lifetime.to_string()),
            syn::GenericParam::Const(c) => {
                if c.eq_token.is_some() {
                    end = range_of(&c.ty, idx)?.1;
                }
                args.push(c.ident.to_string());
            }
        }
        params.push(text[start..end].to_string());
    }
    let bounds = match &g.where_clause {
        Some(w) => {
            let (s, e) = range_of(w, idx)?;
            format!(" {}", &text[s..e])
        }
        None => String::new(),
    };
    Some((
        format!("<{}>", params.join(", ")),
        format!("<{}>", args.join(", ")),
        bounds,
    ))
}

/// The edits that take back the rmcp upgrade's wrapper of a hand-written handler
/// (`fix::upgrade`, MCP202: `{ let result: OLD = async move { BODY }.await;
/// result.map(Into::into) }` under the new response type): the body `{ BODY }` and the return
/// type `OLD` as they were. `None` when the body is not that wrapper.
fn undo_result_wrapper(site: &FnSite, src: &str, idx: &LineIndex) -> Option<Vec<Edit>> {
    let [syn::Stmt::Local(local), syn::Stmt::Expr(tail, None)] = site.block.stmts.as_slice() else {
        return None;
    };
    let syn::Pat::Type(typed) = &local.pat else {
        return None;
    };
    let syn::Pat::Ident(name) = &*typed.pat else {
        return None;
    };
    let init = local.init.as_ref()?;
    let syn::Expr::Await(awaited) = &*init.expr else {
        return None;
    };
    let syn::Expr::Async(inner) = &*awaited.base else {
        return None;
    };
    inner.capture?;
    let syn::Expr::MethodCall(map) = tail else {
        return None;
    };
    let converts = map.method == "map"
        && map.args.len() == 1
        && matches!(&map.args[0], syn::Expr::Path(p) if p.qself.is_none()
            && p.path.segments.len() == 2
            && p.path.segments[0].ident == "Into"
            && p.path.segments[1].ident == "into")
        && matches!(&*map.receiver, syn::Expr::Path(p) if p.path.is_ident(&name.ident));
    if !converts {
        return None;
    }
    let syn::ReturnType::Type(_, ret) = &site.sig.output else {
        return None;
    };
    let (rs, re) = range_of(ret, idx)?;
    let (ts, te) = range_of(&*typed.ty, idx)?;
    let outer_open = idx.range(site.block.brace_token.span.open()).start;
    let outer_close = idx.range(site.block.brace_token.span.close()).end;
    let inner_open = idx.range(inner.block.brace_token.span.open()).start;
    let inner_close = idx.range(inner.block.brace_token.span.close()).end;
    Some(vec![
        idx.edit(rs, re, src[ts..te].to_string()),
        idx.edit(outer_open, inner_open, String::new()),
        idx.edit(inner_close, outer_close, String::new()),
    ])
}
