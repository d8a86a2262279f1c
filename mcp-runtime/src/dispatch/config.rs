//! Service configuration: the constant part (from `#[mcp::service(...)]` or written by
//! hand) and the values only known at run time, checked together when the service is
//! attached.

use crate::error::Error;
use crate::protocol::{CacheScope, Implementation};
use std::time::Duration;

use crate::session::SessionLimits;
use crate::state::DEFAULT_TTL;

/// Which protocol eras a server accepts, or a client speaks. One type for both sides.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ProtocolMode {
    /// Both eras. A server decides per request (modern requests and legacy
    /// initialize-based requests); a client probes with `server/discover` and falls back to
    /// the legacy `initialize` handshake exactly when the probe's answer shows a server of
    /// the older era (see the client's `connect`).
    #[default]
    Auto,
    /// MCP 2026-07-28 only (a client never falls back).
    Modern,
    /// The `initialize` handshake only.
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
pub(crate) struct CacheHints {
    pub(crate) discover: CacheHint,
    pub(crate) list_tools: CacheHint,
}

/// Request-state signing keys; never printed.
#[derive(Clone, Default, PartialEq, Eq)]
pub(crate) struct SecretKeys(pub(crate) Vec<Vec<u8>>);

impl std::fmt::Debug for SecretKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|_| crate::redact::Redacted::HIDDEN))
            .finish()
    }
}

/// How long a client may take to send a request body (default 30 s); slower ones get 408.
pub const DEFAULT_BODY_READ_TIMEOUT: Duration = Duration::from_secs(30);

/// How many standalone SSE streams (legacy GET) may be open at once (default 10,000); one per
/// session in any case.
pub const DEFAULT_MAX_STREAMS: usize = 10_000;

/// The default cap on request bodies (4 MiB).
pub(crate) const DEFAULT_MAX_BODY_BYTES: usize = 4 << 20;

/// The configuration of a service, assembled by [`ServerBuilder`](crate::ServerBuilder)
/// and read through [`Server`](crate::Server)'s getters.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ServiceConfig {
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
    pub(crate) fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
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
            if !crate::base::host::is_host_pattern(host) {
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
