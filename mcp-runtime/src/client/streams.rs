//! The streams around exchanges: the standalone `GET` stream of a legacy session (server
//! requests and notifications not tied to a call), resuming a response stream the server
//! ended early (SEP-1699), and telling the server about a call nobody waits for any more.

use std::sync::{Arc, Weak};
use std::time::Duration;

use http::header::{ACCEPT, CONTENT_TYPE};
use http::{HeaderMap, HeaderValue};
use serde_json::json;
use tokio::time::timeout_at;

use super::exchange::{Handled, LAST_EVENT_ID, Wire, content_type, handle, request_error};
use super::sse::SseParser;
use super::{ClientError, Connection, Inner, StreamError, TransportError};
use crate::protocol::RequestId;

impl Inner {
    /// Resumes a response stream the server ended early: `GET` with `Last-Event-ID`, which
    /// must answer with an event stream.
    pub(crate) async fn resume(
        &self,
        wire: &Wire<'_>,
        token: Option<&str>,
        extra: &HeaderMap,
        last_event_id: &str,
        deadline: tokio::time::Instant,
    ) -> Result<reqwest::Response, ClientError> {
        let timeout = self.config.http.timeout;
        let mut headers = self.headers(wire, token, extra);
        headers.remove(CONTENT_TYPE);
        headers.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
        let last =
            HeaderValue::from_str(last_event_id).map_err(|_| StreamError::InvalidMessage {
                reason: "the last event id is not a valid header value".into(),
            })?;
        headers.insert(LAST_EVENT_ID, last);
        tracing::debug!(last_event_id, "resuming a response stream the server ended");
        let response = timeout_at(
            deadline,
            self.http.get(self.url.clone()).headers(headers).send(),
        )
        .await
        .map_err(|_| TransportError::Timeout(timeout))?
        .map_err(|e| request_error(e, timeout))?;
        let response = self.check_status(response, deadline).await?;
        let status = response.status().as_u16();
        match content_type(response.headers()).as_deref() {
            Some("text/event-stream") if status == 200 => Ok(response),
            other => Err(TransportError::UnexpectedContentType {
                status,
                content_type: other.map(str::to_owned),
            }
            .into()),
        }
    }
}

/// Reads the standalone `GET` stream of a legacy session and answers the server→client
/// requests it carries (some servers, such as the v1 TypeScript SDK, send requests not
/// tied to a POST there). Holds the client only weakly; stops when the stream ends, and is
/// aborted when the connection is replaced or closed. `405` means "not offered".
pub(crate) async fn listen(
    client: Weak<Inner>,
    conn: Arc<Connection>,
    opened: tokio::sync::oneshot::Sender<()>,
) {
    let (response, token) = {
        let Some(inner) = client.upgrade() else {
            return;
        };
        let token = inner.token().await.ok().flatten();
        let mut headers = inner.headers(&conn.wire(), token.as_deref(), &HeaderMap::new());
        headers.remove(CONTENT_TYPE);
        headers.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
        let timeout = inner.config.http.timeout;
        let sent = tokio::time::timeout(
            timeout,
            inner.http.get(inner.url.clone()).headers(headers).send(),
        )
        .await;
        let _ = opened.send(());
        match sent {
            Ok(Ok(r))
                if r.status().is_success()
                    && content_type(r.headers()).as_deref() == Some("text/event-stream") =>
            {
                (r, token)
            }
            Ok(Ok(r)) => {
                tracing::debug!(status = %r.status(), "no standalone event stream");
                return;
            }
            _ => return,
        }
    };
    let mut response = response;
    let max_event = match client.upgrade() {
        Some(inner) => inner.config.http.max_event_bytes,
        None => return,
    };
    let mut parser = SseParser::new(max_event);
    let mut events = Vec::new();
    while let Ok(Some(chunk)) = response.chunk().await {
        if parser.feed(&chunk, &mut events).is_err() {
            return;
        }
        for data in events.drain(..) {
            let Some(inner) = client.upgrade() else {
                return;
            };
            let (id, method, params) = match handle(&data, &RequestId::Number(-1), 200) {
                Ok(Handled::ServerRequest { id, method, params }) => (id, method, params),
                Ok(Handled::Notification { method, params }) => {
                    inner.on_notification(&method, params);
                    continue;
                }
                _ => continue,
            };
            if let Err(e) = inner
                .answer_server_request(&conn.wire(), token.as_deref(), id, &method, params)
                .await
            {
                tracing::warn!(%method, error = %e, "cannot answer a server request");
            }
        }
    }
}

/// Sends `notifications/cancelled` for a request whose caller stopped waiting: on a legacy
/// HTTP session (POSTed with the session's headers) or on stdio (both eras; a modern one
/// carries the protocol version in its `_meta`, as the TypeScript client sends it).
pub(crate) struct CancelOnDrop {
    pub(crate) inner: Weak<Inner>,
    /// The legacy HTTP session.
    pub(crate) session: Option<String>,
    /// The legacy protocol version.
    pub(crate) version: Option<String>,
    /// The modern protocol version (stdio only).
    pub(crate) modern_version: Option<String>,
    pub(crate) token: Option<String>,
    pub(crate) id: RequestId,
    /// Cleared once the exchange ended, answered or not.
    pub(crate) armed: bool,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let (Some(inner), Ok(runtime)) =
            (self.inner.upgrade(), tokio::runtime::Handle::try_current())
        else {
            return;
        };
        let session = self.session.take();
        let version = self.version.take();
        let token = self.token.take();
        let mut params = json!({"requestId": self.id, "reason": "the client stopped waiting"});
        if let Some(v) = &self.modern_version {
            params["_meta"] = json!({crate::protocol::META_PROTOCOL_VERSION: v});
        }
        let body = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params});
        runtime.spawn(async move {
            let wire = Wire::Legacy {
                session_id: session.as_deref(),
                version: version.as_deref(),
            };
            if let Err(e) = inner.post_no_answer(&wire, token.as_deref(), body).await {
                tracing::debug!(error = %e, "cannot send notifications/cancelled");
            }
        });
    }
}

/// How many times one response stream may be resumed (SEP-1699).
pub(crate) const MAX_RESUMES: usize = 5;

/// The delay before resuming a stream whose server sent no `retry:` (the SSE default).
pub(crate) const DEFAULT_RESUME_DELAY: Duration = Duration::from_secs(1);
