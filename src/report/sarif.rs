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

/// Percent-encodes what may not appear raw in a URI path (RFC 3986: everything but the
/// unreserved characters, the sub-delimiters, `:`-free `@` and the `/` separator). A backslash is
/// a separator only on Windows; elsewhere it is part of a file's name (`back\slash.rs`), `%5C`.
pub fn uri_path(path: &str) -> String {
    let path: std::borrow::Cow<'_, str> = if cfg!(windows) {
        path.replace('\\', "/").into()
    } else {
        path.into()
    };
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
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

fn location(path: &str, root: &Path) -> Value {
    json!({ "uri": uri_of(path, root), "uriBaseId": URI_BASE_ID })
}

/// The URI of a reported path. A name that is not UTF-8 (shown with `\xNN` escapes) is encoded
/// from its real bytes, so the URI names the file that exists.
fn uri_of(path: &str, root: &Path) -> String {
    #[cfg(unix)]
    if let Some(real) = crate::reading::source::real_path_of(path) {
        use std::os::unix::ffi::OsStrExt;
        let rel = real.strip_prefix(root).ok().map(Path::to_path_buf);
        if let Some(rel) = rel {
            let mut out = String::new();
            for b in rel.as_os_str().as_bytes() {
                if b.is_ascii_alphanumeric() || b"-._~/!$&'()*+,;=@".contains(b) {
                    out.push(*b as char);
                } else {
                    out.push_str(&format!("%{b:02X}"));
                }
            }
            return out;
        }
    }
    uri_path(path)
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
    let mut notifications: Vec<Value> = notes
        .iter()
        .map(|n| json!({ "level": "note", "message": { "text": n } }))
        .collect();
    for e in &report.errors {
        notifications.push(json!({
            "level": "error",
            "message": { "text": e.message },
            "locations": [{ "physicalLocation": { "artifactLocation": location(&e.path, src_root) } }],
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
            "results": RESULTS_MARK,
        }],
    });
    let skeleton = serde_json::to_string_pretty(&log).expect("SARIF serializes");
    // The results are made and written one at a time into the log's text, where the mark stands:
    // as one tree of values, 50,000 of them took 14 times the output's size at the peak.
    let mark = serde_json::to_string(RESULTS_MARK).expect("a string serializes");
    // The last one: only the static rule descriptors can follow it, where a file error before it
    // could name a file after the mark.
    let at = skeleton
        .rfind(&mark)
        .expect("the results mark is in the log");
    let line_start = skeleton[..at].rfind('\n').map_or(0, |i| i + 1);
    let indent = skeleton[line_start..at].len() - skeleton[line_start..at].trim_start().len();
    let inner = format!("\n{}", " ".repeat(indent + 2));
    let mut s = String::with_capacity(skeleton.len() + report.findings.len() * 1024);
    s.push_str(&skeleton[..at]);
    if report.findings.is_empty() {
        s.push_str("[]");
    } else {
        s.push('[');
        for (i, f) in report.findings.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            s.push_str(&inner);
            let one =
                serde_json::to_string_pretty(&result(f, rules, fingerprints.get(i), src_root))
                    .expect("a result serializes");
            // Pretty JSON has a newline only between tokens (strings escape theirs).
            s.push_str(&one.replace('\n', &inner));
        }
        s.push('\n');
        s.push_str(&" ".repeat(indent));
        s.push(']');
    }
    s.push_str(&skeleton[at + mark.len()..]);
    s.push('\n');
    s
}

/// Stands for the results in the log's skeleton (a control character no path or message holds
/// raw: serde escapes it, and the escaped form is what is searched for).
const RESULTS_MARK: &str = "\u{1}mcp-lint-results\u{1}";

fn result(f: &Finding, rules: &[RuleMeta], fingerprint: Option<&String>, root: &Path) -> Value {
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
            "artifactLocation": location(&f.path, root),
            "region": region(f.line, f.column, f.end_line, f.end_column),
        }}]),
    );
    if let Some(fp) = fingerprint {
        r.insert("partialFingerprints".into(), json!({ FINGERPRINT_KEY: fp }));
    }
    if let Some(fix) = &f.fix {
        // One change per file the fix edits: its own, then the others it spans.
        let files = std::iter::once((f.path.as_str(), &fix.edits))
            .chain(fix.other_files.iter().map(|o| (o.path.as_str(), &o.edits)));
        let changes: Vec<Value> = files
            .filter(|(_, edits)| !edits.is_empty())
            .map(|(path, edits)| {
                json!({
                    "artifactLocation": location(path, root),
                    "replacements": edits.iter().map(replacement).collect::<Vec<_>>(),
                })
            })
            .collect();
        if !changes.is_empty() {
            r.insert(
                "fixes".into(),
                json!([{
                    "description": { "text": fix.message },
                    "artifactChanges": changes,
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
        #[cfg(unix)]
        assert_eq!(uri_path("src/back\\slash.rs"), "src/back%5Cslash.rs");
        assert_eq!(uri_path("src/100%.rs"), "src/100%25.rs");
        assert_eq!(dir_uri(Path::new("/w/r p")), "file:///w/r%20p/");
    }

    fn finding(path: &str, line: usize, fix: bool) -> Finding {
        Finding {
            code: "MCP001".into(),
            name: "legacy-elicitation-request".into(),
            level: crate::finding::Level::Error,
            path: path.into(),
            line,
            column: 3,
            end_line: line,
            end_column: 9,
            message: "a \"quoted\"\nmessage".into(),
            mcp_method: Some("elicitation/create".into()),
            sdk: Some("rmcp".into()),
            help: Some("help".into()),
            fix: fix.then(|| crate::finding::Fix {
                applicability: crate::finding::Applicability::Safe,
                message: "fix it".into(),
                edits: vec![crate::finding::Edit {
                    start: 1,
                    end: 2,
                    line,
                    column: 3,
                    end_line: line,
                    end_column: 4,
                    replacement: "x\ny".into(),
                }],
                other_files: Vec::new(),
            }),
        }
    }

    /// The results written one at a time into the skeleton make the same text as the whole log
    /// pretty-printed at once (what the format was before): the same JSON, the same layout.
    #[test]
    fn streamed_results_are_the_pretty_log_byte_for_byte() {
        for findings in [
            Vec::new(),
            vec![finding("src/a.rs", 1, false)],
            vec![
                finding("src/a.rs", 1, true),
                finding("src/\u{1}mcp-lint-results\u{1}.rs", 2, false),
            ],
        ] {
            let report = Report {
                version: 1,
                findings,
                errors: vec![crate::finding::FileError {
                    path: "src/\u{1}mcp-lint-results\u{1}.rs".into(),
                    message: "cannot read".into(),
                }],
                summary: Default::default(),
            };
            let out = render(
                &report,
                &rule_metas(),
                &[],
                &["a note".into()],
                Path::new("/w"),
            );
            let value: Value = serde_json::from_str(&out).unwrap();
            let whole = serde_json::to_string_pretty(&value).unwrap() + "\n";
            assert_eq!(out, whole);
            let results = value["runs"][0]["results"].as_array().unwrap();
            assert_eq!(results.len(), report.findings.len());
        }
    }
}
