//! The fix of rmcp PR #1024's row (`StreamableHttpClient::get_stream`, MCP205): since 3.0 the
//! session id is an `Option<Arc<str>>`, `None` when a stateless response is resumed by its event
//! id alone. A custom client written after rmcp's own 2.x one sends the header in the builder
//! chain that opens the request:
//!
//! ```text
//! let mut request_builder = self.inner.get(uri.as_ref())
//!     .header(ACCEPT, ..)
//!     .header(HEADER_SESSION_ID, session_id.as_ref());
//! ```
//!
//! The parameter becomes an `Option`, the `.header(..)` leaves the chain, and the header is added
//! after it only when there is a session (what rmcp's own client does). Any other use of the
//! parameter keeps the guidance: what to send without a session is then the author's call.

use crate::finding::{Applicability, Fix};
use crate::fix::rmcp::text::{indent_at, range_of};
use crate::reading::source::LineIndex;

/// The fix for the `get_stream` whose name is at byte `at`, or `None` when its body is not of
/// that shape.
pub fn plan(idx: &LineIndex, at: usize) -> Option<Fix> {
    // The engine's tree may hold only the bodies that name a rule's trigger, and nothing in this
    // body does: this rare finding reads the file whole.
    let file = syn::parse_file(idx.text()).ok()?;
    let f = find_method(&file.items, idx, at)?;
    let (param, ty) = f.sig.inputs.iter().find_map(|a| match a {
        syn::FnArg::Typed(pt) => match &*pt.pat {
            syn::Pat::Ident(pi) if pi.ident == "session_id" => Some((pi, &*pt.ty)),
            _ => None,
        },
        _ => None,
    })?;
    let ty_text = {
        let (s, e) = range_of(ty, idx)?;
        &idx.text()[s..e]
    };
    if ty_text.starts_with("Option") {
        return None;
    }
    // The one use: `.header(NAME, session_id..)` ending a `let mut B = CHAIN;` initializer.
    let mut found = None;
    let mut uses = 0;
    for stmt in &f.block.stmts {
        uses += crate::fix::rmcp::text::uses_of(stmt, idx, "session_id");
        let syn::Stmt::Local(l) = stmt else { continue };
        let (syn::Pat::Ident(b), Some(init)) = (&l.pat, &l.init) else {
            continue;
        };
        let syn::Expr::MethodCall(mc) = &*init.expr else {
            continue;
        };
        let names_session =
            |e: &syn::Expr| crate::fix::rmcp::text::uses_of(e, idx, "session_id") > 0;
        if b.mutability.is_some()
            && mc.method == "header"
            && mc.args.len() == 2
            && names_session(&mc.args[1])
            && !names_session(&mc.receiver)
        {
            found = Some((stmt, b, mc));
        }
    }
    let (stmt, builder, header) = found?;
    if uses != 1 || param.ident != "session_id" {
        return None;
    }
    let text = idx.text();
    let (_, receiver_end) = range_of(&*header.receiver, idx)?;
    let (_, header_end) = range_of(header, idx)?;
    let (stmt_start, stmt_end) = range_of(stmt, idx)?;
    let indent = indent_at(text, stmt_start);
    let (as_, ae) = range_of(&header.args, idx)?;
    let call = format!(
        "\n{indent}if let Some(session_id) = session_id {{\n{indent}    {b} = {b}.header({args});\n{indent}}}",
        b = builder.ident,
        args = &text[as_..ae],
    );
    let (ts, te) = range_of(ty, idx)?;
    Some(Fix {
        applicability: Applicability::Unsafe,
        message: "take `Option<Arc<str>>` and send the session header only when there is one"
            .into(),
        edits: vec![
            idx.edit(ts, te, format!("Option<{ty_text}>")),
            idx.edit(receiver_end, header_end, String::new()),
            idx.edit(stmt_end, stmt_end, call),
        ],
        other_files: Vec::new(),
    })
}

/// The method of an `impl` whose name starts at byte `at`.
fn find_method<'a>(
    items: &'a [syn::Item],
    idx: &LineIndex,
    at: usize,
) -> Option<&'a syn::ImplItemFn> {
    for item in items {
        match item {
            syn::Item::Impl(i) => {
                for it in &i.items {
                    if let syn::ImplItem::Fn(f) = it {
                        if idx.range(f.sig.ident.span()).start == at {
                            return Some(f);
                        }
                    }
                }
            }
            syn::Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    if let Some(f) = find_method(inner, idx, at) {
                        return Some(f);
                    }
                }
            }
            _ => {}
        }
    }
    None
}
