//! URL elicitation with an out-of-band connect page: `cargo run --example calendar_connect`.
//! With `--stdio` MCP is served on stdin/stdout while the connect page stays on HTTP.

#[tokio::main]
async fn main() -> Result<(), mcp::Error> {
    mcp_examples::init_tracing();
    let addr = std::env::var("MCP_ADDR").unwrap_or_else(|_| mcp_examples::DEFAULT_ADDR.to_owned());
    let listener = mcp::HttpServer::bind(addr.as_str()).await?;
    let local = listener.local_addr()?;
    let calendar = mcp_examples::calendar_connect::Calendar::default();
    if mcp_examples::stdio_requested() {
        calendar.set_base_url(format!("http://{local}"));
        let server = mcp::Server::builder(calendar.clone()).build()?;
        let page = mcp_examples::calendar_connect::page_router(calendar);
        let http = listener.serve(page.into_make_service());
        tokio::spawn(async move {
            if let Err(e) = http.await {
                tracing::error!(error = %e, "the connect page failed");
            }
        });
        return mcp_examples::serve_stdio(server).await;
    }
    let app = mcp_examples::calendar_connect::app(calendar, local)?;
    println!("listening http://{local}/mcp");
    listener
        .serve(app.into_make_service())
        .with_graceful_shutdown(mcp::transport::shutdown_signal())
        .await?;
    tracing::info!("shut down");
    Ok(())
}
