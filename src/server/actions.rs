//! Code actions: each finding's fix (a safe one a plain quick fix, an unsafe one saying that it
//! changes behaviour), a suppression comment for each finding, and `source.fixAll.mcp-lint` for
//! every safe fix of the buffer.

use std::collections::HashMap;

use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams, Diagnostic, TextEdit, Uri,
    WorkspaceEdit,
};

use crate::finding::{Applicability, Finding, Fix};
use crate::fix::apply::apply_fixes;
use crate::gate::suppress;

use super::diagnostics::{to_diagnostic, touches};
use super::state::{Linted, Shared};
use super::text::{minimal_edit, Lines};

/// `source.fixAll.mcp-lint`: the kind editors run on save ("fix all" for this tool only).
pub const FIX_ALL: &str = "source.fixAll.mcp-lint";

/// What a suppression added from the editor says until its author writes the reason.
pub const SUPPRESSION_REASON: &str = "TODO: say why this is acceptable here";

pub fn code_actions(
    shared: &Shared,
    params: &CodeActionParams,
    linted: &Linted,
) -> Vec<CodeActionOrCommand> {
    let uri = &params.text_document.uri;
    let text: &str = &linted.text;
    let lines = Lines::new(text);
    let wants = |kind: &CodeActionKind| match &params.context.only {
        None => true,
        // `only: [source.fixAll]` asks for our fix-all too: kinds are prefixes of their sub-kinds.
        Some(only) => only.iter().any(|o| {
            kind.as_str() == o.as_str() || kind.as_str().starts_with(&format!("{}.", o.as_str()))
        }),
    };
    let mut out = Vec::new();
    if wants(&CodeActionKind::QUICKFIX) {
        for f in linted.findings.iter() {
            if !touches(f, &lines, &params.range) {
                continue;
            }
            let diagnostic = to_diagnostic(f, &lines, &shared.links);
            // A deferred ask is the fallback: where the compiled rewrite across the package's
            // files takes the request, that one comes first.
            let deferred = f
                .fix
                .as_ref()
                .is_some_and(|x| x.message.contains("mrtr::rmcp::deferred::"));
            let across = if deferred || !has_fix(f) {
                across_action(shared, uri, f, &diagnostic)
            } else {
                None
            };
            out.extend(across);
            if let Some(a) = fix_action(shared, uri, text, &lines, f, &diagnostic) {
                out.push(a);
            }
            if let Some(a) = suppress_action(uri, text, f, &diagnostic) {
                out.push(a);
            }
        }
    }
    let fix_all = CodeActionKind::from(FIX_ALL);
    if wants(&fix_all) {
        let safe: Vec<Finding> = linted
            .findings
            .iter()
            .filter(|f| {
                f.fix
                    .as_ref()
                    .is_some_and(|x| x.applicability == Applicability::Safe)
            })
            .cloned()
            .collect();
        if !safe.is_empty() {
            let path = shared.docs().get(uri.as_str()).map(|d| d.path.clone());
            let fixed = path.and_then(|p| {
                let all = linted.findings.as_ref().clone();
                shared.workspace().fix_all(&p, text, all)
            });
            if let Some(edit) = fixed.and_then(|new| minimal_edit(text, &new)) {
                out.push(action(
                    format!(
                        "Fix all safe mcp-lint findings ({} in this file)",
                        safe.len()
                    ),
                    fix_all,
                    uri,
                    vec![edit],
                    Vec::new(),
                    false,
                ));
            }
        }
    }
    out
}

/// The first clause of a fix message: the rest (what changes, what to check) is in the fix.
fn title_of(message: &str) -> &str {
    message
        .split("; ")
        .next()
        .and_then(|m| m.split(": ").next())
        .unwrap_or(message)
}

/// The finding's own fix, when applying it alone leaves the buffer parsing; an unsafe one that
/// brings the runtime in also adds `mrtr` to the package's `Cargo.toml`, in the same edit.
fn fix_action(
    shared: &Shared,
    uri: &Uri,
    text: &str,
    lines: &Lines,
    f: &Finding,
    diagnostic: &Diagnostic,
) -> Option<CodeActionOrCommand> {
    let fix = f.fix.as_ref()?;
    let title_end = title_of(&fix.message);
    let (title, preferred) = match fix.applicability {
        Applicability::Safe => (format!("Fix {}: {title_end}", f.code), true),
        Applicability::Unsafe => (
            format!("Unsafe fix {} (changes behaviour): {title_end}", f.code),
            false,
        ),
        Applicability::DisplayOnly => return None,
    };
    let (edits, fixed) = checked_edits(text, lines, fix)?;
    #[allow(clippy::mutable_key_type)]
    let mut changes = HashMap::new();
    changes.insert(uri.clone(), edits);
    if fix.applicability == Applicability::Unsafe {
        let path = shared.docs().get(uri.as_str()).map(|d| d.path.clone());
        let manifest = path.and_then(|p| shared.workspace().runtime_manifest(&p, text, &fixed));
        if let Some((manifest, old, new)) = manifest {
            let manifest_uri = super::uri::from_path(&manifest)?;
            changes.insert(manifest_uri, vec![minimal_edit(&old, &new)?]);
        }
    }
    Some(action_with(
        title,
        CodeActionKind::QUICKFIX,
        changes,
        vec![diagnostic.clone()],
        preferred,
    ))
}

/// A finding the file alone cannot fix but the package's files together can (`--fix`'s pass
/// across files): one action holding every file's edit and the manifest's, all applied or none.
fn across_action(
    shared: &Shared,
    uri: &Uri,
    f: &Finding,
    diagnostic: &Diagnostic,
) -> Option<CodeActionOrCommand> {
    if !crate::fix::taken_across(f, crate::fix::Tiers::default()) {
        return None;
    }
    let path = shared.docs().get(uri.as_str()).map(|d| d.path.clone())?;
    let root = shared.workspace().root().to_path_buf();
    // The open buffers, by the path a finding shows (the editor's text, not the disk's).
    let open: HashMap<String, String> = shared
        .docs()
        .values()
        .map(|d| {
            (
                crate::reading::source::display_path(&d.path, &root),
                d.text.to_string(),
            )
        })
        .collect();
    let overlay = |shown: &str| open.get(shown).cloned();
    let planned = shared.workspace().fix_across(&path, f, &overlay)?;
    let (_, message) = planned.fixed.iter().find(|(g, _)| g.line == f.line)?;
    #[allow(clippy::mutable_key_type)]
    let mut changes = HashMap::new();
    for (file, old, new) in &planned.set {
        changes.insert(super::uri::from_path(file)?, vec![minimal_edit(old, new)?]);
    }
    Some(action_with(
        format!(
            "Unsafe fix {} across {} files (changes behaviour): {}",
            f.code,
            planned.set.len(),
            title_of(message)
        ),
        CodeActionKind::QUICKFIX,
        changes,
        vec![diagnostic.clone()],
        false,
    ))
}

/// The fix's edits in LSP terms, and the text they leave; `None` when they do not apply to this
/// text or the result would not parse (an editor must never be handed a broken file).
fn checked_edits(text: &str, lines: &Lines, fix: &Fix) -> Option<(Vec<TextEdit>, String)> {
    let applied = apply_fixes(text, &[fix]);
    if applied.applied.is_empty() || applied.text == text {
        return None;
    }
    if crate::reading::parse::parse(text.as_bytes()).is_ok()
        && crate::reading::parse::parse(applied.text.as_bytes()).is_err()
    {
        return None;
    }
    let mut edits: Vec<TextEdit> = Vec::new();
    for e in &fix.edits {
        let edit = TextEdit {
            range: lines.range(e.start, e.end),
            new_text: e.replacement.clone(),
        };
        // A fix may carry one edit twice (shared by the asks of one handler): applied once.
        if !edits.contains(&edit) {
            edits.push(edit);
        }
    }
    Some((edits, applied.text))
}

/// `// mcp-lint: allow(CODE) -- reason` above the finding's line, as `--add-suppressions` writes it.
fn suppress_action(
    uri: &Uri,
    text: &str,
    f: &Finding,
    diagnostic: &Diagnostic,
) -> Option<CodeActionOrCommand> {
    // Meta findings are about suppressions: they are fixed, not suppressed.
    if f.code == suppress::UNUSED_CODE || f.code == suppress::INVALID_CODE {
        return None;
    }
    let (new, _) = suppress::add_suppressions(text, &[f], SUPPRESSION_REASON).ok()?;
    let edit = minimal_edit(text, &new)?;
    Some(action(
        format!(
            "Suppress {} on this line: // mcp-lint: allow({}) -- reason",
            f.code, f.code
        ),
        CodeActionKind::QUICKFIX,
        uri,
        vec![edit],
        vec![diagnostic.clone()],
        false,
    ))
}

fn action(
    title: String,
    kind: CodeActionKind,
    uri: &Uri,
    edits: Vec<TextEdit>,
    diagnostics: Vec<Diagnostic>,
    preferred: bool,
) -> CodeActionOrCommand {
    // lsp-types keys `changes` by `Uri`, whose parsed parts are cached inside it; the key is
    // never mutated here.
    #[allow(clippy::mutable_key_type)]
    let mut changes = HashMap::new();
    changes.insert(uri.clone(), edits);
    action_with(title, kind, changes, diagnostics, preferred)
}

/// An action whose edit spans files (one `WorkspaceEdit`: an editor applies it whole).
#[allow(clippy::mutable_key_type)]
fn action_with(
    title: String,
    kind: CodeActionKind,
    changes: HashMap<Uri, Vec<TextEdit>>,
    diagnostics: Vec<Diagnostic>,
    preferred: bool,
) -> CodeActionOrCommand {
    CodeActionOrCommand::CodeAction(CodeAction {
        title,
        kind: Some(kind),
        diagnostics: (!diagnostics.is_empty()).then_some(diagnostics),
        edit: Some(WorkspaceEdit {
            changes: Some(changes),
            ..WorkspaceEdit::default()
        }),
        is_preferred: preferred.then_some(true),
        ..CodeAction::default()
    })
}

/// Whether `f` has a fix with edits (applicable in its own file).
fn has_fix(f: &Finding) -> bool {
    f.fix.as_ref().is_some_and(|x| !x.edits.is_empty())
}
