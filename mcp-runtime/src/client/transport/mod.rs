//! The seam between a [`Client`](super::Client) and the wire: one [`Transport`] trait,
//! under one client, for every way of reaching a server.
//!
//! The client keeps everything that is MCP: the era and its negotiation, the modern
//! `_meta` envelope, the caches, the `input_required` rounds, the handlers. A transport
//! moves whole JSON-RPC messages and keeps what only it knows:
//!
//! - **Streamable HTTP** ([`Client::new`](super::Client::new)): the URL and the HTTP
//!   client, the `Mcp-Session-Id` of a legacy session, `Last-Event-ID` resumption, the
//!   bearer token and its `401`/`403` step-up, `DELETE` on close, the standalone `GET`
//!   stream;
//! - **stdio** ([`Client::stdio`](super::Client::stdio)): a child process, its pipes and
//!   their line framing;
//! - **in-process** ([`Client::in_process`](super::Client::in_process)): one end of an
//!   in-process message pipe, whose other end a server serves.
//!
//! stdio and in-process share their message stream: one connection, exchanges one at a
//! time, server→client requests answered and notifications dispatched as they arrive.
//!
//! A transport of your own plugs in with [`Client::with_transport`](super::Client::with_transport).
//! Messages the server sends while a request is in flight (notifications, server→client
//! requests such as elicitation, sampling or `roots/list`) go to the [`Peer`] the client
//! passes along, which answers requests with the client's handlers.

use std::future::Future;
use std::sync::{Arc, Weak};

use http::HeaderMap;
use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::handlers::ServerRequestHandlers;
use super::{ClientError, Inner};
use crate::base::BoxFuture;
use crate::protocol::{Era, RequestId};

pub(crate) mod in_process;
pub(crate) mod link;
pub(crate) mod streamable_http;

/// How a client reaches its server: it sends requests and notifications, and hands what
/// the server sends meanwhile to the client's [`Peer`].
///
/// The trait is object-safe: the client holds an `Arc<dyn Transport>`. Every method the
/// client calls concurrently may run concurrently; a transport that needs order (stdio)
/// serialises inside.
///
/// ```
/// use mcp::BoxFuture;
/// use mcp::client::transport::{Envelope, Message, Peer, Transport};
/// use mcp::client::{Client, ClientConfig, ClientError, TransportError};
/// use serde_json::value::RawValue;
///
/// /// A transport that cannot reach anything.
/// struct Nowhere;
///
/// impl Transport for Nowhere {
///     fn request<'a>(
///         &'a self,
///         _message: Message<'a>,
///         _peer: &'a Peer,
///     ) -> BoxFuture<'a, Result<Box<RawValue>, ClientError>> {
///         Box::pin(async { Err(TransportError::Closed.into()) })
///     }
///
///     fn notify<'a>(&'a self, _message: Message<'a>) -> BoxFuture<'a, Result<(), ClientError>> {
///         Box::pin(async { Err(TransportError::Closed.into()) })
///     }
///
///     fn close<'a>(&'a self, _last: Option<Envelope<'a>>) -> BoxFuture<'a, Result<(), ClientError>> {
///         Box::pin(async { Ok(()) })
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let client = Client::with_transport(Nowhere, ClientConfig::new());
/// assert!(client.connect(mcp::Implementation::new("c", "1")).await.is_err());
/// # }
/// ```
pub trait Transport: Send + Sync + 'static {
    /// Sends the request `message` (its [`id`](Message::id) is set) and waits for its
    /// answer: the `result` of the response, or the response's error as a
    /// [`ProtocolError::Rpc`](super::ProtocolError::Rpc). Notifications and server→client
    /// requests that arrive meanwhile go to `peer`.
    ///
    /// Dropping the future means the caller stopped waiting. A transport for which that
    /// is not signal enough says so with
    /// [`cancels_by_notification`](Self::cancels_by_notification), and the client then
    /// sends `notifications/cancelled` itself.
    fn request<'a>(
        &'a self,
        message: Message<'a>,
        peer: &'a Peer,
    ) -> BoxFuture<'a, Result<Box<RawValue>, ClientError>>;

    /// Sends a message that gets no answer: a notification, or a response.
    fn notify<'a>(&'a self, message: Message<'a>) -> BoxFuture<'a, Result<(), ClientError>>;

    /// Whether a request of `era` whose caller stopped waiting must be followed by
    /// `notifications/cancelled` (the default). Streamable HTTP answers `false` for a
    /// modern request, whose aborted HTTP request is the signal.
    fn cancels_by_notification(&self, era: Era) -> bool {
        let _ = era;
        true
    }

    /// Opens the standalone stream of a new connection, where the transport has one (a
    /// legacy HTTP session's `GET` stream), for what the server sends outside any request.
    /// The default has none: stdio and in-process read everything on their one stream.
    fn open_stream(
        self: Arc<Self>,
        envelope: Envelope<'_>,
        peer: Peer,
    ) -> Option<StandaloneStream> {
        let _ = (envelope, peer);
        None
    }

    /// The session the transport holds with the server (a legacy HTTP `Mcp-Session-Id`).
    fn session_id(&self) -> Option<String> {
        None
    }

    /// The server's URL, for a transport that has one.
    fn endpoint(&self) -> Option<&str> {
        None
    }

    /// `true` when the connection was lost and the transport can open a new one: the
    /// client then calls [`reopen`](Self::reopen) and negotiates again before its next
    /// request.
    fn needs_reopen(&self) -> bool {
        false
    }

    /// Forgets a lost connection; the next message opens a new one.
    fn reopen(&self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }

    /// Ends the connection. `last` is the envelope of the connection being closed, if the
    /// client was connected.
    fn close<'a>(&'a self, last: Option<Envelope<'a>>) -> BoxFuture<'a, Result<(), ClientError>>;
}

/// The era a message travels in and the protocol version it declares: a modern message
/// always has one; a legacy one has the version agreed by `initialize`, once there is one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Envelope<'a> {
    /// The protocol era.
    pub era: Era,
    /// The version an HTTP transport sends as `MCP-Protocol-Version`.
    pub protocol_version: Option<&'a str>,
}

impl<'a> Envelope<'a> {
    /// An envelope of `era` declaring `protocol_version`.
    pub fn new(era: Era, protocol_version: Option<&'a str>) -> Self {
        Self {
            era,
            protocol_version,
        }
    }
}

/// One message for a transport to deliver: the JSON-RPC message itself, complete (the
/// client already merged the modern `_meta` envelope into it), and what a transport may
/// need to frame it.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct Message<'a> {
    /// The request id; `None` for a notification or a response.
    pub id: Option<&'a RequestId>,
    /// The method (`""` for a response).
    pub method: &'a str,
    /// The whole JSON-RPC message.
    pub body: &'a Value,
    /// Its era and protocol version.
    pub envelope: Envelope<'a>,
    /// Headers for a transport that has them (`Mcp-Name`, `Mcp-Param-*`, the call's own
    /// headers); other transports ignore them.
    pub headers: &'a HeaderMap,
}

/// The client, as its transport sees it: where notifications and server→client requests
/// go. Cheap to clone; it holds the client only weakly, so a transport task that keeps it
/// never keeps a dropped client alive.
#[derive(Clone)]
pub struct Peer {
    handlers: ServerRequestHandlers,
    client: Weak<Inner>,
}

impl std::fmt::Debug for Peer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Peer")
            .field("attached", &(self.client.strong_count() > 0))
            .finish_non_exhaustive()
    }
}

impl Peer {
    pub(crate) fn new(handlers: ServerRequestHandlers, client: Weak<Inner>) -> Self {
        Self { handlers, client }
    }

    /// A notification from the server: a changed tool list drops the `tools/list` cache;
    /// then the configured notification handler sees it.
    pub fn notification(&self, method: &str, params: Option<Value>) {
        if let Some(inner) = self.client.upgrade() {
            #[cfg(feature = "otel")]
            let received = inner
                .observer()
                .map(|o| o.receiving(method, None, params.as_ref()));
            inner.on_notification(method, params);
            #[cfg(feature = "otel")]
            if let Some(received) = received {
                received.finish(crate::otel::Outcome::Result(None));
            }
        }
    }

    /// Answers the server→client request `id` with the client's handlers (`ping`,
    /// elicitation, sampling, roots; `-32601` for anything else).
    pub async fn answer(&self, id: Value, method: &str, params: Option<Value>) -> Answer {
        #[cfg(feature = "otel")]
        if let Some(inner) = self.client.upgrade()
            && let Some(observer) = inner.observer()
        {
            return observer.answer(&self.handlers, id, method, params).await;
        }
        let (outcome, failure) = self.handlers.outcome(method, params).await;
        Answer::new(id, outcome, failure)
    }

    /// The transport's credentials changed (a new token after a challenge): what the
    /// client cached under the old ones is dropped.
    pub fn credentials_changed(&self) {
        if let Some(inner) = self.client.upgrade() {
            inner.lock_cache().clear();
        }
    }
}

/// The client's answer to a server→client request: the JSON-RPC response to send back,
/// and the handler's failure, if it failed (the response then carries `-32603`).
#[derive(Debug)]
pub struct Answer {
    message: Value,
    failure: Option<ClientError>,
}

impl Answer {
    /// The response to the request `id`: its result or its error, and the handler's failure.
    pub(crate) fn new(
        id: Value,
        outcome: Result<Value, crate::protocol::ErrorObject>,
        failure: Option<ClientError>,
    ) -> Self {
        let message = match outcome {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
        };
        Self { message, failure }
    }

    /// The JSON-RPC response to send to the server.
    pub fn message(&self) -> &Value {
        &self.message
    }

    /// The response, and the handler's failure.
    pub fn into_parts(self) -> (Value, Option<ClientError>) {
        (self.message, self.failure)
    }
}

/// A standalone stream, opened by [`Transport::open_stream`]: `run` reads it until it
/// ends (the client spawns it, and aborts it when the connection is replaced or closed);
/// `opened` completes once the server has answered the opening request.
pub struct StandaloneStream {
    pub(crate) run: BoxFuture<'static, ()>,
    pub(crate) opened: BoxFuture<'static, ()>,
}

impl std::fmt::Debug for StandaloneStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StandaloneStream").finish_non_exhaustive()
    }
}

impl StandaloneStream {
    /// A stream read by `run`, open once `opened` completes.
    pub fn new(
        run: impl Future<Output = ()> + Send + 'static,
        opened: impl Future<Output = ()> + Send + 'static,
    ) -> Self {
        Self {
            run: Box::pin(run),
            opened: Box::pin(opened),
        }
    }
}
