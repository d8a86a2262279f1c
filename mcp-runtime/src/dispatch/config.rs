//! Service configuration: the constant part (from `#[mcp::service(...)]` or written by
//! hand) and the values only known at run time, checked together when the service is
//! attached.

use crate::error::Error;
use crate::protocol::{CacheScope, Implementation};
use std::time::Duration;

use crate::session::SessionLimits;
use crate::state::DEFAULT_TTL;

/// Which protocol eras a server accepts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ProtocolMode {
    /// Modern requests and legacy initialize-based requests, decided per request.
    #[default]
    Auto,
    /// MCP 2026-07-28 only.
    Modern,
    /// The initialize handshake only.
    Legacy,
}

/// How legacy requests use HTTP sessions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SessionMode {
    /// Decided by the request lifecycle.
    #[default]
    Auto,
    /// Require and maintain an `Mcp-Session-Id`.
    Stateful,
    /// Every request independent, no session id issued.
    Stateless,
}

/// A cache hint for one method: how long a client may reuse the result, and with whom.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CacheHint {
    pub(crate) ttl_ms: i64,
    pub(crate) scope: CacheScope,
}

impl CacheHint {
    /// A hint: fresh for `ttl_ms` milliseconds (`0` = do not reuse; a negative value fails
    /// the build), shared with other callers or not as `scope` says.
    pub const fn new(ttl_ms: i64, scope: CacheScope) -> Self {
        Self { ttl_ms, scope }
    }

    /// Freshness in milliseconds (`0` = do not reuse).
    pub const fn ttl_ms(&self) -> i64 {
        self.ttl_ms
    }

    /// Whether the result may be shared between callers.
    pub const fn scope(&self) -> CacheScope {
        self.scope
    }
}

/// Per-method cache hints, sent to modern clients only.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CacheHints {
    pub(crate) discover: CacheHint,
    pub(crate) list_tools: CacheHint,
}

impl CacheHints {
    /// The hints of `server/discover` and `tools/list`.
    pub const fn new(discover: CacheHint, list_tools: CacheHint) -> Self {
        Self {
            discover,
            list_tools,
        }
    }

    /// The hint of `server/discover`.
    pub const fn discover(&self) -> CacheHint {
        self.discover
    }

    /// The hint of `tools/list`.
    pub const fn list_tools(&self) -> CacheHint {
        self.list_tools
    }
}

/// Request-state signing keys; never printed.
#[derive(Clone, Default, PartialEq, Eq)]
pub(crate) struct SecretKeys(pub(crate) Vec<Vec<u8>>);

impl std::fmt::Debug for SecretKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[{} key(s), redacted]", self.0.len())
    }
}

/// How long a client may take to send a request body (default 30 s); slower ones get 408.
pub const DEFAULT_BODY_READ_TIMEOUT: Duration = Duration::from_secs(30);

/// How many standalone SSE streams (legacy GET) may be open at once (default 10,000); one per
/// session in any case.
pub const DEFAULT_MAX_STREAMS: usize = 10_000;

/// The default cap on request bodies (4 MiB).
pub const DEFAULT_MAX_BODY_BYTES: usize = 4 << 20;

/// The configuration of a service: a builder, whose methods set one setting each and return
/// the configuration (`foo(self, value) -> Self`).
///
/// Naming rule of the crate's configuration types: builders ([`ServiceConfig`],
/// [`OAuthConfig`](crate::auth::OAuthConfig), [`AuthorizationServer`](crate::auth::AuthorizationServer),
/// [`ServerBuilder`](crate::ServerBuilder)) own the setters, named after the setting; what they
/// build ([`Server`](crate::Server)) has the getters, named after the setting too (never
/// `get_*`, e.g. [`Server::protocol_mode`](crate::Server::protocol_mode)); small value types
/// ([`SessionLimits`], [`CacheHint`]) are built with a constructor or `with_*` methods and
/// have plain-named getters. No configuration type has public fields.
///
/// ```
/// use mcp::{CacheHint, CacheScope, ProtocolMode, ServiceConfig};
///
/// let config = ServiceConfig::new("calculator", "2.0.0")
///     .instructions("Arithmetic tools.")
///     .protocol_mode(ProtocolMode::Auto)
///     .list_tools_cache(CacheHint::new(60_000, CacheScope::Public))
///     .allowed_origins(["https://example.com"]);
/// assert_eq!(config.info().name, "calculator");
/// ```
#[derive(Clone, Debug, PartialEq)]
#[must_use = "a configuration does nothing until a server is built with it"]
pub struct ServiceConfig {
    pub(crate) info: Implementation,
    pub(crate) instructions: Option<String>,
    pub(crate) protocol_mode: ProtocolMode,
    pub(crate) session_mode: SessionMode,
    pub(crate) cache_hints: CacheHints,
    pub(crate) allowed_origins: Vec<String>,
    pub(crate) allow_credentials: bool,
    pub(crate) allowed_hosts: Vec<String>,
    pub(crate) host_validation: bool,
    pub(crate) max_body_bytes: usize,
    pub(crate) session_limits: SessionLimits,
    pub(crate) request_state_keys: SecretKeys,
    pub(crate) request_state_ttl: Duration,
    pub(crate) input_round_timeout: Duration,
    pub(crate) body_read_timeout: Duration,
    pub(crate) max_streams: usize,
    pub(crate) legacy_structured_output: bool,
}

impl ServiceConfig {
    /// A configuration with the server's name and version and every default: auto protocol
    /// mode, auto session mode, no cache reuse, no allowed browser origins, 4 MiB bodies.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            info: Implementation::new(name, version),
            instructions: None,
            protocol_mode: ProtocolMode::Auto,
            session_mode: SessionMode::Auto,
            cache_hints: CacheHints::default(),
            allowed_origins: Vec::new(),
            allow_credentials: false,
            allowed_hosts: Vec::new(),
            host_validation: true,
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            session_limits: SessionLimits::default(),
            request_state_keys: SecretKeys::default(),
            request_state_ttl: DEFAULT_TTL,
            input_round_timeout: Duration::from_secs(300),
            body_read_timeout: DEFAULT_BODY_READ_TIMEOUT,
            max_streams: DEFAULT_MAX_STREAMS,
            legacy_structured_output: false,
        }
    }

    /// The server identity.
    pub fn info(&self) -> &Implementation {
        &self.info
    }

    /// Sets the display title of the server.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.info.title = Some(title.into());
        self
    }

    /// Replaces the server identity.
    pub fn server_info(mut self, info: Implementation) -> Self {
        self.info = info;
        self
    }

    /// Sets the instructions for the model.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Sets the protocol mode.
    pub fn protocol_mode(mut self, mode: ProtocolMode) -> Self {
        self.protocol_mode = mode;
        self
    }

    /// Sets the session mode of legacy requests.
    pub fn session_mode(mut self, mode: SessionMode) -> Self {
        self.session_mode = mode;
        self
    }

    /// Sets the cache hint of `server/discover`.
    pub fn discover_cache(mut self, hint: CacheHint) -> Self {
        self.cache_hints.discover = hint;
        self
    }

    /// Sets the cache hint of `tools/list`.
    pub fn list_tools_cache(mut self, hint: CacheHint) -> Self {
        self.cache_hints.list_tools = hint;
        self
    }

    /// Sets the browser origins allowed to call the service (`"*"` allows any): the seed's
    /// `httpConfig.cors.allowOrigins`, both the Origin allowlist and the CORS policy.
    /// Requests without an `Origin` header are always accepted; others from unlisted origins
    /// get `403` before anything else runs. Listed origins get CORS answers: preflights for
    /// `POST`, `GET` and `DELETE` with the MCP request headers, and responses exposing
    /// `Mcp-Session-Id`, `MCP-Protocol-Version` and `WWW-Authenticate`.
    pub fn allowed_origins<I, S>(mut self, origins: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.allowed_origins = origins.into_iter().map(Into::into).collect();
        self
    }

    /// Whether CORS answers carry `Access-Control-Allow-Credentials: true` (the seed's
    /// `httpConfig.cors.allowCredentials`), so a page may send cookies or HTTP
    /// authentication along. Default `false`. With `"*"` among the allowed origins, the
    /// request's origin is echoed instead of `*`, which browsers refuse with credentials.
    pub fn allow_credentials(mut self, allow: bool) -> Self {
        self.allow_credentials = allow;
        self
    }

    /// Adds `Host` values the service accepts (DNS-rebinding protection): a host name or
    /// address (`"mcp.example.com"`, `"192.168.1.20"`, `"[::1]"`), which then matches with
    /// any port, or a `host:port` that matches only that port. Compared case-insensitively.
    ///
    /// A service served by a [`HttpServer`](crate::HttpServer)
    /// bound to a loopback address accepts, by default, only `localhost` and loopback
    /// addresses with the bound port; the names listed here are accepted as well. On any
    /// other address no `Host` is checked unless names are listed here, and then only the
    /// listed ones pass. Any other `Host` gets `403` before anything else runs.
    pub fn allowed_hosts<I, S>(mut self, hosts: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.allowed_hosts = hosts
            .into_iter()
            .map(|h| h.into().to_ascii_lowercase())
            .collect();
        self
    }

    /// Turns `Host` validation on or off (default on). Turn it off behind a reverse proxy
    /// that forwards requests to a loopback listener with the public host name and checks
    /// `Host` itself; or list the public names with [`allowed_hosts`](Self::allowed_hosts)
    /// instead.
    pub fn host_validation(mut self, enabled: bool) -> Self {
        self.host_validation = enabled;
        self
    }

    /// Sets the cap on request bodies; larger bodies get `413`.
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body_bytes = bytes;
        self
    }

    /// Sets the limits of legacy sessions (idle timeout, sessions per owner, anonymous
    /// sessions).
    pub fn session_limits(mut self, limits: SessionLimits) -> Self {
        self.session_limits = limits;
        self
    }

    /// Sets the request-state signing keys (each at least 32 bytes). The first signs and
    /// all verify: rotate by putting the new key first and removing the old one once its
    /// states have expired. Without keys, a random key is generated when the service is
    /// attached (states then do not survive a restart or cross replicas).
    pub fn request_state_keys<I, K>(mut self, keys: I) -> Self
    where
        I: IntoIterator<Item = K>,
        K: AsRef<[u8]>,
    {
        self.request_state_keys =
            SecretKeys(keys.into_iter().map(|k| k.as_ref().to_vec()).collect());
        self
    }

    /// Sets how long a request state stays valid (default 600 s); each round renews it.
    pub fn request_state_ttl(mut self, ttl: Duration) -> Self {
        self.request_state_ttl = ttl;
        self
    }

    /// Sets how long a legacy client on a stateful session has to answer each
    /// `elicitation/create` the server sends for an input-required result (default 300 s).
    pub fn input_round_timeout(mut self, timeout: Duration) -> Self {
        self.input_round_timeout = timeout;
        self
    }

    /// Sets how long a client may take to send a request body; a slower one gets `408`, so a
    /// slow sender cannot hold a connection and its buffer indefinitely.
    pub fn body_read_timeout(mut self, timeout: Duration) -> Self {
        self.body_read_timeout = timeout;
        self
    }

    /// Sets how many standalone SSE streams may be open at once across all sessions; one
    /// more is refused with `503`.
    pub fn max_streams(mut self, streams: usize) -> Self {
        self.max_streams = streams;
        self
    }

    /// Sends the output schemas and structured content of a basic service's tools to legacy
    /// clients that negotiated 2025-06-18 or later, as the modern era does (default: off,
    /// the seed's 1.x shape: text only). Clients of 2024-11-05 and 2025-03-26 keep the 1.x
    /// shape, and so do tools whose output schema's root is not an object, which the
    /// legacy schema cannot carry. `#[tool(legacy_structured_output = ...)]` overrides this
    /// per tool. Advanced services decide their legacy results themselves: building one
    /// with this switch on fails.
    pub fn legacy_structured_output(mut self, on: bool) -> Self {
        self.legacy_structured_output = on;
        self
    }

    /// Checks the values only known at run time.
    pub(crate) fn validate(&self) -> Result<(), Error> {
        for (method, hint) in [
            ("server/discover", self.cache_hints.discover),
            ("tools/list", self.cache_hints.list_tools),
        ] {
            if hint.ttl_ms < 0 {
                return Err(Error::Config(format!(
                    "the cache hint of `{method}` has a negative ttl_ms ({})",
                    hint.ttl_ms
                )));
            }
        }
        if self.body_read_timeout.is_zero() {
            return Err(Error::Config("body_read_timeout must be positive".into()));
        }
        if self.max_body_bytes == 0 {
            return Err(Error::Config("max_body_bytes must be positive".into()));
        }
        let limits = &self.session_limits;
        if limits.idle_timeout.is_zero() || limits.max_per_owner == 0 || limits.max_anonymous == 0 {
            return Err(Error::Config(format!(
                "session limits must be positive (idle_timeout {:?}, max_per_owner {}, max_anonymous {})",
                limits.idle_timeout, limits.max_per_owner, limits.max_anonymous
            )));
        }
        if self.info.name.trim().is_empty() {
            return Err(Error::Config("the server name is empty".into()));
        }
        for host in &self.allowed_hosts {
            if host == "*" {
                return Err(Error::Config(
                    "allowed host \"*\": to accept any Host, use host_validation(false)".into(),
                ));
            }
            if !crate::transport::is_host_pattern(host) {
                return Err(Error::Config(format!(
                    "allowed host {host:?} is not a host name, an address or host:port (IPv6 in brackets)"
                )));
            }
        }
        for origin in &self.allowed_origins {
            if origin != "*" && !origin.contains("://") {
                return Err(Error::Config(format!(
                    "allowed origin {origin:?} is not `*` or a scheme://host[:port] origin"
                )));
            }
        }
        Ok(())
    }
}
