//! `--format concise`: one line per finding, `path:line:col: level[CODE] message`, the shape
//! editors' error matchers and `grep` understand.

use std::fmt::Write as _;

use crate::finding::{Finding, Level};

pub fn level_word(level: Level) -> &'static str {
    match level {
        Level::Error => "error",
        Level::Warning => "warning",
        Level::Allow => "allow",
    }
}

/// Findings in the order given (the caller sorts), then `note: ..` lines.
pub fn render(findings: &[Finding], notes: &[String]) -> String {
    let mut out = String::new();
    for f in findings {
        // A message is one line in this format; newlines would split a finding in two.
        let message = f.message.replace(['\r', '\n'], " ");
        writeln!(
            out,
            "{}:{}:{}: {}[{}] {}",
            escape_path(&f.path),
            f.line,
            f.column,
            level_word(f.level),
            f.code,
            message
        )
        .unwrap();
    }
    for n in notes {
        writeln!(out, "note: {n}").unwrap();
    }
    out
}

/// A file name is one field of one line: control characters (a newline in a name would split the
/// finding in two) and `%` are percent-encoded, as the `github` format encodes its properties.
pub fn escape_path(path: &str) -> std::borrow::Cow<'_, str> {
    if !path.chars().any(|c| c == '%' || c.is_control()) {
        return std::borrow::Cow::Borrowed(path);
    }
    let mut out = String::with_capacity(path.len() + 8);
    for c in path.chars() {
        if c == '%' || c.is_control() {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                write!(out, "%{b:02X}").unwrap();
            }
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_per_finding_even_with_newlines_in_the_message() {
        let f = Finding {
            code: "MCP001".into(),
            name: "legacy-elicitation-request".into(),
            level: Level::Error,
            path: "src/tools.rs".into(),
            line: 42,
            column: 18,
            end_line: 42,
            end_column: 40,
            message: "legacy request\nreturn InputRequiredResult".into(),
            mcp_method: None,
            sdk: None,
            help: None,
            fix: None,
        };
        let out = render(&[f], &["baseline has 1 stale entry".into()]);
        assert_eq!(
            out,
            "src/tools.rs:42:18: error[MCP001] legacy request return InputRequiredResult\nnote: baseline has 1 stale entry\n"
        );
    }

    #[test]
    fn control_characters_in_a_path_are_escaped() {
        assert_eq!(escape_path("src/a.rs"), "src/a.rs");
        assert_eq!(escape_path("src/a\nb\t\u{1b}%.rs"), "src/a%0Ab%09%1B%25.rs");
    }
}
