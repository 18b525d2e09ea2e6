//! Autofix: `--fix`, `--fix --unsafe-fixes` and `--diff`.
//!
//! - [`apply`]: splices fixes into a text (byte spans of the original; overlapping fixes wait for
//!   the next pass; shared edits apply once).
//! - [`diff`]: the unified diff `--diff` prints.
//! - [`unused_imports`]: the imports a file's fixes made unused, removed after them.
//! - [`format`]: a rustfmt-clean file formatted again after its fixes.
//! - [`rmcp`]: the rewrite of legacy rmcp requests into `#[mrtr_handler]` asks; its fixes are
//!   attached to the engine's findings by [`file_pass`] (registered in `lint::FILE_PASSES`, on the
//!   tree the engine parsed), so every report carries them, the JSON one included.
//!
//! The loop that applies fixes, lints each fixed text again (through the gate) and writes the
//! files is [`crate::fix_driver`]: it runs the engine, which plans fixes with this module, so it
//! sits above both.

mod annotated_content;
pub mod apply;
mod bound_removal;
pub mod diff;
mod find_expr;
pub mod format;
mod gone;
pub mod jsonrpc;
mod macro_arg;
pub mod manifest_edit;
pub mod optional_session;
pub mod rmcp;
pub mod runtime_dependency;
mod sampled_content;
pub mod unused_imports;
pub mod upgrade;

use crate::finding::{Applicability, Finding};

/// Which forms the MRTR rewrite may take. The compiled form (`#[mrtr_handler]`,
/// `#[mrtr_helper]`) is always tried first; the deferred form (`mrtr::rmcp::deferred::*` at the
/// call site, replayed on retry) takes every request it refuses, unless `deferred` is off
/// (`--no-deferred-fixes`: a team that will not accept replay semantics).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tiers {
    pub deferred: bool,
}

impl Default for Tiers {
    fn default() -> Self {
        Tiers { deferred: true }
    }
}

/// Whether the pass over a package's files together may fix `f`, which its file alone did not:
/// an rmcp request (a helper whose callers sit in other files), or, in the deferred tier, a
/// hand-rolled exchange whose request is written in another fn.
pub fn taken_across(f: &Finding, tiers: Tiers) -> bool {
    rmcp::wants(f) || (tiers.deferred && jsonrpc::exchange::wanted(f).is_some())
}

/// The fixes of one file, computed from the tree the engine already parsed: a `lint::FilePass`,
/// registered in `lint::FILE_PASSES`, so fixes are planned on the engine's worker threads without
/// a second parse. Findings are planned before suppressions and the baseline are applied: a
/// handler is migrated as a whole, so its fix covers every legacy call in it.
pub fn file_pass(
    lines: &crate::reading::source::LineIndex,
    file: &syn::File,
    findings: &mut [Finding],
    tiers: Tiers,
) {
    mrtr_pass(lines, file, findings, tiers);
    if tiers.deferred {
        jsonrpc::ask::plan(lines, file, findings);
        jsonrpc::exchange::plan_file(lines, file, findings);
    }
    // After the MRTR rewrite is planned: a handler it rewrites keeps its old result type.
    upgrade::attach(lines, file, findings);
}

fn mrtr_pass(
    lines: &crate::reading::source::LineIndex,
    file: &syn::File,
    findings: &mut [Finding],
    tiers: Tiers,
) {
    let members: Vec<usize> = (0..findings.len())
        .filter(|&i| findings[i].fix.is_none() && rmcp::wants(&findings[i]))
        .collect();
    if members.is_empty() {
        return;
    }
    let fixes = {
        let fs: Vec<&Finding> = members.iter().map(|&i| &findings[i]).collect();
        rmcp::plan_parsed(lines, file, &fs, tiers)
    };
    for (i, fix) in members.into_iter().zip(fixes) {
        findings[i].fix = fix;
    }
}

/// Which fixes a run applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Allowed {
    pub unsafe_fixes: bool,
}

impl Allowed {
    pub fn admits(&self, a: Applicability) -> bool {
        match a {
            Applicability::Safe => true,
            Applicability::Unsafe => self.unsafe_fixes,
            Applicability::DisplayOnly => false,
        }
    }
}
