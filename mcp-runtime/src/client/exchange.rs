//! One HTTP exchange: a JSON-RPC message POSTed with the era's headers, and its answer read
//! from a JSON or `text/event-stream` body (bounded in size and time). Server→client
//! requests arriving on a legacy response stream are answered here.

use std::time::Duration;

use http::header::{ACCEPT, AUTHORIZATION, CONTENT_LENGTH, CONTENT_TYPE, WWW_AUTHENTICATE};
use http::{HeaderMap, HeaderName, HeaderValue};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use tokio::time::timeout_at;

use super::auth::AuthChallenge;

use super::sse::SseParser;
use super::streams::{CancelOnDrop, DEFAULT_RESUME_DELAY, MAX_RESUMES};
use super::{ClientError, Inner, ProtocolError, StreamError, TransportError};
use crate::protocol::{
    ClientCapabilities, ErrorObject, Implementation, JsonObject, META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO, META_PROTOCOL_VERSION, RequestId,
};

pub(crate) use crate::protocol::headers::{
    LAST_EVENT_ID, MCP_METHOD, MCP_NAME, MCP_PROTOCOL_VERSION, MCP_SESSION_ID,
};

/// Headers the client sets itself: never taken from configuration or a call.
pub(crate) fn is_reserved(name: &HeaderName) -> bool {
    let n = name.as_str();
    n == CONTENT_TYPE.as_str()
        || n == ACCEPT.as_str()
        || n == CONTENT_LENGTH.as_str()
        || n == MCP_PROTOCOL_VERSION.as_str()
        || n == MCP_METHOD.as_str()
        || n == MCP_NAME.as_str()
        || n == MCP_SESSION_ID.as_str()
        || n.starts_with("mcp-param-")
}

/// How a message is framed for the era.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Wire<'a> {
    /// Envelope in `_meta`, `MCP-Protocol-Version` and `Mcp-Method` headers.
    Modern {
        version: &'a str,
        client_info: &'a Implementation,
        capabilities: &'a ClientCapabilities,
    },
    /// Session and version headers when known.
    Legacy {
        session_id: Option<&'a str>,
        version: Option<&'a str>,
    },
}

/// A request to send.
#[derive(Clone, Debug)]
pub(crate) struct Call {
    pub(crate) method: &'static str,
    pub(crate) params: JsonObject,
    /// A fixed id (the discover probe); otherwise a fresh number per attempt.
    pub(crate) id: Option<RequestId>,
    /// Extra headers (`Mcp-Name`, `Mcp-Param-*`, per-call headers).
    pub(crate) headers: HeaderMap,
}

impl Call {
    pub(crate) fn new(method: &'static str, params: JsonObject) -> Self {
        Self {
            method,
            params,
            id: None,
            headers: HeaderMap::new(),
        }
    }
}

/// The answer to a request.
#[derive(Debug)]
pub(crate) struct Reply {
    pub(crate) result: Box<RawValue>,
    pub(crate) session_id: Option<String>,
}

/// A message read from the server, kept raw where order or bytes matter.
#[derive(Deserialize)]
pub(crate) struct Incoming {
    #[serde(default)]
    pub(crate) id: Option<Value>,
    #[serde(default)]
    pub(crate) method: Option<String>,
    #[serde(default)]
    pub(crate) params: Option<Value>,
    #[serde(default)]
    pub(crate) result: Option<Box<RawValue>>,
    #[serde(default)]
    pub(crate) error: Option<Value>,
}

pub(crate) enum Handled {
    Response(Result<Box<RawValue>, ClientError>),
    ServerRequest {
        id: Value,
        method: String,
        params: Option<Value>,
    },
    Notification {
        method: String,
        params: Option<Value>,
    },
    Ignored,
}

pub(crate) fn id_matches(id: &Value, expected: &RequestId) -> bool {
    match (id, expected) {
        (Value::Number(n), RequestId::Number(e)) => n.as_i64() == Some(*e),
        (Value::String(s), RequestId::String(e)) => s == e,
        _ => false,
    }
}

pub(crate) fn rpc_error(error: Value, http_status: Option<u16>) -> ClientError {
    match serde_json::from_value::<ErrorObject>(error) {
        Ok(e) => ProtocolError::rpc(e, http_status).into(),
        Err(e) => StreamError::InvalidMessage {
            reason: format!("invalid error object: {e}"),
        }
        .into(),
    }
}

/// Sorts one incoming message: our response, a server→client request, or noise.
pub(crate) fn handle(
    text: &str,
    expected: &RequestId,
    http_status: u16,
) -> Result<Handled, ClientError> {
    let msg: Incoming = serde_json::from_str(text).map_err(|e| StreamError::InvalidMessage {
        reason: e.to_string(),
    })?;
    let id = msg.id.filter(|v| !v.is_null());
    if let Some(method) = msg.method {
        return Ok(match id {
            Some(id) => Handled::ServerRequest {
                id,
                method,
                params: msg.params,
            },
            None => Handled::Notification {
                method,
                params: msg.params,
            },
        });
    }
    if let Some(error) = msg.error {
        // An error without a readable id answers the only request of this POST.
        if id.as_ref().is_none_or(|id| id_matches(id, expected)) {
            return Ok(Handled::Response(Err(rpc_error(error, Some(http_status)))));
        }
        return Ok(Handled::Ignored);
    }
    match (id, msg.result) {
        (Some(id), Some(result)) if id_matches(&id, expected) => Ok(Handled::Response(Ok(result))),
        _ => Ok(Handled::Ignored),
    }
}

pub(crate) fn content_type(headers: &HeaderMap) -> Option<String> {
    headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or_default()
                .trim()
                .to_ascii_lowercase()
        })
}

pub(crate) fn request_error(e: reqwest::Error, timeout: Duration) -> ClientError {
    if e.is_timeout() {
        TransportError::Timeout(timeout).into()
    } else {
        TransportError::Request {
            source: Box::new(crate::redact::reqwest_error(e)),
        }
        .into()
    }
}

impl Inner {
    fn next_id(&self) -> RequestId {
        RequestId::Number(
            self.next_id
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        )
    }

    /// Base headers of every POST of the era.
    pub(crate) fn headers(
        &self,
        wire: &Wire<'_>,
        token: Option<&str>,
        extra: &HeaderMap,
    ) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (name, value) in &self.config.http.headers {
            if !is_reserved(name) {
                h.append(name.clone(), value.clone());
            }
        }
        // A per-call header replaces the client-wide one of that name, every value kept.
        for name in extra.keys() {
            h.remove(name);
        }
        for (name, value) in extra {
            h.append(name.clone(), value.clone());
        }
        h.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        h.insert(
            ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        match wire {
            Wire::Modern { version, .. } => {
                if let Ok(v) = HeaderValue::from_str(version) {
                    h.insert(MCP_PROTOCOL_VERSION, v);
                }
            }
            Wire::Legacy {
                session_id,
                version,
            } => {
                if let Some(v) = session_id.and_then(|s| HeaderValue::from_str(s).ok()) {
                    h.insert(MCP_SESSION_ID, v);
                }
                if let Some(v) = version.and_then(|s| HeaderValue::from_str(s).ok()) {
                    h.insert(MCP_PROTOCOL_VERSION, v);
                }
            }
        }
        if !extra.contains_key(AUTHORIZATION)
            && let Some(mut v) =
                token.and_then(|t| HeaderValue::from_str(&format!("Bearer {t}")).ok())
        {
            // Never indexed by HTTP/2 header compression, never shown by `Debug`.
            v.set_sensitive(true);
            h.insert(AUTHORIZATION, v);
        }
        h
    }

    /// The body of a request: params with the modern envelope merged into `_meta`.
    pub(crate) fn body(
        wire: &Wire<'_>,
        id: &RequestId,
        method: &str,
        params: &JsonObject,
    ) -> Value {
        let mut params = params.clone();
        if let Wire::Modern {
            version,
            client_info,
            capabilities,
        } = wire
        {
            let mut meta = match params.remove("_meta") {
                Some(Value::Object(m)) => m,
                _ => Map::new(),
            };
            meta.insert(
                META_PROTOCOL_VERSION.into(),
                Value::String((*version).into()),
            );
            if !meta.contains_key(META_CLIENT_INFO) {
                meta.insert(META_CLIENT_INFO.into(), json!(client_info));
            }
            if !meta.contains_key(META_CLIENT_CAPABILITIES) {
                meta.insert(META_CLIENT_CAPABILITIES.into(), json!(capabilities));
            }
            params.insert("_meta".into(), Value::Object(meta));
        }
        let mut body = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if !params.is_empty() {
            body["params"] = Value::Object(params);
        }
        body
    }

    /// Sends one request and reads its answer, within the exchange timeout.
    pub(crate) async fn send_request(
        &self,
        wire: &Wire<'_>,
        call: &Call,
        token: Option<&str>,
    ) -> Result<Reply, ClientError> {
        let id = call.id.clone().unwrap_or_else(|| self.next_id());
        // A call whose future is dropped before its answer tells the server
        // (`notifications/cancelled`), so the server stops working for nobody: on a legacy
        // HTTP session, and on stdio in both eras. A modern HTTP call needs nothing more:
        // dropping it aborts its HTTP request, which is the modern cancellation signal.
        let cancellable = call.method != "initialize";
        let mut guard = match wire {
            _ if !cancellable => None,
            Wire::Modern { version, .. } if self.stdio.is_some() => Some(CancelOnDrop {
                inner: self.me.clone(),
                session: None,
                version: None,
                modern_version: Some((*version).to_owned()),
                token: None,
                id: id.clone(),
                armed: true,
            }),
            Wire::Legacy {
                session_id,
                version,
            } if self.stdio.is_some() || session_id.is_some() => Some(CancelOnDrop {
                inner: self.me.clone(),
                session: session_id.map(str::to_owned),
                version: version.map(str::to_owned),
                modern_version: None,
                token: token.map(str::to_owned),
                id: id.clone(),
                armed: true,
            }),
            _ => None,
        };
        let out = self.exchange(wire, call, token, id).await;
        if let Some(guard) = &mut guard {
            guard.armed = false;
        }
        out
    }

    /// One request/response exchange with request id `id`.
    async fn exchange(
        &self,
        wire: &Wire<'_>,
        call: &Call,
        token: Option<&str>,
        id: RequestId,
    ) -> Result<Reply, ClientError> {
        let body = Self::body(wire, &id, call.method, &call.params);
        if let Some(stdio) = &self.stdio {
            let result = stdio.exchange(body, &id, self.config.http.timeout).await?;
            return Ok(Reply {
                result,
                session_id: None,
            });
        }
        let mut headers = self.headers(wire, token, &call.headers);
        if let (Wire::Modern { .. }, Ok(m)) = (wire, HeaderValue::from_str(call.method)) {
            headers.insert(MCP_METHOD, m);
        }
        let timeout = self.config.http.timeout;
        let mut deadline = tokio::time::Instant::now() + timeout;
        let response = timeout_at(
            deadline,
            self.http
                .post(self.url.clone())
                .headers(headers)
                .body(body.to_string())
                .send(),
        )
        .await
        .map_err(|_| TransportError::Timeout(timeout))?
        .map_err(|e| request_error(e, timeout))?;
        let session_id = response
            .headers()
            .get(MCP_SESSION_ID)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let mut response = self.check_status(response, deadline).await?;
        let status = response.status().as_u16();
        if status == 202 || status == 204 {
            return Err(ProtocolError::InvalidResponse {
                method: call.method.into(),
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
                    let handled = handle(m.get(), &id, status).map_err(|e| match e {
                        ClientError::Stream(StreamError::InvalidMessage { reason }) => {
                            ClientError::Transport(TransportError::InvalidBody { status, reason })
                        }
                        other => other,
                    })?;
                    match handled {
                        Handled::Response(r) => {
                            return r.map(|result| Reply { result, session_id });
                        }
                        Handled::Notification { method, params } => {
                            self.on_notification(&method, params);
                        }
                        Handled::ServerRequest { .. } | Handled::Ignored => {}
                    }
                }
                Err(ProtocolError::InvalidResponse {
                    method: call.method.into(),
                    reason: format!("the body holds no response for request id {id}"),
                }
                .into())
            }
            Some("text/event-stream") => {
                let mut parser = SseParser::new(self.config.http.max_event_bytes);
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
                        let resumable = matches!(wire, Wire::Legacy { .. })
                            && resumes < MAX_RESUMES
                            && parser.last_event_id().is_some();
                        if !resumable {
                            return Err(StreamError::EndedWithoutResponse.into());
                        }
                        resumes += 1;
                        let delay = parser.retry().unwrap_or(DEFAULT_RESUME_DELAY);
                        if tokio::time::Instant::now() + delay > deadline {
                            return Err(TransportError::Timeout(timeout).into());
                        }
                        tokio::time::sleep(delay).await;
                        let last = parser.last_event_id().unwrap_or_default().to_owned();
                        response = self
                            .resume(wire, token, &call.headers, &last, deadline)
                            .await?;
                        parser = parser.resumed();
                        continue;
                    };
                    parser.feed(&chunk, &mut events)?;
                    for data in events.drain(..) {
                        match handle(&data, &id, status)? {
                            Handled::Response(r) => {
                                return r.map(|result| Reply { result, session_id });
                            }
                            Handled::ServerRequest { id, method, params } => {
                                if let Wire::Legacy { .. } = wire {
                                    // The handler's and the answer's time are not this
                                    // exchange's: move the deadline by it.
                                    let started = tokio::time::Instant::now();
                                    let answered = self
                                        .answer_server_request(wire, token, id, &method, params)
                                        .await;
                                    deadline += started.elapsed();
                                    answered?;
                                }
                                // A modern connection drops server→client requests.
                            }
                            Handled::Notification { method, params } => {
                                self.on_notification(&method, params);
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

    /// Sends a notification (legacy `notifications/initialized`); expects `202`.
    pub(crate) async fn send_notification(
        &self,
        wire: &Wire<'_>,
        method: &str,
        token: Option<&str>,
    ) -> Result<(), ClientError> {
        let body = json!({"jsonrpc": "2.0", "method": method});
        self.post_no_answer(wire, token, body).await
    }

    pub(crate) async fn post_no_answer(
        &self,
        wire: &Wire<'_>,
        token: Option<&str>,
        body: Value,
    ) -> Result<(), ClientError> {
        if let Some(stdio) = &self.stdio {
            return stdio.notify(body, self.config.http.timeout).await;
        }
        let headers = self.headers(wire, token, &HeaderMap::new());
        let timeout = self.config.http.timeout;
        let deadline = tokio::time::Instant::now() + timeout;
        let response = timeout_at(
            deadline,
            self.http
                .post(self.url.clone())
                .headers(headers)
                .body(body.to_string())
                .send(),
        )
        .await
        .map_err(|_| TransportError::Timeout(timeout))?
        .map_err(|e| request_error(e, timeout))?;
        self.check_status(response, deadline).await?;
        Ok(())
    }

    /// Ends a legacy session with `DELETE`. `404` and `405` count as done.
    pub(crate) async fn delete_session(
        &self,
        wire: &Wire<'_>,
        token: Option<&str>,
    ) -> Result<(), ClientError> {
        let mut headers = self.headers(wire, token, &HeaderMap::new());
        headers.remove(CONTENT_TYPE);
        let timeout = self.config.http.timeout;
        let deadline = tokio::time::Instant::now() + timeout;
        let response = timeout_at(
            deadline,
            self.http.delete(self.url.clone()).headers(headers).send(),
        )
        .await
        .map_err(|_| TransportError::Timeout(timeout))?
        .map_err(|e| request_error(e, timeout))?;
        match response.status().as_u16() {
            404 | 405 => Ok(()),
            _ => self.check_status(response, deadline).await.map(drop),
        }
    }

    /// Answers a server→client request on a legacy connection by POSTing a response.
    pub(crate) async fn answer_server_request(
        &self,
        wire: &Wire<'_>,
        token: Option<&str>,
        id: Value,
        method: &str,
        params: Option<Value>,
    ) -> Result<(), ClientError> {
        let (outcome, failure) = self.config.handlers.outcome(method, params).await;
        let body = match outcome {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
        };
        let posted = self.post_no_answer(wire, token, body).await;
        match failure {
            Some(e) => Err(e),
            None => posted,
        }
    }

    /// Turns a non-success status into an error (401/403 with their challenge, a JSON-RPC
    /// error body as a protocol error, anything else as a status error).
    pub(crate) async fn check_status(
        &self,
        mut response: reqwest::Response,
        deadline: tokio::time::Instant,
    ) -> Result<reqwest::Response, ClientError> {
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let status = status.as_u16();
        let challenge = response
            .headers()
            .get(WWW_AUTHENTICATE)
            .and_then(|v| v.to_str().ok())
            .map(|v| Box::new(AuthChallenge::parse(status, v)));
        match status {
            401 => return Err(TransportError::Unauthorized { challenge }.into()),
            403 => return Err(TransportError::Forbidden { challenge }.into()),
            _ => {}
        }
        let bytes = self
            .read_body(&mut response, deadline)
            .await
            .unwrap_or_default();
        if let Ok(Value::Object(mut body)) = serde_json::from_slice::<Value>(&bytes)
            && let Some(error) = body.remove("error").filter(Value::is_object)
            && let ClientError::Protocol(p) = rpc_error(error, Some(status))
        {
            return Err(p.into());
        }
        let text = String::from_utf8_lossy(&bytes);
        let body: String = text.chars().take(512).collect();
        Err(TransportError::Status { status, body }.into())
    }

    /// Reads a whole body, bounded by the size limit and the deadline.
    async fn read_body(
        &self,
        response: &mut reqwest::Response,
        deadline: tokio::time::Instant,
    ) -> Result<Vec<u8>, ClientError> {
        let limit = self.config.http.max_response_bytes;
        let timeout = self.config.http.timeout;
        if response.content_length().is_some_and(|n| n > limit as u64) {
            return Err(TransportError::BodyTooLarge { limit }.into());
        }
        let mut out = Vec::new();
        while let Some(chunk) = timeout_at(deadline, response.chunk())
            .await
            .map_err(|_| TransportError::Timeout(timeout))?
            .map_err(|e| request_error(e, timeout))?
        {
            if out.len() + chunk.len() > limit {
                return Err(TransportError::BodyTooLarge { limit }.into());
            }
            out.extend_from_slice(&chunk);
        }
        Ok(out)
    }
}

/// How long to wait before a retry that carries only `requestState`.
pub(crate) const STATE_ONLY_RETRY_DELAY: Duration = Duration::from_millis(250);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_incoming_messages() {
        let id = RequestId::Number(3);
        assert!(matches!(
            handle(r#"{"jsonrpc":"2.0","id":3,"result":{"a":1}}"#, &id, 200).unwrap(),
            Handled::Response(Ok(_))
        ));
        assert!(matches!(
            handle(r#"{"jsonrpc":"2.0","id":4,"result":{}}"#, &id, 200).unwrap(),
            Handled::Ignored
        ));
        assert!(matches!(
            handle(
                r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"x"}}"#,
                &id,
                400
            )
            .unwrap(),
            Handled::Response(Err(ClientError::Protocol(ProtocolError::Rpc {
                http_status: Some(400),
                ..
            })))
        ));
        assert!(matches!(
            handle(r#"{"jsonrpc":"2.0","id":0,"method":"ping"}"#, &id, 200).unwrap(),
            Handled::ServerRequest { .. }
        ));
        assert!(matches!(
            handle(
                r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{}}"#,
                &id,
                200
            )
            .unwrap(),
            Handled::Notification { method, .. } if method == "notifications/progress"
        ));
        assert!(handle("not json", &id, 200).is_err());
    }

    #[test]
    fn reserved_headers() {
        assert!(is_reserved(&HeaderName::from_static("mcp-param-region")));
        assert!(is_reserved(&MCP_SESSION_ID));
        assert!(!is_reserved(&AUTHORIZATION));
        assert!(!is_reserved(&HeaderName::from_static("x-trace")));
    }
}
