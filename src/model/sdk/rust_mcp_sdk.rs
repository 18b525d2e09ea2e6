//! rust-mcp-sdk (crates `rust-mcp-sdk`, `rust-mcp-schema`), 0.2 to 1.0.1: the server's handle on
//! its client is the runtime, `Arc<dyn McpServer>` (0.7+) or `&dyn McpServer` (0.2-0.6). The SDK
//! has no MRTR API yet (its roadmap lists SEP-2322 as open). `reference/rust-sdks.md` section 2.1.

use super::{
    HandlerTrait, Legacy, McpMethod, PeerType, RawSendMethod, RequestMethod, RequestName,
    RoleSource, SdkTable, Side, Version,
};

const ELICIT_HELP: &str = "rust-mcp-sdk has no MRTR API yet (up to 1.0.1): answer \
`tools/call` with a hand-built `InputRequiredResult` (`resultType: \"input_required\"`, the \
elicitation in `inputRequests`, a sealed `requestState`) and read `inputResponses` on the retry, \
or move the handler to rmcp 3.x and write it with `#[mrtr_handler]`";

const SAMPLING_HELP: &str = "rust-mcp-sdk has no MRTR API yet (up to 1.0.1): call a model API \
from the server (sampling is deprecated in 2026-07-28, SEP-2577), or hand-build an \
`InputRequiredResult` with a `sampling/createMessage` entry in `inputRequests`, or move the \
handler to rmcp 3.x with `#[mrtr_handler]`";

const ROOTS_HELP: &str = "rust-mcp-sdk has no MRTR API yet (up to 1.0.1): take the directories \
as a tool parameter or from configuration (roots are deprecated in 2026-07-28, SEP-2577), or \
hand-build an `InputRequiredResult` with a `roots/list` entry in `inputRequests`";

const RAW_HELP: &str = "rust-mcp-sdk has no MRTR API yet (up to 1.0.1): put the request in the \
`inputRequests` map of a hand-built `InputRequiredResult` returned from the handler instead of \
sending it";

const V0_8: Version = Version(0, 8, 0);

pub static RUST_MCP_SDK: SdkTable = SdkTable {
    name: "rust-mcp-sdk",
    crates: &["rust_mcp_sdk", "rust_mcp_schema"],
    packages: &["rust-mcp-sdk", "rust-mcp-schema"],
    bare_names: false,
    version_in_message: true,
    roles: &[],
    peer_types: &[
        // `runtime: Arc<dyn McpServer>`: the trait object is the server's handle on its client.
        PeerType { name: "McpServer", role: RoleSource::Fixed(Side::Server) },
        PeerType { name: "ServerRuntime", role: RoleSource::Fixed(Side::Server) },
        PeerType { name: "McpClient", role: RoleSource::Fixed(Side::Client) },
        PeerType { name: "ClientRuntime", role: RoleSource::Fixed(Side::Client) },
    ],
    context_types: &[],
    receiver_name_hint: "runtime",
    serve_functions: &[],
    serve_methods: &[],
    request_methods: &[
        RequestMethod::new("request_elicitation", McpMethod::Elicitation, 1, ELICIT_HELP),
        RequestMethod::new("request_elicitation_task", McpMethod::Elicitation, 1, ELICIT_HELP),
        RequestMethod::new("request_message_creation", McpMethod::Sampling, 1, SAMPLING_HELP),
        RequestMethod::new("request_root_list", McpMethod::Roots, 1, ROOTS_HELP),
        // Deprecated in 0.8; `elicit_input(message, schema)` in 0.7, `elicit_input(params)` after.
        RequestMethod::new("elicit_input", McpMethod::Elicitation, 2, ELICIT_HELP).when(Legacy::until(V0_8)),
        RequestMethod::new("elicit_input", McpMethod::Elicitation, 1, ELICIT_HELP).when(Legacy { from: Some(V0_8), ..Legacy::ALWAYS }),
        RequestMethod::new("create_message", McpMethod::Sampling, 1, SAMPLING_HELP),
        RequestMethod::new("list_roots", McpMethod::Roots, 1, ROOTS_HELP),
    ],
    raw_send_methods: &[
        RawSendMethod::peer("request", 2),
        // `runtime.send(MessageFromServer::RequestFromServer(RequestFromServer::..(..)), ..)`.
        RawSendMethod::peer("send", 2),
        RawSendMethod::peer("send", 3),
    ],
    request_enum: "RequestFromServer",
    request_names: &[
        RequestName { name: "ElicitRequest", sends: McpMethod::Elicitation },
        RequestName { name: "CreateMessageRequest", sends: McpMethod::Sampling },
        RequestName { name: "ListRootsRequest", sends: McpMethod::Roots },
    ],
    removed: &[],
    handler_traits: &[
        HandlerTrait {
            name: "ServerHandler",
            side: Side::Server,
            mrtr_methods: &["handle_call_tool_request", "handle_get_prompt_request", "handle_read_resource_request"],
            hook_prefix: "on_",
            request_suffix: "_request",
        },
        HandlerTrait {
            name: "ServerHandlerCore",
            side: Side::Server,
            // One method for every request: it may be a `tools/call`.
            mrtr_methods: &["handle_request"],
            hook_prefix: "on_",
            request_suffix: "",
        },
        HandlerTrait { name: "ClientHandler", side: Side::Client, mrtr_methods: &[], hook_prefix: "on_", request_suffix: "" },
        HandlerTrait { name: "ClientHandlerCore", side: Side::Client, mrtr_methods: &[], hook_prefix: "on_", request_suffix: "" },
    ],
    handler_attributes: &[],
    redesign: &[
        (McpMethod::Elicitation, "ask from `handle_call_tool_request`, `handle_get_prompt_request` or `handle_read_resource_request` by returning a hand-built `InputRequiredResult`, or take the value from configuration"),
        (McpMethod::Sampling, "call a model API directly from the server; sampling is deprecated in 2026-07-28 (SEP-2577) and has no MRTR form outside a tool, prompt or resource request"),
        (McpMethod::Roots, "take the directories as a tool parameter or from configuration; roots are deprecated in 2026-07-28 (SEP-2577) and have no MRTR form outside a tool, prompt or resource request"),
    ],
    raw_replacement: RAW_HELP,
};
