//! The streams around exchanges: the standalone `GET` stream of a legacy session (server
//! requests and notifications not tied to a call), and resuming a response stream the
//! server ended early (SEP-1699).

use std::sync::Weak;
use std::time::Duration;

use http::header::{ACCEPT, CONTENT_TYPE};
use http::{HeaderMap, HeaderValue, Method};
use serde_json::Value;
use tokio::time::{Instant, timeout_at};

use super::sse::SseParser;
use super::{HttpTransport, content_type, request_error};
use crate::client::transport::{Envelope, Message, Peer};
use crate::client::wire::{Handled, LAST_EVENT_ID, handle};
use crate::client::{ClientError, StreamError, TransportError};
use crate::protocol::{Era, RequestId};

/// How many times one response stream may be resumed (SEP-1699).
pub(super) const MAX_RESUMES: usize = 5;

/// The delay before resuming a stream whose server sent no `retry:` (the SSE default).
pub(super) const DEFAULT_RESUME_DELAY: Duration = Duration::from_secs(1);

impl HttpTransport {
    /// Resumes the response stream of `request` that the server ended early: `GET` with
    /// `Last-Event-ID`, which must answer with an event stream.
    pub(super) async fn resume(
        &self,
        request: &Message<'_>,
        token: Option<&str>,
        session: Option<&str>,
        last_event_id: &str,
        deadline: Instant,
    ) -> Result<reqwest::Response, ClientError> {
        let timeout = self.config.timeout;
        let mut headers = self.headers(&Method::GET, request, token, session);
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

/// Reads the standalone `GET` stream of the legacy session `session` and answers the
/// server→client requests it carries (some servers, such as the v1 TypeScript SDK, send
/// requests not tied to a POST there). Holds the transport only weakly; stops when the
/// stream ends, and is aborted when the connection is replaced or closed. `405` means
/// "not offered".
pub(super) async fn listen(
    transport: Weak<HttpTransport>,
    session: String,
    version: Option<String>,
    peer: Peer,
    opened: tokio::sync::oneshot::Sender<()>,
) {
    let no_body = Value::Null;
    let no_headers = HeaderMap::new();
    let message = Message {
        id: None,
        method: "",
        body: &no_body,
        envelope: Envelope::new(Era::Legacy, version.as_deref()),
        headers: &no_headers,
    };
    let (response, token) = {
        let Some(http) = transport.upgrade() else {
            return;
        };
        let token = http.token().await.ok().flatten();
        let mut headers = http.headers(&Method::GET, &message, token.as_deref(), Some(&session));
        headers.remove(CONTENT_TYPE);
        headers.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
        let sent = tokio::time::timeout(
            http.config.timeout,
            http.http.get(http.url.clone()).headers(headers).send(),
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
    let max_event = match transport.upgrade() {
        Some(http) => http.config.max_event_bytes,
        None => return,
    };
    let mut parser = SseParser::new(max_event);
    let mut events = Vec::new();
    while let Ok(Some(chunk)) = response.chunk().await {
        if parser.feed(&chunk, &mut events).is_err() {
            return;
        }
        for data in events.drain(..) {
            let Some(http) = transport.upgrade() else {
                return;
            };
            let (id, method, params) = match handle(&data, &RequestId::Number(-1), 200) {
                Ok(Handled::ServerRequest { id, method, params }) => (id, method, params),
                Ok(Handled::Notification { method, params }) => {
                    peer.notification(&method, params);
                    continue;
                }
                _ => continue,
            };
            if let Err(e) = http
                .answer_server_request(
                    &message,
                    token.as_deref(),
                    Some(&session),
                    &peer,
                    (id, &method, params),
                )
                .await
            {
                tracing::warn!(%method, error = %e, "cannot answer a server request");
            }
        }
    }
}
