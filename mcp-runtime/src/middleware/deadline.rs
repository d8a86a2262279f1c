//! The stock deadline ([`DeadlineLayer`]).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tower::{Layer, Service};

use super::Refusal;
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
{
    type Response = McpResponse;
    type Error = S::Error;
    type Future = DeadlineFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        DeadlineFuture {
            served: tokio::time::timeout(self.timeout, self.inner.call(request)),
            timeout: self.timeout,
        }
    }
}

pin_project_lite::pin_project! {
    /// The answer of a [`Deadline`]: the inner service's, or a timeout error once the deadline
    /// passes (the inner future is then dropped with this one).
    pub struct DeadlineFuture<F> {
        #[pin]
        served: tokio::time::Timeout<F>,
        timeout: Duration,
    }
}

impl<F, E> Future for DeadlineFuture<F>
where
    F: Future<Output = Result<McpResponse, E>>,
{
    type Output = Result<McpResponse, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        match this.served.poll(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Ok(out)) => Poll::Ready(out),
            Poll::Ready(Err(_elapsed)) => {
                tracing::debug!(timeout = ?this.timeout, "deadline passed");
                let refusal = Refusal::timed_out(Some(*this.timeout));
                Poll::Ready(Ok(McpResponse::from_error(refusal.error)))
            }
        }
    }
}
