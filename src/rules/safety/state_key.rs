//! MCP104 weak-state-key: a requestState key from a literal or a constant, a key shorter than 32
//! bytes, and rmcp's deprecated `RequestStateCodec::new` / unchecked `new_unchecked`.

use syn::spanned::Spanned;

use super::body::{call_path, Body};
use super::{emit, FnView};
use crate::rules::engine::Cx;

const MIN_KEY: usize = 32;

/// What the engine can tell about a key expression.
enum KeySource {
    /// Written in the source; its length when the literal shows it.
    Literal(Option<usize>),
    /// A `const`/`static` (UPPER_CASE name): compiled into the binary.
    Constant(String),
}

fn key_source(b: &Body<'_>, e: &syn::Expr, depth: usize) -> Option<KeySource> {
    if depth > 16 {
        return None;
    }
    match e {
        syn::Expr::Lit(l) => match &l.lit {
            syn::Lit::ByteStr(s) => Some(KeySource::Literal(Some(s.value().len()))),
            syn::Lit::Str(s) => Some(KeySource::Literal(Some(s.value().len()))),
            _ => None,
        },
        syn::Expr::Array(a) if a.elems.iter().all(|x| matches!(x, syn::Expr::Lit(_))) => {
            Some(KeySource::Literal(Some(a.elems.len())))
        }
        syn::Expr::Repeat(r) => {
            let n = match &*r.len {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(i),
                    ..
                }) => i.base10_parse::<usize>().ok(),
                _ => None,
            };
            matches!(&*r.expr, syn::Expr::Lit(_)).then_some(KeySource::Literal(n))
        }
        syn::Expr::Macro(m) if m.mac.path.is_ident("vec") => {
            let inner: syn::Expr = syn::parse2(quote_bracket(&m.mac.tokens)).ok()?;
            key_source(b, &inner, depth + 1)
        }
        syn::Expr::Path(p) => {
            let id = p.path.segments.last()?.ident.to_string();
            if p.path.segments.len() == 1 {
                if b.mut_borrowed.contains(&id) {
                    return None;
                }
                if let Some(init) = b.inits(&id).first() {
                    return key_source(b, init, depth + 1);
                }
            }
            let upper = id
                .chars()
                .all(|c| c.is_uppercase() || c.is_ascii_digit() || c == '_')
                && id.chars().any(|c| c.is_alphabetic());
            upper.then_some(KeySource::Constant(id))
        }
        syn::Expr::MethodCall(mc) => match mc.method.to_string().as_str() {
            "as_bytes" | "to_vec" | "into" | "to_owned" | "as_slice" | "as_ref" | "clone"
            | "into_bytes" => key_source(b, &mc.receiver, depth + 1),
            _ => None,
        },
        syn::Expr::Call(c) => {
            let path = call_path(c);
            let last = path.last().map(String::as_str);
            if matches!(last, Some("from" | "new" | "Some")) && c.args.len() == 1 && path.len() <= 2
            {
                key_source(b, &c.args[0], depth + 1)
            } else {
                None
            }
        }
        syn::Expr::Reference(r) => key_source(b, &r.expr, depth + 1),
        syn::Expr::Unary(u) => key_source(b, &u.expr, depth + 1),
        syn::Expr::Paren(p) => key_source(b, &p.expr, depth + 1),
        syn::Expr::Group(g) => key_source(b, &g.expr, depth + 1),
        _ => None,
    }
}

/// `vec![7u8; 32]` / `vec![1, 2]` bodies as an array expression.
fn quote_bracket(ts: &proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    let g = proc_macro2::Group::new(proc_macro2::Delimiter::Bracket, ts.clone());
    proc_macro2::TokenTree::Group(g).into()
}

/// Type names whose `new_from_slice(key)` takes a MAC or cipher key.
fn is_crypto_type(seg: &str) -> bool {
    [
        "Hmac", "Mac", "ChaCha", "Aes", "Gcm", "Cipher", "Siv", "Poly",
    ]
    .iter()
    .any(|t| seg.contains(t))
}

const HELP: &str = "load at least 32 random bytes from a secret store or the environment at startup (`RequestStateCodec::try_new(std::env::var(\"STATE_KEY\")?.into_bytes())?`, or this project's `MrtrConfig::from_env`), never from the source";

pub(super) fn check(cx: &mut Cx<'_>, f: &FnView<'_>) {
    let b = &f.body;
    // A fn that draws a random key and keeps a literal only as the fallback when the OS random
    // source fails (a placeholder the caller marks unusable) is not hard-coding its key.
    let draws_random = b.idents().iter().any(|i| {
        let w = super::words::words(i);
        w.iter()
            .any(|w| w == "random" || w == "getrandom" || w == "rng")
    });
    if draws_random {
        return;
    }
    // (span, what is constructed, key expression)
    let mut sites: Vec<(proc_macro2::Span, String, &syn::Expr)> = Vec::new();
    for c in &b.calls {
        let path = call_path(c);
        let n = path.len();
        let (Some(last), Some(ty)) = (path.last(), n.checked_sub(2).map(|i| &path[i])) else {
            continue;
        };
        let what = format!("{ty}::{last}");
        if ty == "RequestStateCodec" {
            let deprecated = match (last.as_str(), c.args.len()) {
                ("new", 1) => {
                    Some("is deprecated since rmcp 3.1.4 because it accepts any key length")
                }
                ("new_unchecked", 1) => Some("skips the 32-byte minimum key length"),
                _ => None,
            };
            if let Some(why) = deprecated {
                emit(
                    cx,
                    "MCP104",
                    c.func.span(),
                    Some("rmcp"),
                    format!(
                        "`{what}` {why}: a short key makes the requestState MAC guessable. S11: \
integrity protection is only as strong as its key; use `RequestStateCodec::try_new`"
                    ),
                    HELP,
                );
                continue;
            }
            if matches!(last.as_str(), "try_new" | "new") && !c.args.is_empty() {
                sites.push((c.args[0].span(), what, &c.args[0]));
            }
        } else if ty == "SecretKey" && last == "new" && c.args.len() == 2 {
            sites.push((c.args[1].span(), what, &c.args[1]));
        } else if matches!(last.as_str(), "new_from_slice" | "new_varkey")
            && is_crypto_type(ty)
            && c.args.len() == 1
        {
            sites.push((c.args[0].span(), what, &c.args[0]));
        }
    }
    for m in &b.methods {
        let name = m.method.to_string();
        if matches!(
            name.as_str(),
            "with_state_key" | "with_request_state_secret"
        ) && m.args.len() == 1
        {
            sites.push((m.args[0].span(), format!(".{name}"), &m.args[0]));
        }
    }
    for (span, what, key) in sites {
        let Some(src) = key_source(b, key, 0) else {
            continue;
        };
        let (origin, short) = match src {
            KeySource::Literal(len) => (
                "a literal in the source".to_string(),
                len.filter(|l| *l < MIN_KEY),
            ),
            KeySource::Constant(name) => (
                format!("the constant `{name}`, compiled into the binary"),
                None,
            ),
        };
        let short = short.map_or(String::new(), |l| {
            format!(", and only {l} bytes long (at least {MIN_KEY} needed)")
        });
        emit(
            cx,
            "MCP104",
            span,
            super::sdk_of(cx),
            format!(
                "the requestState key of `{what}` is {origin}{short}: anyone with the source or the \
binary can forge state. S11: requestState integrity protection (HMAC or AEAD) needs a secret key"
            ),
            HELP,
        );
    }
}
