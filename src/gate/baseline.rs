//! Baselines: adopt the linter on a codebase that already has findings, and ratchet them down.
//!
//! An entry names a finding by what it is, not where it sits: its path, rule code, enclosing item
//! (`tools::Server::ask`) and the whitespace-normalized text of its line(s). Inserting lines above
//! a finding, or re-indenting it, keeps it matched. Identical findings in the same item are counted
//! (ESLint's bulk-suppression model): a baseline with `count: 2` hides two and reports a third.
//! Entries with nothing left to match are *stale*; `--update-baseline` drops them.
//!
//! The same identity, hashed, is the SARIF `partialFingerprints` value, so code scanning tracks a
//! result across unrelated edits too.

use std::collections::BTreeMap;
use std::path::Path;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::finding::Finding;
use crate::gate::suppress::SourceScopes;
use crate::reading::source::LineIndex;

pub const FORMAT_VERSION: u32 = 1;
/// Key of our entry in SARIF `partialFingerprints`; bump the suffix if the identity ever changes.
pub const FINGERPRINT_KEY: &str = "mcpLintIdentity/v1";
/// Stack for the threads that parse files for identities (the engine's analysis threads use the
/// same size, for the same reason).
const PARSE_STACK: usize = 256 << 20;

/// What identifies a finding across edits, besides its path and code.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct FindingContext {
    pub item: String,
    pub snippet: String,
}

/// Contexts for `findings`, in the same order. `read` returns a file's text by its finding path;
/// a file that cannot be read gets an empty context (its findings then match on path and code).
pub fn contexts(
    findings: &[Finding],
    mut read: impl FnMut(&str) -> Option<String>,
) -> Vec<FindingContext> {
    let mut by_path: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, f) in findings.iter().enumerate() {
        by_path.entry(f.path.as_str()).or_default().push(i);
    }
    // Reading is sequential (the reader may cache); the parses run in parallel, one per file.
    let work: Vec<(String, Vec<usize>)> = by_path
        .into_iter()
        .filter_map(|(path, idxs)| read(path).map(|src| (src, idxs)))
        .collect();
    let one = |(src, idxs): &(String, Vec<usize>)| -> Vec<(usize, FindingContext)> {
        let index = LineIndex::new(src);
        let scopes = SourceScopes::parse_items(src);
        // As `SourceScopes::enclosing_item`, in log time per finding.
        let items = scopes.as_ref().map(|s| {
            crate::reading::source::Nested::new(
                s.items.iter().map(|it| (it.start, it.end)).collect(),
            )
        });
        idxs.iter()
            .map(|&i| {
                let f = &findings[i];
                let item = scopes
                    .as_ref()
                    .zip(items.as_ref())
                    .and_then(|(s, n)| {
                        n.innermost((f.line, f.column.saturating_sub(1)))
                            .map(|k| s.items[k].path.as_str())
                    })
                    .map(|item| {
                        item[..crate::reading::source::window(item, 0, 0, KEY_WINDOW).end]
                            .to_string()
                    })
                    .unwrap_or_default();
                let snippet = normalized_snippet(&index, f);
                (i, FindingContext { item, snippet })
            })
            .collect()
    };
    // syn recurses once per nesting level, like the engine's parse, so the workers get a stack
    // as deep as the engine's.
    let per_file: Vec<Vec<(usize, FindingContext)>> = match rayon::ThreadPoolBuilder::new()
        .num_threads(crate::lint::worker_threads(None))
        .stack_size(PARSE_STACK)
        .build()
    {
        Ok(pool) => pool.install(|| work.par_iter().map(one).collect()),
        Err(_) => work.iter().map(one).collect(),
    };
    let mut out = vec![FindingContext::default(); findings.len()];
    for (i, c) in per_file.into_iter().flatten() {
        out[i] = c;
    }
    out
}

/// Longest line a snippet or an item name keeps whole. A longer line (minified or generated code)
/// is cut to a window of this many chars around the finding: whole, a 200 KB line with two
/// thousand findings made a 430 MB baseline.
pub const KEY_WINDOW: usize = 200;

/// The finding's line(s), at most three, with every run of whitespace collapsed to one space; a
/// line longer than [`KEY_WINDOW`] bytes only around the finding (its start on its first line,
/// its end on its last).
pub fn normalized_snippet(index: &LineIndex, f: &Finding) -> String {
    let last = f.end_line.max(f.line).min(f.line + 2);
    let mut s = String::new();
    for line in f.line..=last {
        let mut text = index.line_text(line);
        if text.len() > KEY_WINDOW {
            let at = if line == f.line {
                index.offset(line, f.column.saturating_sub(1))
            } else if line == f.end_line {
                index.offset(line, f.end_column.saturating_sub(1))
            } else {
                index.line_start(line)
            };
            let at = at.saturating_sub(index.line_start(line));
            text = &text[crate::reading::source::window(text, at, KEY_WINDOW / 4, KEY_WINDOW)];
        }
        for word in text.split_whitespace() {
            if !s.is_empty() {
                s.push(' ');
            }
            s.push_str(word);
        }
    }
    s
}

/// FNV-1a, 64 bit: tiny, and stable across platforms and releases (std's hasher is neither).
fn fnv1a(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &b in part.as_bytes().iter().chain(std::iter::once(&0u8)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

/// A stable identity per finding: hash of rule, path, item and snippet, plus `:N` for the N-th
/// identical finding (in report order), the same scheme GitHub uses for its own line hashes.
pub fn fingerprints(findings: &[Finding], ctxs: &[FindingContext]) -> Vec<String> {
    let mut seen: BTreeMap<u64, usize> = BTreeMap::new();
    findings
        .iter()
        .zip(ctxs)
        .map(|(f, c)| {
            let h = fnv1a(&[&f.code, &f.path, &c.item, &c.snippet]);
            let n = seen.entry(h).or_insert(0);
            *n += 1;
            format!("{h:016x}:{n}")
        })
        .collect()
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub path: String,
    pub code: String,
    pub item: String,
    pub snippet: String,
    pub count: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    pub version: u32,
    pub entries: Vec<Entry>,
}

impl Baseline {
    /// The baseline that records exactly `findings`; entries sorted, duplicates counted.
    pub fn from_findings(findings: &[Finding], ctxs: &[FindingContext]) -> Baseline {
        let mut counts: BTreeMap<(&str, &str, &str, &str), usize> = BTreeMap::new();
        for (f, c) in findings.iter().zip(ctxs) {
            *counts
                .entry((&f.path, &f.code, &c.item, &c.snippet))
                .or_insert(0) += 1;
        }
        Baseline {
            version: FORMAT_VERSION,
            entries: counts
                .into_iter()
                .map(|((path, code, item, snippet), count)| Entry {
                    path: path.into(),
                    code: code.into(),
                    item: item.into(),
                    snippet: snippet.into(),
                    count,
                })
                .collect(),
        }
    }

    pub fn load(path: &Path) -> Result<Baseline, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read baseline {}: {e}", path.display()))?;
        let b: Baseline = serde_json::from_str(&text).map_err(|e| {
            format!(
                "baseline {} is not a valid baseline file: {e}",
                path.display()
            )
        })?;
        if b.version != FORMAT_VERSION {
            return Err(format!(
                "baseline {} has version {}; this mcp-lint reads version {FORMAT_VERSION}",
                path.display(),
                b.version
            ));
        }
        Ok(b)
    }

    /// Pretty JSON with a final newline; the entry order is sorted, so diffs stay small.
    pub fn to_json(&self) -> String {
        let mut b = self.clone();
        b.entries.sort();
        let mut s = serde_json::to_string_pretty(&b).expect("baseline serializes");
        s.push('\n');
        s
    }

    /// This baseline without what `stale` says no longer matches: it can only shrink, never take
    /// in a new finding (`--prune-baseline`, where `--update-baseline` would record new ones too).
    pub fn pruned(&self, stale: &[Stale]) -> Baseline {
        let mut counts: BTreeMap<(String, String, String, String), usize> = BTreeMap::new();
        for e in &self.entries {
            *counts
                .entry((
                    e.path.clone(),
                    e.code.clone(),
                    e.item.clone(),
                    e.snippet.clone(),
                ))
                .or_insert(0) += e.count;
        }
        for s in stale {
            let e = &s.entry;
            let key = (
                e.path.clone(),
                e.code.clone(),
                e.item.clone(),
                e.snippet.clone(),
            );
            if let Some(n) = counts.get_mut(&key) {
                *n = n.saturating_sub(s.unmatched);
            }
        }
        Baseline {
            version: FORMAT_VERSION,
            entries: counts
                .into_iter()
                .filter(|(_, n)| *n > 0)
                .map(|((path, code, item, snippet), count)| Entry {
                    path,
                    code,
                    item,
                    snippet,
                    count,
                })
                .collect(),
        }
    }

    pub fn save(&self, path: &Path) -> Result<(), String> {
        crate::atomic_write::write_file_atomic(
            path,
            self.to_json().as_bytes(),
            crate::atomic_write::Kind::Report,
        )
        .map_err(|e| format!("cannot write baseline {e}"))
    }

    /// Hides the findings the baseline records; what is left is new.
    pub fn apply(&self, findings: Vec<Finding>, ctxs: &[FindingContext]) -> Applied {
        type Key = (String, String, String, String);
        let key_of = |path: &str, code: &str, c: &FindingContext| -> Key {
            (path.into(), code.into(), c.item.clone(), c.snippet.clone())
        };
        let mut left: BTreeMap<Key, usize> = BTreeMap::new();
        for e in &self.entries {
            let ctx = FindingContext {
                item: e.item.clone(),
                snippet: e.snippet.clone(),
            };
            *left.entry(key_of(&e.path, &e.code, &ctx)).or_insert(0) += e.count;
        }
        let recorded = left.clone();
        let mut new = Vec::new();
        let mut hidden = 0;
        for (f, c) in findings.into_iter().zip(ctxs) {
            match left.get_mut(&key_of(&f.path, &f.code, c)) {
                Some(n) if *n > 0 => {
                    *n -= 1;
                    hidden += 1;
                }
                _ => new.push(f),
            }
        }
        let stale = left
            .into_iter()
            .filter(|(_, n)| *n > 0)
            .map(|(key, unmatched)| {
                let count = recorded[&key];
                let (path, code, item, snippet) = key;
                Stale {
                    entry: Entry {
                        path,
                        code,
                        item,
                        snippet,
                        count,
                    },
                    unmatched,
                }
            })
            .collect();
        Applied { new, hidden, stale }
    }
}

/// An entry (or part of its count) that matched no current finding: the problem was fixed, or the
/// code moved so much that it no longer looks the same.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stale {
    pub entry: Entry,
    pub unmatched: usize,
}

#[derive(Debug)]
pub struct Applied {
    pub new: Vec<Finding>,
    pub hidden: usize,
    pub stale: Vec<Stale>,
}

/// One line for every report format: how many findings the baseline hid and which entries are stale.
pub fn stale_note(file: &str, applied: &Applied) -> Option<String> {
    if applied.stale.is_empty() {
        return None;
    }
    let n: usize = applied.stale.iter().map(|s| s.unmatched).sum();
    let listed: Vec<String> = applied
        .stale
        .iter()
        .take(5)
        .map(|s| {
            let item = if s.entry.item.is_empty() {
                String::new()
            } else {
                format!(" in {}", s.entry.item)
            };
            format!("{} {}{}", s.entry.path, s.entry.code, item)
        })
        .collect();
    let more = if applied.stale.len() > 5 {
        format!(", and {} more", applied.stale.len() - 5)
    } else {
        String::new()
    };
    Some(format!(
        "baseline {file} has {n} stale entr{} that no longer match ({}{more}); run with --update-baseline to drop them",
        if n == 1 { "y" } else { "ies" },
        listed.join("; ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::Level;

    fn finding(code: &str, line: usize, column: usize) -> Finding {
        Finding {
            code: code.into(),
            name: "n".into(),
            level: Level::Error,
            path: "src/tools.rs".into(),
            line,
            column,
            end_line: line,
            end_column: column + 14,
            message: "m".into(),
            mcp_method: Some("sampling/createMessage".into()),
            sdk: Some("rmcp".into()),
            help: None,
            fix: None,
        }
    }

    const BEFORE: &str = "impl Server {\n    async fn ask(&self, ctx: Ctx) {\n        let r = ctx.peer.create_message(p).await;\n    }\n}\n";
    const AFTER: &str = "use std::fmt;\n\n// A new comment.\nimpl Server {\n    async fn ask(&self, ctx: Ctx) {\n        let x = 1;\n          let r = ctx.peer.create_message(p).await;\n    }\n}\n";

    fn ctx_of(src: &str, fs: &[Finding]) -> Vec<FindingContext> {
        contexts(fs, |_| Some(src.to_string()))
    }

    #[test]
    fn identity_survives_lines_inserted_above_and_reindenting() {
        let before = vec![finding("MCP002", 3, 26)];
        let after = vec![finding("MCP002", 7, 28)];
        let cb = ctx_of(BEFORE, &before);
        let ca = ctx_of(AFTER, &after);
        assert_eq!(cb[0].item, "Server::ask");
        assert_eq!(cb, ca);
        assert_eq!(fingerprints(&before, &cb), fingerprints(&after, &ca));
        let b = Baseline::from_findings(&before, &cb);
        let applied = b.apply(after, &ca);
        assert!(applied.new.is_empty());
        assert_eq!(applied.hidden, 1);
        assert!(applied.stale.is_empty());
    }

    #[test]
    fn a_changed_line_is_new_and_its_entry_stale() {
        let before = vec![finding("MCP002", 3, 26)];
        let cb = ctx_of(BEFORE, &before);
        let b = Baseline::from_findings(&before, &cb);
        let changed = BEFORE.replace("create_message(p)", "create_message(q)");
        let now = vec![finding("MCP002", 3, 26)];
        let applied = b.apply(now.clone(), &ctx_of(&changed, &now));
        assert_eq!(applied.new.len(), 1);
        assert_eq!(applied.stale.len(), 1);
        let note = stale_note("mcp-lint-baseline.json", &applied).unwrap();
        assert!(note.contains("1 stale entry"), "{note}");
        assert!(
            note.contains("src/tools.rs MCP002 in Server::ask"),
            "{note}"
        );
    }

    #[test]
    fn pruning_drops_only_what_no_longer_matches() {
        let src = "fn f() {\n    a.create_message(p);\n    a.create_message(p);\n    b.list_roots();\n}\n";
        let all = vec![
            finding("MCP002", 2, 7),
            finding("MCP002", 3, 7),
            finding("MCP003", 4, 7),
        ];
        let b = Baseline::from_findings(&all, &ctx_of(src, &all));
        // One sampling call migrated, and a brand-new finding appeared elsewhere.
        let now_src =
            "fn f() {\n    a.create_message(p);\n    b.list_roots();\n    c.elicit(q);\n}\n";
        let now = vec![
            finding("MCP002", 2, 7),
            finding("MCP003", 3, 7),
            finding("MCP001", 4, 7),
        ];
        let applied = b.apply(now.clone(), &ctx_of(now_src, &now));
        assert_eq!(applied.new.len(), 1);
        let p = b.pruned(&applied.stale);
        let counts: Vec<(&str, usize)> = p
            .entries
            .iter()
            .map(|e| (e.code.as_str(), e.count))
            .collect();
        assert_eq!(
            counts,
            vec![("MCP002", 1), ("MCP003", 1)],
            "the new MCP001 is not absorbed"
        );
    }

    #[test]
    fn counts_hide_only_as_many_duplicates_as_recorded() {
        let src = "fn f() {\n    a.create_message(p);\n    a.create_message(p);\n    a.create_message(p);\n}\n";
        let two = vec![finding("MCP002", 2, 7), finding("MCP002", 3, 7)];
        let b = Baseline::from_findings(&two, &ctx_of(src, &two));
        assert_eq!(b.entries.len(), 1);
        assert_eq!(b.entries[0].count, 2);
        let three = vec![
            finding("MCP002", 2, 7),
            finding("MCP002", 3, 7),
            finding("MCP002", 4, 7),
        ];
        let ctxs = ctx_of(src, &three);
        let fps = fingerprints(&three, &ctxs);
        assert!(fps[0].ends_with(":1") && fps[2].ends_with(":3"));
        assert_ne!(fps[0], fps[1]);
        let applied = b.apply(three, &ctxs);
        assert_eq!(applied.new.len(), 1);
        assert_eq!(applied.new[0].line, 4);
    }

    #[test]
    fn file_round_trips_sorted_and_rejects_garbage() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("baseline.json");
        let fs = vec![finding("MCP003", 3, 26), finding("MCP002", 3, 26)];
        let b = Baseline::from_findings(&fs, &ctx_of(BEFORE, &fs));
        b.save(&p).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.find("MCP002").unwrap() < text.find("MCP003").unwrap());
        assert_eq!(Baseline::load(&p).unwrap(), b);
        std::fs::write(&p, "{\"version\": 1, \"entries\": [{\"path\": 3}]}").unwrap();
        assert!(Baseline::load(&p)
            .unwrap_err()
            .contains("not a valid baseline"));
        std::fs::write(&p, "{\"version\": 9, \"entries\": []}").unwrap();
        assert!(Baseline::load(&p).unwrap_err().contains("version 9"));
    }
}
