//! What else a server loses on 2026-07-28, beyond the three server-to-client requests, per SDK:
//! the data behind the readiness rules (MCP301-MCP304). Sessions, the `initialize` handshake,
//! `ping`, `notifications/roots/list_changed` and `resources/subscribe`/`unsubscribe` are gone;
//! logging, roots and sampling are deprecated (still served, earliest removal 2027-07-28).
//! Sources: `reference/mrtr-spec.md` sections 4.2 and 4.3, `reference/rust-sdks.md` sections 1.8
//! and 2.1, rmcp 3.x's `handler/server.rs` and rust-mcp-sdk's `ServerHandler` and `McpServer`.

use super::Version;
use crate::model::manifest::{Dependency, Package};

/// When a package's dependency on an SDK shows that it serves 2026-07-28: the readiness rules
/// are on by default there.
#[derive(Debug, Clone, Copy)]
pub struct Targets {
    /// From this version on (inclusive); `None`: no version does by itself.
    pub from: Option<Version>,
    /// Features that opt an older version in (neva 0.4's `proto-2026-07-28-rc`, tower-mcp's
    /// `protocol-2026-07-28`).
    pub with_features: &'static [&'static str],
    /// Features that keep the old protocol even from `from` on (neva 0.5's `legacy-spec`).
    pub unless_features: &'static [&'static str],
}

impl Targets {
    pub fn met_by(&self, dep: &Dependency) -> bool {
        if self.unless_features.iter().any(|f| dep.has_feature(f)) {
            return false;
        }
        let by_version = matches!((self.from, dep.version), (Some(f), Some(v)) if v >= f);
        by_version || self.with_features.iter().any(|f| dep.has_feature(f))
    }
}

/// Text that depends on the SDK version: `now` for current releases, `before` below a version
/// whose API the advice needs (rmcp's `context.client_capabilities()` came with 3.0).
#[derive(Debug, Clone, Copy)]
pub struct Advice {
    pub now: &'static str,
    pub before: Option<(Version, &'static str)>,
}

impl Advice {
    pub const fn always(now: &'static str) -> Advice {
        Advice { now, before: None }
    }

    /// The advice for a package on `dep` (no manifest, or no version: the current one).
    pub fn for_dependency(&self, dep: Option<&Dependency>) -> &'static str {
        match (self.before, dep.and_then(|d| d.version)) {
            (Some((v, old)), Some(have)) if have < v => old,
            _ => self.now,
        }
    }
}

/// A feature 2026-07-28 deprecates (SEP-2577): still served, removed on or after 2027-07-28.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deprecated {
    Logging,
    Roots,
    Sampling,
}

impl Deprecated {
    pub fn what(self) -> &'static str {
        match self {
            Deprecated::Logging => "logging (`logging/setLevel`, `notifications/message`)",
            Deprecated::Roots => "roots (`roots/list`)",
            Deprecated::Sampling => "sampling (`sampling/createMessage`)",
        }
    }

    /// The replacement the deprecation registry and the migration guides suggest.
    pub fn replacement(self) -> &'static str {
        match self {
            Deprecated::Logging => {
                "log to stderr (stdio) or to your own telemetry; a client that wants less noise \
no longer sets a level"
            }
            Deprecated::Roots => {
                "take the directories as a tool parameter, a resource URI or configuration"
            }
            Deprecated::Sampling => "call a model provider's API directly from the server",
        }
    }
}

/// The earliest date a deprecated feature may be removed.
pub const EARLIEST_REMOVAL: &str = "2027-07-28";

/// A handler-trait method (an override the server writes) or a method on the server's handle on
/// its client (a call it makes).
#[derive(Debug, Clone, Copy)]
pub struct Item {
    pub name: &'static str,
    /// What it handles or sends, for the message (`ping`, `resources/subscribe`).
    pub wire: &'static str,
    pub help: Advice,
}

/// A method whose override, or call, touches a deprecated feature.
#[derive(Debug, Clone, Copy)]
pub struct DeprecatedItem {
    pub name: &'static str,
    pub feature: Deprecated,
    /// Number of arguments a call takes (ignored for overrides).
    pub arity: usize,
}

/// Streamable HTTP sessions: the configuration that keeps one per client.
#[derive(Debug, Clone, Copy)]
pub struct SessionConfig {
    /// The server's config struct (`StreamableHttpServerConfig`).
    pub types: &'static [&'static str],
    /// Its fields that turn sessions on (`stateful_mode`).
    pub fields: &'static [&'static str],
    /// Builder methods that set them (`with_stateful_mode(true)`).
    pub setters: &'static [&'static str],
}

/// Everything the readiness rules know about one SDK.
#[derive(Debug)]
pub struct SdkReadiness {
    /// The `SdkTable::name` this belongs to.
    pub sdk: &'static str,
    pub targets: Targets,
    /// The server handler trait whose methods below are overrides.
    pub handler_trait: &'static str,
    /// Overrides that run in the handshake (`initialize`, `on_initialized`).
    pub handshake_hooks: &'static [&'static str],
    /// Methods of the server's handle on its client that return what `initialize` said
    /// (`peer_info()`).
    pub handshake_reads: &'static [Item],
    /// The help for work found in a handshake hook.
    pub handshake_help: Advice,
    /// Overrides of methods 2026-07-28 removed (`ping`, `subscribe`).
    pub removed_handlers: &'static [Item],
    /// Calls on the server's handle that send a removed method (`runtime.ping()`).
    pub removed_sends: &'static [Item],
    /// Variants of the SDK's server request enum that are removed (`ServerRequest::PingRequest`).
    pub removed_requests: &'static [Item],
    /// Overrides of deprecated methods (`set_level`).
    pub deprecated_handlers: &'static [DeprecatedItem],
    /// Calls on the server's handle that use a deprecated feature (`notify_logging_message`).
    pub deprecated_sends: &'static [DeprecatedItem],
    /// Builder methods, on any receiver in a file that uses the SDK (`enable_logging()`).
    pub deprecated_builders: &'static [DeprecatedItem],
    /// `InputRequest` variants that embed a deprecated request in an MRTR round.
    pub deprecated_input_requests: &'static [(&'static str, Deprecated)],
    /// The type of an MCP session's id (`SessionId`): a map keyed by it is per-session state.
    pub session_id_types: &'static [&'static str],
    /// Constants naming the `Mcp-Session-Id` header.
    pub session_header_consts: &'static [&'static str],
    pub session_config: SessionConfig,
}

const V3: Version = Version(3, 0, 0);

/// rmcp: `ServerHandler` (3.x keeps the legacy methods for older clients, `#[deprecated]` where
/// 2026-07-28 replaced them), `Peer<RoleServer>`, `StreamableHttpServerConfig`.
pub static RMCP: SdkReadiness = SdkReadiness {
    sdk: "rmcp",
    targets: Targets { from: Some(V3), with_features: &[], unless_features: &[] },
    handler_trait: "ServerHandler",
    handshake_hooks: &["initialize", "on_initialized"],
    handshake_reads: &[
        Item {
            name: "peer_info",
            wire: "the client's `initialize` parameters",
            help: Advice {
                now: "read the request's own `_meta`: `context.client_capabilities()` and \
`context.client_info()` (they fall back to the session only for older clients)",
                before: Some((V3, "upgrade to rmcp 3.x and read `context.client_capabilities()` / \
`context.client_info()`, which come from each request's `_meta` on 2026-07-28")),
            },
        },
        Item {
            name: "supported_elicitation_modes",
            wire: "the elicitation capability declared in `initialize`",
            help: Advice {
                now: "check `context.client_capabilities()` (this request's `_meta`) for \
`elicitation` instead",
                before: Some((V3, "upgrade to rmcp 3.x and check `context.client_capabilities()` \
for `elicitation`")),
            },
        },
        Item {
            name: "supports_elicitation",
            wire: "the elicitation capability declared in `initialize`",
            help: Advice::always("check the request's own client capabilities (rmcp 3.x: \
`context.client_capabilities()`) for `elicitation` instead"),
        },
        Item {
            name: "supports_sampling_tools",
            wire: "the sampling capability declared in `initialize`",
            help: Advice::always("check the request's own client capabilities (rmcp 3.x: \
`context.client_capabilities()`) for `sampling.tools` instead"),
        },
    ],
    handshake_help: Advice {
        now: "do the work lazily, on the first request that needs it, and read what the client \
supports from each request (`context.client_capabilities()`, `context.client_info()`); 2026-07-28 \
clients call `server/discover` (`ServerHandler::discover`) instead of `initialize`",
        before: Some((V3, "do the work lazily, on the first request that needs it; on rmcp 3.x \
read what the client supports from each request (`context.client_capabilities()`)")),
    },
    removed_handlers: &[
        Item {
            name: "ping",
            wire: "`ping`",
            help: Advice::always("nothing replaces it: a 2026-07-28 client never pings; keep the \
override only for older clients, and move health checks to your transport (an HTTP health route)"),
        },
        Item {
            name: "on_roots_list_changed",
            wire: "`notifications/roots/list_changed`",
            help: Advice::always("nothing replaces it: a 2026-07-28 client never sends it; take \
the directories as a tool parameter or configuration, read per request"),
        },
        Item {
            name: "subscribe",
            wire: "`resources/subscribe`",
            help: Advice {
                now: "implement `accepted_subscription_filter` and `listen` (`subscriptions/listen`) \
and send updates through the `SubscriptionContext`",
                before: Some((V3, "upgrade to rmcp 3.x and implement `accepted_subscription_filter` \
and `listen` (`subscriptions/listen`)")),
            },
        },
        Item {
            name: "unsubscribe",
            wire: "`resources/unsubscribe`",
            help: Advice {
                now: "a `subscriptions/listen` stream ends when its request is cancelled: clean up \
when `listen` returns",
                before: Some((V3, "upgrade to rmcp 3.x: a `subscriptions/listen` stream ends when \
its request is cancelled")),
            },
        },
    ],
    removed_sends: &[],
    // Not `ServerRequest::PingRequest`: the catalog holds a ping sent through rmcp's peer as
    // quiet ("not an MRTR concern", MCP004), for every rule.
    removed_requests: &[],
    deprecated_handlers: &[DeprecatedItem { name: "set_level", feature: Deprecated::Logging, arity: 0 }],
    deprecated_sends: &[DeprecatedItem {
        name: "notify_logging_message",
        feature: Deprecated::Logging,
        arity: 1,
    }],
    deprecated_builders: &[DeprecatedItem { name: "enable_logging", feature: Deprecated::Logging, arity: 0 }],
    deprecated_input_requests: &[
        ("CreateMessage", Deprecated::Sampling),
        ("ListRoots", Deprecated::Roots),
    ],
    session_id_types: &["SessionId"],
    session_header_consts: &["HEADER_SESSION_ID"],
    session_config: SessionConfig {
        types: &["StreamableHttpServerConfig"],
        // Only the names before 3.0: 3.x's `legacy_session_mode` keeps sessions for older
        // clients alone, and 2026-07-28 requests are stateless whatever it says.
        fields: &["stateful_mode"],
        setters: &["with_stateful_mode"],
    },
};

/// rust-mcp-sdk (0.2-1.0.1): `ServerHandler` with `handle_*_request` / `handle_*_notification`
/// methods and `on_initialized`; the runtime `Arc<dyn McpServer>`. It has no 2026-07-28 support,
/// so no version targets it: the rules are opt-in there.
pub static RUST_MCP_SDK: SdkReadiness = SdkReadiness {
    sdk: "rust-mcp-sdk",
    targets: Targets {
        from: None,
        with_features: &[],
        unless_features: &[],
    },
    handler_trait: "ServerHandler",
    handshake_hooks: &[
        "on_initialized",
        "handle_initialize_request",
        "handle_initialized_notification",
    ],
    handshake_reads: &[
        Item {
            name: "client_info",
            wire: "the client's `initialize` parameters",
            help: Advice::always(
                "read the client's capabilities from each request's `_meta` \
(`io.modelcontextprotocol/clientCapabilities`); rust-mcp-sdk has no 2026-07-28 API for it yet",
            ),
        },
        Item {
            name: "get_client_info",
            wire: "the client's `initialize` parameters",
            help: Advice::always(
                "read the client's capabilities from each request's `_meta` \
(`io.modelcontextprotocol/clientCapabilities`); rust-mcp-sdk has no 2026-07-28 API for it yet",
            ),
        },
        Item {
            name: "client_supports_sampling",
            wire: "the sampling capability declared in `initialize`",
            help: Advice::always(
                "read `io.modelcontextprotocol/clientCapabilities` from the \
request's `_meta` instead",
            ),
        },
        Item {
            name: "client_supports_root_list",
            wire: "the roots capability declared in `initialize`",
            help: Advice::always(
                "read `io.modelcontextprotocol/clientCapabilities` from the \
request's `_meta` instead",
            ),
        },
    ],
    handshake_help: Advice::always(
        "do the work lazily, on the first request that needs it, and \
read what the client supports from each request's `_meta`; 2026-07-28 clients call \
`server/discover` instead of `initialize`",
    ),
    removed_handlers: &[
        Item {
            name: "handle_ping_request",
            wire: "`ping`",
            help: Advice::always(
                "nothing replaces it: a 2026-07-28 client never pings; keep it \
only for older clients",
            ),
        },
        Item {
            name: "handle_roots_list_changed_notification",
            wire: "`notifications/roots/list_changed`",
            help: Advice::always(
                "nothing replaces it: take the directories as a tool parameter \
or configuration, read per request",
            ),
        },
        Item {
            name: "handle_subscribe_request",
            wire: "`resources/subscribe`",
            help: Advice::always(
                "2026-07-28 replaces it with `subscriptions/listen`, which \
rust-mcp-sdk does not serve yet; keep it for older clients and plan the move",
            ),
        },
        Item {
            name: "handle_unsubscribe_request",
            wire: "`resources/unsubscribe`",
            help: Advice::always(
                "a `subscriptions/listen` stream ends when its request is \
cancelled; rust-mcp-sdk does not serve it yet",
            ),
        },
    ],
    removed_sends: &[Item {
        name: "ping",
        wire: "`ping`",
        help: Advice::always(
            "drop the ping: 2026-07-28 removed it in both directions; a dead \
client shows as a failed or cancelled request",
        ),
    }],
    removed_requests: &[Item {
        name: "PingRequest",
        wire: "`ping`",
        help: Advice::always("drop the ping: 2026-07-28 removed it in both directions"),
    }],
    deprecated_handlers: &[DeprecatedItem {
        name: "handle_set_level_request",
        feature: Deprecated::Logging,
        arity: 0,
    }],
    deprecated_sends: &[
        DeprecatedItem {
            name: "send_logging_message",
            feature: Deprecated::Logging,
            arity: 1,
        },
        DeprecatedItem {
            name: "notify_log_message",
            feature: Deprecated::Logging,
            arity: 1,
        },
    ],
    deprecated_builders: &[],
    deprecated_input_requests: &[],
    session_id_types: &["SessionId"],
    session_header_consts: &[],
    session_config: SessionConfig {
        types: &[],
        fields: &[],
        setters: &[],
    },
};

/// neva: 0.5 (0.4 with `proto-2026-07-28-rc`) serves 2026-07-28 unless `legacy-spec` is on.
pub static NEVA: SdkReadiness = SdkReadiness {
    sdk: "neva",
    targets: Targets {
        from: Some(Version(0, 5, 0)),
        with_features: &["proto-2026-07-28-rc"],
        unless_features: &["legacy-spec"],
    },
    handler_trait: "",
    handshake_hooks: &[],
    handshake_reads: &[],
    handshake_help: Advice::always(""),
    removed_handlers: &[],
    removed_sends: &[],
    removed_requests: &[],
    deprecated_handlers: &[],
    // Its keyed `ctx.sample(key, ..)` and `ctx.list_roots(key)` are the MRTR forms of
    // deprecated requests, and `#[deprecated]` in neva itself: the compiler says so already.
    deprecated_sends: &[],
    deprecated_builders: &[],
    deprecated_input_requests: &[],
    session_id_types: &[],
    session_header_consts: &[],
    session_config: SessionConfig {
        types: &[],
        fields: &[],
        setters: &[],
    },
};

/// turbomcp 4 and tower-mcp (with `protocol-2026-07-28` or `stateless`) serve 2026-07-28; the
/// rules have no API of theirs to match yet, but the package's target decides as for the others.
pub static TURBOMCP: SdkReadiness = SdkReadiness {
    sdk: "turbomcp",
    targets: Targets {
        from: Some(Version(4, 0, 0)),
        with_features: &[],
        unless_features: &[],
    },
    ..EMPTY
};

pub static TOWER_MCP: SdkReadiness = SdkReadiness {
    sdk: "tower-mcp",
    targets: Targets {
        from: None,
        with_features: &["protocol-2026-07-28", "stateless"],
        unless_features: &[],
    },
    ..EMPTY
};

const EMPTY: SdkReadiness = SdkReadiness {
    sdk: "",
    targets: Targets {
        from: None,
        with_features: &[],
        unless_features: &[],
    },
    handler_trait: "",
    handshake_hooks: &[],
    handshake_reads: &[],
    handshake_help: Advice::always(""),
    removed_handlers: &[],
    removed_sends: &[],
    removed_requests: &[],
    deprecated_handlers: &[],
    deprecated_sends: &[],
    deprecated_builders: &[],
    deprecated_input_requests: &[],
    session_id_types: &[],
    session_header_consts: &[],
    session_config: SessionConfig {
        types: &[],
        fields: &[],
        setters: &[],
    },
};

/// Every SDK's readiness data.
pub static READINESS: &[&SdkReadiness] = &[&RMCP, &RUST_MCP_SDK, &NEVA, &TURBOMCP, &TOWER_MCP];

/// The readiness data of the SDK named `sdk` (an `SdkTable::name`).
pub fn of(sdk: &str) -> Option<&'static SdkReadiness> {
    READINESS.iter().copied().find(|r| r.sdk == sdk)
}

/// Whether a package serves 2026-07-28 by what it depends on (rmcp 3.x, neva 0.5, turbomcp 4, tower-mcp
/// with its 2026-07-28 feature): the readiness rules are on by default there.
pub fn package_targets_mrtr(package: &Package) -> bool {
    READINESS.iter().any(|r| {
        super::SDKS
            .iter()
            .find(|t| t.name == r.sdk)
            .and_then(|t| package.dependency_on(t.packages))
            .is_some_and(|d| r.targets.met_by(d))
    })
}

/// A wire method a hand-written dispatcher may still match on (`"ping" => ..`), and what it is.
#[derive(Debug, Clone, Copy)]
pub struct RawMethod {
    pub wire: &'static str,
    pub kind: RawKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RawKind {
    /// The handshake (`initialize`, `notifications/initialized`): MCP302.
    Handshake,
    /// Removed (MCP303), with the help.
    Removed(&'static str),
    /// Deprecated (MCP304).
    Deprecated(Deprecated),
}

/// Methods a hand-written JSON-RPC dispatcher handles that 2026-07-28 removed or deprecated.
pub static RAW_METHODS: &[RawMethod] = &[
    RawMethod { wire: "initialize", kind: RawKind::Handshake },
    RawMethod { wire: "notifications/initialized", kind: RawKind::Handshake },
    RawMethod {
        wire: "ping",
        kind: RawKind::Removed("nothing replaces it: a 2026-07-28 client never pings"),
    },
    RawMethod {
        wire: "notifications/roots/list_changed",
        kind: RawKind::Removed("nothing replaces it: take the directories as a tool parameter or configuration"),
    },
    RawMethod {
        wire: "resources/subscribe",
        kind: RawKind::Removed("serve `subscriptions/listen` (a long-lived request whose notifications carry the updates)"),
    },
    RawMethod {
        wire: "resources/unsubscribe",
        kind: RawKind::Removed("a `subscriptions/listen` stream ends when its request is cancelled"),
    },
    RawMethod { wire: "logging/setLevel", kind: RawKind::Deprecated(Deprecated::Logging) },
];

/// Methods whose arm in the same `match` shows it is an MCP server's dispatcher: a bare `"ping"`
/// arm elsewhere (a websocket, a chat protocol) is not MCP's.
pub const DISPATCH_MARKERS: &[&str] =
    &["tools/call", "tools/list", "resources/read", "prompts/get"];

/// The `Mcp-Session-Id` header, compared without case.
pub const SESSION_HEADER: &str = "mcp-session-id";

#[cfg(test)]
mod tests {
    use super::*;

    fn dep(version: Option<Version>, features: &[&str]) -> Dependency {
        Dependency {
            name: "x".into(),
            package: "x".into(),
            requirement: None,
            version,
            version_source: None,
            features: features.iter().map(|f| f.to_string()).collect(),
            default_features: true,
            dev_only: false,
        }
    }

    #[test]
    fn targets_read_versions_and_features() {
        assert!(RMCP.targets.met_by(&dep(Some(Version(3, 1, 4)), &[])));
        assert!(!RMCP.targets.met_by(&dep(Some(Version(2, 2, 0)), &[])));
        assert!(
            !RMCP.targets.met_by(&dep(None, &[])),
            "unknown version: not shown to target it"
        );
        assert!(NEVA
            .targets
            .met_by(&dep(Some(Version(0, 4, 0)), &["proto-2026-07-28-rc"])));
        assert!(!NEVA
            .targets
            .met_by(&dep(Some(Version(0, 5, 4)), &["legacy-spec"])));
        assert!(!RUST_MCP_SDK
            .targets
            .met_by(&dep(Some(Version(1, 0, 1)), &[])));
        assert!(TOWER_MCP
            .targets
            .met_by(&dep(Some(Version(0, 21, 0)), &["stateless"])));
    }

    #[test]
    fn advice_follows_the_version() {
        let a = RMCP.handshake_reads[0].help;
        assert!(a
            .for_dependency(Some(&dep(Some(Version(2, 0, 0)), &[])))
            .starts_with("upgrade"));
        assert!(a
            .for_dependency(Some(&dep(Some(Version(3, 0, 0)), &[])))
            .starts_with("read"));
        assert!(a.for_dependency(None).starts_with("read"));
    }

    #[test]
    fn every_entry_names_a_known_sdk() {
        for r in READINESS {
            assert!(
                super::super::SDKS.iter().any(|t| t.name == r.sdk),
                "{}",
                r.sdk
            );
        }
    }
}
