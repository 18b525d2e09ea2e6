//! pmcp (crate `pmcp`), 1.x and 2.0: elicitation goes through an `ElicitationManager` the handler
//! holds itself, roots through `RootsManager`; the per-request `RequestHandlerExtra` carries no
//! peer. pmcp 1.x named the elicitation method `elicitation/elicitInput` (not the spec's). No MRTR
//! API up to 2.0.3. `reference/rust-sdks.md` section 2.2.

use super::{
    HandlerTrait, Legacy, McpMethod, PeerType, RawSendMethod, RequestMethod, RequestName,
    RoleSource, SdkTable, Side, Version, PMCP1_ELICIT_WIRE,
};

const ELICIT_HELP: &str = "pmcp has no MRTR API yet (up to 2.0.3): return a hand-built \
`InputRequiredResult` from the tool (`resultType: \"input_required\"`, the elicitation in \
`inputRequests`, a sealed `requestState`) and read `inputResponses` when the client retries, or \
move the handler to rmcp 3.x and write it with `#[mrtr_handler]`";

const ELICIT_V1_HELP: &str = "pmcp 1.x sends the non-spec `elicitation/elicitInput`, which no \
2026-07-28 client answers: upgrade pmcp to 2.x for `elicitation/create`, and since pmcp has no \
MRTR API yet, return a hand-built `InputRequiredResult` with the elicitation in `inputRequests` \
(or move the handler to rmcp 3.x with `#[mrtr_handler]`)";

const ROOTS_HELP: &str = "pmcp has no MRTR API yet (up to 2.0.3): take the directories as a \
tool parameter or from configuration (roots are deprecated in 2026-07-28, SEP-2577), or return a \
hand-built `InputRequiredResult` with a `roots/list` entry in `inputRequests`";

const RAW_HELP: &str = "pmcp has no MRTR API yet (up to 2.0.3): put the request in the \
`inputRequests` map of a hand-built `InputRequiredResult` returned from the handler instead of \
sending a `ServerRequest`";

const V2: Version = Version(2, 0, 0);

pub static PMCP: SdkTable = SdkTable {
    name: "pmcp",
    crates: &["pmcp"],
    packages: &["pmcp"],
    bare_names: false,
    version_in_message: true,
    roles: &[],
    peer_types: &[
        PeerType { name: "ElicitationManager", role: RoleSource::Fixed(Side::Server) },
        PeerType { name: "ElicitationContext", role: RoleSource::Fixed(Side::Server) },
        PeerType { name: "RootsManager", role: RoleSource::Fixed(Side::Server) },
    ],
    context_types: &[],
    receiver_name_hint: "elicitation",
    serve_functions: &[],
    serve_methods: &[],
    request_methods: &[
        RequestMethod::new("elicit_input", McpMethod::Elicitation, 1, ELICIT_V1_HELP)
            .when(Legacy::until(V2))
            .sent_as(PMCP1_ELICIT_WIRE),
        RequestMethod::new("elicit_input", McpMethod::Elicitation, 1, ELICIT_HELP).when(Legacy { from: Some(V2), ..Legacy::ALWAYS }),
        RequestMethod::new("request_client_roots", McpMethod::Roots, 1, ROOTS_HELP),
    ],
    raw_send_methods: &[
        RawSendMethod { name: "send_request", arity: 1, method_string: false, any_receiver: true },
        RawSendMethod { name: "send", arity: 1, method_string: false, any_receiver: true },
        RawSendMethod { name: "try_send", arity: 1, method_string: false, any_receiver: true },
        RawSendMethod { name: "unbounded_send", arity: 1, method_string: false, any_receiver: true },
    ],
    request_enum: "ServerRequest",
    request_names: &[
        RequestName { name: "CreateMessage", sends: McpMethod::Sampling },
        RequestName { name: "ListRoots", sends: McpMethod::Roots },
        RequestName { name: "ElicitationCreate", sends: McpMethod::Elicitation },
        // pmcp 1.x: `ServerRequest::ElicitInput`, sent as `elicitation/elicitInput`.
        RequestName { name: "ElicitInput", sends: McpMethod::Elicitation },
        RequestName { name: "ElicitInputRequest", sends: McpMethod::Elicitation },
    ],
    removed: &[],
    handler_traits: &[
        HandlerTrait { name: "ToolHandler", side: Side::Server, mrtr_methods: &["handle"], hook_prefix: "on_", request_suffix: "" },
        HandlerTrait { name: "PromptHandler", side: Side::Server, mrtr_methods: &["handle"], hook_prefix: "on_", request_suffix: "" },
        HandlerTrait { name: "ResourceHandler", side: Side::Server, mrtr_methods: &["read"], hook_prefix: "on_", request_suffix: "" },
        // Answers sampling for the server's own clients: it never sends the request.
        HandlerTrait { name: "SamplingHandler", side: Side::Client, mrtr_methods: &[], hook_prefix: "on_", request_suffix: "" },
    ],
    handler_attributes: &["mcp_tool", "mcp_prompt", "resource"],
    redesign: &[
        (McpMethod::Elicitation, "ask from a `ToolHandler::handle`, `PromptHandler::handle` or `ResourceHandler::read` by returning a hand-built `InputRequiredResult`, or take the value from configuration"),
        (McpMethod::Sampling, "call a model API directly from the server; sampling is deprecated in 2026-07-28 (SEP-2577) and has no MRTR form outside a tool, prompt or resource request"),
        (McpMethod::Roots, "take the directories as a tool parameter or from configuration; roots are deprecated in 2026-07-28 (SEP-2577) and have no MRTR form outside a tool, prompt or resource request"),
    ],
    raw_replacement: RAW_HELP,
};
