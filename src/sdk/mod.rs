//! What the linter knows about each MCP SDK, as data.
//!
//! Rules never hard-code an SDK's type or method names: they look them up here. Adding an SDK
//! (turbomcp, neva, pmcp, ...) means adding one more [`SdkTable`] to [`SDKS`]; the engine's scope
//! model classifies receivers with every table, and the request rules match every table's methods.

pub mod raw;
pub mod rmcp;

/// The three server-to-client requests that 2026-07-28 replaces with `InputRequiredResult`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum McpMethod {
    Elicitation,
    Sampling,
    Roots,
}

impl McpMethod {
    pub const ALL: [McpMethod; 3] = [McpMethod::Elicitation, McpMethod::Sampling, McpMethod::Roots];

    /// The JSON-RPC method name on the wire.
    pub fn wire(self) -> &'static str {
        match self {
            McpMethod::Elicitation => "elicitation/create",
            McpMethod::Sampling => "sampling/createMessage",
            McpMethod::Roots => "roots/list",
        }
    }

    pub fn from_wire(s: &str) -> Option<McpMethod> {
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
}

/// A method that sends whatever request value it is given (`send_request(ServerRequest::..)`).
#[derive(Debug, Clone, Copy)]
pub struct RawSendMethod {
    pub name: &'static str,
    pub arity: usize,
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
}

/// Everything the linter knows about one SDK.
#[derive(Debug)]
pub struct SdkTable {
    /// Reported in `Finding::sdk`.
    pub name: &'static str,
    /// Crate names as they appear in `use` paths.
    pub crates: &'static [&'static str],
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

    pub fn raw_send_method(&self, name: &str) -> Option<&RawSendMethod> {
        self.raw_send_methods.iter().find(|m| m.name == name)
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
pub static SDKS: &[&SdkTable] = &[&rmcp::RMCP];
