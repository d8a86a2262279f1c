//! Binding a TCP listener and serving a router until a shutdown signal.

use std::future::Future;
use std::net::SocketAddr;

use tokio::net::{TcpListener, ToSocketAddrs};

use crate::dispatch::IntoServer;
use crate::error::Error;

/// A bound Streamable HTTP listener.
///
/// ```no_run
/// # use mcp::{AdvancedService, RequestContext, ListToolsResult, CallToolParams, CallToolResponse, ServerError};
/// # struct Svc;
/// # impl AdvancedService for Svc {
/// #   async fn on_list_tools(&self, _: Option<String>, _: &RequestContext) -> Result<ListToolsResult, ServerError> { Ok(Default::default()) }
/// #   async fn on_call_tool(&self, _: CallToolParams, _: &RequestContext) -> Result<CallToolResponse, ServerError> { Err(ServerError::new("none")) }
/// # }
/// # async fn run() -> Result<(), mcp::Error> {
/// let server = mcp::Server::advanced(Svc, mcp::ServiceConfig::new("svc", "1.0.0"));
/// mcp::StreamableHttpListener::bind("127.0.0.1:9090").await?.serve("/mcp", server).await
/// # }
/// ```
#[derive(Debug)]
pub struct StreamableHttpListener {
    listener: TcpListener,
}

impl StreamableHttpListener {
    /// Binds `addr`.
    pub async fn bind(addr: impl ToSocketAddrs) -> Result<Self, Error> {
        Ok(Self {
            listener: TcpListener::bind(addr).await?,
        })
    }

    /// The bound address (useful after binding port 0).
    pub fn local_addr(&self) -> Result<SocketAddr, Error> {
        Ok(self.listener.local_addr()?)
    }

    /// Checks the service's configuration, then serves it at `path` until SIGINT or SIGTERM,
    /// draining in-flight requests before returning.
    pub async fn serve(self, path: &str, service: impl IntoServer) -> Result<(), Error> {
        self.serve_with_shutdown(path, service, shutdown_signal())
            .await
    }

    /// Like [`serve`](Self::serve), stopping when `signal` completes.
    pub async fn serve_with_shutdown(
        self,
        path: &str,
        service: impl IntoServer,
        signal: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), Error> {
        let server = service.into_server()?;
        let app = super::router(path, server.clone());
        // Standalone SSE streams never end by themselves: close them when shutdown starts,
        // so graceful shutdown only waits for in-flight requests.
        let signal = async move {
            signal.await;
            server.close_streams();
        };
        axum::serve(self.listener, app)
            .with_graceful_shutdown(signal)
            .await?;
        Ok(())
    }
}

/// Completes on SIGINT (Ctrl-C) or, on Unix, SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
}
