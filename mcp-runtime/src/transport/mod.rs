//! The transports: each turns its bytes into the core's [`McpRequest`](crate::McpRequest)
//! and the core's answer back into bytes, and owns its settings, buffers and framing.
//!
//! | transport | module | serve it with |
//! | --- | --- | --- |
//! | Streamable HTTP (both eras, sessions, SSE, OAuth) | [`http`] | [`HttpServer`](crate::HttpServer), [`McpService`](crate::McpService), [`http::router`] |
//! | stdio (newline-delimited JSON-RPC) | [`stdio`] | [`Server::serve_stdio`](crate::Server::serve_stdio) |
//! | in-process (a message pipe, no socket) | [`in_process`] | [`Server::serve_in_process`](crate::Server::serve_in_process) |

pub mod http;
pub mod in_process;
pub mod stdio;

/// The token [`McpService::with_shutdown`](crate::McpService::with_shutdown) takes
/// (tokio-util's, re-exported so you never have to match its version).
pub use tokio_util::sync::CancellationToken;

pub use crate::base::TransportConfig;

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
