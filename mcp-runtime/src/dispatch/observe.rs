//! The server's telemetry (the `otel` feature): every request the core serves, every
//! notification a transport receives, every request a handler sends its client and every
//! legacy session, recorded through [`mcp::otel`](crate::otel).

use std::time::Duration;

use opentelemetry::trace::FutureExt as _;
use serde_json::Value;

use super::request::{McpRequest, McpResponse, Params, TransportKind};
use super::{BoxFuture, Reply, Server};
use crate::otel::{
    self, Facts, Network, Operation, Outbound, Outcome, SessionClock, Side, Telemetry,
};
use crate::protocol::JsonObject;

/// A server's telemetry, and the legacy sessions it clocks.
#[derive(Debug)]
pub(crate) struct Observed {
    pub(crate) telemetry: Telemetry,
    pub(crate) sessions: SessionClock,
}

/// How a request travelled: HTTP (its version and the peer's address) or a local pipe.
pub(crate) fn network_of(
    transport: TransportKind,
    parts: Option<&http::request::Parts>,
) -> Network {
    match (transport, parts) {
        (TransportKind::Http, Some(parts)) => {
            let peer = parts
                .extensions
                .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
                .map(|info| otel::Peer::Addr(info.0));
            Network::http(Some(parts.version), peer)
        }
        (TransportKind::Http, None) => Network::http(None, None),
        (TransportKind::Stdio, _) => Network::local(false),
        (TransportKind::InProcess, _) => Network::local(true),
    }
}

/// A request's `_meta`, where a sender puts its trace context.
fn meta_of(request: &McpRequest) -> Option<&JsonObject> {
    match &request.params {
        Params::Call(call) => call.meta.as_ref(),
        Params::Object(params) => otel::meta_of(params.as_ref()),
    }
}

/// How the core answered.
fn outcome_of(response: &McpResponse) -> Outcome<'_> {
    match &response.0 {
        Reply::Ok(text) => Outcome::Result(Some(text.get())),
        Reply::Err { error, .. } => Outcome::Error {
            code: i64::from(error.code.0),
            message: &error.message,
        },
        // HTTP answers it with a 403 challenge; in band it is an invalid request.
        Reply::InsufficientScope(_) => Outcome::Error {
            code: i64::from(crate::protocol::ErrorCode::INVALID_REQUEST.0),
            message: "Insufficient scope",
        },
    }
}

impl Observed {
    pub(crate) fn new(telemetry: Telemetry) -> Self {
        Self {
            telemetry,
            sessions: SessionClock::default(),
        }
    }

    /// Serves `request` past the server's layers in its span: the span's context is the
    /// current one while the handler runs (what it logs lands there, what it sends carries
    /// it), and the answer ends it.
    pub(crate) fn serve(
        &self,
        server: &Server,
        request: McpRequest,
    ) -> BoxFuture<'static, McpResponse> {
        let parts = request.extensions.get::<http::request::Parts>();
        let network = network_of(request.transport, parts);
        let (parent, links) = otel::received(
            self.telemetry.propagator(),
            meta_of(&request),
            parts.map(|p| &p.headers),
        );
        let session = request.session.as_ref().map(crate::session::Session::id);
        if let Some(id) = session {
            self.sessions.used(id);
        }
        let facts = Facts {
            method: &request.method,
            id: Some(&request.id),
            version: Some(&request.version),
            target: request.target(),
            session,
            arguments: request.arguments(),
            network: &network,
        };
        let operation = Operation::start(&self.telemetry, Side::Received, &facts, &parent, links);
        let cx = operation.context().clone();
        let served = {
            let _attached = cx.clone().attach();
            server.serve_layers(request)
        };
        Box::pin(async move {
            let response = served.with_context(cx).await;
            operation.finish(outcome_of(&response));
            response
        })
    }

    /// A notification a transport received (acknowledged at once).
    pub(crate) fn notification(
        &self,
        method: &str,
        params: Option<&JsonObject>,
        version: Option<&str>,
        network: &Network,
        headers: Option<&http::HeaderMap>,
    ) {
        let meta = otel::meta_of(params);
        let (parent, links) = otel::received(self.telemetry.propagator(), meta, headers);
        let target = params
            .and_then(|p| p.get("uri"))
            .and_then(Value::as_str)
            .filter(|_| method == "notifications/resources/updated");
        let facts = Facts {
            method,
            id: None,
            version,
            target,
            session: None,
            arguments: None,
            network,
        };
        Operation::start(&self.telemetry, Side::Received, &facts, &parent, links)
            .finish(Outcome::Result(None));
    }

    /// The span of a `subscriptions/listen` request, which lasts as long as its stream.
    pub(crate) fn listening(
        &self,
        request: &crate::protocol::Request,
        network: &Network,
        headers: Option<&http::HeaderMap>,
    ) -> otel::Lasting {
        let params = request.params.as_ref();
        let meta = otel::meta_of(params);
        let (parent, links) = otel::received(self.telemetry.propagator(), meta, headers);
        let facts = Facts {
            method: &request.method,
            id: Some(&request.id),
            version: Some(crate::protocol::MODERN_VERSION),
            target: None,
            session: None,
            arguments: None,
            network,
        };
        otel::Lasting::new(Operation::start(
            &self.telemetry,
            Side::Received,
            &facts,
            &parent,
            links,
        ))
    }

    /// What the handler of `request` records its requests to the client with.
    pub(crate) fn for_call(&self, request: &McpRequest) -> Outbound {
        let parts = request.extensions.get::<http::request::Parts>();
        Outbound::new(
            self.telemetry.clone(),
            network_of(request.transport, parts),
            request.version.clone(),
        )
    }

    /// A legacy session was created.
    pub(crate) fn session_opened(&self, id: &str, version: &str, network: Network, idle: Duration) {
        self.sessions
            .opened(&self.telemetry, id, version, network, idle);
    }

    /// A legacy session ended: now (deleted), or at its last request (expired, evicted).
    pub(crate) fn session_closed(&self, id: &str, at_last_request: bool) {
        self.sessions.closed(&self.telemetry, id, at_last_request);
    }

    /// A stdio or in-process connection ended after `lasted`, pinned to `version` if it was.
    pub(crate) fn connection_closed(
        &self,
        lasted: Duration,
        version: Option<&str>,
        in_process: bool,
        error: Option<&'static str>,
    ) {
        self.telemetry.session_ended(
            Side::Received,
            lasted,
            version,
            &Network::local(in_process),
            error,
        );
    }
}
