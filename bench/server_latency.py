#!/usr/bin/env python3
"""Latency of `cargo mcp-lint server`: from a keystroke (didChange) to its diagnostics.

Opens a generated 2,000-line legacy rmcp server file (a handler with a mid-request ask every
~80 lines, so every change is parsed, analysed and has findings with fixes) in a crate whose
manifest names rmcp, then types: each change inserts or deletes one character in a comment, and
the time from sending it to receiving `publishDiagnostics` for its version is measured (the
server's debounce included). Side by side, the same file linted by the command line
(`--format json`, process start included) is the baseline.

usage: bench/server_latency.py [--bin PATH] [--lines N] [--changes N] [--debounce-ms N]
default binary: target/release/cargo-mcp-lint (build it with `cargo build --release`).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import queue

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURE = os.path.join(ROOT, "tests", "fixtures", "editor-legacy")

HEADER = """use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::*;
use rmcp::service::RequestContext;
use rmcp::{elicit_safe, tool, tool_router, ErrorData as McpError, RoleServer};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Confirm {
    pub confirm: bool,
}

elicit_safe!(Confirm);

#[derive(Clone)]
pub struct Big {
    tool_router: ToolRouter<Big>,
}

"""

BLOCK = """// Helpers and a tool, number {n}.
pub fn helper_{n}(values: &[u64]) -> u64 {{
    let mut total = 0;
    for (i, v) in values.iter().enumerate() {{
        if i % 2 == 0 {{
            total += v * 3;
        }} else {{
            total = total.wrapping_sub(*v);
        }}
    }}
    total
}}

pub fn describe_{n}(name: &str, count: usize) -> String {{
    match count {{
        0 => format!("{{name}}: none"),
        1 => format!("{{name}}: one"),
        _ => format!("{{name}}: {{count}}"),
    }}
}}

#[tool_router]
impl Big {{
    #[tool(description = "Tool {n}")]
    async fn tool_{n}(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {{
        let total = helper_{n}(&[1, 2, 3]);
        let answer = context
            .peer
            .elicit::<Confirm>("Go on?")
            .await
            .map_err(|e| McpError::internal_error(e.to_string(), None))?;
        match answer {{
            Some(c) if c.confirm => Ok(CallToolResult::success(vec![Content::text(
                describe_{n}("total", total as usize),
            )])),
            _ => Ok(CallToolResult::success(vec![Content::text("no")])),
        }}
    }}
}}

pub struct Record{n} {{
    pub id: u64,
    pub name: String,
    pub tags: Vec<String>,
}}

impl Record{n} {{
    pub fn new(id: u64, name: &str) -> Self {{
        Record{n} {{
            id,
            name: name.to_string(),
            tags: Vec::new(),
        }}
    }}

    pub fn tagged(mut self, tag: &str) -> Self {{
        self.tags.push(tag.to_string());
        self
    }}
}}

"""


def generate(lines):
    out = HEADER
    n = 0
    while out.count("\n") < lines:
        out += BLOCK.format(n=n)
        n += 1
    return out, n


class Server:
    def __init__(self, binary, root, debounce_ms):
        env = dict(os.environ, XDG_CACHE_HOME=os.path.join(root, ".cache"))
        self.proc = subprocess.Popen(
            [binary, "server"], cwd=root, env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        )
        self.inbox = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.next_id = 0
        uri = "file://" + root
        init = {"debounceMs": debounce_ms} if debounce_ms is not None else None
        self.request("initialize", {"processId": None, "rootUri": uri, "capabilities": {},
                                    "initializationOptions": init})
        self.notify("initialized", {})

    def _read(self):
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                if line.startswith(b"Content-Length:"):
                    length = int(line.split(b":")[1])
            self.inbox.put((time.perf_counter(), json.loads(out.read(length))))

    def send(self, msg):
        body = json.dumps(msg).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            _, msg = self.inbox.get(timeout=120)
            if msg.get("id") == self.next_id and "method" not in msg:
                return msg

    def wait_diagnostics(self, uri, version):
        while True:
            at, msg = self.inbox.get(timeout=120)
            p = msg.get("params", {})
            if msg.get("method") == "textDocument/publishDiagnostics" and p.get("uri") == uri \
                    and p.get("version") == version:
                return at, len(p["diagnostics"])

    def stop(self):
        self.request("shutdown", None)
        self.notify("exit", None)
        self.proc.wait(timeout=30)


def pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "cargo-mcp-lint"))
    ap.add_argument("--lines", type=int, default=2000)
    ap.add_argument("--changes", type=int, default=60)
    ap.add_argument("--debounce-ms", type=int, default=None,
                    help="the server's debounce (default: the server's own)")
    args = ap.parse_args()
    if not os.path.exists(args.bin):
        sys.exit(f"no binary at {args.bin}: cargo build --release --bin cargo-mcp-lint")
    text, handlers = generate(args.lines)
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "src"))
        with open(os.path.join(FIXTURE, "Cargo.toml")) as f:
            manifest = f.read()
        with open(os.path.join(root, "Cargo.toml"), "w") as f:
            f.write(manifest)
        path = os.path.join(root, "src", "main.rs")
        with open(path, "w") as f:
            f.write(text)
        uri = "file://" + path

        # Baseline: the command line on the same file, process start included.
        cli = []
        for _ in range(10):
            t = time.perf_counter()
            subprocess.run([args.bin, "--format", "json", "src/main.rs"], cwd=root,
                           stdout=subprocess.DEVNULL, check=False)
            cli.append((time.perf_counter() - t) * 1000)

        server = Server(args.bin, root, args.debounce_ms)
        server.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "rust", "version": 1, "text": text}})
        _, count = server.wait_diagnostics(uri, 1)
        # The edit point: the end of a comment line in the middle of the file.
        target = text.count("\n", 0, text.index("// Helpers and a tool, number %d." % (handlers // 2)))
        col = len("// Helpers and a tool, number %d." % (handlers // 2))
        latencies = []
        for i in range(args.changes):
            version = i + 2
            if i % 2 == 0:
                change = {"range": {"start": {"line": target, "character": col},
                                    "end": {"line": target, "character": col}}, "text": "x"}
            else:
                change = {"range": {"start": {"line": target, "character": col},
                                    "end": {"line": target, "character": col + 1}}, "text": ""}
            sent = time.perf_counter()
            server.notify("textDocument/didChange", {
                "textDocument": {"uri": uri, "version": version}, "contentChanges": [change]})
            at, n = server.wait_diagnostics(uri, version)
            assert n == count, f"{n} diagnostics, expected {count}"
            latencies.append((at - sent) * 1000)
            time.sleep(0.05)
        stats = server.request("mcp-lint/stats", None)["result"]
        server.stop()

    print(f"file: {text.count(chr(10))} lines, {handlers} legacy handlers, {count} diagnostics")
    print(f"server, change -> diagnostics over {len(latencies)} changes (ms): "
          f"median {statistics.median(latencies):.1f}  p90 {pct(latencies, 0.9):.1f}  "
          f"max {max(latencies):.1f}  (debounce: {args.debounce_ms if args.debounce_ms is not None else 'default'})")
    print(f"command line on the same file, process included (ms): "
          f"median {statistics.median(cli):.1f}  min {min(cli):.1f}")
    print(f"ratio server median / command-line median: {statistics.median(latencies) / statistics.median(cli):.2f}")
    print(f"server stats: {stats}")


if __name__ == "__main__":
    main()
