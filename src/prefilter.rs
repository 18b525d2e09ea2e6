//! The cheap test that keeps most files from being parsed: a file can only have a finding if it
//! contains one of the enabled rules' trigger tokens (from the catalog).
//!
//! Two tiers, because many trigger tokens are ordinary words (`sample`, `seal`, `confirm`,
//! `codec`, `new_from_slice`) that thousands of unrelated crates use. Such a word admits a file
//! only when the file's package depends on an MCP SDK, or the package is unknown (no manifest:
//! the rules fall back to syntax), or the file also holds an MCP anchor (an SDK crate name, a wire
//! method, `requestState`, ...). Rules about SDK calls cannot fire in a package the manifest shows
//! has no SDK anyway (`FileFacts::absent`); raw JSON-RPC and requestState rules need their
//! MCP-specific strings in the file, which are anchors.

use std::sync::{Arc, Mutex};

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind};

use crate::manifest::Package;

/// Substrings (case-sensitive, so the scan keeps its SIMD prefilter) that mark a file as MCP code whatever its package depends on.
const ANCHORS: &[&str] = &[
    "mcp",
    "Mcp",
    "MCP",
    "licitation",
    "sampling/",
    "roots/list",
    "CreateMessage",
    "ListRoots",
    "requestState",
    "request_state",
    "RequestState",
    "InputRequire",
    "input_require",
    "inputRequests",
    "RoleServer",
];

pub struct Prefilter {
    matcher: Option<AhoCorasick>,
    anchors: Option<AhoCorasick>,
}

impl Prefilter {
    /// `None` tokens (or an empty list) lets every file through.
    pub fn new(tokens: &[String]) -> Prefilter {
        let matcher = if tokens.is_empty() {
            None
        } else {
            // A DFA: built once per run, and the scan over every byte of the tree is the
            // prefilter's whole cost (the default NFA was 15% of a run on a vendored tree).
            AhoCorasickBuilder::new()
                .kind(Some(AhoCorasickKind::DFA))
                .build(tokens)
                .ok()
        };
        let anchors = AhoCorasick::new(ANCHORS).ok();
        Prefilter { matcher, anchors }
    }

    /// Whether the file may hold a finding. `package` is the file's package when a manifest was
    /// found; `None` admits on the trigger tokens alone.
    pub fn admits(&self, bytes: &[u8], package: Option<&Package>) -> bool {
        let Some(m) = &self.matcher else { return true };
        // The anchors are few, so their scan runs on SIMD prefilters; it goes first because in a
        // package without an SDK it rejects nearly every file before the large automaton runs.
        if package.is_some_and(|p| !depends_on_an_sdk(p))
            && self.anchors.as_ref().is_some_and(|a| !a.is_match(bytes))
        {
            return false;
        }
        m.is_match(bytes)
    }
}

/// The prefilter for `tokens`, built once per distinct token list in the process: building the DFA
/// costs far more than scanning one file, and the fix loop and library callers lint one text at a
/// time with the same settings.
pub fn shared(tokens: &[String]) -> Arc<Prefilter> {
    // Distinct token lists are few (one per set of enabled rules); the bound only guards a
    // library caller that varies its settings without end.
    static BUILT: Mutex<Vec<(Vec<String>, Arc<Prefilter>)>> = Mutex::new(Vec::new());
    let mut built = BUILT.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, p)) = built.iter().find(|(t, _)| t.as_slice() == tokens) {
        return p.clone();
    }
    if built.len() >= 16 {
        built.clear();
    }
    let filter = Arc::new(Prefilter::new(tokens));
    built.push((tokens.to_vec(), filter.clone()));
    filter
}

fn depends_on_an_sdk(package: &Package) -> bool {
    crate::sdk::SDKS
        .iter()
        .any(|sdk| package.dependency_on(sdk.packages).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn package(deps: &str) -> Package {
        let dir = tempfile::tempdir().expect("temp dir");
        let manifest = dir.path().join("Cargo.toml");
        std::fs::write(
            &manifest,
            format!("[package]\nname = \"p\"\nversion = \"0.1.0\"\n\n[dependencies]\n{deps}\n"),
        )
        .expect("manifest");
        Package::read(&manifest).expect("reads").expect("a package")
    }

    #[test]
    fn an_ordinary_word_admits_a_file_only_in_mcp_code() {
        let filter = Prefilter::new(&["sample".to_string(), "list_roots".to_string()]);
        let plain = b"fn f(rng: &mut R) { let x = rng.sample(dist); }";
        let unrelated = package("rand = \"0.8\"");
        let server = package("turbomcp = \"3.1\"");
        assert!(!filter.admits(plain, Some(&unrelated)), "no SDK, no anchor");
        assert!(
            filter.admits(plain, Some(&server)),
            "the package depends on an SDK"
        );
        assert!(filter.admits(plain, None), "no manifest: syntax decides");
        let raw = b"fn f() { send(\"roots/list\"); let x = list_roots(); }";
        assert!(
            filter.admits(raw, Some(&unrelated)),
            "an MCP anchor in the file"
        );
        assert!(
            !filter.admits(b"fn f() {}", Some(&server)),
            "no trigger at all"
        );
    }

    #[test]
    fn the_shared_prefilter_is_rebuilt_only_for_other_tokens() {
        let a = vec!["elicit".to_string()];
        let b = vec!["list_roots".to_string()];
        let first = shared(&a);
        assert!(Arc::ptr_eq(&first, &shared(&a)));
        let other = shared(&b);
        assert!(!Arc::ptr_eq(&first, &other));
        assert!(other.admits(b"x.list_roots()", None));
        assert!(!other.admits(b"x.elicit()", None));
    }
}
