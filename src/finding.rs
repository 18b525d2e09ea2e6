//! The data every part of the linter exchanges: a finding, its fix, and the JSON report.
//!
//! These types *are* the JSON contract of `../shared/design.md` (`--format json`): field names and
//! shapes here are what editors, CI tools and our own tests read, so change them only with a
//! `version` bump.

use serde::{Deserialize, Serialize};

/// How loud a finding is. `Allow` never reaches a report; it exists so configuration can silence a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Allow,
    Warning,
    Error,
}

/// Whether applying a fix keeps behaviour (`Safe`), changes it (`Unsafe`), or must only be shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Applicability {
    Safe,
    Unsafe,
    DisplayOnly,
}

/// One splice on the original text: replace bytes `start..end` with `replacement`.
/// Byte offsets are into the file as read (UTF-8); line/column are 1-based, for editors.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Edit {
    pub start: usize,
    pub end: usize,
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
    pub replacement: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Fix {
    pub applicability: Applicability,
    /// What the fix does, in one sentence (shown by `--fix` and in the human report).
    pub message: String,
    pub edits: Vec<Edit>,
    /// Edits of the same fix in other files, by their paths as findings show them: a fix the
    /// package's files together make (an exchange whose request is built in one file and
    /// written in another). Absent when empty, so a reader of `edits` alone applies the part in
    /// the finding's own file and never an edit meant for another.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub other_files: Vec<FileEdits>,
}

/// One file's part of a fix that spans files.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FileEdits {
    pub path: String,
    pub edits: Vec<Edit>,
}

impl Fix {
    /// Whether the fix changes anything, in its own file or another.
    pub fn has_edits(&self) -> bool {
        !self.edits.is_empty() || self.other_files.iter().any(|f| !f.edits.is_empty())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Finding {
    pub code: String,
    pub name: String,
    pub level: Level,
    /// Relative to the directory the command runs in, `/`-separated.
    pub path: String,
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
    pub message: String,
    /// `elicitation/create`, `sampling/createMessage` or `roots/list` for findings about a
    /// server-to-client request; `null` otherwise.
    pub mcp_method: Option<String>,
    /// The SDK the rule matched (`rmcp`, `turbomcp`, ... or `raw`), when known.
    pub sdk: Option<String>,
    /// The help line: what to do instead.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub help: Option<String>,
    pub fix: Option<Fix>,
}

/// A file that could not be read or walked; files that do not parse are findings, not errors.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FileError {
    pub path: String,
    pub message: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    /// Files the run covered (read or not: an unreadable file is an `errors` entry, not seen).
    pub files_seen: usize,
    /// Files the prefilter admitted and that parsed (not a file that did not, a file over the
    /// size limit, or one whose analysis was skipped after it killed the linter). Decided per
    /// file, so the same for any `--threads`.
    pub files_parsed: usize,
    pub findings: usize,
}

/// The whole report, exactly as `--format json` prints it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    pub version: u32,
    pub findings: Vec<Finding>,
    pub errors: Vec<FileError>,
    pub summary: Summary,
}

impl Finding {
    /// The order every report uses: (path, line, column, code). Stable whatever the thread count.
    pub fn sort_key(&self) -> (&str, usize, usize, &str) {
        (&self.path, self.line, self.column, &self.code)
    }
}
