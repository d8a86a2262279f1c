//! The MCP client: [`Client`], over Streamable HTTP, over stdio to a server it starts as a
//! child process ([`Client::stdio`], [`connect_stdio`]; see [`stdio`]), or in-process to a
//! server in the same program ([`Client::in_process`]). Each is a [`Transport`] under the
//! one client (see [`transport`]).
//!
//! The client negotiates the protocol era ([`ProtocolMode`]: auto, modern, legacy), keeps a
//! legacy HTTP session across calls, caches `tools/list` pages by the server's hints,
//! mirrors `x-mcp-header` arguments into `Mcp-Param-*` headers, and answers elicitations —
//! embedded in modern `input_required` results, or pushed by a legacy server on a response
//! stream — through an [`ElicitationHandler`].
//!
//! The shortest path: [`connect`] with the default identity and the auto era, then
//! [`call`](Client::call) a tool with typed arguments and read its typed
//! structured result.
//!
//! ```no_run
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize)]
//! struct Add {
//!     left: i64,
//!     right: i64,
//! }
//!
//! #[derive(Deserialize)]
//! struct Sum {
//!     sum: i64,
//! }
//!
//! # async fn run() -> Result<(), mcp::client::ClientError> {
//! let client = mcp::client::connect("http://localhost:9090/mcp").await?;
//! let listed = client.list_tools().await?;
//! println!("{} tools", listed.tools.len());
//!
//! let result = client.call("add").arguments(&Add { left: 2, right: 3 })?.await?;
//! println!("2 + 3 = {}", result.structured::<Sum>()?.sum);
//! client.close().await?;
//! # Ok(())
//! # }
//! ```
//!
//! The detailed setup: a [`ClientConfig`] (protocol mode, HTTP settings, an elicitation
//! handler, a token provider, the cache) and [`ConnectOptions`] (identity, capabilities):
//!
//! ```no_run
//! use mcp::Implementation;
//! use mcp::client::{ClientConfig, ConnectOptions, ProtocolMode, Client};
//! use serde_json::json;
//!
//! # async fn run() -> Result<(), mcp::client::ClientError> {
//! let client = Client::new(
//!     "http://localhost:9090/mcp",
//!     ClientConfig::new().protocol_mode(ProtocolMode::Modern),
//! )?;
//! let options = ConnectOptions::new(Implementation::new("example-client", "2.0.0"));
//! let connection = client.connect(options).await?;
//! println!("Using MCP {}", connection.protocol_version());
//! let result = client
//!     .call("add")
//!     .arguments(json!({"left": 2, "right": 3}))?
//!     .header(http::HeaderName::from_static("x-trace"), http::HeaderValue::from_static("1"))
//!     .await?;
//! println!("{}", result.joined_text());
//! # Ok(())
//! # }
//! ```
//!
//! The client is `Clone + Send + Sync` (an `Arc` inside): clones share the connection and
//! the cache, and concurrent calls proceed concurrently. Only connecting (and renewing an
//! expired legacy session) is serialised. Each exchange has its own timeout
//! ([`ClientConfig::timeout`]), started when the request is sent (over stdio and
//! in-process, when its turn comes).
//!
//! A tool that fails is data: its [`CallToolResult`] has
//! [`is_error()`](CallToolResult::is_error) `true`. A JSON-RPC error is a [`ClientError`]
//! whose [`code`](ClientError::code) is the server's code.

mod auth;
mod cache;
mod call;
mod config;
mod connect;
mod elicitation;
mod error;
mod exchange;
mod features;
mod handlers;
mod list;
pub mod llm;
mod negotiate;
mod notifications;
#[cfg(feature = "oauth")]
pub mod oauth;
#[cfg(feature = "otel")]
mod observe;
mod progress;
pub mod stdio;
mod tasks;
pub mod transport;
pub mod typed;
mod wire;

use std::sync::atomic::{AtomicI64, AtomicU64};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

pub use auth::{AuthChallenge, StaticToken, TokenProvider};
pub use call::CallBuilder;
pub use config::{
    CacheMode, ClientConfig, ConnectOptions, HttpConfig, ProtocolMode, ResultCacheConfig,
};
pub use connect::connect;
pub use elicitation::ElicitationHandler;
pub use error::{BoxError, ClientError, ProtocolError, StreamError, ToolCallError, TransportError};
pub use handlers::{RootsProvider, SamplingHandler};
pub use notifications::ServerNotification;
pub use progress::Progress;
pub use stdio::{DEFAULT_MAX_LINE_BYTES, ProcessError, StdioCommand, connect_stdio};
pub use tasks::{TaskCall, TaskHandle};
pub use transport::Transport;
pub use typed::{CallError, TypedCall, TypedClient, TypedTask};

use cache::ToolCache;
use exchange::Wire;
use transport::Peer;

use crate::base::pipe::PipeEnd;
#[cfg(doc)]
use crate::protocol::CallToolResult;
use crate::protocol::{Era, Implementation, JsonObject, ServerCapabilities};
use transport::in_process::InProcessTransport;
use transport::streamable_http::HttpTransport;

/// What [`Client::connect`] established. `Debug` shows a fingerprint of the session id
/// (`<redacted sha256:1a2b3c4d>`), not the id.
#[derive(Clone, PartialEq)]
pub struct ConnectionInfo {
    era: Era,
    protocol_version: String,
    server_info: Option<Implementation>,
    capabilities: ServerCapabilities,
    instructions: Option<String>,
    session_id: Option<String>,
}

impl std::fmt::Debug for ConnectionInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConnectionInfo")
            .field("era", &self.era)
            .field("protocol_version", &self.protocol_version)
            .field("server_info", &self.server_info)
            .field("capabilities", &self.capabilities)
            .field("instructions", &self.instructions)
            .field(
                "session_id",
                &self
                    .session_id
                    .as_ref()
                    .map(crate::redact::Redacted::fingerprint),
            )
            .finish()
    }
}

impl ConnectionInfo {
    /// The protocol era.
    pub fn era(&self) -> Era {
        self.era
    }

    /// The negotiated protocol version.
    pub fn protocol_version(&self) -> &str {
        &self.protocol_version
    }

    /// The server's identity (from `initialize`, or the modern `serverInfo` `_meta`).
    pub fn server_info(&self) -> Option<&Implementation> {
        self.server_info.as_ref()
    }

    /// The server's capabilities.
    pub fn capabilities(&self) -> &ServerCapabilities {
        &self.capabilities
    }

    /// Instructions for the model.
    pub fn instructions(&self) -> Option<&str> {
        self.instructions.as_deref()
    }

    /// The legacy HTTP session id, when the server issued one (never over stdio or
    /// in-process).
    pub fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }
}

#[derive(Debug)]
struct Connection {
    info: ConnectionInfo,
    /// Records the connection's duration when it ends (the `otel` feature).
    #[cfg(feature = "otel")]
    timer: Option<observe::SessionTimer>,
    /// Client identity and the capabilities actually declared (merged).
    options: ConnectOptions,
    /// The `MCP-Protocol-Version` of later legacy requests (`None`: not sent).
    version_header: Option<String>,
    generation: u64,
}

impl Connection {
    fn wire(&self) -> Wire<'_> {
        match self.info.era {
            Era::Modern => Wire::Modern {
                version: &self.info.protocol_version,
                client_info: &self.options.client_info,
                capabilities: &self.options.capabilities,
            },
            Era::Legacy => Wire::Legacy {
                version: self.version_header.as_deref(),
            },
        }
    }
}

/// How long connecting waits for a legacy session's standalone stream to open.
const LISTENER_OPEN_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

#[derive(Default)]
struct State {
    conn: Option<Arc<Connection>>,
    generation: u64,
    /// The task reading the transport's standalone stream (a legacy session's `GET`).
    listener: Option<tokio::task::AbortHandle>,
    /// Completes once that stream has been answered (or has failed); in a mutex only to be
    /// `Sync`.
    listener_opened: Option<Mutex<crate::base::BoxFuture<'static, ()>>>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        let state = self.state.get_mut().unwrap_or_else(|e| e.into_inner());
        if let Some(listener) = state.listener.take() {
            listener.abort();
        }
    }
}

/// Which transport a client was built with, for `Debug` and [`Client::is_stdio`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    StreamableHttp,
    Stdio,
    InProcess,
    Custom,
}

pub(crate) struct Inner {
    transport: Arc<dyn Transport>,
    kind: Kind,
    config: ClientConfig,
    state: RwLock<State>,
    connect_lock: tokio::sync::Mutex<()>,
    cache: Mutex<ToolCache>,
    next_id: AtomicI64,
    probe_seq: AtomicU64,
    /// The client itself, for its transport's tasks (which must not keep it alive).
    me: std::sync::Weak<Inner>,
    /// Set by `notifications/tools/list_changed`, cleared by the next full listing.
    tools_stale: std::sync::atomic::AtomicBool,
    /// The log level set with `set_logging_level`, sent with every modern request.
    log_level: Mutex<Option<crate::protocol::LogLevel>>,
    /// The progress callbacks of calls in flight, by their `progressToken`.
    progress: Mutex<rustc_hash::FxHashMap<String, progress::ProgressFn>>,
    progress_seq: AtomicU64,
    /// What records the client's traffic (the `otel` feature).
    #[cfg(feature = "otel")]
    observer: Option<observe::Observer>,
}

/// An MCP client for both protocol eras, over any [`Transport`].
///
/// Create it with [`new`](Self::new) (Streamable HTTP), [`stdio`](Self::stdio),
/// [`in_process`](Self::in_process) or [`with_transport`](Self::with_transport), then
/// [`connect`](Self::connect) before
/// [`list_tools`](Self::list_tools) or [`call`](Self::call) (or use the free function
/// [`connect`](fn@connect), which does both with the defaults). Cloning is cheap and clones
/// share the connection and the `tools/list` cache.
///
/// `Debug`, and the errors that quote the endpoint, mask the URL's password and the values
/// of credential-like query parameters (`?api_key=***`).
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("transport", &self.inner.kind)
            .field("url", &self.url().map(crate::redact::url))
            .field("config", &self.inner.config)
            .field("connection", &self.connection())
            .finish()
    }
}

fn invalid(method: &str, reason: impl std::fmt::Display) -> ClientError {
    ProtocolError::InvalidResponse {
        method: method.into(),
        reason: reason.to_string(),
    }
    .into()
}

/// Reads a result, dropping a `resultType` a legacy server should not have sent.
fn parse_result<T: DeserializeOwned>(
    method: &str,
    raw: &RawValue,
    era: Era,
) -> Result<T, ClientError> {
    let mut value: Value = serde_json::from_str(raw.get()).map_err(|e| invalid(method, e))?;
    if era == Era::Legacy
        && let Value::Object(o) = &mut value
    {
        o.remove("resultType");
    }
    serde_json::from_value(value).map_err(|e| invalid(method, e))
}

fn to_object(value: impl serde::Serialize) -> JsonObject {
    match serde_json::to_value(value) {
        Ok(Value::Object(o)) => o,
        _ => Map::new(),
    }
}

impl Client {
    /// A client for the MCP endpoint at `url` (`http` or `https`). No request is sent until
    /// [`connect`](Self::connect).
    ///
    /// ```
    /// use mcp::client::{ClientConfig, Client};
    ///
    /// let client = Client::new("http://127.0.0.1:9090/mcp", ClientConfig::new())?;
    /// assert!(client.connection().is_none());
    /// # Ok::<(), mcp::client::ClientError>(())
    /// ```
    pub fn new(url: impl AsRef<str>, config: ClientConfig) -> Result<Self, ClientError> {
        let (http, config) = HttpTransport::new(url.as_ref(), config)?;
        Ok(Self::build(Kind::StreamableHttp, config, |_| {
            Arc::new(http)
        }))
    }

    /// A client of the server serving the other end of the in-process pipe `end`
    /// (`mcp::transport::in_process::pipe`). Nothing is sent until
    /// [`connect`](Self::connect); then it works as over stdio: one connection, the era
    /// pinned by the first message, server→client requests answered by the handlers,
    /// [`ClientConfig::timeout`] per exchange (other HTTP settings are ignored).
    /// [`close`](Self::close) drops the pipe for good.
    pub fn in_process(end: PipeEnd, config: ClientConfig) -> Result<Self, ClientError> {
        let timeout = config.http.timeout;
        Ok(Self::build(Kind::InProcess, config, |peer| {
            Arc::new(InProcessTransport::new(end, peer, timeout))
        }))
    }

    /// A client that talks through a [`Transport`] of your own (see
    /// [the trait's docs](Transport)).
    pub fn with_transport(transport: impl Transport, config: ClientConfig) -> Self {
        Self::build(Kind::Custom, config, |_| Arc::new(transport))
    }

    /// The client over the transport `make` builds; it gets the client's [`Peer`].
    fn build(
        kind: Kind,
        config: ClientConfig,
        make: impl FnOnce(Peer) -> Arc<dyn Transport>,
    ) -> Self {
        Self {
            inner: Arc::new_cyclic(|me| {
                let transport = make(Peer::new(config.handlers.clone(), me.clone()));
                #[cfg(feature = "otel")]
                let observer = config.telemetry.clone().map(|t| {
                    observe::Observer::new(t, transport.endpoint(), kind == Kind::InProcess)
                });
                Inner {
                    transport,
                    kind,
                    cache: Mutex::new(ToolCache::new(config.result_cache)),
                    config,
                    state: RwLock::new(State::default()),
                    connect_lock: tokio::sync::Mutex::new(()),
                    next_id: AtomicI64::new(0),
                    probe_seq: AtomicU64::new(0),
                    me: me.clone(),
                    tools_stale: std::sync::atomic::AtomicBool::new(false),
                    log_level: Mutex::new(None),
                    progress: Mutex::default(),
                    progress_seq: AtomicU64::new(0),
                    #[cfg(feature = "otel")]
                    observer,
                }
            }),
        }
    }

    /// The endpoint URL of a Streamable HTTP client; `None` over stdio, in-process, or a
    /// transport without one.
    pub fn url(&self) -> Option<&str> {
        self.inner.transport.endpoint()
    }

    /// The current connection, if connected.
    pub fn connection(&self) -> Option<ConnectionInfo> {
        self.inner.current().map(|c| c.info.clone())
    }

    /// The legacy HTTP session id, if the server issued one.
    pub fn session_id(&self) -> Option<String> {
        self.inner.current().and_then(|c| c.info.session_id.clone())
    }

    /// Disconnects: drops the `tools/list` cache and closes the transport — over HTTP, a
    /// legacy session ends with `DELETE`; a stdio server is shut down. An HTTP or stdio
    /// client can connect again afterwards; an in-process one has dropped its pipe.
    pub async fn close(&self) -> Result<(), ClientError> {
        let _guard = self.inner.connect_lock.lock().await;
        let conn = {
            let mut state = self.inner.write_state();
            state.generation += 1;
            if let Some(listener) = state.listener.take() {
                listener.abort();
            }
            state.conn.take()
        };
        self.inner.lock_cache().clear();
        let last = conn.as_ref().map(|c| c.wire().envelope());
        self.inner.transport.close(last).await
    }
}

impl Inner {
    fn read_state(&self) -> std::sync::RwLockReadGuard<'_, State> {
        self.state.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write_state(&self) -> std::sync::RwLockWriteGuard<'_, State> {
        self.state.write().unwrap_or_else(|e| e.into_inner())
    }

    fn lock_cache(&self) -> MutexGuard<'_, ToolCache> {
        self.cache.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// What records the client's traffic, if it records it.
    #[cfg(feature = "otel")]
    pub(crate) fn observer(&self) -> Option<&observe::Observer> {
        self.observer.as_ref()
    }

    fn current(&self) -> Option<Arc<Connection>> {
        self.read_state().conn.clone()
    }

    fn connection(&self) -> Result<Arc<Connection>, ClientError> {
        self.current().ok_or(ClientError::NotConnected)
    }

    /// A notification from the server, on any stream or transport: a changed tool list
    /// marks the tools stale and drops the cache; then the configured handler sees it.
    pub(crate) fn on_notification(&self, method: &str, params: Option<Value>) {
        if method == "notifications/tools/list_changed" {
            tracing::debug!("the server's tool list changed; dropping the cache");
            self.tools_stale
                .store(true, std::sync::atomic::Ordering::Relaxed);
            self.lock_cache().clear();
        } else if method == "notifications/progress" {
            self.on_progress(params.as_ref());
        }
        if let Some(handler) = &self.config.notification_handler {
            handler(&ServerNotification::new(
                method,
                params.unwrap_or(Value::Null),
            ));
        }
    }

    /// Waits (at most 2 s) until the standalone stream of a new connection (a legacy HTTP
    /// session's `GET`) is open, so that a server sending requests on it right after the handshake (servers do,
    /// for requests not tied to a call) finds it there.
    async fn listener_opened(&self) {
        let opened = self.write_state().listener_opened.take();
        if let Some(opened) = opened {
            let opened = opened.into_inner().unwrap_or_else(|e| e.into_inner());
            let bound = self.config.http.timeout.min(LISTENER_OPEN_WAIT);
            let _ = tokio::time::timeout(bound, opened).await;
        }
    }

    /// Stores a new connection; `fresh` drops the cache (a new connection, not a renewed
    /// session). It gets a listener on the transport's standalone stream, where the
    /// transport has one for it (a legacy HTTP session's `GET`).
    fn install(&self, mut conn: Connection, fresh: bool) -> ConnectionInfo {
        let info = conn.info.clone();
        {
            let mut state = self.write_state();
            state.generation += 1;
            conn.generation = state.generation;
            #[cfg(feature = "otel")]
            {
                conn.timer = self
                    .observer
                    .as_ref()
                    .map(|o| o.session(&conn.info.protocol_version));
            }
            let conn = Arc::new(conn);
            if let Some(old) = state.listener.take() {
                old.abort();
            }
            if let Some(stream) =
                Arc::clone(&self.transport).open_stream(conn.wire().envelope(), self.peer())
            {
                let task = tokio::spawn(stream.run);
                state.listener = Some(task.abort_handle());
                state.listener_opened = Some(Mutex::new(stream.opened));
            }
            state.conn = Some(conn);
        }
        if fresh {
            self.lock_cache().clear();
        }
        info
    }

    /// Adds form and URL elicitation to the declared capabilities when a handler exists.
    fn merge_capabilities(&self, mut options: ConnectOptions) -> ConnectOptions {
        let caps = &mut options.capabilities;
        if self.config.handlers.elicitation.is_some() {
            let mut e = caps.elicitation.take().unwrap_or_default();
            e.form.get_or_insert_with(Default::default);
            e.url.get_or_insert_with(Default::default);
            caps.elicitation = Some(e);
        }
        if self.config.handlers.sampling.is_some() {
            caps.sampling.get_or_insert_with(Default::default);
        }
        if self.config.handlers.roots.is_some() {
            caps.roots
                .get_or_insert_with(Default::default)
                .insert("listChanged".into(), Value::Bool(true));
        }
        options
    }

    /// The client as its transport sees it.
    fn peer(&self) -> Peer {
        Peer::new(self.config.handlers.clone(), self.me.clone())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::protocol::ClientCapabilities;

    #[test]
    fn connection_info_shows_a_fingerprint_of_the_session_id() {
        let id = "0123456789abcdef0123456789abcdef";
        let info = ConnectionInfo {
            era: Era::Legacy,
            protocol_version: "2025-06-18".into(),
            server_info: Some(Implementation::new("s", "1")),
            capabilities: ServerCapabilities::default(),
            instructions: None,
            session_id: Some(id.into()),
        };
        let shown = crate::redact::tests::debug_hides(&info, &[id]);
        assert!(
            shown.contains("<redacted sha256:") && shown.contains("2025-06-18"),
            "{shown}"
        );
    }

    #[test]
    fn client_is_clone_send_sync() {
        fn check<T: Clone + Send + Sync + 'static>() {}
        check::<Client>();
        fn send<T: Send>(_: &T) {}
        let client = Client::new("http://127.0.0.1:9/mcp", ClientConfig::new()).unwrap();
        send(&client.connect(Implementation::new("c", "1")));
        send(&client.list_tools());
        send(&client.call("x").send());
        send(&client.call("x").once());
        fn spawnable<T: Send + 'static>(_: &T) {}
        spawnable(&std::future::IntoFuture::into_future(client.call("x")));
        send(&client.close());
    }

    #[test]
    fn only_an_http_client_has_a_url() {
        let http = Client::new("http://127.0.0.1:9/mcp", ClientConfig::new()).unwrap();
        assert_eq!(http.url(), Some("http://127.0.0.1:9/mcp"));
        assert!(!http.is_stdio());
        let stdio = Client::stdio(StdioCommand::new("true"), ClientConfig::new()).unwrap();
        assert_eq!(stdio.url(), None);
        assert!(stdio.is_stdio());
        let shown = format!("{stdio:?}");
        assert!(
            shown.contains("Stdio") && shown.contains("url: None"),
            "{shown}"
        );
    }

    #[test]
    fn rejects_bad_urls() {
        assert!(Client::new("ftp://x/mcp", ClientConfig::new()).is_err());
        assert!(Client::new("not a url", ClientConfig::new()).is_err());
    }

    #[test]
    fn merges_elicitation_capabilities() {
        let client = Client::new(
            "http://127.0.0.1:9/mcp",
            ClientConfig::new()
                .elicitation_handler(|_r| async { Ok(crate::protocol::ElicitResult::cancel()) }),
        )
        .unwrap();
        let caps = ClientCapabilities {
            roots: Some(Map::new()),
            ..ClientCapabilities::default()
        };
        let merged = client.inner.merge_capabilities(
            ConnectOptions::new(Implementation::new("c", "1")).capabilities(caps),
        );
        assert_eq!(
            serde_json::to_value(&merged.capabilities).unwrap(),
            json!({"elicitation":{"form":{},"url":{}},"roots":{}})
        );
    }
}
