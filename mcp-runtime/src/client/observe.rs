//! The client's telemetry (the `otel` feature): every request and notification it sends
//! as an `mcp.client` span with its trace context in `_meta` and the HTTP headers, every
//! request and notification the server sends it as an `mcp.server` span, and each
//! connection's duration (recorded through [`mcp::otel`](crate::otel)).

use std::time::Instant;

use opentelemetry::trace::{FutureExt as _, Link, TraceContextExt as _};
use serde_json::Value;
use serde_json::value::RawValue;

use super::ClientError;
use super::error::{ProtocolError, TransportError};
use super::handlers::ServerRequestHandlers;
use super::transport::{Answer, Envelope, Message, Peer, Transport};
use crate::otel::{self, Facts, Network, Operation, Outcome, Side, Telemetry};
use crate::protocol::{Era, JsonObject, RequestId};

/// What a client records its traffic with, and how it reaches its server.
#[derive(Debug)]
pub(crate) struct Observer {
    telemetry: Telemetry,
    network: Network,
}

/// A request about to be sent: what its span needs besides the body.
pub(crate) struct Outgoing<'a> {
    pub(crate) id: &'a RequestId,
    pub(crate) method: &'a str,
    pub(crate) envelope: Envelope<'a>,
    pub(crate) headers: &'a http::HeaderMap,
    /// The first round's span, for a round of a multi-round call (set by the first).
    pub(crate) first_round: Option<&'a std::sync::OnceLock<opentelemetry::trace::SpanContext>>,
}

/// The target a request's params name (tool, prompt or resource).
fn target_of<'a>(method: &str, params: Option<&'a JsonObject>) -> Option<&'a str> {
    let key = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => "uri",
        _ => return None,
    };
    params?.get(key)?.as_str()
}

/// The host and port of an `http(s)://` URL.
fn host_port(url: &str) -> Option<otel::Peer> {
    let uri: http::Uri = url.parse().ok()?;
    let host = uri.host()?.trim_start_matches('[').trim_end_matches(']');
    let port = uri.port_u16().unwrap_or(match uri.scheme_str() {
        Some("https") => 443,
        _ => 80,
    });
    Some(otel::Peer::Host(host.into(), port))
}

impl Observer {
    /// Records with `telemetry`; `endpoint` is a Streamable HTTP client's URL, `in_process`
    /// tells an in-process pipe from a stdio one.
    pub(crate) fn new(telemetry: Telemetry, endpoint: Option<&str>, in_process: bool) -> Self {
        let network = match endpoint {
            Some(url) => Network::http(None, host_port(url)),
            None => Network::local(in_process),
        };
        Self { telemetry, network }
    }

    /// Sends the request `body` through the client's transport in its span: the span's
    /// context goes into the body's `_meta` and the headers, and a later round of a
    /// multi-round call links to the first.
    pub(crate) async fn exchange(
        &self,
        transport: &dyn Transport,
        peer: &Peer,
        request: Outgoing<'_>,
        mut body: Value,
    ) -> Result<Box<RawValue>, ClientError> {
        let Outgoing {
            id,
            method,
            envelope,
            headers,
            first_round,
        } = request;
        let params = body.get("params").and_then(Value::as_object);
        let session = transport.session_id();
        let facts = Facts {
            method,
            id: Some(id),
            version: envelope.protocol_version,
            target: target_of(method, params),
            session: session.as_deref().filter(|_| envelope.era == Era::Legacy),
            arguments: params
                .and_then(|p| p.get("arguments"))
                .and_then(Value::as_object),
            network: &self.network,
        };
        let links = first_round
            .and_then(|f| f.get())
            .map(|l| vec![Link::with_context(l.clone())]);
        let operation = Operation::start(
            &self.telemetry,
            Side::Sent,
            &facts,
            &opentelemetry::Context::current(),
            links.unwrap_or_default(),
        );
        let cx = operation.context().clone();
        if let Some(first) = first_round {
            let _ = first.set(cx.span().span_context().clone());
        }
        self.inject(&mut body, &cx);
        let mut headers = headers.clone();
        otel::into_headers(self.telemetry.propagator(), &cx, &mut headers);
        let message = Message {
            id: Some(id),
            method,
            body: &body,
            envelope,
            headers: &headers,
        };
        let answer = transport.request(message, peer).with_context(cx).await;
        operation.finish(outcome(&answer));
        answer
    }

    /// Writes `cx` into the `_meta` of the message `body`'s params (made when absent).
    fn inject(&self, body: &mut Value, cx: &opentelemetry::Context) {
        if let Some(message) = body.as_object_mut() {
            let params = message
                .entry("params")
                .or_insert_with(|| Value::Object(JsonObject::new()));
            otel::into_params(self.telemetry.propagator(), cx, params);
        }
    }

    /// A notification the client sends, with its context in `_meta`: its span ends once it
    /// was sent.
    pub(crate) fn notifying(&self, body: &mut Value, version: Option<&str>) -> Operation {
        let method = body["method"].as_str().unwrap_or_default().to_owned();
        let facts = Facts {
            method: &method,
            id: None,
            version,
            target: None,
            session: None,
            arguments: None,
            network: &self.network,
        };
        let operation = Operation::start(
            &self.telemetry,
            Side::Sent,
            &facts,
            &opentelemetry::Context::current(),
            Vec::new(),
        );
        self.inject(body, operation.context());
        operation
    }

    /// A request or notification the server sent the client (`id` `None`): its span, the
    /// child of the context in its `_meta`.
    pub(crate) fn receiving(
        &self,
        method: &str,
        id: Option<&Value>,
        params: Option<&Value>,
    ) -> Operation {
        let params = params.and_then(Value::as_object);
        let (parent, links) =
            otel::received(self.telemetry.propagator(), otel::meta_of(params), None);
        let id = id.and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
        let facts = Facts {
            method,
            id: id.as_ref(),
            version: None,
            target: target_of(method, params),
            session: None,
            arguments: None,
            network: &self.network,
        };
        Operation::start(&self.telemetry, Side::Received, &facts, &parent, links)
    }

    /// Answers the server's request `id` with the client's `handlers` in its span (the
    /// child of the context in its `_meta`).
    pub(crate) async fn answer(
        &self,
        handlers: &ServerRequestHandlers,
        id: Value,
        method: &str,
        params: Option<Value>,
    ) -> Answer {
        let operation = self.receiving(method, Some(&id), params.as_ref());
        let cx = operation.context().clone();
        let (outcome, failure) = handlers.outcome(method, params).with_context(cx).await;
        match &outcome {
            Ok(_) => operation.finish(Outcome::Result(None)),
            Err(error) => operation.finish(Outcome::Error {
                code: i64::from(error.code.0),
                message: &error.message,
            }),
        }
        Answer::new(id, outcome, failure)
    }

    /// A timer of the connection just made, recording its duration when dropped.
    pub(crate) fn session(&self, version: &str) -> SessionTimer {
        SessionTimer {
            telemetry: self.telemetry.clone(),
            network: self.network.clone(),
            version: version.to_owned(),
            started: Instant::now(),
        }
    }
}

/// Ends the span of a notification the client sent.
pub(crate) fn notified(operation: Operation, sent: &Result<(), ClientError>) {
    operation.finish(match sent {
        Ok(()) => Outcome::Result(None),
        Err(_) => Outcome::Failed("transport"),
    });
}

/// How a request ended, as the conventions classify it.
fn outcome(answer: &Result<Box<RawValue>, ClientError>) -> Outcome<'_> {
    match answer {
        Ok(result) => Outcome::Result(Some(result.get())),
        Err(ClientError::Protocol(ProtocolError::Rpc { error, .. })) => Outcome::Error {
            code: i64::from(error.code.0),
            message: &error.message,
        },
        Err(ClientError::Transport(TransportError::Timeout(_))) => Outcome::Failed("timeout"),
        Err(ClientError::Transport(_) | ClientError::Process(_) | ClientError::Stream(_)) => {
            Outcome::Failed("transport")
        }
        Err(_) => Outcome::Failed("_OTHER"),
    }
}

/// Records a connection's duration when the connection is dropped (closed, replaced, or
/// its client dropped).
#[derive(Debug)]
pub(crate) struct SessionTimer {
    telemetry: Telemetry,
    network: Network,
    version: String,
    started: Instant,
}

impl Drop for SessionTimer {
    fn drop(&mut self) {
        self.telemetry.session_ended(
            Side::Sent,
            self.started.elapsed(),
            Some(&self.version),
            &self.network,
            None,
        );
    }
}
