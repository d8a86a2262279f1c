//! Binding a TCP listener and serving any app until a shutdown signal.
//!
//! The accept loop is our own (hyper-util's connection builder under a graceful-shutdown
//! watcher) rather than `axum::serve`, because `axum::serve` gives hyper no timer: a client
//! that sends its request headers one byte a minute, or opens a connection and sends nothing,
//! would hold a connection forever. Here every connection has a header read timeout and an
//! idle timeout, the number of open connections is capped (at the cap the loop stops
//! accepting until one closes), and shutdown drains in-flight requests for a bounded time.

use std::convert::Infallible;
use std::future::{Future, IntoFuture};
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::BoxError;
use axum::body::HttpBody;
use axum::extract::ConnectInfo;
use http::{Request, Response};
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream, ToSocketAddrs};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};
use tokio_util::sync::CancellationToken;
use tower::ServiceExt as _;

use crate::error::Error;

/// Default time a client has to send a request's headers.
pub const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(30);
/// Default time a connection may stay quiet (no byte either way) before it is closed.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// Default cap on open connections.
pub const DEFAULT_MAX_CONNECTIONS: usize = 10_000;
/// Default time shutdown waits for in-flight requests before returning.
pub const DEFAULT_DRAIN_TIMEOUT: Duration = Duration::from_secs(30);
/// The HTTP/1 read buffer, which bounds a request's head (request line and headers).
const H1_MAX_BUF_SIZE: usize = 64 * 1024;
/// Concurrent streams one HTTP/2 connection may open.
const H2_MAX_CONCURRENT_STREAMS: u32 = 100;

/// An HTTP server: a bound TCP listener that serves any app (an axum router holding
/// [`router`](super::router) or [`McpService`](super::McpService) beside your own routes,
/// [`VirtualHosts`](super::VirtualHosts), any tower make-service) with the connection
/// limits `axum::serve` cannot give hyper: a header read timeout, an idle timeout, a cap on
/// open connections and a bounded drain on shutdown.
///
/// Every request carries the peer address as
/// [`ConnectInfo<SocketAddr>`](axum::extract::ConnectInfo) (so axum's extractor works), and
/// the MCP routes know the bound address (the `Host` check's default) without a
/// [`BoundAddr`](super::BoundAddr) extension: the listener gives it to them in its own
/// extension, with its shutdown token, so that a request carries two extensions, not three.
/// Serving stops only when the future given to
/// [`with_graceful_shutdown`](Serve::with_graceful_shutdown) resolves (pass
/// [`shutdown_signal`](crate::transport::shutdown_signal) for SIGINT and SIGTERM); then the listener stops accepting, the MCP
/// endpoints it serves close their SSE streams, and in-flight requests get the drain
/// timeout to finish.
///
/// The HTTP limits live here, except the request body's: its size cap and read timeout are
/// per service ([`HttpConfig::max_body_bytes`](super::HttpConfig::max_body_bytes),
/// [`HttpConfig::body_read_timeout`](super::HttpConfig::body_read_timeout)) because the MCP endpoint
/// enforces them itself, answering with the JSON-RPC errors MCP clients expect, while this
/// server also serves routes that are not MCP's.
///
/// ```no_run
/// # struct Svc;
/// # #[mcp::service(name = "svc", version = "1.0.0")]
/// # impl Svc { pub fn ping(&self) -> String { "pong".into() } }
/// # async fn run() -> Result<(), mcp::Error> {
/// let server = mcp::Server::builder(Svc).build()?;
/// let app = axum::Router::new()
///     .route("/health", axum::routing::get(|| async { "ok" }))
///     .merge(mcp::transport::http::router("/mcp", server));
/// mcp::HttpServer::bind("127.0.0.1:9090")
///     .await?
///     .header_read_timeout(std::time::Duration::from_secs(10))
///     .serve(app.into_make_service())
///     .with_graceful_shutdown(mcp::transport::shutdown_signal())
///     .await
/// # }
/// ```
#[derive(Debug)]
pub struct HttpServer {
    listener: TcpListener,
    header_read_timeout: Duration,
    idle_timeout: Duration,
    max_connections: usize,
    drain_timeout: Duration,
}

/// What the listener tells each request about its connection, in one request extension
/// (next to axum's `ConnectInfo`): the bound address, which the MCP routes' `Host` check
/// reads as it reads [`BoundAddr`](super::BoundAddr), and the serving's token, cancelled
/// when graceful shutdown starts (the MCP endpoint then closes its streams).
#[derive(Clone, Debug)]
pub(crate) struct Accepted {
    pub(crate) bound: super::BoundAddr,
    pub(crate) shutdown: CancellationToken,
}

impl HttpServer {
    /// Binds `addr`.
    pub async fn bind(addr: impl ToSocketAddrs) -> Result<Self, Error> {
        Ok(Self::from_tcp(TcpListener::bind(addr).await?))
    }

    /// Wraps an already bound listener.
    pub fn from_tcp(listener: TcpListener) -> Self {
        Self {
            listener,
            header_read_timeout: DEFAULT_HEADER_READ_TIMEOUT,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            drain_timeout: DEFAULT_DRAIN_TIMEOUT,
        }
    }

    /// The bound address (useful after binding port 0).
    pub fn local_addr(&self) -> Result<SocketAddr, Error> {
        Ok(self.listener.local_addr()?)
    }

    /// How long a client has to send a request's headers, from the first byte of the request
    /// (or from the moment the connection opens). A connection that takes longer is closed.
    /// Default 30 seconds.
    #[must_use]
    pub fn header_read_timeout(mut self, timeout: Duration) -> Self {
        self.header_read_timeout = timeout;
        self
    }

    /// How long a connection may stay quiet (no byte read or written) before it is closed:
    /// a kept-alive connection between requests, or one whose request takes that long to
    /// answer without sending anything (the answer is still delivered, then the connection
    /// closes). Checked twice per period, so a quiet connection closes after 1 to 1.5 times
    /// this. Default 60 seconds.
    #[must_use]
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle_timeout = timeout.max(Duration::from_millis(2));
        self
    }

    /// The most connections open at once; at the cap, new connections wait in the kernel's
    /// accept queue until one closes. Default 10,000.
    #[must_use]
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.max_connections = connections.max(1);
        self
    }

    /// How long shutdown waits for in-flight requests before returning anyway. Default 30
    /// seconds.
    #[must_use]
    pub fn drain_timeout(mut self, timeout: Duration) -> Self {
        self.drain_timeout = timeout;
        self
    }

    /// Serves `make_service` (called with each connection's peer address for the service
    /// that answers its requests: `router.into_make_service()` for an axum router) until the
    /// returned future is dropped, or, with
    /// [`with_graceful_shutdown`](Serve::with_graceful_shutdown), until a signal. Await it.
    pub fn serve<M>(self, make_service: M) -> Serve<M> {
        Serve {
            server: self,
            make_service,
        }
    }

    async fn run<M, S, B>(
        self,
        mut make_service: M,
        signal: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), Error>
    where
        M: tower::Service<SocketAddr, Response = S, Error = Infallible> + Send + 'static,
        M::Future: Send,
        S: tower::Service<Request<Incoming>, Response = Response<B>> + Clone + Send + 'static,
        S::Future: Send + 'static,
        S::Error: Into<BoxError>,
        B: HttpBody + Send + 'static,
        B::Data: Send,
        B::Error: Into<BoxError>,
    {
        let mut builder = Builder::new(TokioExecutor::new());
        builder
            .http1()
            .timer(TokioTimer::new())
            .header_read_timeout(self.header_read_timeout)
            // Request heads beyond this get 431 (hyper reads in steps, so up to twice this
            // may be read before it refuses). HTTP/2 header lists are capped at 16 KiB.
            .max_buf_size(H1_MAX_BUF_SIZE)
            // A client that shuts down its sending side after the request still gets the
            // answer.
            .half_close(true);
        builder
            .http2()
            .timer(TokioTimer::new())
            .max_concurrent_streams(H2_MAX_CONCURRENT_STREAMS);
        let builder = Arc::new(builder);
        // The MCP routes' `Host` check reads the bound address (loopback or not, the port).
        let bound = super::BoundAddr(self.listener.local_addr()?);
        let stopping = CancellationToken::new();
        // Every connection task holds a receiver: `true` asks it to finish gracefully, and
        // `closed()` on the sender completes once all of them are gone.
        let (shutdown, watch) = watch::channel(false);
        let permits = Arc::new(Semaphore::new(self.max_connections));
        tokio::pin!(signal);
        loop {
            let permit = tokio::select! {
                permit = Arc::clone(&permits).acquire_owned() => match permit {
                    Ok(permit) => permit,
                    Err(_) => break,
                },
                () = &mut signal => break,
            };
            let (stream, peer) = tokio::select! {
                accepted = self.listener.accept() => match accepted {
                    Ok(accepted) => accepted,
                    Err(error) => {
                        accept_error(&error).await;
                        continue;
                    }
                },
                () = &mut signal => break,
            };
            // Small JSON responses should not wait for Nagle's algorithm.
            let _ = stream.set_nodelay(true);
            let service = match make_service.ready().await {
                Ok(make) => match make.call(peer).await {
                    Ok(service) => service,
                    Err(never) => match never {},
                },
                Err(never) => match never {},
            };
            let accepted = Accepted {
                bound,
                shutdown: stopping.clone(),
            };
            let service = service.map_request(move |mut request: Request<Incoming>| {
                let extensions = request.extensions_mut();
                extensions.insert(ConnectInfo(peer));
                extensions.insert(accepted.clone());
                request
            });
            tokio::spawn(serve_connection(
                Arc::clone(&builder),
                stream,
                TowerToHyperService::new(service),
                self.idle_timeout,
                watch.clone(),
                permit,
            ));
        }
        // MCP endpoints end their standalone streams, so the drain only waits for requests.
        stopping.cancel();
        drop(self.listener);
        drop(watch);
        let _ = shutdown.send(true);
        if tokio::time::timeout(self.drain_timeout, shutdown.closed())
            .await
            .is_err()
        {
            tracing::warn!(
                timeout = ?self.drain_timeout,
                "shutdown: connections still busy after the drain timeout"
            );
        }
        Ok(())
    }
}

/// [`HttpServer::serve`] in progress: await it to serve until the future is dropped, or
/// stop on a signal with [`with_graceful_shutdown`](Self::with_graceful_shutdown).
#[must_use = "a server does nothing until awaited"]
#[derive(Debug)]
pub struct Serve<M> {
    server: HttpServer,
    make_service: M,
}

impl<M> Serve<M> {
    /// Serves until `signal` completes, then stops accepting, closes the MCP endpoints'
    /// SSE streams, lets in-flight requests finish (for at most the drain timeout) and
    /// returns. Pass [`shutdown_signal`](crate::transport::shutdown_signal) to stop on SIGINT or SIGTERM.
    pub fn with_graceful_shutdown<F>(self, signal: F) -> WithGracefulShutdown<M, F>
    where
        F: Future<Output = ()> + Send + 'static,
    {
        WithGracefulShutdown {
            serve: self,
            signal,
        }
    }
}

/// [`Serve`] that stops when a signal completes.
#[must_use = "a server does nothing until awaited"]
pub struct WithGracefulShutdown<M, F> {
    serve: Serve<M>,
    signal: F,
}

impl<M: std::fmt::Debug, F> std::fmt::Debug for WithGracefulShutdown<M, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WithGracefulShutdown")
            .field("serve", &self.serve)
            .finish_non_exhaustive()
    }
}

impl<M, S, B> IntoFuture for Serve<M>
where
    M: tower::Service<SocketAddr, Response = S, Error = Infallible> + Send + 'static,
    M::Future: Send,
    S: tower::Service<Request<Incoming>, Response = Response<B>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Into<BoxError>,
    B: HttpBody + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    type Output = Result<(), Error>;
    type IntoFuture = Pin<Box<dyn Future<Output = Result<(), Error>> + Send>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(
            self.server
                .run(self.make_service, std::future::pending::<()>()),
        )
    }
}

impl<M, S, B, F> IntoFuture for WithGracefulShutdown<M, F>
where
    M: tower::Service<SocketAddr, Response = S, Error = Infallible> + Send + 'static,
    M::Future: Send,
    S: tower::Service<Request<Incoming>, Response = Response<B>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Into<BoxError>,
    B: HttpBody + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
    F: Future<Output = ()> + Send + 'static,
{
    type Output = Result<(), Error>;
    type IntoFuture = Pin<Box<dyn Future<Output = Result<(), Error>> + Send>>;

    fn into_future(self) -> Self::IntoFuture {
        let Serve {
            server,
            make_service,
        } = self.serve;
        Box::pin(server.run(make_service, self.signal))
    }
}

/// Serves one connection until it ends. When shutdown starts, or when no byte has moved
/// either way for about `idle_timeout`, the connection is asked to finish gracefully: hyper
/// completes the request in flight, if any, then closes it.
async fn serve_connection<S, B>(
    builder: Arc<Builder<TokioExecutor>>,
    stream: TcpStream,
    service: S,
    idle_timeout: Duration,
    mut shutdown: watch::Receiver<bool>,
    permit: OwnedSemaphorePermit,
) where
    S: hyper::service::Service<Request<Incoming>, Response = Response<B>> + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Into<BoxError>,
    B: HttpBody + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    let activity = Arc::new(AtomicU64::new(0));
    let io = Metered {
        inner: stream,
        activity: Arc::clone(&activity),
    };
    let connection = builder.serve_connection(TokioIo::new(io), service);
    tokio::pin!(connection);
    // Checked twice per timeout: a connection is closed after two quiet checks in a row.
    let mut check = tokio::time::interval(idle_timeout / 2);
    check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    check.tick().await;
    let (mut seen, mut quiet, mut closing) = (0, 0, false);
    loop {
        tokio::select! {
            ended = connection.as_mut() => {
                if let Err(error) = ended {
                    tracing::debug!(%error, "connection ended with an error");
                }
                break;
            }
            changed = shutdown.changed(), if !closing => {
                if changed.is_err() || *shutdown.borrow() {
                    connection.as_mut().graceful_shutdown();
                    closing = true;
                }
            }
            _ = check.tick(), if !closing => {
                let now = activity.load(Ordering::Relaxed);
                quiet = if now == seen { quiet + 1 } else { 0 };
                seen = now;
                if quiet >= 2 {
                    connection.as_mut().graceful_shutdown();
                    closing = true;
                }
            }
        }
    }
    drop(shutdown);
    drop(permit);
}

/// A socket that counts the reads and writes that moved bytes (the idle check's clock).
struct Metered {
    inner: TcpStream,
    activity: Arc<AtomicU64>,
}

impl Metered {
    fn moved(&self) {
        self.activity.fetch_add(1, Ordering::Relaxed);
    }
}

impl AsyncRead for Metered {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.moved();
        }
        polled
    }
}

impl AsyncWrite for Metered {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, buf);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.moved();
        }
        polled
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.moved();
        }
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// Accept errors other than a peer's aborted handshake mean the process is short of
/// something (file descriptors, memory): wait a little instead of spinning.
async fn accept_error(error: &std::io::Error) {
    use std::io::ErrorKind;
    if matches!(
        error.kind(),
        ErrorKind::ConnectionAborted | ErrorKind::ConnectionReset | ErrorKind::ConnectionRefused
    ) {
        return;
    }
    tracing::warn!(%error, "accept failed; retrying shortly");
    tokio::time::sleep(Duration::from_millis(100)).await;
}
