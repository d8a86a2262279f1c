//! The servers of `scripts/scale.sh`'s tool-count, argument-size and open-stream rows (issue
//! #17), served like every example (`MCP_ADDR`, `listening http://<addr>/mcp` on stdout,
//! SIGINT/SIGTERM). `SCALE_SERVICE` picks one:
//!
//! * `tools100`, `tools1000`: the `add` service with 100 or 1,000 tools `add_0 … add_{N-1}`,
//!   each the `add(a, b) -> {sum}` of `mcp_examples::bench::Add` (the one-tool service is
//!   `examples/add.rs` itself), generated at compile time by `examples/build.rs`; otherwise
//!   configured like `add`.
//! * `size`: [`mcp_examples::bench::Size`], `size(text) -> {bytes}`, for the argument sizes.
//!   The default body limit (`HttpConfig::max_body_bytes`, 4 MiB) already admits the
//!   1 MiB argument, so it is left as it is.
//! * `streams`: `Add` with `list_changed(true)` (so a `subscriptions/listen` filter asking for
//!   tool changes is honoured and its stream stays open), room for `SCALE_CAPACITY` (default
//!   100,000) listeners, legacy GET streams, anonymous legacy sessions and connections (the
//!   defaults are 10,000 each), and a one-hour session idle timeout: `examples/streams.rs`
//!   opens the streams. (A stream whose client has gone stays counted until the server next
//!   writes to it, a keep-alive within 15 s: the warm-up's streams are still counted when the
//!   measured ones open.)

use mcp_examples::bench::{Add, Size, Sum};

include!(concat!(env!("OUT_DIR"), "/scale_tools.rs"));

#[tokio::main]
async fn main() -> Result<(), mcp::Error> {
    let service = std::env::var("SCALE_SERVICE").unwrap_or_default();
    match service.as_str() {
        "tools100" => mcp_examples::serve(tools_100::Tools100).await,
        "tools1000" => mcp_examples::serve(tools_1000::Tools1000).await,
        "size" => mcp_examples::serve(Size).await,
        "streams" => serve_streams().await,
        other => Err(mcp::Error::Config(format!(
            "SCALE_SERVICE must be tools100, tools1000, size or streams, not {other:?}"
        ))),
    }
}

/// `SCALE_SERVICE=streams`: `Add` with room for many open streams.
async fn serve_streams() -> Result<(), mcp::Error> {
    mcp_examples::init_tracing();
    let capacity = match std::env::var("SCALE_CAPACITY") {
        Err(_) => 100_000,
        Ok(n) => n
            .parse::<usize>()
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| mcp::Error::Config(format!("SCALE_CAPACITY: not a count: {n:?}")))?,
    };
    let limits = mcp::session::SessionLimits::default()
        .with_idle_timeout(std::time::Duration::from_secs(3600))
        .with_max_anonymous(capacity);
    let server = mcp::Server::builder(Add)
        .list_changed(true)
        .max_listeners(capacity)
        // The load comes from one address, one caller: lift the per-caller listen bounds.
        .max_listeners_per_caller(capacity)
        .max_listen_bytes_per_caller(usize::MAX)
        .max_listen_bytes(usize::MAX)
        .max_streams(capacity)
        .session_limits(limits)
        .build()?;
    let addr = std::env::var("MCP_ADDR").unwrap_or_else(|_| mcp_examples::DEFAULT_ADDR.to_owned());
    let listener = mcp::HttpServer::bind(addr.as_str())
        .await?
        .max_connections(capacity + 1024);
    println!("listening http://{}/mcp", listener.local_addr()?);
    listener
        .serve(mcp::transport::http::router("/mcp", server).into_make_service())
        .with_graceful_shutdown(mcp::transport::shutdown_signal())
        .await?;
    tracing::info!("shut down");
    Ok(())
}
