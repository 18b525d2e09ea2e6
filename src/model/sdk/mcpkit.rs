//! mcpkit (crates `mcpkit`, `mcpkit-server`), 0.7: `Context<'_>` sends `elicit`, `elicit_url`,
//! `create_message`, `list_roots` and `request(method, params)`. The generated `#[tool]`
//! dispatch does not pass the context, so the calls live in hand-written `ToolHandler`,
//! `ResourceHandler` and `PromptHandler` impls. No MRTR API. `reference/rust-sdks.md` section 2.6.

use super::{
    HandlerTrait, McpMethod, PeerType, RawSendMethod, RequestMethod, RoleSource, SdkTable, Side,
};

const ELICIT_HELP: &str = "mcpkit has no MRTR API yet (up to 0.7): answer `tools/call` with a \
hand-built `InputRequiredResult` (`resultType: \"input_required\"`, the elicitation in \
`inputRequests`, a sealed `requestState`) and read `inputResponses` on the retry, or move the \
handler to rmcp 3.x and write it with `#[mrtr_handler]`";

const SAMPLING_HELP: &str = "mcpkit has no MRTR API yet (up to 0.7): call a model API from the \
server (sampling is deprecated in 2026-07-28, SEP-2577), or hand-build an `InputRequiredResult` \
with a `sampling/createMessage` entry in `inputRequests`";

const ROOTS_HELP: &str = "mcpkit has no MRTR API yet (up to 0.7): take the directories as a tool \
parameter or from configuration (roots are deprecated in 2026-07-28, SEP-2577), or hand-build an \
`InputRequiredResult` with a `roots/list` entry in `inputRequests`";

const RAW_HELP: &str = "mcpkit has no MRTR API yet (up to 0.7): put the request in the \
`inputRequests` map of a hand-built `InputRequiredResult` returned from the handler instead of \
sending it with `ctx.request(..)`";

pub static MCPKIT: SdkTable = SdkTable {
    name: "mcpkit",
    crates: &["mcpkit", "mcpkit_server", "mcpkit_core"],
    packages: &["mcpkit", "mcpkit-server", "mcpkit-core"],
    bare_names: false,
    version_in_message: true,
    roles: &[],
    peer_types: &[PeerType { name: "Context", role: RoleSource::Fixed(Side::Server) }],
    context_types: &[],
    receiver_name_hint: "ctx",
    serve_functions: &[],
    serve_methods: &[],
    request_methods: &[
        RequestMethod::new("elicit", McpMethod::Elicitation, 1, ELICIT_HELP),
        RequestMethod::new("elicit_url", McpMethod::Elicitation, 1, ELICIT_HELP),
        RequestMethod::new("create_message", McpMethod::Sampling, 1, SAMPLING_HELP),
        RequestMethod::new("list_roots", McpMethod::Roots, 0, ROOTS_HELP),
    ],
    raw_send_methods: &[RawSendMethod { name: "request", arity: 2, method_string: true, any_receiver: false }],
    request_enum: "",
    request_names: &[],
    removed: &[],
    handler_traits: &[
        HandlerTrait { name: "ToolHandler", side: Side::Server, mrtr_methods: &["call_tool"], hook_prefix: "on_", request_suffix: "" },
        HandlerTrait { name: "ResourceHandler", side: Side::Server, mrtr_methods: &["read_resource"], hook_prefix: "on_", request_suffix: "" },
        HandlerTrait { name: "PromptHandler", side: Side::Server, mrtr_methods: &["get_prompt"], hook_prefix: "on_", request_suffix: "" },
    ],
    handler_attributes: &[],
    redesign: &[
        (McpMethod::Elicitation, "ask from `call_tool`, `get_prompt` or `read_resource` by returning a hand-built `InputRequiredResult`, or take the value from configuration"),
        (McpMethod::Sampling, "call a model API directly from the server; sampling is deprecated in 2026-07-28 (SEP-2577) and has no MRTR form outside a tool, prompt or resource request"),
        (McpMethod::Roots, "take the directories as a tool parameter or from configuration; roots are deprecated in 2026-07-28 (SEP-2577) and have no MRTR form outside a tool, prompt or resource request"),
    ],
    raw_replacement: RAW_HELP,
};
