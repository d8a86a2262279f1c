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
use serde_json::{Value, json};

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
    // The 2025-era scenarios' servers speak only `initialize`; the newer ones (2026-07-28:
    // `request-metadata`, `http-*`, `json-schema-*`, `sep-2322-*`) answer `server/discover`.
    let mode = match scenario.as_str() {
        "initialize" | "tools_call" | "elicitation-sep1034-client-defaults" | "sse-retry" => {
            ProtocolMode::Legacy
        }
        _ => ProtocolMode::Auto,
    };
    let config = ClientConfig::new().protocol_mode(mode).elicitation_handler(
        |_request: ElicitRequest| async move { Ok(ElicitResult::accept(Default::default())) },
    );
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
        // Hand the focal tool's inputSchema back verbatim to the echo tool, which checks
        // that no JSON Schema 2020-12 keyword was lost (SEP-1613, SEP-2106).
        "json-schema-2020-12-preservation" => {
            let focal = tools
                .iter()
                .find(|t| t.name == "json_schema_2020_12_tool")
                .ok_or("the server lists no json_schema_2020_12_tool")?;
            let result = client
                .call("json_schema_echo")
                .arguments(json!({"schema": focal.input_schema}))?
                .await?;
            println!("{}", result.joined_text());
        }
        // Mcp-Method on every POST, Mcp-Name on the named requests: exercise each kind.
        "http-standard-headers" => {
            for tool in tools {
                let result = client.call(tool.name.as_str()).await?;
                println!("{}: {}", tool.name, result.joined_text());
            }
            for resource in client.list_resources().await?.resources {
                client.read_resource(&resource.uri).await?;
            }
            for prompt in client.list_prompts().await?.prompts {
                client.get_prompt(&prompt.name, Default::default()).await?;
            }
        }
        // The calls the suite names in its context (`http-custom-headers`: arguments the
        // client mirrors into `Mcp-Param-*` headers), else every tool without arguments,
        // as a generic client would.
        _ => match context_tool_calls() {
            Some(calls) => {
                for (name, arguments) in calls {
                    let result = client.call(name.as_str()).arguments(arguments)?.await?;
                    println!("{name}: {}", result.joined_text());
                }
            }
            None => {
                for tool in tools {
                    let result = client.call(tool.name.as_str()).await?;
                    println!("{}: {}", tool.name, result.joined_text());
                }
            }
        },
    }
    client.close().await?;
    Ok(())
}

/// The `toolCalls` (name, arguments) of the suite's `MCP_CONFORMANCE_CONTEXT`, if any.
fn context_tool_calls() -> Option<Vec<(String, Value)>> {
    let context: Value =
        serde_json::from_str(&std::env::var("MCP_CONFORMANCE_CONTEXT").ok()?).ok()?;
    let calls = context.get("toolCalls")?.as_array()?;
    Some(
        calls
            .iter()
            .filter_map(|c| {
                let name = c.get("name")?.as_str()?.to_owned();
                let arguments = c.get("arguments").cloned().unwrap_or_else(|| json!({}));
                Some((name, arguments))
            })
            .collect(),
    )
}
