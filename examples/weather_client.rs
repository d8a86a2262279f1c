//! A client for the weather example server: connects in auto mode, lists the tools (with
//! the arguments that travel in `Mcp-Param-*` headers), then calls every tool.
//!
//! ```text
//! cargo run --example weather                    # in one terminal
//! cargo run --example weather_client [URL]       # in another
//! ```
//!
//! The URL comes from the first argument, else `MCP_URL`, else `http://127.0.0.1:9090/mcp`.
//! `regional_weather` declares its `region` argument with `x-mcp-header`: on a modern
//! connection the client mirrors it into `Mcp-Param-Region` by itself (base64-wrapped for a
//! non-ASCII value such as "São Paulo").

use serde_json::{Value, json};

/// Where the weather example listens by default.
const DEFAULT_URL: &str = "http://127.0.0.1:9090/mcp";

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    mcp_examples::init_tracing();
    let url = std::env::args()
        .nth(1)
        .or_else(|| std::env::var("MCP_URL").ok())
        .unwrap_or_else(|| DEFAULT_URL.to_owned());
    // The defaults: the auto era (modern, or the legacy handshake for an older server) and
    // the client identity `mcp-rs`.
    let client = mcp::client::connect(&url).await?;
    let info = client.connection().ok_or("the client is not connected")?;
    let server = info
        .server_info()
        .map(|s| format!("{} {}", s.name, s.version))
        .unwrap_or_else(|| "an unnamed server".into());
    println!(
        "connected to {server} over MCP {} ({:?})",
        info.protocol_version(),
        info.era()
    );

    let tools = client.list_tools().await?;
    println!("{} tools:", tools.tools.len());
    for tool in &tools.tools {
        println!(
            "  {:<22} {}",
            tool.name,
            tool.description.as_deref().unwrap_or_default()
        );
        for (argument, header) in header_arguments(&tool.input_schema) {
            println!("  {:<22}   `{argument}` travels in Mcp-Param-{header}", "");
        }
        if tool.output_schema.is_some() {
            println!("  {:<22}   structured output", "");
        }
    }

    let calls = [
        ("get_current_weather", json!({"city": "Lisbon"})),
        (
            "get_weather_forecast",
            json!({"location": "Oslo", "days": 3}),
        ),
        (
            "regional_weather",
            json!({"region": "São Paulo", "city": "Centro"}),
        ),
        (
            "regional_weather",
            json!({"region": "eu-west", "city": "Dublin"}),
        ),
        // A tool-level failure is data, not an error.
        ("get_current_weather", json!({"city": " "})),
    ];
    for (tool, arguments) in calls {
        let result = client.call(tool).arguments(&arguments)?.await?;
        let shown = match &result.structured_content {
            Some(structured) => structured.to_string(),
            None => result.joined_text(),
        };
        let status = if result.is_error() { "error" } else { "ok" };
        println!("{tool} {arguments} -> {status}: {shown}");
    }
    // Arguments that do not bind are a JSON-RPC error (-32602), not a tool result.
    match client
        .call("get_weather_forecast")
        .arguments(json!({"location": "Oslo", "days": "three"}))?
        .await
    {
        Ok(result) => println!("unexpected result: {}", result.joined_text()),
        Err(e) => println!(
            "get_weather_forecast with days=\"three\" -> {:?}: {e}",
            e.code()
        ),
    }

    client.close().await?;
    Ok(())
}

/// `(argument, header name)` for every top-level property declared with `x-mcp-header`.
fn header_arguments(schema: &serde_json::Map<String, Value>) -> Vec<(String, String)> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(name, property)| {
            let header = property.get("x-mcp-header")?.as_str()?;
            Some((name.clone(), header.to_owned()))
        })
        .collect()
}
