//! The "bare axum JSON handler" baseline for the benchmarks: `cargo run --release --example
//! bare_axum`.
//!
//! One POST route at `/mcp` that deserializes the JSON-RPC body into typed structs, adds
//! `a + b` and answers the `tools/call` result with `serde_json::json!` (see
//! [`mcp_examples::bench::bare_handler`]). It is served the way such a handler normally is,
//! by `axum::serve` (hyper, keep-alive), and follows the example conventions: binds
//! `MCP_ADDR` (default `127.0.0.1:9090`), prints `listening http://<addr>/mcp` on stdout, and
//! exits on SIGINT/SIGTERM.
//!
//! With `BARE_LISTENER=mcp` the same router is served by [`mcp::HttpServer`] instead (the
//! listener the MCP examples use: idle and header-read timeouts, a connection limit), which
//! tells the listener's share of a difference from the handler's.
//!
//! `BARE_HANDLER` picks what `/mcp` serves: `add` (default, above), `size` (the argument-size
//! rows: [`mcp_examples::bench::bare_size_handler`], the `size(text) -> {bytes}` tool by hand)
//! or `sse` (the open-stream row: `GET /mcp` holds a `text/event-stream` response open after
//! one event, [`mcp_examples::bench::bare_sse_router`]).

#[tokio::main]
async fn main() -> Result<(), mcp::Error> {
    mcp_examples::init_tracing();
    let addr = std::env::var("MCP_ADDR").unwrap_or_else(|_| mcp_examples::DEFAULT_ADDR.to_owned());
    let router = match std::env::var("BARE_HANDLER").as_deref() {
        Err(_) | Ok("add") => mcp_examples::bench::bare_router("/mcp"),
        Ok("size") => mcp_examples::bench::bare_size_router("/mcp"),
        Ok("sse") => mcp_examples::bench::bare_sse_router("/mcp"),
        Ok(other) => {
            return Err(mcp::Error::Config(format!(
                "BARE_HANDLER must be add, size or sse, not {other:?}"
            )));
        }
    };
    if std::env::var("BARE_LISTENER").is_ok_and(|l| l == "mcp") {
        let listener = mcp::HttpServer::bind(addr.as_str()).await?;
        println!("listening http://{}/mcp", listener.local_addr()?);
        listener
            .serve(router.into_make_service())
            .with_graceful_shutdown(mcp::transport::shutdown_signal())
            .await?;
    } else {
        let listener = tokio::net::TcpListener::bind(addr.as_str()).await?;
        println!("listening http://{}/mcp", listener.local_addr()?);
        axum::serve(listener, router)
            .with_graceful_shutdown(mcp::transport::shutdown_signal())
            .await?;
    }
    tracing::info!("shut down");
    Ok(())
}
