//! A call of an asking helper (`helper(&mrtr, ..).await`): a step whose question is asked by
//! the helper's own state machine.
//!
//! The call gets a `Frame` in place of `&mrtr`, built from the caller's flow for this step. When
//! the helper suspends, the caller saves what later code reads and suspends at this step with
//! the helper's progress; when it returns, its value is the value of the step. Like an ask's
//! question, the call's arguments are evaluated again in the round that resumes inside it (what
//! they read is saved before the call), while the helper's finished segments are skipped by its
//! own flow.

use std::collections::HashSet;

use proc_macro2::{Ident, TokenStream};
use quote::{quote, quote_spanned};
use syn::{Expr, ExprCall, ExprMethodCall};

use super::Rewriter;
use crate::asks::{passes_mrtr, AskKind, AskStmt};
use crate::names::free_in_expr;

/// `call` with the argument that hands over the `Mrtr` replaced by `frame`.
pub fn with_frame(call: &Expr, mrtr: &Ident, frame: TokenStream) -> Expr {
    let replace = |args: &mut syn::punctuated::Punctuated<Expr, syn::Token![,]>| {
        for arg in args.iter_mut() {
            if passes_mrtr(arg, mrtr) {
                *arg = syn::parse2(frame.clone()).expect("a frame expression");
                return;
            }
        }
    };
    match call {
        Expr::Call(c) => {
            let mut c: ExprCall = c.clone();
            replace(&mut c.args);
            Expr::Call(c)
        }
        Expr::MethodCall(m) => {
            let mut m: ExprMethodCall = m.clone();
            replace(&mut m.args);
            Expr::MethodCall(m)
        }
        other => other.clone(),
    }
}

impl Rewriter<'_> {
    /// One call of an asking helper: a step.
    pub(super) fn nested_call(
        &mut self,
        ask: AskStmt,
        used_after: HashSet<String>,
        depth: usize,
    ) -> TokenStream {
        self.steps += 1;
        let step = self.steps;
        let flow = self.flow.clone();
        let span = ask.ask.span;
        let AskKind::Single(call) = &ask.ask.kind else {
            unreachable!("a helper call is one expression")
        };
        self.shape.push(format!("H{step}"));

        let read_by_call: HashSet<String> = free_in_expr(call);
        let pre_saves = self.saves_at_suspension(read_by_call, depth);
        let saves = self.saves_at_suspension(used_after, depth);
        self.shape.push(format!("S{step}:{pre_saves}|{saves}"));

        let call = with_frame(call, self.mrtr, quote!(&mut __mrtr_frame));
        let resolve = quote_spanned! {span=>
            {
                #pre_saves
                let mut __mrtr_frame = #flow.frame(#step);
                let __mrtr_result = #call.await;
                if __mrtr_frame.suspended() {
                    #saves
                    return ::core::result::Result::Err(::mrtr::__private::into_error(
                        #flow.suspend_nested(#step, __mrtr_frame),
                    ));
                }
                #flow.nested_done(#step);
                __mrtr_result
            }
        };
        super::bind_step(resolve, span, &ask)
    }
}
