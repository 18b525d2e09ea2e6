//! neva (crate `neva`). Up to 0.3 (and 0.4 without `proto-2026-07-28-rc`, and 0.5+ with
//! `legacy-spec`) `neva::Context` sends `elicit(params)`, `sample(params)` and `list_roots()` to
//! the client. From 0.5 (0.4 with the feature) the same names take a key first and are the MRTR
//! API: `ctx.elicit(key, params)` replays the answer on the retry. The keyed calls have another
//! arity, so they never match these entries. `reference/rust-sdks.md` section 2.4.

use super::{Legacy, McpMethod, PeerType, RequestMethod, RoleSource, SdkTable, Side, Version};

const ELICIT_HELP: &str =
    "upgrade neva to 0.5 and pass a key: `ctx.elicit(\"key\", params).await?` \
is the MRTR API (it returns the answer on the client's retry); on 0.4 turn on the \
`proto-2026-07-28-rc` feature, on 0.5+ drop `legacy-spec`";

const SAMPLING_HELP: &str =
    "upgrade neva to 0.5 and pass a key: `ctx.sample(\"key\", params).await?`; \
sampling is deprecated in 2026-07-28 (SEP-2577), so prefer calling a model API directly";

const ROOTS_HELP: &str =
    "upgrade neva to 0.5 and pass a key: `ctx.list_roots(\"key\").await?`; roots \
are deprecated in 2026-07-28 (SEP-2577), so prefer a tool parameter or configuration";

const RAW_HELP: &str = "upgrade neva to 0.5 and use the keyed `ctx.elicit(key, ..)`, \
`ctx.sample(key, ..)` or `ctx.list_roots(key)`";

/// Legacy below 0.5 unless 0.4's opt-in feature is on; legacy again with 0.5's `legacy-spec`.
const UNKEYED: Legacy = Legacy::until(Version(0, 5, 0))
    .unless(&["proto-2026-07-28-rc"])
    .with(&["legacy-spec"]);

pub static NEVA: SdkTable = SdkTable {
    name: "neva",
    crates: &["neva"],
    packages: &["neva"],
    bare_names: false,
    version_in_message: true,
    roles: &[],
    peer_types: &[PeerType { name: "Context", role: RoleSource::Fixed(Side::Server) }],
    context_types: &[],
    receiver_name_hint: "ctx",
    serve_functions: &[],
    serve_methods: &[],
    request_methods: &[
        RequestMethod::new("elicit", McpMethod::Elicitation, 1, ELICIT_HELP).when(UNKEYED),
        RequestMethod::new("sample", McpMethod::Sampling, 1, SAMPLING_HELP).when(UNKEYED),
        RequestMethod::new("list_roots", McpMethod::Roots, 0, ROOTS_HELP).when(UNKEYED),
    ],
    raw_send_methods: &[],
    request_enum: "",
    request_names: &[],
    removed: &[],
    handler_traits: &[],
    handler_attributes: &["resource"],
    redesign: &[
        (McpMethod::Elicitation, "ask from a `#[tool]`, `#[prompt]` or `#[resource]` handler with neva 0.5's keyed `ctx.elicit(key, params)`, or take the value from configuration"),
        (McpMethod::Sampling, "call a model API directly from the server; sampling is deprecated in 2026-07-28 (SEP-2577) and has no MRTR form outside a tool, prompt or resource request"),
        (McpMethod::Roots, "take the directories as a tool parameter or from configuration; roots are deprecated in 2026-07-28 (SEP-2577) and have no MRTR form outside a tool, prompt or resource request"),
    ],
    raw_replacement: RAW_HELP,
};
