//! What changed between two versions of a rule, line by line: the longest
//! common subsequence of their lines, the rest marked removed or added. Rule
//! texts are short, so the quadratic table costs nothing worth a crate.

use serde::Serialize;

/// One line of a diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Line {
    /// `same`, `removed` or `added`.
    pub change: &'static str,
    pub text: String,
}

pub fn lines(old: &str, new: &str) -> Vec<Line> {
    let old: Vec<&str> = old.lines().collect();
    let new: Vec<&str> = new.lines().collect();
    // common[i][j]: the longest common subsequence of old[i..] and new[j..].
    let mut common = vec![vec![0usize; new.len() + 1]; old.len() + 1];
    for i in (0..old.len()).rev() {
        for j in (0..new.len()).rev() {
            common[i][j] = if old[i] == new[j] {
                common[i + 1][j + 1] + 1
            } else {
                common[i + 1][j].max(common[i][j + 1])
            };
        }
    }
    let line = |change, text: &str| Line {
        change,
        text: text.to_owned(),
    };
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    while i < old.len() && j < new.len() {
        if old[i] == new[j] {
            out.push(line("same", old[i]));
            i += 1;
            j += 1;
        } else if common[i + 1][j] >= common[i][j + 1] {
            out.push(line("removed", old[i]));
            i += 1;
        } else {
            out.push(line("added", new[j]));
            j += 1;
        }
    }
    out.extend(old[i..].iter().map(|text| line("removed", text)));
    out.extend(new[j..].iter().map(|text| line("added", text)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_amended_line_is_one_removed_and_one_added_between_the_same() {
        let diff = lines("a\nb\nc", "a\nB\nc\nd");
        let changes: Vec<_> = diff
            .iter()
            .map(|l| format!("{} {}", l.change, l.text))
            .collect();
        assert_eq!(
            changes,
            ["same a", "removed b", "added B", "same c", "added d"]
        );
    }
}
