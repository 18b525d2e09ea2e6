//! MCP005 removed-url-elicitation-api: the URL-elicitation error and completion notification that
//! rmcp 3.0 removed with MRTR.

use syn::spanned::Spanned;

use super::receiver::server_peer;
use crate::model::sdk::{RemovedApi as Api, SdkTable, SDKS};
use crate::rules::engine::{Cx, Draft, Rule};

pub struct RemovedApi;

/// The wire code of the removed URL-elicitation-required error.
const URL_ELICITATION_CODE: i64 = -32042;

impl Rule for RemovedApi {
    fn codes(&self) -> &'static [&'static str] {
        &["MCP005"]
    }

    fn check_expr(&self, cx: &mut Cx<'_>, expr: &syn::Expr) {
        match expr {
            syn::Expr::MethodCall(mc) => {
                if !removed_name(&mc.method) {
                    return;
                }
                let name = mc.method.to_string();
                for sdk in SDKS {
                    let Some(api) = sdk.removed_api(&name) else {
                        continue;
                    };
                    let v = cx.value_of(&mc.receiver);
                    let untyped = matches!(v.kind, crate::model::scope::Kind::Unknown)
                        && cx.facts().mentions(sdk);
                    if server_peer(cx, sdk, &v).is_some() || untyped {
                        report(cx, sdk, api, mc.method.span());
                        return;
                    }
                }
            }
            syn::Expr::Path(p) => check_path(cx, &p.path),
            syn::Expr::Struct(s) => check_path(cx, &s.path),
            // `ErrorCode(-32042)`: the removed code spelled as a number.
            syn::Expr::Call(c) => {
                let syn::Expr::Path(p) = &*c.func else { return };
                let is_code = p
                    .path
                    .segments
                    .last()
                    .is_some_and(|s| s.ident == "ErrorCode");
                if is_code && c.args.len() == 1 && is_url_code(&c.args[0]) {
                    for sdk in SDKS {
                        if let Some(api) = sdk.removed_api("URL_ELICITATION_REQUIRED") {
                            if !sdk_paths(cx, &p.path).is_empty() {
                                report(cx, sdk, api, c.args[0].span());
                                return;
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }

    fn check_type(&self, cx: &mut Cx<'_>, ty: &syn::Type) {
        if let syn::Type::Path(tp) = ty {
            check_path(cx, &tp.path);
        }
    }
}

fn is_url_code(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => match &*u.expr {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            }) => i
                .base10_parse::<i64>()
                .is_ok_and(|n| -n == URL_ELICITATION_CODE),
            _ => false,
        },
        syn::Expr::Paren(p) => is_url_code(&p.expr),
        _ => false,
    }
}

fn sdk_paths(cx: &Cx<'_>, path: &syn::Path) -> Vec<&'static SdkTable> {
    cx.facts()
        .resolve_path(path)
        .into_iter()
        .map(|(s, _)| s)
        .collect()
}

/// Whether some SDK removed an API of this name: asked of every path segment and method, so
/// compared in place (a handful of names) before anything is allocated.
fn removed_name(ident: &syn::Ident) -> bool {
    SDKS.iter()
        .any(|sdk| sdk.removed.iter().any(|api| ident == api.name))
}

fn check_path(cx: &mut Cx<'_>, path: &syn::Path) {
    for seg in &path.segments {
        if !removed_name(&seg.ident) {
            continue;
        }
        let name = seg.ident.to_string();
        for sdk in SDKS {
            let Some(api) = sdk.removed_api(&name) else {
                continue;
            };
            // The item must come from the SDK: through its crate, an import, or a bare name.
            let head: syn::Path = seg.ident.clone().into();
            let from_sdk = if path.segments.len() == 1 {
                sdk_paths(cx, &head).iter().any(|s| std::ptr::eq(*s, *sdk))
            } else {
                sdk_paths(cx, path).iter().any(|s| std::ptr::eq(*s, *sdk))
            };
            if from_sdk {
                report(cx, sdk, api, seg.ident.span());
                return;
            }
        }
    }
}

fn report(cx: &mut Cx<'_>, sdk: &SdkTable, api: &Api, span: proc_macro2::Span) {
    cx.emit(Draft {
        code: "MCP005",
        first: span,
        last: span,
        message: format!(
            "`{}` is {}, which rmcp 3.0 removed with MRTR (SEP-2322)",
            api.name, api.what
        ),
        mcp_method: api.sends,
        sdk: Some(sdk.name),
        help: Some(api.replacement.to_string()),
    });
}
