//! turbomcp (crates `turbomcp`, `turbomcp-server`, `turbomcp-core`, `turbomcp-protocol`). 2.x sends
//! through `RequestContext`/`Context` (`elicit`, `create_message`, `list_roots`), 3.x through
//! `RequestContext` (`sample`, `elicit_form`, `elicit_url`). 4.0 replaced both with the keyed MRTR
//! client `ctx.client.elicit(key, ..)` on `CallToolContext` and friends, which is not flagged.
//! `reference/rust-sdks.md` section 2.3.

use super::{
    HandlerTrait, Legacy, McpMethod, PeerType, RequestMethod, RoleSource, SdkTable, Side, Version,
};

const ELICIT_HELP: &str = "upgrade turbomcp to 4.x and ask through the keyed MRTR client: \
`ctx.client.elicit(\"key\", ElicitParams::new(message, schema)).await?` on the `CallToolContext` \
(the handler is re-run with the answer on the client's retry; keep state with \
`ctx.client.store_state`/`load_state`)";

const ELICIT_URL_HELP: &str = "upgrade turbomcp to 4.x and ask through the keyed MRTR client: \
`ctx.client.elicit_url(\"key\", ElicitUrlParams { .. }).await?`";

const SAMPLING_HELP: &str = "upgrade turbomcp to 4.x and use `ctx.client.create_message(\"key\", \
params).await?` (deprecated there too: sampling is deprecated in 2026-07-28, SEP-2577, so prefer \
calling a model API directly)";

const ROOTS_HELP: &str = "upgrade turbomcp to 4.x and use `ctx.client.list_roots(\"key\").await?` \
(deprecated there too: roots are deprecated in 2026-07-28, SEP-2577, so prefer a tool parameter \
or configuration)";

const RAW_HELP: &str = "upgrade turbomcp to 4.x and ask through `ctx.client` (`elicit`, \
`create_message`, `list_roots`, each with a stable key)";

const V3: Version = Version(3, 0, 0);
const V4: Version = Version(4, 0, 0);
const V2_LINE: Legacy = Legacy::until(V3);
const V3_LINE: Legacy = Legacy::between(V3, V4);

pub static TURBOMCP: SdkTable = SdkTable {
    name: "turbomcp",
    crates: &["turbomcp", "turbomcp_server", "turbomcp_core", "turbomcp_protocol"],
    packages: &["turbomcp", "turbomcp-server", "turbomcp-core", "turbomcp-protocol"],
    bare_names: false,
    version_in_message: true,
    roles: &[],
    peer_types: &[
        PeerType { name: "RequestContext", role: RoleSource::Fixed(Side::Server) },
        PeerType { name: "Context", role: RoleSource::Fixed(Side::Server) },
    ],
    context_types: &[],
    receiver_name_hint: "ctx",
    serve_functions: &[],
    serve_methods: &[],
    request_methods: &[
        // 2.x: `SamplingExt for RequestContext` and `Context`.
        RequestMethod::new("elicit", McpMethod::Elicitation, 1, ELICIT_HELP).when(V2_LINE),
        RequestMethod::new("create_message", McpMethod::Sampling, 1, SAMPLING_HELP).when(V2_LINE),
        RequestMethod::new("list_roots", McpMethod::Roots, 0, ROOTS_HELP).when(V2_LINE),
        // 3.x: `turbomcp_core::context::RequestContext`.
        RequestMethod::new("sample", McpMethod::Sampling, 1, SAMPLING_HELP).when(V3_LINE),
        RequestMethod::new("elicit_form", McpMethod::Elicitation, 2, ELICIT_HELP).when(V3_LINE),
        RequestMethod::new("elicit_url", McpMethod::Elicitation, 3, ELICIT_URL_HELP).when(V3_LINE),
    ],
    raw_send_methods: &[],
    request_enum: "",
    request_names: &[],
    removed: &[],
    handler_traits: &[
        HandlerTrait { name: "WithTools", side: Side::Server, mrtr_methods: &["call_tool"], hook_prefix: "on_", request_suffix: "" },
        HandlerTrait { name: "WithResources", side: Side::Server, mrtr_methods: &["read_resource"], hook_prefix: "on_", request_suffix: "" },
        HandlerTrait { name: "WithPrompts", side: Side::Server, mrtr_methods: &["get_prompt"], hook_prefix: "on_", request_suffix: "" },
    ],
    handler_attributes: &["resource"],
    redesign: &[
        (McpMethod::Elicitation, "ask from a `#[tool]`, `#[prompt]` or `#[resource]` handler through turbomcp 4's `ctx.client.elicit(key, ..)`, or take the value from configuration"),
        (McpMethod::Sampling, "call a model API directly from the server; sampling is deprecated in 2026-07-28 (SEP-2577) and has no MRTR form outside a tool, prompt or resource request"),
        (McpMethod::Roots, "take the directories as a tool parameter or from configuration; roots are deprecated in 2026-07-28 (SEP-2577) and have no MRTR form outside a tool, prompt or resource request"),
    ],
    raw_replacement: RAW_HELP,
};
