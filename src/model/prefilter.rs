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

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

use crate::model::manifest::Package;
use crate::reading::skeleton::{BodyKeys, UpgradeKeys, WholeNames};

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
    /// No tokens: every file is admitted.
    open: bool,
    /// Every trigger but the rmcp upgrade rules' own names, which are ordinary words of every
    /// rmcp file (`Tool`, `Content`, ...): kept apart so that this scan, run over every file,
    /// stays within aho-corasick's SIMD (Teddy) pattern budget.
    matcher: Option<AhoCorasick>,
    anchors: Option<AhoCorasick>,
    /// The rmcp upgrade rules' names, looked for only in packages that may use rmcp.
    upgrade: UpgradeTriggers,
    /// The 2026-07-28 readiness rules' own names (`initialize`, `spawn`, `SessionId`), looked for
    /// only in packages that may use an SDK: kept out of `matcher` for its pattern budget.
    readiness: Option<AhoCorasick>,
    /// What keeps a fn body from being blanked before parsing (`skeleton.rs`): the trigger
    /// tokens, then the SDK crate names (a `use` in a body feeds the scope model).
    body_keys: Option<BodyKeys>,
}

/// An automaton for `is_match` over whole files. Leftmost-first, because only the leftmost match
/// kinds let aho-corasick run its SIMD (Teddy) prefilter in front of the automaton; with standard
/// match semantics every byte goes through the automaton, about 6x slower on a vendored tree
/// (`bench/run.sh`). Whether any pattern occurs does not depend on the match kind.
pub(crate) fn scanner(patterns: &[&str]) -> Option<AhoCorasick> {
    AhoCorasickBuilder::new()
        .match_kind(MatchKind::LeftmostFirst)
        .build(patterns)
        .ok()
}

/// Every occurrence of some patterns, overlapping ones too (`mcp` inside `rmcp`), without
/// sending every byte through the overlapping automaton, which has no SIMD search: a
/// leftmost-first search finds where matches are, and the overlapping scan runs only there.
/// That finds them all: a leftmost-first search resumes where its last match ended, so an
/// occurrence that starts later would itself be found; every occurrence therefore starts inside
/// some leftmost-first match and ends within the longest pattern's length of its end.
pub(crate) struct Overlapping {
    leftmost: AhoCorasick,
    all: AhoCorasick,
    longest: usize,
}

impl Overlapping {
    pub fn new(patterns: &[&str]) -> Option<Overlapping> {
        Some(Overlapping {
            leftmost: scanner(patterns)?,
            all: AhoCorasick::new(patterns).ok()?,
            longest: patterns.iter().map(|p| p.len()).max()?,
        })
    }

    /// Calls `f(pattern, start, end)` for each occurrence, once, in order of their ends within
    /// each stretch of nearby matches.
    pub fn for_each(&self, haystack: &[u8], mut f: impl FnMut(usize, usize, usize)) {
        let mut scan = |from: usize, to: usize| {
            let input = aho_corasick::Input::new(haystack).span(from..to);
            for m in self.all.find_overlapping_iter(input) {
                f(m.pattern().as_usize(), m.start(), m.end());
            }
        };
        // Windows around the leftmost-first matches, merged where they touch, so that no
        // occurrence is reported twice.
        let mut window: Option<(usize, usize)> = None;
        for m in self.leftmost.find_iter(haystack) {
            let end = (m.end() + self.longest).min(haystack.len());
            window = match window {
                Some((from, to)) if m.start() <= to => Some((from, end.max(to))),
                Some((from, to)) => {
                    scan(from, to);
                    Some((m.start(), end))
                }
                None => Some((m.start(), end)),
            };
        }
        if let Some((from, to)) = window {
            scan(from, to);
        }
    }
}

impl Prefilter {
    /// `None` tokens (or an empty list) lets every file through.
    pub fn new(tokens: &[String]) -> Prefilter {
        let tokens: Vec<&str> = tokens.iter().map(String::as_str).collect();
        let upgrade = UpgradeTriggers::new(&tokens);
        let readiness_names = readiness_names(&tokens);
        let readiness = if readiness_names.is_empty() {
            None
        } else {
            scanner(&readiness_names)
        };
        let (matcher, body_keys) = if tokens.is_empty() {
            (None, None)
        } else {
            let everyday: Vec<&str> = tokens
                .iter()
                .copied()
                .filter(|t| !upgrade.names.contains(t) && !readiness_names.contains(t))
                .collect();
            let matcher = scanner(&everyday);
            // Bodies are scanned for both lists, each with its own automaton: one for both
            // would be past the 64 patterns of the SIMD search, and every byte of every admitted
            // file would go through the automaton.
            let keys = matcher.clone().map(|triggers| BodyKeys {
                triggers,
                more_triggers: readiness.clone(),
                upgrade: None,
                // Only the crate names: a body without a trigger has no finding, and what the
                // scope model takes from a body for the whole file is its `use` items and paths.
                // (The anchors would keep every body with an `/mcp` URL in it.)
                context: crate::model::sdk::SDKS
                    .iter()
                    .flat_map(|s| s.crates.iter().copied())
                    .collect(),
                imported: &[],
                const_values: crate::model::sdk::LEGACY_WIRES,
                package_consts: Vec::new(),
            });
            (matcher, keys)
        };
        Prefilter {
            open: tokens.is_empty(),
            matcher,
            anchors: scanner(ANCHORS),
            body_keys,
            upgrade,
            readiness,
        }
    }

    /// The keys that keep a fn body whole when a file of `package` is parsed; `None`: parse
    /// every body. The rmcp upgrade names keep a body only where they can find something (as in
    /// [`Prefilter::admits`]): `CallToolResult` is in every tool of an rmcp 3.x server, and
    /// keeping those bodies for nothing was a fifth of the all-parse bench.
    pub fn body_keys(&self, package: Option<&Package>) -> Option<BodyKeys> {
        let mut keys = self.body_keys.clone()?;
        let below_3 = self.upgrade.rmcp_below_3(package);
        if below_3 == Some(true) && self.upgrade.scanner.is_some() {
            keys.imported = crate::model::sdk::rmcp_upgrade::imported_only_names();
        }
        keys.upgrade = match below_3 {
            Some(true) => self.upgrade.scanner.clone().map(UpgradeKeys::Anywhere),
            Some(false) => self.upgrade.old_keys.clone(),
            None => None,
        };
        Some(keys)
    }

    /// Whether the file may hold a finding. `package` is the file's package when a manifest was
    /// found; `None` admits on the tokens alone.
    pub fn admits(&self, bytes: &[u8], package: Option<&Package>) -> bool {
        self.admits_with(self.has_trigger(bytes), bytes, package)
    }

    /// [`Prefilter::admits`] for a file whose [`Prefilter::has_trigger`] is known already (the
    /// first pass scanned it): the second look does not scan it again.
    pub fn admits_with(&self, has_trigger: bool, bytes: &[u8], package: Option<&Package>) -> bool {
        if self.open {
            return true;
        }
        (has_trigger && (package.is_none_or(depends_on_an_sdk) || self.has_anchor(bytes)))
            || self.upgrade.may_find(bytes, package)
            || self.readiness_may_find(bytes, package)
    }

    /// Whether a readiness name occurs in a file of a package that may use an SDK (or of no
    /// known package).
    fn readiness_may_find(&self, bytes: &[u8], package: Option<&Package>) -> bool {
        self.readiness
            .as_ref()
            .is_some_and(|r| package.is_none_or(depends_on_an_sdk) && r.is_match(bytes))
    }

    /// The first tier: whether any trigger token but an rmcp upgrade name occurs. It needs no
    /// package, so the caller can look the package up only for the few files that pass.
    pub fn has_trigger(&self, bytes: &[u8]) -> bool {
        self.open || self.matcher.as_ref().is_some_and(|m| m.is_match(bytes))
    }

    /// Whether an rmcp upgrade name occurs: worth asking only of a file whose package may use
    /// rmcp; [`Prefilter::admits`] then decides with the package in hand.
    pub fn has_upgrade_trigger(&self, bytes: &[u8]) -> bool {
        self.upgrade
            .scanner
            .as_ref()
            .is_some_and(|m| m.is_match(bytes))
            || self.readiness.as_ref().is_some_and(|m| m.is_match(bytes))
    }

    /// Whether a trigger token occurs that can find something in `package`: for a piece of a
    /// file already admitted (a macro body). An upgrade name counts as in
    /// [`Prefilter::admits`]: `vec![ContentBlock::text(..)]` in an rmcp 3.x server holds no
    /// stale `Content`.
    pub fn has_trigger_in(&self, bytes: &[u8], package: Option<&Package>) -> bool {
        self.has_trigger(bytes)
            || self.upgrade.may_find(bytes, package)
            || self.readiness_may_find(bytes, package)
    }

    /// Whether the file holds an MCP anchor, which admits it whatever its package depends on.
    pub fn has_anchor(&self, bytes: &[u8]) -> bool {
        let Some(anchors) = &self.anchors else {
            return true;
        };
        anchors
            .find_iter(bytes)
            .any(|m| !is_inside_another_word(bytes, m.pattern().as_usize(), m.start(), m.end()))
    }
}

/// Anchor matches inside unrelated words: `MCP` within a longer capitalised word (`FROMCPU`,
/// `OEMCP` in Windows bindings) and `mcp` in `memcpy` (in every C binding).
fn is_inside_another_word(bytes: &[u8], pattern: usize, start: usize, end: usize) -> bool {
    let before = start.checked_sub(1).and_then(|i| bytes.get(i));
    let after = bytes.get(end);
    match ANCHORS[pattern] {
        "MCP" => {
            before.is_some_and(u8::is_ascii_uppercase) || after.is_some_and(u8::is_ascii_uppercase)
        }
        "mcp" => after == Some(&b'y'),
        _ => false,
    }
}

/// The trigger tokens of the catalog rules whose codes `runs` admits, plus the names of every SDK
/// table; none (no prefilter) when an admitted rule's triggers include `"*"`. Rules with no
/// triggers (meta codes about suppressions) do not take part.
pub fn trigger_tokens(runs: impl Fn(&str) -> bool) -> Vec<String> {
    let mut tokens = Vec::new();
    for r in &crate::catalog::catalog().rules {
        if !runs(&r.code) {
            continue;
        }
        // `"*"`: the rule may fire in any file, so nothing can be skipped.
        if r.triggers.iter().any(|t| t == "*") {
            return Vec::new();
        }
        tokens.extend(r.triggers.iter().cloned());
    }
    // Every request method and removed API an SDK table names can start a finding; the tables
    // are the source of truth, so a name missing from a catalog file cannot be hidden. (Raw
    // sends such as `send` are not triggers: they need a request name, which the catalog lists.)
    if !tokens.is_empty() {
        for sdk in crate::model::sdk::SDKS {
            tokens.extend(sdk.request_methods.iter().map(|m| m.name.to_string()));
            tokens.extend(sdk.removed.iter().map(|m| m.name.to_string()));
        }
        tokens.extend(crate::model::sdk::rmcp_upgrade::trigger_names().map(str::to_string));
    }
    tokens.sort();
    tokens.dedup();
    tokens
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

/// The upgrade rules whose triggers are names rmcp 3.x still has (`CallToolResult`, `Tool`,
/// `ServerInfo`, ...): they report an upgrade only in a package below 3.0.
const CURRENT_RMCP_CODES: [&str; 2] = ["MCP202", "MCP204"];

/// The rmcp upgrade rules' own trigger names (no other rule's, no SDK table's) among the enabled
/// tokens, and what they are worth in a given package.
struct UpgradeTriggers {
    names: Vec<&'static str>,
    scanner: Option<AhoCorasick>,
    /// The names that rmcp 3.x no longer has (`Content`, `CallToolRequestParam`, ...), for a
    /// package already on 3.x: there they must stand as whole identifiers, since most are the
    /// start of a 3.x name (`Content` of `ContentBlock`); see `lexer::standing_alone`.
    old_names: Option<AhoCorasick>,
    /// The same names as the skeleton looks for them (`UpgradeKeys::Whole`).
    old_keys: Option<UpgradeKeys>,
}

impl UpgradeTriggers {
    fn new(tokens: &[&str]) -> UpgradeTriggers {
        let rules = &crate::catalog::catalog().rules;
        let upgrade_code = |code: &str| code.starts_with("MCP2");
        // A name another rule or an SDK table also starts from is never set aside.
        let elsewhere = |name: &str| {
            rules
                .iter()
                .any(|r| !upgrade_code(&r.code) && r.triggers.iter().any(|t| t == name))
                || crate::model::sdk::SDKS.iter().any(|sdk| {
                    sdk.request_methods.iter().any(|m| m.name == name)
                        || sdk.removed.iter().any(|m| m.name == name)
                })
        };
        let mut names: Vec<&'static str> = rules
            .iter()
            .filter(|r| upgrade_code(&r.code))
            .flat_map(|r| r.triggers.iter().map(String::as_str))
            .chain(crate::model::sdk::rmcp_upgrade::trigger_names())
            .filter(|name| tokens.contains(name) && !elsewhere(name))
            .collect();
        names.sort_unstable();
        names.dedup();
        let current: Vec<&str> = rules
            .iter()
            .filter(|r| CURRENT_RMCP_CODES.contains(&r.code.as_str()))
            .flat_map(|r| r.triggers.iter().map(String::as_str))
            .chain(crate::model::sdk::rmcp_upgrade::current_names())
            .collect();
        let old: Vec<&str> = names
            .iter()
            .copied()
            .filter(|name| !current.contains(name))
            .collect();
        UpgradeTriggers {
            scanner: if names.is_empty() {
                None
            } else {
                scanner(&names)
            },
            old_names: if old.is_empty() {
                None
            } else {
                crate::reading::lexer::whole_names_automaton(&old)
            },
            old_keys: (!old.is_empty()).then(|| {
                let (plain, marked): (Vec<&'static str>, Vec<&'static str>) = old
                    .iter()
                    .partition(|n| n.bytes().all(crate::reading::lexer::is_ident));
                UpgradeKeys::Whole {
                    names: Arc::new(WholeNames::new(&plain)),
                    marked: if marked.is_empty() {
                        None
                    } else {
                        crate::reading::lexer::whole_names_automaton(&marked)
                    },
                }
            }),
            names,
        }
    }

    /// Whether one of [`UpgradeTriggers::old_names`] stands in `bytes` as a whole identifier.
    fn old_name_in(&self, bytes: &[u8]) -> bool {
        let Some(old) = &self.old_names else {
            return false;
        };
        crate::reading::lexer::standing_alone(old, bytes, 0..bytes.len())
            .next()
            .is_some()
    }

    /// Whether an upgrade name in `bytes` can find something in `package`: one that uses rmcp
    /// below 3.0 (or at an unknown version), or stale names in one on 3.x. With no manifest,
    /// the rules decide from the file's own `use` lines.
    fn may_find(&self, bytes: &[u8], package: Option<&Package>) -> bool {
        let Some(scanner) = &self.scanner else {
            return false;
        };
        match self.rmcp_below_3(package) {
            Some(true) => scanner.is_match(bytes),
            Some(false) => self.old_name_in(bytes),
            None => false,
        }
    }

    /// Whether `package` uses rmcp below 3.0 (`true`: also at an unknown version, or with no
    /// manifest, where the rules decide from the file's `use` lines) or on 3.x (`false`);
    /// `None`: it does not use rmcp.
    fn rmcp_below_3(&self, package: Option<&Package>) -> Option<bool> {
        let Some(package) = package else {
            return Some(true);
        };
        let d = package.dependency_on(crate::model::sdk::rmcp::RMCP.packages)?;
        Some(d.version.as_ref().is_none_or(|v| v.0 < 3))
    }
}

/// The readiness rules' (MCP3xx) triggers among `tokens` that no other rule and no SDK table
/// starts from: a second look, like the upgrade names, only for files of SDK packages.
fn readiness_names<'t>(tokens: &[&'t str]) -> Vec<&'t str> {
    let rules = &crate::catalog::catalog().rules;
    let readiness = |code: &str| code.starts_with("MCP3");
    let elsewhere = |name: &str| {
        rules
            .iter()
            .any(|r| !readiness(&r.code) && r.triggers.iter().any(|t| t == name))
            || crate::model::sdk::SDKS.iter().any(|sdk| {
                sdk.request_methods.iter().any(|m| m.name == name)
                    || sdk.removed.iter().any(|m| m.name == name)
            })
            || crate::model::sdk::rmcp_upgrade::trigger_names().any(|n| n == name)
    };
    tokens
        .iter()
        .copied()
        .filter(|t| {
            rules
                .iter()
                .any(|r| readiness(&r.code) && r.triggers.iter().any(|x| x == t))
                && !elsewhere(t)
        })
        .collect()
}

fn depends_on_an_sdk(package: &Package) -> bool {
    crate::model::sdk::SDKS
        .iter()
        .any(|sdk| package.dependency_on(sdk.packages).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tokens of a run with default settings: every rule at its catalog level.
    fn default_tokens() -> Vec<String> {
        let catalog = crate::catalog::catalog();
        trigger_tokens(|code| {
            catalog
                .get(code)
                .is_some_and(|r| r.level != crate::finding::Level::Allow)
        })
    }

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
    fn windowed_overlapping_search_finds_what_a_full_scan_finds() {
        let patterns = [
            "mcp",
            "rmcp",
            "turbomcp",
            "mcpkit",
            "rust_mcp_sdk",
            "cp",
            "mcp_",
        ];
        let fast = Overlapping::new(&patterns).expect("builds");
        let full = AhoCorasick::new(patterns).expect("builds");
        // Texts made of fragments that make matches touch, nest and run into each other.
        let pieces = [
            "mc", "p", "r", "rmcp", "turbo", "kit", "_", "sdk", "rust", " ", "x", "cpcp",
        ];
        let mut seed = 0x9e37_79b9_u64;
        for _ in 0..2000 {
            let mut text = String::new();
            for _ in 0..(seed % 17) {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                text.push_str(pieces[(seed % pieces.len() as u64) as usize]);
            }
            let mut got = Vec::new();
            fast.for_each(text.as_bytes(), |p, s, e| got.push((p, s, e)));
            let mut want: Vec<_> = full
                .find_overlapping_iter(&text)
                .map(|m| (m.pattern().as_usize(), m.start(), m.end()))
                .collect();
            got.sort();
            want.sort();
            assert_eq!(got, want, "in {text:?}");
            seed = seed.wrapping_add(1);
        }
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
        let cpu = b"const FROMCPU: u32 = 1; fn f() { x.sample(d) }";
        assert!(
            !filter.admits(cpu, Some(&unrelated)),
            "`MCP` inside a longer capitalised word is no anchor"
        );
        let oem = b"fn GetOEMCP() -> u32; fn f() { x.sample(d) }";
        assert!(!filter.admits(oem, Some(&unrelated)));
        let memcpy = b"fn u_memcpy(d: *mut u16); fn f() { x.sample(d) }";
        assert!(!filter.admits(memcpy, Some(&unrelated)));
        let mcp_const = b"const MCP_VERSION: &str = \"1\"; fn f() { x.sample(d) }";
        assert!(filter.admits(mcp_const, Some(&unrelated)));
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

    #[test]
    fn rmcp_3_names_admit_a_file_only_where_an_upgrade_can_find_something() {
        let filter = Prefilter::new(&default_tokens());
        // `Tool` and `CallToolResult` are in every rmcp server: they start an upgrade finding
        // (MCP202/MCP204) only below 3.0.
        let current = b"fn t() -> CallToolResult { let _ = Tool::default(); todo!() }";
        let old_rmcp = package("rmcp = \"2.2\"");
        let new_rmcp = package("rmcp = \"3.11\"");
        let no_rmcp = package("turbomcp = \"3.1\"");
        assert!(filter.admits(current, Some(&old_rmcp)));
        assert!(!filter.admits(current, Some(&new_rmcp)));
        assert!(!filter.admits(current, Some(&no_rmcp)));
        // A name rmcp 3.x no longer has is stale code there, but only as a whole identifier:
        // `Content` starts `ContentBlock`.
        let stale = b"fn t() { let _ = Content::text(\"x\"); }";
        let current_block = b"fn t() { let _ = ContentBlock::text(\"x\"); }";
        assert!(filter.admits(stale, Some(&new_rmcp)));
        // The scan of every file leaves upgrade names to the second look, with the package.
        assert!(!filter.has_trigger(stale) && filter.has_upgrade_trigger(stale));
        assert!(
            filter.admits(stale, None),
            "no manifest: the file's `use` lines decide"
        );
        assert!(!filter.admits(current_block, Some(&new_rmcp)));
        // An old name that starts another old one (`CreateElicitationRequest`) does not hide it.
        let longer = b"fn t(p: CreateElicitationRequestParam) {}";
        assert!(filter.admits(longer, Some(&new_rmcp)));
        // Another rule's trigger admits the file whatever its rmcp.
        let legacy =
            b"async fn t(p: Peer<RoleServer>) { p.list_roots().await; let _ = Tool::default(); }";
        assert!(filter.admits(legacy, Some(&new_rmcp)));
    }

    #[test]
    fn the_scan_of_every_file_keeps_within_the_simd_pattern_budget() {
        let tokens = default_tokens();
        let filter = Prefilter::new(&tokens);
        let token_strs: Vec<&str> = tokens.iter().map(String::as_str).collect();
        let second_look = readiness_names(&token_strs);
        let everyday = tokens
            .iter()
            .filter(|t| {
                !filter.upgrade.names.contains(&t.as_str()) && !second_look.contains(&t.as_str())
            })
            .count();
        // aho-corasick's Teddy search takes at most 64 patterns; past that every byte of every
        // file goes through the automaton (the vendored tree: 230 -> 470 ms).
        assert!(
            everyday <= 64,
            "{everyday} tokens in the scan of every file"
        );
        assert!(!filter.upgrade.names.is_empty());
        assert!(
            second_look.len() <= 64,
            "{} readiness names",
            second_look.len()
        );
        // The skeleton scans bodies for both lists apart, which keeps the same bodies as one
        // scan only while no token holds a brace (`BodyKeys::more_triggers`).
        let braced: Vec<&String> = tokens
            .iter()
            .filter(|t| !filter.upgrade.names.contains(&t.as_str()))
            .filter(|t| t.contains(['{', '}']))
            .collect();
        assert!(braced.is_empty(), "{braced:?}");
        // The skeleton scans for the upgrade names only inside bodies, from just after their
        // opening brace: the same matches as a scan of the whole text while no name holds one.
        assert!(filter.upgrade.names.iter().all(|n| !n.contains('{')));
    }

    #[test]
    fn readiness_names_admit_a_file_only_in_mcp_code() {
        let filter = Prefilter::new(&default_tokens());
        let hook = b"impl H { async fn on_initialized(&self) { tokio::spawn(work()); } }";
        let server = package("rmcp = \"3.1\"");
        let unrelated = package("tokio = \"1\"");
        assert!(
            !filter.has_trigger(hook),
            "kept out of the scan of every file"
        );
        assert!(filter.has_upgrade_trigger(hook), "a second look");
        assert!(filter.admits(hook, Some(&server)));
        assert!(filter.admits(hook, None), "no manifest: syntax decides");
        assert!(
            !filter.admits(hook, Some(&unrelated)),
            "`spawn` in a package without an SDK is nobody's hook"
        );
    }
}
