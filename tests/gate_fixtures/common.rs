//! Helpers shared by the `gate_*` CLI tests: a throw-away project directory and a way to run the
//! real binary in it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// A server with legacy rmcp calls in `#[tool]` fns: MCP001 at 21:14, MCP002 at 34:34, MCP003 at 40:34.
pub const TOOLS: &str = include_str!("tools.rs");

pub struct Project {
    pub dir: tempfile::TempDir,
}

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Project {
    /// A package `demo` that depends on rmcp (the engine checks the manifest), with `src/tools.rs`.
    pub fn new() -> Project {
        let p = Project {
            dir: tempfile::tempdir().expect("temp dir"),
        };
        p.write(
            "Cargo.toml",
            "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nrmcp = \"3\"\n",
        );
        p.write("src/tools.rs", TOOLS);
        p
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    pub fn write(&self, rel: &str, text: &str) {
        let p = self.path(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap()
    }

    pub fn run(&self, args: &[&str]) -> Run {
        run_in(self.dir.path(), args)
    }
}

pub fn run_in(dir: &Path, args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-mcp-lint"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("run cargo-mcp-lint");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

impl Run {
    /// `(path, line, code)` of each line of concise output.
    pub fn concise(&self) -> Vec<(String, usize, String)> {
        self.stdout
            .lines()
            .filter(|l| !l.starts_with("note: "))
            .map(|l| {
                let mut parts = l.splitn(4, ':');
                let path = parts.next().unwrap().to_string();
                let line = parts.next().unwrap().parse().unwrap();
                let _col = parts.next();
                let rest = parts.next().unwrap();
                let code = rest[rest.find('[').unwrap() + 1..rest.find(']').unwrap()].to_string();
                (path, line, code)
            })
            .collect()
    }

    pub fn codes(&self) -> Vec<String> {
        self.concise().into_iter().map(|c| c.2).collect()
    }
}
