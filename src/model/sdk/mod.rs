//! What the linter knows about each MCP SDK, as data.
//!
//! Rules never hard-code an SDK's type or method names: they look them up here. Adding an SDK
//! (turbomcp, neva, pmcp, ...) means adding one more [`SdkTable`] to [`SDKS`]; the engine's scope
//! model classifies receivers with every table, and the request rules match every table's methods.

pub mod annotated_content;
pub mod mcp_attr;
pub mod mcpkit;
pub mod neva;
pub mod pmcp;
pub mod prism;
pub mod raw;
pub mod readiness;
pub mod rmcp;
pub mod rmcp_structs;
pub mod rmcp_upgrade;
pub mod rust_mcp_sdk;
pub mod tower_mcp;
pub mod turbomcp;

use crate::model::manifest::Dependency;
pub use crate::model::manifest::Version;

/// The three server-to-client requests that 2026-07-28 replaces with `InputRequiredResult`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum McpMethod {
    Elicitation,
    Sampling,
    Roots,
}

impl McpMethod {
    pub const ALL: [McpMethod; 3] = [
        McpMethod::Elicitation,
        McpMethod::Sampling,
        McpMethod::Roots,
    ];

    /// The JSON-RPC method name on the wire.
    pub fn wire(self) -> &'static str {
        match self {
            McpMethod::Elicitation => "elicitation/create",
            McpMethod::Sampling => "sampling/createMessage",
            McpMethod::Roots => "roots/list",
        }
    }

    /// The method a wire name stands for. pmcp 1.x sent elicitations as the non-spec
    /// `elicitation/elicitInput`; it is still an elicitation.
    pub fn from_wire(s: &str) -> Option<McpMethod> {
        if s == PMCP1_ELICIT_WIRE {
            return Some(McpMethod::Elicitation);
        }
        McpMethod::ALL.into_iter().find(|m| m.wire() == s)
    }

    /// The catalog code of the "legacy request" rule for this method (MCP001..MCP003).
    pub fn legacy_code(self) -> &'static str {
        match self {
            McpMethod::Elicitation => "MCP001",
            McpMethod::Sampling => "MCP002",
            McpMethod::Roots => "MCP003",
        }
    }
}

/// pmcp 1.x's own name for `elicitation/create`.
pub const PMCP1_ELICIT_WIRE: &str = "elicitation/elicitInput";

/// Every wire name [`McpMethod::from_wire`] takes: a constant holding one names a request.
pub const LEGACY_WIRES: &[&str] = &[
    "elicitation/create",
    "sampling/createMessage",
    "roots/list",
    PMCP1_ELICIT_WIRE,
];

/// The SDK versions (and features) under which a request method is the legacy API. Outside them
/// the same call is either the MRTR API (neva 0.5's keyed `ctx.elicit(key, params)`) or does not
/// exist, and the rules stay quiet. With no manifest, or no version in it, every entry applies
/// and the rules decide from syntax alone.
#[derive(Debug, Clone, Copy)]
pub struct Legacy {
    /// First version with the legacy call (inclusive).
    pub from: Option<Version>,
    /// First version without it (exclusive).
    pub until: Option<Version>,
    /// Features that turn the MRTR API on inside the range (neva 0.4's `proto-2026-07-28-rc`).
    pub unless_features: &'static [&'static str],
    /// Features that keep the legacy call beyond the range (neva 0.5's `legacy-spec`).
    pub with_features: &'static [&'static str],
}

impl Legacy {
    /// Legacy in every version.
    pub const ALWAYS: Legacy = Legacy {
        from: None,
        until: None,
        unless_features: &[],
        with_features: &[],
    };

    pub const fn until(v: Version) -> Legacy {
        Legacy {
            until: Some(v),
            ..Legacy::ALWAYS
        }
    }

    pub const fn between(from: Version, until: Version) -> Legacy {
        Legacy {
            from: Some(from),
            until: Some(until),
            ..Legacy::ALWAYS
        }
    }

    pub const fn unless(self, features: &'static [&'static str]) -> Legacy {
        Legacy {
            unless_features: features,
            ..self
        }
    }

    pub const fn with(self, features: &'static [&'static str]) -> Legacy {
        Legacy {
            with_features: features,
            ..self
        }
    }

    /// Whether the version gate says anything (an `ALWAYS` entry never depends on the manifest).
    pub fn is_versioned(&self) -> bool {
        self.from.is_some() || self.until.is_some()
    }

    /// Is the call the legacy API in a package that depends on the SDK as `dep`? `None` (no
    /// manifest) and a dependency without a known version say yes: syntax decides.
    pub fn applies(&self, dep: Option<&Dependency>) -> bool {
        let Some(d) = dep else { return true };
        let Some(v) = d.version else { return true };
        let in_range = self.from.is_none_or(|f| v >= f) && self.until.is_none_or(|u| v < u);
        if in_range {
            !self.unless_features.iter().any(|f| d.has_feature(f))
        } else {
            self.with_features.iter().any(|f| d.has_feature(f))
        }
    }
}

/// Which end of the connection a type, trait or role belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    Server,
    Client,
}

/// How a type states its side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoleSource {
    /// The type is always this side (`ClientSink` = `Peer<RoleServer>`).
    Fixed(Side),
    /// The side is the first generic argument, named by one of the table's `roles`
    /// (`Peer<RoleServer>`, `RunningService<RoleServer, S>`).
    FirstGeneric,
}

/// A type through which a server talks to its client (or a client to its server).
#[derive(Debug, Clone, Copy)]
pub struct PeerType {
    pub name: &'static str,
    pub role: RoleSource,
}

/// A handler context type that carries a peer (`RequestContext<RoleServer>` has `.peer`).
#[derive(Debug, Clone, Copy)]
pub struct ContextType {
    pub name: &'static str,
    pub role: RoleSource,
    /// Fields whose value is the peer (`peer`).
    pub peer_fields: &'static [&'static str],
    /// Fields or no-argument methods whose value is another context of the same side
    /// (`ToolCallContext.request_context`, `SubscriptionContext::request_context()`).
    pub context_members: &'static [&'static str],
}

/// Whether a method takes a turbofish.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Generics {
    /// `create_message(p)`: a turbofish means it is some other method.
    None,
    /// `elicit::<T>(msg)` or `let x: Option<T> = peer.elicit(msg)`.
    Optional,
}

/// A method on a peer type that sends a server-to-client request.
#[derive(Debug, Clone, Copy)]
pub struct RequestMethod {
    pub name: &'static str,
    pub sends: McpMethod,
    /// Number of arguments, not counting the receiver.
    pub arity: usize,
    pub generics: Generics,
    /// The MRTR replacement, one sentence, shown as the finding's help.
    pub replacement: &'static str,
    /// The SDK versions and features where this call is the legacy API.
    pub legacy: Legacy,
    /// The wire method the SDK really sends when it is not the spec's name (pmcp 1.x).
    pub sends_as: Option<&'static str>,
}

impl RequestMethod {
    /// A call legacy in every version, without a turbofish.
    pub const fn new(
        name: &'static str,
        sends: McpMethod,
        arity: usize,
        replacement: &'static str,
    ) -> RequestMethod {
        RequestMethod {
            name,
            sends,
            arity,
            generics: Generics::None,
            replacement,
            legacy: Legacy::ALWAYS,
            sends_as: None,
        }
    }

    /// Callable with or without a turbofish (`peer.elicit::<T>(..)`).
    pub const fn optional_turbofish(self) -> RequestMethod {
        RequestMethod {
            generics: Generics::Optional,
            ..self
        }
    }

    pub const fn when(self, legacy: Legacy) -> RequestMethod {
        RequestMethod { legacy, ..self }
    }

    pub const fn sent_as(self, wire: &'static str) -> RequestMethod {
        RequestMethod {
            sends_as: Some(wire),
            ..self
        }
    }

    /// The wire method named in messages.
    pub fn wire(&self) -> &'static str {
        self.sends_as.unwrap_or(self.sends.wire())
    }
}

/// A method that sends whatever request value it is given (`send_request(ServerRequest::..)`).
#[derive(Debug, Clone, Copy)]
pub struct RawSendMethod {
    pub name: &'static str,
    pub arity: usize,
    /// The argument is the wire method as a string (`ctx.request("roots/list", params)`), not a
    /// request value.
    pub method_string: bool,
    /// Any receiver will do, in a file that uses the SDK: for SDKs whose request values travel
    /// over the server's own channel (`tx.send(ServerRequest::ListRoots)` in pmcp), not a peer.
    pub any_receiver: bool,
}

impl RawSendMethod {
    /// A send through the SDK's peer of a request value.
    pub const fn peer(name: &'static str, arity: usize) -> RawSendMethod {
        RawSendMethod {
            name,
            arity,
            method_string: false,
            any_receiver: false,
        }
    }
}

/// A request type or enum variant that names one of the three requests
/// (`ServerRequest::CreateMessageRequest`, `ListRootsRequest`).
#[derive(Debug, Clone, Copy)]
pub struct RequestName {
    pub name: &'static str,
    pub sends: McpMethod,
}

/// An API the SDK removed in its MRTR release (URL elicitation in rmcp 3.0).
#[derive(Debug, Clone, Copy)]
pub struct RemovedApi {
    pub name: &'static str,
    /// What the finding says this item was.
    pub what: &'static str,
    /// Set when the item stood for a server-to-client request.
    pub sends: Option<McpMethod>,
    pub replacement: &'static str,
}

/// A trait whose impl makes its methods handlers (`impl ServerHandler for S`).
#[derive(Debug, Clone, Copy)]
pub struct HandlerTrait {
    pub name: &'static str,
    pub side: Side,
    /// Request handlers that may answer with `InputRequiredResult` (`call_tool`, ...).
    pub mrtr_methods: &'static [&'static str],
    /// Methods that are notification hooks (`on_initialized`), not requests.
    pub hook_prefix: &'static str,
    /// Methods ending with this are requests that cannot return `InputRequiredResult`
    /// (rust-mcp-sdk's `handle_list_tools_request`); empty when the trait has no such naming.
    pub request_suffix: &'static str,
}

/// Everything the linter knows about one SDK.
#[derive(Debug)]
pub struct SdkTable {
    /// Reported in `Finding::sdk`.
    pub name: &'static str,
    /// Crate names as they appear in `use` paths.
    pub crates: &'static [&'static str],
    /// Package names in `Cargo.toml`, the one whose version decides first.
    pub packages: &'static [&'static str],
    /// Whether a bare type name (a glob import, a re-export) may be this SDK's in a file that
    /// neither mentions it nor belongs to a package depending on it. Only for rmcp, whose names
    /// (`Peer`, `ClientSink`) are its own; the others' (`Context`, `RequestContext`, `McpServer`)
    /// are too common to claim without evidence.
    pub bare_names: bool,
    /// Whether messages name the SDK version the decision was made for (`neva 0.3.4`).
    pub version_in_message: bool,
    /// Role marker types, server then client: `Peer<RoleServer>`.
    pub roles: &'static [(&'static str, Side)],
    pub peer_types: &'static [PeerType],
    pub context_types: &'static [ContextType],
    /// A substring of a variable or field name that marks an untyped receiver as this SDK's peer,
    /// when the file mentions one of `crates` (`ctx.peer` with `ctx` untyped).
    pub receiver_name_hint: &'static str,
    /// Calls whose result is a running server or client (`serve_server(..)`).
    pub serve_functions: &'static [(&'static str, Side)],
    /// Methods whose result is a running service of the side of its receiver (`h.serve(t)`).
    pub serve_methods: &'static [&'static str],
    pub request_methods: &'static [RequestMethod],
    pub raw_send_methods: &'static [RawSendMethod],
    /// The enum of server requests (`ServerRequest`) and the variants that matter.
    pub request_enum: &'static str,
    pub request_names: &'static [RequestName],
    pub removed: &'static [RemovedApi],
    pub handler_traits: &'static [HandlerTrait],
    /// Attributes that make a method an MRTR-capable request handler (`#[tool]`, `#[prompt]`).
    pub handler_attributes: &'static [&'static str],
    /// The help for calls that MRTR cannot reach, per method.
    pub redesign: &'static [(McpMethod, &'static str)],
    /// The help for a raw request (`send_request(ServerRequest::..)`) sent through this SDK.
    pub raw_replacement: &'static str,
}

/// Tables are statics: two are the same SDK when they have the same name.
impl PartialEq for SdkTable {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for SdkTable {}

impl SdkTable {
    pub fn request_method(&self, name: &str) -> Option<&RequestMethod> {
        self.request_methods.iter().find(|m| m.name == name)
    }

    /// Every entry of that name: one per arity and version line (rust-mcp-sdk's `elicit_input`
    /// took two arguments in 0.7 and one from 0.8).
    pub fn request_methods_named<'s>(
        &'s self,
        name: &'s str,
    ) -> impl Iterator<Item = &'s RequestMethod> + 's {
        self.request_methods.iter().filter(move |m| m.name == name)
    }

    pub fn raw_send_method(&self, name: &str) -> Option<&RawSendMethod> {
        self.raw_send_methods.iter().find(|m| m.name == name)
    }

    /// The raw send of that name and arity.
    pub fn raw_send(&self, name: &str, arity: usize) -> Option<&RawSendMethod> {
        self.raw_send_methods
            .iter()
            .find(|m| m.name == name && m.arity == arity)
    }

    /// The help for a raw request sent through this SDK.
    pub fn raw_help(&self) -> &'static str {
        self.raw_replacement
    }

    pub fn request_name(&self, name: &str) -> Option<&RequestName> {
        self.request_names.iter().find(|m| m.name == name)
    }

    pub fn removed_api(&self, name: &str) -> Option<&RemovedApi> {
        self.removed.iter().find(|m| m.name == name)
    }

    pub fn role(&self, name: &str) -> Option<Side> {
        self.roles.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
    }

    pub fn redesign_help(&self, method: McpMethod) -> &'static str {
        self.redesign
            .iter()
            .find(|(m, _)| *m == method)
            .map(|(_, h)| *h)
            .unwrap_or("")
    }

    /// Every identifier of this table that can appear in a file with a finding: the prefilter
    /// reads these.
    pub fn trigger_tokens(&self) -> Vec<&'static str> {
        let mut t: Vec<&'static str> = Vec::new();
        t.extend(self.request_methods.iter().map(|m| m.name));
        t.extend(self.raw_send_methods.iter().map(|m| m.name));
        t.extend(self.removed.iter().map(|m| m.name));
        t
    }
}

/// Every SDK the linter knows. Order matters only for reporting: the first table that
/// recognises a receiver names the SDK.
pub static SDKS: &[&SdkTable] = &[
    &rmcp::RMCP,
    &rust_mcp_sdk::RUST_MCP_SDK,
    &pmcp::PMCP,
    &turbomcp::TURBOMCP,
    &neva::NEVA,
    &tower_mcp::TOWER_MCP,
    &mcpkit::MCPKIT,
    &mcp_attr::MCP_ATTR,
    &prism::PRISM,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_legacy_wire_is_a_method_and_every_method_a_legacy_wire() {
        for w in LEGACY_WIRES {
            assert!(McpMethod::from_wire(w).is_some(), "{w}");
        }
        for m in McpMethod::ALL {
            assert!(LEGACY_WIRES.contains(&m.wire()), "{m:?}");
        }
    }
}
