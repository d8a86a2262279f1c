//! The stateful shopping-cart MCP server: `cargo run --example shopping_cart`.

#[tokio::main]
async fn main() -> Result<(), mcp::Error> {
    mcp_examples::serve(mcp_examples::shopping_cart::ShoppingCart).await
}
