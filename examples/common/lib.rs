//! Shared pieces of the example programs: the services themselves (so tests can serve them
//! in-process) and [`serve`], which applies the conventions every example follows (over
//! HTTP, or over stdin/stdout when the program is started with `--stdio`; with the `otel`
//! feature, OpenTelemetry export when `OTEL_EXPORTER_OTLP_ENDPOINT` is set: the `otel`
//! module).

pub mod authz;
pub mod authz_code;
pub mod bench;
pub mod calculator;
pub mod calendar_connect;
pub mod cart_demo;
pub mod conformance;
pub mod conformance_auth;
pub mod conformance_features;
pub mod conformance_input;
pub mod conformance_tasks;
pub mod crypto;
pub mod echo;
pub mod files;
pub mod inventory;
pub mod llm_loop;
pub mod loadgen;
pub mod notes;
pub mod oauth_cli;
#[cfg(feature = "otel")]
pub mod otel;
pub mod rate;
pub mod reports;
pub mod shopping_cart;
pub mod table_booking;
pub mod weather;

/// What [`serve`] and [`serve_with`] accept: a service (a type annotated with
/// `#[mcp::service]`, or an [`mcp::AdvancedService`]), an [`mcp::ServerBuilder`], or an
/// [`mcp::Server`] built already — what [`mcp::IntoServer`] accepts. The type parameter only
/// tells the three apart ([`serve_kind`]); it is inferred.
///
/// A service or a builder is built after the serving path's own settings are applied (with
/// the `otel` feature, `otel::Providers::instrument`); a built server is served as it is.
pub trait Serve<Kind>: Sized {
    /// Builds the server, applying `configure` to its builder first when there is one.
    fn build_with(
        self,
        configure: impl FnOnce(mcp::ServerBuilder) -> mcp::ServerBuilder,
    ) -> Result<mcp::Server, mcp::Error>;
}

/// The markers of the [`Serve`] implementations.
pub mod serve_kind {
    /// A service ([`mcp::IntoService`]).
    #[derive(Debug)]
    pub enum Service {}
    /// An [`mcp::ServerBuilder`].
    #[derive(Debug)]
    pub enum Builder {}
    /// A built [`mcp::Server`].
    #[derive(Debug)]
    pub enum Built {}
}

impl<T: mcp::IntoService> Serve<serve_kind::Service> for T {
    fn build_with(
        self,
        configure: impl FnOnce(mcp::ServerBuilder) -> mcp::ServerBuilder,
    ) -> Result<mcp::Server, mcp::Error> {
        configure(mcp::Server::builder(self)).build()
    }
}

impl Serve<serve_kind::Builder> for mcp::ServerBuilder {
    fn build_with(
        self,
        configure: impl FnOnce(mcp::ServerBuilder) -> mcp::ServerBuilder,
    ) -> Result<mcp::Server, mcp::Error> {
        configure(self).build()
    }
}

impl Serve<serve_kind::Built> for mcp::Server {
    fn build_with(
        self,
        _configure: impl FnOnce(mcp::ServerBuilder) -> mcp::ServerBuilder,
    ) -> Result<mcp::Server, mcp::Error> {
        Ok(self)
    }
}

/// The address examples bind when `MCP_ADDR` is not set.
pub const DEFAULT_ADDR: &str = "127.0.0.1:9090";

/// The command-line flag that serves MCP on stdin/stdout instead of HTTP.
pub const STDIO_FLAG: &str = "--stdio";

/// `true` when the program was started with `--stdio`.
pub fn stdio_requested() -> bool {
    std::env::args().skip(1).any(|a| a == STDIO_FLAG)
}

/// Serves `server` on stdin/stdout (logs on stderr, nothing but protocol lines on stdout)
/// until stdin ends, stdout closes, or SIGINT/SIGTERM.
pub async fn serve_stdio(server: mcp::Server) -> Result<(), mcp::Error> {
    tracing::info!(server = %server.info().name, "serving MCP on stdin/stdout");
    tokio::select! {
        served = server.serve_stdio() => served?,
        () = mcp::transport::shutdown_signal() => {}
    }
    tracing::info!("shut down");
    Ok(())
}

/// Serves `service` at `/mcp` the way every example does: binds `MCP_ADDR` (default
/// `127.0.0.1:9090`), logs through `tracing` to stderr (`RUST_LOG`), prints
/// `listening http://<addr>/mcp` on stdout once it accepts connections, and returns cleanly
/// on SIGINT or SIGTERM after draining in-flight requests. With `--stdio` it serves MCP on
/// stdin/stdout instead ([`serve_stdio`]) and binds nothing.
///
/// With the `otel` feature and `OTEL_EXPORTER_OTLP_ENDPOINT` set, the server's traces and
/// metrics are exported over OTLP/HTTP (the `otel` module; not for an [`mcp::Server`] built
/// already) and flushed when serving ends.
pub async fn serve<K>(service: impl Serve<K>) -> Result<(), mcp::Error> {
    serve_with(|_| service).await
}

/// Like [`serve`], for a service whose configuration depends on the bound address (known
/// only after binding when `MCP_ADDR` names port 0): `make` gets that address.
pub async fn serve_with<K, S: Serve<K>>(
    make: impl FnOnce(std::net::SocketAddr) -> S,
) -> Result<(), mcp::Error> {
    init_tracing();
    // Installed before the server is built, shut down (flushing) when this returns.
    #[cfg(feature = "otel")]
    let providers = otel::init();
    let configure = |builder: mcp::ServerBuilder| {
        #[cfg(feature = "otel")]
        let builder = otel::instrument(builder, providers.as_ref());
        builder
    };
    let addr = std::env::var("MCP_ADDR").unwrap_or_else(|_| DEFAULT_ADDR.to_owned());
    if stdio_requested() {
        // Nothing is bound: the configuration sees the address HTTP would have used.
        let local = addr
            .parse()
            .unwrap_or_else(|_| std::net::SocketAddr::from(([127, 0, 0, 1], 9090)));
        return serve_stdio(make(local).build_with(configure)?).await;
    }
    let listener = mcp::HttpServer::bind(addr.as_str()).await?;
    let local = listener.local_addr()?;
    let server = make(local).build_with(configure)?;
    println!("listening http://{local}/mcp");
    let app = mcp::transport::http::router("/mcp", server);
    listener
        .serve(app.into_make_service())
        .with_graceful_shutdown(mcp::transport::shutdown_signal())
        .await?;
    tracing::info!("shut down");
    Ok(())
}

/// Logs to stderr, filtered by `RUST_LOG` (default `info`).
pub fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}
