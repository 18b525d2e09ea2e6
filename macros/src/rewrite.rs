//! The rewrite of a handler body into a resumable state machine driven by `Flow`.
//!
//! A block is cut into groups: the statements before its first ask, then one group per ask
//! statement (or `if`/`match`/loop holding asks) together with the plain statements after it. A
//! round that resumes at step `r` skips every group whose steps all lie before `r`; a skipped
//! group's bindings that later code reads come back from the state:
//!
//! ```text
//! let (plan,) = if flow.skip_before(NEXT) { (flow.restore("plan#1")?,) }
//!               else { let plan = compute().await?; flow.save("plan#1", &plan)?; (plan,) };
//! ```
//!
//! Both arms have one type, so the author writes no types. A group saves its kept bindings when
//! it finishes (before later code can move them), and every suspension saves again the kept
//! bindings that code after it reads (their values may have changed since).

use std::collections::HashSet;

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::{Expr, Stmt};

use crate::asks::{key_names, AskKind, AskStmt};
use crate::names::{free_in_expr, free_in_stmts, pattern_bindings, Binding};
use crate::shape::{classify, normalize, StmtClass};

mod branch;
mod looping;
mod nested;

use branch::branch_arms;
pub use nested::with_frame;

/// A binding that can be restored from the state, in scope at the current point.
struct Kept {
    binding: Binding,
    key: String,
    depth: usize,
}

pub struct Rewriter<'m> {
    mrtr: &'m Ident,
    flow: Ident,
    steps: u32,
    branches: u32,
    loops: u32,
    keys: u32,
    kept: Vec<Kept>,
    /// Per enclosing block depth: the names read after the statement being rewritten there.
    after: Vec<HashSet<String>>,
    /// Everything the state's meaning depends on; hashed into the fingerprint.
    pub shape: Vec<String>,
    pub errors: Vec<syn::Error>,
}

fn count_steps(stmts: &[Stmt], mrtr: &Ident) -> u32 {
    normalize(stmts.to_vec(), mrtr)
        .iter()
        .map(|stmt| match classify(stmt, mrtr) {
            Ok(StmtClass::Ask(_)) => 1,
            Ok(StmtClass::Branch(branch)) => branch_arms(&branch.expr, mrtr)
                .iter()
                .map(|arm| count_steps(&arm.body, mrtr))
                .sum(),
            Ok(StmtClass::Loop(looped)) => count_steps(&looping::body_of(&looped.expr), mrtr),
            _ => 0,
        })
        .sum()
}

/// Adds `new` to `visible`, a later binding hiding an earlier one of the same name.
fn shadow_into(visible: &mut Vec<Binding>, new: Vec<Binding>) {
    for binding in new {
        visible.retain(|b| b.ident != binding.ident);
        visible.push(binding);
    }
}

/// Bindings of `let x;` statements (no initializer) among `stmts`.
fn deferred(stmts: &[Stmt]) -> Vec<Ident> {
    stmts
        .iter()
        .filter_map(|s| match s {
            Stmt::Local(local) if local.init.is_none() => Some(pattern_bindings(&local.pat)),
            _ => None,
        })
        .flatten()
        .map(|b| b.ident)
        .collect()
}

/// Bindings declared by a group's statements that are still visible at its end.
fn group_decls(stmts: &[Stmt]) -> Vec<Binding> {
    let mut visible = Vec::new();
    for stmt in stmts {
        if let Stmt::Local(local) = stmt {
            shadow_into(&mut visible, pattern_bindings(&local.pat));
        }
    }
    visible
}

impl<'m> Rewriter<'m> {
    pub fn new(mrtr: &'m Ident) -> Self {
        Rewriter {
            mrtr,
            flow: Ident::new("__mrtr_flow", Span::call_site()),
            steps: 0,
            branches: 0,
            loops: 0,
            keys: 0,
            kept: Vec::new(),
            after: Vec::new(),
            shape: Vec::new(),
            errors: Vec::new(),
        }
    }

    /// The number of steps (ask sites) assigned so far.
    pub fn steps(&self) -> u32 {
        self.steps
    }

    fn invalid_state(&self) -> TokenStream {
        quote! {
            return ::core::result::Result::Err(::mrtr::__private::into_error(
                ::mrtr::__private::MrtrError::InvalidState,
            ))
        }
    }

    fn key_for(&mut self, binding: &Binding) -> String {
        self.keys += 1;
        format!("{}#{}", binding.ident, self.keys)
    }

    /// Assigns state keys to `bindings` (kept across an ask), checking they can be kept.
    fn keep(&mut self, bindings: Vec<Binding>, group: &[Stmt]) -> Vec<(Binding, String)> {
        let deferred = deferred(group);
        let mut out = Vec::new();
        for binding in bindings {
            if deferred.contains(&binding.ident) {
                self.errors.push(syn::Error::new(
                    binding.ident.span(),
                    "#[mrtr_handler]: a `let` without an initializer cannot be kept across an \
                     ask; declare and initialize it in one statement",
                ));
            }
            if binding.by_ref {
                self.errors.push(syn::Error::new(
                    binding.ident.span(),
                    "#[mrtr_handler]: a `ref` binding cannot be kept across an ask (a reference \
                     does not survive the round trip); bind an owned value instead",
                ));
            }
            let key = self.key_for(&binding);
            out.push((binding, key));
        }
        out
    }

    fn push_kept(&mut self, kept: &[(Binding, String)], depth: usize) {
        for (binding, key) in kept {
            self.kept.push(Kept {
                binding: binding.clone(),
                key: key.clone(),
                depth,
            });
        }
    }

    fn save(&self, binding: &Binding, key: &str) -> TokenStream {
        let flow = &self.flow;
        let ident = &binding.ident;
        let check = crate::owned::owned_check(
            crate::owned::Kept::Binding(&ident.to_string()),
            &quote!(#ident),
            ident.span(),
        );
        quote_spanned! {ident.span()=>
            #check
            #flow.save(#key, &#ident)?;
        }
    }

    fn restore(&self, binding: &Binding, key: &str) -> TokenStream {
        let flow = &self.flow;
        quote_spanned! {binding.ident.span()=> #flow.restore(#key)? }
    }

    fn tuple_pattern(bindings: &[(Binding, String)]) -> TokenStream {
        let pats = bindings.iter().map(|(b, _)| {
            let ident = &b.ident;
            if b.mutable {
                quote!(mut #ident)
            } else {
                quote!(#ident)
            }
        });
        quote!((#(#pats,)*))
    }

    fn tuple_value(bindings: &[(Binding, String)]) -> TokenStream {
        let idents = bindings.iter().map(|(b, _)| &b.ident);
        quote!((#(#idents,)*))
    }

    /// Saves, at a suspension at depth `depth`, every kept binding read after it.
    fn saves_at_suspension(&mut self, current: HashSet<String>, depth: usize) -> TokenStream {
        let mut levels: Vec<(usize, &HashSet<String>)> =
            self.after.iter().enumerate().take(depth).collect();
        levels.push((depth, &current));
        let mut chosen: Vec<usize> = Vec::new();
        let mut conflicts = Vec::new();
        for (level, names) in levels {
            for name in names {
                let found = self
                    .kept
                    .iter()
                    .rposition(|k| k.depth <= level && k.binding.ident == name.as_str());
                let Some(index) = found else { continue };
                if let Some(inner) = self.kept[index + 1..]
                    .iter()
                    .find(|k| k.depth > level && k.binding.ident == name.as_str())
                {
                    conflicts.push(inner.binding.ident.clone());
                    continue;
                }
                if !chosen.contains(&index) {
                    chosen.push(index);
                }
            }
        }
        for ident in conflicts {
            self.errors.push(syn::Error::new(
                ident.span(),
                format!(
                    "#[mrtr_handler]: `{ident}` hides an outer `{ident}` that is still used after \
                     this block, across an ask; rename one of them"
                ),
            ));
        }
        chosen.sort_unstable();
        let saves: Vec<TokenStream> = chosen
            .iter()
            .map(|&i| self.save(&self.kept[i].binding, &self.kept[i].key))
            .collect();
        quote!(#(#saves)*)
    }

    /// Rewrites a block's statements (at nesting `depth`).
    pub fn block(&mut self, stmts: Vec<Stmt>, depth: usize) -> TokenStream {
        let stmts = normalize(stmts, self.mrtr);
        let mut items = Vec::new();
        let mut body = Vec::new();
        for stmt in stmts {
            match stmt {
                Stmt::Item(item) => items.push(item),
                other => body.push(other),
            }
        }
        let starts: Vec<usize> = body
            .iter()
            .enumerate()
            .filter(|(_, s)| {
                matches!(
                    classify(s, self.mrtr),
                    Ok(StmtClass::Ask(_)) | Ok(StmtClass::Branch(_)) | Ok(StmtClass::Loop(_))
                )
            })
            .map(|(i, _)| i)
            .collect();
        let mut bounds = vec![0];
        bounds.extend(starts.iter().copied().filter(|&i| i != 0));
        bounds.push(body.len());

        let kept_before = self.kept.len();
        let mut out = TokenStream::new();
        for window in bounds.windows(2) {
            let (start, end) = (window[0], window[1]);
            let last = end == body.len();
            let group_tokens = self.group(&body, start, end, depth);
            if last {
                out.extend(group_tokens);
                continue;
            }
            let next_first = self.steps + 1;
            let flow = self.flow.clone();
            let rest_free = free_in_stmts(&body[end..]);
            let live: Vec<Binding> = group_decls(&body[start..end])
                .into_iter()
                .filter(|b| rest_free.contains(&b.ident.to_string()))
                .collect();
            if live.is_empty() {
                out.extend(quote! {
                    if !#flow.skip_before(#next_first) { #group_tokens }
                });
                self.shape.push(format!("G{next_first}"));
                continue;
            }
            let kept = self.keep(live, &body[start..end]);
            self.shape.push(format!(
                "G{next_first}:{}",
                kept.iter()
                    .map(|(_, k)| k.as_str())
                    .collect::<Vec<_>>()
                    .join(",")
            ));
            let restores = kept.iter().map(|(b, k)| self.restore(b, k));
            let saves = kept.iter().map(|(b, k)| self.save(b, k));
            let pattern = Self::tuple_pattern(&kept);
            let value = Self::tuple_value(&kept);
            out.extend(quote! {
                #[allow(unused_mut)]
                let #pattern = if #flow.skip_before(#next_first) {
                    (#(#restores,)*)
                } else {
                    #group_tokens
                    #(#saves)*
                    #value
                };
            });
            self.push_kept(&kept, depth);
        }
        self.kept.truncate(kept_before);
        quote!(#(#items)* #out)
    }

    /// Rewrites statements `start..end` of `body` (one group): the first may be an ask or a
    /// branch, the rest run straight through.
    fn group(&mut self, body: &[Stmt], start: usize, end: usize, depth: usize) -> TokenStream {
        let mut out = TokenStream::new();
        for index in start..end {
            let stmt = &body[index];
            match classify(stmt, self.mrtr) {
                Ok(StmtClass::Ask(ask)) => {
                    // Read after the ask: the rest of the block (where the ask's own bindings
                    // hide outer names) and a let-else's `else` block.
                    let mut used_after = free_in_stmts(&body[index + 1..]);
                    if let Some(local) = &ask.local {
                        for b in pattern_bindings(&local.pat) {
                            used_after.remove(&b.ident.to_string());
                        }
                        if let Some((_, diverge)) =
                            local.init.as_ref().and_then(|i| i.diverge.as_ref())
                        {
                            used_after.extend(free_in_expr(diverge));
                        }
                    }
                    out.extend(if ask.ask.nested {
                        self.nested_call(ask, used_after, depth)
                    } else {
                        self.ask(ask, used_after, depth)
                    });
                }
                Ok(StmtClass::Loop(looped)) => {
                    // Inside the loop, later iterations read what the whole loop reads.
                    let mut cont = free_in_stmts(&body[index + 1..]);
                    if let Some(local) = &looped.local {
                        for b in pattern_bindings(&local.pat) {
                            cont.remove(&b.ident.to_string());
                        }
                    }
                    // Not the iterable of a `for`: it is consumed once, when the loop starts.
                    cont.extend(free_in_stmts(&looping::body_of(&looped.expr)));
                    if let Expr::While(w) = &looped.expr {
                        cont.extend(free_in_expr(&w.cond));
                    }
                    self.after.truncate(depth);
                    self.after.push(cont);
                    out.extend(self.looped(looped, depth));
                    self.after.truncate(depth);
                }
                Ok(StmtClass::Branch(branch)) => {
                    let mut cont = free_in_stmts(&body[index + 1..]);
                    if let Some(local) = &branch.local {
                        for b in pattern_bindings(&local.pat) {
                            cont.remove(&b.ident.to_string());
                        }
                    }
                    self.after.truncate(depth);
                    self.after.push(cont);
                    out.extend(self.branch(branch, depth));
                    self.after.truncate(depth);
                }
                _ => out.extend(quote!(#stmt)),
            }
        }
        out
    }

    /// One ask statement: a step.
    fn ask(&mut self, ask: AskStmt, used_after: HashSet<String>, depth: usize) -> TokenStream {
        self.steps += 1;
        let step = self.steps;
        let flow = self.flow.clone();
        let span = ask.ask.span;
        let exprs: Vec<Expr> = match &ask.ask.kind {
            AskKind::Single(e) => vec![e.clone()],
            AskKind::Join(es) => es.clone(),
        };
        let pat = ask.local.as_ref().map(|l| &l.pat);
        let keys: Vec<String> = key_names(pat, exprs.len())
            .into_iter()
            .map(|name| format!("s{step}.{name}"))
            .collect();
        self.shape.push(format!("A{step}:{}", keys.join(",")));

        // What the questions read is saved before they are built (building may move it), so a
        // resumed round rebuilds the same questions; what later code reads is saved when the
        // flow suspends (it may have changed since its group ended).
        let read_by_asks: HashSet<String> = exprs.iter().flat_map(free_in_expr).collect();
        let pre_saves = self.saves_at_suspension(read_by_asks, depth);
        let saves = self.saves_at_suspension(used_after, depth);
        self.shape.push(format!("S{step}:{pre_saves}|{saves}"));

        let asks: Vec<Ident> = (0..exprs.len())
            .map(|i| format_ident!("__mrtr_ask{}", i))
            .collect();
        let polls: Vec<Ident> = (0..exprs.len())
            .map(|i| format_ident!("__mrtr_poll{}", i))
            .collect();
        let first_poll = &polls[0];
        let other_polls = &polls[1..];
        let result = match ask.ask.kind {
            AskKind::Single(_) => quote!(#first_poll.into_ready()),
            AskKind::Join(_) => quote! {
                (|| ::core::result::Result::<_, ::mrtr::__private::MrtrError>::Ok((
                    #(#polls.into_ready()?,)*
                )))()
            },
        };
        let resolve = quote_spanned! {span=>
            {
                #pre_saves
                #(let #asks = #exprs;)*
                // A pre-2026 session: the asks go out as real requests now, and the polls
                // below read their answers (nothing is sealed).
                if #flow.in_process() {
                    #flow.carry(::std::vec![#(#asks.outgoing(#keys)),*]).await;
                }
                #(let mut #polls = #flow.poll(#step, #keys, &#asks);)*
                if let ::core::option::Option::Some(__mrtr_error) = #first_poll.take_error()
                    #(.or_else(|| #other_polls.take_error()))*
                {
                    #flow.resolved(#step);
                    ::core::result::Result::Err(__mrtr_error)
                } else if #(#polls.is_pending())||* {
                    #saves
                    return ::core::result::Result::Err(::mrtr::__private::into_error(
                        #flow.suspend(#step),
                    ));
                } else {
                    #flow.resolved(#step);
                    #flow.advance(#step).and_then(|()| #result)
                }
            }
        };
        bind_step(resolve, span, &ask)
    }
}

/// The statement a step becomes: its resolved value (`?` applied when the source had it) bound
/// by the source's `let` (pattern, attributes, `else`), or a plain expression statement.
fn bind_step(resolve: TokenStream, span: Span, ask: &AskStmt) -> TokenStream {
    let let_else = ask
        .local
        .as_ref()
        .and_then(|l| l.init.as_ref())
        .is_some_and(|i| i.diverge.is_some());
    let value = if ask.question_mark {
        quote_spanned!(span=> (#resolve)?)
    } else if let_else {
        // `let PAT = ASK.await else { .. };`: an initializer ending in `}` cannot stand before
        // `else`.
        quote_spanned!(span=> (#resolve))
    } else {
        quote!(#resolve)
    };
    match &ask.local {
        Some(local) => {
            let attrs = &local.attrs;
            let pat = &local.pat;
            let diverge = local
                .init
                .as_ref()
                .and_then(|i| i.diverge.as_ref())
                .map(|(_, e)| quote!(else #e));
            quote!(#(#attrs)* let #pat = #value #diverge;)
        }
        None => quote!(#value;),
    }
}
