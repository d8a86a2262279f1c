//! MCP-level middleware: `tower` layers that see MCP requests, not bytes, on every transport.
//!
//! A layer wraps the core for the whole server
//! ([`ServerBuilder::layer`](crate::ServerBuilder::layer)) or for one tool, prompt or resource
//! ([`ServerBuilder::tool_layer`](crate::ServerBuilder::tool_layer),
//! [`prompt_layer`](crate::ServerBuilder::prompt_layer),
//! [`resource_layer`](crate::ServerBuilder::resource_layer), or on the method:
//! `#[tool(layer = ..., timeout = "30s", rate_limit = "10/min", concurrency = 4)]`, whose
//! keys [`attributes::middleware`](crate::attributes::middleware) describes). It sees
//! the typed [`McpRequest`](crate::McpRequest) — method, target, arguments, caller, era,
//! session, transport, whether it continues a multi-round call — and the typed
//! [`McpResponse`](crate::McpResponse); it may pass the request on, change it or the
//! result, or refuse it with a JSON-RPC error.
//!
//! Any `tower::Layer<Next>` whose service answers `McpRequest` with `McpResponse` fits
//! ([`McpLayer`]): tower's own (`ConcurrencyLimitLayer`, `TimeoutLayer`, `LoadShedLayer`,
//! `RateLimitLayer`, `ServiceBuilder` stacks) as they are, their errors answered as
//! [`error_object`] says. The stock layers here:
//!
//! | layer | what it does | refusal |
//! | --- | --- | --- |
//! | [`RateLimitLayer`] | GCRA rate limit per caller or for all, in memory or shared through a [`RateStore`] ([a Redis store](crate::middleware::RedisRateStore), feature `redis`) | `-32029` `Rate limit exceeded`, `data.retryAfterMs` |
//! | [`ConcurrencyLimitLayer`] | requests in flight per caller or for all | `-32003` `Server overloaded`, `data.limit` |
//! | [`DeadlineLayer`] | drops the handler's future at the deadline, as a cancellation does | `-32008` `Request timed out`, `data.timeoutMs` |
//! | [`AccessLogLayer`] | one `tracing` event per request (target `mcp::access`) | — |
//!
//! A layer of your own, with [`tower::layer::layer_fn`] and [`tower::service_fn`]-style
//! code or a `Service` type:
//!
//! ```
//! use mcp::middleware::{Next, Refusal};
//! use mcp::{McpRequest, McpResponse};
//! use tower::{Service, ServiceExt as _};
//!
//! /// Refuses calls whose `city` argument is empty.
//! #[derive(Clone)]
//! struct NoEmptyCity(Next);
//!
//! impl Service<McpRequest> for NoEmptyCity {
//!     type Response = McpResponse;
//!     type Error = std::convert::Infallible;
//!     type Future = mcp::BoxFuture<'static, Result<McpResponse, Self::Error>>;
//!
//!     fn poll_ready(&mut self, _: &mut std::task::Context<'_>) -> std::task::Poll<Result<(), Self::Error>> {
//!         std::task::Poll::Ready(Ok(()))
//!     }
//!
//!     fn call(&mut self, request: McpRequest) -> Self::Future {
//!         let empty = request
//!             .arguments()
//!             .and_then(|a| a.get("city"))
//!             .is_some_and(|c| c.as_str() == Some(""));
//!         let next = self.0.clone();
//!         Box::pin(async move {
//!             if empty {
//!                 let error = mcp::protocol::ErrorObject::new(
//!                     mcp::protocol::ErrorCode::INVALID_PARAMS,
//!                     "city is empty",
//!                 );
//!                 return Ok(McpResponse::from_error(error));
//!             }
//!             next.oneshot(request).await
//!         })
//!     }
//! }
//!
//! struct Weather;
//!
//! #[mcp::service(name = "weather", version = "1.0.0")]
//! impl Weather {
//!     /// The forecast.
//!     pub fn forecast(&self, city: String) -> String { format!("sunny in {city}") }
//! }
//!
//! let server = mcp::Server::builder(Weather)
//!     .tool_layer("forecast", tower::layer::layer_fn(NoEmptyCity))
//!     .build()?;
//! # let _ = (server, Refusal::overloaded(None));
//! # Ok::<(), mcp::Error>(())
//! ```

mod access;
mod concurrency;
mod deadline;
mod quota;
mod rate;
#[cfg(feature = "redis")]
mod redis;

pub use crate::dispatch::{LayerResponse, McpLayer, Next, Refusal, error_object};
pub use access::{AccessLog, AccessLogLayer};
pub use concurrency::{ConcurrencyLimit, ConcurrencyLimitLayer, Slotted};
pub use deadline::{Deadline, DeadlineFuture, DeadlineLayer};
pub use quota::{Quota, QuotaError};
pub use rate::{FailPolicy, RateLimit, RateLimitLayer, RateStore};
#[cfg(feature = "redis")]
pub use redis::RedisRateStore;
