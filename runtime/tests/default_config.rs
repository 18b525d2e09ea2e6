//! `impl MrtrServer for MyServer {}`: the default configuration comes from the environment,
//! once per server type. One test in its own process, because it sets `MRTR_KEYS`.

use mrtr::{mrtr_handler, Elicitation, Mrtr, MrtrServer};
use rmcp::model::*;
use rmcp::service::{serve_directly, RequestContext, RoleClient, RoleServer, RunningService};
use rmcp::{tool, tool_handler, tool_router, ClientHandler, ServerHandler};
use serde_json::json;

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct Confirm {
    confirm: bool,
}

macro_rules! server {
    ($name:ident) => {
        #[derive(Clone)]
        struct $name;

        impl MrtrServer for $name {}

        #[tool_router]
        impl $name {
            #[tool(description = "Asks once")]
            #[mrtr_handler]
            async fn ask(&self, mrtr: Mrtr) -> Result<CallToolResult, ErrorData> {
                let ok = mrtr.elicit::<Confirm>("Go?").await?;
                let text = match ok {
                    Elicitation::Accept(Confirm { confirm: true }) => "went",
                    _ => "stayed",
                };
                Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
            }
        }

        #[tool_handler]
        impl ServerHandler for $name {
            fn get_info(&self) -> ServerConfig {
                let mut info =
                    ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
                info.protocol_version = ProtocolVersion::V_2026_07_28;
                info
            }
        }
    };
}

server!(Misconfigured);
server!(Configured);

#[derive(Clone)]
struct Client;

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder().enable_elicitation().build(),
            Implementation::new("default-config", "0.0.0"),
        )
        .with_protocol_version(ProtocolVersion::V_2026_07_28)
    }

    async fn create_elicitation(
        &self,
        _request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(json!({ "confirm": true })))
    }
}

fn connect<S: ServerHandler>(server: S) -> RunningService<RoleClient, Client> {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let mut server_params =
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build());
    server_params.protocol_version = ProtocolVersion::V_2026_07_28;
    let running =
        serve_directly::<RoleServer, _, _, _, _>(server, server_io, Some(Client.get_info()));
    tokio::spawn(async move {
        let _ = running.waiting().await;
    });
    serve_directly::<RoleClient, _, _, _, _>(Client, client_io, Some(server_params.into()))
}

#[tokio::test]
async fn the_one_line_impl_reads_mrtr_keys_once_per_server_type() {
    // A malformed key list: the server runs, and a request that needs a state fails with an
    // error naming the variable instead of sealing with a key nobody configured.
    // SAFETY (for `set_var`): this test binary has this one test, and nothing else reads the
    // environment concurrently.
    std::env::set_var("MRTR_KEYS", "k1:not-a-key");
    let misconfigured = connect(Misconfigured);
    let error = misconfigured
        .call_tool(CallToolRequestParams::new("ask"))
        .await
        .expect_err("sealing must refuse");
    assert!(format!("{error:?}").contains("MRTR_KEYS"), "{error:?}");
    assert!(Misconfigured
        .mrtr_config()
        .server_name()
        .ends_with("Misconfigured"));

    std::env::set_var("MRTR_KEYS", format!("k7:{}", "ab".repeat(32)));
    let config = Configured.mrtr_config();
    assert_eq!(config.key_ring().active_kid(), "k7");
    assert!(!config.is_ephemeral());
    assert!(config.server_name().ends_with("Configured"));
    assert!(
        std::ptr::eq(config, Configured.mrtr_config()),
        "read once per server type"
    );
    let configured = connect(Configured);
    let result = configured
        .call_tool(CallToolRequestParams::new("ask"))
        .await
        .expect("completes over MRTR rounds");
    assert_eq!(result.content[0].as_text().expect("text").text, "went");
    // The misconfigured type keeps its own configuration.
    assert_ne!(Misconfigured.mrtr_config().key_ring().active_kid(), "k7");
}
