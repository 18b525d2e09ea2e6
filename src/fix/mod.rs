//! Autofix: `--fix`, `--fix --unsafe-fixes` and `--diff`.
//!
//! - [`apply`]: splices fixes into a text (byte spans of the original; overlapping fixes wait for
//!   the next pass; shared edits apply once).
//! - [`diff`]: the unified diff `--diff` prints.
//! - [`rmcp`]: the rewrite of legacy rmcp requests into `#[mrtr_handler]` asks; its fixes are
//!   attached to the engine's findings by [`file_pass`] (registered in `lint::FILE_PASSES`, on the
//!   tree the engine parsed), so every report carries them, the JSON one included.
//! - [`driver`]: the passes over each file (apply, parse, lint again, up to
//!   [`driver::MAX_PASSES`]), the atomic writes, and what the command prints.

pub mod apply;
pub mod diff;
pub mod driver;
pub mod rmcp;

use std::collections::BTreeMap;

use rayon::prelude::*;

use crate::finding::{Applicability, Finding, Report};

/// Adds the fixes this module computes to the findings that have none yet, parsing each file
/// again. The engine attaches them already (see [`file_pass`]); this is for findings that come
/// from elsewhere without them (the fuzz harness's gated report). `text` gives a file's text by
/// its report path.
pub fn attach(report: &mut Report, mut text: impl FnMut(&str) -> Option<String>) {
    let mut by_path: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, f) in report.findings.iter().enumerate() {
        if f.fix.is_none() && rmcp::wants(f) {
            by_path.entry(f.path.clone()).or_default().push(i);
        }
    }
    // Reading is sequential (the reader may cache). Planning parses each file again: on a tree
    // where every file has findings that was 44% of a run, on one thread, so it runs in parallel
    // like the engine's pass, on the same big stacks (the file passed the engine's depth guard,
    // but syn and the planner still recurse once per nesting level).
    let work: Vec<(String, Vec<usize>)> = by_path
        .into_iter()
        .filter_map(|(path, members)| text(&path).map(|src| (src, members)))
        .collect();
    let findings = &report.findings;
    let plan_one = |(src, members): &(String, Vec<usize>)| {
        let fs: Vec<&Finding> = members.iter().map(|&i| &findings[i]).collect();
        rmcp::plan(src, &fs)
    };
    let planned: Vec<Vec<Option<crate::finding::Fix>>> = match rayon::ThreadPoolBuilder::new()
        .stack_size(crate::lint::STACK_SIZE)
        .build()
    {
        Ok(pool) => pool.install(|| work.par_iter().map(plan_one).collect()),
        Err(_) => work.iter().map(plan_one).collect(),
    };
    for ((_, members), fixes) in work.into_iter().zip(planned) {
        for (i, fix) in members.into_iter().zip(fixes) {
            report.findings[i].fix = fix;
        }
    }
}

/// The fixes of one file, computed from the tree the engine already parsed: a `lint::FilePass`,
/// registered in `lint::FILE_PASSES`, so fixes are planned on the engine's worker threads without
/// a second parse. Findings are planned before suppressions and the baseline are applied: a
/// handler is migrated as a whole, so its fix covers every legacy call in it.
pub fn file_pass(text: &str, file: &syn::File, findings: &mut [Finding]) {
    let members: Vec<usize> = (0..findings.len())
        .filter(|&i| findings[i].fix.is_none() && rmcp::wants(&findings[i]))
        .collect();
    if members.is_empty() {
        return;
    }
    let fixes = {
        let fs: Vec<&Finding> = members.iter().map(|&i| &findings[i]).collect();
        rmcp::plan_parsed(text, file, &fs)
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
