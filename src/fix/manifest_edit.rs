//! Format-preserving edits of a `Cargo.toml`: a dependency's version and features, and adding a
//! dependency. Comments, key order and spacing outside the edited values stay as they were.
//!
//! Dependencies are found by package name (`rmcp`, also when renamed: `mcp = { package = "rmcp" }`)
//! in `[dependencies]`, `[dev-dependencies]`, `[build-dependencies]`, their
//! `[target.'cfg(..)'.*]` forms and `[workspace.dependencies]`. An entry that inherits from the
//! workspace (`rmcp = { workspace = true }`) carries no version of its own: the edit reports it
//! ([`Outcome::Inherited`]) so the caller edits the workspace's manifest instead.

use toml_edit::{Array, DocumentMut, InlineTable, Item, Table, Value};

const SECTIONS: &[&str] = &["dependencies", "dev-dependencies", "build-dependencies"];

/// What an edit did to one manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The manifest changed.
    Changed,
    /// Already as asked.
    Unchanged,
    /// No dependency of that package.
    Absent,
    /// Every entry inherits from `[workspace.dependencies]`: edit the workspace manifest.
    Inherited,
}

/// A `Cargo.toml` being edited.
#[derive(Debug, Clone)]
pub struct ManifestEdit {
    doc: DocumentMut,
    /// The text as read: `toml_edit` writes LF line endings, and a CRLF manifest keeps CRLF.
    original: String,
}

impl ManifestEdit {
    pub fn parse(text: &str) -> Result<ManifestEdit, String> {
        text.parse::<DocumentMut>()
            .map(|doc| ManifestEdit {
                doc,
                original: text.to_string(),
            })
            .map_err(|e| format!("Cargo.toml does not parse: {e}"))
    }

    /// Whether `[workspace.dependencies]` declares `name` (members then write
    /// `name = { workspace = true }`).
    pub fn declares_workspace_dependency(&self, name: &str) -> bool {
        self.doc
            .get("workspace")
            .and_then(|w| w.get("dependencies"))
            .and_then(|d| d.get(name))
            .is_some()
    }

    /// The manifest's text with the edits.
    pub fn text(&self) -> String {
        crate::fix::apply::with_line_endings_of(&self.original, self.doc.to_string())
    }

    /// The requirement written for `package` (the first entry that has one).
    pub fn dependency_version(&mut self, package: &str) -> Option<String> {
        let mut found = None;
        self.each_entry(package, &mut |entry| {
            if found.is_none() {
                found = entry_version(entry);
            }
            false
        });
        found
    }

    /// Sets the version requirement of every entry of `package`.
    pub fn set_dependency_version(&mut self, package: &str, version: &str) -> Outcome {
        self.edit_entries(package, &mut |entry| {
            if entry_version(entry).as_deref() == Some(version) {
                return Some(false);
            }
            match entry {
                Item::Value(Value::String(_)) => {
                    *entry = Item::Value(keep_decor(entry, version.into()));
                    Some(true)
                }
                _ => {
                    let t = entry.as_table_like_mut()?;
                    if t.contains_key("workspace") {
                        return None;
                    }
                    match t.get_mut("version") {
                        Some(v) => {
                            let new = keep_decor(v, version.into());
                            *v = Item::Value(new);
                        }
                        None => {
                            t.insert("version", toml_edit::value(version));
                        }
                    }
                    Some(true)
                }
            }
        })
    }

    /// Sets the `features` list of every entry of `package` (a plain `"1.0"` entry becomes an
    /// inline table).
    pub fn set_dependency_features(&mut self, package: &str, features: &[&str]) -> Outcome {
        self.edit_entries(package, &mut |entry| {
            let same = entry_features(entry)
                .is_some_and(|f| f.iter().map(String::as_str).eq(features.iter().copied()));
            if same {
                return Some(false);
            }
            if let Item::Value(Value::String(s)) = entry {
                let mut t = InlineTable::new();
                t.insert("version", s.value().as_str().into());
                *entry = Item::Value(Value::InlineTable(t));
            }
            let t = entry.as_table_like_mut()?;
            let list: Array = features.iter().copied().collect();
            match t.get_mut("features") {
                Some(v) => *v = Item::Value(keep_decor(v, Value::Array(list))),
                None => {
                    t.insert("features", Item::Value(Value::Array(list)));
                }
            }
            Some(true)
        })
    }

    /// Renames feature `old` of `package` to `new`, or drops it (`None`); a feature already on
    /// is not listed twice. Edits the list in place, so its layout and comments stay.
    pub fn rename_feature(&mut self, package: &str, old: &str, new: Option<&str>) -> Outcome {
        self.edit_entries(package, &mut |entry| {
            let t = entry.as_table_like_mut()?;
            let Some(arr) = t.get_mut("features").and_then(|f| f.as_array_mut()) else {
                return Some(false);
            };
            let Some(at) = arr.iter().position(|v| v.as_str() == Some(old)) else {
                return Some(false);
            };
            let has_new = new.is_some_and(|n| arr.iter().any(|v| v.as_str() == Some(n)));
            match new {
                Some(n) if !has_new => {
                    let decor = arr.get(at).map(|v| v.decor().clone());
                    arr.replace(at, n);
                    if let (Some(d), Some(v)) = (decor, arr.get_mut(at)) {
                        *v.decor_mut() = d;
                    }
                }
                _ => {
                    // The next item takes the removed one's leading space: `["a", "b"]` minus
                    // `a` is `["b"]`, not `[ "b"]`.
                    let removed = arr.remove(at);
                    let prefix = removed.decor().prefix().cloned();
                    if let (Some(p), Some(next)) = (prefix, arr.get_mut(at)) {
                        next.decor_mut().set_prefix(p);
                    }
                }
            }
            Some(true)
        })
    }

    /// Renames `KEY/old` (and `KEY?/old`) to `KEY/new` in the lists of `[features]`, where `KEY`
    /// is a name the manifest gives `package` (`rmcp`, or `mcp` for `mcp = { package = "rmcp" }`),
    /// or drops the item (`None`). Cargo rejects a manifest whose feature names a feature the
    /// dependency no longer has, so this goes with [`ManifestEdit::rename_feature`].
    pub fn rename_feature_references(
        &mut self,
        package: &str,
        old: &str,
        new: Option<&str>,
    ) -> Outcome {
        let keys = self.dependency_keys(package);
        let Some(features) = self
            .doc
            .get_mut("features")
            .and_then(|f| f.as_table_like_mut())
        else {
            return Outcome::Absent;
        };
        let mut changed = false;
        for (_, list) in features.iter_mut() {
            let Some(arr) = list.as_array_mut() else {
                continue;
            };
            let mut at = 0;
            while at < arr.len() {
                let renamed = arr.get(at).and_then(|v| v.as_str()).and_then(|item| {
                    let (dep, feature) = item.split_once('/')?;
                    let key = dep.trim_end_matches('?');
                    (feature == old && keys.iter().any(|k| k == key))
                        .then(|| new.map(|n| format!("{dep}/{n}")))
                });
                match renamed {
                    None => at += 1,
                    Some(replacement) => {
                        changed = true;
                        let present = replacement
                            .as_deref()
                            .is_some_and(|r| arr.iter().any(|v| v.as_str() == Some(r)));
                        match replacement {
                            Some(r) if !present => {
                                let decor = arr.get(at).map(|v| v.decor().clone());
                                arr.replace(at, r);
                                if let (Some(d), Some(v)) = (decor, arr.get_mut(at)) {
                                    *v.decor_mut() = d;
                                }
                                at += 1;
                            }
                            _ => {
                                let removed = arr.remove(at);
                                let prefix = removed.decor().prefix().cloned();
                                if let (Some(p), Some(next)) = (prefix, arr.get_mut(at)) {
                                    next.decor_mut().set_prefix(p);
                                }
                            }
                        }
                    }
                }
            }
        }
        if changed {
            Outcome::Changed
        } else {
            Outcome::Unchanged
        }
    }

    /// The keys under which the manifest's dependency tables name `package`.
    fn dependency_keys(&mut self, package: &str) -> Vec<String> {
        let mut keys = Vec::new();
        let root = self.doc.as_table();
        let mut tables: Vec<&Item> = SECTIONS.iter().filter_map(|s| root.get(s)).collect();
        if let Some(t) = root.get("target").and_then(|t| t.as_table_like()) {
            for (_, cfg) in t.iter() {
                if let Some(cfg) = cfg.as_table_like() {
                    tables.extend(SECTIONS.iter().filter_map(|s| cfg.get(s)));
                }
            }
        }
        for deps in tables.into_iter().filter_map(|t| t.as_table_like()) {
            for (key, entry) in deps.iter() {
                let real = entry
                    .as_table_like()
                    .and_then(|t| t.get("package"))
                    .and_then(|p| p.as_str())
                    .unwrap_or(key);
                if real == package && !keys.iter().any(|k| k == key) {
                    keys.push(key.to_string());
                }
            }
        }
        keys
    }

    /// Where an entry of `package` takes the crate from a local checkout or a repository
    /// (`path = ..`, `git = ..`): `Some("path")` or `Some("git")`. A version bump cannot move such
    /// an entry (the checkout decides which release it is), so the caller leaves it alone.
    pub fn local_source(&mut self, package: &str) -> Option<&'static str> {
        let mut found = None;
        self.each_entry(package, &mut |entry| {
            if let Some(t) = entry.as_table_like() {
                for key in ["path", "git"] {
                    if found.is_none() && t.contains_key(key) {
                        found = Some(key);
                    }
                }
            }
            false
        });
        found
    }

    /// Whether the manifest has an entry of `package` (under any key, in any dependency table).
    pub fn depends_on(&mut self, package: &str) -> bool {
        let mut present = false;
        self.each_entry(package, &mut |_| {
            present = true;
            false
        });
        present
    }

    /// Adds `name = spec` to `[dependencies]` unless the package already depends on it. `spec` is
    /// a TOML value: `"0.1"` or `{ version = "0.1", path = "../runtime" }`.
    pub fn ensure_dependency(&mut self, name: &str, spec: &str) -> Result<Outcome, String> {
        if self.depends_on(name) {
            return Ok(Outcome::Unchanged);
        }
        let value: Value = spec
            .parse()
            .map_err(|e| format!("not a TOML value: {spec}: {e}"))?;
        let deps = self
            .doc
            .entry("dependencies")
            .or_insert_with(|| Item::Table(Table::new()));
        let Some(t) = deps.as_table_like_mut() else {
            return Err("`dependencies` is not a table".into());
        };
        t.insert(name, Item::Value(value));
        Ok(Outcome::Changed)
    }

    /// Calls `f` on each entry of `package`; `f` returns `Some(changed)`, or `None` for an entry
    /// it cannot edit because it inherits from the workspace.
    fn edit_entries(
        &mut self,
        package: &str,
        f: &mut dyn FnMut(&mut Item) -> Option<bool>,
    ) -> Outcome {
        let (mut seen, mut changed, mut inherited) = (false, false, 0usize);
        let mut total = 0usize;
        self.each_entry(package, &mut |entry| {
            seen = true;
            total += 1;
            let inherits = entry
                .as_table_like()
                .is_some_and(|t| t.contains_key("workspace"));
            if inherits {
                inherited += 1;
                return false;
            }
            match f(entry) {
                Some(c) => {
                    changed |= c;
                    c
                }
                None => false,
            }
        });
        match () {
            _ if !seen => Outcome::Absent,
            _ if changed => Outcome::Changed,
            _ if inherited == total => Outcome::Inherited,
            _ => Outcome::Unchanged,
        }
    }

    fn each_entry(&mut self, package: &str, f: &mut dyn FnMut(&mut Item) -> bool) {
        let root = self.doc.as_table_mut();
        let mut tables: Vec<&mut Item> = Vec::new();
        let mut target = None;
        let mut workspace = None;
        for (key, item) in root.iter_mut() {
            match key.get() {
                k if SECTIONS.contains(&k) => tables.push(item),
                "target" => target = Some(item),
                "workspace" => workspace = Some(item),
                _ => {}
            }
        }
        if let Some(t) = target.and_then(|t| t.as_table_like_mut()) {
            for (_, cfg) in t.iter_mut() {
                if let Some(cfg) = cfg.as_table_like_mut() {
                    for (key, item) in cfg.iter_mut() {
                        if SECTIONS.contains(&key.get()) {
                            tables.push(item);
                        }
                    }
                }
            }
        }
        if let Some(ws) = workspace.and_then(|w| w.as_table_like_mut()) {
            if let Some(deps) = ws.get_mut("dependencies") {
                tables.push(deps);
            }
        }
        for deps in tables {
            let Some(deps) = deps.as_table_like_mut() else {
                continue;
            };
            for (key, entry) in deps.iter_mut() {
                let renamed_to = entry
                    .as_table_like()
                    .and_then(|t| t.get("package"))
                    .and_then(|p| p.as_str())
                    .map(str::to_string);
                let is_it = match renamed_to {
                    Some(p) => p == package,
                    None => key.get() == package,
                };
                if is_it {
                    f(entry);
                }
            }
        }
    }
}

fn entry_version(entry: &Item) -> Option<String> {
    match entry {
        Item::Value(Value::String(s)) => Some(s.value().clone()),
        _ => entry
            .as_table_like()?
            .get("version")?
            .as_str()
            .map(str::to_string),
    }
}

fn entry_features(entry: &Item) -> Option<Vec<String>> {
    let arr = entry.as_table_like()?.get("features")?.as_array()?;
    Some(
        arr.iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect(),
    )
}

/// `new` with the spacing and comments around `old`.
fn keep_decor(old: &Item, mut new: Value) -> Value {
    if let Some(v) = old.as_value() {
        *new.decor_mut() = v.decor().clone();
    }
    new
}

/// The workspace manifest above a package's `manifest`: the nearest `Cargo.toml` of a parent folder
/// that has a `[workspace]` table.
pub fn workspace_root(manifest: &std::path::Path) -> Option<std::path::PathBuf> {
    let mut dir = manifest.parent()?.parent();
    while let Some(d) = dir {
        let m = d.join("Cargo.toml");
        if std::fs::read_to_string(&m).is_ok_and(|t| t.contains("[workspace")) {
            return Some(m);
        }
        dir = d.parent();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const MANIFEST: &str = r#"[package]
name = "srv" # the server

[dependencies]
# the SDK
rmcp = { version = "2.2", features = ["server", "transport-sse-server"] } # pinned
serde = "1"

[dev-dependencies.mcp]
package = "rmcp"
version = "0.14"

[target.'cfg(unix)'.dependencies]
rmcp = "1.7"
"#;

    #[test]
    fn version_bump_touches_only_the_versions_and_keeps_comments() {
        let mut m = ManifestEdit::parse(MANIFEST).unwrap();
        assert_eq!(m.dependency_version("rmcp").as_deref(), Some("2.2"));
        assert_eq!(m.set_dependency_version("rmcp", "3.11"), Outcome::Changed);
        let want = MANIFEST
            .replace("version = \"2.2\"", "version = \"3.11\"")
            .replace("version = \"0.14\"", "version = \"3.11\"")
            .replace("rmcp = \"1.7\"", "rmcp = \"3.11\"");
        assert_eq!(m.text(), want);
        assert_eq!(m.set_dependency_version("rmcp", "3.11"), Outcome::Unchanged);
        assert_eq!(m.set_dependency_version("tokio", "1"), Outcome::Absent);
    }

    #[test]
    fn features_are_renamed_in_place_or_dropped() {
        let mut m = ManifestEdit::parse(MANIFEST).unwrap();
        let out = m.rename_feature(
            "rmcp",
            "transport-sse-server",
            Some("transport-streamable-http-server"),
        );
        assert_eq!(out, Outcome::Changed);
        assert!(m
            .text()
            .contains(r#"features = ["server", "transport-streamable-http-server"] } # pinned"#));
        assert_eq!(m.rename_feature("rmcp", "server", None), Outcome::Changed);
        assert!(m
            .text()
            .contains(r#"features = ["transport-streamable-http-server"]"#));
        // A second rename to a feature already on drops the old one instead of listing it twice.
        let mut m = ManifestEdit::parse(
            "[dependencies]\nrmcp = { version = \"1\", features = [\"a\", \"b\"] }\n",
        )
        .unwrap();
        m.rename_feature("rmcp", "a", Some("b"));
        assert_eq!(
            m.text(),
            "[dependencies]\nrmcp = { version = \"1\", features = [\"b\"] }\n"
        );
    }

    #[test]
    fn feature_references_are_renamed_under_every_key_of_the_package_only() {
        let text = "[features]\nsse = [\"rmcp/transport-sse-server\", \"mcp?/transport-sse-server\", \"other/transport-sse-server\"]\nboth = [\"rmcp/transport-sse-server\", \"rmcp/transport-streamable-http-server\"]\n\n[dependencies]\nrmcp = \"0.10\"\nother = \"1\"\n\n[dev-dependencies.mcp]\npackage = \"rmcp\"\nversion = \"0.10\"\n";
        let mut m = ManifestEdit::parse(text).unwrap();
        let new = Some("transport-streamable-http-server");
        assert_eq!(
            m.rename_feature_references("rmcp", "transport-sse-server", new),
            Outcome::Changed
        );
        // `other/..` is another crate's feature; a rename onto an item already listed drops it.
        assert_eq!(
            m.text(),
            text.replace(
                "[\"rmcp/transport-sse-server\", \"mcp?/transport-sse-server\"",
                "[\"rmcp/transport-streamable-http-server\", \"mcp?/transport-streamable-http-server\""
            )
            .replace(
                "both = [\"rmcp/transport-sse-server\", \"rmcp/transport-streamable-http-server\"]",
                "both = [\"rmcp/transport-streamable-http-server\"]"
            )
        );
        assert_eq!(
            m.rename_feature_references("rmcp", "transport-sse-server", new),
            Outcome::Unchanged
        );
        // Dropped: the item goes.
        let mut m = ManifestEdit::parse(
            "[features]\nx = [\"rmcp/gone\", \"y\"]\n\n[dependencies]\nrmcp = \"1\"\n",
        )
        .unwrap();
        assert_eq!(
            m.rename_feature_references("rmcp", "gone", None),
            Outcome::Changed
        );
        assert!(
            m.text().starts_with("[features]\nx = [\"y\"]\n"),
            "{}",
            m.text()
        );
    }

    #[test]
    fn local_sources_are_told_apart_from_registry_ones() {
        let mut m = ManifestEdit::parse("[dependencies]\nrmcp = { path = \"../rmcp\" }\n").unwrap();
        assert_eq!(m.local_source("rmcp"), Some("path"));
        let mut m =
            ManifestEdit::parse("[dependencies]\nrmcp = { git = \"g\", version = \"2\" }\n")
                .unwrap();
        assert_eq!(m.local_source("rmcp"), Some("git"));
        let mut m = ManifestEdit::parse(MANIFEST).unwrap();
        assert_eq!(m.local_source("rmcp"), None);
    }

    #[test]
    fn set_features_turns_a_plain_requirement_into_a_table() {
        let mut m = ManifestEdit::parse("[dependencies]\nrmcp = \"3.11\"\n").unwrap();
        assert_eq!(
            m.set_dependency_features("rmcp", &["server", "macros"]),
            Outcome::Changed
        );
        assert_eq!(
            m.text(),
            "[dependencies]\nrmcp = { version = \"3.11\", features = [\"server\", \"macros\"] }\n"
        );
    }

    #[test]
    fn inherited_entries_send_the_caller_to_the_workspace() {
        let mut m = ManifestEdit::parse("[dependencies]\nrmcp = { workspace = true }\n").unwrap();
        assert_eq!(m.set_dependency_version("rmcp", "3.11"), Outcome::Inherited);
        let mut ws = ManifestEdit::parse("[workspace.dependencies]\nrmcp = \"2.2\"\n").unwrap();
        assert_eq!(ws.set_dependency_version("rmcp", "3.11"), Outcome::Changed);
        assert_eq!(ws.text(), "[workspace.dependencies]\nrmcp = \"3.11\"\n");
    }

    #[test]
    fn ensure_dependency_adds_once() {
        let mut m =
            ManifestEdit::parse("[package]\nname = \"x\"\n\n[dependencies]\nserde = \"1\"\n")
                .unwrap();
        let spec = r#"{ version = "0.1", path = "../runtime" }"#;
        assert_eq!(m.ensure_dependency("mrtr", spec), Ok(Outcome::Changed));
        assert_eq!(
            m.text(),
            "[package]\nname = \"x\"\n\n[dependencies]\nserde = \"1\"\nmrtr = { version = \"0.1\", path = \"../runtime\" }\n"
        );
        assert_eq!(m.ensure_dependency("mrtr", spec), Ok(Outcome::Unchanged));
        assert!(m.ensure_dependency("x", "{ nope").is_err());
        assert!(ManifestEdit::parse("[dependencies\n").is_err());
    }

    #[test]
    fn a_crlf_manifest_keeps_crlf_after_an_edit() {
        let text = "[package]\r\nname = \"x\"\r\n\r\n[dependencies]\r\nserde = \"1\"\r\n";
        let mut m = ManifestEdit::parse(text).unwrap();
        m.ensure_dependency("mrtr", "\"0.1\"").unwrap();
        let out = m.text();
        assert!(out.contains("mrtr"), "{out}");
        assert_eq!(
            out.matches('\n').count(),
            out.matches("\r\n").count(),
            "{out:?}"
        );
    }
}
