//! The MCP endpoint as a path-agnostic tower service, the OAuth metadata router that stays
//! at the host root, and the convenience router that mounts both.

use std::convert::Infallible;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::Router;
use axum::body::{Body, HttpBody};
use axum::response::Response;
use bytes::Bytes;
use futures_util::future::{BoxFuture, Either};
use http::Request;
use tokio_util::sync::CancellationToken;
#[cfg(feature = "oauth")]
use tower::util::BoxCloneSyncService;
use tower::{Layer, Service};

use super::gate::{self, GateService};
use super::{Endpoint, HttpConfig};
use crate::dispatch::Server;

/// The MCP endpoint as a [`tower::Service`]: it answers POST, GET and DELETE on whatever
/// path it is mounted at, so mount it with [`Router::nest_service`] or
/// [`Router::route_service`] next to your own routes, under your own layers.
///
/// It runs, in this order: the `Host` check, the `Origin` check, CORS (a preflight is
/// answered here), then (on OAuth-protected services) the bearer-token check, then the MCP
/// handler. A protected service's metadata document is not part of it: mount
/// [`metadata_router`] at the host root too (or use [`router`], which does both).
///
/// ```
/// # struct Svc;
/// # #[mcp::service(name = "svc", version = "1.0.0")]
/// # impl Svc { pub fn ping(&self) -> String { "pong".into() } }
/// let server = mcp::Server::builder(Svc).build().unwrap();
/// let shutdown = mcp::transport::CancellationToken::new();
/// let app: axum::Router = axum::Router::new()
///     .route("/health", axum::routing::get(|| async { "ok" }))
///     .nest_service("/mcp", mcp::McpService::new(server.clone()).with_shutdown(shutdown.clone()))
///     .merge(mcp::transport::http::metadata_router(&server));
/// ```
///
/// # Shutdown
///
/// Standalone SSE streams (GET) never end by themselves, and a legacy call waiting for the
/// client's input waits for as long as its timeout. They end when the serving stops:
/// [`HttpServer`](crate::HttpServer) tells every service it serves when its
/// [`with_graceful_shutdown`](super::Serve::with_graceful_shutdown) future resolves; when
/// you serve the service yourself (`axum::serve`), hand it a token with
/// [`with_shutdown`](Self::with_shutdown) and cancel it when shutdown starts:
///
/// ```no_run
/// # async fn run(server: mcp::Server) -> std::io::Result<()> {
/// let token = mcp::transport::CancellationToken::new();
/// let endpoint = mcp::McpService::new(server).with_shutdown(token.clone());
/// let app = axum::Router::new().nest_service("/mcp", endpoint);
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:9090").await?;
/// axum::serve(listener, app)
///     .with_graceful_shutdown(async move {
///         mcp::transport::shutdown_signal().await;
///         token.cancel();
///     })
///     .await
/// # }
/// ```
///
/// (`axum::serve` does not tell the endpoint its bound address: list the `Host` names it
/// accepts with [`HttpConfig::allowed_hosts`](super::HttpConfig::allowed_hosts), or
/// add a [`BoundAddr`](super::BoundAddr) extension.)
///
/// # Layers around a streaming endpoint
///
/// GET answers are SSE streams that stay open for the whole session, and a legacy
/// `tools/call` that asks the client for input (elicitation) answers with a stream that
/// lasts until the client has answered. Layers that bound a whole response therefore cut
/// them: do not put `tower_http::timeout::TimeoutLayer` (or `tower::timeout`) around the
/// endpoint, nor a layer that buffers the response body (compression of `text/event-stream`,
/// response-body limits). Safe: tracing, request ids, headers (`SetResponseHeader`),
/// authentication that runs before the handler, concurrency limits (each open stream holds
/// a slot), and timeouts scoped to your own routes. Request-body limits and body read
/// timeouts are the service's own ([`HttpConfig::max_body_bytes`](super::HttpConfig::max_body_bytes),
/// [`HttpConfig::body_read_timeout`](super::HttpConfig::body_read_timeout)), answered as JSON-RPC errors.
#[derive(Clone)]
pub struct McpService {
    server: Server,
    inner: Inner,
}

/// What serves a request once it reaches the service: the gate (Host, Origin, CORS) around
/// the endpoint, with the bearer-token check in between on a protected service. Plain
/// services call the endpoint directly (no router, no boxed service per request).
#[derive(Clone)]
enum Inner {
    Plain(GateService<EndpointService>),
    #[cfg(feature = "oauth")]
    Guarded(GateService<BoxCloneSyncService<Request<Body>, Response, Infallible>>),
}

/// The endpoint as a tower service: [`super::endpoint`] with the service's state.
#[derive(Clone)]
pub(super) struct EndpointService(Endpoint);

impl Service<Request<Body>> for EndpointService {
    type Response = Response;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<Response, Infallible>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<Body>) -> Self::Future {
        let state = self.0.clone();
        Box::pin(async move { Ok(super::endpoint(state, request).await) })
    }
}

impl std::fmt::Debug for McpService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpService")
            .field("server", &self.server)
            .finish_non_exhaustive()
    }
}

impl McpService {
    /// The endpoint of `server`.
    pub fn new(server: Server) -> Self {
        Self::build(server, None)
    }

    /// Ends the standalone SSE streams and the waits for client input when `token` is
    /// cancelled (needed only when the service is not served by
    /// [`HttpServer`](crate::HttpServer), which does it by itself).
    #[must_use]
    pub fn with_shutdown(self, token: CancellationToken) -> Self {
        Self::build(self.server, Some(token))
    }

    /// The server this endpoint serves.
    pub fn server(&self) -> &Server {
        &self.server
    }

    fn build(server: Server, shutdown: Option<CancellationToken>) -> Self {
        let config = server
            .config()
            .transports
            .get::<HttpConfig>()
            .cloned()
            .unwrap_or_default();
        let gate = gate::Gate::new(&config, server.protocol_mode());
        let endpoint = EndpointService(Endpoint {
            server: Arc::new(server.clone()),
            config: Arc::new(config),
            shutdown,
        });
        #[cfg(feature = "oauth")]
        if let Some(guard) = server.guard() {
            let guarded =
                axum::middleware::from_fn_with_state(guard.clone(), crate::auth::require_auth)
                    .layer(endpoint);
            let inner = Inner::Guarded(gate.layer(BoxCloneSyncService::new(guarded)));
            return Self { server, inner };
        }
        let inner = Inner::Plain(gate.layer(endpoint));
        Self { server, inner }
    }
}

impl From<Server> for McpService {
    fn from(server: Server) -> Self {
        Self::new(server)
    }
}

impl<B> Service<Request<B>> for McpService
where
    B: HttpBody<Data = Bytes> + Send + 'static,
    B::Error: Into<axum::BoxError>,
{
    type Response = Response;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<Response, Infallible>>;

    /// Always ready: every part of the service is.
    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let request = request.map(Body::new);
        match &mut self.inner {
            // A request the gate passes on without CORS is the endpoint's own boxed future:
            // returned as it is, not boxed again.
            Inner::Plain(service) => match service.call(request) {
                Either::Right(Either::Right(endpoint)) => endpoint,
                other => Box::pin(other),
            },
            #[cfg(feature = "oauth")]
            Inner::Guarded(service) => Box::pin(service.call(request)),
        }
    }
}

/// The public OAuth protected resource metadata route of `server`
/// (`/.well-known/oauth-protected-resource<path of the resource>`, the path taken from
/// [`OAuthConfig::new`](crate::auth::OAuthConfig::new)'s resource URL, served without
/// authentication, `Host` or `Origin` checks, CORS `*`). Merge it at the host root, whatever
/// the path the endpoint is mounted at. Empty for a service that is not OAuth-protected.
pub fn metadata_router(server: &Server) -> Router {
    #[cfg(feature = "oauth")]
    if let Some(guard) = server.guard() {
        return crate::auth::metadata_router(guard);
    }
    let _ = server;
    Router::new()
}

/// An axum [`Router`] serving `server` at exactly `path` ([`McpService`] with
/// [`Router::route_service`]) and its [`metadata_router`]: the common case. Merge your own
/// routes into it, or serve it with [`HttpServer`](crate::HttpServer).
///
/// ```
/// # struct Svc;
/// # #[mcp::service(name = "svc", version = "1.0.0")]
/// # impl Svc { pub fn ping(&self) -> String { "pong".into() } }
/// let server = mcp::Server::builder(Svc).build().unwrap();
/// let app: axum::Router = axum::Router::new()
///     .route("/health", axum::routing::get(|| async { "ok" }))
///     .merge(mcp::transport::http::router("/mcp", server));
/// ```
///
/// The `Host` check's default needs the address the server is bound to, which this
/// router does not know: [`HttpServer`](crate::HttpServer) supplies it; when you serve the
/// router yourself, add a [`BoundAddr`](super::BoundAddr) extension or list the accepted
/// names with [`HttpConfig::allowed_hosts`](super::HttpConfig::allowed_hosts).
pub fn router(path: &str, server: Server) -> Router {
    Router::new()
        .route_service(path, McpService::new(server.clone()))
        .merge(metadata_router(&server))
}
