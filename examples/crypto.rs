//! An advanced MCP service with hashing and encoding tools: `cargo run --example crypto`.

#[tokio::main]
async fn main() -> Result<(), mcp::Error> {
    mcp_examples::serve(mcp_examples::crypto::server()).await
}
