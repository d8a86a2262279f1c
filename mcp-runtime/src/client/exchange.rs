//! The client's side of every exchange, whatever the transport: a request framed for its
//! era (the modern envelope merged into `_meta`), sent through the [`Transport`], with the
//! log level of a modern request, `notifications/cancelled` for a call nobody waits for
//! any more, a reopened connection after a lost one, and a renewed legacy session.

use std::sync::Arc;
use std::time::Duration;

use http::HeaderMap;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::transport::{Envelope, Message, Transport};
use super::{ClientError, Connection, Inner};
use crate::protocol::{
    ClientCapabilities, Era, Implementation, JsonObject, META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO, META_PROTOCOL_VERSION, RequestId,
};

/// How long to wait before a retry that carries only `requestState`.
pub(crate) const STATE_ONLY_RETRY_DELAY: Duration = Duration::from_millis(250);

/// How a message is framed for the era.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Wire<'a> {
    /// The envelope in `_meta` (and, over HTTP, the version and method headers).
    Modern {
        version: &'a str,
        client_info: &'a Implementation,
        capabilities: &'a ClientCapabilities,
    },
    /// The version agreed by `initialize`, once there is one.
    Legacy { version: Option<&'a str> },
}

impl<'a> Wire<'a> {
    /// What the transport sees of it.
    pub(crate) fn envelope(&self) -> Envelope<'a> {
        match *self {
            Self::Modern { version, .. } => Envelope::new(Era::Modern, Some(version)),
            Self::Legacy { version } => Envelope::new(Era::Legacy, version),
        }
    }
}

/// A request to send.
#[derive(Clone, Debug)]
pub(crate) struct Call {
    pub(crate) method: &'static str,
    pub(crate) params: JsonObject,
    /// A fixed id (the discover probe); otherwise a fresh number per attempt.
    pub(crate) id: Option<RequestId>,
    /// Extra headers for an HTTP transport (`Mcp-Name`, `Mcp-Param-*`, per-call headers).
    pub(crate) headers: HeaderMap,
    /// The call's rounds, when it is one round of a multi-round `tools/call`.
    pub(crate) rounds: Rounds,
}

impl Call {
    pub(crate) fn new(method: &'static str, params: JsonObject) -> Self {
        Self {
            method,
            params,
            id: None,
            headers: HeaderMap::new(),
            rounds: Rounds::default(),
        }
    }
}

/// The rounds of one multi-round `tools/call`: with telemetry, each round's span links to
/// the first round's.
#[derive(Clone, Debug, Default)]
pub(crate) struct Rounds {
    #[cfg(feature = "otel")]
    pub(crate) first: Option<Arc<std::sync::OnceLock<opentelemetry::trace::SpanContext>>>,
}

impl Rounds {
    /// The rounds of a new call.
    pub(crate) fn of_call() -> Self {
        Self {
            #[cfg(feature = "otel")]
            first: Some(Arc::default()),
        }
    }
}

/// The body of a request: params with the modern envelope merged into `_meta`.
pub(crate) fn body(wire: &Wire<'_>, id: &RequestId, method: &str, params: &JsonObject) -> Value {
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

impl Inner {
    fn next_id(&self) -> RequestId {
        RequestId::Number(
            self.next_id
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        )
    }

    /// Sends one request through the transport and waits for its result.
    pub(crate) async fn send(
        &self,
        wire: &Wire<'_>,
        call: &Call,
    ) -> Result<Box<RawValue>, ClientError> {
        let id = call.id.clone().unwrap_or_else(|| self.next_id());
        let envelope = wire.envelope();
        // A call whose future is dropped before its answer tells the server
        // (`notifications/cancelled`) where the transport needs it, so the server stops
        // working for nobody: on a legacy HTTP session, and on stdio and in-process in both
        // eras. A modern HTTP call needs nothing more: dropping it aborts its HTTP request.
        let mut guard = (call.method != "initialize"
            && self.transport.cancels_by_notification(envelope.era))
        .then(|| CancelOnDrop {
            transport: Arc::clone(&self.transport),
            era: envelope.era,
            version: envelope.protocol_version.map(str::to_owned),
            id: id.clone(),
            armed: true,
        });
        let body = body(wire, &id, call.method, &call.params);
        let out = self.exchange(&id, call, envelope, body).await;
        if let Some(guard) = &mut guard {
            guard.armed = false;
        }
        out
    }

    /// Sends the request `body` through the transport and waits for its answer: with
    /// telemetry, in the request's span, its context in `_meta` and the headers.
    async fn exchange(
        &self,
        id: &RequestId,
        call: &Call,
        envelope: Envelope<'_>,
        body: Value,
    ) -> Result<Box<RawValue>, ClientError> {
        #[cfg(feature = "otel")]
        if let Some(observer) = &self.observer {
            let request = super::observe::Outgoing {
                id,
                method: call.method,
                envelope,
                headers: &call.headers,
                first_round: call.rounds.first.as_deref(),
            };
            let peer = self.peer();
            return observer
                .exchange(&*self.transport, &peer, request, body)
                .await;
        }
        let message = Message {
            id: Some(id),
            method: call.method,
            body: &body,
            envelope,
            headers: &call.headers,
        };
        self.transport.request(message, &self.peer()).await
    }

    /// Sends a notification (`notifications/initialized`, `…/roots/list_changed`).
    pub(crate) async fn notify(&self, wire: &Wire<'_>, method: &str) -> Result<(), ClientError> {
        #[cfg_attr(not(feature = "otel"), expect(unused_mut))]
        let mut body = json!({"jsonrpc": "2.0", "method": method});
        #[cfg(feature = "otel")]
        let sent = self
            .observer
            .as_ref()
            .map(|o| o.notifying(&mut body, wire.envelope().protocol_version));
        let out = self
            .transport
            .notify(Message {
                id: None,
                method,
                body: &body,
                envelope: wire.envelope(),
                headers: &HeaderMap::new(),
            })
            .await;
        #[cfg(feature = "otel")]
        if let Some(sent) = sent {
            super::observe::notified(sent, &out);
        }
        out
    }

    /// A request on the connection: a lost connection is reopened first (a respawned
    /// stdio server), and an expired legacy session renewed once.
    pub(super) async fn request(
        &self,
        conn: &Arc<Connection>,
        call: &Call,
    ) -> Result<Box<RawValue>, ClientError> {
        // A modern request carries the log level in its own `_meta`.
        let level = *self.log_level.lock().unwrap_or_else(|e| e.into_inner());
        let leveled;
        let call = match level {
            Some(level) if conn.info.era == Era::Modern => {
                let mut c = call.clone();
                let meta = c
                    .params
                    .entry("_meta")
                    .or_insert_with(|| Value::Object(Map::new()));
                if let Some(meta) = meta.as_object_mut() {
                    meta.entry(crate::protocol::META_LOG_LEVEL)
                        .or_insert_with(|| Value::String(level.as_str().into()));
                }
                leveled = c;
                &leveled
            }
            _ => call,
        };
        let mut conn = Arc::clone(conn);
        if self.transport.needs_reopen() {
            conn = self.reopen(conn.generation).await?;
        }
        let mut renewed = false;
        loop {
            let result = self.send(&conn.wire(), call).await;
            match result {
                Err(e)
                    if !renewed
                        && conn.info.era == Era::Legacy
                        && conn.info.session_id.is_some()
                        && e.http_status() == Some(404) =>
                {
                    renewed = true;
                    conn = self.renew_session(conn.generation).await?;
                }
                other => return other,
            }
        }
    }

    /// The connection was lost and the transport can open a new one (a stdio server that
    /// will be respawned): reopen it and redo the handshake with the connection's options
    /// (once per generation).
    async fn reopen(&self, generation: u64) -> Result<Arc<Connection>, ClientError> {
        let _guard = self.connect_lock.lock().await;
        let current = self.connection()?;
        if current.generation != generation {
            return Ok(current);
        }
        self.transport.reopen().await;
        tracing::info!("reopening the connection to the MCP server");
        let conn = self.negotiate(current.options.clone()).await?;
        self.install(conn, true);
        self.connection()
    }
}

/// Sends `notifications/cancelled` for a request whose caller stopped waiting (a modern
/// one carries the protocol version in its `_meta`, as the TypeScript client sends it).
struct CancelOnDrop {
    transport: Arc<dyn Transport>,
    era: Era,
    version: Option<String>,
    id: RequestId,
    /// Cleared once the exchange ended, answered or not.
    armed: bool,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let mut params = json!({"requestId": self.id, "reason": "the client stopped waiting"});
        if let (Era::Modern, Some(v)) = (self.era, &self.version) {
            params["_meta"] = json!({META_PROTOCOL_VERSION: v});
        }
        let body = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params});
        let transport = Arc::clone(&self.transport);
        let (era, version) = (self.era, self.version.take());
        runtime.spawn(async move {
            let message = Message {
                id: None,
                method: "notifications/cancelled",
                body: &body,
                envelope: Envelope::new(era, version.as_deref()),
                headers: &HeaderMap::new(),
            };
            if let Err(e) = transport.notify(message).await {
                tracing::debug!(error = %e, "cannot send notifications/cancelled");
            }
        });
    }
}
