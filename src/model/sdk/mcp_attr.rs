//! mcp-attr (crate `mcp-attr`), 0.0.7: `mcp_attr::server::RequestContext` sends
//! `sampling_create_message(params)` and `roots_list()`; it has no elicitation and no MRTR API.
//! `reference/rust-sdks.md` section 2.7.

use super::{HandlerTrait, McpMethod, PeerType, RequestMethod, RoleSource, SdkTable, Side};

const SAMPLING_HELP: &str = "mcp-attr has no MRTR API yet (up to 0.0.7): call a model API from \
the server (sampling is deprecated in 2026-07-28, SEP-2577), or move the handler to rmcp 3.x and \
write it with `#[mrtr_handler]`";

const ROOTS_HELP: &str = "mcp-attr has no MRTR API yet (up to 0.0.7): take the directories as a \
tool parameter or from configuration (roots are deprecated in 2026-07-28, SEP-2577), or move the \
handler to rmcp 3.x and write it with `#[mrtr_handler]`";

pub static MCP_ATTR: SdkTable = SdkTable {
    name: "mcp-attr",
    crates: &["mcp_attr"],
    packages: &["mcp-attr"],
    bare_names: false,
    version_in_message: true,
    roles: &[],
    peer_types: &[PeerType { name: "RequestContext", role: RoleSource::Fixed(Side::Server) }],
    context_types: &[],
    receiver_name_hint: "cx",
    serve_functions: &[],
    serve_methods: &[],
    request_methods: &[
        RequestMethod::new("sampling_create_message", McpMethod::Sampling, 1, SAMPLING_HELP),
        RequestMethod::new("roots_list", McpMethod::Roots, 0, ROOTS_HELP),
    ],
    raw_send_methods: &[],
    request_enum: "",
    request_names: &[],
    removed: &[],
    handler_traits: &[HandlerTrait {
        name: "McpServer",
        side: Side::Server,
        mrtr_methods: &["tools_call", "prompts_get", "resources_read"],
        hook_prefix: "on_",
        request_suffix: "",
    }],
    handler_attributes: &["resource"],
    redesign: &[
        (McpMethod::Elicitation, "ask from `tools_call`, `prompts_get` or `resources_read` by returning a hand-built `InputRequiredResult`, or take the value from configuration"),
        (McpMethod::Sampling, "call a model API directly from the server; sampling is deprecated in 2026-07-28 (SEP-2577) and has no MRTR form outside a tool, prompt or resource request"),
        (McpMethod::Roots, "take the directories as a tool parameter or from configuration; roots are deprecated in 2026-07-28 (SEP-2577) and have no MRTR form outside a tool, prompt or resource request"),
    ],
    raw_replacement: "mcp-attr has no MRTR API yet: return a hand-built `InputRequiredResult` instead of sending the request",
};
