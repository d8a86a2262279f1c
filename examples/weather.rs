//! The weather MCP server (a basic service): `cargo run --example weather`.
//!
//! - `MCP_ADDR`: the address to bind, as for every example;
//! - `MCP_RATE_LIMIT`: when set to a rate (`<n>/<sec|min|hour>`, e.g. `10/min`), each
//!   caller (its IP address over HTTP, its connection over stdio) may call tools that many
//!   times per period, in memory; further calls are refused with JSON-RPC error `-32029`
//!   `Rate limit exceeded` and `data.retryAfterMs`. A value that is not a rate stops the
//!   server at startup.

use mcp::middleware::RateLimitLayer;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut server = mcp::Server::builder(mcp_examples::weather::WeatherService);
    if let Some(quota) = mcp_examples::rate::quota_from_env()? {
        server = server.layer(mcp_examples::rate::tool_calls(RateLimitLayer::per_caller(
            quota,
        )));
    }
    mcp_examples::serve(server).await?;
    Ok(())
}
