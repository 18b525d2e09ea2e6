//! MCP108 sensitive-form-elicitation: a form-mode elicitation whose schema asks for a password,
//! token, API key or payment data (S29 requires URL mode), and URL-mode URLs over `http://`
//! (S33).

use proc_macro2::Span;
use syn::spanned::Spanned;

use super::body::{
    call_path, json_entries, json_keys_spanned, json_root, json_str, macro_json_objects, Body, Met,
    Step,
};
use super::words::is_sensitive_form_field;
use super::{emit, sdk_of, FnView};
use crate::rules::engine::Cx;

fn all(_: &Met) -> (Step, u8) {
    (Step::Through, 0)
}

const FORM_HELP: &str = "collect credentials and payment data out of band: send a URL-mode elicitation (`mode: \"url\"`, an https URL of your own page) and keep the secret on the server; keep form mode for non-sensitive fields";

fn report_field(cx: &mut Cx<'_>, span: Span, field: &str) {
    emit(
        cx,
        "MCP108",
        span,
        sdk_of(cx),
        format!(
            "a form-mode elicitation asks for `{field}`: form answers pass through the client and the \
model's context. S29: servers MUST NOT use form mode for sensitive data (passwords, API keys, \
tokens, payment credentials) and MUST use URL mode for it"
        ),
        FORM_HELP,
    );
}

/// Fields of a struct defined in this file.
fn struct_fields(cx: &Cx<'_>, ty: &str) -> Vec<String> {
    let mut v: Vec<String> = cx
        .facts()
        .fields
        .keys()
        .filter(|(o, _)| o == ty)
        .map(|(_, f)| f.clone())
        .collect();
    v.sort();
    v
}

fn turbofish_type(args: &syn::AngleBracketedGenericArguments) -> Option<String> {
    args.args.iter().find_map(|a| match a {
        syn::GenericArgument::Type(t) => super::body::last_segment(t),
        _ => None,
    })
}

fn insecure_url(s: &str) -> bool {
    let Some(rest) = s.strip_prefix("http://") else {
        return false;
    };
    let host = rest.split(['/', ':', '?', '{']).next().unwrap_or("");
    !matches!(host, "localhost" | "127.0.0.1" | "[" | "0.0.0.0") && !host.is_empty()
}

fn report_http(cx: &mut Cx<'_>, span: Span) {
    emit(
        cx,
        "MCP108",
        span,
        sdk_of(cx),
        "a URL-mode elicitation points to an `http://` URL: the page that collects the user's \
credentials or consent travels unencrypted. S33: the URL SHOULD use HTTPS outside development"
            .to_string(),
        "serve the page over https (localhost URLs are left alone for development)",
    );
}

fn schema_from_type(cx: &mut Cx<'_>, b: &Body<'_>) {
    for c in &b.calls {
        let p = call_path(c);
        if !p.iter().any(|s| s == "ElicitationSchema") || p.last().is_none_or(|l| l != "from_type")
        {
            continue;
        }
        let syn::Expr::Path(ep) = &*c.func else {
            continue;
        };
        let Some(syn::PathArguments::AngleBracketed(ab)) =
            ep.path.segments.last().map(|s| &s.arguments)
        else {
            continue;
        };
        if let Some(ty) = turbofish_type(ab) {
            if let Some(field) = struct_fields(cx, &ty)
                .into_iter()
                .find(|f| is_sensitive_form_field(f))
            {
                report_field(cx, c.span(), &field);
            }
        }
    }
    for m in &b.methods {
        let name = m.method.to_string();
        // `mrtr.elicit::<Login>(..)` (this project's runtime) and legacy `peer.elicit::<T>`.
        if name == "elicit" {
            if let Some(ty) = m.turbofish.as_ref().and_then(turbofish_type) {
                if let Some(field) = struct_fields(cx, &ty)
                    .into_iter()
                    .find(|f| is_sensitive_form_field(f))
                {
                    report_field(cx, m.method.span(), &field);
                }
            }
            continue;
        }
        // rmcp's `ElicitationSchema::builder().required_string("password")`.
        let builder = name.contains("property")
            || name.starts_with("required_")
            || name.starts_with("optional_");
        if builder && b.idents().contains("ElicitationSchema") {
            if let Some(syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            })) = m.args.first()
            {
                if is_sensitive_form_field(&s.value()) {
                    report_field(cx, s.span(), &s.value());
                }
            }
        }
    }
}

fn struct_literals(cx: &mut Cx<'_>, b: &Body<'_>) {
    for s in &b.structs {
        let Some(last) = s.path.segments.last().map(|l| l.ident.to_string()) else {
            continue;
        };
        let field = |n: &str| {
            s.fields
                .iter()
                .find(|f| matches!(&f.member, syn::Member::Named(m) if m == n))
        };
        match last.as_str() {
            "FormElicitationParams" => {
                let Some(f) = field("requested_schema") else {
                    continue;
                };
                let t = b.trace(&f.expr, &all);
                if let Some(k) = t.json_keys.iter().find(|k| is_sensitive_form_field(k)) {
                    report_field(cx, f.expr.span(), k);
                }
            }
            "UrlElicitationParams" => {
                let Some(f) = field("url") else { continue };
                let t = b.trace(&f.expr, &all);
                if let Some((_, span)) = t.strings.iter().find(|(s, _)| insecure_url(s)) {
                    report_http(cx, *span);
                }
            }
            _ => {}
        }
    }
    for m in &b.methods {
        if m.method == "elicit_url" {
            for a in &m.args {
                let t = b.trace(a, &all);
                if let Some((_, span)) = t.strings.iter().find(|(s, _)| insecure_url(s)) {
                    report_http(cx, *span);
                }
            }
        }
    }
}

fn json_literals(cx: &mut Cx<'_>, b: &Body<'_>) {
    for m in &b.macros {
        if m.path.segments.last().is_none_or(|s| s.ident != "json") {
            continue;
        }
        let objs = macro_json_objects(&m.tokens);
        for o in objs {
            let entries = json_entries(&o);
            let is_url = entries
                .iter()
                .any(|(k, _, v)| k == "mode" && json_str(v).is_some_and(|(s, _)| s == "url"));
            if let Some(schema) = entries
                .iter()
                .find(|(k, _, _)| k == "requestedSchema")
                .and_then(|(_, _, v)| json_root(v))
            {
                let mut keys = Vec::new();
                json_keys_spanned(&schema, &mut keys);
                if let Some((k, span)) = keys.iter().find(|(k, _)| is_sensitive_form_field(k)) {
                    report_field(cx, *span, k);
                }
            }
            if is_url {
                for (k, _, v) in &entries {
                    if k != "url" {
                        continue;
                    }
                    let mut strings = Vec::new();
                    collect_strings(v, &mut strings);
                    if let Some((_, span)) = strings.iter().find(|(s, _)| insecure_url(s)) {
                        report_http(cx, *span);
                    }
                }
            }
        }
    }
}

fn collect_strings(ts: &proc_macro2::TokenStream, out: &mut Vec<(String, Span)>) {
    for tt in ts.clone() {
        match tt {
            proc_macro2::TokenTree::Literal(l) => {
                if let Some(s) = super::body::lit_str(&l) {
                    out.push((s, l.span()));
                }
            }
            proc_macro2::TokenTree::Group(g) => collect_strings(&g.stream(), out),
            _ => {}
        }
    }
}

pub(super) fn check(cx: &mut Cx<'_>, f: &FnView<'_>) {
    let b = &f.body;
    schema_from_type(cx, b);
    struct_literals(cx, b);
    json_literals(cx, b);
}
