//! `--format json`: the report as the contract in `finding.rs` defines it.

use crate::finding::Report;

pub fn render(report: &Report) -> String {
    let mut s = serde_json::to_string_pretty(report).unwrap_or_else(|e| {
        // Serialising plain strings and numbers cannot fail; keep the output valid JSON if it does.
        format!("{{\"version\":1,\"findings\":[],\"errors\":[{{\"path\":\"\",\"message\":{:?}}}],\"summary\":{{\"files_seen\":0,\"files_parsed\":0,\"findings\":0}}}}", e.to_string())
    });
    s.push('\n');
    s
}
