//! The inventory service (change notifications), ready to run as one of several replicas:
//! `cargo run --example inventory --features redis`.
//!
//! - `MCP_ADDR`: the address to bind, as for every example;
//! - `MCP_REPLICA`: this replica's name, which the `replica` tool returns (default
//!   `inventory`);
//! - `MCP_REDIS_URL` (feature `redis`): when set, legacy sessions live in this Redis and the
//!   replicas' event bus is its pub/sub, and tasks live there too (`MCP_REDIS_PREFIX` names
//!   the key prefix and the bus channel, default `mcp-inventory`);
//! - `MCP_STATE_KEY`: the request-state signing key (at least 32 bytes), the same on every
//!   replica so a modern `input_required` flow may continue on any of them;
//! - `MCP_TASK_LEASE_MS`: how long a replica's claim on a running task lasts without
//!   renewal (default 30 000): a task whose replica died is failed that long after;
//! - `MCP_ALLOWED_HOSTS`: extra `Host` values to accept (comma-separated), such as the load
//!   balancer's `host:port`;
//! - `MCP_RATE_LIMIT`: when set to a rate (`<n>/<sec|min|hour>`, e.g. `10/min`), each caller
//!   (its IP address: behind a load balancer, the balancer's) may call tools that many times
//!   per period; further calls are refused with JSON-RPC error `-32029` `Rate limit
//!   exceeded` and `data.retryAfterMs`. With `MCP_REDIS_URL` the budget lives in that Redis
//!   (under the session prefix), so all replicas charge one budget per caller; else each
//!   replica counts in memory. A value that is not a rate stops the server at startup.
//!
//! `scripts/cluster.sh` starts Redis, two replicas and HAProxy in front of them.

use mcp::middleware::RateLimitLayer;
use mcp_examples::inventory::Inventory;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let name = std::env::var("MCP_REPLICA").unwrap_or_else(|_| "inventory".into());
    #[cfg_attr(not(feature = "redis"), allow(unused_mut))]
    let mut limit = mcp_examples::rate::quota_from_env()?.map(RateLimitLayer::per_caller);
    let mut server = Inventory::new(name).builder();
    if let Ok(ms) = std::env::var("MCP_TASK_LEASE_MS") {
        let lease = std::time::Duration::from_millis(ms.parse()?);
        server = server.tasks(mcp::tasks::TaskConfig::default().with_lease(lease));
    }
    if let Ok(key) = std::env::var("MCP_STATE_KEY") {
        server = server.request_state_keys([key.into_bytes()]);
    }
    if let Ok(hosts) = std::env::var("MCP_ALLOWED_HOSTS") {
        server = server.transport(|http: mcp::transport::http::HttpConfig| {
            http.allowed_hosts(
                hosts
                    .split(',')
                    .filter(|h| !h.is_empty())
                    .map(str::to_owned),
            )
        });
    }
    #[cfg(feature = "redis")]
    if let Ok(url) = std::env::var("MCP_REDIS_URL") {
        use std::sync::Arc;
        let prefix = std::env::var("MCP_REDIS_PREFIX").unwrap_or_else(|_| "mcp-inventory".into());
        let store = mcp::session::RedisStore::connect(&url)
            .await?
            .with_prefix(prefix.clone());
        let bus =
            mcp::notify::RedisBus::connect_to_channel(&url, &format!("{prefix}:events")).await?;
        // The rate limit shares the session store's connection and prefix.
        limit = limit.map(|l| l.shared(mcp::middleware::RedisRateStore::sharing(&store)));
        let tasks = mcp::tasks::RedisTaskStore::from_manager(store.connection())
            .with_prefix(prefix.clone());
        server = server
            .session_store(Arc::new(store))
            .event_bus(bus)
            .task_store(tasks);
    }
    if let Some(limit) = limit {
        server = server.layer(mcp_examples::rate::tool_calls(limit));
    }
    mcp_examples::serve(server).await?;
    Ok(())
}
