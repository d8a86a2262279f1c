//! The benchmark server of issue #17: one `add(a, b) -> {sum}` tool
//! ([`mcp_examples::bench::Add`]), served the way every example is: `cargo run --release
//! --example add`. `scripts/load.sh` and `scripts/instructions.sh` measure it against
//! `bare_axum`.
//!
//! `MCP_RATE_LIMIT=<n>/<sec|min|hour>` adds the stock in-memory rate limit per caller
//! (`mcp::middleware::RateLimitLayer`), so that the benchmarks can measure what it costs:
//! `MCP_RATE_LIMIT=1000000000/sec scripts/instructions.sh`.

#[tokio::main]
async fn main() -> Result<(), mcp::Error> {
    let mut server = mcp_examples::bench::server();
    if let Ok(rate) = std::env::var("MCP_RATE_LIMIT") {
        let quota: mcp::middleware::Quota = rate
            .parse()
            .map_err(|e| mcp::Error::Config(format!("MCP_RATE_LIMIT: {e}")))?;
        server = server.layer(mcp::middleware::RateLimitLayer::per_caller(quota));
    }
    mcp_examples::serve(server).await
}
