//! `--statistics`: counts per rule and per MCP method, a migration dashboard.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use crate::finding::Finding;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RuleCount {
    pub code: String,
    pub name: String,
    pub count: usize,
    /// How many of these findings carry a fix.
    pub fixable: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MethodCount {
    pub mcp_method: String,
    pub count: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Statistics {
    pub rules: Vec<RuleCount>,
    pub mcp_methods: Vec<MethodCount>,
    pub total: usize,
}

/// Most frequent first; ties by code / method name so the output is stable.
pub fn compute(findings: &[Finding]) -> Statistics {
    let mut rules: BTreeMap<&str, RuleCount> = BTreeMap::new();
    let mut methods: BTreeMap<&str, usize> = BTreeMap::new();
    for f in findings {
        let r = rules.entry(&f.code).or_insert_with(|| RuleCount {
            code: f.code.clone(),
            name: f.name.clone(),
            count: 0,
            fixable: 0,
        });
        r.count += 1;
        r.fixable += usize::from(f.fix.is_some());
        if let Some(m) = &f.mcp_method {
            *methods.entry(m).or_insert(0) += 1;
        }
    }
    let mut rules: Vec<RuleCount> = rules.into_values().collect();
    rules.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.code.cmp(&b.code)));
    let mut mcp_methods: Vec<MethodCount> = methods
        .into_iter()
        .map(|(m, count)| MethodCount {
            mcp_method: m.to_string(),
            count,
        })
        .collect();
    mcp_methods.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then_with(|| a.mcp_method.cmp(&b.mcp_method))
    });
    Statistics {
        rules,
        mcp_methods,
        total: findings.len(),
    }
}

pub fn render_text(s: &Statistics, notes: &[String]) -> String {
    let mut out = String::new();
    let w = s
        .rules
        .iter()
        .map(|r| r.count.to_string().len())
        .max()
        .unwrap_or(1);
    for r in &s.rules {
        let fix = if r.fixable > 0 {
            format!(" ({} fixable)", r.fixable)
        } else {
            String::new()
        };
        writeln!(out, "{:>w$}  {}  {}{fix}", r.count, r.code, r.name).unwrap();
    }
    if !s.mcp_methods.is_empty() {
        out.push_str("\nby MCP method:\n");
        let w = s
            .mcp_methods
            .iter()
            .map(|m| m.count.to_string().len())
            .max()
            .unwrap_or(1);
        for m in &s.mcp_methods {
            writeln!(out, "{:>w$}  {}", m.count, m.mcp_method).unwrap();
        }
    }
    writeln!(
        out,
        "\n{} finding{} in total",
        s.total,
        if s.total == 1 { "" } else { "s" }
    )
    .unwrap();
    for n in notes {
        writeln!(out, "note: {n}").unwrap();
    }
    out
}

pub fn render_json(s: &Statistics) -> String {
    let mut out = serde_json::to_string_pretty(s).expect("statistics serialize");
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::{Applicability, Fix, Level};

    fn f(code: &str, method: Option<&str>, fix: bool) -> Finding {
        Finding {
            code: code.into(),
            name: format!("{code}-name"),
            level: Level::Error,
            path: "a.rs".into(),
            line: 1,
            column: 1,
            end_line: 1,
            end_column: 2,
            message: "m".into(),
            mcp_method: method.map(Into::into),
            sdk: None,
            help: None,
            fix: fix.then(|| Fix {
                applicability: Applicability::Unsafe,
                message: "x".into(),
                edits: vec![],
                other_files: Vec::new(),
            }),
        }
    }

    #[test]
    fn counts_per_rule_and_method_most_frequent_first() {
        let fs = vec![
            f("MCP001", Some("elicitation/create"), true),
            f("MCP002", Some("sampling/createMessage"), false),
            f("MCP002", Some("sampling/createMessage"), true),
            f("MCP101", None, false),
        ];
        let s = compute(&fs);
        assert_eq!(s.rules[0].code, "MCP002");
        assert_eq!((s.rules[0].count, s.rules[0].fixable), (2, 1));
        assert_eq!(s.rules.len(), 3);
        assert_eq!(s.mcp_methods[0].mcp_method, "sampling/createMessage");
        assert_eq!(s.mcp_methods[1].count, 1);
        let text = render_text(&s, &[]);
        assert!(
            text.starts_with("2  MCP002  MCP002-name (1 fixable)\n"),
            "{text}"
        );
        assert!(text.contains("by MCP method:\n2  sampling/createMessage\n1  elicitation/create\n"));
        assert!(text.ends_with("4 findings in total\n"));
    }
}
