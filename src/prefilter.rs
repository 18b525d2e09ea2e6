//! The cheap test that keeps most files from being parsed: a file can only have a finding if it
//! contains one of the enabled rules' trigger tokens (from the catalog).

use aho_corasick::AhoCorasick;

pub struct Prefilter {
    matcher: Option<AhoCorasick>,
}

impl Prefilter {
    /// `None` tokens (or an empty list) lets every file through.
    pub fn new(tokens: &[String]) -> Prefilter {
        let matcher = if tokens.is_empty() {
            None
        } else {
            AhoCorasick::new(tokens).ok()
        };
        Prefilter { matcher }
    }

    pub fn admits(&self, bytes: &[u8]) -> bool {
        match &self.matcher {
            Some(m) => m.is_match(bytes),
            None => true,
        }
    }
}
