use mrtr::{mrtr_handler, Mrtr};
use rmcp::model::{CallToolResult, ContentBlock, ErrorData};
use rmcp::{tool, tool_router};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Confirm {
    confirm: bool,
}

/// A server whose tools ask, but that does not implement `MrtrServer`.
#[derive(Clone)]
struct Ops;

#[tool_router]
impl Ops {
    #[tool(description = "Drop a table")]
    #[mrtr_handler]
    async fn drop_table(&self, mrtr: Mrtr) -> Result<CallToolResult, ErrorData> {
        let ok = mrtr.elicit::<Confirm>("Really?").await?;
        let text = if ok.accepted().is_some_and(|c| c.confirm) { "dropped" } else { "kept" };
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
    }
}

fn main() {
    let _ = Ops::tool_router;
}
