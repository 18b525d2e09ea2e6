//! `--format github`: GitHub Actions workflow commands, which the runner turns into annotations on
//! the pull request's diff: `::error file=..,line=..,col=..,endLine=..,endColumn=..,title=CODE::msg`.

use std::fmt::Write as _;

use crate::finding::{Finding, Level};

/// Escaping for the message part of a workflow command: `%`, CR and LF as the runner decodes
/// them, and every other control character but tab percent-encoded too (an ESC from a file name
/// would otherwise reach the log as a terminal escape).
pub fn escape_data(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c == '%' || (c.is_control() && c != '\t') {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                write!(out, "%{b:02X}").unwrap();
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Escaping for a property value (`file=`, `title=`): also `:` and `,`, which delimit properties.
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

pub fn render(findings: &[Finding], notes: &[String]) -> String {
    let mut out = String::new();
    for f in findings {
        let command = match f.level {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Allow => "notice",
        };
        let mut message = format!("{} ({})", f.message, f.name);
        if let Some(help) = &f.help {
            message.push_str("\nhelp: ");
            message.push_str(help);
        }
        writeln!(
            out,
            "::{command} file={},line={},col={},endLine={},endColumn={},title={}::{}",
            escape_property(&f.path),
            f.line,
            f.column,
            f.end_line,
            f.end_column,
            escape_property(&f.code),
            escape_data(&message)
        )
        .unwrap();
    }
    for n in notes {
        writeln!(out, "::notice title=mcp-lint::{}", escape_data(n)).unwrap();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_every_delimiter() {
        assert_eq!(escape_data("100%\r\nx: a,b"), "100%25%0D%0Ax: a,b");
        assert_eq!(escape_data("a\u{1b}[31mb\tc"), "a%1B[31mb\tc");
        assert_eq!(escape_property("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
    }

    #[test]
    fn renders_a_workflow_command_per_finding() {
        let f = Finding {
            code: "MCP002".into(),
            name: "legacy-sampling-request".into(),
            level: Level::Warning,
            path: "src/a,b:c.rs".into(),
            line: 3,
            column: 7,
            end_line: 3,
            end_column: 21,
            message: "50% of\nthe call".into(),
            mcp_method: None,
            sdk: None,
            help: Some("use mrtr.sample".into()),
            fix: None,
        };
        assert_eq!(
            render(&[f], &["stale: 1".into()]),
            "::warning file=src/a%2Cb%3Ac.rs,line=3,col=7,endLine=3,endColumn=21,title=MCP002::50%25 of%0Athe call (legacy-sampling-request)%0Ahelp: use mrtr.sample\n::notice title=mcp-lint::stale: 1\n"
        );
    }
}
