//! The Streamable HTTP MCP client: [`StreamableHttpClient`].
//!
//! The client negotiates the protocol era ([`ProtocolMode`]: auto, modern, legacy), keeps a
//! legacy HTTP session across calls, caches `tools/list` pages by the server's hints,
//! mirrors `x-mcp-header` arguments into `Mcp-Param-*` headers, and answers elicitations —
//! embedded in modern `input_required` results, or pushed by a legacy server on a response
//! stream — through an [`ElicitationHandler`].
//!
//! ```no_run
//! use mcp::Implementation;
//! use mcp::client::{ClientConfig, ProtocolMode, StreamableHttpClient};
//! use serde_json::json;
//!
//! # async fn run() -> Result<(), mcp::client::ClientError> {
//! let client = StreamableHttpClient::new(
//!     "http://localhost:9090/mcp",
//!     ClientConfig::new().protocol_mode(ProtocolMode::Auto),
//! )?;
//! let connection = client.connect(Implementation::new("example-client", "2.0.0")).await?;
//! println!("Using MCP {}", connection.protocol_version);
//!
//! let listed = client.list_tools().await?;
//! println!("{} tools", listed.tools.len());
//! let result = client.call_tool("add", json!({"left": 2, "right": 3})).await?;
//! println!("{:?}", result.structured_content);
//! client.close().await?;
//! # Ok(())
//! # }
//! ```
//!
//! The client is `Clone + Send + Sync` (an `Arc` inside): clones share the connection and
//! the cache, and concurrent calls proceed concurrently. Only connecting (and renewing an
//! expired legacy session) is serialised. Each HTTP exchange has its own timeout
//! ([`HttpConfig::timeout`]), started when the request is sent.
//!
//! A tool that fails is data: its [`CallToolResult`] has `is_error: Some(true)`. A JSON-RPC
//! error is a [`ClientError`] whose [`code`](ClientError::code) is the server's code.

mod auth;
mod cache;
mod config;
mod elicitation;
mod error;
mod exchange;
mod negotiate;
mod sse;

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::time::Instant;

use http::header::AUTHORIZATION;
use http::{HeaderMap, HeaderName, HeaderValue};
use serde::de::{DeserializeOwned, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

pub use auth::{AuthChallenge, StaticToken, TokenProvider};
pub use config::{
    CacheMode, ClientConfig, ConnectOptions, HttpConfig, ProtocolMode, ResultCacheConfig,
};
pub use elicitation::ElicitationHandler;
pub use error::{
    BoxError, ClientError, ProtocolError, RpcError, StreamError, ToolCallError, TransportError,
};
pub use futures_util::future::BoxFuture;

use cache::{ToolCache, drop_invalid_tools};
use exchange::{Call, MCP_NAME, Reply, STATE_ONLY_RETRY_DELAY, Wire, is_reserved};
use negotiate::{Verdict, classify, mutual_version, parse_discover};

use crate::protocol::{
    CacheScope, CallToolParams, CallToolResponse, CallToolResult, DEFAULT_LEGACY_HTTP_VERSION,
    DiscoverResult, ELICITATION_CREATE, ElicitRequest, Era, ErrorCode, Implementation,
    InitializeParams, InitializeResult, InputRequiredResult, JsonObject, LEGACY_VERSIONS,
    ListToolsResult, META_SERVER_INFO, MODERN_VERSION, RequestId, ServerCapabilities,
    serves_legacy_version,
};
use crate::schema::headers::{HeaderDecl, MAX_SAFE_INTEGER, declarations, encode_value};

/// The most `tools/list` pages one listing follows.
const MAX_PAGES: usize = 64;

/// What [`StreamableHttpClient::connect`] established.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ConnectionInfo {
    /// The protocol era.
    pub era: Era,
    /// The negotiated protocol version.
    pub protocol_version: String,
    /// The server's identity (from `initialize`, or the modern `serverInfo` `_meta`).
    pub server_info: Option<Implementation>,
    /// The server's capabilities.
    pub capabilities: ServerCapabilities,
    /// Instructions for the model.
    pub instructions: Option<String>,
    /// The legacy HTTP session id, when the server issued one.
    pub session_id: Option<String>,
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
/// [`list_tools`](Self::list_tools) or [`call_tool`](Self::call_tool). Cloning is cheap and
/// clones share the connection and the `tools/list` cache.
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

/// How one `tools/call` round ended.
enum Round {
    Complete(CallToolResult),
    InputRequired(InputRequiredResult, Vec<(String, Value)>),
}

/// `inputRequests` in the server's order (`serde_json::Map` sorts its keys).
struct OrderedEntries(Vec<(String, Value)>);

impl<'de> Deserialize<'de> for OrderedEntries {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = OrderedEntries;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(entry) = map.next_entry::<String, Value>()? {
                    out.push(entry);
                }
                Ok(OrderedEntries(out))
            }
        }
        d.deserialize_map(V)
    }
}

#[derive(Deserialize)]
struct OrderedInputRequests {
    #[serde(rename = "inputRequests", default)]
    input_requests: Option<OrderedEntries>,
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

/// `true` for a JSON number outside ±(2^53−1).
fn beyond_safe_integer(value: &Value) -> bool {
    let Value::Number(n) = value else {
        return false;
    };
    if let Some(i) = n.as_i64() {
        i.unsigned_abs() > MAX_SAFE_INTEGER.unsigned_abs()
    } else if let Some(u) = n.as_u64() {
        u > MAX_SAFE_INTEGER.unsigned_abs()
    } else {
        n.as_f64()
            .is_some_and(|f| f.abs() > MAX_SAFE_INTEGER as f64)
    }
}

/// The `Mcp-Param-*` headers of a call.
fn mirror_headers(
    tool: &str,
    arguments: Option<&JsonObject>,
    decls: &[HeaderDecl],
    headers: &mut HeaderMap,
) -> Result<(), ToolCallError> {
    for decl in decls {
        let Some(value) = decl.value(arguments) else {
            continue;
        };
        if beyond_safe_integer(value) {
            return Err(ToolCallError::HeaderValueOutOfRange {
                tool: tool.into(),
                argument: decl.path.join("."),
                header: decl.header_name(),
            });
        }
        let Some(encoded) = encode_value(value) else {
            continue;
        };
        if let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(decl.header_name().as_bytes()),
            HeaderValue::from_str(&encoded),
        ) {
            headers.insert(name, value);
        }
    }
    Ok(())
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

    /// Lists all tools, following every page, reusing fresh cached pages.
    pub async fn list_tools(&self) -> Result<ListToolsResult, ClientError> {
        self.list_tools_with(CacheMode::Normal).await
    }

    /// Lists all tools, following every page, with the given cache mode.
    ///
    /// The merged result has no `next_cursor`; its `ttl_ms` is the smallest of the pages'.
    /// Tools whose `x-mcp-header` declarations are invalid are left out.
    pub async fn list_tools_with(&self, mode: CacheMode) -> Result<ListToolsResult, ClientError> {
        let conn = self.inner.connection()?;
        self.inner.list_all(&conn, mode, None).await
    }

    /// Fetches one page of tools (`cursor` `None` for the first), with the given cache mode.
    pub async fn list_tools_page(
        &self,
        cursor: Option<&str>,
        mode: CacheMode,
    ) -> Result<ListToolsResult, ClientError> {
        let conn = self.inner.connection()?;
        self.inner.fetch_page(&conn, cursor, mode, None).await
    }

    /// Calls a tool and returns its complete result.
    ///
    /// `arguments` is a JSON object (or `null` for none). On a modern connection the
    /// arguments declared with `x-mcp-header` are mirrored into `Mcp-Param-*` headers, using
    /// the listed tool definition (the list is fetched when the tool is not known yet); an
    /// integer beyond ±(2^53−1) there is refused with [`ToolCallError`]. On an
    /// `input_required` result the elicitation handler answers each input request, in the
    /// server's order, and the call is retried with the answers and the echoed request
    /// state, for at most [`ClientConfig::max_input_rounds`] rounds. On `-32020` (header
    /// mismatch) the `tools/list` cache is dropped, the list fetched again and the call
    /// retried once.
    ///
    /// A result with `is_error: Some(true)` is returned as data; a JSON-RPC error is an
    /// `Err`.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<CallToolResult, ClientError> {
        self.call_tool_with_headers(name, arguments, HeaderMap::new())
            .await
    }

    /// [`call_tool`](Self::call_tool) with extra HTTP headers for this call. An
    /// `Authorization` header here replaces the token provider's and bypasses the
    /// `tools/list` cache. Headers the client sets itself (`Mcp-*`, `Content-Type`,
    /// `Accept`) are refused.
    pub async fn call_tool_with_headers(
        &self,
        name: &str,
        arguments: Value,
        headers: HeaderMap,
    ) -> Result<CallToolResult, ClientError> {
        let arguments = match arguments {
            Value::Null => None,
            Value::Object(o) => Some(o),
            _ => {
                return Err(ToolCallError::InvalidArguments { tool: name.into() }.into());
            }
        };
        let params = CallToolParams {
            name: name.into(),
            arguments,
            ..CallToolParams::default()
        };
        self.inner.call(params, headers).await
    }

    /// Sends one `tools/call` round and returns the server's raw answer: a complete result,
    /// or (modern only) an `input_required` result for the application to answer itself by
    /// calling again with `input_responses` and the echoed `request_state`. On a legacy
    /// connection, requests the server pushes on the response stream are still answered
    /// by the elicitation handler.
    pub async fn call_tool_once(
        &self,
        params: CallToolParams,
    ) -> Result<CallToolResponse, ClientError> {
        self.call_tool_once_with_headers(params, HeaderMap::new())
            .await
    }

    /// [`call_tool_once`](Self::call_tool_once) with extra HTTP headers for this call.
    pub async fn call_tool_once_with_headers(
        &self,
        params: CallToolParams,
        headers: HeaderMap,
    ) -> Result<CallToolResponse, ClientError> {
        let (conn, mut call_headers) = self.inner.prepare_call(&params, &headers).await?;
        let mut retried = false;
        Ok(
            match self
                .inner
                .round(&conn, &params, &headers, &mut call_headers, &mut retried)
                .await?
            {
                Round::Complete(r) => CallToolResponse::Complete(r),
                Round::InputRequired(r, _) => CallToolResponse::InputRequired(r),
            },
        )
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
            Some(p) => p.token().await,
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
            Some(p) => p.token().await?,
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
            let challenge = e.challenge().cloned().unwrap_or_else(|| AuthChallenge {
                status: e.http_status().unwrap_or(401),
                ..AuthChallenge::default()
            });
            match provider.on_challenge(&challenge).await? {
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

    /// One page of `tools/list`, through the cache.
    async fn fetch_page(
        &self,
        conn: &Arc<Connection>,
        cursor: Option<&str>,
        mode: CacheMode,
        headers: Option<&HeaderMap>,
    ) -> Result<ListToolsResult, ClientError> {
        let bypass =
            mode == CacheMode::Bypass || headers.is_some_and(|h| h.contains_key(AUTHORIZATION));
        if mode == CacheMode::Normal
            && !bypass
            && let Some(page) = self.lock_cache().get(cursor, Instant::now())
        {
            return Ok(page);
        }
        let generation = self.lock_cache().generation();
        let mut params = Map::new();
        if let Some(c) = cursor {
            params.insert("cursor".into(), Value::String(c.into()));
        }
        let mut call = Call::new("tools/list", params);
        if let Some(h) = headers {
            call.headers = h.clone();
        }
        let reply = match self.request(conn, &call).await {
            Ok(r) => r,
            Err(e) => {
                let code = e.code();
                if (code == Some(ErrorCode::INVALID_PARAMS) && cursor.is_some())
                    || code == Some(ErrorCode::HEADER_MISMATCH)
                {
                    self.lock_cache().clear();
                }
                return Err(e);
            }
        };
        let era = conn.info.era;
        let mut page: ListToolsResult = parse_result("tools/list", &reply.result, era)?;
        match era {
            Era::Legacy => {
                // Hints are modern-only.
                page.ttl_ms = None;
                page.cache_scope = None;
            }
            Era::Modern => page.ttl_ms = Some(page.ttl_ms.unwrap_or(0).max(0)),
        }
        drop_invalid_tools(&mut page.tools);
        if !bypass {
            self.lock_cache()
                .store(generation, cursor, &page, Instant::now());
        }
        Ok(page)
    }

    /// Every page of `tools/list`, merged.
    async fn list_all(
        &self,
        conn: &Arc<Connection>,
        mode: CacheMode,
        headers: Option<&HeaderMap>,
    ) -> Result<ListToolsResult, ClientError> {
        let mut out: Option<ListToolsResult> = None;
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let page = self
                .fetch_page(conn, cursor.as_deref(), mode, headers)
                .await?;
            let next = page.next_cursor.clone();
            match &mut out {
                None => {
                    let mut first = page;
                    first.next_cursor = None;
                    out = Some(first);
                }
                Some(all) => {
                    all.ttl_ms = match (all.ttl_ms, page.ttl_ms) {
                        (Some(a), Some(b)) => Some(a.min(b)),
                        _ => None,
                    };
                    all.cache_scope = match (all.cache_scope, page.cache_scope) {
                        (None, None) => None,
                        (Some(CacheScope::Public), Some(CacheScope::Public)) => {
                            Some(CacheScope::Public)
                        }
                        _ => Some(CacheScope::Private),
                    };
                    all.tools.extend(page.tools);
                }
            }
            match next {
                Some(n) if cursor.as_deref() != Some(n.as_str()) => cursor = Some(n),
                _ => return Ok(out.unwrap_or_default()),
            }
        }
        Err(invalid(
            "tools/list",
            format!("the server returned more than {MAX_PAGES} pages"),
        ))
    }

    /// The header declarations of a tool: remembered from a listing, or listed now.
    async fn tool_decls(
        &self,
        conn: &Arc<Connection>,
        name: &str,
        auth_headers: Option<&HeaderMap>,
    ) -> Result<Arc<Vec<HeaderDecl>>, ClientError> {
        if auth_headers.is_none()
            && let Some(decls) = self.lock_cache().known(name)
        {
            return Ok(decls);
        }
        let mode = if auth_headers.is_some() {
            CacheMode::Bypass
        } else {
            CacheMode::Normal
        };
        let all = self.list_all(conn, mode, auth_headers).await?;
        Ok(all
            .tools
            .iter()
            .find(|t| t.name == name)
            .and_then(|t| declarations(&t.input_schema).ok())
            .map(Arc::new)
            .unwrap_or_default())
    }

    /// Checks the per-call headers and builds the headers of a `tools/call`.
    async fn prepare_call(
        &self,
        params: &CallToolParams,
        per_call: &HeaderMap,
    ) -> Result<(Arc<Connection>, HeaderMap), ClientError> {
        if let Some(name) = per_call.keys().find(|n| is_reserved(n)) {
            return Err(ToolCallError::ReservedHeader {
                header: name.as_str().into(),
            }
            .into());
        }
        let conn = self.connection()?;
        let headers = self.call_headers(&conn, params, per_call).await?;
        Ok((conn, headers))
    }

    async fn call_headers(
        &self,
        conn: &Arc<Connection>,
        params: &CallToolParams,
        per_call: &HeaderMap,
    ) -> Result<HeaderMap, ClientError> {
        let mut headers = per_call.clone();
        if conn.info.era == Era::Modern {
            if let Some(v) = encode_value(&Value::String(params.name.clone()))
                .and_then(|s| HeaderValue::from_str(&s).ok())
            {
                headers.insert(MCP_NAME, v);
            }
            let auth = per_call.contains_key(AUTHORIZATION).then_some(per_call);
            let decls = self.tool_decls(conn, &params.name, auth).await?;
            mirror_headers(
                &params.name,
                params.arguments.as_ref(),
                &decls,
                &mut headers,
            )?;
        }
        Ok(headers)
    }

    /// One `tools/call` round; on `-32020` drops the cache, rebuilds the headers from a
    /// fresh listing and retries once per call.
    async fn round(
        &self,
        conn: &Arc<Connection>,
        params: &CallToolParams,
        per_call: &HeaderMap,
        headers: &mut HeaderMap,
        mismatch_retried: &mut bool,
    ) -> Result<Round, ClientError> {
        loop {
            let mut call = Call::new("tools/call", to_object(params));
            call.headers = headers.clone();
            match self.request(conn, &call).await {
                Ok(reply) => return Self::parse_round(&reply.result, conn.info.era),
                Err(e) if e.code() == Some(ErrorCode::HEADER_MISMATCH) => {
                    self.lock_cache().clear();
                    if *mismatch_retried || conn.info.era != Era::Modern {
                        return Err(e);
                    }
                    tracing::debug!(tool = %params.name, "header mismatch; listing tools again and retrying once");
                    *mismatch_retried = true;
                    *headers = self.call_headers(conn, params, per_call).await?;
                }
                Err(e) => return Err(e),
            }
        }
    }

    fn parse_round(raw: &RawValue, era: Era) -> Result<Round, ClientError> {
        const METHOD: &str = "tools/call";
        let value: Value = serde_json::from_str(raw.get()).map_err(|e| invalid(METHOD, e))?;
        if era == Era::Modern {
            match value.get("resultType") {
                None => {}
                Some(Value::String(t)) if t == "complete" => {}
                Some(Value::String(t)) if t == "input_required" => {
                    let ordered: OrderedInputRequests =
                        serde_json::from_str(raw.get()).map_err(|e| invalid(METHOD, e))?;
                    let result: InputRequiredResult =
                        serde_json::from_value(value).map_err(|e| invalid(METHOD, e))?;
                    let requests = ordered.input_requests.map(|o| o.0).unwrap_or_default();
                    if requests.is_empty() && result.request_state.is_none() {
                        return Err(invalid(
                            METHOD,
                            "an input_required result needs inputRequests or requestState",
                        ));
                    }
                    return Ok(Round::InputRequired(result, requests));
                }
                Some(other) => return Err(invalid(METHOD, format!("unknown resultType {other}"))),
            }
        }
        parse_result(METHOD, raw, era).map(Round::Complete)
    }

    /// `call_tool`: rounds until the result is complete.
    async fn call(
        &self,
        mut params: CallToolParams,
        per_call: HeaderMap,
    ) -> Result<CallToolResult, ClientError> {
        let (conn, mut headers) = self.prepare_call(&params, &per_call).await?;
        let mut mismatch_retried = false;
        let mut rounds = 0;
        loop {
            match self
                .round(
                    &conn,
                    &params,
                    &per_call,
                    &mut headers,
                    &mut mismatch_retried,
                )
                .await?
            {
                Round::Complete(result) => return Ok(result),
                Round::InputRequired(result, requests) => {
                    if rounds >= self.config.max_input_rounds {
                        return Err(ToolCallError::InputRoundsExhausted {
                            tool: params.name,
                            rounds,
                        }
                        .into());
                    }
                    rounds += 1;
                    let answers = self.answer_inputs(&params.name, requests).await?;
                    if answers.is_empty() {
                        tokio::time::sleep(STATE_ONLY_RETRY_DELAY).await;
                    }
                    params.input_responses = (!answers.is_empty()).then_some(answers);
                    params.request_state = result.request_state;
                }
            }
        }
    }

    /// Answers one round's input requests, one at a time in the server's order.
    async fn answer_inputs(
        &self,
        tool: &str,
        requests: Vec<(String, Value)>,
    ) -> Result<JsonObject, ClientError> {
        let mut answers = Map::new();
        for (key, request) in requests {
            let method = request
                .get("method")
                .and_then(Value::as_str)
                .unwrap_or_default();
            if method != ELICITATION_CREATE {
                return Err(ToolCallError::UnsupportedInputRequest {
                    tool: tool.into(),
                    key,
                    method: method.into(),
                }
                .into());
            }
            let Some(handler) = &self.config.elicitation_handler else {
                return Err(ToolCallError::NoElicitationHandler { tool: tool.into() }.into());
            };
            let request: ElicitRequest = serde_json::from_value(request)
                .map_err(|e| invalid("tools/call", format!("input request `{key}`: {e}")))?;
            let result = handler.elicit(request.clone()).await?;
            answers.insert(key, json!(elicitation::sanitize(&request, result)));
        }
        Ok(answers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ClientCapabilities;

    fn decls(schema: Value) -> Vec<HeaderDecl> {
        declarations(schema.as_object().unwrap()).unwrap()
    }

    #[test]
    fn mirrors_and_refuses_unsafe_integers() {
        let d = decls(json!({"type":"object","properties":{
            "region":{"type":"string","x-mcp-header":"Region"},
            "limit":{"type":"integer","x-mcp-header":"Limit"}
        }}));
        let mut h = HeaderMap::new();
        let args = json!({"region":"São Paulo","limit":5});
        mirror_headers("t", args.as_object(), &d, &mut h).unwrap();
        assert_eq!(h["mcp-param-region"], "=?base64?U8OjbyBQYXVsbw==?=");
        assert_eq!(h["mcp-param-limit"], "5");
        for big in [
            json!(9_007_199_254_740_992_i64),
            json!(-9_007_199_254_740_992_i64),
            json!(u64::MAX),
            json!(1e300),
        ] {
            let args = json!({"region":"x","limit":big});
            assert!(matches!(
                mirror_headers("t", args.as_object(), &d, &mut HeaderMap::new()),
                Err(ToolCallError::HeaderValueOutOfRange { .. })
            ));
        }
        let edge = json!({"limit": MAX_SAFE_INTEGER});
        assert!(mirror_headers("t", edge.as_object(), &d, &mut HeaderMap::new()).is_ok());
    }

    #[test]
    fn keeps_the_servers_order_of_input_requests() {
        let raw = RawValue::from_string(
            r#"{"resultType":"input_required","inputRequests":{"zeta":{"method":"elicitation/create","params":{"message":"1","requestedSchema":{"type":"object"}}},"alpha":{"method":"elicitation/create","params":{"message":"2","requestedSchema":{"type":"object"}}}}}"#.into(),
        )
        .unwrap();
        let Round::InputRequired(_, requests) = Inner::parse_round(&raw, Era::Modern).unwrap()
        else {
            panic!("expected input_required");
        };
        let keys: Vec<_> = requests.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["zeta", "alpha"]);
        let empty = RawValue::from_string(r#"{"resultType":"input_required"}"#.into()).unwrap();
        assert!(Inner::parse_round(&empty, Era::Modern).is_err());
        let legacy =
            RawValue::from_string(r#"{"content":[],"resultType":"whatever"}"#.into()).unwrap();
        assert!(matches!(
            Inner::parse_round(&legacy, Era::Legacy).unwrap(),
            Round::Complete(_)
        ));
    }

    #[test]
    fn client_is_clone_send_sync() {
        fn check<T: Clone + Send + Sync + 'static>() {}
        check::<StreamableHttpClient>();
        fn send<T: Send>(_: &T) {}
        let client =
            StreamableHttpClient::new("http://127.0.0.1:9/mcp", ClientConfig::new()).unwrap();
        send(&client.connect(Implementation::new("c", "1")));
        send(&client.list_tools());
        send(&client.call_tool("x", Value::Null));
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
