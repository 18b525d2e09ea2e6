//! Unified diffs of what `--fix` would write (`--diff`), in the format `patch -p1` and `git apply`
//! read: `--- a/PATH`, `+++ b/PATH`, hunks with three lines of context.

/// Lines of context around each change.
const CONTEXT: usize = 3;
/// Above this many cells the middle of a file is shown as one replaced block instead of a minimal
/// diff (fixes change a few handlers; a file rewritten wholesale reads fine that way too).
const MAX_CELLS: usize = 4_000_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Keep,
    Delete,
    Insert,
}

/// The unified diff from `old` to `new` for `path`; empty when they are equal.
pub fn unified(path: &str, old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    let a: Vec<&str> = old.split_inclusive('\n').collect();
    let b: Vec<&str> = new.split_inclusive('\n').collect();
    let ops = line_ops(&a, &b);
    let mut out = format!("--- a/{path}\n+++ b/{path}\n");
    // Positions (in a and b) where each op starts.
    let mut pos = Vec::with_capacity(ops.len());
    let (mut i, mut j) = (0, 0);
    for op in &ops {
        pos.push((i, j));
        match op {
            Op::Keep => {
                i += 1;
                j += 1;
            }
            Op::Delete => i += 1,
            Op::Insert => j += 1,
        }
    }
    let changed: Vec<usize> = (0..ops.len()).filter(|&k| ops[k] != Op::Keep).collect();
    let mut k = 0;
    while k < changed.len() {
        let first = changed[k];
        let mut last = first;
        while k + 1 < changed.len() && changed[k + 1] <= last + 2 * CONTEXT + 1 {
            k += 1;
            last = changed[k];
        }
        k += 1;
        let from = first.saturating_sub(CONTEXT);
        let to = (last + CONTEXT + 1).min(ops.len());
        let (a0, b0) = pos[from];
        let a_len = ops[from..to].iter().filter(|o| **o != Op::Insert).count();
        let b_len = ops[from..to].iter().filter(|o| **o != Op::Delete).count();
        out.push_str(&format!(
            "@@ -{} +{} @@\n",
            range(a0, a_len),
            range(b0, b_len)
        ));
        for (op, &(ai, bj)) in ops[from..to].iter().zip(&pos[from..to]) {
            let (sign, line) = match op {
                Op::Keep => (' ', a[ai]),
                Op::Delete => ('-', a[ai]),
                Op::Insert => ('+', b[bj]),
            };
            out.push(sign);
            out.push_str(line);
            if !line.ends_with('\n') {
                out.push_str("\n\\ No newline at end of file\n");
            }
        }
    }
    out
}

fn range(start: usize, len: usize) -> String {
    match len {
        0 => format!("{start},0"),
        1 => format!("{}", start + 1),
        _ => format!("{},{len}", start + 1),
    }
}

/// A shortest edit script on lines: common prefix and suffix first, then a longest common
/// subsequence of the middle.
fn line_ops(a: &[&str], b: &[&str]) -> Vec<Op> {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let am = &a[prefix..a.len() - suffix];
    let bm = &b[prefix..b.len() - suffix];
    let mut ops = vec![Op::Keep; prefix];
    if am.len().saturating_mul(bm.len()) > MAX_CELLS {
        ops.extend(std::iter::repeat_n(Op::Delete, am.len()));
        ops.extend(std::iter::repeat_n(Op::Insert, bm.len()));
    } else {
        ops.extend(lcs_ops(am, bm));
    }
    ops.extend(std::iter::repeat_n(Op::Keep, suffix));
    ops
}

fn lcs_ops(a: &[&str], b: &[&str]) -> Vec<Op> {
    let (n, m) = (a.len(), b.len());
    // len[i][j]: LCS length of a[i..] and b[j..].
    let mut len = vec![0u32; (n + 1) * (m + 1)];
    let at = |i: usize, j: usize| i * (m + 1) + j;
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            len[at(i, j)] = if a[i] == b[j] {
                len[at(i + 1, j + 1)] + 1
            } else {
                len[at(i + 1, j)].max(len[at(i, j + 1)])
            };
        }
    }
    let mut ops = Vec::with_capacity(n + m);
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            ops.push(Op::Keep);
            i += 1;
            j += 1;
        } else if i < n && (j == m || len[at(i + 1, j)] >= len[at(i, j + 1)]) {
            ops.push(Op::Delete);
            i += 1;
        } else {
            ops.push(Op::Insert);
            j += 1;
        }
    }
    ops
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_texts_have_no_diff() {
        assert_eq!(unified("x.rs", "a\nb\n", "a\nb\n"), "");
    }

    #[test]
    fn one_changed_line_with_context() {
        let old = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
        let new = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n";
        assert_eq!(
            unified("src/x.rs", old, new),
            "--- a/src/x.rs\n+++ b/src/x.rs\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"
        );
    }

    #[test]
    fn insertion_and_far_apart_changes_make_two_hunks() {
        let old: String = (1..=20).map(|i| format!("{i}\n")).collect();
        let mut lines: Vec<String> = (1..=20).map(|i| format!("{i}\n")).collect();
        lines.remove(17);
        lines.insert(2, "new\n".into());
        let new: String = lines.concat();
        let d = unified("f", &old, &new);
        assert_eq!(d.matches("@@ ").count(), 2, "{d}");
        assert!(d.contains("@@ -1,5 +1,6 @@\n 1\n 2\n+new\n 3\n"), "{d}");
        assert!(d.contains("-18\n"), "{d}");
    }

    #[test]
    fn missing_final_newline_is_marked() {
        let d = unified("f", "a\nb", "a\nc");
        assert!(
            d.ends_with("-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"),
            "{d}"
        );
    }
}
