//! Positions in a source file: syn gives (line, char column); editors and codespan want byte
//! offsets and 1-based columns. One `LineIndex` per file converts between them.

use std::collections::HashMap;

use proc_macro2::{LineColumn, Span};

/// A resolved position range in one file: 1-based lines and columns (columns count chars), and
/// byte offsets into the file as read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Range {
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
    pub start: usize,
    pub end: usize,
}

/// Chars between two recorded byte offsets on a line with non-ASCII text.
const STRIDE: usize = 256;

pub struct LineIndex<'a> {
    text: &'a str,
    line_starts: Vec<usize>,
    /// For each line with non-ASCII text (by 0-based index): the byte offset of its chars number
    /// 0, STRIDE, 2 * STRIDE, ... Converting between char columns and byte offsets then costs
    /// O(STRIDE) instead of O(line length); on one long generated line (a 1 MB line with 37k
    /// findings took 88 s) the per-span scan made a run quadratic. ASCII lines need no table.
    wide: HashMap<usize, Vec<usize>>,
}

impl<'a> LineIndex<'a> {
    pub fn new(text: &'a str) -> Self {
        // syn drops a leading byte order mark and counts line 1's columns after it; so does this
        // index, and an edit at the start of the file then goes after the mark, not before it.
        let first = if text.starts_with('\u{feff}') { 3 } else { 0 };
        let mut line_starts = vec![first];
        line_starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        let mut wide = HashMap::new();
        // Built for every file analysed: an all-ASCII file (most) is told at once, not line by line.
        let lines = if text.is_ascii() {
            &[][..]
        } else {
            &line_starts[..]
        };
        for (n, &start) in lines.iter().enumerate() {
            let end = line_starts.get(n + 1).copied().unwrap_or(text.len());
            let line = &text[start..end];
            if !line.is_ascii() {
                let marks = line.char_indices().step_by(STRIDE).map(|(i, _)| start + i);
                wide.insert(n, marks.collect());
            }
        }
        LineIndex {
            text,
            line_starts,
            wide,
        }
    }

    /// The whole file.
    pub fn text(&self) -> &'a str {
        self.text
    }

    /// Byte offset of a 1-based line and 0-based char column (proc-macro2's convention),
    /// clamped to the file.
    pub fn offset(&self, line: usize, char_col: usize) -> usize {
        let n = line.saturating_sub(1);
        let Some(&start) = self.line_starts.get(n) else {
            return self.text.len();
        };
        let end = self
            .line_starts
            .get(n + 1)
            .copied()
            .unwrap_or(self.text.len());
        let Some(marks) = self.wide.get(&n) else {
            return (start + char_col).min(end);
        };
        let Some(&from) = marks.get(char_col / STRIDE) else {
            return end;
        };
        match self.text[from..end].char_indices().nth(char_col % STRIDE) {
            Some((i, _)) => from + i,
            None => end,
        }
    }

    /// 1-based line and 1-based char column of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len()).max(self.line_starts[0]);
        let line = self.line_starts.partition_point(|&s| s <= offset);
        let start = self.line_starts[line - 1];
        let Some(marks) = self.wide.get(&(line - 1)) else {
            return (line, offset - start + 1);
        };
        let k = marks.partition_point(|&m| m <= offset).max(1) - 1;
        let col = self
            .text
            .get(marks[k]..offset)
            .map_or(1, |s| k * STRIDE + s.chars().count() + 1);
        (line, col)
    }

    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// Byte offset where 1-based `line` starts (the end of the text past the last line).
    pub fn line_start(&self, line: usize) -> usize {
        self.line_starts
            .get(line.saturating_sub(1))
            .copied()
            .unwrap_or(self.text.len())
    }

    /// The text of 1-based `line`, without its line terminator.
    pub fn line_text(&self, line: usize) -> &'a str {
        if line == 0 || line > self.line_starts.len() {
            return "";
        }
        let start = self.line_starts[line - 1];
        let end = self
            .line_starts
            .get(line)
            .map(|&s| s - 1)
            .unwrap_or(self.text.len());
        self.text[start..end].trim_end_matches('\r')
    }

    /// An edit replacing bytes `start..end`, with its 1-based line and char column positions.
    pub fn edit(&self, start: usize, end: usize, replacement: String) -> crate::finding::Edit {
        let (line, column) = self.line_col(start);
        let (end_line, end_column) = self.line_col(end);
        crate::finding::Edit {
            start,
            end,
            line,
            column,
            end_line,
            end_column,
            replacement,
        }
    }

    /// The text between two spans, from the start of `first` to the end of `last`.
    pub fn text_between(&self, first: Span, last: Span) -> &'a str {
        self.slice(first.start(), last.end())
    }

    /// The text from `from` to `to` (proc-macro2 positions: 1-based lines, 0-based char columns).
    pub fn slice(&self, from: LineColumn, to: LineColumn) -> &'a str {
        let start = self.offset(from.line, from.column);
        let end = self.offset(to.line, to.column);
        self.text.get(start..end).unwrap_or("")
    }

    pub fn range(&self, span: Span) -> Range {
        self.range_between(span, span)
    }

    /// The range from the start of `first` to the end of `last`.
    pub fn range_between(&self, first: Span, last: Span) -> Range {
        let s = first.start();
        let e = last.end();
        let start = self.offset(s.line, s.column);
        let end = self.offset(e.line, e.column).max(start);
        Range {
            line: s.line.max(1),
            column: s.column + 1,
            end_line: e.line.max(1),
            end_column: e.column + 1,
            start,
            end,
        }
    }
}

/// Converts a path to the report's form: relative to `base` (with `..` when it lies elsewhere),
/// `/`-separated. A relative `path` is taken as already relative to `base`.
/// About `width` chars of `line` around byte `at` (a char boundary), starting up to `before` chars
/// before it: the bytes, always on char boundaries. Costs the width, not the line's length, so a
/// megabyte line with thousands of findings is shown and keyed in time linear in the findings.
pub fn window(line: &str, at: usize, before: usize, width: usize) -> std::ops::Range<usize> {
    let at = (0..=at.min(line.len()))
        .rev()
        .find(|&i| line.is_char_boundary(i))
        .unwrap_or(0);
    let start = line[..at]
        .char_indices()
        .rev()
        .take(before)
        .last()
        .map_or(at, |(i, _)| i);
    let end = line[start..]
        .char_indices()
        .nth(width)
        .map_or(line.len(), |(i, _)| start + i);
    start..end
}

/// Half-open ranges that nest (items, fns), for finding the innermost one around a place in log
/// time: a scan of every range per finding made files with thousands of each quadratic.
#[derive(Debug, Clone)]
pub struct Nested<K> {
    ranges: Vec<(K, K)>,
    /// Indexes into `ranges`, by start (the outer first at equal starts).
    order: Vec<usize>,
    /// For each position in `order`: the position of the range around it, if any.
    parent: Vec<Option<usize>>,
}

impl<K: Ord + Copy> Nested<K> {
    pub fn new(ranges: Vec<(K, K)>) -> Self {
        let mut order: Vec<usize> = (0..ranges.len()).collect();
        order.sort_by_key(|&i| (ranges[i].0, std::cmp::Reverse(ranges[i].1)));
        let mut parent = Vec::with_capacity(order.len());
        let mut open: Vec<usize> = Vec::new();
        for (k, &i) in order.iter().enumerate() {
            while open
                .last()
                .is_some_and(|&o| ranges[order[o]].1 <= ranges[i].0)
            {
                open.pop();
            }
            parent.push(open.last().copied());
            open.push(k);
        }
        Nested {
            ranges,
            order,
            parent,
        }
    }

    /// The index of the range holding `at` that starts last (the shortest at equal starts).
    pub fn innermost(&self, at: K) -> Option<usize> {
        let upto = self.order.partition_point(|&i| self.ranges[i].0 <= at);
        let mut k = upto.checked_sub(1)?;
        loop {
            let (start, end) = self.ranges[self.order[k]];
            if start <= at && at < end {
                return Some(self.order[k]);
            }
            k = self.parent[k]?;
        }
    }
}

/// The path a report shows for `path`: relative to `base` when both are absolute, `/`-separated.
/// A name that is not UTF-8 is shown with each byte that is not as `\xNN`, and the shown name is
/// remembered with the real path, so [`os_path`] finds the file again for reading and writing.
pub fn display_path(path: &std::path::Path, base: &std::path::Path) -> String {
    use std::path::Component;
    let mut lossy = false;
    let mut text = |c: &std::ffi::OsStr| -> String {
        match c.to_str() {
            Some(s) => s.to_string(),
            None => {
                lossy = true;
                escape_os(c)
            }
        }
    };
    let rel: Vec<String> = if path.is_absolute() && base.is_absolute() {
        let p: Vec<Component> = path.components().collect();
        let b: Vec<Component> = base.components().collect();
        let common = p.iter().zip(&b).take_while(|(x, y)| x == y).count();
        if common == 0 {
            let shown = text(path.as_os_str());
            let shown = if cfg!(windows) {
                shown.replace('\\', "/")
            } else {
                shown
            };
            if lossy {
                remember(&shown, path);
            }
            return shown;
        }
        let ups = b[common..]
            .iter()
            .filter(|c| matches!(c, Component::Normal(_)))
            .count();
        std::iter::repeat_n("..".to_string(), ups)
            .chain(p[common..].iter().map(|c| text(c.as_os_str())))
            .collect()
    } else {
        path.components()
            .filter(|c| !matches!(c, Component::CurDir))
            .map(|c| match c {
                Component::RootDir => String::new(),
                other => text(other.as_os_str()),
            })
            .collect()
    };
    let joined = rel.join("/");
    if lossy {
        remember(&joined, path);
    }
    if joined.is_empty() {
        ".".to_string()
    } else {
        joined
    }
}

/// `name` with every byte that is not part of UTF-8 text written `\xNN`.
fn escape_os(name: &std::ffi::OsStr) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let mut out = String::new();
        for chunk in name.as_bytes().utf8_chunks() {
            out.push_str(chunk.valid());
            for b in chunk.invalid() {
                out.push_str(&format!("\\x{b:02X}"));
            }
        }
        out
    }
    #[cfg(not(unix))]
    {
        name.to_string_lossy().into_owned()
    }
}

/// Shown names of files whose real names are not UTF-8, with their real paths (absolute).
fn shown_names() -> &'static std::sync::Mutex<HashMap<String, std::path::PathBuf>> {
    static NAMES: std::sync::OnceLock<std::sync::Mutex<HashMap<String, std::path::PathBuf>>> =
        std::sync::OnceLock::new();
    NAMES.get_or_init(Default::default)
}

fn remember(shown: &str, path: &std::path::Path) {
    if let Ok(real) = std::path::absolute(path) {
        shown_names()
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(shown.to_string(), real);
    }
}

/// The real path of a file shown (by [`display_path`]) as `shown`, relative to `base`: the
/// remembered one for a name that is not UTF-8, else `base/shown`.
pub fn os_path(base: &std::path::Path, shown: &str) -> std::path::PathBuf {
    real_path_of(shown).unwrap_or_else(|| base.join(shown))
}

/// The real path behind a shown name that had to be escaped, if `shown` is one.
pub fn real_path_of(shown: &str) -> Option<std::path::PathBuf> {
    if !shown.contains("\\x") {
        return None;
    }
    shown_names()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(shown)
        .cloned()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_innermost_range_is_found_as_a_scan_would() {
        let ranges = vec![
            (0, 100),
            (10, 20),
            (12, 18),
            (30, 40),
            (30, 35),
            (50, 60),
            (120, 130),
        ];
        let nested = super::Nested::new(ranges.clone());
        for at in 0..140 {
            let scan = ranges
                .iter()
                .enumerate()
                .filter(|(_, r)| r.0 <= at && at < r.1)
                .max_by_key(|(_, r)| (r.0, std::cmp::Reverse(r.1)))
                .map(|(i, _)| i);
            assert_eq!(nested.innermost(at), scan, "at {at}");
        }
    }

    #[test]
    fn windows_are_cut_on_char_boundaries_around_the_place() {
        let line = "é".repeat(1000);
        let r = super::window(&line, 1000, 10, 30);
        assert_eq!(r, 980..1040);
        assert_eq!(line[r].chars().count(), 30);
        // Near either end, and from inside a char.
        assert_eq!(super::window(&line, 3, 10, 30), 0..60);
        assert_eq!(super::window(&line, 1999, 10, 30), 1978..2000);
        assert_eq!(super::window("short", 2, 100, 200), 0..5);
    }

    use super::*;

    #[test]
    fn offsets_count_chars_not_bytes() {
        let text = "ab\néé x\n";
        let idx = LineIndex::new(text);
        assert_eq!(idx.offset(2, 3), text.find('x').unwrap());
        assert_eq!(idx.line_col(text.find('x').unwrap()), (2, 4));
        assert_eq!(idx.offset(9, 0), text.len());
    }

    #[test]
    fn a_byte_order_mark_is_before_line_1_as_syn_counts_it() {
        let text = "\u{feff}fn a() {}\nfn b() {}\n";
        let idx = LineIndex::new(text);
        let file = syn::parse_file(text).unwrap();
        let start = syn::spanned::Spanned::span(&file.items[0]).start();
        assert_eq!(idx.offset(start.line, start.column), 3, "after the mark");
        assert_eq!(idx.line_text(1), "fn a() {}");
        assert_eq!(idx.line_col(0), (1, 1));
        assert_eq!(idx.line_col(text.find("a(").unwrap()), (1, 4));
    }
    #[test]
    fn long_lines_convert_like_a_plain_char_scan() {
        let naive_offset = |text: &str, line: usize, col: usize| {
            let start: usize = text
                .split_inclusive('\n')
                .take(line - 1)
                .map(str::len)
                .sum();
            let rest = text[start..].split_inclusive('\n').next().unwrap_or("");
            rest.char_indices()
                .nth(col)
                .map_or(start + rest.len(), |(i, _)| start + i)
        };
        let ascii = "x".repeat(3 * STRIDE + 7);
        let mixed: String = (0..3 * STRIDE + 7)
            .map(|i| if i % 5 == 0 { 'é' } else { 'a' })
            .collect();
        let text = format!("{ascii}\n{mixed}\nend");
        let idx = LineIndex::new(&text);
        for line in 1..=3 {
            for col in [
                0,
                1,
                STRIDE - 1,
                STRIDE,
                STRIDE + 1,
                2 * STRIDE + 3,
                3 * STRIDE + 6,
                3 * STRIDE + 7,
                9999,
            ] {
                let at = idx.offset(line, col);
                assert_eq!(at, naive_offset(&text, line, col), "line {line} col {col}");
                let line_len = text.split('\n').nth(line - 1).unwrap().chars().count();
                if col <= line_len {
                    assert_eq!(idx.line_col(at), (line, col + 1), "line {line} col {col}");
                }
            }
        }
    }

    #[test]
    fn display_paths_are_relative_and_slash_separated() {
        let base = std::path::Path::new("/w/ws");
        assert_eq!(
            display_path(std::path::Path::new("/w/ws/src/a.rs"), base),
            "src/a.rs"
        );
        assert_eq!(
            display_path(
                std::path::Path::new("./src/a.rs"),
                std::path::Path::new("/x")
            ),
            "src/a.rs"
        );
        assert_eq!(
            display_path(std::path::Path::new("/other/a.rs"), base),
            "../../other/a.rs"
        );
        assert_eq!(
            display_path(std::path::Path::new("/w/x/b.rs"), base),
            "../x/b.rs"
        );
        assert_eq!(display_path(std::path::Path::new("/w/ws"), base), ".");
    }
}
