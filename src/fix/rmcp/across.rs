//! Helpers whose callers sit in other files of the crate: `pub(crate) async fn confirm(peer, ..)`
//! in `helpers.rs`, called from tools in `tools/*.rs`. The file-by-file rewrite leaves them (a
//! caller it cannot see would not build); `--fix` then plans them once more over the package's
//! source files laid end to end, so the helper, every caller and the callers' callers change in
//! one fix, and the files are written together or not at all.
//!
//! The files are planned as one text: each file's inner attributes and `//!` docs (which may only
//! open a file) are blanked to spaces of the same length, so every other byte keeps its offset
//! and each edit maps back into the one file it falls in. A function name that the crate defines
//! twice (as a free function, or as a method) stops the helper's rewrite: calls are matched by
//! name.

use super::handler;
use super::text::range_of;
use crate::finding::{Applicability, Edit, Finding};
use crate::reading::source::LineIndex;

/// What the plan over the crate changes.
#[derive(Default)]
pub struct Across {
    /// The new text of each file that changes, by its index in the files given.
    pub texts: Vec<(usize, String)>,
    /// The findings it fixes (as given: path and position in the files as they are), with the
    /// fix's message.
    pub fixed: Vec<(Finding, String)>,
}

/// Plans the rmcp findings of `findings` whose helper has callers in other files of `files`
/// (path as the findings name it, text). `Ok(None)` when nothing can be rewritten; `Err` when a
/// file does not parse.
pub fn plan(
    files: &[(String, String)],
    findings: &[Finding],
    tiers: crate::fix::Tiers,
) -> Result<Option<Across>, String> {
    let wanted: Vec<&Finding> = findings.iter().filter(|f| super::wants(f)).collect();
    if wanted.is_empty() {
        return Ok(None);
    }
    // The files end to end, each on its own lines.
    let mut joined = String::new();
    let mut starts = Vec::new();
    for (path, text) in files {
        let file = syn::parse_file(text).map_err(|e| format!("{path}: {e}"))?;
        let idx = LineIndex::new(text);
        let mut blanked = text.clone().into_bytes();
        for attr in file
            .attrs
            .iter()
            .filter(|a| matches!(a.style, syn::AttrStyle::Inner(_)))
        {
            if let Some((s, e)) = range_of(attr, &idx) {
                for b in &mut blanked[s..e] {
                    if *b != b'\n' {
                        *b = b' ';
                    }
                }
            }
        }
        let line = joined.matches('\n').count();
        starts.push((joined.len(), line));
        joined.push_str(&String::from_utf8(blanked).map_err(|e| format!("{path}: {e}"))?);
        joined.push('\n');
    }
    let file = syn::parse_file(&joined).map_err(|e| format!("the crate's files together: {e}"))?;
    let idx = LineIndex::new(&joined);
    // The findings in the joined text's lines.
    let (original, shifted): (Vec<&Finding>, Vec<Finding>) = wanted
        .iter()
        .filter_map(|f| {
            let i = files.iter().position(|(p, _)| *p == f.path)?;
            let mut g = (*f).clone();
            g.line += starts[i].1;
            g.end_line += starts[i].1;
            Some((*f, g))
        })
        .unzip();
    let refs: Vec<&Finding> = shifted.iter().collect();
    let (fixes, needed) = super::plan_unit(&idx, &file, &refs, true, tiers);

    // Each applicable fix's edits, into the file they fall in (shared edits once).
    let mut per_file: Vec<Vec<Edit>> = vec![Vec::new(); files.len()];
    let mut fixed = Vec::new();
    for (k, fix) in fixes.iter().enumerate() {
        let Some(fix) = fix
            .as_ref()
            .filter(|x| x.applicability == Applicability::Unsafe)
        else {
            continue;
        };
        for e in &fix.edits {
            let i = starts.partition_point(|(s, _)| *s <= e.start) - 1;
            let (base, _) = starts[i];
            let local = Edit {
                start: e.start - base,
                end: e.end - base,
                ..e.clone()
            };
            if local.end > files[i].1.len() {
                return Err(format!("an edit crosses the end of {}", files[i].0));
            }
            let list = &mut per_file[i];
            if !list.iter().any(|x| {
                x.start == local.start && x.end == local.end && x.replacement == local.replacement
            }) {
                list.push(local);
            }
        }
        fixed.push((original[k].clone(), fix.message.clone()));
    }
    if fixed.is_empty() {
        return Ok(None);
    }
    let mut texts = Vec::new();
    for (i, mut edits) in per_file.into_iter().enumerate() {
        if edits.is_empty() {
            continue;
        }
        let text = &files[i].1;
        // The file's own `use mrtr::{..}` for the names its new code uses.
        let mut spliced = splice(text, &mut edits)?;
        let used: Vec<&str> = needed
            .iter()
            .copied()
            .filter(|n| edits.iter().any(|e| mentions(&e.replacement, n)))
            .collect();
        if !used.is_empty() {
            let parsed = syn::parse_file(text).map_err(|e| format!("{}: {e}", files[i].0))?;
            let idx = LineIndex::new(text);
            if let Some(import) = handler::import_edit(&parsed, text, &idx, &used) {
                edits.push(import);
                spliced = splice(text, &mut edits)?;
            }
        }
        texts.push((i, spliced));
    }
    Ok(Some(Across { texts, fixed }))
}

/// `text` with `edits` applied (sorted by position; they do not overlap).
fn splice(text: &str, edits: &mut [Edit]) -> Result<String, String> {
    edits.sort_by_key(|e| (e.start, e.end));
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for e in edits.iter() {
        if e.start < at || !text.is_char_boundary(e.start) || !text.is_char_boundary(e.end) {
            return Err("overlapping edits".into());
        }
        out.push_str(&text[at..e.start]);
        out.push_str(&e.replacement);
        at = e.end;
    }
    out.push_str(&text[at..]);
    Ok(out)
}

/// Whether `text` names `name` as a whole identifier.
pub(super) fn mentions(text: &str, name: &str) -> bool {
    text.match_indices(name)
        .any(|(i, _)| crate::reading::lexer::stands_alone(text.as_bytes(), i, i + name.len()))
}
