//! Splicing fixes into a text: every edit replaces a byte span of the text as it was read, so
//! everything outside the spans (comments, formatting) survives byte for byte.
//!
//! Fixes are taken in order; one whose edits overlap an edit already taken waits for the next pass
//! (the engine lints the new text again and offers it anew). Two fixes may share an identical edit
//! (the handler-level edits every ask of one handler carries): it is applied once.

use crate::finding::{Edit, Fix};

/// The result of applying a set of fixes to one text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    pub text: String,
    /// Indices (into the fixes given) of the fixes whose edits are all in `text`.
    pub applied: Vec<usize>,
    /// Indices of the fixes left for a later pass because they overlap an applied one.
    pub deferred: Vec<usize>,
    /// Indices of the fixes that were rejected: an edit outside the text or not on a char boundary.
    pub invalid: Vec<usize>,
}

/// `new` with the line endings of `original`: when every line of `original` ends in CRLF, each
/// LF that `new` holds alone (a line a fix or a TOML rewrite added) gets its CR. A text with mixed
/// or LF endings is returned as it is.
pub fn with_line_endings_of(original: &str, new: String) -> String {
    let crlf = original.contains("\r\n")
        && memchr::memchr_iter(b'\n', original.as_bytes())
            .all(|i| i > 0 && original.as_bytes()[i - 1] == b'\r');
    if !crlf {
        return new;
    }
    let b = new.as_bytes();
    let lone = memchr::memchr_iter(b'\n', b)
        .filter(|&i| i == 0 || b[i - 1] != b'\r')
        .count();
    if lone == 0 {
        return new;
    }
    let mut out = String::with_capacity(new.len() + lone);
    let mut last = 0;
    for i in memchr::memchr_iter(b'\n', b) {
        if i == 0 || b[i - 1] != b'\r' {
            out.push_str(&new[last..i]);
            out.push_str("\r\n");
            last = i + 1;
        }
    }
    out.push_str(&new[last..]);
    out
}

/// Whether two edits touch the same bytes. An insertion conflicts with anything that starts or
/// ends where it stands (the order of the two texts would be a guess).
pub fn overlaps(a: &Edit, b: &Edit) -> bool {
    if a.start == a.end || b.start == b.end {
        a.start <= b.end && b.start <= a.end
    } else {
        a.start < b.end && b.start < a.end
    }
}

fn same_splice(a: &Edit, b: &Edit) -> bool {
    a.start == b.start && a.end == b.end && a.replacement == b.replacement
}

fn valid_in(text: &str, e: &Edit) -> bool {
    e.start <= e.end
        && e.end <= text.len()
        && text.is_char_boundary(e.start)
        && text.is_char_boundary(e.end)
}

/// Applies `fixes` to `text`: each fix entirely or not at all.
pub fn apply_fixes(text: &str, fixes: &[&Fix]) -> Applied {
    let mut taken: Vec<&Edit> = Vec::new();
    let mut applied = Vec::new();
    let mut deferred = Vec::new();
    let mut invalid = Vec::new();
    'fixes: for (i, fix) in fixes.iter().enumerate() {
        if fix.edits.iter().any(|e| !valid_in(text, e)) || self_overlapping(&fix.edits) {
            invalid.push(i);
            continue;
        }
        let mut new = Vec::new();
        for e in &fix.edits {
            if taken.iter().any(|t| same_splice(t, e)) {
                continue;
            }
            if taken.iter().any(|t| overlaps(t, e)) {
                deferred.push(i);
                continue 'fixes;
            }
            new.push(e);
        }
        taken.extend(new);
        applied.push(i);
    }
    taken.sort_by_key(|e| (e.start, e.end));
    let mut out = String::with_capacity(text.len() + 256);
    let mut at = 0;
    for e in taken {
        out.push_str(&text[at..e.start]);
        out.push_str(&e.replacement);
        at = e.end;
    }
    out.push_str(&text[at..]);
    Applied {
        text: out,
        applied,
        deferred,
        invalid,
    }
}

/// A fix whose own edits overlap cannot be applied in any order that means something.
fn self_overlapping(edits: &[Edit]) -> bool {
    edits.iter().enumerate().any(|(i, a)| {
        edits[i + 1..]
            .iter()
            .any(|b| !same_splice(a, b) && overlaps(a, b))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::Applicability;

    fn edit(start: usize, end: usize, r: &str) -> Edit {
        Edit {
            start,
            end,
            line: 1,
            column: start + 1,
            end_line: 1,
            end_column: end + 1,
            replacement: r.into(),
        }
    }

    fn fix(edits: Vec<Edit>) -> Fix {
        Fix {
            applicability: Applicability::Safe,
            message: "m".into(),
            edits,
            other_files: Vec::new(),
        }
    }

    #[test]
    fn splices_keep_the_text_between_edits() {
        let f = fix(vec![edit(8, 9, "b"), edit(0, 1, "A")]);
        let a = apply_fixes("a /* c */ z", &[&f]);
        assert_eq!(a.text, "A /* c *b z");
        assert_eq!(a.applied, vec![0]);
    }

    #[test]
    fn overlapping_fix_waits_and_shared_edits_apply_once() {
        let one = fix(vec![edit(0, 3, "xyz"), edit(5, 5, "!")]);
        let shared = fix(vec![edit(5, 5, "!"), edit(6, 7, "Q")]);
        let clash = fix(vec![edit(2, 4, "--")]);
        let a = apply_fixes("abcdefgh", &[&one, &shared, &clash]);
        assert_eq!(a.text, "xyzde!fQh");
        assert_eq!(a.applied, vec![0, 1]);
        assert_eq!(a.deferred, vec![2]);
    }

    #[test]
    fn insertions_at_the_same_place_conflict() {
        let a = fix(vec![edit(1, 1, "x")]);
        let b = fix(vec![edit(1, 1, "y")]);
        let r = apply_fixes("ab", &[&a, &b]);
        assert_eq!(r.text, "axb");
        assert_eq!(r.deferred, vec![1]);
    }

    #[test]
    fn edits_outside_the_text_or_inside_a_char_are_rejected() {
        let past = fix(vec![edit(3, 9, "")]);
        let mid_char = fix(vec![edit(1, 2, "")]);
        let r = apply_fixes("é!", &[&past, &mid_char]);
        assert_eq!(r.text, "é!");
        assert_eq!(r.invalid, vec![0, 1]);
    }
}
