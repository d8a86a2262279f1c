//! The benchmark server of issue #17: one `add(a, b) -> {sum}` tool
//! ([`mcp_examples::bench::Add`]), served the way every example is: `cargo run --release
//! --example add`. `scripts/load.sh` and `scripts/instructions.sh` measure it against
//! `bare_axum`.
//!
//! `MCP_RATE_LIMIT=<n>/<sec|min|hour>` adds the stock in-memory rate limit per caller
//! ([`mcp_examples::bench::server_from_env`]), so that the benchmarks can measure what it
//! costs: `MCP_RATE_LIMIT=1000000000/sec scripts/instructions.sh`.

#[tokio::main]
async fn main() -> Result<(), mcp::Error> {
    mcp_examples::serve(mcp_examples::bench::server_from_env()?).await
}
