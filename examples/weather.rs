//! The weather MCP server (a basic service): `cargo run --example weather`.

#[tokio::main]
async fn main() -> Result<(), mcp::Error> {
    mcp_examples::serve(mcp_examples::weather::WeatherService).await
}
