//! What `cargo mcp-lint migrate` tells the reviewer of the pull request: the sites migrated by
//! tier, the sites left and why, the upgrade findings left, the build with each compiler error
//! tied to the finding that explains it, and what else 2026-07-28 needs. One Markdown text, for
//! stdout and for `--report FILE` (`MIGRATION.md`).

use std::fmt::Write as _;

use crate::finding::{Applicability, FileError, Finding};

/// How a migrated site runs on 2026-07-28.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tier {
    /// `#[mrtr_handler]` / `#[mrtr_helper]`: a compiled state machine, finished steps never re-run.
    Compiled,
    /// `mrtr::rmcp::deferred::*`: the request is replayed from the top with the answers it has.
    Deferred,
    /// Any other fix (an rmcp upgrade, a safety fix).
    Other,
}

/// The tier of a fix, read off its message: the one place that knows how the fix messages of
/// `fix::rmcp` name the two tiers. The deferred form is checked first, because its message also
/// names the `#[mrtr_handler]` its handler becomes; an asking helper that returns `Result` says
/// `mrtr.elicit(..)` (the compiled ask) without naming an attribute.
pub fn tier(message: &str) -> Tier {
    if message.contains("mrtr::rmcp::deferred") {
        Tier::Deferred
    } else if message.contains("#[mrtr_handler]")
        || message.contains("#[mrtr_helper]")
        || message.contains("`mrtr.")
    {
        Tier::Compiled
    } else {
        Tier::Other
    }
}

/// What a deferred fix's message says re-runs on a retry (the clauses about the retry or the
/// statements run again), when it says it.
pub fn reruns(message: &str) -> Option<String> {
    let mut parts = Vec::new();
    for clause in message.split("; ") {
        // A clause may open a parenthesised remark (`.. (same result`) or close one (`the retry
        // runs .. again)`): the remark alone, without the unbalanced bracket.
        let opens = clause.matches('(').count();
        let closes = clause.matches(')').count();
        let inner = if opens > closes {
            clause.rsplit_once('(').map_or(clause, |(_, rest)| rest)
        } else if closes > opens {
            clause.strip_suffix(')').unwrap_or(clause)
        } else {
            clause
        };
        let lower = inner.to_lowercase();
        if lower.contains("re-run")
            || lower.contains("rerun")
            || lower.contains("again")
            || lower.contains("replay")
        {
            parts.push(inner.trim().to_string());
        }
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// A family of findings, by the code's prefix.
fn is_site(code: &str) -> bool {
    code.starts_with("MCP00")
}
fn is_upgrade(code: &str) -> bool {
    code.starts_with("MCP2")
}
/// Rules for the rest of the 2026-07-28 protocol (their catalog range, whatever they are).
fn is_also_needed(code: &str) -> bool {
    code.starts_with("MCP3")
}

/// What was decided about the unsafe fixes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UnsafeFixes {
    /// None were needed.
    NoneNeeded,
    /// Applied (`--yes`, or confirmed on the terminal).
    Applied,
    /// Not applied, and why (declined, or nobody to ask).
    Refused(String),
}

/// One compiler error of the build, and the remaining finding that explains it.
#[derive(Debug, Clone)]
pub struct CompilerError {
    /// As the findings show paths (relative to the run's directory), or as cargo gave it.
    pub path: String,
    pub line: usize,
    pub column: usize,
    /// The first line of rustc's message, with its code (`E0308`) when it has one.
    pub message: String,
    /// `CODE path:line` of the finding at the same place, or `None`: unexplained.
    pub explained_by: Option<String>,
}

/// `cargo check` of one package the migration touched.
#[derive(Debug, Clone)]
pub struct PackageBuild {
    /// The package's manifest, as shown.
    pub manifest: String,
    pub passed: bool,
    pub errors: Vec<CompilerError>,
    /// When cargo failed without a compiler error of its own to show (a dependency it cannot
    /// resolve, a build script, no network): the end of what cargo said.
    pub cargo_said: Option<String>,
}

/// Everything the report is made of.
#[derive(Debug, Clone, Default)]
pub struct Migration {
    pub root: String,
    pub unsafe_fixes: Option<UnsafeFixes>,
    /// Each fixed finding with its fix's whole message.
    pub fixed: Vec<(Finding, String)>,
    /// Files the fixes left as they were, and why.
    pub not_fixed: Vec<FileError>,
    /// The files this run changed, as shown.
    pub changed: Vec<String>,
    /// The findings of the tree after the run.
    pub remaining: Vec<Finding>,
    /// Files that could not be read.
    pub errors: Vec<FileError>,
    /// `None`: the build was not run (`--no-check`, or nothing was touched).
    pub build: Option<Vec<PackageBuild>>,
}

impl Migration {
    pub fn migrated(&self, want: Tier) -> Vec<&(Finding, String)> {
        self.fixed
            .iter()
            .filter(|(f, m)| is_site(&f.code) && tier(m) == want)
            .collect()
    }

    /// Sites fixed without a tier the classifier knows (a message it does not recognise): still
    /// migrated, listed on their own so that no site goes missing from the counts.
    fn migrated_unclassified(&self) -> Vec<&(Finding, String)> {
        self.migrated(Tier::Other)
    }

    pub fn sites_left(&self) -> Vec<&Finding> {
        self.remaining.iter().filter(|f| is_site(&f.code)).collect()
    }

    pub fn build_passed(&self) -> Option<bool> {
        self.build.as_ref().map(|b| b.iter().all(|p| p.passed))
    }
}

fn place(f: &Finding) -> String {
    format!("`{}:{}`", f.path, f.line)
}

fn method(f: &Finding) -> String {
    f.mcp_method
        .as_deref()
        .map_or(String::new(), |m| format!(" `{m}`"))
}

/// The first paragraph of the rule's "how to fix": the redesign advice.
fn advice(code: &str) -> Option<String> {
    let doc = crate::catalog::catalog().get(code)?;
    let first = doc.how_to_fix.trim().split("\n\n").next()?.trim();
    Some(first.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// Why a site was left: its fix's remark when it has one that was not applied, else the finding's.
fn why_left(f: &Finding, unsafe_refused: bool) -> String {
    match &f.fix {
        Some(x) if x.applicability == Applicability::Unsafe && unsafe_refused => format!(
            "its fix is unsafe and was not applied ({})",
            first_clause(&x.message)
        ),
        Some(x) if !x.message.is_empty() => first_clause(&x.message).to_string(),
        _ => f.message.clone(),
    }
}

fn first_clause(s: &str) -> &str {
    s.split("; ").next().unwrap_or(s)
}

/// Renders the report as Markdown.
pub fn render(m: &Migration) -> String {
    let mut s = String::new();
    let compiled = m.migrated(Tier::Compiled);
    let deferred = m.migrated(Tier::Deferred);
    let unclassified = m.migrated_unclassified();
    let left = m.sites_left();
    let upgrades_left: Vec<&Finding> = m.remaining.iter().filter(|f| is_upgrade(&f.code)).collect();
    let also: Vec<&Finding> = m
        .remaining
        .iter()
        .filter(|f| is_also_needed(&f.code))
        .collect();
    let others_left: Vec<&Finding> = m
        .remaining
        .iter()
        .filter(|f| !is_site(&f.code) && !is_upgrade(&f.code) && !is_also_needed(&f.code))
        .collect();
    let refused = matches!(m.unsafe_fixes, Some(UnsafeFixes::Refused(_)));

    let _ = writeln!(s, "# MRTR migration of `{}`\n", m.root);
    let build = match m.build_passed() {
        None => "not run".to_string(),
        Some(true) => "`cargo check` passed".to_string(),
        Some(false) => "`cargo check` failed".to_string(),
    };
    let _ = writeln!(
        s,
        "- sites migrated: {} ({} compiled, {} deferred{})\n- sites left: {}\n- upgrade findings \
left: {}\n- files changed: {}\n- build: {build}",
        compiled.len() + deferred.len() + unclassified.len(),
        compiled.len(),
        deferred.len(),
        if unclassified.is_empty() {
            String::new()
        } else {
            format!(", {} other", unclassified.len())
        },
        left.len(),
        upgrades_left.len(),
        m.changed.len(),
    );
    match &m.unsafe_fixes {
        Some(UnsafeFixes::Refused(why)) => {
            let _ = writeln!(s, "- unsafe fixes: **not applied**: {why}");
        }
        Some(UnsafeFixes::Applied) => {
            let _ = writeln!(
                s,
                "- unsafe fixes: applied (review them: they change behaviour)"
            );
        }
        _ => {}
    }
    s.push('\n');

    let _ = writeln!(
        s,
        "## Sites migrated: {}\n",
        compiled.len() + deferred.len() + unclassified.len()
    );
    let _ = writeln!(
        s,
        "### Compiled state machine (`#[mrtr_handler]` / `#[mrtr_helper]`): {}\n",
        compiled.len()
    );
    let _ = writeln!(
        s,
        "Steps finished in an earlier round never run again; what they keep travels in the sealed \
`requestState`.\n"
    );
    for (f, msg) in &compiled {
        let _ = writeln!(s, "- {} {}{}: {}", place(f), f.code, method(f), msg);
    }
    if !compiled.is_empty() {
        s.push('\n');
    }
    let _ = writeln!(
        s,
        "### Deferred replay (`mrtr::rmcp::deferred`): {}\n",
        deferred.len()
    );
    let _ = writeln!(
        s,
        "On 2026-07-28 the request is replayed from the top with the answers it has: the \
statements before the ask run again. Check that they are safe to repeat.\n"
    );
    for (f, msg) in &deferred {
        let _ = writeln!(s, "- {} {}{}: {}", place(f), f.code, method(f), msg);
        if let Some(r) = reruns(msg) {
            let _ = writeln!(s, "  - re-runs: {r}");
        }
    }
    if !deferred.is_empty() {
        s.push('\n');
    }
    if !unclassified.is_empty() {
        let _ = writeln!(s, "### Migrated otherwise: {}\n", unclassified.len());
        for (f, msg) in &unclassified {
            let _ = writeln!(s, "- {} {}{}: {}", place(f), f.code, method(f), msg);
        }
        s.push('\n');
    }
    let other_fixes: Vec<&(Finding, String)> =
        m.fixed.iter().filter(|(f, _)| !is_site(&f.code)).collect();
    if !other_fixes.is_empty() {
        let _ = writeln!(s, "### Other fixes applied: {}\n", other_fixes.len());
        for (f, msg) in &other_fixes {
            let _ = writeln!(s, "- {} {}: {}", place(f), f.code, first_clause(msg));
        }
        s.push('\n');
    }

    let _ = writeln!(s, "## Sites left: {}\n", left.len());
    for f in &left {
        let _ = writeln!(
            s,
            "- {} {}{}: {}",
            place(f),
            f.code,
            method(f),
            why_left(f, refused)
        );
        if let Some(a) = advice(&f.code) {
            let _ = writeln!(s, "  - advice: {a}");
        }
    }
    if !left.is_empty() {
        s.push('\n');
    }

    let _ = writeln!(
        s,
        "## Upgrade findings left (MCP2xx): {}\n",
        upgrades_left.len()
    );
    for f in &upgrades_left {
        let _ = writeln!(s, "- {} {}: {}", place(f), f.code, f.message);
    }
    if !upgrades_left.is_empty() {
        s.push('\n');
    }

    let _ = writeln!(s, "## Build\n");
    match &m.build {
        None => {
            let _ = writeln!(s, "`cargo check` was not run.\n");
        }
        Some(b) if b.is_empty() => {
            let _ = writeln!(s, "No package was changed, so nothing was checked.\n");
        }
        Some(builds) => {
            for b in builds {
                let verdict = if b.passed { "passed" } else { "failed" };
                let _ = writeln!(s, "### `{}`: {verdict}\n", b.manifest);
                let unexplained = b.errors.iter().filter(|e| e.explained_by.is_none()).count();
                if !b.errors.is_empty() {
                    let _ = writeln!(
                        s,
                        "{} error{}, {} explained by a finding, {unexplained} unexplained.\n",
                        b.errors.len(),
                        if b.errors.len() == 1 { "" } else { "s" },
                        b.errors.len() - unexplained
                    );
                }
                for e in &b.errors {
                    let by = match &e.explained_by {
                        Some(f) => format!("explained by {f}"),
                        None => "**unexplained**".to_string(),
                    };
                    let _ = writeln!(
                        s,
                        "- `{}:{}:{}` {}: {by}",
                        e.path, e.line, e.column, e.message
                    );
                }
                if let Some(said) = &b.cargo_said {
                    let _ = writeln!(
                        s,
                        "cargo failed before it could report a compiler error; the migrated \
files are written as they are. Cargo said:\n\n```text\n{}\n```",
                        said.trim_end()
                    );
                }
                s.push('\n');
            }
        }
    }

    let _ = writeln!(s, "## Also needed for 2026-07-28: {}\n", also.len());
    for f in &also {
        let _ = writeln!(s, "- {} {}: {}", place(f), f.code, f.message);
    }
    if !also.is_empty() {
        s.push('\n');
    }

    if !others_left.is_empty() {
        let _ = writeln!(s, "## Other findings left: {}\n", others_left.len());
        for f in &others_left {
            let _ = writeln!(s, "- {} {}: {}", place(f), f.code, f.message);
        }
        s.push('\n');
    }
    if !m.not_fixed.is_empty() || !m.errors.is_empty() {
        let _ = writeln!(s, "## Files left as they were\n");
        for e in m.not_fixed.iter().chain(&m.errors) {
            let _ = writeln!(s, "- `{}`: {}", e.path, e.message);
        }
        s.push('\n');
    }
    if !m.changed.is_empty() {
        let _ = writeln!(s, "## Files changed\n");
        for c in &m.changed {
            let _ = writeln!(s, "- `{c}`");
        }
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tier_is_read_off_the_fix_message() {
        assert_eq!(
            tier("`elicit` becomes `mrtr::rmcp::deferred::elicit` (same result; the retry runs the handler again up to it); `run` becomes a `#[mrtr_handler]`"),
            Tier::Deferred,
            "deferred wins over the handler it names"
        );
        assert_eq!(
            tier("`elicit` becomes `mrtr.elicit::<T>(..)` under `#[mrtr_handler]`"),
            Tier::Compiled
        );
        assert_eq!(
            tier("`elicit` becomes `mrtr.elicit(..)` in asking helper `confirm` (`#[mrtr_helper]`); its caller passes `&mrtr`"),
            Tier::Compiled
        );
        assert_eq!(
            tier("`ask` becomes `mrtr.elicit(..)` in asking helper `ask` (returns `Result`); its caller passes `&mrtr`"),
            Tier::Compiled
        );
        assert_eq!(tier("`Error` is renamed `ErrorData`"), Tier::Other);
    }

    #[test]
    fn the_rerun_text_is_kept() {
        assert_eq!(
            reruns("`elicit` becomes `mrtr::rmcp::deferred::elicit` (same result; the retry runs the handler again up to it); `run` becomes a `#[mrtr_handler]`").as_deref(),
            Some("the retry runs the handler again up to it")
        );
        assert_eq!(
            reruns("`elicit` becomes `mrtr::rmcp::deferred::elicit`; re-runs: `let n = count();`, `log(..)`")
                .as_deref(),
            Some("re-runs: `let n = count();`, `log(..)`")
        );
        assert_eq!(reruns("`elicit` becomes `mrtr.elicit(..)`"), None);
    }
}
