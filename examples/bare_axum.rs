//! The "bare axum JSON handler" baseline for the benchmarks: `cargo run --release --example
//! bare_axum`.
//!
//! One POST route at `/mcp` that parses the JSON-RPC body with `serde_json` and answers a
//! result shaped like an MCP `tools/call` result (see [`mcp_examples::bench::bare_handler`]).
//! It follows the example conventions: binds `MCP_ADDR` (default `127.0.0.1:9090`), prints
//! `listening http://<addr>/mcp` on stdout, and exits on SIGINT/SIGTERM. It is served the same
//! way the MCP examples are (by [`mcp::HttpServer`], the same hyper connection
//! settings), so the two differ only in what runs per request.

#[tokio::main]
async fn main() -> Result<(), mcp::Error> {
    mcp_examples::init_tracing();
    let addr = std::env::var("MCP_ADDR").unwrap_or_else(|_| mcp_examples::DEFAULT_ADDR.to_owned());
    let listener = mcp::HttpServer::bind(addr.as_str()).await?;
    println!("listening http://{}/mcp", listener.local_addr()?);
    listener
        .serve(mcp_examples::bench::bare_router("/mcp").into_make_service())
        .with_graceful_shutdown(mcp::transport::shutdown_signal())
        .await?;
    tracing::info!("shut down");
    Ok(())
}
