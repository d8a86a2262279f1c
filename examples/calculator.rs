//! The calculator MCP server (a basic service): `cargo run --example calculator`.

#[tokio::main]
async fn main() -> Result<(), mcp::Error> {
    mcp_examples::serve(mcp_examples::calculator::Calculator).await
}
