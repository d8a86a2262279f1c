//! What the Redis tests share: the test Redis (`MCP_TEST_REDIS_URL`, which `scripts/test.sh`
//! sets to a throwaway redis-server), a key prefix per test, and a connection that fails
//! loudly, never skips, when Redis is unreachable.
#![allow(dead_code)]

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use mcp::session::RedisStore;

/// The test Redis.
pub fn redis_url() -> String {
    std::env::var("MCP_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into())
}

/// A key prefix no other test (or earlier run) uses.
pub fn unique_prefix(test: &str) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("mcp-test:{test}:{}:{nanos}", std::process::id())
}

/// Connects to the test Redis with key prefix `prefix`, failing loudly when it is
/// unreachable.
pub async fn connect(prefix: &str) -> RedisStore {
    let url = redis_url();
    match tokio::time::timeout(Duration::from_secs(15), RedisStore::connect(&url)).await {
        Ok(Ok(store)) => store.with_prefix(prefix),
        Ok(Err(e)) => panic!(
            "Redis is unreachable ({e}): start redis-server or set MCP_TEST_REDIS_URL \
             (these tests need a real Redis and never skip)"
        ),
        Err(_) => panic!(
            "Redis did not answer within 15 s: start redis-server or set MCP_TEST_REDIS_URL \
             (these tests need a real Redis and never skip)"
        ),
    }
}
