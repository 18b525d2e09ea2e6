//! A helper that returns a plain value `T` (`Vec<PathBuf>`, `Option<String>`, `bool`, nothing)
//! becomes an asking helper returning `Result<T, E>`, `E` the error type of its callers (the
//! runtime's `MrtrError` converts into it): its return type is rewritten, every `return e`
//! becomes `return Ok(e)` and its value (the tail, through the arms of a tail `if` / `match`)
//! `Ok(value)`. A `?` on an `Option` (the helper returned one) no longer compiles in a function
//! returning `Result`: `let x = e?;` becomes `let Some(x) = e else { return Ok(None); };`, and
//! any other `?` is refused.

use syn::visit::Visit;

use super::handler::FnSite;
use super::text::{self, indent_at, range_of};
use super::Cx;
use crate::finding::Edit;

/// What a function returns, for the helper rewrite.
pub(super) enum Returns<'a> {
    /// `Result<T, E>` or an alias (`McpResult<T>`): kept as it is.
    Result,
    Plain(Plain<'a>),
}

/// A plain return type.
pub(super) struct Plain<'a> {
    /// As written; `None` when there is none (`()`).
    pub(super) ty: Option<&'a syn::Type>,
    /// `Option<..>`: its `?`s are taken apart.
    pub(super) option: bool,
}

impl Plain<'_> {
    /// Returns `String`.
    pub(super) fn is_string(&self) -> bool {
        matches!(self.ty, Some(syn::Type::Path(p)) if p.qself.is_none() && p.path.is_ident("String"))
    }

    /// Returns `()`.
    pub(super) fn unit(&self) -> bool {
        match self.ty {
            None => true,
            Some(syn::Type::Tuple(t)) => t.elems.is_empty(),
            Some(_) => false,
        }
    }
}

pub(super) fn returns(sig: &syn::Signature) -> Returns<'_> {
    let syn::ReturnType::Type(_, ty) = &sig.output else {
        return Returns::Plain(Plain {
            ty: None,
            option: false,
        });
    };
    let last = match &**ty {
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    };
    match last.as_deref() {
        Some(name) if name.ends_with("Result") => Returns::Result,
        other => Returns::Plain(Plain {
            ty: Some(ty),
            option: other == Some("Option"),
        }),
    }
}

/// An expression the helper's value comes from: the body's tail, and through a tail `if`,
/// `match` or block, the values of their arms.
#[derive(Clone, Copy)]
pub(super) enum Value<'a> {
    Expr(&'a syn::Expr),
    Macro(&'a syn::StmtMacro),
}

/// The values of a plain helper's body (none for a helper returning `()`).
pub(super) fn values<'a>(block: &'a syn::Block) -> Result<Vec<Value<'a>>, String> {
    let mut out = Vec::new();
    block_values(block, &mut out)?;
    Ok(out)
}

fn block_values<'a>(block: &'a syn::Block, out: &mut Vec<Value<'a>>) -> Result<(), String> {
    match block.stmts.last() {
        Some(syn::Stmt::Expr(e, None)) => expr_values(e, out),
        Some(syn::Stmt::Macro(m)) if m.semi_token.is_none() && !diverges(&m.mac) => {
            out.push(Value::Macro(m));
            Ok(())
        }
        // No value: the block ends in a `return`, a `panic!`, a loop it never leaves.
        _ => Ok(()),
    }
}

fn expr_values<'a>(e: &'a syn::Expr, out: &mut Vec<Value<'a>>) -> Result<(), String> {
    match e {
        syn::Expr::If(i) => {
            block_values(&i.then_branch, out)?;
            match &i.else_branch {
                Some((_, other)) => expr_values(other, out),
                None => Ok(()),
            }
        }
        syn::Expr::Match(m) => m.arms.iter().try_for_each(|a| expr_values(&a.body, out)),
        syn::Expr::Block(b) if b.label.is_none() => block_values(&b.block, out),
        syn::Expr::Block(_) | syn::Expr::Loop(_) if breaks_with_value(e) => Err(
            "its value comes out of a `break` (a loop or a labeled block), which the rewrite \
does not wrap in `Ok`"
                .into(),
        ),
        syn::Expr::Return(_)
        | syn::Expr::Loop(_)
        | syn::Expr::Break(_)
        | syn::Expr::Continue(_) => Ok(()),
        syn::Expr::Macro(m) if diverges(&m.mac) => Ok(()),
        other => {
            out.push(Value::Expr(other));
            Ok(())
        }
    }
}

fn diverges(mac: &syn::Macro) -> bool {
    let name = text::path_end(&mac.path);
    matches!(
        name.as_str(),
        "panic" | "unreachable" | "todo" | "unimplemented"
    )
}

fn breaks_with_value(e: &syn::Expr) -> bool {
    struct Find(bool);
    impl<'a> Visit<'a> for Find {
        fn visit_expr_break(&mut self, b: &'a syn::ExprBreak) {
            self.0 |= b.expr.is_some();
            syn::visit::visit_expr_break(self, b);
        }
        fn visit_expr_closure(&mut self, _: &'a syn::ExprClosure) {}
        fn visit_item(&mut self, _: &'a syn::Item) {}
    }
    let mut f = Find(false);
    f.visit_expr(e);
    f.0
}

/// The edits that make `site` return `Result<T, E>`: `template` is its callers' result type
/// with `{T}` where the value type goes. `unwrapped`: values left as they are (a call of an
/// asking helper of the same error type, which is already a `Result`); `consumed`: the `?`s
/// (their offsets) a request's rewrite already took apart.
pub(super) fn convert(
    cx: &Cx,
    site: &FnSite,
    plain: &Plain,
    template: &str,
    unwrapped: &[&syn::Expr],
    consumed: &[usize],
) -> Result<Vec<Edit>, String> {
    convert_wrapped(cx, site, plain, template, unwrapped, consumed, ("Ok(", ")"))
}

/// [`convert`] with each value wrapped in `wrap.0 .. wrap.1` instead of `Ok(..)` (a tool's
/// `String` becomes `Ok(CallToolResult::success(vec![ContentBlock::text(..)]))`).
pub(super) fn convert_wrapped(
    cx: &Cx,
    site: &FnSite,
    plain: &Plain,
    template: &str,
    unwrapped: &[&syn::Expr],
    consumed: &[usize],
    wrap: (&str, &str),
) -> Result<Vec<Edit>, String> {
    let name = site.sig.ident.to_string();
    let mut edits = Vec::new();
    // The return type.
    let ty_text = match plain.ty {
        Some(ty) if !plain.unit() => {
            let (s, e) = range_of(ty, cx.idx).ok_or("a type without a position")?;
            cx.src[s..e].to_string()
        }
        _ => "()".to_string(),
    };
    let written = template.replace("{T}", &ty_text);
    match plain.ty {
        Some(ty) => {
            let (s, e) = range_of(ty, cx.idx).ok_or("a type without a position")?;
            edits.push(cx.idx.edit(s, e, written));
        }
        None => {
            let close = site.sig.paren_token.span.close().end();
            let at = cx.idx.offset(close.line, close.column);
            edits.push(cx.idx.edit(at, at, format!(" -> {written}")));
        }
    }

    // `return e` and the `?`s of the body (not of its closures, async blocks and items).
    let mut walk = Walk {
        returns: Vec::new(),
        tries: Vec::new(),
        simple: Vec::new(),
        typed: Vec::new(),
        hidden: None,
    };
    walk.visit_block(site.block);
    if let Some(m) = walk.hidden {
        let shown = range_of(m, cx.idx)
            .map(|(s, e)| text::shorten(&cx.src[s..e]))
            .unwrap_or_default();
        return Err(format!(
            "`{name}` has a `return` or a `?` inside a macro invocation (`{shown}`), which the \
rewrite cannot see into to wrap its value in `Ok`"
        ));
    }
    for r in walk.returns {
        match &r.expr {
            Some(e) => {
                let (s, e) = range_of(&**e, cx.idx).ok_or("a `return` without a position")?;
                edits.push(cx.idx.edit(s, s, wrap.0.into()));
                edits.push(cx.idx.edit(e, e, wrap.1.into()));
            }
            None => {
                let (_, e) = range_of(&r.return_token, cx.idx).ok_or("no position")?;
                edits.push(cx.idx.edit(e, e, " Ok(())".into()));
            }
        }
    }
    for t in &walk.tries {
        let (q, qe) = range_of(&t.question_token, cx.idx).ok_or("a `?` without a position")?;
        if consumed.contains(&q) {
            continue;
        }
        let shown = range_of(*t, cx.idx)
            .map(|(s, e)| text::shorten(&cx.src[s..e]))
            .unwrap_or_default();
        if !plain.option {
            return Err(format!(
                "`{name}` applies `?` (`{shown}`) in a function that does not return `Option`"
            ));
        }
        let Some(local) = walk
            .simple
            .iter()
            .find(|(tr, _)| std::ptr::eq(*tr, *t))
            .map(|p| p.1)
        else {
            if walk.typed.iter().any(|tr| std::ptr::eq(*tr, *t)) {
                return Err(format!(
                    "`{name}` returns `Option` and applies `?` to one in a `let` with a type \
(`{shown}`), which does not compile once it returns `Result`: write it as \
`let Some(x) = .. else {{ return None; }};`"
                ));
            }
            return Err(format!(
                "`{name}` returns `Option` and applies `?` to one inside an expression \
(`{shown}`), which does not compile once it returns `Result`: bind that value first with \
`let Some(..) = .. else {{ return None; }};`"
            ));
        };
        // `let x = e?;` → `let Some(x) = e else { return Ok(None); };`
        let (ps, pe) = range_of(&local.pat, cx.idx).ok_or("a pattern without a position")?;
        let (ls, _) = range_of(local, cx.idx).ok_or("a `let` without a position")?;
        let semi = range_of(&local.semi_token, cx.idx)
            .ok_or("a `;` without a position")?
            .0;
        let indent = indent_at(cx.src, ls);
        edits.push(cx.idx.edit(ps, pe, format!("Some({})", &cx.src[ps..pe])));
        edits.push(cx.idx.edit(q, qe, String::new()));
        edits.push(cx.idx.edit(
            semi,
            semi,
            format!(" else {{\n{indent}    return Ok(None);\n{indent}}}"),
        ));
    }

    // The value.
    if plain.unit() {
        edits.push(unit_tail(cx, site.block)?);
        return Ok(edits);
    }
    for v in values(site.block).map_err(|why| format!("`{name}`: {why}"))? {
        let (s, e) = match v {
            Value::Expr(e) if unwrapped.iter().any(|u| std::ptr::eq(*u, e)) => continue,
            Value::Expr(e) => range_of(e, cx.idx),
            Value::Macro(m) => range_of(m, cx.idx),
        }
        .ok_or("a value without a position")?;
        edits.push(cx.idx.edit(s, s, wrap.0.into()));
        edits.push(cx.idx.edit(e, e, wrap.1.into()));
    }
    Ok(edits)
}

/// `Ok(())` after the last statement of a body that returned `()`.
fn unit_tail(cx: &Cx, block: &syn::Block) -> Result<Edit, String> {
    let Some(last) = block.stmts.last() else {
        let open = block.brace_token.span.open().end();
        let at = cx.idx.offset(open.line, open.column);
        return Ok(cx.idx.edit(at, at, " Ok(()) ".into()));
    };
    let (s, e) = range_of(last, cx.idx).ok_or("a statement without a position")?;
    let indent = indent_at(cx.src, s);
    let semi = match last {
        syn::Stmt::Expr(e, None) => !matches!(
            e,
            syn::Expr::If(_)
                | syn::Expr::Match(_)
                | syn::Expr::Block(_)
                | syn::Expr::Loop(_)
                | syn::Expr::While(_)
                | syn::Expr::ForLoop(_)
                | syn::Expr::Unsafe(_)
        ),
        syn::Stmt::Macro(m) => m.semi_token.is_none(),
        _ => false,
    };
    let text = format!("{}\n{indent}Ok(())", if semi { ";" } else { "" });
    Ok(cx.idx.edit(e, e, text))
}

/// The `return`s and `?`s of a body, not those of its closures, async blocks or items (they
/// return from those); `simple`: the `?`s that are the whole initializer of a `let`.
struct Walk<'a> {
    returns: Vec<&'a syn::ExprReturn>,
    tries: Vec<&'a syn::ExprTry>,
    simple: Vec<(&'a syn::ExprTry, &'a syn::Local)>,
    /// The `?`s that are the whole initializer of a `let` with a type (`let x: T = e?;`).
    typed: Vec<&'a syn::ExprTry>,
    /// A macro invocation whose tokens hold a `return` or a `?`.
    hidden: Option<&'a syn::Macro>,
}

impl<'a> Visit<'a> for Walk<'a> {
    fn visit_expr_return(&mut self, r: &'a syn::ExprReturn) {
        self.returns.push(r);
        syn::visit::visit_expr_return(self, r);
    }
    fn visit_expr_try(&mut self, t: &'a syn::ExprTry) {
        self.tries.push(t);
        syn::visit::visit_expr_try(self, t);
    }
    fn visit_local(&mut self, l: &'a syn::Local) {
        if let Some(init) = &l.init {
            if let (syn::Expr::Try(t), None) = (&*init.expr, &init.diverge) {
                if matches!(l.pat, syn::Pat::Type(_)) {
                    self.typed.push(t);
                } else {
                    self.simple.push((t, l));
                }
            }
        }
        syn::visit::visit_local(self, l);
    }
    fn visit_macro(&mut self, m: &'a syn::Macro) {
        if self.hidden.is_none() && hides_return(m.tokens.clone()) {
            self.hidden = Some(m);
        }
    }
    fn visit_expr_closure(&mut self, _: &'a syn::ExprClosure) {}
    fn visit_expr_async(&mut self, _: &'a syn::ExprAsync) {}
    fn visit_item(&mut self, _: &'a syn::Item) {}
}

/// A `return`, or a postfix `?` (after a name, a literal or a closing bracket; not the `?value`
/// sigil of `tracing`'s macros), among a macro's tokens.
fn hides_return(tokens: proc_macro2::TokenStream) -> bool {
    use proc_macro2::TokenTree;
    let mut postfix = false;
    for t in tokens {
        let hit = match &t {
            TokenTree::Ident(i) => *i == "return",
            TokenTree::Punct(p) => p.as_char() == '?' && postfix,
            TokenTree::Group(g) => hides_return(g.stream()),
            TokenTree::Literal(_) => false,
        };
        if hit {
            return true;
        }
        postfix = !matches!(t, TokenTree::Punct(_));
    }
    false
}
