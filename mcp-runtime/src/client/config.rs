//! Client configuration: protocol mode, HTTP settings, the elicitation handler, the token
//! provider, input rounds and the `tools/list` result cache.

use std::sync::Arc;
use std::time::Duration;

use http::{HeaderMap, HeaderName, HeaderValue};

use super::auth::{DynTokenProvider, TokenProvider};
use super::elicitation::ElicitationHandler;
use super::handlers::{FixedRoots, RootsProvider, SamplingHandler, ServerRequestHandlers};
use super::notifications::ServerNotification;
use crate::protocol::{ClientCapabilities, Implementation, Root};
use crate::redact::Names;

/// Which protocol era the client speaks: the type the server uses too.
pub use crate::protocol::ProtocolMode;

/// How [`list_tools`](super::Client::list_tools_with) uses the result cache.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CacheMode {
    /// Reuse a fresh cached page; otherwise fetch and cache it.
    #[default]
    Normal,
    /// Fetch, and replace the cached page.
    Refresh,
    /// Fetch without reading or writing the cache.
    Bypass,
}

/// Bounds of the `tools/list` result cache.
///
/// Pages are cached by cursor for the `ttlMs` the server sends (capped by
/// [`max_ttl`](Self::max_ttl); `0`, negative and missing hints are not cached).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use]
pub struct ResultCacheConfig {
    pub(crate) max_ttl: Duration,
    pub(crate) max_entries: usize,
}

impl Default for ResultCacheConfig {
    fn default() -> Self {
        Self {
            max_ttl: Duration::from_millis(86_400_000),
            max_entries: 64,
        }
    }
}

impl ResultCacheConfig {
    /// The default bounds.
    pub fn new() -> Self {
        Self::default()
    }

    /// Caps the freshness of cached pages: the longest a page is reused, whatever the
    /// server says (default 24 h).
    pub fn max_ttl(mut self, max_ttl: Duration) -> Self {
        self.max_ttl = max_ttl;
        self
    }

    /// Caps the number of cached pages (default 64); the oldest is evicted first.
    pub fn max_entries(mut self, max_entries: usize) -> Self {
        self.max_entries = max_entries;
        self
    }
}

/// HTTP settings: timeouts, extra headers, TLS (rustls) and size limits. `Debug` shows the
/// names of the extra headers, not their values (they are usually credentials).
#[derive(Clone)]
#[must_use]
pub struct HttpConfig {
    pub(crate) timeout: Duration,
    pub(crate) connect_timeout: Duration,
    pub(crate) headers: HeaderMap,
    pub(crate) root_certificates: Vec<Vec<u8>>,
    pub(crate) built_in_roots: bool,
    pub(crate) accept_invalid_certs: bool,
    pub(crate) max_response_bytes: usize,
    pub(crate) max_event_bytes: usize,
    pub(crate) user_agent: Option<String>,
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(30),
            connect_timeout: Duration::from_secs(10),
            headers: HeaderMap::new(),
            root_certificates: Vec::new(),
            built_in_roots: true,
            accept_invalid_certs: false,
            max_response_bytes: 16 << 20,
            max_event_bytes: 16 << 20,
            user_agent: None,
        }
    }
}

impl std::fmt::Debug for HttpConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpConfig")
            .field("timeout", &self.timeout)
            .field("connect_timeout", &self.connect_timeout)
            .field("headers", &Names::new(self.headers.keys()))
            .field("root_certificates", &self.root_certificates.len())
            .field("built_in_roots", &self.built_in_roots)
            .field("accept_invalid_certs", &self.accept_invalid_certs)
            .field("max_response_bytes", &self.max_response_bytes)
            .field("max_event_bytes", &self.max_event_bytes)
            .field("user_agent", &self.user_agent)
            .finish()
    }
}

impl HttpConfig {
    /// The defaults: 30 s per exchange, 10 s to connect, 16 MiB bodies and events,
    /// the built-in (webpki) TLS roots.
    pub fn new() -> Self {
        Self::default()
    }

    /// The time one exchange may take, from sending the request to the end of its
    /// response. Each exchange has its own bound; time spent waiting for another call,
    /// or in the elicitation handler, does not count.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The time to establish a connection.
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// A header sent on every request (headers the protocol reserves are ignored).
    pub fn header(mut self, name: HeaderName, value: HeaderValue) -> Self {
        self.headers.append(name, value);
        self
    }

    /// Trusts a PEM-encoded root certificate (in addition to the built-in roots).
    pub fn add_root_certificate_pem(mut self, pem: impl Into<Vec<u8>>) -> Self {
        self.root_certificates.push(pem.into());
        self
    }

    /// Whether to trust the built-in (webpki) roots (default `true`).
    pub fn built_in_roots(mut self, enabled: bool) -> Self {
        self.built_in_roots = enabled;
        self
    }

    /// Accepts any server certificate. Dangerous: for local development only.
    pub fn danger_accept_invalid_certs(mut self, accept: bool) -> Self {
        self.accept_invalid_certs = accept;
        self
    }

    /// The largest response body read (default 16 MiB).
    pub fn max_response_bytes(mut self, bytes: usize) -> Self {
        self.max_response_bytes = bytes;
        self
    }

    /// The largest server-sent event read (default 16 MiB).
    pub fn max_event_bytes(mut self, bytes: usize) -> Self {
        self.max_event_bytes = bytes;
        self
    }

    /// The `User-Agent` header.
    pub fn user_agent(mut self, agent: impl Into<String>) -> Self {
        self.user_agent = Some(agent.into());
        self
    }
}

/// The configuration of a [`Client`](super::Client).
///
/// ```
/// use std::time::Duration;
/// use mcp::client::{ClientConfig, HttpConfig, ProtocolMode, ResultCacheConfig};
///
/// let config = ClientConfig::new()
///     .protocol_mode(ProtocolMode::Auto)
///     .max_input_rounds(4)
///     .http(HttpConfig::new().timeout(Duration::from_secs(30)))
///     .result_cache(Some(ResultCacheConfig::new().max_entries(16)));
/// # drop(config);
/// ```
#[derive(Clone)]
#[must_use]
pub struct ClientConfig {
    pub(crate) protocol_mode: ProtocolMode,
    pub(crate) http: HttpConfig,
    pub(crate) handlers: ServerRequestHandlers,
    pub(crate) token_provider: Option<Arc<dyn DynTokenProvider>>,
    pub(crate) max_input_rounds: u32,
    pub(crate) tasks: bool,
    pub(crate) result_cache: Option<ResultCacheConfig>,
    pub(crate) notification_handler: Option<NotificationHandler>,
    #[cfg(feature = "oauth")]
    pub(crate) oauth: Option<super::oauth::OAuthConfig>,
    #[cfg(feature = "otel")]
    pub(crate) telemetry: Option<crate::otel::Telemetry>,
}

/// A handler of the server's notifications.
pub(crate) type NotificationHandler = Arc<dyn Fn(&ServerNotification) + Send + Sync>;

impl Default for ClientConfig {
    fn default() -> Self {
        Self {
            protocol_mode: ProtocolMode::Auto,
            http: HttpConfig::default(),
            handlers: ServerRequestHandlers::default(),
            token_provider: None,
            max_input_rounds: 10,
            tasks: false,
            result_cache: Some(ResultCacheConfig::default()),
            notification_handler: None,
            #[cfg(feature = "oauth")]
            oauth: None,
            #[cfg(feature = "otel")]
            telemetry: None,
        }
    }
}

impl std::fmt::Debug for ClientConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientConfig")
            .field("protocol_mode", &self.protocol_mode)
            .field("http", &self.http)
            .field("elicitation_handler", &self.handlers.elicitation.is_some())
            .field("sampling_handler", &self.handlers.sampling.is_some())
            .field("roots_provider", &self.handlers.roots.is_some())
            .field("token_provider", &self.token_provider.is_some())
            .field("max_input_rounds", &self.max_input_rounds)
            .field("tasks", &self.tasks)
            .field("result_cache", &self.result_cache)
            .field("notification_handler", &self.notification_handler.is_some())
            .finish()
    }
}

impl ClientConfig {
    /// The defaults: auto mode, no handler, no token, 10 input rounds, caching on.
    pub fn new() -> Self {
        Self::default()
    }

    /// The protocol mode (default [`ProtocolMode::Auto`]).
    pub fn protocol_mode(mut self, mode: ProtocolMode) -> Self {
        self.protocol_mode = mode;
        self
    }

    /// HTTP settings.
    pub fn http(mut self, http: HttpConfig) -> Self {
        self.http = http;
        self
    }

    /// The per-exchange timeout (shorthand for [`HttpConfig::timeout`]).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.http.timeout = timeout;
        self
    }

    /// Answers elicitations. Configuring a handler advertises form and URL elicitation
    /// (`{"elicitation":{"form":{},"url":{}}}`) on every modern request and at `initialize`.
    pub fn elicitation_handler(mut self, handler: impl ElicitationHandler) -> Self {
        self.handlers.elicitation = Some(Arc::new(handler));
        self
    }

    /// Answers `sampling/createMessage`. Configuring a handler declares `{"sampling":{}}`
    /// on every modern request and at `initialize`.
    pub fn sampling_handler(mut self, handler: impl SamplingHandler) -> Self {
        self.handlers.sampling = Some(Arc::new(handler));
        self
    }

    /// Answers `roots/list` from `provider`. Configuring one declares
    /// `{"roots":{"listChanged":true}}`.
    pub fn roots_provider(mut self, provider: impl RootsProvider) -> Self {
        self.handlers.roots = Some(Arc::new(provider));
        self
    }

    /// Answers `roots/list` with a fixed list (shorthand for a
    /// [`roots_provider`](Self::roots_provider) that never changes).
    pub fn roots(self, roots: Vec<Root>) -> Self {
        self.roots_provider(FixedRoots(roots))
    }

    /// Receives every notification the server sends (log messages, progress, list changes,
    /// …), on response streams, the legacy session's `GET` stream and stdio alike. It runs on
    /// the task reading the stream: hand the notification to a channel rather than block.
    /// A changed tool list also marks the tools stale
    /// ([`tools_stale`](super::Client::tools_stale)) with or without a handler.
    pub fn notification_handler(
        mut self,
        handler: impl Fn(&ServerNotification) + Send + Sync + 'static,
    ) -> Self {
        self.notification_handler = Some(Arc::new(handler));
        self
    }

    /// Supplies bearer tokens.
    pub fn token_provider(mut self, provider: impl TokenProvider) -> Self {
        self.token_provider = Some(Arc::new(provider));
        self
    }

    /// Obtains tokens with OAuth (discovery, the configured grant, refresh, step-up);
    /// replaces any [`token_provider`](Self::token_provider).
    #[cfg(feature = "oauth")]
    pub fn oauth(mut self, oauth: super::oauth::OAuthConfig) -> Self {
        self.oauth = Some(oauth);
        self.token_provider = None;
        self
    }

    /// Records every request and notification the client sends as an OpenTelemetry
    /// `mcp.client` span (its trace context carried in `_meta` and the HTTP headers, so the
    /// server's span is its child) and the duration metrics; the server's requests and
    /// notifications to the client as `mcp.server` spans; each connection's duration (see
    /// [`mcp::otel`](crate::otel)).
    ///
    /// ```
    /// let config = mcp::client::ClientConfig::default()
    ///     .telemetry(mcp::otel::Telemetry::global());
    /// let client = mcp::client::Client::new("http://127.0.0.1:8080/mcp", config);
    /// # let _ = client;
    /// ```
    #[cfg(feature = "otel")]
    pub fn telemetry(mut self, telemetry: crate::otel::Telemetry) -> Self {
        self.telemetry = Some(telemetry);
        self
    }

    /// How many `input_required` rounds a [`call`](super::Client::call)
    /// answers before giving up (default 10).
    pub fn max_input_rounds(mut self, rounds: u32) -> Self {
        self.max_input_rounds = rounds;
        self
    }

    /// Declares the tasks extension (`io.modelcontextprotocol/tasks`) on every
    /// `tools/call` of a modern connection (default off): the server may then answer a
    /// long call with a task, which awaiting the call follows to its result (polling at
    /// the server's `pollIntervalMs`, answering input requests with the handlers, and
    /// cancelling the task when the call's future is dropped). Without it, only calls
    /// made with [`CallBuilder::as_task`](super::CallBuilder::as_task) declare it.
    pub fn tasks(mut self, on: bool) -> Self {
        self.tasks = on;
        self
    }

    /// The `tools/list` result cache; `None` disables reuse.
    pub fn result_cache(mut self, cache: Option<ResultCacheConfig>) -> Self {
        self.result_cache = cache;
        self
    }
}

/// What [`connect`](super::Client::connect) needs: the client's
/// identity and capabilities, and whether a legacy connection performs the `initialize`
/// handshake.
///
/// The [`Default`] identity is `mcp-rs` with this crate's version:
///
/// ```
/// use mcp::Implementation;
/// use mcp::client::ConnectOptions;
///
/// let defaults = ConnectOptions::default();
/// let named = ConnectOptions::new(Implementation::new("mcp-rs", env!("CARGO_PKG_VERSION")));
/// assert_eq!(defaults, named);
/// ```
#[derive(Clone, Debug, PartialEq)]
#[must_use]
pub struct ConnectOptions {
    pub(crate) client_info: Implementation,
    pub(crate) capabilities: ClientCapabilities,
    pub(crate) legacy_initialize: bool,
}

impl ConnectOptions {
    /// Options with a client identity, no extra capabilities, and the legacy handshake on.
    pub fn new(client_info: Implementation) -> Self {
        Self {
            client_info,
            capabilities: ClientCapabilities::default(),
            legacy_initialize: true,
        }
    }

    /// Capabilities to declare (merged with elicitation when a handler is configured).
    pub fn capabilities(mut self, capabilities: ClientCapabilities) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// `false` reaches a legacy server without an HTTP session: no `initialize`, no
    /// `MCP-Protocol-Version` header, version reported as 2025-03-26 with empty server
    /// capabilities (no network call at all in legacy mode). Modern connections ignore it.
    pub fn legacy_initialize(mut self, initialize: bool) -> Self {
        self.legacy_initialize = initialize;
        self
    }
}

impl Default for ConnectOptions {
    fn default() -> Self {
        Self::new(Implementation::new(
            DEFAULT_CLIENT_NAME,
            env!("CARGO_PKG_VERSION"),
        ))
    }
}

/// The client name of [`ConnectOptions::default`].
const DEFAULT_CLIENT_NAME: &str = "mcp-rs";

impl From<Implementation> for ConnectOptions {
    fn from(client_info: Implementation) -> Self {
        Self::new(client_info)
    }
}
