//! Struct literals of rmcp model types, as rmcp 0.x code writes them (before 1.0 made the
//! structs `#[non_exhaustive]`). `cargo mcp-lint --fix --unsafe-fixes --upgrade-rmcp` rewrites
//! each into its rmcp 3.x constructor and setters (MCP204): `lib.fixed`, which tests/fix_compile
//! builds against rmcp 3.x; `scripts/test-all.sh` checks this file on rmcp 0.14.
#![allow(deprecated, dead_code)]

use rmcp::model::*;

pub fn info() -> ServerInfo {
    ServerInfo {
        protocol_version: ProtocolVersion::V_2024_11_05,
        capabilities: ServerCapabilities::builder().enable_tools().build(),
        server_info: Implementation {
            name: "notes".into(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            ..Default::default()
        },
        instructions: Some("Add and list notes.".into()),
    }
}

pub fn implementation() -> Implementation {
    Implementation {
        name: "notes".to_string(),
        title: Some("Notes".into()),
        version: "1.0.0".into(),
        icons: None,
        website_url: None,
    }
}

/// A client's hello under the model's own alias of its params (`ClientInfo` is
/// `InitializeRequestParam`): the literal is built by the aliased struct's row.
pub fn hello() -> ClientInfo {
    ClientInfo {
        meta: None,
        protocol_version: Default::default(),
        capabilities: ClientCapabilities::default(),
        client_info: implementation(),
    }
}

pub fn failed(message: String) -> CallToolResult {
    CallToolResult {
        content: vec![Content::text(message)],
        structured_content: None,
        is_error: Some(true),
        meta: None,
    }
}

pub fn done() -> CallToolResult {
    CallToolResult {
        content: vec![Content::text("done")],
        structured_content: None,
        is_error: Some(false),
        meta: None,
    }
}

pub fn capabilities() -> ServerCapabilities {
    ServerCapabilities::builder()
        .enable_prompts_with(PromptsCapability {
            list_changed: Some(false),
        })
        .enable_resources_with(ResourcesCapability {
            subscribe: Some(false),
            list_changed: Some(true),
        })
        .build()
}

pub fn no_roots() -> ListRootsResult {
    ListRootsResult { roots: vec![] }
}

/// An error flag held in a variable: no constructor can take it, so the value is built from
/// `default()` and its fields set.
pub fn flagged(is_error: Option<bool>) -> CallToolResult {
    CallToolResult {
        content: vec![],
        structured_content: None,
        is_error,
        meta: None,
    }
}

/// Structs with no `Default` on 3.x whose `new(..)` takes the fields of its parameters' names:
/// built with it, the other fields set on the value.
pub fn read_request(uri: &str) -> ReadResourceRequestParams {
    ReadResourceRequestParams {
        meta: None,
        uri: uri.into(),
    }
}

pub fn prompt_reference(name: String, title: Option<String>) -> Reference {
    Reference::Prompt(PromptReference { name, title })
}

/// 0.x's `Resource` is `Annotated<RawResource>`: on 3.x the resource carries its annotations.
pub fn renamed_resource(raw: RawResource, like: &Resource) -> Resource {
    Resource {
        raw,
        annotations: like.annotations.clone(),
    }
}

/// `AnnotateAble::optional_annotate` wrapped the value; on 3.x the value carries the field.
pub fn annotated_resource(uri: String, annotations: Option<Annotations>) -> Resource {
    RawResource::new(uri, "n").optional_annotate(annotations)
}
