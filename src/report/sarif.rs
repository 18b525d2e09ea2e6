//! `--format sarif`: SARIF 2.1.0 for GitHub code scanning and other SARIF consumers.
//!
//! What code scanning needs to track a result across commits: a stable `ruleId` (the rule code),
//! consistent repo-relative URIs (`artifactLocation.uri` relative to `uriBaseId` `SRCROOT`), and
//! `partialFingerprints` that do not move when unrelated lines do (the baseline identity: rule,
//! path, enclosing item, normalized snippet). Rule metadata and help come from the catalog; fixes
//! become `fixes[].artifactChanges`.

use std::path::Path;

use serde_json::{json, Map, Value};

use crate::finding::{Edit, Finding, Level, Report};
use crate::gate::baseline::FINGERPRINT_KEY;

pub const URI_BASE_ID: &str = "SRCROOT";

/// What SARIF says about a rule; filled from the catalog by the caller.
#[derive(Debug, Clone)]
pub struct RuleMeta {
    pub code: String,
    pub name: String,
    pub summary: String,
    pub why: String,
    pub how_to_fix: String,
    pub fix_safety: String,
    pub level: Level,
}

/// SARIF rule metadata from the catalog.
pub fn rule_metas() -> Vec<RuleMeta> {
    crate::catalog::catalog()
        .rules
        .iter()
        .map(|r| RuleMeta {
            code: r.code.clone(),
            name: r.name.clone(),
            summary: r.summary.clone(),
            why: r.why.clone(),
            how_to_fix: r.how_to_fix.clone(),
            fix_safety: r.fix_safety.clone(),
            level: r.level,
        })
        .collect()
}

fn sarif_level(l: Level) -> &'static str {
    match l {
        Level::Error => "error",
        Level::Warning => "warning",
        Level::Allow => "none",
    }
}

/// Percent-encodes what may not appear raw in a URI path; keeps `/` as the separator.
pub fn uri_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.replace('\\', "/").bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/!$&'()*+,;=@".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `file:///abs/dir/`, the value of `SRCROOT`.
pub fn dir_uri(dir: &Path) -> String {
    let mut p = uri_path(&dir.to_string_lossy());
    if !p.starts_with('/') {
        p.insert(0, '/');
    }
    if !p.ends_with('/') {
        p.push('/');
    }
    format!("file://{p}")
}

fn location(path: &str) -> Value {
    json!({ "uri": uri_path(path), "uriBaseId": URI_BASE_ID })
}

fn region(line: usize, column: usize, end_line: usize, end_column: usize) -> Value {
    json!({
        "startLine": line.max(1),
        "startColumn": column.max(1),
        "endLine": end_line.max(line).max(1),
        "endColumn": end_column.max(1),
    })
}

fn replacement(e: &Edit) -> Value {
    json!({
        "deletedRegion": region(e.line, e.column, e.end_line, e.end_column),
        "insertedContent": { "text": e.replacement },
    })
}

fn rule_descriptor(r: &RuleMeta) -> Value {
    let markdown = format!(
        "{}\n\n## Why\n\n{}\n\n## How to fix\n\n{}\n\nFix safety: {}\n\nRun `cargo mcp-lint rule {}` for examples.",
        r.summary.trim(),
        r.why.trim(),
        r.how_to_fix.trim(),
        r.fix_safety,
        r.code
    );
    json!({
        "id": r.code,
        "name": r.name,
        "shortDescription": { "text": r.summary.trim() },
        "fullDescription": { "text": r.why.trim() },
        "help": { "text": r.how_to_fix.trim(), "markdown": markdown },
        "defaultConfiguration": { "level": sarif_level(r.level) },
        "properties": { "fixSafety": r.fix_safety, "tags": ["mcp", "mrtr"] },
    })
}

/// The whole SARIF log. `fingerprints[i]` belongs to `report.findings[i]`; `notes` (baseline
/// staleness and the like) and file errors become tool execution notifications.
pub fn render(
    report: &Report,
    rules: &[RuleMeta],
    fingerprints: &[String],
    notes: &[String],
    src_root: &Path,
) -> String {
    // Every catalog rule is described, so a rule's metadata is there even before it first fires.
    let descriptors: Vec<Value> = rules.iter().map(rule_descriptor).collect();
    let results: Vec<Value> = report
        .findings
        .iter()
        .enumerate()
        .map(|(i, f)| result(f, rules, fingerprints.get(i)))
        .collect();
    let mut notifications: Vec<Value> = notes
        .iter()
        .map(|n| json!({ "level": "note", "message": { "text": n } }))
        .collect();
    for e in &report.errors {
        notifications.push(json!({
            "level": "error",
            "message": { "text": e.message },
            "locations": [{ "physicalLocation": { "artifactLocation": location(&e.path) } }],
        }));
    }
    let log = json!({
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "mcp-lint",
                "version": env!("CARGO_PKG_VERSION"),
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "rules": descriptors,
            }},
            "originalUriBaseIds": { URI_BASE_ID: { "uri": dir_uri(src_root) } },
            "columnKind": "unicodeCodePoints",
            "invocations": [{
                // Exit 2 (a file could not be read): the run is incomplete.
                "executionSuccessful": report.errors.is_empty(),
                "toolExecutionNotifications": notifications,
            }],
            "results": results,
        }],
    });
    let mut s = serde_json::to_string_pretty(&log).expect("SARIF serializes");
    s.push('\n');
    s
}

fn result(f: &Finding, rules: &[RuleMeta], fingerprint: Option<&String>) -> Value {
    let mut r = Map::new();
    r.insert("ruleId".into(), json!(f.code));
    if let Some(i) = rules.iter().position(|m| m.code == f.code) {
        r.insert("ruleIndex".into(), json!(i));
    }
    r.insert("level".into(), json!(sarif_level(f.level)));
    let text = match &f.help {
        Some(h) => format!("{}\nhelp: {h}", f.message),
        None => f.message.clone(),
    };
    r.insert("message".into(), json!({ "text": text }));
    r.insert(
        "locations".into(),
        json!([{ "physicalLocation": {
            "artifactLocation": location(&f.path),
            "region": region(f.line, f.column, f.end_line, f.end_column),
        }}]),
    );
    if let Some(fp) = fingerprint {
        r.insert("partialFingerprints".into(), json!({ FINGERPRINT_KEY: fp }));
    }
    if let Some(fix) = &f.fix {
        if !fix.edits.is_empty() {
            r.insert(
                "fixes".into(),
                json!([{
                    "description": { "text": fix.message },
                    "artifactChanges": [{
                        "artifactLocation": location(&f.path),
                        "replacements": fix.edits.iter().map(replacement).collect::<Vec<_>>(),
                    }],
                    "properties": { "applicability": fix.applicability },
                }]),
            );
        }
    }
    let mut props = Map::new();
    props.insert("name".into(), json!(f.name));
    if let Some(m) = &f.mcp_method {
        props.insert("mcpMethod".into(), json!(m));
    }
    if let Some(s) = &f.sdk {
        props.insert("sdk".into(), json!(s));
    }
    r.insert("properties".into(), Value::Object(props));
    Value::Object(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_are_relative_and_encoded() {
        assert_eq!(uri_path("src/my tools/a#b.rs"), "src/my%20tools/a%23b.rs");
        assert_eq!(dir_uri(Path::new("/w/r p")), "file:///w/r%20p/");
    }
}
