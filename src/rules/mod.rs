//! The rules. Each is a unit struct implementing [`engine::Rule`]; every code a rule emits
//! is described in `rules/<CODE>.toml`.

pub mod engine;
mod legacy_request;
mod raw_request;
mod readiness;
mod receiver;
mod removed_api;
mod replay;
pub mod rmcp_upgrade;
mod safety;
pub mod walk;

use crate::rules::engine::Rule;

pub use legacy_request::LegacyRequest;
pub use raw_request::RawRequest;
pub use readiness::Readiness;
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
    &Readiness,
];

/// Codes the engine itself emits.
pub const ENGINE_CODES: &[&str] = &["MCP900"];

/// The code for server-to-client requests that MRTR cannot reach.
pub const UNREACHABLE: &str = "MCP006";

/// The 2026-07-28 readiness codes (MCP301-MCP304): what a server loses beyond the three requests
/// (sessions, the handshake, removed and deprecated methods). A `migrate` report lists them as
/// "also needed for 2026-07-28"; the gate reports them by default only where the package targets
/// 2026-07-28.
pub fn readiness_codes() -> &'static [&'static str] {
    readiness::CODES
}
