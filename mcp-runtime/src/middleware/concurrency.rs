//! The stock concurrency limit ([`ConcurrencyLimitLayer`]): requests in flight per caller or
//! for all callers; one over the limit is refused at once, never queued.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use futures_util::future::Either;
use tower::{Layer, Service};

use super::Refusal;
use crate::base::Caller;
use crate::dispatch::{McpRequest, McpResponse};

/// Who shares one limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scope {
    PerCaller,
    Total,
}

/// A limit on requests in flight: `limit` for each caller ([`per_caller`](Self::per_caller),
/// keyed on [`McpRequest::caller`]) or for all of them ([`total`](Self::total)). One more is
/// refused at once with `-32003` `Server overloaded`, `data` `{"limit": n}` (unlike tower's
/// `ConcurrencyLimitLayer`, which queues it: a burst from one caller costs the server no
/// memory). A request's slot is freed when its answer is ready or its future is dropped
/// (a cancellation, a deadline).
///
/// Each `layer` call (each place it is attached) has its own counts. A `limit` of 0 is taken
/// as 1.
///
/// ```
/// use mcp::middleware::ConcurrencyLimitLayer;
///
/// struct Svc;
///
/// #[mcp::service(name = "svc", version = "1.0.0")]
/// impl Svc {
///     /// Renders a report.
///     pub async fn report(&self) -> String { "done".into() }
/// }
///
/// let server = mcp::Server::builder(Svc)
///     .layer(ConcurrencyLimitLayer::per_caller(8))
///     .tool_layer("report", ConcurrencyLimitLayer::total(2))
///     .build()?;
/// # let _ = server;
/// # Ok::<(), mcp::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct ConcurrencyLimitLayer {
    limit: usize,
    scope: Scope,
}

impl ConcurrencyLimitLayer {
    /// `limit` requests in flight for each caller.
    pub fn per_caller(limit: usize) -> Self {
        Self {
            limit: limit.max(1),
            scope: Scope::PerCaller,
        }
    }

    /// `limit` requests in flight for all callers together.
    pub fn total(limit: usize) -> Self {
        Self {
            limit: limit.max(1),
            scope: Scope::Total,
        }
    }
}

impl<S> Layer<S> for ConcurrencyLimitLayer {
    type Service = ConcurrencyLimit<S>;

    fn layer(&self, inner: S) -> ConcurrencyLimit<S> {
        ConcurrencyLimit {
            inner,
            limit: self.limit,
            scope: self.scope,
            in_flight: Arc::default(),
        }
    }
}

/// The service of a [`ConcurrencyLimitLayer`].
#[derive(Clone)]
pub struct ConcurrencyLimit<S> {
    inner: S,
    limit: usize,
    scope: Scope,
    in_flight: Arc<Mutex<HashMap<Caller, usize>>>,
}

/// A request's slot, freed when dropped.
struct Slot {
    in_flight: Arc<Mutex<HashMap<Caller, usize>>>,
    caller: Caller,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut map = self.in_flight.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(count) = map.get_mut(&self.caller) {
            *count -= 1;
            if *count == 0 {
                map.remove(&self.caller);
            }
        }
    }
}

pin_project_lite::pin_project! {
    /// The answer of a [`ConcurrencyLimit`]: the inner service's, holding the request's slot
    /// until it is ready or dropped.
    pub struct Slotted<F> {
        #[pin]
        served: F,
        slot: Option<Slot>,
    }
}

impl<F: Future> Future for Slotted<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.project();
        let out = std::task::ready!(this.served.poll(cx));
        // The answer is ready: the slot is free before the transport writes it.
        this.slot.take();
        Poll::Ready(out)
    }
}

impl<S> Service<McpRequest> for ConcurrencyLimit<S>
where
    S: Service<McpRequest, Response = McpResponse>,
{
    type Response = McpResponse;
    type Error = S::Error;
    type Future = Either<std::future::Ready<Result<McpResponse, S::Error>>, Slotted<S::Future>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        let caller = match self.scope {
            Scope::PerCaller => request.caller(),
            Scope::Total => Caller::Anonymous,
        };
        {
            let mut map = self.in_flight.lock().unwrap_or_else(|e| e.into_inner());
            let count = map.entry(caller.clone()).or_insert(0);
            if *count >= self.limit {
                tracing::debug!(limit = self.limit, "concurrency limit reached");
                let refusal = McpResponse::from_error(Refusal::overloaded(Some(self.limit)).error);
                return Either::Left(std::future::ready(Ok(refusal)));
            }
            *count += 1;
        }
        let slot = Slot {
            in_flight: Arc::clone(&self.in_flight),
            caller,
        };
        Either::Right(Slotted {
            served: self.inner.call(request),
            slot: Some(slot),
        })
    }
}
