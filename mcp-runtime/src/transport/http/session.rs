//! The legacy session lifecycle on the wire: `initialize` issues `Mcp-Session-Id`, later
//! requests must carry it (stateful) or may (auto), an unknown, expired, evicted or foreign
//! id gets 404, DELETE ends a session, and GET opens the session's standalone SSE stream
//! (with `Last-Event-ID` replay).

use std::convert::Infallible;
use std::time::Duration;

use axum::body::Body;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::stream::{self, StreamExt as _};
use http::request::Parts;
use http::{HeaderMap, HeaderValue, StatusCode, header};
use serde_json::{Map, Value};

use super::{accepts_sse, rpc_error_response, transport_error};
use crate::dispatch::{AuthContext, Server, SessionMode};
use crate::protocol::{ErrorCode, ErrorObject, negotiate_legacy_version};
use crate::session::identity::{ListenerOwner, caller_identity};
use crate::session::streams::Refused;
use crate::session::{Owner, Session, SessionInfo};

/// The session header.
pub(crate) use crate::protocol::headers::MCP_SESSION_ID;

/// The caller a session belongs to: the issuer, client and subject of the request's
/// [`AuthContext`] (inserted into the request extensions by an authentication layer), the
/// caller listener authentication found, or the anonymous pool.
pub(crate) fn owner_of(parts: &Parts) -> Owner {
    caller_identity(
        parts.extensions.get::<AuthContext>(),
        Some(&parts.extensions),
    )
}

/// `true` when the caller is a token that names neither a subject nor a client, which
/// cannot own a session (it would be shared by every such token).
fn names_nobody(parts: &Parts) -> bool {
    match parts.extensions.get::<AuthContext>() {
        Some(a) => a.subject.is_none() && a.client_id.is_none(),
        None => parts
            .extensions
            .get::<ListenerOwner>()
            .is_some_and(|c| c.names_nobody),
    }
}

/// The `Mcp-Session-Id` header: `Ok(None)` when absent, `Err` when not visible ASCII.
fn session_header(headers: &HeaderMap) -> Result<Option<&str>, ()> {
    match headers.get(MCP_SESSION_ID) {
        None => Ok(None),
        Some(v) => v.to_str().map(Some).map_err(|_| ()),
    }
}

fn not_found() -> Response {
    rpc_error_response(
        StatusCode::NOT_FOUND,
        None,
        ErrorObject::new(ErrorCode::SESSION_NOT_FOUND, "Session not found"),
    )
}

fn header_required() -> Response {
    transport_error(
        StatusCode::BAD_REQUEST,
        "Bad Request: Mcp-Session-Id header is required",
        None,
    )
}

fn store_failure(e: &(dyn std::error::Error + 'static)) -> Response {
    tracing::error!(error = e, "session store failure");
    transport_error(
        StatusCode::SERVICE_UNAVAILABLE,
        "Service Unavailable: the session store is unavailable",
        None,
    )
}

/// The session of a legacy request other than `initialize`: `Ok(None)` for session-less
/// serving, or the refusal.
#[allow(clippy::result_large_err)]
pub(crate) async fn resolve(
    server: &Server,
    parts: &Parts,
) -> Result<Option<(Session, SessionInfo)>, Response> {
    let Some(store) = server.session_store() else {
        return Ok(None);
    };
    let id = match session_header(&parts.headers) {
        Ok(id) => id,
        Err(()) => return Err(not_found()),
    };
    let Some(id) = id else {
        return match server.session_mode() {
            SessionMode::Stateful => Err(header_required()),
            SessionMode::Auto | SessionMode::Stateless => Ok(None),
        };
    };
    let owner = owner_of(parts);
    let limits = server.session_limits();
    match store.open(id, &owner, &limits).await {
        Ok(Some(info)) => Ok(server.session_handle(id).map(|h| (h, info))),
        Ok(None) => {
            // Expired (or never existed): it ended at its last request.
            #[cfg(feature = "otel")]
            if let Some(observed) = server.observed() {
                observed.session_closed(id, true);
            }
            Err(not_found())
        }
        Err(e) => Err(store_failure(&e)),
    }
}

/// Refuses an `initialize` that carries a session id (the session is already initialized).
#[allow(clippy::result_large_err)]
pub(crate) fn check_initialize(server: &Server, parts: &Parts) -> Result<(), Response> {
    if server.session_store().is_some() && parts.headers.contains_key(MCP_SESSION_ID) {
        return Err(rpc_error_response(
            StatusCode::BAD_REQUEST,
            None,
            ErrorObject::new(
                ErrorCode::INVALID_REQUEST,
                "Invalid Request: Server already initialized",
            ),
        ));
    }
    Ok(())
}

/// After a successful `initialize`: creates the session and returns its id, closing the
/// streams of sessions evicted to make room.
#[allow(clippy::result_large_err)]
pub(crate) async fn create(
    server: &Server,
    parts: &Parts,
    params: Option<&Map<String, Value>>,
) -> Result<Option<String>, Response> {
    let Some(store) = server.session_store() else {
        return Ok(None);
    };
    let requested = params
        .and_then(|p| p.get("protocolVersion"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    let info = SessionInfo {
        protocol_version: negotiate_legacy_version(requested).to_owned(),
        client_capabilities: params
            .and_then(|p| p.get("capabilities"))
            .cloned()
            .unwrap_or(Value::Null),
    };
    if names_nobody(parts) {
        // A token naming neither a subject nor a client cannot own a session.
        tracing::debug!("not creating a session for a token without subject or client");
        return match server.session_mode() {
            SessionMode::Stateful => Err(transport_error(
                StatusCode::FORBIDDEN,
                "Forbidden: a token that names neither a subject nor a client cannot own a session",
                None,
            )),
            SessionMode::Auto | SessionMode::Stateless => Ok(None),
        };
    }
    let owner = owner_of(parts);
    let limits = server.session_limits();
    #[cfg(feature = "otel")]
    let version = info.protocol_version.clone();
    match store.create(&owner, info, &limits).await {
        Ok(created) => {
            for evicted in &created.evicted {
                tracing::debug!(session = %evicted, "evicted the least recently used session");
                server.streams().close(evicted);
                #[cfg(feature = "otel")]
                if let Some(observed) = server.observed() {
                    observed.session_closed(evicted, true);
                }
            }
            #[cfg(feature = "otel")]
            if let Some(observed) = server.observed() {
                let network =
                    crate::dispatch::network_of(crate::dispatch::TransportKind::Http, Some(parts));
                observed.session_opened(&created.id, &version, network, limits.idle_timeout());
            }
            Ok(Some(created.id))
        }
        Err(e) => Err(store_failure(&e)),
    }
}

/// Adds `Mcp-Session-Id` to a response.
pub(crate) fn with_session_id(mut response: Response, id: &str) -> Response {
    if let Ok(v) = HeaderValue::from_str(id) {
        response.headers_mut().insert(MCP_SESSION_ID, v);
    }
    response
}

/// `DELETE`: ends the session.
pub(crate) async fn delete(server: &Server, parts: &Parts) -> Response {
    let Some(store) = server.session_store() else {
        return transport_error(
            StatusCode::METHOD_NOT_ALLOWED,
            "Method not allowed.",
            Some("POST"),
        );
    };
    let id = match session_header(&parts.headers) {
        Ok(Some(id)) => id,
        Ok(None) => return header_required(),
        Err(()) => return not_found(),
    };
    match store.delete(id, &owner_of(parts)).await {
        Ok(true) => {
            server.streams().close(id);
            #[cfg(feature = "otel")]
            if let Some(observed) = server.observed() {
                observed.session_closed(id, false);
            }
            StatusCode::OK.into_response()
        }
        Ok(false) => not_found(),
        Err(e) => store_failure(&e),
    }
}

/// `GET`: the session's standalone SSE stream.
pub(crate) async fn get(server: &Server, parts: &Parts) -> Response {
    if server.session_store().is_none() {
        return transport_error(
            StatusCode::METHOD_NOT_ALLOWED,
            "Method not allowed.",
            Some("POST"),
        );
    }
    if !accepts_sse(&parts.headers) {
        return transport_error(
            StatusCode::NOT_ACCEPTABLE,
            "Not Acceptable: Client must accept text/event-stream",
            None,
        );
    }
    let (session, info) = match resolve(server, parts).await {
        Ok(Some(s)) => s,
        Ok(None) => return header_required(),
        Err(r) => return r,
    };
    let last_event_id = parts
        .headers
        .get(crate::protocol::headers::LAST_EVENT_ID)
        .and_then(|v| v.to_str().ok());
    // An id of a request stream the server ended early resumes that stream (SSE polling).
    if let Some((key, after)) = last_event_id.and_then(super::outbound::detached_event_id) {
        return match server.streams().detached.resume(session.id(), key, after) {
            Some(resumed) => super::outbound::sse_response(super::outbound::resumed_body(
                key.to_owned(),
                resumed,
            )),
            None => transport_error(
                StatusCode::NOT_FOUND,
                "Not Found: no stream to resume for this Last-Event-ID",
                None,
            ),
        };
    }
    let last_event_id = last_event_id.and_then(|v| v.trim().parse::<u64>().ok());
    let max_streams = server.config().max_streams;
    let attached = match server
        .streams()
        .attach(session.id(), last_event_id, max_streams)
    {
        Ok(a) => a,
        Err(Refused::Conflict) => {
            let message = "Conflict: Only one SSE stream is allowed per session";
            return transport_error(StatusCode::CONFLICT, message, None);
        }
        Err(Refused::Full) => {
            tracing::warn!("refusing a standalone stream: the server's stream cap is reached");
            let message = "Service Unavailable: too many open streams";
            return transport_error(StatusCode::SERVICE_UNAVAILABLE, message, None);
        }
    };
    // 2025-11-25 clients get a priming event carrying the id to resume from.
    let priming = (info.protocol_version.as_str() >= "2025-11-25").then(|| {
        SseEvent::default()
            .id(attached.last_id.to_string())
            .data("")
    });
    let replay = attached
        .replay
        .into_iter()
        .map(|e| message_event(e.id, &e.data));
    let head = stream::iter(priming.into_iter().chain(replay).map(Ok::<_, Infallible>));
    let guard = attached.guard;
    let live = stream::unfold((attached.receiver, guard), |(mut rx, guard)| async move {
        let event = rx.recv().await?;
        Some((
            Ok::<_, Infallible>(message_event(event.id, &event.data)),
            (rx, guard),
        ))
    });
    // The stream ends when the serving stops.
    let closing = super::Closing::of(&parts.extensions);
    let sse = Sse::new(head.chain(live).take_until(closing.wait())).keep_alive(
        KeepAlive::new()
            .interval(Duration::from_secs(15))
            .text("keepalive"),
    );
    let mut response = sse.into_response();
    response.headers_mut().insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("no-cache, no-transform"),
    );
    response
        .headers_mut()
        .insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

fn message_event(id: u64, data: &str) -> SseEvent {
    SseEvent::default()
        .id(id.to_string())
        .event("message")
        .data(data)
}

/// A body-less 202.
pub(crate) fn accepted() -> Response {
    let mut r = Response::new(Body::empty());
    *r.status_mut() = StatusCode::ACCEPTED;
    r
}
