//! tower-mcp (crates `tower-mcp`, `tower-mcp-types`), 0.21: `RequestContext` sends `sample`,
//! `elicit_form`, `elicit_url`, `confirm` and `request_raw(method, value)`; all fail on a
//! 2026-07-28 connection. Its MRTR API is the `mrtr_handler` builder returning
//! `RequestOutcome::input_required(..)`. `reference/rust-sdks.md` section 2.5.

use super::{McpMethod, PeerType, RawSendMethod, RequestMethod, RoleSource, SdkTable, Side};

const ELICIT_HELP: &str = "register the tool with `.mrtr_handler(..)` (feature \
`protocol-2026-07-28`) and return `RequestOutcome::input_required(InputRequiredResult::new()\
.with_requests(..))` holding an `InputRequest::Elicit(..)`; read the answer from \
`ctx.input_responses()` and your state from `ctx.request_state()` (sealed with \
`RequestStateCodec`) on the retry";

const SAMPLING_HELP: &str = "register the tool with `.mrtr_handler(..)` and return \
`RequestOutcome::input_required(..)` holding an `InputRequest::CreateMessage(..)`; sampling is \
deprecated in 2026-07-28 (SEP-2577), so prefer calling a model API directly";

const RAW_HELP: &str = "register the tool with `.mrtr_handler(..)` and return \
`RequestOutcome::input_required(InputRequiredResult::new().with_requests(..))` instead of \
sending the request";

pub static TOWER_MCP: SdkTable = SdkTable {
    name: "tower-mcp",
    crates: &["tower_mcp", "tower_mcp_types"],
    packages: &["tower-mcp", "tower-mcp-types"],
    bare_names: false,
    version_in_message: true,
    roles: &[],
    peer_types: &[PeerType { name: "RequestContext", role: RoleSource::Fixed(Side::Server) }],
    context_types: &[],
    receiver_name_hint: "ctx",
    serve_functions: &[],
    serve_methods: &[],
    request_methods: &[
        RequestMethod::new("sample", McpMethod::Sampling, 1, SAMPLING_HELP),
        RequestMethod::new("elicit_form", McpMethod::Elicitation, 1, ELICIT_HELP),
        RequestMethod::new("elicit_url", McpMethod::Elicitation, 1, ELICIT_HELP),
        RequestMethod::new("confirm", McpMethod::Elicitation, 1, ELICIT_HELP),
    ],
    raw_send_methods: &[RawSendMethod { name: "request_raw", arity: 2, method_string: true, any_receiver: false }],
    request_enum: "",
    request_names: &[],
    removed: &[],
    handler_traits: &[],
    handler_attributes: &[],
    redesign: &[
        (McpMethod::Elicitation, "ask from a tool, prompt or resource registered with `.mrtr_handler(..)` by returning `RequestOutcome::input_required(..)`, or take the value from configuration"),
        (McpMethod::Sampling, "call a model API directly from the server; sampling is deprecated in 2026-07-28 (SEP-2577) and has no MRTR form outside a tool, prompt or resource request"),
        (McpMethod::Roots, "take the directories as a tool parameter or from configuration; roots are deprecated in 2026-07-28 (SEP-2577) and have no MRTR form outside a tool, prompt or resource request"),
    ],
    raw_replacement: RAW_HELP,
};
