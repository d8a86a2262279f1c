//! Service configuration: the constant part (from `#[mcp::service(...)]` or written by
//! hand) and the values only known at run time, checked together when the service is
//! attached.

use crate::error::Error;
use crate::protocol::{CacheScope, Implementation};
use std::time::Duration;

use crate::session::SessionLimits;
use crate::state::DEFAULT_TTL;

pub use crate::protocol::ProtocolMode;

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

/// How many standalone SSE streams (legacy GET) may be open at once (default 10,000); one per
/// session in any case.
pub const DEFAULT_MAX_STREAMS: usize = 10_000;

/// The configuration of a service, assembled by [`ServerBuilder`](crate::ServerBuilder)
/// and read through [`Server`](crate::Server)'s getters.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ServiceConfig {
    pub(crate) info: Implementation,
    pub(crate) instructions: Option<String>,
    pub(crate) protocol_mode: ProtocolMode,
    pub(crate) session_mode: SessionMode,
    pub(crate) cache_hints: CacheHints,
    pub(crate) session_limits: SessionLimits,
    pub(crate) request_state_keys: SecretKeys,
    pub(crate) request_state_ttl: Duration,
    pub(crate) input_round_timeout: Duration,
    pub(crate) max_streams: usize,
    pub(crate) legacy_structured_output: bool,
    /// The settings of the transports that serve the server ([`TransportConfigs`]).
    pub(crate) transports: TransportConfigs,
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
            session_limits: SessionLimits::default(),
            request_state_keys: SecretKeys::default(),
            request_state_ttl: DEFAULT_TTL,
            input_round_timeout: Duration::from_secs(300),
            max_streams: DEFAULT_MAX_STREAMS,
            legacy_structured_output: false,
            transports: TransportConfigs::default(),
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
        self.transports.validate()
    }
}

/// The settings a server carries for the transports that serve it, one value per type
/// (the HTTP transport's `HttpConfig`), with the outcome of checking each.
#[derive(Clone, Default)]
pub(crate) struct TransportConfigs {
    values: http::Extensions,
    /// The first invalid setting, reported by `ServerBuilder::build`.
    error: Option<String>,
    /// What `Debug` shows of each.
    shown: Vec<(std::any::TypeId, String)>,
}

impl TransportConfigs {
    /// The settings of type `C`, if given.
    pub(crate) fn get<C: crate::base::TransportConfig>(&self) -> Option<&C> {
        self.values.get::<C>()
    }

    /// Sets the settings of type `C` (replacing earlier ones) and checks them.
    pub(crate) fn set<C: crate::base::TransportConfig + std::fmt::Debug>(&mut self, config: C) {
        let id = std::any::TypeId::of::<C>();
        self.shown.retain(|(t, _)| *t != id);
        self.shown.push((id, format!("{config:?}")));
        if let Err(e) = config.validate() {
            let message = match e {
                Error::Config(message) => message,
                other => other.to_string(),
            };
            self.error.get_or_insert(message);
        }
        self.values.insert(config);
    }

    fn validate(&self) -> Result<(), Error> {
        match &self.error {
            Some(e) => Err(Error::Config(e.clone())),
            None => Ok(()),
        }
    }
}

impl std::fmt::Debug for TransportConfigs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        /// Shows a value's `Debug` text as it is.
        struct Shown<'a>(&'a str);
        impl std::fmt::Debug for Shown<'_> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.0)
            }
        }
        f.debug_list()
            .entries(self.shown.iter().map(|(_, s)| Shown(s)))
            .finish()
    }
}

impl PartialEq for TransportConfigs {
    fn eq(&self, other: &Self) -> bool {
        self.shown
            .iter()
            .map(|(_, s)| s)
            .eq(other.shown.iter().map(|(_, s)| s))
    }
}
