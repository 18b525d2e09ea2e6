//! The runtime behind `#[mrtr_handler]`: sealed requestState, asks and their answers, the
//! SDK-neutral wire shapes, an rmcp 3.x adapter (feature `rmcp`) and a test client.

pub mod ask;
pub mod carrier;
pub mod config;
pub mod context;
pub mod deferred;
mod env_config;
pub mod error;
pub mod flow;
pub mod jsonrpc;
mod kept;
pub mod keys;
#[cfg(feature = "redis-guard")]
pub mod redis_guard;
#[cfg(feature = "rmcp")]
mod rmcp_json;
#[cfg(feature = "rmcp")]
mod rmcp_params;
mod schema;
mod schema_ask;
pub mod seal;
pub mod testing;
pub mod wire;

#[cfg(feature = "rmcp")]
pub mod rmcp;

pub use ask::{
    Ask, ElicitForm, Elicitation, Root, SamplingMessage, SamplingRequest, SamplingResponse,
    UrlElicitation,
};
pub use carrier::{CarryError, LegacyCarrier};
pub use config::{
    Clock, ConfigError, GuardUnavailable, InMemoryReplayGuard, MrtrConfig, ReplayGuard, StateUse,
    SystemClock,
};
pub use context::{IncomingRequest, McpMethod, Mrtr, StateBody};
pub use error::{MrtrError, INVALID_STATE_MESSAGE};
pub use keys::{KeyError, KeyRing, SecretKey};
#[allow(unused_imports)]
pub use mrtr_macros::*;
pub use wire::{Completes, InputRequired, Outcome};

#[cfg(feature = "rmcp")]
pub use crate::rmcp::{MrtrServer, Principal};

/// Paths the `#[mrtr_handler]` expansion names. Not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::flow::*;
    pub use crate::kept::*;
    #[cfg(feature = "rmcp")]
    pub use crate::rmcp::assert_mrtr_server;
    pub use serde;
    pub use serde_json;
}
