//! Finding a file's package and reading what it says about SDKs: workspace inheritance, renamed
//! dependencies, the workspace lock, foreign workspaces, virtual manifests, broken manifests, and
//! the per-run cache.

use std::path::Path;
use std::sync::Arc;

use mcp_lint::model::manifest::{Package, Packages, Version, VersionSource};

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// A workspace with two members: `server` inherits neva from `[workspace.dependencies]` and adds a
/// feature, `tools` renames rmcp; the lock holds two rmcp versions.
fn workspace() -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    let r = t.path();
    write(
        r,
        "Cargo.toml",
        "[workspace]\nmembers = [\"crates/*\"]\nexclude = [\"crates/scratch\"]\n\n[workspace.dependencies]\nneva = { version = \"0.4\", default-features = false }\n",
    );
    write(
        r,
        "crates/server/Cargo.toml",
        "[package]\nname = \"server\"\nversion.workspace = true\n\n[dependencies]\nneva = { workspace = true, features = [\"proto-2026-07-28-rc\"] }\n\n[dev-dependencies]\nrmcp = \"2\"\n",
    );
    write(r, "crates/server/src/lib.rs", "");
    write(r, "crates/server/src/deep/mod.rs", "");
    write(
        r,
        "crates/tools/Cargo.toml",
        "[package]\nname = \"tools\"\nversion = \"0.1.0\"\n\n[target.'cfg(unix)'.dependencies]\nmcp = { package = \"rmcp\", version = \"3.1\" }\n",
    );
    write(r, "crates/tools/src/lib.rs", "");
    write(
        r,
        "Cargo.lock",
        r#"version = 4

[[package]]
name = "neva"
version = "0.4.2"
source = "registry+index"

[[package]]
name = "rmcp"
version = "2.2.0"
source = "registry+index"

[[package]]
name = "rmcp"
version = "3.11.0"
source = "registry+index"

[[package]]
name = "server"
version = "0.1.0"
dependencies = [
 "neva",
 "rmcp 2.2.0",
]

[[package]]
name = "tools"
version = "0.1.0"
dependencies = [
 "rmcp 3.11.0",
]
"#,
    );
    // Excluded from the workspace: its own root, no lock.
    write(
        r,
        "crates/scratch/Cargo.toml",
        "[package]\nname = \"scratch\"\nversion = \"0.1.0\"\n\n[dependencies]\nneva = \"0.3\"\n",
    );
    write(r, "crates/scratch/src/main.rs", "");
    t
}

#[test]
fn workspace_inheritance_features_and_lock() {
    let t = workspace();
    let pkgs = Packages::new();
    let server = pkgs
        .for_file(&t.path().join("crates/server/src/deep/mod.rs"))
        .expect("server package");
    assert_eq!(server.name, "server");
    let neva = server.dependency_on(&["neva"]).unwrap();
    assert_eq!(neva.requirement.as_deref(), Some("0.4"));
    assert_eq!(neva.version, Some(Version(0, 4, 2)));
    assert_eq!(neva.version_source, Some(VersionSource::Lock));
    assert!(neva.has_feature("proto-2026-07-28-rc"));
    assert!(!neva.default_features);
    let rmcp = server.dependency_on(&["rmcp"]).unwrap();
    assert!(rmcp.dev_only);
    assert_eq!(
        rmcp.version,
        Some(Version(2, 2, 0)),
        "the lock entry names this member's rmcp"
    );
}

#[test]
fn renamed_target_dependency_resolves_by_its_real_name() {
    let t = workspace();
    let pkgs = Packages::new();
    let tools = pkgs
        .for_file(&t.path().join("crates/tools/src/lib.rs"))
        .unwrap();
    let rmcp = tools.dependency_on(&["rmcp"]).unwrap();
    assert_eq!(rmcp.name, "mcp");
    assert_eq!(rmcp.version, Some(Version(3, 11, 0)));
}

#[test]
fn excluded_member_is_its_own_root_and_ignores_the_workspace_lock() {
    let t = workspace();
    let pkgs = Packages::new();
    let scratch = pkgs
        .for_file(&t.path().join("crates/scratch/src/main.rs"))
        .unwrap();
    let neva = scratch.dependency_on(&["neva"]).unwrap();
    assert_eq!(neva.version, Some(Version(0, 3, 0)));
    assert_eq!(neva.version_source, Some(VersionSource::Requirement));
}

/// A crate nested under a workspace that does not list it (like this repository's fixtures): the
/// workspace's lock would name other versions and must not be used.
#[test]
fn non_member_under_a_workspace_is_not_resolved_by_its_lock() {
    let t = workspace();
    write(
        t.path(),
        "fixtures/demo/Cargo.toml",
        "[package]\nname = \"server\"\nversion = \"0.1.0\"\n\n[dependencies]\nneva = \"0.3.4\"\n",
    );
    write(t.path(), "fixtures/demo/src/lib.rs", "");
    let demo = Packages::new()
        .for_file(&t.path().join("fixtures/demo/src/lib.rs"))
        .unwrap();
    let neva = demo.dependency_on(&["neva"]).unwrap();
    assert_eq!(neva.version, Some(Version(0, 3, 4)));
    assert_eq!(neva.version_source, Some(VersionSource::Requirement));
}

#[test]
fn files_of_one_package_share_one_parse() {
    let t = workspace();
    let pkgs = Packages::new();
    let a = pkgs
        .for_file(&t.path().join("crates/server/src/lib.rs"))
        .unwrap();
    let b = pkgs
        .for_file(&t.path().join("crates/server/src/deep/mod.rs"))
        .unwrap();
    assert!(Arc::ptr_eq(&a, &b));
}

#[test]
fn virtual_manifest_and_no_manifest_mean_no_package() {
    let t = workspace();
    write(t.path(), "scripts/gen.rs", "");
    assert!(Packages::new()
        .for_file(&t.path().join("Cargo.toml"))
        .is_none());
    assert!(Packages::new()
        .for_file(&t.path().join("scripts/gen.rs"))
        .is_none());
    let lone = tempfile::tempdir().unwrap();
    write(lone.path(), "src/lib.rs", "");
    assert!(Packages::new()
        .for_file(&lone.path().join("src/lib.rs"))
        .is_none());
}

#[test]
fn broken_manifest_is_an_error_once_and_the_files_still_lint() {
    let t = tempfile::tempdir().unwrap();
    write(t.path(), "Cargo.toml", "[package\nname = ");
    write(
        t.path(),
        "src/a.rs",
        "fn a(peer: &rmcp::Peer<rmcp::RoleServer>) { let _ = peer.list_roots(); }\n",
    );
    write(t.path(), "src/b.rs", "fn b() {}\n");
    let pkgs = Packages::new();
    assert!(pkgs.for_file(&t.path().join("src/a.rs")).is_none());
    assert!(pkgs.for_file(&t.path().join("src/b.rs")).is_none());
    let errors = pkgs.errors();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].1.contains("invalid TOML"), "{errors:?}");
    assert!(Package::read(&t.path().join("Cargo.toml")).is_err());

    // Through the linter: one report error for the manifest, and the file is linted by syntax.
    let settings = mcp_lint::Settings {
        base_dir: t.path().to_path_buf(),
        ..Default::default()
    };
    let report = mcp_lint::lint_paths(&[t.path().to_path_buf()], &settings);
    assert_eq!(report.errors.len(), 1, "{:?}", report.errors);
    assert_eq!(report.errors[0].path, "Cargo.toml");
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.code == "MCP003" && f.path == "src/a.rs"),
        "{:?}",
        report.findings
    );
}

#[test]
fn broken_lock_keeps_the_requirements() {
    let t = tempfile::tempdir().unwrap();
    write(
        t.path(),
        "Cargo.toml",
        "[package]\nname = \"x\"\nversion = \"0.1.0\"\n\n[dependencies]\nturbomcp = \"3.1\"\n",
    );
    write(t.path(), "Cargo.lock", "[[package]\n");
    write(t.path(), "src/lib.rs", "");
    let pkgs = Packages::new();
    let p = pkgs.for_file(&t.path().join("src/lib.rs")).unwrap();
    assert_eq!(
        p.dependency_on(&["turbomcp"]).unwrap().version,
        Some(Version(3, 1, 0))
    );
    assert_eq!(pkgs.errors().len(), 1);
}
