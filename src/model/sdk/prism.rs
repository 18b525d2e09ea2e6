//! prism-mcp-rs (crate `prism-mcp-rs`, lib `prism_mcp_rs`), 0.1: the `McpServer` struct sends
//! `request_sampling`, `request_roots`, `request_list_roots` and `request_elicitation`. Tool
//! handlers get no context, so the calls go through a server handle the handler captured. No
//! MRTR API. `reference/rust-sdks.md` section 2.8.

use super::{HandlerTrait, McpMethod, PeerType, RequestMethod, RoleSource, SdkTable, Side};

const ELICIT_HELP: &str = "prism-mcp-rs has no MRTR API yet (up to 0.1): answer `tools/call` with \
a hand-built `InputRequiredResult` (`resultType: \"input_required\"`, the elicitation in \
`inputRequests`, a sealed `requestState`), or move the handler to rmcp 3.x and write it with \
`#[mrtr_handler]`";

const SAMPLING_HELP: &str = "prism-mcp-rs has no MRTR API yet (up to 0.1): call a model API from \
the server (sampling is deprecated in 2026-07-28, SEP-2577), or move the handler to rmcp 3.x \
with `#[mrtr_handler]`";

const ROOTS_HELP: &str = "prism-mcp-rs has no MRTR API yet (up to 0.1): take the directories as a \
tool parameter or from configuration (roots are deprecated in 2026-07-28, SEP-2577)";

pub static PRISM: SdkTable = SdkTable {
    name: "prism-mcp-rs",
    crates: &["prism_mcp_rs", "mcp_protocol_sdk"],
    packages: &["prism-mcp-rs", "mcp-protocol-sdk"],
    bare_names: false,
    version_in_message: true,
    roles: &[],
    peer_types: &[PeerType { name: "McpServer", role: RoleSource::Fixed(Side::Server) }],
    context_types: &[],
    receiver_name_hint: "server",
    serve_functions: &[],
    serve_methods: &[],
    request_methods: &[
        RequestMethod::new("request_sampling", McpMethod::Sampling, 1, SAMPLING_HELP),
        RequestMethod::new("request_roots", McpMethod::Roots, 0, ROOTS_HELP),
        RequestMethod::new("request_list_roots", McpMethod::Roots, 0, ROOTS_HELP),
        RequestMethod::new("request_elicitation", McpMethod::Elicitation, 1, ELICIT_HELP),
    ],
    raw_send_methods: &[],
    request_enum: "",
    request_names: &[],
    removed: &[],
    handler_traits: &[HandlerTrait { name: "ToolHandler", side: Side::Server, mrtr_methods: &["call"], hook_prefix: "on_", request_suffix: "" }],
    handler_attributes: &[],
    redesign: &[
        (McpMethod::Elicitation, "ask from a `ToolHandler::call` by returning a hand-built `InputRequiredResult`, or take the value from configuration"),
        (McpMethod::Sampling, "call a model API directly from the server; sampling is deprecated in 2026-07-28 (SEP-2577) and has no MRTR form outside a tool, prompt or resource request"),
        (McpMethod::Roots, "take the directories as a tool parameter or from configuration; roots are deprecated in 2026-07-28 (SEP-2577) and have no MRTR form outside a tool, prompt or resource request"),
    ],
    raw_replacement: "prism-mcp-rs has no MRTR API yet: return a hand-built `InputRequiredResult` instead of sending the request",
};
