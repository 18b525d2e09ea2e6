//! Unified diffs of what `--fix` would write (`--diff`), in the format `patch -p1` and `git apply`
//! read: `--- a/PATH`, `+++ b/PATH`, hunks with three lines of context.

/// Lines of context around each change.
const CONTEXT: usize = 3;
/// Above this many differing lines the middle of a file is shown as one replaced block instead of
/// a minimal diff: the search's memory grows with the square of the differences, and a file
/// rewritten that much reads fine as a block.
const MAX_EDITS: usize = 2_000;

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

/// A shortest edit script on lines: common prefix and suffix first, then Myers' O(ND) search on
/// the middle, whose cost follows the number of changed lines, not the file's length (a fix
/// near each end of a long file is two small hunks, not the file twice).
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
    match myers(am, bm, MAX_EDITS) {
        Some(middle) => ops.extend(middle),
        None => {
            ops.extend(std::iter::repeat_n(Op::Delete, am.len()));
            ops.extend(std::iter::repeat_n(Op::Insert, bm.len()));
        }
    }
    ops.extend(std::iter::repeat_n(Op::Keep, suffix));
    ops
}

/// The shortest edit script from `a` to `b` (deletions before insertions at each point), or None
/// when it takes more than `max` edits. `trace[d]` keeps the furthest x reached on each diagonal
/// k in -(d+1)..=d+1 before round d, which is what walking back from the end needs.
fn myers(a: &[&str], b: &[&str], max: usize) -> Option<Vec<Op>> {
    let (n, m) = (a.len() as isize, b.len() as isize);
    let limit = (a.len() + b.len()).min(max) as isize;
    let offset = limit + 1;
    let mut v = vec![0isize; 2 * offset as usize + 1];
    let mut trace: Vec<Vec<isize>> = Vec::new();
    for d in 0..=limit {
        trace.push(v[(offset - d - 1) as usize..=(offset + d + 1) as usize].to_vec());
        for k in (-d..=d).step_by(2) {
            let at = |k: isize| (offset + k) as usize;
            let mut x = if k == -d || (k != d && v[at(k - 1)] < v[at(k + 1)]) {
                v[at(k + 1)]
            } else {
                v[at(k - 1)] + 1
            };
            let mut y = x - k;
            while x < n && y < m && a[x as usize] == b[y as usize] {
                x += 1;
                y += 1;
            }
            v[at(k)] = x;
            if x >= n && y >= m {
                return Some(walk_back(&trace, n, m));
            }
        }
    }
    None
}

/// The edit script that `trace` (see [`myers`]) reached (n, m) by, in order.
fn walk_back(trace: &[Vec<isize>], n: isize, m: isize) -> Vec<Op> {
    let mut ops = Vec::new();
    let (mut x, mut y) = (n, m);
    for d in (0..trace.len() as isize).rev() {
        let k = x - y;
        if d == 0 {
            // Round 0 is the common run from the start.
            ops.extend(std::iter::repeat_n(Op::Keep, x as usize));
            break;
        }
        let before = &trace[d as usize];
        let at = |k: isize| before[(k + d + 1) as usize];
        let prev_k = if k == -d || (k != d && at(k - 1) < at(k + 1)) {
            k + 1
        } else {
            k - 1
        };
        let prev_x = at(prev_k);
        let prev_y = prev_x - prev_k;
        while x > prev_x && y > prev_y {
            ops.push(Op::Keep);
            x -= 1;
            y -= 1;
        }
        ops.push(if x == prev_x { Op::Insert } else { Op::Delete });
        x = prev_x;
        y = prev_y;
    }
    ops.reverse();
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
    fn changes_near_both_ends_of_a_long_file_are_two_small_hunks() {
        let old: Vec<String> = (1..=3000).map(|i| format!("line {i}\n")).collect();
        let mut new = old.clone();
        new[5] = "changed near the top\n".into();
        new.insert(2990, "added near the end\n".into());
        let d = unified("f", &old.concat(), &new.concat());
        assert_eq!(d.matches("@@ ").count(), 2, "{d}");
        assert_eq!(d.lines().filter(|l| l.starts_with('-')).count(), 2, "{d}");
        assert_eq!(d.lines().filter(|l| l.starts_with('+')).count(), 3, "{d}");
    }

    #[test]
    fn the_edit_script_rebuilds_the_new_text() {
        // Every op sequence, applied to the old lines, gives the new ones, with the fewest edits
        // an LCS allows (checked on small texts against the brute count).
        let cases = [
            ("a b c a b b a", "c b a b a c"),
            ("x y z", ""),
            ("", "x y"),
            ("1 2 3 4 5", "1 3 5 7"),
            ("q", "q"),
        ];
        for (a, b) in cases {
            let a: Vec<&str> = a.split_whitespace().collect();
            let b: Vec<&str> = b.split_whitespace().collect();
            let ops = myers(&a, &b, 100).unwrap();
            let (mut i, mut j, mut out) = (0, 0, Vec::new());
            for op in &ops {
                match op {
                    Op::Keep => {
                        assert_eq!(a[i], b[j]);
                        out.push(a[i]);
                        i += 1;
                        j += 1;
                    }
                    Op::Delete => i += 1,
                    Op::Insert => {
                        out.push(b[j]);
                        j += 1;
                    }
                }
            }
            assert_eq!((i, j), (a.len(), b.len()));
            assert_eq!(out, b);
            let keeps = ops.iter().filter(|o| **o == Op::Keep).count();
            assert_eq!(keeps, lcs_len(&a, &b), "{a:?} -> {b:?}");
        }
        // Past the limit: None, and the caller shows one block.
        assert!(myers(&["a"; 10], &["b"; 10], 5).is_none());
    }

    fn lcs_len(a: &[&str], b: &[&str]) -> usize {
        let mut t = vec![vec![0; b.len() + 1]; a.len() + 1];
        for i in (0..a.len()).rev() {
            for j in (0..b.len()).rev() {
                t[i][j] = if a[i] == b[j] {
                    t[i + 1][j + 1] + 1
                } else {
                    t[i + 1][j].max(t[i][j + 1])
                };
            }
        }
        t[0][0]
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
