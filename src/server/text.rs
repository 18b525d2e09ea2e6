//! Positions: the engine counts lines from 1 and columns in chars from 1, edits in bytes; LSP
//! counts both from 0 and columns in UTF-16 code units (the encoding every client supports).

use lsp_types::{Position, Range, TextDocumentContentChangeEvent, TextEdit};

/// Line starts of one text, for converting positions both ways.
pub struct Lines<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    pub fn new(text: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Lines { text, starts }
    }

    /// The text of 0-based `line` without its line break.
    fn line(&self, line: usize) -> &'a str {
        let Some(&start) = self.starts.get(line) else {
            return "";
        };
        let end = self
            .starts
            .get(line + 1)
            .copied()
            .unwrap_or(self.text.len());
        self.text[start..end].trim_end_matches(['\n', '\r'])
    }

    /// The LSP position of a byte offset (clamped to the text, moved back to a char boundary).
    pub fn position(&self, offset: usize) -> Position {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let start = self.starts[line];
        let units: usize = self.text[start..offset].chars().map(char::len_utf16).sum();
        Position::new(line as u32, units as u32)
    }

    /// The LSP position of the engine's 1-based line and 1-based char column.
    pub fn position_of(&self, line: usize, column: usize) -> Position {
        let l = line.saturating_sub(1);
        let units: usize = self
            .line(l)
            .chars()
            .take(column.saturating_sub(1))
            .map(char::len_utf16)
            .sum();
        Position::new(l as u32, units as u32)
    }

    /// The byte offset of an LSP position; a column past the line's end is its end, a line past
    /// the text is its end (as the protocol asks).
    pub fn offset(&self, p: Position) -> usize {
        let Some(&start) = self.starts.get(p.line as usize) else {
            return self.text.len();
        };
        let line = self.line(p.line as usize);
        let mut units = 0usize;
        for (i, c) in line.char_indices() {
            if units >= p.character as usize {
                return start + i;
            }
            units += c.len_utf16();
        }
        start + line.len()
    }

    pub fn range(&self, start: usize, end: usize) -> Range {
        Range::new(self.position(start), self.position(end))
    }
}

/// Applies one `didChange` event: a ranged replacement, or the whole text when it has no range.
pub fn apply_change(text: &mut String, change: &TextDocumentContentChangeEvent) {
    match change.range {
        Some(range) => {
            let lines = Lines::new(text);
            let start = lines.offset(range.start);
            let end = lines.offset(range.end).max(start);
            text.replace_range(start..end, &change.text);
        }
        None => *text = change.text.clone(),
    }
}

/// One edit that turns `old` into `new`: the span between their common prefix and suffix.
pub fn minimal_edit(old: &str, new: &str) -> Option<TextEdit> {
    if old == new {
        return None;
    }
    let mut prefix = old
        .bytes()
        .zip(new.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    while !old.is_char_boundary(prefix) || !new.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let max_suffix = old.len().min(new.len()) - prefix;
    let mut suffix = old
        .bytes()
        .rev()
        .zip(new.bytes().rev())
        .take(max_suffix)
        .take_while(|(a, b)| a == b)
        .count();
    while !old.is_char_boundary(old.len() - suffix) || !new.is_char_boundary(new.len() - suffix) {
        suffix -= 1;
    }
    let lines = Lines::new(old);
    Some(TextEdit {
        range: lines.range(prefix, old.len() - suffix),
        new_text: new[prefix..new.len() - suffix].to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_columns_both_ways() {
        let text = "ab\nx😀é = 1;\r\nend";
        let l = Lines::new(text);
        // `😀` is two UTF-16 units and four bytes.
        let eq = text.find('=').unwrap();
        assert_eq!(l.position(eq), Position::new(1, 5));
        assert_eq!(l.offset(Position::new(1, 5)), eq);
        assert_eq!(l.position_of(2, 5), Position::new(1, 5));
        // Past the end of a line: its end, before the `\r\n`.
        assert_eq!(l.offset(Position::new(1, 99)), text.find('\r').unwrap());
        assert_eq!(l.offset(Position::new(9, 0)), text.len());
    }

    #[test]
    fn incremental_changes_and_minimal_edits() {
        let mut t = String::from("fn a() {}\nfn b() {}\n");
        let change = TextDocumentContentChangeEvent {
            range: Some(Range::new(Position::new(1, 3), Position::new(1, 4))),
            range_length: None,
            text: "bee".into(),
        };
        apply_change(&mut t, &change);
        assert_eq!(t, "fn a() {}\nfn bee() {}\n");
        let e = minimal_edit("fn a() {}\nfn b() {}\n", &t).unwrap();
        assert_eq!(
            e.range,
            Range::new(Position::new(1, 4), Position::new(1, 4))
        );
        assert_eq!(e.new_text, "ee");
        assert!(minimal_edit(&t, &t).is_none());
    }
}
