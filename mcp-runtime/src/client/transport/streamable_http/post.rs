//! One POSTed request and its answer, read from a JSON or `text/event-stream` body within
//! the exchange timeout. Server→client requests arriving on a legacy response stream are
//! answered here, and a legacy stream the server ended early is resumed (SEP-1699).

use http::{HeaderValue, Method};
use serde_json::value::RawValue;
use tokio::time::{Instant, timeout_at};

use super::sse::SseParser;
use super::streams::{DEFAULT_RESUME_DELAY, MAX_RESUMES};
use super::{HttpTransport, content_type, request_error};
use crate::client::transport::{Message, Peer};
use crate::client::wire::{Handled, MCP_METHOD, MCP_SESSION_ID, handle};
use crate::client::{ClientError, ProtocolError, StreamError, TransportError};
use crate::protocol::{Era, RequestId};

impl HttpTransport {
    /// One request/response exchange with the bearer `token`.
    pub(super) async fn exchange(
        &self,
        message: &Message<'_>,
        token: Option<&str>,
        peer: &Peer,
    ) -> Result<Box<RawValue>, ClientError> {
        let fallback = RequestId::Number(-1);
        let id = message.id.unwrap_or(&fallback);
        let method = message.method;
        let legacy = message.envelope.era == Era::Legacy;
        let session = self.session_for(message);
        let mut headers = self.headers(&Method::POST, message, token, session.as_deref());
        if let (false, Ok(m)) = (legacy, HeaderValue::from_str(method)) {
            headers.insert(MCP_METHOD, m);
        }
        let timeout = self.config.timeout;
        let mut deadline = Instant::now() + timeout;
        let post = self
            .http
            .post(self.url.clone())
            .headers(headers)
            .body(message.body.to_string());
        let response = self.send(post, deadline).await?;
        let opened_session = response
            .headers()
            .get(MCP_SESSION_ID)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        // The answer to `initialize` opens a legacy session (or none).
        let answered = |result: Box<RawValue>| {
            if legacy && method == "initialize" {
                self.set_session(opened_session.clone());
            }
            result
        };
        let mut response = self.check_status(response, deadline).await?;
        let status = response.status().as_u16();
        if status == 202 || status == 204 {
            return Err(ProtocolError::InvalidResponse {
                method: method.into(),
                reason: format!("HTTP {status} without a response"),
            }
            .into());
        }
        match content_type(response.headers()).as_deref() {
            Some("application/json") => {
                let bytes = self.read_body(&mut response, deadline).await?;
                let text =
                    std::str::from_utf8(&bytes).map_err(|_| TransportError::InvalidBody {
                        status,
                        reason: "not UTF-8".into(),
                    })?;
                let messages: Vec<Box<RawValue>> = if text.trim_start().starts_with('[') {
                    serde_json::from_str(text)
                } else {
                    serde_json::from_str::<Box<RawValue>>(text).map(|m| vec![m])
                }
                .map_err(|e| TransportError::InvalidBody {
                    status,
                    reason: e.to_string(),
                })?;
                for m in messages {
                    let handled = handle(m.get(), id, status).map_err(|e| match e {
                        ClientError::Stream(StreamError::InvalidMessage { reason }) => {
                            ClientError::Transport(TransportError::InvalidBody { status, reason })
                        }
                        other => other,
                    })?;
                    match handled {
                        Handled::Response(r) => return r.map(answered),
                        Handled::Notification { method, params } => {
                            peer.notification(&method, params);
                        }
                        Handled::ServerRequest { .. } | Handled::Ignored => {}
                    }
                }
                Err(ProtocolError::InvalidResponse {
                    method: method.into(),
                    reason: format!("the body holds no response for request id {id}"),
                }
                .into())
            }
            Some("text/event-stream") => {
                let mut parser = SseParser::new(self.config.max_event_bytes);
                let mut events = Vec::new();
                let mut resumes = 0;
                loop {
                    let chunk = timeout_at(deadline, response.chunk())
                        .await
                        .map_err(|_| TransportError::Timeout(timeout))?
                        .map_err(|e| request_error(e, timeout))?;
                    let Some(chunk) = chunk else {
                        // SEP-1699: a legacy server may end the stream early and deliver
                        // the response on a GET that resumes after its last event, once
                        // the delay it asked for has passed.
                        let resumable =
                            legacy && resumes < MAX_RESUMES && parser.last_event_id().is_some();
                        if !resumable {
                            return Err(StreamError::EndedWithoutResponse.into());
                        }
                        resumes += 1;
                        let delay = parser.retry().unwrap_or(DEFAULT_RESUME_DELAY);
                        if Instant::now() + delay > deadline {
                            return Err(TransportError::Timeout(timeout).into());
                        }
                        tokio::time::sleep(delay).await;
                        let last = parser.last_event_id().unwrap_or_default().to_owned();
                        response = self
                            .resume(message, token, session.as_deref(), &last, deadline)
                            .await?;
                        parser = parser.resumed();
                        continue;
                    };
                    parser.feed(&chunk, &mut events)?;
                    for data in events.drain(..) {
                        match handle(&data, id, status)? {
                            Handled::Response(r) => return r.map(answered),
                            Handled::ServerRequest { id, method, params } => {
                                if legacy {
                                    // The handler's and the answer's time are not this
                                    // exchange's: move the deadline by it.
                                    let started = Instant::now();
                                    let answered = self
                                        .answer_server_request(
                                            message,
                                            token,
                                            session.as_deref(),
                                            peer,
                                            (id, &method, params),
                                        )
                                        .await;
                                    deadline += started.elapsed();
                                    answered?;
                                }
                                // A modern connection drops server→client requests.
                            }
                            Handled::Notification { method, params } => {
                                peer.notification(&method, params);
                            }
                            Handled::Ignored => {}
                        }
                    }
                }
            }
            other => Err(TransportError::UnexpectedContentType {
                status,
                content_type: other.map(str::to_owned),
            }
            .into()),
        }
    }

    /// Answers a server→client request of a legacy connection by POSTing the client's
    /// response in the session of `request`; the handler's failure fails the exchange.
    pub(super) async fn answer_server_request(
        &self,
        request: &Message<'_>,
        token: Option<&str>,
        session: Option<&str>,
        peer: &Peer,
        (id, method, params): (serde_json::Value, &str, Option<serde_json::Value>),
    ) -> Result<(), ClientError> {
        let (body, failure) = peer.answer(id, method, params).await.into_parts();
        let response = Message {
            id: None,
            method: "",
            body: &body,
            envelope: request.envelope,
            headers: &http::HeaderMap::new(),
        };
        let posted = self.post_no_answer(&response, token, session).await;
        match failure {
            Some(e) => Err(e),
            None => posted,
        }
    }
}
