//! The "bare axum JSON handler" baseline for the benchmarks: `cargo run --release --example
//! bare_axum`.
//!
//! One POST route at `/mcp` that deserializes the JSON-RPC body into typed structs, adds
//! `a + b` and answers the `tools/call` result with `serde_json::json!` (see
//! [`mcp_examples::bench::bare_handler`]). It is served the way such a handler normally is,
//! by `axum::serve` (hyper, keep-alive), and follows the example conventions: binds
//! `MCP_ADDR` (default `127.0.0.1:9090`), prints `listening http://<addr>/mcp` on stdout, and
//! exits on SIGINT/SIGTERM.

#[tokio::main]
async fn main() -> std::io::Result<()> {
    mcp_examples::init_tracing();
    let addr = std::env::var("MCP_ADDR").unwrap_or_else(|_| mcp_examples::DEFAULT_ADDR.to_owned());
    let listener = tokio::net::TcpListener::bind(addr.as_str()).await?;
    println!("listening http://{}/mcp", listener.local_addr()?);
    axum::serve(listener, mcp_examples::bench::bare_router("/mcp"))
        .with_graceful_shutdown(mcp::transport::shutdown_signal())
        .await?;
    tracing::info!("shut down");
    Ok(())
}
