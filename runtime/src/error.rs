//! The one error type of the runtime and its JSON-RPC wire mapping.

use std::fmt;

/// The message of every requestState verification failure. It never says which check failed:
/// telling an attacker "wrong principal" versus "bad tag" is an oracle.
pub const INVALID_STATE_MESSAGE: &str = "Invalid or expired requestState";

/// JSON-RPC "invalid params".
pub const INVALID_PARAMS: i64 = -32602;
/// JSON-RPC "internal error".
pub const INTERNAL_ERROR: i64 = -32603;
/// MCP 2026-07-28: the request needs a client capability that was not declared.
pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;

#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum MrtrError {
    /// Anything wrong with an incoming requestState (tampered, truncated, expired, foreign binding,
    /// unknown key id, oversized, not a string, wrong handler fingerprint).
    /// Always JSON-RPC -32602 with message exactly "Invalid or expired requestState".
    InvalidState,
    /// An ask needs a capability the client did not declare in this request: -32021,
    /// data = {"requiredCapabilities": <ClientCapabilities object>}.
    MissingCapability { required: serde_json::Value },
    /// An answer is present but has the wrong shape: -32602, message names the key.
    InvalidAnswer { key: String, reason: String },
    /// The sealed state would exceed the size budget (a server bug the author must see): -32603.
    StateTooLarge { size: usize, limit: usize },
    /// Anything else internal (serialization of a saved binding failed ...): -32603.
    Internal(String),
    /// Pre-2026 sessions only, where an ask goes out as a real request: the client answered it
    /// with a JSON-RPC error, or it never reached the client (closed transport). -32603; the
    /// message names the ask's key and method.
    ClientRequestFailed {
        key: String,
        method: String,
        reason: String,
    },
    /// Pre-2026 sessions only: the client did not answer a real request within
    /// [`MrtrConfig::ask_timeout`](crate::MrtrConfig::ask_timeout). -32603.
    ClientRequestTimedOut { key: String, method: String },
}

impl MrtrError {
    /// The JSON-RPC error code this error is sent with.
    pub fn code(&self) -> i64 {
        match self {
            MrtrError::InvalidState | MrtrError::InvalidAnswer { .. } => INVALID_PARAMS,
            MrtrError::MissingCapability { .. } => MISSING_REQUIRED_CLIENT_CAPABILITY,
            MrtrError::StateTooLarge { .. }
            | MrtrError::Internal(_)
            | MrtrError::ClientRequestFailed { .. }
            | MrtrError::ClientRequestTimedOut { .. } => INTERNAL_ERROR,
        }
    }

    /// The JSON-RPC error message.
    pub fn message(&self) -> String {
        match self {
            MrtrError::InvalidState => INVALID_STATE_MESSAGE.to_string(),
            MrtrError::MissingCapability { required } => {
                format!("Missing required client capability: {}", required)
            }
            MrtrError::InvalidAnswer { key, reason } => {
                format!("Invalid inputResponses[\"{key}\"]: {reason}")
            }
            MrtrError::StateTooLarge { size, limit } => {
                format!("requestState too large: {size} bytes sealed, the budget is {limit} bytes")
            }
            MrtrError::Internal(message) => format!("Internal error: {message}"),
            MrtrError::ClientRequestFailed {
                key,
                method,
                reason,
            } => format!("The client's answer to {method} (ask `{key}`) failed: {reason}"),
            MrtrError::ClientRequestTimedOut { key, method } => {
                format!("The client did not answer {method} (ask `{key}`) in time")
            }
        }
    }

    /// The JSON-RPC error `data` member, when the error carries one.
    pub fn data(&self) -> Option<serde_json::Value> {
        match self {
            MrtrError::MissingCapability { required } => {
                Some(serde_json::json!({ "requiredCapabilities": required }))
            }
            _ => None,
        }
    }

    /// The full JSON-RPC error object `{"code", "message", "data"?}`.
    pub fn to_json(&self) -> serde_json::Value {
        let mut error = serde_json::json!({ "code": self.code(), "message": self.message() });
        if let Some(data) = self.data() {
            error["data"] = data;
        }
        error
    }
}

impl fmt::Display for MrtrError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for MrtrError {}

/// Handlers and helpers whose error type is a plain `String` (common in servers that format
/// their errors) can propagate an ask's error with `?`: it becomes its message.
impl From<MrtrError> for String {
    fn from(error: MrtrError) -> String {
        error.message()
    }
}
