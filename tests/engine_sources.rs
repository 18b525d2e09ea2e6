//! The engine tells the gate which files hold no suppression directive, so the gate never reads
//! them a second time (on a large tree that second read was a full extra pass over every byte).

use mcp_lint::lint::{lint_paths_with_sources, Settings};

#[test]
fn files_without_a_directive_are_listed_and_files_with_one_are_not() {
    let dir = tempfile::tempdir().expect("temp dir");
    let plain = dir.path().join("plain.rs");
    let marked = dir.path().join("marked.rs");
    std::fs::write(&plain, "fn main() {}\n").expect("write");
    std::fs::write(
        &marked,
        "// mcp-lint: allow(MCP001) -- reviewed\nfn main() {}\n",
    )
    .expect("write");
    let settings = Settings {
        base_dir: dir.path().to_path_buf(),
        ..Settings::default()
    };
    let (report, sources) = lint_paths_with_sources(&[dir.path().to_path_buf()], &settings);
    assert_eq!(report.summary.files_seen, 2);
    let listed: Vec<&str> = sources
        .without_directives
        .iter()
        .map(String::as_str)
        .collect();
    assert_eq!(listed, ["plain.rs"]);
}
