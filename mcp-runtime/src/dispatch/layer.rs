//! MCP-level middleware: `tower` layers around the core, for the whole server
//! ([`ServerBuilder::layer`](super::ServerBuilder::layer)) or for one tool, prompt or
//! resource ([`ServerBuilder::tool_layer`](super::ServerBuilder::tool_layer) and its
//! siblings, `#[tool(layer = ...)]`).
//!
//! A layer wraps [`Next`], the rest of the pipeline; the service it makes is built once, when
//! the server is built, and every request goes through that one instance (so a tower
//! `RateLimit`, which must not be cloned, counts every request). Its readiness and `call`
//! are taken in turn under a lock; the future `call` returns runs outside it. Its errors
//! become JSON-RPC errors ([`error_object`]); a panic in it becomes `-32603`.

use std::collections::HashMap;
use std::convert::Infallible;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Weak};
use std::task::{Context, Poll};
use std::time::Duration;

use futures_util::FutureExt as _;
use serde_json::json;
use tower::{Service, ServiceExt as _};

use super::request::{McpRequest, McpResponse};
use super::{BoxFuture, Inner, Server, UriTemplate, internal_error, panic_detail};
use crate::error::BoxError;
use crate::protocol::{ErrorCode, ErrorObject};

/// The rest of the pipeline, which a layer wraps: the server's later layers, then the
/// called tool's, prompt's or resource's own layers, then its handler.
///
/// A [`tower::Service<McpRequest>`] that is always ready and never fails (its error is
/// [`Infallible`]); a layer that fits the server is a `tower::Layer<Next>` whose service
/// answers an [`McpRequest`] with an [`McpResponse`] and fails, if it fails, with an error
/// [`error_object`] maps to a JSON-RPC error.
#[derive(Clone)]
pub struct Next {
    hop: Hop,
}

#[derive(Clone)]
enum Hop {
    /// A later layer of the same list.
    Stack(Arc<Stack>),
    /// The per-target layers, then the handler (after the server's layers).
    Targets(Weak<Inner>),
    /// The handler (after a target's layers).
    Core(Weak<Inner>),
}

impl std::fmt::Debug for Next {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let hop = match self.hop {
            Hop::Stack(_) => "layer",
            Hop::Targets(_) => "targets",
            Hop::Core(_) => "handler",
        };
        f.debug_struct("Next").field("hop", &hop).finish()
    }
}

impl Next {
    fn serve(&self, request: McpRequest) -> BoxFuture<'static, McpResponse> {
        let server = |inner: &Weak<Inner>| inner.upgrade().map(|inner| Server { inner });
        match &self.hop {
            Hop::Stack(stack) => Arc::clone(stack).serve(request),
            Hop::Targets(inner) => match server(inner) {
                Some(server) => server.serve_targeted(request),
                None => gone(),
            },
            Hop::Core(inner) => match server(inner) {
                Some(server) => server.serve_core(request),
                None => gone(),
            },
        }
    }
}

/// A request still in flight when its server was dropped.
fn gone() -> BoxFuture<'static, McpResponse> {
    Box::pin(std::future::ready(McpResponse(internal_error())))
}

impl Service<McpRequest> for Next {
    type Response = McpResponse;
    type Error = Infallible;
    type Future = super::serve::Answer;

    /// Always ready: what limits requests is a layer's business.
    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        self.serve(request).map(Ok)
    }
}

/// A layer's service, built once, behind its type: requests take its readiness and its
/// `call` in turn.
pub(crate) type Stack = dyn Erased;

/// A built layer's service whatever its type ([`StackOf`]).
#[doc(hidden)]
pub trait Erased: Send + Sync + 'static {
    /// Serves `request` through the service: one box holds the whole call.
    fn serve(self: Arc<Self>, request: McpRequest) -> BoxFuture<'static, McpResponse>;
}

/// A layer's service `S`, which requests take in turn.
struct StackOf<S> {
    service: tokio::sync::Mutex<S>,
}

impl<S> Erased for StackOf<S>
where
    S: Service<McpRequest> + Send + 'static,
    S::Response: LayerResponse,
    S::Error: Into<BoxError>,
    S::Future: Send + 'static,
{
    fn serve(self: Arc<Self>, request: McpRequest) -> BoxFuture<'static, McpResponse> {
        let served = AssertUnwindSafe(async move {
            let response = {
                // Uncontended (the common case) without the queued acquire's bookkeeping.
                let mut service = match self.service.try_lock() {
                    Ok(service) => service,
                    Err(_) => self.service.lock().await,
                };
                match service.ready().await {
                    Ok(ready) => ready.call(request),
                    Err(error) => return refused(&error.into()),
                }
            };
            match response.await {
                Ok(response) => response.into_response(),
                Err(error) => refused(&error.into()),
            }
        });
        Box::pin(served.catch_unwind().map(|outcome| {
            outcome.unwrap_or_else(|panic| {
                tracing::error!(panic = %panic_detail(&*panic), "a middleware layer panicked");
                McpResponse(internal_error())
            })
        }))
    }
}

/// A layer failure, as the client gets it.
fn refused(error: &BoxError) -> McpResponse {
    McpResponse::from_error(error_object(error.as_ref()))
}

/// The JSON-RPC error a layer's failure is answered with:
///
/// | failure | error |
/// | --- | --- |
/// | [`Refusal`] (the stock layers' refusals, or your own) | its error object |
/// | `tower::timeout::error::Elapsed` (`TimeoutLayer`) | `-32008` `Request timed out` |
/// | `tower::load_shed::error::Overloaded` (`LoadShedLayer`) | `-32003` `Server overloaded` |
/// | anything else | `-32603` `Internal error` (the detail is logged, never sent) |
pub fn error_object(error: &(dyn std::error::Error + Send + Sync + 'static)) -> ErrorObject {
    if let Some(refusal) = error.downcast_ref::<Refusal>() {
        return refusal.error.clone();
    }
    if error.is::<tower::timeout::error::Elapsed>() {
        return Refusal::timed_out(None).error;
    }
    if error.is::<tower::load_shed::error::Overloaded>() {
        return Refusal::overloaded(None).error;
    }
    tracing::error!(%error, "a middleware layer failed");
    ErrorObject::new(ErrorCode::INTERNAL_ERROR, "Internal error")
}

/// A request a layer refuses, with the JSON-RPC error the client gets: return it as the
/// layer's error (or answer [`McpResponse::from_error`] yourself).
///
/// The stock refusals, whose `data` tells a client what to do:
///
/// | refusal | code | message | `data` |
/// | --- | --- | --- | --- |
/// | [`rate_limited`](Self::rate_limited) | `-32029` | `Rate limit exceeded` | `{"retryAfterMs": 1200, "retryAfter": 2}` (seconds, rounded up) |
/// | [`overloaded`](Self::overloaded) | `-32003` | `Server overloaded` | `{"limit": 4}` when a concurrency limit refused |
/// | [`timed_out`](Self::timed_out) | `-32008` | `Request timed out` | `{"timeoutMs": 30000}` when the deadline is known |
#[derive(Clone, Debug, thiserror::Error)]
#[error("{}", error.message)]
pub struct Refusal {
    /// The error the client gets.
    pub error: ErrorObject,
}

impl Refusal {
    /// A refusal with the error `error`.
    pub fn new(error: ErrorObject) -> Self {
        Self { error }
    }

    /// `-32029` `Rate limit exceeded`: try again after `retry_after`, in whole milliseconds
    /// rounded up (a client that waits `retryAfterMs` is never early).
    ///
    /// ```
    /// use std::time::Duration;
    /// use mcp::middleware::Refusal;
    ///
    /// let refusal = Refusal::rate_limited(Duration::from_micros(400));
    /// assert_eq!(refusal.retry_after(), Some(Duration::from_millis(1)));
    /// let data = refusal.error.data.unwrap();
    /// assert_eq!(data["retryAfterMs"], 1);
    /// assert_eq!(data["retryAfter"], 1);
    /// ```
    pub fn rate_limited(retry_after: Duration) -> Self {
        let ms = u64::try_from(retry_after.as_nanos().div_ceil(1_000_000)).unwrap_or(u64::MAX);
        let data = json!({"retryAfterMs": ms, "retryAfter": ms.div_ceil(1000)});
        Self::new(ErrorObject::new(ErrorCode::RATE_LIMITED, "Rate limit exceeded").with_data(data))
    }

    /// `-32003` `Server overloaded`, naming the concurrency `limit` that refused, if any.
    pub fn overloaded(limit: Option<usize>) -> Self {
        let error = ErrorObject::new(ErrorCode::OVERLOADED, "Server overloaded");
        Self::new(match limit {
            Some(limit) => error.with_data(json!({ "limit": limit })),
            None => error,
        })
    }

    /// `-32008` `Request timed out`, naming the `deadline` that passed, if known.
    pub fn timed_out(deadline: Option<Duration>) -> Self {
        let error = ErrorObject::new(ErrorCode::REQUEST_TIMEOUT, "Request timed out");
        Self::new(match deadline {
            Some(d) => error.with_data(json!({
                "timeoutMs": u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
            })),
            None => error,
        })
    }

    /// The `retryAfterMs` of a rate-limit refusal.
    pub fn retry_after(&self) -> Option<Duration> {
        let ms = self.error.data.as_ref()?.get("retryAfterMs")?.as_u64()?;
        Some(Duration::from_millis(ms))
    }
}

/// Makes a layer's service out of [`Next`]: what the builder keeps until `build`.
#[doc(hidden)]
pub type Wrap = Box<dyn FnOnce(Next) -> Arc<dyn Erased> + Send>;

/// A layer that fits the server: a [`tower::Layer<Next>`] whose service answers an
/// [`McpRequest`] with an [`McpResponse`], is `Send`, and fails (if it does) with an error
/// that converts into a boxed error. tower's own layers fit as they are
/// (`ConcurrencyLimitLayer`, `TimeoutLayer`, `LoadShedLayer`, `RateLimitLayer`, a
/// `ServiceBuilder` stack of them), and so do this crate's
/// ([`middleware`](crate::middleware)).
///
/// Implemented for every such layer; `#[tool(layer = ...)]` checks its expression with it
/// (`MCP_402`).
#[diagnostic::on_unimplemented(
    message = "MCP_402: `{Self}` is not a layer that fits an MCP server",
    label = "not a `tower::Layer<mcp::middleware::Next>` whose service answers `mcp::McpRequest` with `mcp::McpResponse`",
    note = "a layer's service must be `tower::Service<mcp::McpRequest, Response = mcp::McpResponse>` and `Send`, with a `Send` future and an error that converts into `Box<dyn std::error::Error + Send + Sync>`"
)]
pub trait McpLayer: Send + 'static {
    /// Boxes the layer for the builder.
    #[doc(hidden)]
    fn into_wrap(self) -> Wrap;
}

/// What a layer's service may answer with: [`McpResponse`] only. A separate trait so that a
/// service answering anything else is refused under `MCP_402` rather than with a bare type
/// mismatch.
#[diagnostic::on_unimplemented(
    message = "MCP_402: a layer's service answers `{Self}`, not `mcp::McpResponse`",
    label = "this layer's service does not answer `mcp::McpResponse`",
    note = "a layer that fits an MCP server makes a `tower::Service<mcp::McpRequest, Response = mcp::McpResponse>`"
)]
pub trait LayerResponse: Send + 'static {
    /// The response.
    #[doc(hidden)]
    fn into_response(self) -> McpResponse;
}

impl LayerResponse for McpResponse {
    fn into_response(self) -> McpResponse {
        self
    }
}

impl<L> McpLayer for L
where
    L: tower::Layer<Next> + Send + 'static,
    L::Service: Service<McpRequest> + Send + 'static,
    <L::Service as Service<McpRequest>>::Response: LayerResponse,
    <L::Service as Service<McpRequest>>::Error: Into<BoxError>,
    <L::Service as Service<McpRequest>>::Future: Send + 'static,
{
    fn into_wrap(self) -> Wrap {
        Box::new(move |next| {
            Arc::new(StackOf {
                service: tokio::sync::Mutex::new(self.layer(next)),
            })
        })
    }
}

/// What a per-target layer is attached to.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Target {
    /// A tool, by name (`tools/call`).
    Tool(String),
    /// A prompt, by name (`prompts/get`).
    Prompt(String),
    /// A resource, by URI or URI template (`resources/read`).
    Resource(String),
}

/// The layers a builder collects.
#[derive(Default)]
pub(crate) struct Wraps {
    /// The server's, outermost first.
    pub(crate) server: Vec<Wrap>,
    /// Each target's, outermost first.
    pub(crate) targets: Vec<(Target, Vec<Wrap>)>,
}

impl Wraps {
    /// Adds a layer of `target`, inside the ones added before.
    pub(crate) fn push(&mut self, target: Target, wrap: Wrap) {
        match self.targets.iter_mut().find(|(t, _)| *t == target) {
            Some((_, wraps)) => wraps.push(wrap),
            None => self.targets.push((target, vec![wrap])),
        }
    }
}

/// The built layers of a server.
#[derive(Default)]
pub(crate) struct Layers {
    /// The server's outermost layer, if it has any.
    pub(crate) server: Option<Arc<Stack>>,
    /// Each tool's, prompt's and resource's (exact URI) outermost layer, by name, one map
    /// per kind (indexed by [`Kind`]), so a lookup borrows the request's name.
    named: [HashMap<String, Arc<Stack>>; 3],
    /// Resources' by URI template (exact URIs are in `named`).
    templates: Vec<(UriTemplate, Arc<Stack>)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Tool = 0,
    Prompt = 1,
    Resource = 2,
}

impl Layers {
    /// Builds `wraps` around the server whose inner data `inner` will be.
    pub(super) fn build(wraps: Wraps, inner: &Weak<Inner>) -> Result<Self, crate::error::Error> {
        let mut layers = Self {
            server: chain(wraps.server, Hop::Targets(inner.clone())),
            ..Self::default()
        };
        for (target, list) in wraps.targets {
            let Some(stack) = chain(list, Hop::Core(inner.clone())) else {
                continue;
            };
            let (kind, name) = match target {
                Target::Tool(name) => (Kind::Tool, name),
                Target::Prompt(name) => (Kind::Prompt, name),
                Target::Resource(uri) if uri.contains('{') => {
                    let template = UriTemplate::parse(&uri).map_err(|e| {
                        crate::error::Error::Config(format!(
                            "resource_layer: {uri:?} is not a URI template: {e}"
                        ))
                    })?;
                    layers.templates.push((template, stack));
                    continue;
                }
                Target::Resource(uri) => (Kind::Resource, uri),
            };
            layers.named[kind as usize].insert(name, stack);
        }
        Ok(layers)
    }

    /// Whether any tool, prompt or resource has layers of its own.
    pub(crate) fn has_targets(&self) -> bool {
        self.named.iter().any(|m| !m.is_empty()) || !self.templates.is_empty()
    }

    /// The layers of the tool, prompt or resource `request` names, if it has any.
    pub(crate) fn of(&self, request: &McpRequest) -> Option<&Arc<Stack>> {
        let kind = match request.method() {
            "tools/call" => Kind::Tool,
            "prompts/get" => Kind::Prompt,
            "resources/read" => Kind::Resource,
            _ => return None,
        };
        let name = request.target()?;
        if let Some(stack) = self.named[kind as usize].get(name) {
            return Some(stack);
        }
        if kind != Kind::Resource {
            return None;
        }
        self.templates
            .iter()
            .find(|(template, _)| matches!(template.match_uri(name), Ok(Some(_))))
            .map(|(_, stack)| stack)
    }
}

/// `wraps` chained around `innermost`, outermost first (`None` when there are none).
fn chain(wraps: Vec<Wrap>, innermost: Hop) -> Option<Arc<Stack>> {
    let mut next = Next { hop: innermost };
    let mut outer = None;
    for wrap in wraps.into_iter().rev() {
        let stack = wrap(next);
        next = Next {
            hop: Hop::Stack(Arc::clone(&stack)),
        };
        outer = Some(stack);
    }
    outer
}

impl Server {
    /// Serves one request through the server's layers, if it has any, then the target's.
    pub(crate) fn serve(&self, request: McpRequest) -> BoxFuture<'static, McpResponse> {
        #[cfg(feature = "otel")]
        if let Some(observed) = &self.inner.telemetry {
            return observed.serve(self, request);
        }
        self.serve_layers(request)
    }

    /// [`serve`](Self::serve) past the telemetry.
    pub(crate) fn serve_layers(&self, request: McpRequest) -> BoxFuture<'static, McpResponse> {
        match &self.inner.layers.server {
            Some(stack) => Arc::clone(stack).serve(request),
            None => self.serve_targeted(request),
        }
    }

    /// Serves one request through the layers of the tool, prompt or resource it names, if
    /// it has any, then the handler.
    fn serve_targeted(&self, request: McpRequest) -> BoxFuture<'static, McpResponse> {
        let layers = &self.inner.layers;
        if layers.has_targets()
            && let Some(stack) = layers.of(&request)
        {
            return Arc::clone(stack).serve(request);
        }
        self.serve_core(request)
    }
}
