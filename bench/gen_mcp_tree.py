#!/usr/bin/env python3
"""Generate the synthetic MCP-heavy benchmark corpus: a tree of rmcp server files in which every
file contains the linter's trigger tokens, so every file must be parsed.

Deterministic: the same seed and file count give the same bytes. The files are realistic rmcp
server code in many shapes (tool routers, hand-written ServerHandler impls, prompt routers,
notification hooks, spawned tasks, client-side handlers, same-named methods on unrelated types,
already-migrated MRTR handlers) padded with ordinary application code (types, serde, matches,
iterators, error handling), so both the prefilter and the parser see what real servers look like.

`--api 3` (the default) writes code that is current on rmcp 3.x; `--api 1` writes the same servers
with the names of rmcp 1.x (`Content`, `call_tool` returning `CallToolResult`, struct literals of
model types) and a manifest on rmcp 1.7, so every file also feeds the rmcp upgrade rules.

usage: gen_mcp_tree.py OUT_DIR [--files N] [--seed S] [--api 3|1]
"""

import argparse
import os
import random
import shutil

WORDS = [
    "deploy", "invoice", "ticket", "backup", "user", "project", "branch", "release", "report",
    "order", "payment", "schedule", "metric", "alert", "cluster", "volume", "secret", "token",
    "document", "note", "task", "build", "artifact", "mirror", "region", "quota", "plan",
    "account", "session", "profile", "upload", "export", "import", "index", "search", "query",
]


MANIFEST = """[package]
name = "{name}"
version = "0.1.0"
edition = "2021"

[dependencies]
rmcp = {{ version = "{rmcp}", features = ["server", "macros", "schemars", "elicitation"] }}
tokio = {{ version = "1", features = ["full"] }}
serde = {{ version = "1", features = ["derive"] }}
serde_json = "1"
anyhow = "1"
tracing = "0.1"
"""


def camel(*parts):
    return "".join(p[:1].upper() + p[1:] for p in parts)


# What differs between the rmcp majors the generator writes for.
API = {
    3: {
        "rmcp": "3.11",
        "Content": "ContentBlock",
        "HandlerResult": "CallToolResponse",
        "decline": "ElicitResult::new(ElicitationAction::Decline)",
    },
    1: {
        "rmcp": "1.7",
        "Content": "Content",
        "HandlerResult": "CallToolResult",
        "decline": "ElicitResult { action: ElicitationAction::Decline, content: None, meta: None }",
    },
}


class Gen:
    def __init__(self, rng, api=3):
        self.r = rng
        self.api = API[api]

    def w(self):
        return self.r.choice(WORDS)

    def field_type(self):
        return self.r.choice([
            "String", "u32", "u64", "i64", "bool", "Option<String>", "Vec<String>", "f64",
            "Option<u32>", "std::collections::BTreeMap<String, String>",
        ])

    def struct(self, name, derives="Debug, Clone, Serialize, Deserialize, JsonSchema"):
        n = self.r.randint(2, 7)
        used = set()
        fields = []
        for _ in range(n):
            f = self.w()
            if f in used:
                continue
            used.add(f)
            doc = f"    /// The {f} the caller asked for.\n" if self.r.random() < 0.5 else ""
            fields.append(f"{doc}    pub {f}: {self.field_type()},")
        return f"#[derive({derives})]\npub struct {name} {{\n" + "\n".join(fields) + "\n}\n"

    def enum(self, name):
        variants = sorted({camel(self.w()) for _ in range(self.r.randint(2, 6))})
        body = []
        for v in variants:
            shape = self.r.randint(0, 2)
            if shape == 0:
                body.append(f"    {v},")
            elif shape == 1:
                body.append(f"    {v}(String),")
            else:
                body.append(f"    {v} {{ id: u64, reason: Option<String> }},")
        arms = "\n".join(
            f"            {name}::{v}{'' if s.endswith(v + ',') else ('(_)' if '(String)' in s else ' { .. }')} => \"{v.lower()}\","
            for v, s in zip(variants, body)
        )
        return (
            f"#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]\n"
            f"#[serde(rename_all = \"snake_case\")]\npub enum {name} {{\n" + "\n".join(body) + "\n}\n\n"
            f"impl {name} {{\n    pub fn label(&self) -> &'static str {{\n        match self {{\n{arms}\n        }}\n    }}\n}}\n"
        )

    def helper_fn(self, i):
        a, b = self.w(), self.w()
        shape = self.r.randint(0, 4)
        if shape == 0:
            return (
                f"fn summarize_{a}_{i}(items: &[String]) -> String {{\n"
                f"    let mut out = String::with_capacity(items.len() * 8);\n"
                f"    for (n, item) in items.iter().enumerate() {{\n"
                f"        if n > 0 {{\n            out.push_str(\", \");\n        }}\n"
                f"        out.push_str(item.trim());\n    }}\n    out\n}}\n"
            )
        if shape == 1:
            return (
                f"fn parse_{a}_limit_{i}(raw: Option<&str>) -> Result<u32, ErrorData> {{\n"
                f"    let raw = raw.unwrap_or(\"{self.r.randint(1, 500)}\");\n"
                f"    raw.parse::<u32>()\n"
                f"        .map_err(|e| ErrorData::invalid_params(format!(\"bad {b} limit {{raw}}: {{e}}\"), None))\n}}\n"
            )
        if shape == 2:
            return (
                f"async fn load_{a}_{i}(store: &Store, id: u64) -> anyhow::Result<Vec<{camel(b)}Row>> {{\n"
                f"    let rows = store\n        .query(\"SELECT * FROM {a} WHERE id = ?\", &[&id])\n        .await?\n"
                f"        .into_iter()\n        .filter(|r| !r.archived)\n        .map({camel(b)}Row::from)\n        .collect::<Vec<_>>();\n"
                f"    tracing::debug!(count = rows.len(), \"loaded {a}\");\n    Ok(rows)\n}}\n"
            )
        if shape == 3:
            return (
                f"impl std::fmt::Display for {camel(a)}Kind{i} {{\n"
                f"    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {{\n"
                f"        write!(f, \"{a}:{{}}\", self.0)\n    }}\n}}\n\n"
                f"pub struct {camel(a)}Kind{i}(pub u32);\n"
            )
        return (
            f"fn score_{a}_{i}<T: AsRef<str>>(values: impl IntoIterator<Item = T>) -> u64 {{\n"
            f"    values\n        .into_iter()\n        .map(|v| v.as_ref().bytes().map(u64::from).sum::<u64>())\n"
            f"        .fold(0u64, |acc, x| acc.wrapping_mul(31).wrapping_add(x))\n}}\n"
        )

    # --- legacy call shapes (what the linter looks for) -------------------------------------------

    def legacy_call(self, ctx, form):
        r = self.r
        kind = r.randint(0, 7)
        if kind == 0:
            return (
                f"        let answer = {ctx}.peer.elicit::<{form}>(\"Please confirm the {self.w()}\").await;\n"
                f"        let confirmed = match answer {{\n"
                f"            Ok(Some(v)) => v,\n"
                f"            Ok(None) => return Ok(CallToolResult::success(vec![{self.api['Content']}::text(\"no answer\")])),\n"
                f"            Err(ElicitationError::UserDeclined) => return Ok(CallToolResult::error(vec![{self.api['Content']}::text(\"declined\")])),\n"
                f"            Err(e) => return Err(ErrorData::internal_error(e.to_string(), None)),\n"
                f"        }};\n"
            )
        if kind == 1:
            return (
                f"        let params = CreateMessageRequestParams::new(vec![SamplingMessage::user_text(prompt.clone())], {r.choice([100, 150, 400, 1024])})\n"
                f"            .with_system_prompt(\"You summarise {self.w()} records.\")\n"
                f"            .with_temperature(0.{r.randint(1, 9)});\n"
                f"        let sampled = {ctx}.peer.create_message(params).await.map_err(|e| ErrorData::internal_error(e.to_string(), None))?;\n"
                f"        let confirmed = sampled.message.content.as_text().map(|t| t.text.clone()).unwrap_or_default();\n"
            )
        if kind == 2:
            return (
                f"        let roots = {ctx}.peer.list_roots().await.map_err(|e| ErrorData::internal_error(e.to_string(), None))?;\n"
                f"        let confirmed = roots.roots.iter().map(|r| r.uri.clone()).collect::<Vec<_>>().join(\";\");\n"
            )
        if kind == 3:
            return (
                f"        let schema = ElicitationSchema::from_type::<{form}>().map_err(|e| ErrorData::internal_error(e.to_string(), None))?;\n"
                f"        let result = {ctx}\n            .peer\n            .create_elicitation(ElicitRequestParams::FormElicitationParams {{\n"
                f"                meta: None,\n                message: format!(\"Details for {{}}\", \"{self.w()}\"),\n"
                f"                requested_schema: schema,\n            }})\n            .await\n"
                f"            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;\n"
                f"        let confirmed = result.content.map(|c| c.to_string()).unwrap_or_default();\n"
            )
        if kind == 4:
            return (
                f"        let peer = {ctx}.peer.clone();\n"
                f"        let confirmed = peer\n            .elicit_with_timeout::<{form}>(\"{self.w()} settings\", Some(Duration::from_secs({r.randint(5, 120)})))\n"
                f"            .await\n            .ok()\n            .flatten()\n            .map(|v| format!(\"{{v:?}}\"))\n            .unwrap_or_default();\n"
            )
        if kind == 5:
            return (
                f"        let outcome = {ctx}\n            .peer\n"
                f"            .elicit_url(\"Sign in to continue\", Url::parse(\"https://auth.invalid/{self.w()}\").unwrap(), \"elicit_{r.randint(1, 9999)}\")\n"
                f"            .await;\n"
                f"        let confirmed = format!(\"{{outcome:?}}\");\n"
            )
        if kind == 6:
            return (
                f"        let reply = {ctx}\n            .peer\n            .send_request(ServerRequest::ListRootsRequest(ListRootsRequest::default()))\n"
                f"            .await\n            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;\n"
                f"        let confirmed = format!(\"{{reply:?}}\");\n"
            )
        return (
            f"        let params = ElicitRequestParams::FormElicitationParams {{ meta: None, message: \"{self.w()}?\".into(), requested_schema: ElicitationSchema::from_type::<{form}>().unwrap() }};\n"
            f"        let confirmed = match {ctx}.peer.create_elicitation_with_timeout(params, None).await {{\n"
            f"            Ok(res) if res.action == ElicitationAction::Accept => \"accepted\".to_string(),\n"
            f"            Ok(_) => \"declined\".to_string(),\n            Err(e) => e.to_string(),\n        }};\n"
        )

    def tool_body(self, ctx, form):
        r = self.r
        pre = ""
        if r.random() < 0.6:
            pre += f"        let started = std::time::Instant::now();\n        let prompt = format!(\"{{}} {self.w()}\", args.{self.w()}_id);\n"
        else:
            pre += "        let prompt = args.query.clone();\n"
        if r.random() < 0.4:
            pre += (
                f"        if prompt.len() > {r.randint(100, 4000)} {{\n"
                f"            return Err(ErrorData::invalid_params(\"prompt too long\", None));\n        }}\n"
            )
        call = self.legacy_call(ctx, form)
        if r.random() < 0.25:
            # Legacy call behind a capability check: a common real shape. The check is the one
            # both 1.x and 3.x have (`supports_elicitation()` went in 0.15): the older spelling
            # would mark every crate as code for an rmcp below 0.15, on either `--api`.
            call = (
                f"        let confirmed = if !{ctx}.peer.supported_elicitation_modes().is_empty() {{\n"
                + "\n".join("    " + l for l in call.rstrip("\n").split("\n"))
                + "\n            confirmed\n        } else {\n            String::new()\n        };\n"
            )
        post = (
            f"        let text = format!(\"{self.w()} done: {{confirmed}} ({{}} items)\", prompt.len());\n"
            f"        Ok(CallToolResult::success(vec![{self.api['Content']}::text(text)]))\n"
        )
        return pre + call + post

    def tool_router(self, server, form, n_tools):
        tools = []
        for i in range(n_tools):
            name = f"{self.w()}_{self.w()}_{i}"
            ctx = self.r.choice(["context", "ctx", "request_context"])
            tools.append(
                f"    #[tool(description = \"{name.replace('_', ' ').capitalize()}\")]\n"
                f"    async fn {name}(\n        &self,\n        Parameters(args): Parameters<{server}Args>,\n"
                f"        {ctx}: RequestContext<RoleServer>,\n    ) -> Result<CallToolResult, ErrorData> {{\n"
                + self.tool_body(ctx, form)
                + "    }\n"
            )
        return (
            f"#[tool_router]\nimpl {server} {{\n"
            f"    pub fn new(store: Store) -> Self {{\n        Self {{ store, tool_router: Self::tool_router() }}\n    }}\n\n"
            + "\n".join(tools)
            + "}\n\n"
            f"#[tool_handler]\nimpl ServerHandler for {server} {{\n"
            f"    fn get_info(&self) -> ServerInfo {{\n"
            f"        ServerInfo::new(ServerCapabilities::builder().enable_tools().build())\n"
            f"            .with_instructions(\"{server} tools\")\n    }}\n}}\n"
        )

    def handwritten_handler(self, server, form):
        ctx = self.r.choice(["context", "cx"])
        hooks = ""
        if self.r.random() < 0.5:
            hooks += (
                f"\n    async fn on_roots_list_changed(&self, context: NotificationContext<RoleServer>) {{\n"
                f"        if let Ok(roots) = context.peer.list_roots().await {{\n"
                f"            tracing::info!(n = roots.roots.len(), \"roots changed\");\n        }}\n    }}\n"
            )
        if self.r.random() < 0.4:
            hooks += (
                f"\n    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {{\n"
                f"        let peer = context.peer.clone();\n"
                f"        tokio::spawn(async move {{\n"
                f"            let _ = peer.list_roots().await;\n        }});\n    }}\n"
            )
        return (
            f"impl ServerHandler for {server} {{\n"
            f"    fn get_info(&self) -> ServerInfo {{\n        ServerInfo::new(ServerCapabilities::builder().enable_tools().build())\n    }}\n\n"
            f"    async fn call_tool(\n        &self,\n        request: CallToolRequestParams,\n        {ctx}: RequestContext<RoleServer>,\n"
            f"    ) -> Result<{self.api['HandlerResult']}, ErrorData> {{\n"
            f"        let args: {server}Args = serde_json::from_value(serde_json::Value::Object(request.arguments.unwrap_or_default()))\n"
            f"            .map_err(|e| ErrorData::invalid_params(e.to_string(), None))?;\n"
            f"        match request.name.as_ref() {{\n"
            f"            \"{self.w()}\" => {{\n"
            + "\n".join("    " + l for l in self.tool_body(ctx, form).rstrip("\n").split("\n"))
            + "\n            }\n"
            f"            other => Err(ErrorData::invalid_params(format!(\"unknown tool {{other}}\"), None)),\n"
            f"        }}\n    }}\n"
            + hooks
            + "}\n"
        )

    def decoys(self):
        """Same-named methods on unrelated types and client-side code: must not be findings."""
        r = self.r
        out = []
        if r.random() < 0.5:
            out.append(
                "struct RootCache { roots: Vec<String> }\n\n"
                "impl RootCache {\n    fn list_roots(&self) -> &[String] {\n        &self.roots\n    }\n\n"
                "    fn create_message(&self, body: &str) -> String {\n        format!(\"[cache] {body}\")\n    }\n}\n\n"
                "fn cached_roots(cache: &RootCache) -> usize {\n    cache.list_roots().len() + cache.create_message(\"x\").len()\n}\n"
            )
        if r.random() < 0.35:
            out.append(
                "struct Client;\n\nimpl ClientHandler for Client {\n"
                "    async fn list_roots(&self, _context: RequestContext<RoleClient>) -> Result<ListRootsResult, ErrorData> {\n"
                "        Ok(ListRootsResult::default())\n    }\n\n"
                "    async fn create_elicitation(\n        &self,\n        _request: ElicitRequestParams,\n"
                "        _context: RequestContext<RoleClient>,\n    ) -> Result<ElicitResult, ErrorData> {\n"
                f"        Ok({self.api['decline']})\n    }}\n}}\n"
            )
        if r.random() < 0.3:
            out.append(
                "/// Already migrated: returns InputRequired and reads the answer back on retry.\n"
                "async fn migrated_confirm(mrtr: Mrtr) -> Result<CallToolResult, ErrorData> {\n"
                "    let answer = mrtr.elicit::<Confirm>(\"Proceed?\").await?;\n"
                "    let state = mrtr.request_state();\n"
                f"    Ok(CallToolResult::success(vec![{self.api['Content']}::text(format!(\"{{answer:?}} {{state:?}}\"))]))\n}}\n"
            )
        return out

    def file(self, idx):
        r = self.r
        server = camel(self.w(), self.w()) + f"Server{idx}"
        form = camel(self.w()) + "Form"
        parts = [
            f"//! {server}: MCP tools for the {self.w()} service (generated benchmark input #{idx}).\n",
            "use std::sync::Arc;\nuse std::time::Duration;\n\n"
            "use rmcp::{\n    ErrorData, RoleServer, ServerHandler,\n"
            "    handler::server::{router::tool::ToolRouter, wrapper::Parameters},\n"
            "    model::*,\n    schemars::JsonSchema,\n    service::{ElicitationError, NotificationContext, RequestContext},\n"
            "    tool, tool_handler, tool_router,\n};\nuse serde::{Deserialize, Serialize};\n",
            self.struct(form),
            f"rmcp::elicit_safe!({form});\n",
            f"#[derive(Debug, Deserialize, JsonSchema)]\npub struct {server}Args {{\n"
            + "".join(f"    pub {w}_id: u64,\n" for w in sorted({self.w() for _ in range(3)}))
            + "    pub query: String,\n}\n",
            f"#[derive(Clone)]\npub struct {server} {{\n    store: Store,\n    tool_router: ToolRouter<Self>,\n}}\n",
        ]
        for _ in range(r.randint(1, 3)):
            parts.append(self.enum(camel(self.w(), self.w())))
        for i in range(r.randint(2, 8)):
            parts.append(self.helper_fn(i))
        if r.random() < 0.75:
            parts.append(self.tool_router(server, form, r.randint(1, 6)))
        else:
            parts.append(self.handwritten_handler(server, form))
        parts.extend(self.decoys())
        if r.random() < 0.5:
            parts.append(
                "#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn summarises_in_order() {\n"
                "        let items = vec![\"a\".to_string(), \" b \".to_string()];\n"
                "        assert_eq!(items.iter().map(|s| s.trim()).collect::<Vec<_>>(), [\"a\", \"b\"]);\n    }\n}\n"
            )
        return "\n".join(parts)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--files", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=20260728)
    ap.add_argument("--api", type=int, choices=sorted(API), default=3)
    a = ap.parse_args()
    if os.path.exists(a.out):
        shutil.rmtree(a.out)
    g = Gen(random.Random(a.seed), a.api)
    per_crate = 40
    for i in range(a.files):
        crate = os.path.join(a.out, f"server_{i // per_crate:03}")
        d = os.path.join(crate, "src", "tools")
        if not os.path.isdir(d):
            os.makedirs(d)
            # A real manifest: the linter reads it to learn which MCP SDK (and version) a crate uses.
            with open(os.path.join(crate, "Cargo.toml"), "w") as f:
                f.write(MANIFEST.format(name=os.path.basename(crate).replace("_", "-"), rmcp=g.api["rmcp"]))
        with open(os.path.join(d, f"{g.w()}_{i:05}.rs"), "w") as f:
            f.write(g.file(i))


if __name__ == "__main__":
    main()
