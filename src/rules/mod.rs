//! The rules. Each is a unit struct implementing [`engine::Rule`]; every code a rule emits
//! is described in `rules/<CODE>.toml`.

pub mod engine;
mod legacy_request;
mod raw_request;
mod receiver;
mod removed_api;
mod replay;
pub mod rmcp_upgrade;
mod safety;
pub mod walk;

use crate::rules::engine::Rule;

pub use legacy_request::LegacyRequest;
pub use raw_request::RawRequest;
pub use removed_api::RemovedApi;
pub use replay::Replay;
pub use rmcp_upgrade::RmcpUpgrade;
pub use safety::Safety;

/// Every rule the engine runs. Codes not listed by any rule here (MCP900 parse-error) are emitted
/// by the engine itself.
pub static ALL: &[&'static dyn Rule] = &[
    &LegacyRequest,
    &RawRequest,
    &RemovedApi,
    &Safety,
    &RmcpUpgrade,
    &Replay,
];

/// Codes the engine itself emits.
pub const ENGINE_CODES: &[&str] = &["MCP900"];

/// The code for server-to-client requests that MRTR cannot reach.
pub const UNREACHABLE: &str = "MCP006";
