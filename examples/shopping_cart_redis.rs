//! The stateful shopping cart with its sessions in Redis, so several server processes can
//! serve the same carts: `cargo run --example shopping_cart_redis --features redis`.
//!
//! `MCP_REDIS_URL` names the Redis (default `redis://127.0.0.1:6379`), `MCP_REDIS_PREFIX` its
//! key prefix (default `mcp-shopping-cart`), and `MCP_ADDR` the address to bind, as for every
//! example. Start two on different ports and a client may send each request of its session
//! to either.

use std::sync::Arc;

use mcp::session::RedisStore;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let url = std::env::var("MCP_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let prefix = std::env::var("MCP_REDIS_PREFIX").unwrap_or_else(|_| "mcp-shopping-cart".into());
    let store = RedisStore::connect(&url).await?.with_prefix(prefix);
    let server = mcp::Server::builder(mcp_examples::shopping_cart::ShoppingCart)
        .session_store(Arc::new(store));
    mcp_examples::serve(server).await?;
    Ok(())
}
