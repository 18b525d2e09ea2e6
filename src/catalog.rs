//! The rule catalog: `rules/<CODE>.toml`, embedded at build time (see `build.rs`). The single
//! source of truth for codes, names, default levels, docs, fix safety, trigger tokens and examples.

use std::sync::OnceLock;

use serde::Deserialize;

use crate::finding::Level;

mod files {
    include!(concat!(env!("OUT_DIR"), "/catalog_files.rs"));
}

#[derive(Debug, Clone, Deserialize)]
pub struct Example {
    /// What the example shows, one line.
    #[serde(default)]
    pub description: Option<String>,
    /// A whole Rust file.
    pub code: String,
    /// For fixable rules: the file after `--fix`.
    #[serde(default)]
    pub fixed: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct RuleDoc {
    pub code: String,
    pub name: String,
    pub level: Level,
    pub summary: String,
    pub why: String,
    pub how_to_fix: String,
    /// `safe`, `unsafe`, `display-only` or `none` (no fix).
    pub fix_safety: String,
    /// Identifiers or strings one of which a file must contain for this rule to fire. `["*"]`: any
    /// file (disables the prefilter while the rule is on). Empty: the rule does not take part in
    /// the prefilter (meta codes: parse errors, suppressions).
    #[serde(default)]
    pub triggers: Vec<String>,
    /// Known limits: where the rule stays silent on purpose.
    #[serde(default)]
    pub limitations: Option<String>,
    #[serde(default)]
    pub fire: Vec<Example>,
    #[serde(default)]
    pub quiet: Vec<Example>,
}

#[derive(Debug)]
pub struct Catalog {
    pub rules: Vec<RuleDoc>,
}

impl Catalog {
    pub fn get(&self, code: &str) -> Option<&RuleDoc> {
        self.rules
            .iter()
            .find(|r| r.code.eq_ignore_ascii_case(code) || r.name == code)
    }
}

/// Parses the embedded catalog files; an error names the file. Used by [`catalog`] and by tests.
pub fn parse_all() -> Result<Catalog, String> {
    let mut rules = Vec::new();
    for (file, text) in files::FILES {
        let doc: RuleDoc = toml::from_str(text).map_err(|e| format!("rules/{file}: {e}"))?;
        let stem = file.trim_end_matches(".toml");
        if doc.code != stem {
            return Err(format!(
                "rules/{file}: code {} does not match the file name",
                doc.code
            ));
        }
        rules.push(doc);
    }
    rules.sort_by(|a, b| a.code.cmp(&b.code));
    Ok(Catalog { rules })
}

/// The embedded catalog. The test suite checks it parses, so a broken catalog never ships.
pub fn catalog() -> &'static Catalog {
    static CATALOG: OnceLock<Catalog> = OnceLock::new();
    CATALOG.get_or_init(|| {
        parse_all().unwrap_or_else(|e| panic!("invalid embedded rule catalog: {e}"))
    })
}

/// The docs of one rule as `cargo mcp-lint rule CODE` prints them.
pub fn render_doc(r: &RuleDoc) -> String {
    let mut s = format!(
        "{} {} (default level: {:?})\n\n{}\n\n",
        r.code, r.name, r.level, r.summary
    );
    s = s
        .replace("Error)", "error)")
        .replace("Warning)", "warning)")
        .replace("Allow)", "allow)");
    s.push_str("## Why\n\n");
    s.push_str(r.why.trim());
    s.push_str("\n\n## How to fix\n\n");
    s.push_str(r.how_to_fix.trim());
    s.push_str(&format!("\n\nFix safety: {}\n", r.fix_safety));
    if let Some(l) = &r.limitations {
        s.push_str("\n## Limitations\n\n");
        s.push_str(l.trim());
        s.push('\n');
    }
    for (title, list) in [("Fires on", &r.fire), ("Stays quiet on", &r.quiet)] {
        for ex in list.iter() {
            s.push_str(&format!("\n## {title}"));
            if let Some(d) = &ex.description {
                s.push_str(&format!(": {d}"));
            }
            s.push_str("\n\n```rust\n");
            s.push_str(ex.code.trim_end());
            s.push_str("\n```\n");
        }
    }
    s
}
