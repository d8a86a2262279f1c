//! The reports server: a slow report generator whose calls run as tasks (the tasks
//! extension): `cargo run --example reports`, then
//! `cargo run --example mcp_call -- --mode modern http://127.0.0.1:9090/mcp call --task generate_report '{"topic":"Q3"}'`.
//!
//! - `MCP_ADDR`: the address to bind, as for every example;
//! - `MCP_SECTION_MS`: how long one section takes (default 1000);
//! - `MCP_REDIS_URL` (feature `redis`): keep the tasks in this Redis, so that replicas
//!   share them (default: in memory).

use std::time::Duration;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let section = match std::env::var("MCP_SECTION_MS") {
        Ok(ms) => Duration::from_millis(ms.parse()?),
        Err(_) => Duration::from_secs(1),
    };
    #[cfg_attr(not(feature = "redis"), allow(unused_mut))]
    let mut server = mcp::Server::builder(mcp_examples::reports::Reports::new(section))
        .tasks(mcp::tasks::TaskConfig::default().with_poll_interval(Duration::from_millis(250)));
    #[cfg(feature = "redis")]
    if let Ok(url) = std::env::var("MCP_REDIS_URL") {
        server = server.task_store(mcp::tasks::RedisTaskStore::connect(&url).await?);
    }
    mcp_examples::serve(server).await?;
    Ok(())
}
