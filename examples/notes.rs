//! The notes MCP server (resources, a resource template, prompts with completion, a slow
//! tool): `cargo run --example notes`.

#[tokio::main]
async fn main() -> Result<(), mcp::Error> {
    mcp_examples::serve(mcp_examples::notes::Notes::new()).await
}
