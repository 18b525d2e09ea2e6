//! The README is a front door: at most 12 KB, the two commands at the top, and every page it
//! links to exists; `cargo mcp-lint rule CODE` points to reference pages that exist.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The relative targets of the Markdown links in `text` (`](target)`, anchors dropped).
fn links(text: &str) -> Vec<String> {
    text.match_indices("](")
        .filter_map(|(i, _)| {
            let rest = &text[i + 2..];
            let end = rest.find(')')?;
            let target = &rest[..end];
            (!target.contains("://")).then(|| target.split('#').next().unwrap().to_string())
        })
        .filter(|t| !t.is_empty())
        .collect()
}

#[test]
fn the_readme_is_short_and_starts_with_the_two_commands() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(readme.len() <= 12 * 1024, "{} bytes", readme.len());
    let first_block = readme
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("a shell block near the top");
    assert!(
        first_block.contains("cargo run --release --bin cargo-mcp-lint -- examples/deploy/before")
    );
    assert!(first_block.contains("bash scripts/test-all.sh"));
    assert!(readme.contains("cargo mcp-lint migrate"));
    assert!(
        readme.contains("## Sites migrated:"),
        "the walkthrough shows migrate's report"
    );
}

#[test]
fn every_page_the_readme_and_the_docs_link_to_exists() {
    let mut pages = vec![root().join("README.md")];
    pages.extend(
        std::fs::read_dir(root().join("docs"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "md")),
    );
    for page in pages {
        let text = std::fs::read_to_string(&page).unwrap();
        let dir = page.parent().unwrap();
        for target in links(&text) {
            assert!(
                dir.join(&target).exists(),
                "{}: the link to {target} leads nowhere",
                page.display()
            );
        }
    }
    // The moved reference pages are linked from the README.
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    for page in [
        "cli.md",
        "rules.md",
        "mrtr-runtime-contract.md",
        "performance.md",
        "architecture.md",
    ] {
        assert!(
            readme.contains(&format!("(docs/{page})")),
            "README links docs/{page}"
        );
    }
}

#[test]
fn a_rules_docs_point_to_reference_pages_that_exist() {
    for code in ["MCP001", "MCP006", "MCP104", "MCP201", "MCP901"] {
        let out = Command::new(env!("CARGO_BIN_EXE_cargo-mcp-lint"))
            .args(["rule", code])
            .output()
            .unwrap();
        let doc = String::from_utf8_lossy(&out.stdout);
        let see_also = doc
            .split("## See also")
            .nth(1)
            .unwrap_or_else(|| panic!("{code}: {doc}"));
        let pages: Vec<&str> = see_also
            .lines()
            .filter_map(|l| l.strip_prefix("- "))
            .map(|l| l.split(':').next().unwrap())
            .collect();
        assert!(pages.contains(&"docs/rules.md"), "{code}: {see_also}");
        for p in pages {
            let file = p.split('#').next().unwrap();
            assert!(Path::new(&root()).join(file).is_file(), "{code}: {p}");
            if let Some(anchor) = p.split_once('#').map(|(_, a)| a) {
                let text = std::fs::read_to_string(root().join(file)).unwrap();
                assert!(
                    text.lines()
                        .any(|l| l.starts_with('#') && slug(l) == anchor),
                    "{code}: no heading for #{anchor} in {file}"
                );
            }
        }
    }
}

/// The anchor a Markdown renderer gives a heading: lower case, punctuation but `-` dropped,
/// spaces as `-`.
fn slug(heading: &str) -> String {
    heading
        .trim_start_matches('#')
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == '-' || *c == ' ' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}
