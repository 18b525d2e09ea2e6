//! The deferred tier for servers that speak JSON-RPC themselves (no SDK adapter): their
//! hand-built `elicitation/create`, `sampling/createMessage` and `roots/list` sends become
//! `mrtr::jsonrpc` asks at the call site ([`ask`]), and the arms of their own dispatch that serve
//! `tools/call`, `prompts/get` and `resources/read` run in the request scope those asks look
//! for ([`dispatch`], written by the fix driver over the package, as the rmcp scope is).
//! Both read what they need from the code around them, never from a table of servers.

pub mod ask;
pub mod dispatch;
pub mod exchange;
pub mod message_scope;
