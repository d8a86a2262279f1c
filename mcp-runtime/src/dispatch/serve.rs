//! The core as a [`tower::Service`]: one [`McpRequest`] in, its [`McpResponse`] out,
//! whatever the transport. Every transport (Streamable HTTP, stdio, in-process) ends here;
//! what differs between them stays in the transport.

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};

use super::channel::{CallState, LogLevel, Threshold};
use super::request::{McpRequest, McpResponse};
use super::{BoxFuture, RequestContext, Server};
use crate::protocol::Era;

tokio::task_local! {
    /// The call the current task serves.
    static CALL: Arc<CallState>;
}

/// Set once a [`ClientLogLayer`](super::ClientLogLayer) exists: calls then read their session's log threshold
/// before the handler runs, so that events are filtered without waiting.
pub(super) static PRIME_LOG_LEVELS: AtomicBool = AtomicBool::new(false);

/// Runs `fut` as the handler of the call `call`: events it emits reach [`ClientLogLayer`](super::ClientLogLayer), and
/// [`with_call`] finds it.
pub(crate) fn scoped<F: Future>(call: Arc<CallState>, fut: F) -> impl Future<Output = F::Output> {
    let primed = call.clone();
    CALL.scope(call, async move {
        if PRIME_LOG_LEVELS.load(Ordering::Relaxed) {
            primed.prime().await;
        }
        fut.await
    })
}

/// `f` of the call the current task serves, if it serves one.
pub(crate) fn with_call<R>(f: impl FnOnce(&CallState) -> R) -> Option<R> {
    CALL.try_with(|call| f(call)).ok()
}

/// The call the current task serves, if it serves one.
pub(super) fn current_call() -> Option<Arc<CallState>> {
    CALL.try_with(Arc::clone).ok()
}

/// The notifier of the server whose handler the current task runs, if any.
pub(crate) fn current_notifier() -> Option<crate::notify::Notifier> {
    with_call(|call| call.notifier.clone()).flatten()
}

impl Server {
    /// Serves one request past every layer: builds the call's state (its channel back,
    /// cancellation and log threshold) and the handler's [`RequestContext`] from it, and
    /// runs the method's handler in the call's scope. The future is boxed where it is created (it is kilobytes large),
    /// so the transport's wrappers around it move a pointer.
    pub(crate) fn serve_core(&self, request: McpRequest) -> BoxFuture<'static, McpResponse> {
        // Only a request with a channel back sends its client anything.
        #[cfg(feature = "otel")]
        let telemetry = request
            .channel
            .as_ref()
            .and(self.inner.telemetry.as_ref())
            .map(|o| o.for_call(&request));
        let McpRequest {
            id: _,
            method,
            params,
            era,
            version,
            client_capabilities,
            client_info,
            log_level,
            auth,
            session,
            extensions,
            channel,
            requests,
            cancel,
            transport: _,
            connection: _,
        } = request;
        // Logs: a modern request's own level, else the legacy session's `logging/setLevel`
        // (every level until one is set, and on session-less legacy requests).
        let threshold = match (era, &session) {
            (Era::Modern, _) => log_level.map_or(Threshold::Off, Threshold::AtLeast),
            (Era::Legacy, Some(session)) => Threshold::Session(session.clone()),
            (Era::Legacy, None) => Threshold::AtLeast(LogLevel::Debug),
        };
        let cancel = cancel.unwrap_or_default();
        let mut state = CallState::new(era, channel.clone(), threshold, cancel);
        state.client_sampling = client_capabilities.sampling.is_some();
        state.has_session = session.is_some();
        state.timeout = self.config().input_round_timeout;
        state.notifier = Some(self.notifier());
        #[cfg(feature = "otel")]
        {
            state.telemetry = telemetry;
        }
        let state = Arc::new(state);
        let requester = channel
            .filter(|_| requests)
            .map(|c| c as Arc<dyn super::ClientRequester>);
        let cx = RequestContext {
            era,
            protocol_version: version,
            extensions,
            meta: None,
            client_capabilities,
            client_info,
            session,
            auth: auth.map(|a| *a),
            requester,
            call: state.clone(),
        };
        let server = self.clone();
        // The handler's future is kilobytes large: boxed where it is created, so the scope
        // around it (and the transport's wrappers) move a pointer rather than copy it.
        let handler: BoxFuture<'static, McpResponse> = Box::pin(async move {
            let reply = match era {
                Era::Modern => server.handle_modern(&method, params, cx).await,
                Era::Legacy => server.handle_legacy(&method, params, cx).await,
            };
            McpResponse(reply)
        });
        Box::pin(scoped(state, handler))
    }
}

/// The future of the core's answer as a [`tower::Service`] that never fails (the server's
/// and the layers' [`Next`](super::Next)).
pub(crate) type Answer = futures_util::future::Map<
    BoxFuture<'static, McpResponse>,
    fn(McpResponse) -> Result<McpResponse, Infallible>,
>;

/// The core: a layer can wrap it whole (`tower::Layer<Server>`), and every transport calls
/// it the same way.
///
/// ```
/// use tower::{Service as _, ServiceExt as _};
///
/// struct Echo;
///
/// #[mcp::service(name = "echo", version = "1.0.0")]
/// impl Echo {
///     /// Echoes its input.
///     pub fn echo(&self, text: String) -> String { text }
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let mut server = mcp::Server::builder(Echo).build().unwrap();
/// let params = serde_json::json!({"name": "echo", "arguments": {"text": "hi"}});
/// let request = mcp::protocol::Request {
///     id: mcp::protocol::RequestId::Number(1),
///     method: "tools/call".into(),
///     params: params.as_object().cloned(),
/// };
/// let request = mcp::McpRequest::new(request, mcp::protocol::Era::Legacy, "2025-06-18");
/// let response = server.ready().await.unwrap().call(request).await.unwrap();
/// assert!(response.result().unwrap().contains(r#""text":"hi""#));
/// # }
/// ```
impl tower::Service<McpRequest> for Server {
    type Response = McpResponse;
    type Error = Infallible;
    type Future = Answer;

    /// Always ready: the server holds no per-call capacity of its own.
    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        use futures_util::FutureExt as _;
        self.serve(request).map(Ok)
    }
}
