//! Hand-rolled JSON-RPC: requests written as a `json!` object or a struct literal and sent to the
//! client without an SDK. SDK-independent data for rule MCP004.

/// Keys under which a request object is an MRTR envelope (returned), not a request (sent).
pub const ENVELOPE_KEYS: &[&str] = &["inputRequests", "input_requests"];

/// Methods that send or write their argument to the client (a channel, a transport, stdout).
pub const SINK_METHODS: &[&str] = &[
    "send",
    "send_request",
    "send_message",
    "send_raw",
    "send_json",
    "send_to_client",
    "request",
    "write_all",
    "write",
    "write_line",
    "write_str",
    "start_send",
    "feed",
    "emit",
    "try_send",
    "blocking_send",
    "unbounded_send",
];

/// Free functions (last path segment) that send or write their argument.
pub const SINK_FUNCTIONS: &[&str] = &[
    "to_writer",
    "to_writer_pretty",
    "send",
    "send_request",
    "write",
];

/// Macros that write to stdout or to a writer (the stdio transport is stdout).
pub const SINK_MACROS: &[&str] = &["print", "println", "write", "writeln"];

/// Wrappers that turn a literal into a `String`: `"roots/list".into()`, `String::from(..)`.
pub const STRING_CONVERSIONS: &[&str] = &["into", "to_string", "to_owned", "from", "new"];

/// Callees whose name says they send a request given its method name as a string:
/// `requester.send_request("roots/list", params)`. A legacy method string passed to one of them
/// in server code is a request sent.
pub const METHOD_SENDERS: &[&str] = &[
    "send_request",
    "request",
    "send",
    "send_client_request",
    "send_to_client",
    "client_request",
    "request_client",
    "call_client",
    "send_raw",
    "send_json",
    "send_request_raw",
];
