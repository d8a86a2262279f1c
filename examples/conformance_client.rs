//! The client the official conformance suite drives in client mode:
//! `conformance client --command "<this binary>" --scenario <name>`.
//!
//! The suite starts a test server, appends its URL to the command line and names the
//! scenario in `MCP_CONFORMANCE_SCENARIO`. The client connects (legacy era: the suite's
//! servers are MCP 2025-11-25 servers), lists the tools and calls what the scenario
//! expects; the suite checks what arrived. Exit status 0 when the client saw no error. The
//! `auth/*` scenarios run `mcp_examples::conformance_auth` (client OAuth, with the suite's
//! `MCP_CONFORMANCE_CONTEXT` credentials).

use mcp::Implementation;
use mcp::client::{Client, ClientConfig, ConnectOptions, ProtocolMode};
use mcp::protocol::{ElicitRequest, ElicitResult};
use serde_json::json;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    mcp_examples::init_tracing();
    let url = std::env::args()
        .next_back()
        .filter(|a| a.starts_with("http"))
        .ok_or("usage: conformance_client <server-url> (scenario in MCP_CONFORMANCE_SCENARIO)")?;
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    tracing::info!(%url, %scenario, "conformance client");
    if scenario.starts_with("auth/") {
        return mcp_examples::conformance_auth::run(&url, &scenario)
            .await
            .map_err(|e| e as Box<dyn std::error::Error>);
    }
    // Accepting a form with no fields filled in: the client fills in the schema's defaults
    // (SEP-1034), which `elicitation-sep1034-client-defaults` checks.
    let config = ClientConfig::new()
        .protocol_mode(ProtocolMode::Legacy)
        .elicitation_handler(|_request: ElicitRequest| async move {
            Ok(ElicitResult::accept(Default::default()))
        });
    let client = Client::new(&url, config)?;
    let options = ConnectOptions::new(Implementation::new(
        "mcp-rs-conformance-client",
        env!("CARGO_PKG_VERSION"),
    ));
    client.connect(options).await?;
    let tools = client.list_tools().await?.tools;
    match scenario.as_str() {
        "initialize" => {}
        "tools_call" => {
            let result = client
                .call("add_numbers")
                .arguments(json!({"a": 5, "b": 3}))?
                .await?;
            println!("{}", result.joined_text());
        }
        "elicitation-sep1034-client-defaults" => {
            let result = client.call("test_client_elicitation_defaults").await?;
            println!("{}", result.joined_text());
        }
        // Any other scenario: call every tool without arguments, as a generic client would.
        _ => {
            for tool in tools {
                let result = client.call(tool.name.as_str()).await?;
                println!("{}: {}", tool.name, result.joined_text());
            }
        }
    }
    client.close().await?;
    Ok(())
}
