//! Branches holding asks: an `if` / `else if` / `else` chain or a `match` at statement level.
//!
//! A fresh round evaluates the condition or scrutinee once, records the arm it took, runs the
//! arm's statements before its first ask and keeps the bindings later asks need in a per-arm
//! holder; a resumed round reads the arm from the state and refills the holder from it without
//! evaluating anything. The rest of the arm then runs in a dispatch `match` shared by both.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use syn::{Expr, Pat, Stmt};

use super::{count_steps, group_decls, shadow_into, Rewriter};
use crate::names::{free_in_stmts, pattern_bindings, Binding};
use crate::shape::{arm_stmts, classify, if_arms, normalize, BranchStmt, StmtClass};

/// One arm of a branch statement.
pub(super) struct Arm {
    /// `if` condition (None for `else`), or a match pattern with its guard.
    head: ArmHead,
    pub(super) body: Vec<Stmt>,
}

enum ArmHead {
    Cond(Option<Expr>),
    Pat(Pat, Option<Expr>),
}

pub(super) fn branch_arms(expr: &Expr, mrtr: &Ident) -> Vec<Arm> {
    match expr {
        Expr::If(chain) => if_arms(chain)
            .into_iter()
            .map(|(cond, block)| Arm {
                head: ArmHead::Cond(cond),
                body: normalize(block.stmts, mrtr),
            })
            .collect(),
        Expr::Match(m) => m
            .arms
            .iter()
            .map(|arm| Arm {
                head: ArmHead::Pat(
                    arm.pat.clone(),
                    arm.guard.as_ref().map(|(_, g)| (**g).clone()),
                ),
                body: arm_stmts(&arm.body, mrtr),
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Bindings an `if` condition introduces (`if let P = e && let Q = f`).
fn cond_bindings(cond: &Expr) -> Vec<Binding> {
    match cond {
        Expr::Let(l) => pattern_bindings(&l.pat),
        Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_)) => {
            let mut out = cond_bindings(&b.left);
            out.extend(cond_bindings(&b.right));
            out
        }
        Expr::Paren(p) => cond_bindings(&p.expr),
        _ => Vec::new(),
    }
}

impl Rewriter<'_> {
    /// An `if`/`match` statement with asks in its arms.
    pub(super) fn branch(&mut self, branch: BranchStmt, depth: usize) -> TokenStream {
        self.branches += 1;
        let id = self.branches;
        let flow = self.flow.clone();
        let arms = branch_arms(&branch.expr, self.mrtr);
        let first = self.steps + 1;
        let last = self.steps
            + arms
                .iter()
                .map(|a| count_steps(&a.body, self.mrtr))
                .sum::<u32>();
        self.shape
            .push(format!("B{id}:{first}-{last}:{}", arms.len()));

        let sel = format_ident!("__mrtr_sel{}", id);
        let mut holders = Vec::new();
        let mut resumes = Vec::new();
        let mut fresh = Vec::new();
        let mut dispatch = Vec::new();
        let invalid = self.invalid_state();
        for (index, arm) in arms.into_iter().enumerate() {
            let arm_index = index as u32;
            let has_steps = count_steps(&arm.body, self.mrtr) > 0;
            if !has_steps {
                let stmts = &arm.body;
                fresh.push(quote! {{
                    ::mrtr::__private::Selected::Done({ #(#stmts)* })
                }});
                continue;
            }
            let split = arm
                .body
                .iter()
                .position(|s| {
                    matches!(
                        classify(s, self.mrtr),
                        Ok(StmtClass::Ask(_)) | Ok(StmtClass::Branch(_)) | Ok(StmtClass::Loop(_))
                    )
                })
                .unwrap_or(arm.body.len());
            let (prefix, rest) = arm.body.split_at(split);
            let mut visible = match &arm.head {
                ArmHead::Cond(Some(cond)) => cond_bindings(cond),
                ArmHead::Cond(None) => Vec::new(),
                ArmHead::Pat(pat, _) => pattern_bindings(pat),
            };
            shadow_into(&mut visible, group_decls(prefix));
            let rest_free = free_in_stmts(rest);
            let live: Vec<Binding> = visible
                .into_iter()
                .filter(|b| rest_free.contains(&b.ident.to_string()))
                .collect();
            let kept = self.keep(live, prefix);
            self.shape.push(format!(
                "H{id}.{index}:{}",
                kept.iter()
                    .map(|(_, k)| k.as_str())
                    .collect::<Vec<_>>()
                    .join(",")
            ));
            let holder = format_ident!("__mrtr_hold{}_{}", id, index);
            let restores = kept.iter().map(|(b, k)| self.restore(b, k));
            let saves = kept.iter().map(|(b, k)| self.save(b, k));
            let value = Self::tuple_value(&kept);
            let pattern = Self::tuple_pattern(&kept);
            holders.push(quote! {
                #[allow(unused_mut, unused_assignments)]
                let mut #holder = ::core::option::Option::None;
            });
            resumes.push(quote! {
                #arm_index => {
                    #holder = ::core::option::Option::Some((#(#restores,)*));
                    ::mrtr::__private::Selected::Arm(#arm_index)
                }
            });
            fresh.push(quote! {{
                #flow.choose(#id, #arm_index);
                #(#prefix)*
                #(#saves)*
                #holder = ::core::option::Option::Some(#value);
                ::mrtr::__private::Selected::Arm(#arm_index)
            }});
            self.push_kept(&kept, depth + 1);
            let inner = self.block(rest.to_vec(), depth + 1);
            self.kept.truncate(self.kept.len() - kept.len());
            dispatch.push(quote! {
                ::mrtr::__private::Selected::Arm(#arm_index) => {
                    #[allow(unused_mut)]
                    let ::core::option::Option::Some(#pattern) = #holder.take() else { #invalid };
                    #inner
                }
            });
        }

        let selection = match &branch.expr {
            Expr::Match(m) => {
                let scrutinee = &m.expr;
                let heads =
                    branch_arms(&branch.expr, self.mrtr)
                        .into_iter()
                        .map(|a| match a.head {
                            ArmHead::Pat(pat, Some(guard)) => quote!(#pat if #guard),
                            ArmHead::Pat(pat, None) => quote!(#pat),
                            ArmHead::Cond(_) => quote!(_),
                        });
                quote! { match #scrutinee { #(#heads => #fresh)* } }
            }
            _ => {
                let conds: Vec<Option<Expr>> = branch_arms(&branch.expr, self.mrtr)
                    .into_iter()
                    .map(|a| match a.head {
                        ArmHead::Cond(c) => c,
                        ArmHead::Pat(..) => None,
                    })
                    .collect();
                let mut chain = TokenStream::new();
                for (i, (cond, arm)) in conds.iter().zip(&fresh).enumerate() {
                    match cond {
                        Some(cond) if i == 0 => chain.extend(quote!(if #cond #arm)),
                        Some(cond) => chain.extend(quote!(else if #cond #arm)),
                        None => chain.extend(quote!(else #arm)),
                    }
                }
                chain
            }
        };
        let value = quote! {
            match #sel {
                ::mrtr::__private::Selected::Done(__mrtr_value) => __mrtr_value,
                #(#dispatch)*
                ::mrtr::__private::Selected::Arm(_) => { #invalid }
            }
        };
        let statement = match (&branch.local, branch.tail) {
            (Some(local), _) => {
                let attrs = &local.attrs;
                let pat = &local.pat;
                quote!(#(#attrs)* let #pat = #value;)
            }
            (None, true) => value,
            (None, false) => quote!(#value;),
        };
        quote! {
            #(#holders)*
            // The arm's first statements may declare `mut` bindings that change only later,
            // in the dispatch: `unused_mut` would be wrong there.
            #[allow(unused_mut)]
            let #sel = if #flow.resuming_within(#first, #last) {
                match #flow.branch(#id)? {
                    #(#resumes)*
                    _ => { #invalid }
                }
            } else {
                #selection
            };
            #statement
        }
    }
}
