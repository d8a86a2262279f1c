//! The stock access log ([`AccessLogLayer`]).

use std::task::{Context, Poll};
use std::time::Instant;

use tower::{Layer, Service};

use crate::base::BoxFuture;
use crate::dispatch::{McpRequest, McpResponse};
use crate::protocol::Era;

/// One structured `tracing` event per request, at `INFO` with target `mcp::access`, when
/// its answer is ready:
///
/// | field | value |
/// | --- | --- |
/// | `method` | the JSON-RPC method |
/// | `target` | the tool, prompt or resource URI (empty for other methods) |
/// | `caller` | [`Caller`](crate::Caller) as text: `id:<identity>`, `ip:<address>`, `conn:<n>`, `anonymous` |
/// | `era` | `modern` or `legacy` |
/// | `transport` | `http`, `stdio` or `in-process` |
/// | `continuation` | a later round of a multi-round call |
/// | `outcome` | `ok` or `error` |
/// | `code` | the JSON-RPC error code (0 when `ok`) |
/// | `duration_us` | microseconds from the request reaching the layer to its answer |
///
/// Nothing secret: no arguments, no result, no token (an identified caller is its issuer,
/// client and subject). A request dropped before its answer (a cancellation) logs nothing.
/// When the event is disabled (`RUST_LOG` without `mcp::access=info`) the layer costs one
/// check per request.
///
/// ```
/// let server = mcp::Server::builder(Svc)
///     .layer(mcp::middleware::AccessLogLayer::new())
///     .build()?;
/// # struct Svc;
/// # #[mcp::service(name = "svc", version = "1.0.0")]
/// # impl Svc { /// Pings.
/// #     pub fn ping(&self) -> String { "pong".into() } }
/// # let _ = server;
/// # Ok::<(), mcp::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct AccessLogLayer {
    _private: (),
}

impl AccessLogLayer {
    /// The access log.
    pub fn new() -> Self {
        Self::default()
    }
}

impl<S> Layer<S> for AccessLogLayer {
    type Service = AccessLog<S>;

    fn layer(&self, inner: S) -> AccessLog<S> {
        AccessLog { inner }
    }
}

/// The service of an [`AccessLogLayer`].
#[derive(Clone, Debug)]
pub struct AccessLog<S> {
    inner: S,
}

/// What the event names, taken before the request moves on.
struct Entry {
    method: String,
    target: String,
    caller: String,
    era: Era,
    transport: &'static str,
    continuation: bool,
    start: Instant,
}

impl<S> Service<McpRequest> for AccessLog<S>
where
    S: Service<McpRequest, Response = McpResponse>,
    S::Future: Send + 'static,
    S::Error: 'static,
{
    type Response = McpResponse;
    type Error = S::Error;
    type Future =
        futures_util::future::Either<S::Future, BoxFuture<'static, Result<McpResponse, S::Error>>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        if !tracing::enabled!(target: "mcp::access", tracing::Level::INFO) {
            return futures_util::future::Either::Left(self.inner.call(request));
        }
        let entry = Entry {
            method: request.method().to_owned(),
            target: request.target().unwrap_or_default().to_owned(),
            caller: request.caller().to_string(),
            era: request.era(),
            transport: request.transport().as_str(),
            continuation: request.is_continuation(),
            start: Instant::now(),
        };
        let served = self.inner.call(request);
        futures_util::future::Either::Right(Box::pin(async move {
            let out = served.await;
            let code = match &out {
                Ok(response) => response.error().map_or(0, |e| e.code.get()),
                Err(_) => crate::protocol::ErrorCode::INTERNAL_ERROR.get(),
            };
            tracing::info!(
                target: "mcp::access",
                method = %entry.method,
                target = %entry.target,
                caller = %entry.caller,
                era = %if entry.era == Era::Modern { "modern" } else { "legacy" },
                transport = %entry.transport,
                continuation = entry.continuation,
                outcome = %if code == 0 { "ok" } else { "error" },
                code,
                duration_us = u64::try_from(entry.start.elapsed().as_micros()).unwrap_or(u64::MAX),
                "request"
            );
            out
        }))
    }
}
