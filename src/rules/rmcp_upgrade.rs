//! MCP201-203: rmcp APIs that changed between the package's rmcp and 3.x, read from the table in
//! `sdk::rmcp_upgrade`. MCP201 renamed (safe fix), MCP202 a handler's result type (unsafe fix),
//! MCP203 removed (guidance only). The fixes are planned in `fix::upgrade`.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::visit::Visit;

use crate::model::manifest::Version;
use crate::model::sdk::rmcp::RMCP;
use crate::model::sdk::rmcp_upgrade::{applies, changes_named, Change, Kind, RESULT_HANDLERS};
use crate::rules::engine::{Cx, Draft, Rule};

mod gone;
mod result_reads;
mod wrapper_raw;

use wrapper_raw::{wrapper_argument, wrapper_field, wrapper_scrutinee};

use gone::{
    dropped_field, exhaustive_match, infallible_call, newtyped_field, now_option,
    now_option_logged, only_imported, unit_span, unwrapped_expr, unwrapped_type_span, widened_read,
};

pub struct RmcpUpgrade;

pub const RENAMED: &str = "MCP201";
pub const HANDLER_RESULT: &str = "MCP202";
pub const REMOVED: &str = "MCP203";
pub const STRUCT_LITERAL: &str = "MCP204";
pub const CALL_ARGS: &str = "MCP205";

impl Rule for RmcpUpgrade {
    fn codes(&self) -> &'static [&'static str] {
        &[RENAMED, HANDLER_RESULT, REMOVED, STRUCT_LITERAL, CALL_ARGS]
    }

    fn check_item(&self, cx: &mut Cx<'_>, item: &syn::Item) {
        let Some(version) = rmcp_version(cx) else {
            return;
        };
        match item {
            syn::Item::Use(u) => use_tree(cx, version, &u.tree, None),
            syn::Item::Impl(i) => {
                for it in &i.items {
                    if let syn::ImplItem::Fn(f) = it {
                        macro_args(cx, version, &f.attrs);
                    }
                }
                handler_impl(cx, version, i)
            }
            syn::Item::Fn(f) => macro_args(cx, version, &f.attrs),
            syn::Item::Trait(t) => bodiless_signatures(cx, t),
            _ => {}
        }
    }

    fn check_macro(&self, cx: &mut Cx<'_>, mac: &syn::Macro) {
        // Walking the tokens copies each of them out of the stream: done only for a macro whose
        // text holds tracing's `%` (most log nothing that way, and most macros are no log).
        let text =
            (cx.line_index()).text_between(mac.bang_token.span, mac.delimiter.span().close());
        // (Empty: the span is not the file's; look.)
        if text.is_empty() || text.contains('%') {
            now_option_logged(cx, &mac.tokens);
        }
        // `matches!(content.raw, RawContent::Text(_))`: a scrutinee and its pattern, as in `match`.
        if mac.path.is_ident("matches") {
            if let Ok((scrutinee, pat)) = mac.parse_body_with(|input: syn::parse::ParseStream| {
                let e: syn::Expr = input.parse()?;
                input.parse::<syn::Token![,]>()?;
                let p = syn::Pat::parse_multi_with_leading_vert(input)?;
                let _rest: proc_macro2::TokenStream = input.parse()?;
                Ok((e, p))
            }) {
                wrapper_scrutinee(cx, &scrutinee, [&pat]);
            }
        }
    }

    fn check_local(&self, cx: &mut Cx<'_>, local: &syn::Local) {
        if let Some(init) = &local.init {
            wrapper_scrutinee(cx, &init.expr, [&local.pat]);
        }
    }

    fn check_type(&self, cx: &mut Cx<'_>, ty: &syn::Type) {
        match ty {
            syn::Type::Path(tp) if tp.qself.is_none() => check_path(cx, &tp.path),
            // `Box<dyn task_manager::OperationResultTransport>`: a trait names rmcp too.
            syn::Type::TraitObject(syn::TypeTraitObject { bounds, .. })
            | syn::Type::ImplTrait(syn::TypeImplTrait { bounds, .. }) => {
                for b in bounds {
                    if let syn::TypeParamBound::Trait(t) = b {
                        check_bound(cx, &t.path);
                    }
                }
            }
            _ => {}
        }
    }

    fn check_expr(&self, cx: &mut Cx<'_>, expr: &syn::Expr) {
        match expr {
            syn::Expr::Path(p) if p.qself.is_none() => check_path(cx, &p.path),
            // A wrapper's call or literal (`Annotated::new(..)`) is reported whole by
            // `unwrapped_expr`, in the guard; anything else goes on.
            syn::Expr::Struct(s) if !unwrapped_expr(cx, expr) => {
                check_path(cx, &s.path);
                struct_literal(cx, s);
                widened_read(cx, s);
            }
            syn::Expr::Call(c) if !unwrapped_expr(cx, expr) => {
                if let syn::Expr::Path(f) = &*c.func {
                    if let Some(last) = f.path.segments.last() {
                        wrapper_argument(cx, &last.ident, &c.args);
                    }
                }
                infallible_call(cx, c, false)
            }
            syn::Expr::Try(t) => {
                if let syn::Expr::Call(c) = &*t.expr {
                    infallible_call(cx, c, true);
                }
            }
            syn::Expr::Assign(a) => dropped_field(cx, a),
            syn::Expr::Match(m) => {
                exhaustive_match(cx, m);
                wrapper_scrutinee(cx, &m.expr, m.arms.iter().map(|a| &a.pat));
            }
            syn::Expr::Let(l) => wrapper_scrutinee(cx, &l.expr, [&*l.pat]),
            syn::Expr::Field(f) => {
                if let syn::Member::Named(name) = &f.member {
                    if let Some(change) = now_option(cx, &name.to_string()) {
                        report(cx, change, name.span(), name.span());
                    }
                }
                if let syn::Member::Named(outer) = &f.member {
                    wrapper_field(cx, &f.base, outer);
                }
            }
            syn::Expr::MethodCall(mc) => {
                annotated_content(cx, mc);
                wrapper_field(cx, &mc.receiver, &mc.method);
                wrapper_argument(cx, &mc.method, &mc.args);
                newtyped_field(cx, mc);
                if let syn::Expr::Call(c) = &*mc.receiver {
                    if crate::reading::ident_is_one_of(&mc.method, RESULT_HANDLERS) {
                        infallible_call(cx, c, true);
                    }
                }
                method_call(cx, mc)
            }
            _ => {}
        }
    }

    fn check_fn(&self, cx: &mut Cx<'_>, sig: &syn::Signature, block: &syn::Block) {
        // Only `check_path` and `struct_pattern` report from here: nothing to find without a
        // name they can hit.
        let names = &cx.facts().upgrade_names;
        if (names.paths.is_empty() && names.structs.is_empty())
            || rmcp_version(cx).is_none()
            || !names_a_change(cx, sig, block)
        {
            return;
        }
        // The walk visits neither a fn's signature nor patterns (`let r: Old = ..`,
        // `ServerRequest::Old(..) =>`): they are read here, nested fns left to their own call.
        let mut types = Types { cx };
        types.visit_signature(sig);
        let mut pats = Pats { types };
        // A parameter destructured by its type (`ReadResourceRequestParam { uri }: ..`) names it
        // in the pattern too.
        for input in &sig.inputs {
            if let syn::FnArg::Typed(arg) = input {
                pats.visit_pat(&arg.pat);
            }
        }
        pats.visit_block(block);
    }
}

/// The signatures of a trait's fns that have no default body (`async fn call_tool(&self, request:
/// CallToolRequestParam) -> ..;`): the walk enters only fns with a body, where `check_fn` reads
/// the signature.
fn bodiless_signatures(cx: &mut Cx<'_>, t: &syn::ItemTrait) {
    if cx.facts().upgrade_names.paths.is_empty() {
        return;
    }
    for item in &t.items {
        let syn::TraitItem::Fn(f) = item else {
            continue;
        };
        if f.default.is_some() {
            continue;
        }
        let mut types = Types { cx };
        types.visit_signature(&f.sig);
    }
}

/// Whether a name of the table that a path or a struct pattern can hit stands between the fn's
/// `fn` and its closing brace: every report of [`Rule::check_fn`] is on such an identifier, so a fn
/// without one has nothing to find. A lookup in the offsets the file's identifiers gave, not a
/// scan of the fn's text (with too many names for the automaton's SIMD search).
fn names_a_change(cx: &Cx<'_>, sig: &syn::Signature, block: &syn::Block) -> bool {
    let lines = cx.line_index();
    let (from, to) = (
        sig.fn_token.span.start(),
        block.brace_token.span.close().end(),
    );
    let (start, end) = (
        lines.offset(from.line, from.column),
        lines.offset(to.line, to.column),
    );
    let at = &cx.facts().upgrade_names.path_or_struct_at;
    at.get(at.partition_point(|&o| o < start))
        .is_some_and(|&o| o < end)
}

/// Every type path under a node.
struct Types<'c, 'a> {
    cx: &'c mut Cx<'a>,
}

impl<'ast> Visit<'ast> for Types<'_, '_> {
    fn visit_type_path(&mut self, t: &'ast syn::TypePath) {
        if t.qself.is_none() {
            check_path(self.cx, &t.path);
        }
        syn::visit::visit_type_path(self, t);
    }
    fn visit_trait_bound(&mut self, t: &'ast syn::TraitBound) {
        check_bound(self.cx, &t.path);
        syn::visit::visit_trait_bound(self, t);
    }
    fn visit_block(&mut self, _: &'ast syn::Block) {}
}

/// The paths and types of the patterns of a body.
struct Pats<'c, 'a> {
    types: Types<'c, 'a>,
}

impl<'ast> Visit<'ast> for Pats<'_, '_> {
    fn visit_item(&mut self, _: &'ast syn::Item) {}
    fn visit_pat_type(&mut self, p: &'ast syn::PatType) {
        self.types.visit_type(&p.ty);
        self.visit_pat(&p.pat);
    }
    fn visit_pat_struct(&mut self, p: &'ast syn::PatStruct) {
        check_path(self.types.cx, &p.path);
        struct_pattern(self.types.cx, p);
        syn::visit::visit_pat_struct(self, p);
    }
    fn visit_pat_tuple_struct(&mut self, p: &'ast syn::PatTupleStruct) {
        check_path(self.types.cx, &p.path);
        syn::visit::visit_pat_tuple_struct(self, p);
    }
    fn visit_pat(&mut self, p: &'ast syn::Pat) {
        if let syn::Pat::Path(pp) = p {
            if pp.qself.is_none() {
                check_path(self.types.cx, &pp.path);
            }
        }
        syn::visit::visit_pat(self, p);
    }
    fn visit_expr_closure(&mut self, c: &'ast syn::ExprClosure) {
        for input in &c.inputs {
            self.visit_pat(input);
        }
        if let syn::ReturnType::Type(_, ty) = &c.output {
            self.types.visit_type(ty);
        }
        self.visit_expr(&c.body);
    }
}

/// The package's rmcp version: `Some(None)` when unknown (no manifest), `None` when the file
/// cannot use rmcp at all.
fn rmcp_version(cx: &Cx<'_>) -> Option<Option<Version>> {
    let facts = cx.facts();
    if facts.absent(&RMCP) {
        return None;
    }
    Some(facts.dependency(&RMCP).and_then(|d| d.version))
}

fn is_rmcp(cx: &Cx<'_>, path: &syn::Path) -> bool {
    cx.facts()
        .resolve_path(path)
        .iter()
        .any(|(s, _)| std::ptr::eq(*s, &RMCP))
}

/// A value already converted into a field's new type: `Some(e.into())` or `v.map(Into::into)`.
fn converted(value: &syn::Expr) -> bool {
    let is_into = |e: &syn::Expr| matches!(e, syn::Expr::MethodCall(mc) if mc.method == "into" && mc.args.is_empty());
    match value {
        syn::Expr::Call(c) if c.args.len() == 1 => is_into(&c.args[0]),
        syn::Expr::MethodCall(mc) if mc.method == "map" && mc.args.len() == 1 => {
            matches!(&mc.args[0], syn::Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "into"))
        }
        _ => false,
    }
}

/// A trait bound's path (`T: AnnotateAble`, `dyn task_manager::OperationResultTransport`): a path
/// like any other, and where a gone trait whose import the upgrade drops (`Kind::DropImport`) is
/// still used, reported, since the code must change before its import can go.
fn check_bound(cx: &mut Cx<'_>, path: &syn::Path) {
    check_path(cx, path);
    let Some(last) = path.segments.last() else {
        return;
    };
    let name = last.ident.to_string();
    let Some(change) = changes_named(&name).find(|c| c.kind == Kind::DropImport) else {
        return;
    };
    let Some(version) = rmcp_version(cx) else {
        return;
    };
    let from_rmcp = path.segments.len() > 1 || cx.facts().imports.contains_key(&name);
    if applies(change, version, from_rmcp) && is_rmcp(cx, path) {
        report(cx, change, last.ident.span(), last.ident.span());
    }
}

fn check_path(cx: &mut Cx<'_>, path: &syn::Path) {
    let names = &cx.facts().upgrade_names.paths;
    if names.is_empty()
        || !path
            .segments
            .iter()
            .any(|s| names.iter().any(|n| s.ident == n))
    {
        return;
    }
    let Some(version) = rmcp_version(cx) else {
        return;
    };
    for (i, seg) in path.segments.iter().enumerate() {
        let name = seg.ident.to_string();
        // Imported by name, or under a module path: the code takes it from rmcp for sure.
        let strong = i > 0
            || cx.facts().imports.contains_key(&name)
            || cx.facts().glob_imported_from(&RMCP, &name);
        // Imported from the crate's own re-export (`use crate::elicitation::PrimitiveSchema`): the
        // upgrade keeps the old name there (`New as Old`), so only a change the name cannot
        // escape applies here, not a rename.
        // Re-exported by this file (`pub use rmcp::model::{CreateElicitationResult, ..}`): the
        // upgrade keeps the old name at the `use` (`New as Old`), so here too; but for a struct
        // that became an enum's variant, whose literal then names the variant (`Old::Variant`).
        let via_reexport =
            i == 0
                && (cx.facts().reexports.contains(&name)
                    || cx.facts().imports.get(&name).is_some_and(|imp| {
                        matches!(imp.root.as_str(), "crate" | "super" | "self")
                    }));
        // A struct that became an enum's variant is kept under its old name too once the path
        // goes on to the variant (`Old::FormElicitationParams { .. }`, what the fix writes).
        let names_variant = |new: &str| {
            crate::model::sdk::rmcp_upgrade::struct_became_variant(new)
                .is_some_and(|v| path.segments.get(i + 1).is_some_and(|s| s.ident == v))
        };
        for change in changes_named(&name) {
            let kept = via_reexport
                && change.kind == Kind::Item
                && (crate::model::sdk::rmcp_upgrade::struct_became_variant(change.new).is_none()
                    || names_variant(change.new));
            if !applies(change, version, strong) || kept {
                continue;
            }
            let hit = match change.kind {
                Kind::Item | Kind::Removed | Kind::Unit { .. } | Kind::Unwrapped { .. } => {
                    let prefix = prefix_path(path, i);
                    let sound = if i == 0 {
                        change.bare
                            || cx.facts().imports.contains_key(&name)
                            || cx.facts().glob_imported_from(&RMCP, &name)
                    } else {
                        // `rmcp::model::X`, `model::X` after `use rmcp::model`: these items live
                        // in modules. Under a type (`Self::Error`, a generic's `S::Error`, the
                        // variant `LoggingLevel::Error`) the name is something else.
                        let parent = path.segments[i - 1].ident.to_string();
                        parent.starts_with(|c: char| c.is_lowercase())
                    };
                    sound && is_rmcp(cx, &prefix)
                }
                Kind::Variant { of } => {
                    i > 0
                        && path.segments[i - 1].ident == of
                        && is_rmcp(cx, &prefix_path(path, i - 1))
                }
                _ => false,
            };
            if hit {
                let (first, last) = match change.kind {
                    Kind::Unit { .. } => unit_span(path, i),
                    Kind::Unwrapped { .. } => match unwrapped_type_span(path, i) {
                        Some(span) => span,
                        // `Old::new(..)`: reported with its call, as a whole.
                        None if path.segments.len() == i + 2
                            && path.segments[i + 1].ident == "new" =>
                        {
                            return
                        }
                        None => (seg.ident.span(), seg.ident.span()),
                    },
                    _ => (seg.ident.span(), seg.ident.span()),
                };
                report(cx, change, first, last);
                return;
            }
        }
    }
}

/// The outermost annotation builder of a content value built the 1.x way
/// (`Content::text(x).with_audience(..)`), once per chain: an inner builder, whose call goes on
/// with another one, is the outer one's receiver and its fix.
fn annotated_content(cx: &mut Cx<'_>, mc: &syn::ExprMethodCall) {
    let Some(found) = crate::model::sdk::annotated_content::chain(mc) else {
        return;
    };
    let Some(version) = rmcp_version(cx) else {
        return;
    };
    let syn::Expr::Path(ty) = &*found.constructor.func else {
        return;
    };
    let ty = prefix_path(&ty.path, ty.path.segments.len().saturating_sub(2));
    let end = cx.line_index().range(mc.paren_token.span.close()).end;
    let after = cx.line_index().text()[end..].trim_start();
    let continued = after.strip_prefix('.').is_some_and(|rest| {
        let name = &rest[..rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len())];
        crate::model::sdk::rmcp_upgrade::annotation_builders()
            .iter()
            .any(|c| c.old == name)
    });
    let (change, _) = found.builders[found.builders.len() - 1];
    if !continued && applies(change, version, true) && is_rmcp(cx, &ty) {
        report(cx, change, mc.method.span(), mc.method.span());
    }
}

/// The arguments of rmcp's attribute macros that a release dropped (`Kind::MacroArg`):
/// `#[tool(description = "..", execution(task_support = "optional"))]`.
fn macro_args(cx: &mut Cx<'_>, version: Option<Version>, attrs: &[syn::Attribute]) {
    use syn::punctuated::Punctuated;
    for attr in attrs {
        let Some(last) = attr.path().segments.last() else {
            continue;
        };
        let dropped: Vec<&Change> = crate::model::sdk::rmcp_upgrade::dropped_macro_args()
            .iter()
            .copied()
            .filter(|c| matches!(c.kind, Kind::MacroArg { attr } if last.ident == attr))
            .collect();
        if dropped.is_empty() || !is_rmcp(cx, attr.path()) {
            continue;
        }
        let Ok(args) =
            attr.parse_args_with(Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated)
        else {
            continue;
        };
        for arg in &args {
            let Some(ident) = arg.path().get_ident() else {
                continue;
            };
            if let Some(change) = dropped.iter().find(|c| ident == c.old) {
                if applies(change, version, true) {
                    report(cx, change, ident.span(), ident.span());
                }
            }
        }
    }
}

/// The path's first `upto + 1` segments, without generic arguments.
fn prefix_path(path: &syn::Path, upto: usize) -> syn::Path {
    let mut p = syn::Path {
        leading_colon: path.leading_colon,
        segments: Default::default(),
    };
    for seg in path.segments.iter().take(upto + 1) {
        p.segments.push(seg.ident.clone().into());
    }
    p
}

fn use_tree(
    cx: &mut Cx<'_>,
    version: Option<Version>,
    tree: &syn::UseTree,
    root: Option<&syn::Ident>,
) {
    match tree {
        syn::UseTree::Path(p) => use_tree(cx, version, &p.tree, Some(root.unwrap_or(&p.ident))),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                use_tree(cx, version, t, root);
            }
        }
        syn::UseTree::Name(n) => use_leaf(cx, version, root, &n.ident),
        syn::UseTree::Rename(r) => use_leaf(cx, version, root, &r.ident),
        syn::UseTree::Glob(_) => {}
    }
}

fn use_leaf(
    cx: &mut Cx<'_>,
    version: Option<Version>,
    root: Option<&syn::Ident>,
    ident: &syn::Ident,
) {
    let Some(root) = root else { return };
    let name = ident.to_string();
    // Most leaves name nothing the upgrade changed: the table is asked first, and the path and
    // the scan of the file's text (below) are made only for a leaf it knows.
    let mut changes = changes_named(&name).peekable();
    if changes.peek().is_none() {
        return;
    }
    let mut path = syn::Path::from(root.clone());
    path.segments.push(ident.clone().into());
    // A name dropped with what used it (`AnnotateAble`, a removed method's parameters) is
    // dropped from the `use` line only once nothing else in the file names it: a use left is
    // another rule's finding, and the import then goes on the next pass.
    let only_import = std::cell::OnceCell::new();
    for change in changes {
        let kind_fits = match change.kind {
            Kind::DropImport => {
                *only_import.get_or_init(|| only_imported(cx.line_index().text(), &name))
            }
            Kind::Item | Kind::Removed | Kind::Unit { .. } | Kind::Unwrapped { .. } => true,
            _ => false,
        };
        if kind_fits && applies(change, version, true) && is_rmcp(cx, &path) {
            report(cx, change, ident.span(), ident.span());
            return;
        }
    }
}

/// `Tool { name, .. }` of a struct rmcp made `#[non_exhaustive]`, or a literal without a base
/// of one that gained fields and does not name them.
fn struct_literal(cx: &mut Cx<'_>, lit: &syn::ExprStruct) {
    let path = &lit.path;
    let Some(version) = rmcp_version(cx) else {
        return;
    };
    let Some(last) = path.segments.last() else {
        return;
    };
    // `McpPrompt { .. }` after `use rmcp::model::Prompt as McpPrompt`: the struct is `Prompt`.
    let name = match cx.facts().imports.get(&last.ident.to_string()) {
        Some(imp) if path.segments.len() == 1 => imp.name.clone(),
        _ => last.ident.to_string(),
    };
    let structs = &cx.facts().upgrade_names.structs;
    if !structs.iter().any(|n| name == *n) {
        return;
    }
    for change in changes_named(&name) {
        // A field whose value must convert: reported on the field, where the fix goes.
        if let Kind::FieldInto { field } = change.kind {
            let set = lit.fields.iter().find(|f| {
                matches!(&f.member, syn::Member::Named(m) if m == field)
                    && !matches!(&f.expr, syn::Expr::Path(p) if p.path.is_ident("None"))
                    && !converted(&f.expr)
            });
            if let Some(f) = set {
                if applies(change, version, false) && is_rmcp(cx, path) {
                    let span = match &f.member {
                        syn::Member::Named(m) => m.span(),
                        syn::Member::Unnamed(i) => i.span,
                    };
                    report(cx, change, span, span);
                }
            }
            continue;
        }
        let fits = match change.kind {
            Kind::StructLiteral => true,
            Kind::GainedFields { fields } => lit.rest.is_none()
                && !lit.fields.iter().any(
                    |f| matches!(&f.member, syn::Member::Named(m) if fields.iter().any(|g| m == g)),
                ),
            _ => false,
        };
        if fits && applies(change, version, false) && is_rmcp(cx, path) {
            report(cx, change, last.ident.span(), last.ident.span());
            return;
        }
    }
}

/// `Params { uri }` of a struct rmcp made `#[non_exhaustive]`: a pattern outside rmcp must end
/// in `..` (E0638). Reported on the closing brace, where the fix writes it.
fn struct_pattern(cx: &mut Cx<'_>, pat: &syn::PatStruct) {
    if pat.rest.is_some() {
        return;
    }
    let Some(version) = rmcp_version(cx) else {
        return;
    };
    let Some(last) = pat.path.segments.last() else {
        return;
    };
    if !cx
        .facts()
        .upgrade_names
        .structs
        .iter()
        .any(|n| last.ident == n)
    {
        return;
    }
    let name = last.ident.to_string();
    let Some(change) =
        changes_named(&name).find(|c| c.kind == Kind::StructLiteral && applies(c, version, false))
    else {
        return;
    };
    if !is_rmcp(cx, &pat.path) {
        return;
    }
    let since = format!("{}.{}", change.since.0, change.since.1);
    let brace = pat.brace_token.span.close();
    cx.emit(Draft {
        code: STRUCT_LITERAL,
        first: brace,
        last: brace,
        message: format!("a struct pattern of `{name}` needs `..` on rmcp {since} and later"),
        mcp_method: None,
        sdk: Some(RMCP.name),
        help: Some(format!(
            "end the pattern with `..`: rmcp {since} made `{name}` `#[non_exhaustive]` (rmcp PR #{})",
            change.pr
        )),
    });
}

fn method_call(cx: &mut Cx<'_>, mc: &syn::ExprMethodCall) {
    let methods = &cx.facts().upgrade_names.methods;
    if !methods.iter().any(|n| mc.method == n) {
        return;
    }
    let Some(version) = rmcp_version(cx) else {
        return;
    };
    // Method names carry no path; the file must name rmcp (a method of the same name on another
    // crate's type in a file that never mentions rmcp is not ours).
    if !cx.facts().mentions(&RMCP) {
        return;
    }
    let name = mc.method.to_string();
    // Same name before and after, so only a package below the release is known to expect the
    // old result; one finding names every change that applies (a 1.x client's `peer_info()` is
    // both an `Arc` now and a `ServerPeerInfo`).
    // How the result is read is worked out only for a change that applies, once.
    let mut read = None;
    let result_changes: Vec<&Change> = changes_named(&name)
        .filter(|c| match c.kind {
            Kind::MethodResult {
                client_only,
                borrow,
                optional,
            } => {
                version.is_none_or(|v| v < c.since)
                    && (!client_only || on_a_client(cx, &mc.receiver))
                    && !read
                        .get_or_insert_with(|| result_reads::Read::of(cx, mc))
                        .alike(borrow, optional)
            }
            _ => false,
        })
        .collect();
    if let Some(first) = result_changes.first() {
        let since = format!("{}.{}", first.since.0, first.since.1);
        let help: Vec<String> = result_changes
            .iter()
            .map(|c| format!("{} (rmcp PR #{})", c.note, c.pr))
            .collect();
        cx.emit(Draft {
            code: CALL_ARGS,
            first: mc.method.span(),
            last: mc.method.span(),
            message: format!("`{name}()` gives another type in rmcp {since} and later"),
            mcp_method: None,
            sdk: Some(RMCP.name),
            help: Some(help.join("; ")),
        });
        return;
    }
    for change in changes_named(&name) {
        // A generated row's lower-case name (`with_ttl`, `with_service`) is a method many other
        // types have: only a path from rmcp reaches it (`check_path`), never a bare call.
        if !applies(change, version, false) || (!change.bare && change.kind == Kind::Removed) {
            continue;
        }
        match change.kind {
            Kind::Method | Kind::Removed | Kind::MethodMapped { .. } => {
                report(cx, change, mc.method.span(), mc.method.span());
                return;
            }
            Kind::Replaced { with, receiver }
                if mc.args.len() == crate::model::sdk::rmcp_upgrade::replaced_arity(with)
                    && receiver.is_none_or(|path| {
                        let r = cx.line_index().range(mc.receiver.span());
                        crate::model::sdk::rmcp_upgrade::receiver_ends_in(
                            cx.line_index()
                                .text()
                                .get(r.start..r.end)
                                .unwrap_or_default(),
                            path,
                        )
                    }) =>
            {
                report(cx, change, mc.method.span(), mc.method.span());
                return;
            }
            Kind::CallArgs { arity, .. } if mc.args.len() == arity => {
                report(cx, change, mc.method.span(), mc.method.span());
                return;
            }
            Kind::DropCall if mc.args.is_empty() => {
                report(cx, change, mc.dot_token.span(), mc.paren_token.span.close());
                return;
            }
            _ => {}
        }
    }
}

/// Whether `receiver` is a client's handle: named like one (`client`, `conn.client`,
/// `upstream_client`) in a file that uses `RoleClient`, or any handle in a file that is all
/// client (it names a client's types, `ClientInfo` it serves with or `ClientHandler`, and
/// nothing of a server's). A server's `context.peer` is not.
fn on_a_client(cx: &Cx<'_>, receiver: &syn::Expr) -> bool {
    let text = cx.line_index().text();
    let has = |name: &[u8]| memchr::memmem::find(text.as_bytes(), name).is_some();
    let named = {
        let r = cx.line_index().range(syn::spanned::Spanned::span(receiver));
        text.get(r.start..r.end)
            .is_some_and(|t| t.to_ascii_lowercase().contains("client"))
    };
    if named && has(b"RoleClient") {
        return true;
    }
    let server_side = [&b"RoleServer"[..], b"ServerHandler", b"RequestContext"]
        .iter()
        .any(|n| has(n));
    let client_side = [&b"RoleClient"[..], b"ClientInfo", b"ClientHandler"]
        .iter()
        .any(|n| has(n));
    client_side && !server_side
}

fn handler_impl(cx: &mut Cx<'_>, version: Option<Version>, i: &syn::ItemImpl) {
    let Some((_, trait_path, _)) = &i.trait_ else {
        return;
    };
    let Some(trait_name) = trait_path.segments.last().map(|s| s.ident.to_string()) else {
        return;
    };
    if !is_rmcp(cx, trait_path) {
        return;
    }
    // Methods of other rmcp traits whose signature changed.
    for it in &i.items {
        let syn::ImplItem::Fn(f) = it else { continue };
        for change in changes_named(&f.sig.ident.to_string()) {
            // The name is the same on both sides of the change, so only a package still below
            // it is known to write the old signature.
            if matches!(change.kind, Kind::ImplSignature { of } if of == trait_name)
                && version.is_none_or(|v| v < change.since)
            {
                report(cx, change, f.sig.ident.span(), f.sig.ident.span());
            }
        }
    }
    // Methods whose result type changed, in any rmcp trait that user types implement.
    for it in &i.items {
        let syn::ImplItem::Fn(f) = it else { continue };
        let fn_name = f.sig.ident.to_string();
        // `#[mrtr_handler]` declares the old result type on purpose and converts it itself.
        let mrtr = f.attrs.iter().any(|a| {
            a.path()
                .segments
                .last()
                .is_some_and(|s| s.ident == "mrtr_handler")
        });
        let syn::ReturnType::Type(_, ty) = &f.sig.output else {
            continue;
        };
        if mrtr {
            continue;
        }
        if let Some(ident) = old_result_in(ty, &fn_name, &trait_name, version) {
            let change = changes_named(&ident.to_string())
                .find(|c| matches!(c.kind, Kind::HandlerResult { method, .. } if method == fn_name))
                .expect("found by old_result_in");
            report(cx, change, ident.span(), ident.span());
        }
    }
    if !["ServerHandler", "ClientHandler"].contains(&trait_name.as_str()) {
        return;
    }
    for attr in &i.attrs {
        if let Some(last) = attr.path().segments.last() {
            for change in changes_named(&last.ident.to_string()) {
                if change.kind == Kind::Removed && applies(change, version, true) {
                    report(cx, change, last.ident.span(), last.ident.span());
                }
            }
        }
    }
    for it in &i.items {
        let syn::ImplItem::Fn(f) = it else { continue };
        let fn_name = f.sig.ident.to_string();
        for change in changes_named(&fn_name) {
            let gone = match change.kind {
                Kind::Removed => true,
                Kind::DroppedMethod { of } => of == trait_name,
                _ => false,
            };
            if gone && applies(change, version, true) {
                report(cx, change, f.sig.ident.span(), f.sig.ident.span());
            }
        }
    }
}

/// The old result type's name in a handler's `Result<Old, E>` (or `impl Future<Output = ..>`).
fn old_result_in<'t>(
    ty: &'t syn::Type,
    method: &str,
    of: &str,
    version: Option<Version>,
) -> Option<&'t syn::Ident> {
    struct Find<'t, 'm> {
        method: &'m str,
        of: &'m str,
        version: Option<Version>,
        found: Option<&'t syn::Ident>,
    }
    impl<'t> Visit<'t> for Find<'t, '_> {
        fn visit_path_segment(&mut self, seg: &'t syn::PathSegment) {
            let name = seg.ident.to_string();
            let hit = changes_named(&name).any(|c| {
                matches!(c.kind, Kind::HandlerResult { method, of } if method == self.method && of == self.of)
                    && applies(c, self.version, true)
            });
            if hit && self.found.is_none() {
                self.found = Some(&seg.ident);
            }
            syn::visit::visit_path_segment(self, seg);
        }
    }
    let mut f = Find {
        method,
        of,
        version,
        found: None,
    };
    f.visit_type(ty);
    f.found
}

fn report(cx: &mut Cx<'_>, change: &Change, first: Span, last: Span) {
    let since = format!("{}.{}", change.since.0, change.since.1);
    // What to do: a rename says the new name, every other change its note.
    let help = match change.kind {
        Kind::Item | Kind::Variant { .. } | Kind::Method => {
            format!("rename it `{}` (rmcp PR #{})", change.new, change.pr)
        }
        _ => format!("{} (rmcp PR #{})", change.note, change.pr),
    };
    let (code, message) = match change.kind {
        Kind::Item | Kind::Variant { .. } | Kind::Method => (
            RENAMED,
            format!(
                "`{}` is `{}` in rmcp {since} and later ({})",
                change.old, change.new, change.note
            ),
        ),
        Kind::Unwrapped { extra, .. } => (
            RENAMED,
            format!(
                "`{}<T>` is gone in rmcp {since} and later: the wrapped type carries `{extra}` itself",
                change.old
            ),
        ),
        Kind::Unit { .. } | Kind::DroppedField { .. } => (
            REMOVED,
            format!("`{}` is gone in rmcp {since} and later", change.old),
        ),
        Kind::DropImport => (
            RENAMED,
            format!("`{}` is gone in rmcp {since} and later", change.old),
        ),
        Kind::DropCall => (
            RENAMED,
            format!("`.{}()` is gone in rmcp {since} and later", change.old),
        ),
        Kind::HandlerResult { method, .. } => (
            HANDLER_RESULT,
            format!(
                "`{method}` returns `{}` in rmcp {since} and later, not `{}`",
                change.new, change.old
            ),
        ),
        Kind::MethodResult { .. } => (
            CALL_ARGS,
            format!(
                "`{}()` gives another type in rmcp {since} and later",
                change.old
            ),
        ),
        Kind::ImplSignature { of } => (
            CALL_ARGS,
            format!(
                "`{of}::{}` has another signature in rmcp {since} and later",
                change.old
            ),
        ),
        Kind::MethodMapped { .. } => (
            CALL_ARGS,
            format!(
                "`{}` is `{}` in rmcp {since} and later, with another result",
                change.old, change.new
            ),
        ),
        Kind::Replaced { with, receiver } => (
            CALL_ARGS,
            format!(
                "`{}{}({})` is gone in rmcp {since} and later; code of the release's API answers it",
                receiver.map(|r| format!("{r}.")).unwrap_or_default(),
                change.old,
                if crate::model::sdk::rmcp_upgrade::replaced_arity(with) == 0 { "" } else { ".." }
            ),
        ),
        Kind::AnnotationMethod { .. } => (
            CALL_ARGS,
            format!(
                "`.{}(..)` of a content value is gone in rmcp {since} and later",
                change.old
            ),
        ),
        Kind::MacroArg { attr } => (
            REMOVED,
            format!(
                "`{}(..)` of `#[{attr}]` is gone in rmcp {since} and later",
                change.old
            ),
        ),
        Kind::DroppedMethod { of } => (
            REMOVED,
            format!(
                "`{of}::{}` is gone in rmcp {since} and later",
                change.old
            ),
        ),
        Kind::Infallible => (
            CALL_ARGS,
            format!(
                "`{}` no longer returns a `Result` in rmcp {since} and later",
                change.old
            ),
        ),
        Kind::Newtyped { was, .. } => (
            CALL_ARGS,
            format!(
                "a handler context's `{}` is no longer a `{was}` in rmcp {since} and later, but a newtype over it",
                change.old
            ),
        ),
        Kind::Widened { of, from, to, .. } => (
            CALL_ARGS,
            format!(
                "`{}::{}` is an `Option<{to}>` in rmcp {since} and later, kept here in an `Option<{from}>`",
                of[0], change.old
            ),
        ),
        Kind::NowOption { of } => (
            CALL_ARGS,
            format!(
                "`{of}::{}` is an `Option` in rmcp {since} and later",
                change.old
            ),
        ),
        Kind::CallArgs { .. } => (
            CALL_ARGS,
            format!(
                "`{}` takes other arguments in rmcp {since} and later",
                change.old
            ),
        ),
        Kind::ExhaustiveMatch { .. } => (
            STRUCT_LITERAL,
            format!(
                "a `match` on `{}` needs a `_` arm on rmcp {since} and later",
                change.old
            ),
        ),
        Kind::GainedFields { .. } => (
            STRUCT_LITERAL,
            format!(
                "a struct literal of `{}` misses the fields rmcp {since} added",
                change.old
            ),
        ),
        Kind::FieldInto { field } => (
            STRUCT_LITERAL,
            format!(
                "`{}`'s `{field}` has another type on rmcp {since} and later",
                change.old
            ),
        ),
        Kind::StructLiteral => (
            STRUCT_LITERAL,
            format!(
                "a struct literal of `{}` does not compile on rmcp {since} and later",
                change.old
            ),
        ),
        Kind::Removed => (
            REMOVED,
            format!("`{}` is gone in rmcp {since} and later", change.old),
        ),
    };
    cx.emit(Draft {
        code,
        first,
        last,
        message,
        mcp_method: None,
        sdk: Some(RMCP.name),
        help: Some(help),
    });
}
