//! An ask written inside a macro invocation: the server's own `logged!` wraps each step of a
//! tool with a log line.

use rmcp::model::*;
use rmcp::service::RequestContext;
use rmcp::{tool, tool_handler, tool_router, ErrorData, RoleServer, ServerHandler};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Name {
    pub name: String,
}

rmcp::elicit_safe!(Name);

macro_rules! logged {
    ($what:literal, $step:expr) => {{
        let out = $step;
        eprintln!("step {} done", $what);
        out
    }};
}

#[derive(Clone, Default)]
pub struct Greeter;

#[tool_router]
impl Greeter {
    #[tool(description = "Greet whoever the client names")]
    async fn greet(&self, context: RequestContext<RoleServer>) -> Result<String, ErrorData> {
        let asked = logged!("ask", context.peer.elicit::<Name>("Who is there?").await);
        match asked {
            Ok(Some(who)) => Ok(format!("hello {}", who.name)),
            Ok(None) => Ok("hello nobody".into()),
            Err(e) => Ok(format!("no greeting: {e}")),
        }
    }
}

#[tool_handler]
impl ServerHandler for Greeter {}
