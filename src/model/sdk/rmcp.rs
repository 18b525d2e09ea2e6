//! rmcp, the official Rust SDK (crate `rmcp`, 0.1 to 3.x). Sources: rmcp's `service.rs`,
//! `service/server.rs` and `handler/server.rs`, summarised in `reference/rust-sdks.md` section 1.

use super::{
    ContextType, HandlerTrait, McpMethod, PeerType, RawSendMethod, RemovedApi, RequestMethod,
    RequestName, RoleSource, SdkTable, Side,
};

const ELICIT_HELP: &str = "return an `InputRequiredResult` whose `inputRequests` holds an \
`InputRequest::Elicitation(..)` and resume from `requestState` on the retry, or write the handler \
with `#[mrtr_handler]` and ask with `mrtr.elicit::<T>(..).await`";

const ELICIT_URL_HELP: &str = "return an `InputRequiredResult` whose `inputRequests` holds a \
URL-mode elicitation (`ElicitRequestParams::UrlElicitationParams`) and resume from \
`requestState`, or use `#[mrtr_handler]` with `mrtr.elicit_url(..).await`";

const SAMPLING_HELP: &str =
    "return an `InputRequiredResult` with an `InputRequest::CreateMessage(..)`, \
or use `#[mrtr_handler]` with `mrtr.sample(..).await`; sampling is deprecated in 2026-07-28 \
(SEP-2577), so prefer calling a model API directly";

const ROOTS_HELP: &str = "return an `InputRequiredResult` with an \
`InputRequest::ListRoots(ListRootsRequest::default())`, or use `#[mrtr_handler]` with \
`mrtr.list_roots().await`; roots are deprecated in 2026-07-28 (SEP-2577), so prefer a tool \
parameter or configuration";

const RAW_HELP: &str = "build the request as an `InputRequest` inside an `InputRequiredResult` \
returned from the handler, or use `#[mrtr_handler]`";

pub static RMCP: SdkTable = SdkTable {
    name: "rmcp",
    crates: &["rmcp"],
    packages: &["rmcp"],
    bare_names: true,
    version_in_message: false,
    roles: &[("RoleServer", Side::Server), ("RoleClient", Side::Client)],
    peer_types: &[
        PeerType {
            name: "Peer",
            role: RoleSource::FirstGeneric,
        },
        PeerType {
            name: "RunningService",
            role: RoleSource::FirstGeneric,
        },
        // `ClientSink` is the server's handle on its client; `ServerSink` the reverse.
        PeerType {
            name: "ClientSink",
            role: RoleSource::Fixed(Side::Server),
        },
        PeerType {
            name: "ServerSink",
            role: RoleSource::Fixed(Side::Client),
        },
    ],
    context_types: &[
        ContextType {
            name: "RequestContext",
            role: RoleSource::FirstGeneric,
            peer_fields: &["peer"],
            context_members: &[],
        },
        ContextType {
            name: "NotificationContext",
            role: RoleSource::FirstGeneric,
            peer_fields: &["peer"],
            context_members: &[],
        },
        ContextType {
            name: "ToolCallContext",
            role: RoleSource::Fixed(Side::Server),
            peer_fields: &[],
            context_members: &["request_context"],
        },
        ContextType {
            name: "PromptContext",
            role: RoleSource::Fixed(Side::Server),
            peer_fields: &[],
            context_members: &["context"],
        },
        ContextType {
            name: "SubscriptionContext",
            role: RoleSource::Fixed(Side::Server),
            peer_fields: &[],
            context_members: &["request_context"],
        },
    ],
    receiver_name_hint: "peer",
    serve_functions: &[
        ("serve_server", Side::Server),
        ("serve_client", Side::Client),
    ],
    serve_methods: &["serve", "serve_with_ct"],
    request_methods: &[
        RequestMethod::new("create_elicitation", McpMethod::Elicitation, 1, ELICIT_HELP),
        RequestMethod::new(
            "create_elicitation_with_timeout",
            McpMethod::Elicitation,
            2,
            ELICIT_HELP,
        ),
        RequestMethod::new("elicit", McpMethod::Elicitation, 1, ELICIT_HELP).optional_turbofish(),
        RequestMethod::new(
            "elicit_with_timeout",
            McpMethod::Elicitation,
            2,
            ELICIT_HELP,
        )
        .optional_turbofish(),
        RequestMethod::new("elicit_url", McpMethod::Elicitation, 3, ELICIT_URL_HELP),
        RequestMethod::new(
            "elicit_url_with_timeout",
            McpMethod::Elicitation,
            4,
            ELICIT_URL_HELP,
        ),
        RequestMethod::new("create_message", McpMethod::Sampling, 1, SAMPLING_HELP),
        RequestMethod::new("list_roots", McpMethod::Roots, 0, ROOTS_HELP),
    ],
    raw_send_methods: &[
        RawSendMethod::peer("send_request", 1),
        RawSendMethod::peer("send_request_with_option", 2),
        RawSendMethod::peer("send_cancellable_request", 2),
    ],
    request_enum: "ServerRequest",
    request_names: &[
        RequestName {
            name: "CreateMessageRequest",
            sends: McpMethod::Sampling,
        },
        RequestName {
            name: "ListRootsRequest",
            sends: McpMethod::Roots,
        },
        // 0.6 to 1.x spelling, and the 2.x+ one.
        RequestName {
            name: "CreateElicitationRequest",
            sends: McpMethod::Elicitation,
        },
        RequestName {
            name: "ElicitRequest",
            sends: McpMethod::Elicitation,
        },
    ],
    removed: &[
        RemovedApi {
            name: "url_elicitation_required",
            what: "the URL-elicitation-required error (-32042)",
            sends: None,
            replacement: "return an `InputRequiredResult` carrying a URL-mode elicitation \
(`ElicitRequestParams::UrlElicitationParams`); rmcp 3.0 removed this constructor",
        },
        RemovedApi {
            name: "URL_ELICITATION_REQUIRED",
            what: "the URL-elicitation-required error code (-32042)",
            sends: None,
            replacement: "return an `InputRequiredResult` carrying a URL-mode elicitation \
(`ElicitRequestParams::UrlElicitationParams`); rmcp 3.0 removed this error code",
        },
        RemovedApi {
            name: "notify_url_elicitation_completed",
            what: "the `notifications/elicitation/complete` notification",
            sends: None,
            replacement:
                "drop the notification: with MRTR the client retries the request once the \
URL flow is done, and `requestState` carries what the server must remember",
        },
        RemovedApi {
            name: "ElicitationResponseNotificationParam",
            what: "the parameters of `notifications/elicitation/complete`",
            sends: None,
            replacement:
                "drop the notification: with MRTR the client retries the request once the \
URL flow is done, and `requestState` carries what the server must remember",
        },
    ],
    handler_traits: &[
        HandlerTrait {
            name: "ServerHandler",
            side: Side::Server,
            mrtr_methods: &["call_tool", "get_prompt", "read_resource"],
            hook_prefix: "on_",
            request_suffix: "",
        },
        HandlerTrait {
            name: "ClientHandler",
            side: Side::Client,
            mrtr_methods: &[],
            hook_prefix: "on_",
            request_suffix: "",
        },
    ],
    handler_attributes: &["tool", "prompt"],
    redesign: &[
        (
            McpMethod::Elicitation,
            "ask from a `tools/call`, `prompts/get` or `resources/read` handler by returning an \
`InputRequiredResult`, or take the value from configuration",
        ),
        (
            McpMethod::Sampling,
            "call a model API directly from the server; sampling is deprecated in 2026-07-28 \
(SEP-2577) and has no MRTR form outside a tool, prompt or resource request",
        ),
        (
            McpMethod::Roots,
            "take the directories as a tool parameter or from configuration; roots are deprecated \
in 2026-07-28 (SEP-2577) and have no MRTR form outside a tool, prompt or resource request",
        ),
    ],
    raw_replacement: RAW_HELP,
};

/// The raw-request help is shared by every raw send of this SDK.
pub const RAW_REQUEST_HELP: &str = RAW_HELP;
