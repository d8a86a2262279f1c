//! The stock deadline ([`DeadlineLayer`]).

use std::task::{Context, Poll};
use std::time::Duration;

use tower::{Layer, Service};

use super::Refusal;
use crate::base::BoxFuture;
use crate::dispatch::{McpRequest, McpResponse};

/// A deadline: a request not answered within `timeout` is answered `-32008` `Request timed
/// out`, `data` `{"timeoutMs": …}`, and the handler's future is dropped, as a client's
/// cancellation drops it (whatever it awaits is dropped with it). On a tool
/// (`#[tool(timeout = "30s")]`, or [`ServerBuilder::tool_layer`](crate::ServerBuilder::tool_layer))
/// each round of a multi-round call has its own deadline.
///
/// ```
/// use std::time::Duration;
/// use mcp::middleware::DeadlineLayer;
///
/// struct Svc;
///
/// #[mcp::service(name = "svc", version = "1.0.0")]
/// impl Svc {
///     /// Thinks for a while.
///     pub async fn think(&self) -> String { "42".into() }
/// }
///
/// let server = mcp::Server::builder(Svc)
///     .tool_layer("think", DeadlineLayer::new(Duration::from_secs(30)))
///     .build()?;
/// # let _ = server;
/// # Ok::<(), mcp::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct DeadlineLayer {
    timeout: Duration,
}

impl DeadlineLayer {
    /// Answers a request that takes longer than `timeout` with a timeout error.
    pub fn new(timeout: Duration) -> Self {
        Self { timeout }
    }
}

impl<S> Layer<S> for DeadlineLayer {
    type Service = Deadline<S>;

    fn layer(&self, inner: S) -> Deadline<S> {
        Deadline {
            inner,
            timeout: self.timeout,
        }
    }
}

/// The service of a [`DeadlineLayer`].
#[derive(Clone, Debug)]
pub struct Deadline<S> {
    inner: S,
    timeout: Duration,
}

impl<S> Service<McpRequest> for Deadline<S>
where
    S: Service<McpRequest, Response = McpResponse>,
    S::Future: Send + 'static,
    S::Error: 'static,
{
    type Response = McpResponse;
    type Error = S::Error;
    type Future = BoxFuture<'static, Result<McpResponse, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        let timeout = self.timeout;
        let method_is_call = request.method() == "tools/call";
        let served = tokio::time::timeout(timeout, self.inner.call(request));
        Box::pin(async move {
            served.await.unwrap_or_else(|_| {
                tracing::debug!(?timeout, tool_call = method_is_call, "deadline passed");
                Ok(McpResponse::from_error(
                    Refusal::timed_out(Some(timeout)).error,
                ))
            })
        })
    }
}
