//! The Streamable HTTP MCP client: [`StreamableHttpClient`].
//!
//! The client negotiates the protocol era ([`ProtocolMode`]: auto, modern, legacy), keeps a
//! legacy HTTP session across calls, caches `tools/list` pages by the server's hints,
//! mirrors `x-mcp-header` arguments into `Mcp-Param-*` headers, and answers elicitations —
//! embedded in modern `input_required` results, or pushed by a legacy server on a response
//! stream — through an [`ElicitationHandler`].
//!
//! The shortest path: [`connect`] with the default identity and the auto era, then
//! [`call`](StreamableHttpClient::call) a tool with typed arguments and read its typed
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
//! use mcp::client::{ClientConfig, ConnectOptions, ProtocolMode, StreamableHttpClient};
//! use serde_json::json;
//!
//! # async fn run() -> Result<(), mcp::client::ClientError> {
//! let client = StreamableHttpClient::new(
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
//! expired legacy session) is serialised. Each HTTP exchange has its own timeout
//! ([`HttpConfig::timeout`]), started when the request is sent.
//!
//! A tool that fails is data: its [`CallToolResult`] has
//! [`is_error()`](CallToolResult::is_error) `true`. A JSON-RPC error is a [`ClientError`]
//! whose [`code`](ClientError::code) is the server's code.

mod auth;
mod cache;
mod call;
mod config;
mod elicitation;
mod error;
mod exchange;
mod list;
mod negotiate;
mod sse;

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

use http::header::AUTHORIZATION;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

pub use auth::{AuthChallenge, StaticToken, TokenProvider};
pub use call::CallBuilder;
pub use config::{
    CacheMode, ClientConfig, ConnectOptions, HttpConfig, ProtocolMode, ResultCacheConfig,
};
pub use elicitation::ElicitationHandler;
pub use error::{
    BoxError, ClientError, ProtocolError, RpcError, StreamError, ToolCallError, TransportError,
};

use cache::ToolCache;
use exchange::{Call, Reply, Wire};
use negotiate::{Verdict, classify, mutual_version, parse_discover};

#[cfg(doc)]
use crate::protocol::CallToolResult;
use crate::protocol::{
    DEFAULT_LEGACY_HTTP_VERSION, DiscoverResult, Era, ErrorCode, Implementation, InitializeParams,
    InitializeResult, JsonObject, LEGACY_VERSIONS, META_SERVER_INFO, MODERN_VERSION, RequestId,
    ServerCapabilities, serves_legacy_version,
};

/// Connects to the MCP endpoint at `url` with the defaults: the auto protocol era, the
/// client identity `mcp-rs` (this crate's version), no elicitation handler, no token.
///
/// Use [`StreamableHttpClient::new`] with a [`ClientConfig`], then
/// [`connect`](StreamableHttpClient::connect) with [`ConnectOptions`], for anything else.
///
/// ```no_run
/// # async fn run() -> Result<(), mcp::client::ClientError> {
/// let client = mcp::client::connect("http://127.0.0.1:9090/mcp").await?;
/// println!("{:?}", client.connection());
/// # Ok(())
/// # }
/// ```
pub async fn connect(url: impl AsRef<str>) -> Result<StreamableHttpClient, ClientError> {
    let client = StreamableHttpClient::new(url, ClientConfig::new())?;
    client.connect(ConnectOptions::default()).await?;
    Ok(client)
}

/// What [`StreamableHttpClient::connect`] established.
#[derive(Clone, Debug, PartialEq)]
pub struct ConnectionInfo {
    era: Era,
    protocol_version: String,
    server_info: Option<Implementation>,
    capabilities: ServerCapabilities,
    instructions: Option<String>,
    session_id: Option<String>,
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

    /// The legacy HTTP session id, when the server issued one.
    pub fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }
}

#[derive(Debug)]
struct Connection {
    info: ConnectionInfo,
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
                session_id: self.info.session_id.as_deref(),
                version: self.version_header.as_deref(),
            },
        }
    }
}

#[derive(Debug, Default)]
struct State {
    conn: Option<Arc<Connection>>,
    generation: u64,
    /// The task reading the standalone `GET` stream of a legacy session.
    listener: Option<tokio::task::AbortHandle>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        let state = self.state.get_mut().unwrap_or_else(|e| e.into_inner());
        if let Some(listener) = state.listener.take() {
            listener.abort();
        }
    }
}

pub(crate) struct Inner {
    url: reqwest::Url,
    http: reqwest::Client,
    config: ClientConfig,
    state: RwLock<State>,
    connect_lock: tokio::sync::Mutex<()>,
    cache: Mutex<ToolCache>,
    next_id: AtomicI64,
    probe_seq: AtomicU64,
    /// The client itself, for the listener task (which must not keep it alive).
    me: std::sync::Weak<Inner>,
}

/// A Streamable HTTP MCP client for both protocol eras.
///
/// Create it with [`new`](Self::new), then [`connect`](Self::connect) before
/// [`list_tools`](Self::list_tools) or [`call`](Self::call) (or use the free function
/// [`connect`](fn@connect), which does both with the defaults). Cloning is cheap and clones
/// share the connection and the `tools/list` cache.
#[derive(Clone)]
pub struct StreamableHttpClient {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for StreamableHttpClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamableHttpClient")
            .field("url", &self.inner.url.as_str())
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

impl StreamableHttpClient {
    /// A client for the MCP endpoint at `url` (`http` or `https`). No request is sent until
    /// [`connect`](Self::connect).
    ///
    /// ```
    /// use mcp::client::{ClientConfig, StreamableHttpClient};
    ///
    /// let client = StreamableHttpClient::new("http://127.0.0.1:9090/mcp", ClientConfig::new())?;
    /// assert!(client.connection().is_none());
    /// # Ok::<(), mcp::client::ClientError>(())
    /// ```
    pub fn new(url: impl AsRef<str>, config: ClientConfig) -> Result<Self, ClientError> {
        let url = reqwest::Url::parse(url.as_ref())
            .map_err(|e| ClientError::Config(format!("invalid URL {:?}: {e}", url.as_ref())))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(ClientError::Config(format!(
                "the URL scheme must be http or https, not {:?}",
                url.scheme()
            )));
        }
        let http = &config.http;
        let mut builder =
            reqwest::Client::builder()
                .use_rustls_tls()
                .connect_timeout(http.connect_timeout)
                .redirect(reqwest::redirect::Policy::none())
                .tls_built_in_root_certs(http.built_in_roots)
                .danger_accept_invalid_certs(http.accept_invalid_certs)
                .user_agent(http.user_agent.clone().unwrap_or_else(|| {
                    format!("mcp-runtime/{} (rust)", env!("CARGO_PKG_VERSION"))
                }));
        for pem in &http.root_certificates {
            let cert = reqwest::Certificate::from_pem(pem)
                .map_err(|e| ClientError::Config(format!("invalid root certificate: {e}")))?;
            builder = builder.add_root_certificate(cert);
        }
        let client = builder
            .build()
            .map_err(|e| ClientError::Config(format!("cannot build the HTTP client: {e}")))?;
        Ok(Self {
            inner: Arc::new_cyclic(|me| Inner {
                url,
                http: client,
                cache: Mutex::new(ToolCache::new(config.result_cache)),
                config,
                state: RwLock::new(State::default()),
                connect_lock: tokio::sync::Mutex::new(()),
                next_id: AtomicI64::new(0),
                probe_seq: AtomicU64::new(0),
                me: me.clone(),
            }),
        })
    }

    /// The endpoint URL.
    pub fn url(&self) -> &str {
        self.inner.url.as_str()
    }

    /// The current connection, if connected.
    pub fn connection(&self) -> Option<ConnectionInfo> {
        self.inner.current().map(|c| c.info.clone())
    }

    /// The legacy HTTP session id, if the server issued one.
    pub fn session_id(&self) -> Option<String> {
        self.inner.current().and_then(|c| c.info.session_id.clone())
    }

    /// Selects the protocol era and connects.
    ///
    /// - [`ProtocolMode::Auto`] probes with `server/discover` and uses the modern era when
    ///   the server lists a version this client speaks. It falls back to the legacy
    ///   `initialize` handshake exactly when the TypeScript client does: the answer is not a
    ///   discover result, lists no version this client speaks, is a JSON-RPC error other
    ///   than `-32022` (or a `-32022` listing only legacy versions, or none), or a `4xx`
    ///   other than `401`/`403` with an unreadable body. `401`, `403`, `5xx`, a broken
    ///   `2xx`, a network failure, a timeout, and a `-32022` listing only modern versions
    ///   this client does not speak are errors.
    /// - [`ProtocolMode::Modern`] probes the same way and never falls back: any legacy
    ///   verdict is a [`ProtocolError::Negotiation`] error.
    /// - [`ProtocolMode::Legacy`] sends `initialize` (no probe), then
    ///   `notifications/initialized`, and keeps the `Mcp-Session-Id` the server issues.
    ///
    /// With [`ConnectOptions::legacy_initialize`]`(false)` a legacy connection skips the
    /// handshake. Connecting an already connected client returns the current connection;
    /// call [`close`](Self::close) first to connect again.
    pub async fn connect(
        &self,
        options: impl Into<ConnectOptions>,
    ) -> Result<ConnectionInfo, ClientError> {
        let options = self.inner.merge_capabilities(options.into());
        let _guard = self.inner.connect_lock.lock().await;
        if let Some(current) = self.inner.current() {
            return Ok(current.info.clone());
        }
        let conn = self.inner.negotiate(options).await?;
        Ok(self.inner.install(conn, true))
    }

    /// Fetches modern discovery data (`server/discover`) without connecting.
    pub async fn discover(
        &self,
        options: impl Into<ConnectOptions>,
    ) -> Result<DiscoverResult, ClientError> {
        let options = self.inner.merge_capabilities(options.into());
        let reply = self.inner.probe(&options, MODERN_VERSION).await?;
        parse_discover(&reply.result)
            .ok_or_else(|| invalid("server/discover", "the result is not a discover result"))
    }

    /// Connects an auto or modern client from a discover result obtained earlier (by
    /// [`discover`](Self::discover)), without a request.
    pub async fn adopt_discovery(
        &self,
        options: impl Into<ConnectOptions>,
        result: DiscoverResult,
    ) -> Result<ConnectionInfo, ClientError> {
        if self.inner.config.protocol_mode == ProtocolMode::Legacy {
            return Err(ClientError::Config(
                "adopt_discovery needs the auto or modern protocol mode".into(),
            ));
        }
        let options = self.inner.merge_capabilities(options.into());
        let _guard = self.inner.connect_lock.lock().await;
        if let Some(current) = self.inner.current() {
            return Ok(current.info.clone());
        }
        let Some(version) = mutual_version(&result.supported_versions) else {
            return Err(ProtocolError::Negotiation {
                reason: format!(
                    "the server supports {:?}, none of which this client speaks",
                    result.supported_versions
                ),
                code: None,
                http_status: None,
            }
            .into());
        };
        let conn = Inner::modern_connection(options, result, version);
        Ok(self.inner.install(conn, true))
    }

    /// Performs the legacy `initialize` handshake explicitly (auto or legacy mode).
    pub async fn initialize_legacy(
        &self,
        options: impl Into<ConnectOptions>,
    ) -> Result<ConnectionInfo, ClientError> {
        if self.inner.config.protocol_mode == ProtocolMode::Modern {
            return Err(ClientError::Config(
                "initialize_legacy needs the auto or legacy protocol mode".into(),
            ));
        }
        let options = self.inner.merge_capabilities(options.into());
        let _guard = self.inner.connect_lock.lock().await;
        if let Some(current) = self.inner.current() {
            return Ok(current.info.clone());
        }
        let conn = self.inner.initialize(options).await?;
        Ok(self.inner.install(conn, true))
    }

    /// Disconnects: drops the `tools/list` cache and ends a legacy session with `DELETE`.
    /// The client can connect again afterwards.
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
        if let Some(conn) = conn
            && conn.info.era == Era::Legacy
            && conn.info.session_id.is_some()
        {
            let token = self.inner.token().await?;
            self.inner
                .delete_session(&conn.wire(), token.as_deref())
                .await?;
        }
        Ok(())
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

    fn current(&self) -> Option<Arc<Connection>> {
        self.read_state().conn.clone()
    }

    fn connection(&self) -> Result<Arc<Connection>, ClientError> {
        self.current().ok_or(ClientError::NotConnected)
    }

    /// Stores a new connection; `fresh` drops the cache (a new connection, not a renewed
    /// session). A legacy session gets a listener on its standalone `GET` stream.
    fn install(&self, mut conn: Connection, fresh: bool) -> ConnectionInfo {
        let info = conn.info.clone();
        {
            let mut state = self.write_state();
            state.generation += 1;
            conn.generation = state.generation;
            let conn = Arc::new(conn);
            if let Some(old) = state.listener.take() {
                old.abort();
            }
            if conn.info.era == Era::Legacy && conn.info.session_id.is_some() {
                let task = tokio::spawn(exchange::listen(self.me.clone(), Arc::clone(&conn)));
                state.listener = Some(task.abort_handle());
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
        if self.config.elicitation_handler.is_some() {
            let mut e = options.capabilities.elicitation.take().unwrap_or_default();
            e.form.get_or_insert_with(Default::default);
            e.url.get_or_insert_with(Default::default);
            options.capabilities.elicitation = Some(e);
        }
        options
    }

    async fn token(&self) -> Result<Option<String>, ClientError> {
        match &self.config.token_provider {
            Some(p) => p.dyn_token().await,
            None => Ok(None),
        }
    }

    async fn probe(&self, options: &ConnectOptions, version: &str) -> Result<Reply, ClientError> {
        let n = self.probe_seq.fetch_add(1, Ordering::Relaxed) + 1;
        let mut call = Call::new("server/discover", Map::new());
        call.id = Some(RequestId::String(format!("server-discover-probe-{n}")));
        let wire = Wire::Modern {
            version,
            client_info: &options.client_info,
            capabilities: &options.capabilities,
        };
        self.request_with_auth(&wire, &call).await
    }

    async fn negotiate(&self, options: ConnectOptions) -> Result<Connection, ClientError> {
        let mode = self.config.protocol_mode;
        if mode == ProtocolMode::Legacy {
            return self.legacy_connect(options).await;
        }
        let mut version = MODERN_VERSION.to_owned();
        let mut reprobed = false;
        loop {
            let outcome = self.probe(&options, &version).await.map(|r| r.result);
            match classify(outcome, &version) {
                Verdict::Modern(result, v) => {
                    return Ok(Self::modern_connection(options, *result, v));
                }
                Verdict::Reprobe(v) if !reprobed => {
                    reprobed = true;
                    version = v;
                }
                Verdict::Reprobe(v) => {
                    return Err(ProtocolError::Negotiation {
                        reason: format!("the server rejected version {v}, which it lists"),
                        code: Some(ErrorCode::UNSUPPORTED_PROTOCOL_VERSION),
                        http_status: None,
                    }
                    .into());
                }
                Verdict::Legacy {
                    reason,
                    code,
                    http_status,
                } => {
                    if mode == ProtocolMode::Auto {
                        tracing::debug!(%reason, "falling back to the legacy protocol");
                        return self.legacy_connect(options).await;
                    }
                    return Err(ProtocolError::Negotiation {
                        reason: format!(
                            "the server does not speak MCP {MODERN_VERSION} and the client is pinned to it: {reason}"
                        ),
                        code,
                        http_status,
                    }
                    .into());
                }
                Verdict::Fail(e) => return Err(e),
            }
        }
    }

    fn modern_connection(
        options: ConnectOptions,
        result: DiscoverResult,
        version: String,
    ) -> Connection {
        let server_info = result
            .meta
            .as_ref()
            .and_then(|m| m.get(META_SERVER_INFO))
            .and_then(|v| serde_json::from_value(v.clone()).ok());
        Connection {
            info: ConnectionInfo {
                era: Era::Modern,
                protocol_version: version,
                server_info,
                capabilities: result.capabilities,
                instructions: result.instructions,
                session_id: None,
            },
            options,
            version_header: None,
            generation: 0,
        }
    }

    async fn legacy_connect(&self, options: ConnectOptions) -> Result<Connection, ClientError> {
        if options.legacy_initialize {
            return self.initialize(options).await;
        }
        Ok(Connection {
            info: ConnectionInfo {
                era: Era::Legacy,
                protocol_version: DEFAULT_LEGACY_HTTP_VERSION.into(),
                server_info: None,
                capabilities: ServerCapabilities::default(),
                instructions: None,
                session_id: None,
            },
            options,
            version_header: None,
            generation: 0,
        })
    }

    /// `initialize`, then `notifications/initialized` on the new session.
    async fn initialize(&self, options: ConnectOptions) -> Result<Connection, ClientError> {
        let params = to_object(InitializeParams {
            protocol_version: LEGACY_VERSIONS[0].into(),
            capabilities: options.capabilities.clone(),
            client_info: options.client_info.clone(),
            meta: None,
        });
        let wire = Wire::Legacy {
            session_id: None,
            version: None,
        };
        let reply = self
            .request_with_auth(&wire, &Call::new("initialize", params))
            .await?;
        let result: InitializeResult = parse_result("initialize", &reply.result, Era::Legacy)?;
        let conn = Connection {
            info: ConnectionInfo {
                era: Era::Legacy,
                protocol_version: result.protocol_version.clone(),
                server_info: Some(result.server_info),
                capabilities: result.capabilities,
                instructions: result.instructions,
                session_id: reply.session_id,
            },
            options,
            version_header: Some(result.protocol_version.clone()),
            generation: 0,
        };
        let token = self.token().await?;
        if !serves_legacy_version(&result.protocol_version) {
            if conn.info.session_id.is_some() {
                let _ = self.delete_session(&conn.wire(), token.as_deref()).await;
            }
            return Err(ProtocolError::UnsupportedVersion(result.protocol_version).into());
        }
        self.send_notification(&conn.wire(), "notifications/initialized", token.as_deref())
            .await?;
        Ok(conn)
    }

    /// Initializes again after the server forgot the session (`404`), once per session.
    async fn renew_session(&self, generation: u64) -> Result<Arc<Connection>, ClientError> {
        let _guard = self.connect_lock.lock().await;
        let current = self.connection()?;
        if current.generation != generation {
            return Ok(current);
        }
        tracing::debug!("the legacy session expired; initializing again");
        let conn = self.initialize(current.options.clone()).await?;
        self.install(conn, false);
        self.connection()
    }

    /// A request on the connection, renewing an expired legacy session once.
    async fn request(&self, conn: &Arc<Connection>, call: &Call) -> Result<Reply, ClientError> {
        let mut conn = Arc::clone(conn);
        let mut renewed = false;
        loop {
            let result = self.request_with_auth(&conn.wire(), call).await;
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

    /// A request with the provider's token; on a `401` or `insufficient_scope` challenge
    /// the provider may supply another token, which drops the cache and retries once.
    async fn request_with_auth(&self, wire: &Wire<'_>, call: &Call) -> Result<Reply, ClientError> {
        let provider = if call.headers.contains_key(AUTHORIZATION) {
            None
        } else {
            self.config.token_provider.clone()
        };
        let mut token = match &provider {
            Some(p) => p.dyn_token().await?,
            None => None,
        };
        let mut retried = false;
        loop {
            let result = self.send_request(wire, call, token.as_deref()).await;
            let (Some(provider), Err(ClientError::Transport(e))) = (&provider, &result) else {
                return result;
            };
            let challenged = match e {
                TransportError::Unauthorized { .. } => true,
                TransportError::Forbidden { challenge } => challenge
                    .as_deref()
                    .is_some_and(AuthChallenge::is_insufficient_scope),
                _ => false,
            };
            if retried || !challenged {
                return result;
            }
            let challenge = e
                .challenge()
                .cloned()
                .unwrap_or_else(|| AuthChallenge::parse(e.http_status().unwrap_or(401), ""));
            match provider.dyn_on_challenge(&challenge).await? {
                Some(fresh) if Some(&fresh) != token.as_ref() => {
                    tracing::debug!(
                        "a challenge yielded a different token; dropping the tools/list cache"
                    );
                    self.lock_cache().clear();
                    token = Some(fresh);
                    retried = true;
                }
                _ => return result,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::protocol::ClientCapabilities;

    #[test]
    fn client_is_clone_send_sync() {
        fn check<T: Clone + Send + Sync + 'static>() {}
        check::<StreamableHttpClient>();
        fn send<T: Send>(_: &T) {}
        let client =
            StreamableHttpClient::new("http://127.0.0.1:9/mcp", ClientConfig::new()).unwrap();
        send(&client.connect(Implementation::new("c", "1")));
        send(&client.list_tools());
        send(&client.call("x").send());
        send(&client.call("x").once());
        fn spawnable<T: Send + 'static>(_: &T) {}
        spawnable(&std::future::IntoFuture::into_future(client.call("x")));
        send(&client.close());
    }

    #[test]
    fn rejects_bad_urls() {
        assert!(StreamableHttpClient::new("ftp://x/mcp", ClientConfig::new()).is_err());
        assert!(StreamableHttpClient::new("not a url", ClientConfig::new()).is_err());
    }

    #[test]
    fn merges_elicitation_capabilities() {
        let client = StreamableHttpClient::new(
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
