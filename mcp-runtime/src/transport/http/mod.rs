//! The Streamable HTTP transport on axum: one endpoint answering POST (requests and
//! notifications of both eras), GET and DELETE, with Host and Origin validation before
//! anything else runs, CORS for browser pages, and a cap on request bodies.
//!
//! [`McpService`] is the endpoint as a path-agnostic tower service, [`metadata_router`]
//! the OAuth metadata document at the host root, [`router`] both at one path, and
//! [`HttpServer`] the listener that serves any app with connection limits.
//!
//! This module owns everything HTTP: the gate (Host, Origin, CORS), body limits and read
//! timeouts, the SSE buffers and resumption, the auth guard's place in front of the
//! endpoint, and the HTTP face of legacy sessions (`Mcp-Session-Id`). It turns each POSTed
//! message into one [`McpRequest`] (the request's parts as its
//! extension) and the core's answer into a JSON or SSE response.

pub(crate) mod classify;
mod config;
mod gate;
mod listen;
mod listener;
mod outbound;
mod reply;
mod service;
mod session;
mod shim;
mod vhost;

use std::sync::Arc;

use axum::body::Body;
use axum::http::{HeaderMap, Method, Request, StatusCode, header};
use axum::response::Response;
use bytes::Bytes;
use futures_util::future::join_all;
use http_body_util::{BodyExt as _, Limited};
use serde_json::Value;

pub use config::{DEFAULT_BODY_READ_TIMEOUT, DEFAULT_MAX_BODY_BYTES, HttpConfig};
pub use gate::BoundAddr;
pub(crate) use gate::ListedHost;
pub use listener::{HttpServer, Serve, WithGracefulShutdown};
pub use service::{McpService, metadata_router, router};
use tokio_util::sync::CancellationToken;
pub use vhost::VirtualHosts;

use crate::dispatch::{
    AuthContext, LogLevel, McpRequest, ProtocolMode, Reply, Server, TransportKind,
};
use crate::protocol::{
    CallToolParams, DEFAULT_LEGACY_HTTP_VERSION, Era, ErrorCode, ErrorObject, Message,
    RequestEnvelope, RequestId, ResponseId, serves_legacy_version,
};
use classify::{Route, classify, legacy_unsupported_header, protocol_version_header};
pub(crate) use reply::{
    accepted, accepts_json_and_sse, accepts_sse, insufficient_scope, invalid_message,
    is_json_content_type, json_response, plain_error, reply_response, rpc_error_response,
    transport_error, unsupported_coding, write_reply,
};

/// The most messages a legacy batch may hold.
pub const MAX_BATCH: usize = 100;

/// The endpoint's state: the server and the token of [`McpService::with_shutdown`].
#[derive(Clone)]
struct Endpoint {
    server: Arc<Server>,
    /// The transport's settings, from the server ([`HttpConfig`]).
    config: Arc<HttpConfig>,
    shutdown: Option<CancellationToken>,
}

/// The token of [`McpService::with_shutdown`], in the extensions of the requests of a
/// service that has one.
#[derive(Clone, Debug)]
struct ServiceShutdown(CancellationToken);

/// When the serving stops: the service's own token and the listener's (both request
/// extensions), whichever is cancelled first.
#[derive(Clone, Debug, Default)]
pub(crate) struct Closing {
    service: Option<CancellationToken>,
    listener: Option<CancellationToken>,
}

impl Closing {
    /// The closing of the request with these extensions.
    pub(crate) fn of(extensions: &http::Extensions) -> Self {
        Self {
            service: extensions.get::<ServiceShutdown>().map(|s| s.0.clone()),
            listener: extensions
                .get::<listener::Accepted>()
                .map(|a| a.shutdown.clone()),
        }
    }

    /// Completes once the serving stops (never, when nothing tells).
    pub(crate) async fn wait(self) {
        match (self.service, self.listener) {
            (None, None) => std::future::pending().await,
            (Some(one), None) | (None, Some(one)) => one.cancelled_owned().await,
            (Some(service), Some(listener)) => {
                tokio::select! {
                    () = service.cancelled() => {}
                    () = listener.cancelled() => {}
                }
            }
        }
    }
}

async fn endpoint(state: Endpoint, mut request: Request<Body>) -> Response {
    if let Some(token) = &state.shutdown {
        request
            .extensions_mut()
            .insert(ServiceShutdown(token.clone()));
    }
    let server = state.server;
    // Handlers may bind the headers or the parts; their `Debug` must not show credentials.
    crate::redact::mark_sensitive_headers(request.headers_mut());
    let (parts, body) = request.into_parts();
    let modern_only = server.protocol_mode() == ProtocolMode::Modern;
    match parts.method {
        Method::POST => post(&server, &state.config, parts, body).await,
        Method::GET if !modern_only => session::get(&server, &parts).await,
        Method::DELETE if !modern_only => session::delete(&server, &parts).await,
        _ => {
            let allow = if modern_only {
                "POST"
            } else {
                "GET, POST, DELETE"
            };
            transport_error(
                StatusCode::METHOD_NOT_ALLOWED,
                "Method not allowed.",
                Some(allow),
            )
        }
    }
}

async fn post(
    server: &Server,
    config: &HttpConfig,
    parts: http::request::Parts,
    body: Body,
) -> Response {
    if !is_json_content_type(&parts.headers) {
        return transport_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Unsupported Media Type: Content-Type must be application/json",
            None,
        );
    }
    if let Some(refusal) = unsupported_coding(&parts.headers) {
        return refusal;
    }
    let limit = config.max_body_bytes;
    let read = read_body(&parts.headers, body, limit);
    let bytes = match tokio::time::timeout(config.body_read_timeout, read).await {
        Ok(Ok(b)) => b,
        Ok(Err(response)) => return response,
        Err(_) => {
            tracing::debug!("a request body was not received in time");
            return transport_error(
                StatusCode::REQUEST_TIMEOUT,
                "Request Timeout: the request body was not received in time",
                None,
            );
        }
    };
    // Most bodies are one request: read it without a `Value` for the whole message.
    // A modern envelope is lifted out of `_meta` while reading, unless the endpoint is
    // legacy-only (its handlers see `_meta` as sent).
    let lift = server.protocol_mode() != ProtocolMode::Legacy;
    if let Some(read) = crate::protocol::wire::read(&bytes, lift) {
        let parts = Arc::new(parts);
        return single_message(server, parts, read.message, read.envelope, read.call, None).await;
    }
    let value: Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(_) => {
            return rpc_error_response(
                StatusCode::BAD_REQUEST,
                None,
                ErrorObject::new(ErrorCode::PARSE_ERROR, "Parse error"),
            );
        }
    };
    let parts = Arc::new(parts);
    match value {
        Value::Array(items) => batch(server, parts, items).await,
        value => single(server, parts, value).await,
    }
}

async fn read_body(headers: &HeaderMap, body: Body, limit: usize) -> Result<Bytes, Response> {
    let too_large = || {
        transport_error(
            StatusCode::PAYLOAD_TOO_LARGE,
            &format!("Payload Too Large: the request body exceeds {limit} bytes"),
            None,
        )
    };
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(too_large());
    }
    match Limited::new(body, limit).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(e) if e.is::<http_body_util::LengthLimitError>() => Err(too_large()),
        Err(e) => {
            tracing::debug!(error = %e, "failed to read a request body");
            Err(rpc_error_response(
                StatusCode::BAD_REQUEST,
                None,
                ErrorObject::new(
                    ErrorCode::PARSE_ERROR,
                    "Parse error: the request body could not be read",
                ),
            ))
        }
    }
}

async fn single(server: &Server, parts: Arc<http::request::Parts>, value: Value) -> Response {
    let id = Message::peek_id(&value);
    let message = match Message::from_value(value) {
        Ok(m) => m,
        Err(e) => {
            tracing::debug!(error = %e, "invalid JSON-RPC message");
            return invalid_message(id);
        }
    };
    single_message(server, parts, message, None, None, id).await
}

/// Serves one message; `envelope` is its modern envelope when the read already lifted it
/// out of `_meta`, `call` the params of a `tools/call` it read typed (the message then has
/// no params object); `id` is what an invalid-message error names.
async fn single_message(
    server: &Server,
    parts: Arc<http::request::Parts>,
    message: Message,
    envelope: Option<RequestEnvelope>,
    call: Option<Box<CallToolParams>>,
    id: ResponseId,
) -> Response {
    let mode = server.protocol_mode();
    let (request, is_request) = match message {
        message @ Message::Response(_) => {
            if mode == ProtocolMode::Modern {
                return invalid_message(id);
            }
            // A response to a server→client request: it must name a live session.
            return match session::resolve(server, &parts).await {
                Ok(Some((handle, _))) => {
                    if let Message::Response(response) = message {
                        shim::deliver(server, handle.id(), response);
                    }
                    accepted()
                }
                Ok(None) => accepted(),
                Err(r) => r,
            };
        }
        Message::Notification(n) => (
            crate::protocol::Request {
                id: RequestId::Number(0),
                method: n.method,
                params: n.params,
            },
            false,
        ),
        Message::Request(r) => (r, true),
    };
    let route = classify(
        mode,
        &parts.headers,
        &request.method,
        request.params.as_ref(),
        call.as_deref(),
        is_request,
        envelope,
    );
    if !is_request {
        #[cfg(feature = "otel")]
        if let Some(observed) = server.observed() {
            let network = crate::dispatch::network_of(TransportKind::Http, Some(&parts));
            let version = protocol_version_header(&parts.headers).ok().flatten();
            observed.notification(
                &request.method,
                request.params.as_ref(),
                version,
                &network,
                Some(&parts.headers),
            );
        }
        return match route {
            Route::Reject(Reply::Err { status, error }) => rpc_error_response(status, None, error),
            Route::Legacy if parts.headers.contains_key(session::MCP_SESSION_ID) => {
                match session::resolve(server, &parts).await {
                    Ok(Some((handle, _))) if request.method == "notifications/cancelled" => {
                        cancel(server, handle.id(), request.params.as_ref());
                        accepted()
                    }
                    Ok(_) => accepted(),
                    Err(r) => r,
                }
            }
            _ => accepted(),
        };
    }
    match route {
        Route::Reject(reply) => reply_response(&request.id, reply, &parts.headers),
        Route::Modern(envelope) if request.method == "subscriptions/listen" => {
            let tasks = crate::protocol::declares_tasks(&envelope.client_capabilities);
            listen::serve(server, request, &parts, tasks)
        }
        Route::Modern(envelope) => {
            let envelope = *envelope;
            let level = envelope.log_level.as_deref().and_then(LogLevel::parse);
            let mut request = McpRequest::new(request, Era::Modern, &envelope.protocol_version)
                .with_client(
                    crate::dispatch::capabilities_of(envelope.client_capabilities),
                    envelope.client_info.map(Arc::new),
                )
                .with_log_level(level)
                .with_auth(parts.extensions.get::<AuthContext>().cloned())
                .with_call_params(call)
                .with_transport(TransportKind::Http, None);
            request.extensions_mut().insert_shared(parts.clone());
            outbound::serve(server, request, None, &parts).await
        }
        Route::Legacy => {
            if let Err(r) = legacy_checks(&parts.headers) {
                return r;
            }
            if request.method == "initialize" {
                return initialize(server, parts, request).await;
            }
            let session = match session::resolve(server, &parts).await {
                Ok(s) => s,
                Err(r) => return r,
            };
            let session_id = session.as_ref().map(|(h, _)| h.id().to_owned());
            let request = legacy_request(&parts, request, session).with_call_params(call);
            outbound::serve(server, request, session_id.as_deref(), &parts).await
        }
    }
}

/// A legacy `notifications/cancelled`: cancels the named request of the session, if it
/// still runs (an unknown or finished request, or a missing id, is ignored, as the
/// TypeScript server does).
fn cancel(server: &Server, session: &str, params: Option<&serde_json::Map<String, Value>>) {
    let Some(id) = params.and_then(|p| p.get("requestId")) else {
        tracing::debug!("ignoring a cancellation without a requestId");
        return;
    };
    let cancelled =
        outbound::id_key(id).is_some_and(|key| server.streams().inflight.cancel(session, &key));
    tracing::debug!(%id, cancelled, "a client cancelled a request");
}

/// The legacy transport's header checks: `Accept` must name JSON and SSE, and a
/// `MCP-Protocol-Version` header must name a legacy version this server speaks.
#[allow(clippy::result_large_err)]
fn legacy_checks(headers: &HeaderMap) -> Result<(), Response> {
    if !accepts_json_and_sse(headers) {
        return Err(transport_error(
            StatusCode::NOT_ACCEPTABLE,
            "Not Acceptable: Client must accept both application/json and text/event-stream",
            None,
        ));
    }
    match protocol_version_header(headers) {
        Ok(Some(v)) if !serves_legacy_version(v) => {
            let Reply::Err { status, error } = legacy_unsupported_header(v) else {
                unreachable!()
            };
            Err(rpc_error_response(status, None, error))
        }
        Err(()) => Err(transport_error(
            StatusCode::BAD_REQUEST,
            "Bad Request: invalid MCP-Protocol-Version header",
            None,
        )),
        _ => Ok(()),
    }
}

/// `initialize`: answered like any request, then (stateful and auto services) a session is
/// created and its id returned in `Mcp-Session-Id`.
async fn initialize(
    server: &Server,
    parts: Arc<http::request::Parts>,
    request: crate::protocol::Request,
) -> Response {
    if let Err(r) = session::check_initialize(server, &parts) {
        return r;
    }
    let id = request.id.clone();
    let params = request.params.clone();
    let reply = server
        .serve(legacy_request(&parts, request, None))
        .await
        .into_reply();
    let created = match &reply {
        Reply::Ok(_) => match session::create(server, &parts, params.as_ref()).await {
            Ok(created) => created,
            Err(r) => return r,
        },
        Reply::Err { .. } | Reply::InsufficientScope(_) => None,
    };
    let response = reply_response(&id, reply, &parts.headers);
    match created {
        Some(session_id) => session::with_session_id(response, &session_id),
        None => response,
    }
}

/// A legacy request to the core: its version (the `MCP-Protocol-Version` header, else the
/// session's, else the default), what its session's client declared, its caller and its
/// HTTP parts.
fn legacy_request(
    parts: &Arc<http::request::Parts>,
    request: crate::protocol::Request,
    session: Option<(crate::session::Session, crate::session::SessionInfo)>,
) -> McpRequest {
    let header = protocol_version_header(&parts.headers).ok().flatten();
    let (session, version, capabilities) = match session {
        Some((handle, info)) => {
            let caps = serde_json::from_value(info.client_capabilities).unwrap_or_default();
            let version = header.map_or(info.protocol_version, str::to_owned);
            (Some(handle), version, Arc::new(caps))
        }
        None => (
            None,
            header.unwrap_or(DEFAULT_LEGACY_HTTP_VERSION).to_owned(),
            crate::dispatch::capabilities_of(crate::protocol::ClientCapabilities::default()),
        ),
    };
    let mut request = McpRequest::new(request, Era::Legacy, &version)
        .with_client(capabilities, None)
        .with_session(session)
        .with_auth(parts.extensions.get::<AuthContext>().cloned())
        .with_transport(TransportKind::Http, None);
    request.extensions_mut().insert_shared(parts.clone());
    request
}

async fn batch(server: &Server, parts: Arc<http::request::Parts>, items: Vec<Value>) -> Response {
    let bad = |message: &str| {
        rpc_error_response(
            StatusCode::BAD_REQUEST,
            None,
            ErrorObject::new(ErrorCode::INVALID_REQUEST, message),
        )
    };
    if items.is_empty() {
        return bad("Invalid Request: empty batch");
    }
    if items.len() > MAX_BATCH {
        return bad(&format!(
            "Invalid Request: a batch may hold at most {MAX_BATCH} messages"
        ));
    }
    if server.protocol_mode() == ProtocolMode::Modern {
        return bad("Invalid Request: batches are not supported by the 2026-07-28 protocol");
    }
    let mut messages = Vec::with_capacity(items.len());
    for item in items {
        match Message::from_value(item) {
            Ok(m) => messages.push(m),
            Err(_) => return bad("Invalid Request: the batch holds an invalid JSON-RPC message"),
        }
    }
    let claims = messages.iter().any(|m| match m {
        Message::Request(r) => crate::protocol::RequestEnvelope::has_claim(r.params.as_ref()),
        Message::Notification(n) => crate::protocol::RequestEnvelope::has_claim(n.params.as_ref()),
        Message::Response(_) => false,
    });
    if claims && server.protocol_mode() != ProtocolMode::Legacy {
        return bad("Invalid Request: batches are not supported by the 2026-07-28 protocol");
    }
    if messages.len() > 1 && messages.iter().any(|m| m.method() == Some("initialize")) {
        return bad("Invalid Request: initialize must not be part of a batch");
    }
    if let Err(r) = legacy_checks(&parts.headers) {
        return r;
    }
    if let [Message::Request(r)] = messages.as_slice()
        && r.method == "initialize"
    {
        let Some(Message::Request(request)) = messages.pop() else {
            unreachable!()
        };
        return batch_of_one(initialize(server, parts, request).await).await;
    }
    let session = match session::resolve(server, &parts).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    let requests: Vec<_> = messages
        .into_iter()
        .filter_map(|m| match m {
            Message::Request(r) => Some(r),
            _ => None,
        })
        .collect();
    if requests.is_empty() {
        return accepted();
    }
    let replies = join_all(requests.into_iter().map(|r| {
        let id = r.id.clone();
        let served = server.serve(legacy_request(&parts, r, session.clone()));
        async move { (id, served.await.into_reply()) }
    }))
    .await;
    // A member lacking scopes refuses the whole batch, so the client can step up and retry.
    if let Some((_, Reply::InsufficientScope(e))) = replies
        .iter()
        .find(|(_, r)| matches!(r, Reply::InsufficientScope(_)))
    {
        return insufficient_scope(e);
    }
    let mut body = Vec::with_capacity(256 * replies.len());
    body.push(b'[');
    for (i, (id, reply)) in replies.iter().enumerate() {
        if i > 0 {
            body.push(b',');
        }
        write_reply(&mut body, id, reply);
    }
    body.push(b']');
    json_response(StatusCode::OK, body)
}

/// Wraps a single JSON response into a one-element array (a batch of one `initialize`).
async fn batch_of_one(response: Response) -> Response {
    if response.status() != StatusCode::OK {
        return response;
    }
    let (parts, body) = response.into_parts();
    let bytes = body
        .collect()
        .await
        .map(|c| c.to_bytes())
        .unwrap_or_default();
    let mut wrapped = Vec::with_capacity(bytes.len() + 2);
    wrapped.push(b'[');
    wrapped.extend_from_slice(&bytes);
    wrapped.push(b']');
    Response::from_parts(parts, Body::from(wrapped))
}
