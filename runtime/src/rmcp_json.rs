//! rmcp's `Json<T>` tool result under `#[mrtr_handler]`: a tool declared
//! `-> Result<Json<T>, E>` answers `CallToolResponse`, complete with `T` as structured content
//! (as rmcp sends it) or input-required.

use rmcp::handler::server::wrapper::Json;
use rmcp::model::{CallToolResponse, CallToolResult, ContentBlock};
use schemars::JsonSchema;
use serde::Serialize;

use crate::rmcp::to_rmcp_input_required;
use crate::wire::{Completes, InputRequired};

impl<T: Serialize + JsonSchema + 'static> Completes for Json<T> {
    type Response = CallToolResponse;

    /// `T` as structured content. A value that does not serialize (a map with non-string keys)
    /// is a tool error naming the cause, where rmcp would answer a JSON-RPC error.
    fn complete(self) -> CallToolResponse {
        CallToolResponse::Complete(match serde_json::to_value(self.0) {
            Ok(value) => CallToolResult::structured(value),
            Err(e) => CallToolResult::error(vec![ContentBlock::text(format!(
                "Failed to serialize structured content: {e}"
            ))]),
        })
    }

    fn input_required(result: InputRequired) -> CallToolResponse {
        CallToolResponse::InputRequired(to_rmcp_input_required(result))
    }
}
