//! A minimal advanced MCP service: `cargo run --example echo`.

#[tokio::main]
async fn main() -> Result<(), mcp::Error> {
    mcp_examples::serve(mcp_examples::echo::server()).await
}
