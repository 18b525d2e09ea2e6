//! The copy of a handler emitted next to its compile errors: every ask replaced by a typed
//! stand-in, so the body still type-checks and only the macro's own error is reported.

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use quote::quote;
use syn::visit_mut::VisitMut;
use syn::{Expr, Ident, ItemFn};

use crate::asks::{parse_ask_lenient, AskKind, SINGLE_ASKS};

struct Neutralize<'m> {
    mrtr: &'m Ident,
}

impl VisitMut for Neutralize<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        if let Some(ask) = parse_ask_lenient(expr, self.mrtr) {
            let mut replaced: Expr = match ask.kind {
                AskKind::Single(call) if ask.nested => {
                    let mrtr = self.mrtr;
                    let call = crate::rewrite::with_frame(
                        &call,
                        mrtr,
                        quote!(&mut ::mrtr::__private::Frame::detached(&#mrtr)),
                    );
                    syn::parse_quote!(#call.await)
                }
                AskKind::Single(inner) => {
                    syn::parse_quote!(::mrtr::__private::unrewritten_ask(#inner))
                }
                AskKind::Join(asks) => {
                    syn::parse_quote!(::mrtr::__private::unrewritten_join((#(#asks,)*)))
                }
            };
            syn::visit_mut::visit_expr_mut(self, &mut replaced);
            *expr = replaced;
            return;
        }
        syn::visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        mac.tokens = neutralize_tokens(mac.tokens.clone(), self.mrtr);
    }
}

fn is_punct(tree: Option<&TokenTree>, c: char) -> bool {
    matches!(tree, Some(TokenTree::Punct(p)) if p.as_char() == c)
}

fn is_parens(tree: Option<&TokenTree>) -> bool {
    matches!(tree, Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis)
}

/// The same stand-ins inside macro arguments, found by tokens:
/// `mrtr . method (..) [. key (..)]* . await`.
fn neutralize_tokens(tokens: TokenStream, mrtr: &Ident) -> TokenStream {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < trees.len() {
        if let Some((end, replacement)) = ask_at(&trees, i, mrtr) {
            out.extend(replacement);
            i = end;
            continue;
        }
        match &trees[i] {
            TokenTree::Group(g) => {
                let mut group = Group::new(g.delimiter(), neutralize_tokens(g.stream(), mrtr));
                group.set_span(g.span());
                out.push(TokenTree::Group(group));
            }
            other => out.push(other.clone()),
        }
        i += 1;
    }
    out.into_iter().collect()
}

/// An awaited ask starting at `trees[start]`: where it ends and its stand-in.
fn ask_at(trees: &[TokenTree], start: usize, mrtr: &Ident) -> Option<(usize, TokenStream)> {
    let TokenTree::Ident(receiver) = &trees[start] else {
        return None;
    };
    if receiver != mrtr || !is_punct(trees.get(start + 1), '.') {
        return None;
    }
    let Some(TokenTree::Ident(method)) = trees.get(start + 2) else {
        return None;
    };
    let name = method.to_string();
    if !(SINGLE_ASKS.contains(&name.as_str()) || name == "join") {
        return None;
    }
    // An optional turbofish: `::<..>`.
    let mut args_at = start + 3;
    if is_punct(trees.get(args_at), ':') && is_punct(trees.get(args_at + 1), ':') {
        let mut depth = 0usize;
        let mut i = args_at + 2;
        loop {
            match trees.get(i)? {
                TokenTree::Punct(p) if p.as_char() == '<' => depth += 1,
                TokenTree::Punct(p) if p.as_char() == '>' => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
            i += 1;
        }
        args_at = i + 1;
    }
    if !is_parens(trees.get(args_at)) {
        return None;
    }
    let mut end = args_at + 1;
    while is_punct(trees.get(end), '.')
        && matches!(trees.get(end + 1), Some(TokenTree::Ident(k)) if k == "key")
        && is_parens(trees.get(end + 2))
    {
        end += 3;
    }
    let awaited = is_punct(trees.get(end), '.')
        && matches!(trees.get(end + 1), Some(TokenTree::Ident(a)) if a == "await");
    if !awaited {
        return None;
    }
    let call: TokenStream = trees[start..end].iter().cloned().collect();
    let replacement = if name == "join" {
        let Some(TokenTree::Group(args)) = trees.get(args_at) else {
            return None;
        };
        let args = args.stream();
        quote!(::mrtr::__private::unrewritten_join((#args,)))
    } else {
        quote!(::mrtr::__private::unrewritten_ask(#call))
    };
    Some((end + 2, replacement))
}

/// `item` with its asks replaced (the signature untouched).
pub fn neutralize(mut item: ItemFn, mrtr: &Ident) -> proc_macro2::TokenStream {
    Neutralize { mrtr }.visit_block_mut(&mut item.block);
    quote!(#item)
}

#[cfg(test)]
mod tests {
    #[test]
    fn asks_inside_macro_arguments_get_stand_ins() {
        let mrtr = syn::Ident::new("mrtr", proc_macro2::Span::call_site());
        let item: syn::ItemFn = syn::parse_quote! {
            async fn h(mrtr: Mrtr) -> Result<V, E> {
                Ok(json!({ "a": mrtr.elicit::<C>("Go?").key("k").await?.accepted(), "b": mrtr.join(x, y).await }))
            }
        };
        let out = super::neutralize(item, &mrtr).to_string();
        assert!(
            out.contains("unrewritten_ask (mrtr . elicit :: < C > (\"Go?\") . key (\"k\"))"),
            "{out}"
        );
        assert!(out.contains("unrewritten_join ((x , y ,))"), "{out}");
        assert!(!out.contains("await"), "{out}");
    }
}
