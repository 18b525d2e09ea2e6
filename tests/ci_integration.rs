//! The CI integrations users copy: the GitHub composite action (`action.yml`) and the pre-commit
//! hooks (`.pre-commit-hooks.yaml`). Each test reads the file as shipped, takes the command a
//! step or hook runs, and runs it with the linter this build made on the example server
//! (`examples/deploy/before`, three legacy `elicit` calls).
//!
//! The YAML is read by a small reader of the shapes these two files use (a step's `env:`
//! mapping and its `run: |` block, an input's `default:`, a hook's `id:` and `entry:`), not a
//! general YAML parser: the test fails if the files stop having those shapes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn indent(l: &str) -> usize {
    l.len() - l.trim_start().len()
}

fn unquote(v: &str) -> String {
    let v = v.trim();
    v.strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .unwrap_or(v)
        .to_string()
}

/// The lines of the block under `lines[at]` (those indented deeper, blank ones kept).
fn block(lines: &[&str], at: usize) -> Vec<String> {
    let base = indent(lines[at]);
    lines[at + 1..]
        .iter()
        .take_while(|l| l.trim().is_empty() || indent(l) > base)
        .map(|l| l.to_string())
        .collect()
}

/// One step of `action.yml`: its `env:` (each `${{ inputs.X }}` as X's default) and its script.
struct Step {
    env: BTreeMap<String, String>,
    run: String,
}

fn action_step(name: &str) -> Step {
    let text = std::fs::read_to_string(root().join("action.yml")).expect("action.yml");
    let lines: Vec<&str> = text.lines().collect();
    // The inputs' defaults.
    let inputs_at = lines.iter().position(|l| *l == "inputs:").expect("inputs:");
    let mut defaults = BTreeMap::new();
    let mut current = None;
    for l in block(&lines, inputs_at) {
        if indent(&l) == 2 && l.trim_end().ends_with(':') {
            current = Some(l.trim().trim_end_matches(':').to_string());
        } else if let (Some(input), Some(v)) = (&current, l.trim().strip_prefix("default:")) {
            defaults.insert(input.clone(), unquote(v));
        }
    }
    let at = lines
        .iter()
        .position(|l| l.trim() == format!("- name: {name}"))
        .unwrap_or_else(|| panic!("no step `{name}` in action.yml"));
    let step: Vec<String> = std::iter::once(format!("  {}", &lines[at][indent(lines[at]) + 2..]))
        .chain(block(&lines, at))
        .collect();
    let step: Vec<&str> = step.iter().map(String::as_str).collect();
    let mut env = BTreeMap::new();
    if let Some(e) = step.iter().position(|l| l.trim() == "env:") {
        for l in block(&step, e) {
            let (k, v) = l.trim().split_once(": ").expect("KEY: value");
            let v = v.trim();
            let value = match v
                .strip_prefix("${{ inputs.")
                .and_then(|r| r.strip_suffix(" }}"))
            {
                Some(input) => defaults
                    .get(input)
                    .unwrap_or_else(|| panic!("input `{input}` has no default"))
                    .clone(),
                None => unquote(v),
            };
            env.insert(k.to_string(), value);
        }
    }
    let r = step
        .iter()
        .position(|l| l.trim() == "run: |")
        .unwrap_or_else(|| panic!("step `{name}` has no `run: |` block"));
    let body = block(&step, r);
    let strip = body
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| indent(l))
        .min()
        .unwrap_or(0);
    let run = body
        .iter()
        .map(|l| l.get(strip..).unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    Step { env, run }
}

/// PATH with the directory of the linter this build made first: `cargo mcp-lint` and
/// `cargo-mcp-lint` both find it.
fn path_with_linter() -> std::ffi::OsString {
    let bin = Path::new(env!("CARGO_BIN_EXE_cargo-mcp-lint"))
        .parent()
        .unwrap()
        .to_path_buf();
    let mut dirs = vec![bin];
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(dirs).unwrap()
}

fn bash(script: &str, env: &BTreeMap<String, String>, dir: &Path) -> Output {
    Command::new("bash")
        .args(["-eo", "pipefail", "-c", script])
        .envs(env)
        .env("PATH", path_with_linter())
        .current_dir(dir)
        .output()
        .expect("bash runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A copy of the example server to run in (the SARIF file is written there).
fn example() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let from = root().join("examples/deploy/before");
    std::fs::create_dir(dir.path().join("src")).unwrap();
    for f in ["Cargo.toml", "Cargo.lock", "src/main.rs"] {
        std::fs::copy(from.join(f), dir.path().join(f)).unwrap();
    }
    dir
}

#[test]
fn the_actions_lint_step_annotates_the_example() {
    let dir = example();
    let step = action_step("Lint");
    assert_eq!(step.env["MCP_LINT_SARIF"], "false", "SARIF is an option");
    let out = bash(&step.run, &step.env, dir.path());
    let stdout = text(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "findings fail the step:\n{stdout}\n{}",
        text(&out.stderr)
    );
    let annotations: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("::error file=src/main.rs,line="))
        .collect();
    assert_eq!(annotations.len(), 3, "{stdout}");
    assert!(
        annotations.iter().all(|a| a.contains("title=MCP001")),
        "{stdout}"
    );
}

#[test]
fn the_actions_sarif_option_writes_sarif_and_keeps_the_annotations() {
    let dir = example();
    let mut step = action_step("Lint");
    step.env.insert("MCP_LINT_SARIF".into(), "true".into());
    let out = bash(&step.run, &step.env, dir.path());
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let file = dir.path().join(&step.env["MCP_LINT_SARIF_FILE"]);
    let sarif: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).expect("the SARIF file")).unwrap();
    assert_eq!(sarif["version"], "2.1.0");
    assert_eq!(sarif["runs"][0]["results"].as_array().unwrap().len(), 3);
    assert_eq!(text(&out.stdout).matches("::error ").count(), 3);
    // The upload step runs only with the option, on the file the lint step wrote.
    let action = std::fs::read_to_string(root().join("action.yml")).unwrap();
    let upload = &action[action.find("- name: Upload SARIF").expect("an upload step")..];
    assert!(
        upload.contains("if: always() && inputs.sarif == 'true'"),
        "{upload}"
    );
    assert!(
        upload.contains("sarif_file: ${{ inputs.sarif-file }}"),
        "{upload}"
    );
}

#[test]
fn the_actions_install_step_keeps_a_linter_already_installed() {
    let step = action_step("Install cargo-mcp-lint");
    // With the linter on PATH the step installs nothing (no cargo install, no network).
    let out = bash(&step.run, &step.env, &root());
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("installed already"));
    // Without it, it installs the action's own checkout, or the version asked for.
    assert!(step
        .run
        .contains("cargo install --locked --path \"$MCP_LINT_SOURCE\""));
    assert!(step
        .run
        .contains("cargo install --locked mcp-lint --version \"$MCP_LINT_VERSION\""));
}

/// Each hook of `.pre-commit-hooks.yaml`: (id, entry).
fn hooks() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(root().join(".pre-commit-hooks.yaml")).unwrap();
    let mut out: Vec<(String, String)> = Vec::new();
    for l in text.lines().filter(|l| !l.trim_start().starts_with('#')) {
        if let Some(id) = l.strip_prefix("- id: ") {
            out.push((id.trim().to_string(), String::new()));
        } else if let Some(entry) = l.trim().strip_prefix("entry: ") {
            out.last_mut().expect("entry after id").1 = entry.trim().to_string();
        }
    }
    out
}

#[test]
fn each_pre_commit_hook_runs_on_the_example() {
    let hooks = hooks();
    let ids: Vec<&str> = hooks.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, ["mcp-lint", "mcp-lint-baseline"]);
    let dir = example();
    let empty = BTreeMap::new();
    for (id, entry) in &hooks {
        // pre-commit runs the entry with the hook's binary on PATH.
        let out = bash(entry, &empty, dir.path());
        let stdout = text(&out.stdout);
        if id == "mcp-lint-baseline" {
            // Without its baseline file the hook says so (exit 2); once recorded, no finding
            // is new.
            assert_eq!(
                out.status.code(),
                Some(2),
                "{id}: {stdout}{}",
                text(&out.stderr)
            );
            assert!(text(&out.stderr).contains("cannot read baseline mcp-lint-baseline.json"));
            let record = bash(&format!("{entry} --update-baseline"), &empty, dir.path());
            assert!(record.status.success(), "{}", text(&record.stderr));
            let again = bash(entry, &empty, dir.path());
            assert_eq!(again.status.code(), Some(0), "{}", text(&again.stdout));
        } else {
            assert_eq!(
                out.status.code(),
                Some(1),
                "{id}: {stdout}{}",
                text(&out.stderr)
            );
            assert_eq!(
                stdout
                    .lines()
                    .filter(|l| l.starts_with("src/main.rs:") && l.contains("error[MCP001]"))
                    .count(),
                3,
                "{id}: {stdout}"
            );
        }
    }
}
