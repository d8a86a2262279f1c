//! Server→client requests during a legacy call on a session (the elicitation shim): the
//! call runs in its own task; its response stays plain JSON unless the tool asks for input,
//! in which case the response becomes an SSE stream carrying the `elicitation/create`
//! requests and finally the call's response. The client answers each request with a POST
//! that [`deliver`] routes back to the waiting call.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::response::Response;
use bytes::Bytes;
use futures_util::stream::{self, StreamExt as _};
use http::{HeaderValue, StatusCode, header};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::dispatch::{BoxFuture, ClientRequester, Reply, RequestContext, Server};
use crate::protocol::{ErrorCode, ErrorObject, JsonRpcResponse, Request, RequestId};
use crate::session::streams::Streams;

struct SseRequester {
    session: Arc<str>,
    streams: Arc<Streams>,
    events: mpsc::Sender<Bytes>,
    closing: super::Closing,
}

impl ClientRequester for SseRequester {
    fn request<'a>(
        &'a self,
        method: &'a str,
        params: Value,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<Value, ErrorObject>> {
        Box::pin(async move {
            let id = format!("mcp-server-{}", uuid::Uuid::new_v4());
            let answer = self.streams.expect_answer(&self.session, &id);
            let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
            if self
                .events
                .send(sse_event(&message.to_string()))
                .await
                .is_err()
            {
                self.streams.forget(&self.session, &id);
                return Err(ErrorObject::new(
                    ErrorCode::INTERNAL_ERROR,
                    "The client closed the response stream",
                ));
            }
            let answered = tokio::select! {
                answered = tokio::time::timeout(timeout, answer) => answered,
                // The serving stops: no answer can come any more.
                () = self.closing.clone().wait() => {
                    self.streams.forget(&self.session, &id);
                    return Err(ErrorObject::new(
                        ErrorCode::INTERNAL_ERROR,
                        "The session ended while waiting for input",
                    ));
                }
            };
            match answered {
                Ok(Ok(Ok(result))) => Ok(result),
                Ok(Ok(Err(error))) => Err(ErrorObject::new(
                    ErrorCode::INTERNAL_ERROR,
                    format!(
                        "The client answered {method} with error {}: {}",
                        error.code, error.message
                    ),
                )),
                Ok(Err(_)) => Err(ErrorObject::new(
                    ErrorCode::INTERNAL_ERROR,
                    "The session ended while waiting for input",
                )),
                Err(_) => {
                    self.streams.forget(&self.session, &id);
                    Err(ErrorObject::new(
                        ErrorCode::INTERNAL_ERROR,
                        format!(
                            "The client did not answer {method} within {} s",
                            timeout.as_secs()
                        ),
                    ))
                }
            }
        })
    }
}

fn sse_event(json: &str) -> Bytes {
    Bytes::from(format!("event: message\ndata: {json}\n\n"))
}

/// Serves a legacy `tools/call` on a session: JSON when the tool completes, SSE when it
/// asks for input.
pub(crate) async fn call(
    server: &Server,
    request: Request,
    mut cx: RequestContext,
    session: &str,
) -> Response {
    let (events_tx, mut events_rx) = mpsc::channel::<Bytes>(8);
    cx.requester = Some(Arc::new(SseRequester {
        session: session.into(),
        streams: server.streams().clone(),
        events: events_tx,
        closing: cx
            .parts
            .extensions
            .get::<super::Closing>()
            .cloned()
            .unwrap_or_default(),
    }));
    let id = request.id.clone();
    let task_server = server.clone();
    let mut task = tokio::spawn(async move { task_server.handle_legacy(request, cx).await });
    tokio::select! {
        biased;
        joined = &mut task => super::reply_response(&id, reply_of(joined), &http::HeaderMap::new()),
        first = events_rx.recv() => {
            let Some(first) = first else {
                return super::reply_response(&id, reply_of(task.await), &http::HeaderMap::new());
            };
            let rest = stream::unfold(events_rx, |mut rx| async move { rx.recv().await.map(|e| (e, rx)) });
            let last = stream::once(async move {
                let mut json = Vec::with_capacity(256);
                super::write_reply(&mut json, &id, &reply_of(task.await));
                sse_event(&String::from_utf8_lossy(&json))
            });
            let body = stream::once(async move { first }).chain(rest).chain(last).map(Ok::<_, std::convert::Infallible>);
            let mut response = Response::new(Body::from_stream(body));
            let h = response.headers_mut();
            h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
            h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache, no-transform"));
            *response.status_mut() = StatusCode::OK;
            response
        }
    }
}

fn reply_of(joined: Result<Reply, tokio::task::JoinError>) -> Reply {
    joined.unwrap_or_else(|e| {
        tracing::error!(error = %e, "a legacy call task failed");
        Reply::in_band(ErrorObject::new(
            ErrorCode::INTERNAL_ERROR,
            "Internal error",
        ))
    })
}

/// Routes a client's answer to a server→client request of `session`.
pub(crate) fn deliver(server: &Server, session: &str, response: JsonRpcResponse) {
    let id = match &response.id {
        RequestId::String(s) => s.clone(),
        RequestId::Number(n) => n.to_string(),
    };
    if !server.streams().answer(session, &id, response.outcome) {
        tracing::debug!(%id, "a client answered a request nothing awaits");
    }
}
