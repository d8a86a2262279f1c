//! Legacy HTTP sessions: the [`SessionStore`] trait and its in-memory default
//! ([`MemoryStore`]), session limits and owners, the [`Session`] handle tools bind, and
//! the per-session event streams (the standalone GET stream with `Last-Event-ID` replay).
//!
//! Modern requests never create or use a session.

#[cfg(any(test, feature = "test-util"))]
pub mod contract;
mod dyn_store;
mod handle;
pub(crate) mod identity;
mod memory;
#[cfg(feature = "redis")]
mod redis;
pub(crate) mod resume;
pub(crate) mod streams;
mod subscriptions;

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

#[cfg(feature = "redis")]
pub use self::redis::RedisStore;
#[cfg(feature = "redis")]
pub(crate) use self::redis::{error_text as redis_error_text, shown_url as redis_shown_url};
pub use dyn_store::DynSessionStore;
pub use handle::{Session, SessionError};
pub use memory::MemoryStore;
pub use subscriptions::{
    MAX_SUBSCRIPTION_URI_BYTES, MAX_SUBSCRIPTIONS, SUBSCRIPTIONS_KEY, subscriptions,
};

use crate::error::BoxError;
use crate::redact::Redacted;

/// Bounds on the sessions of a service.
///
/// A small value type: start from [`default`](Self::default) and change what you need with
/// the `with_*` methods; read a bound with the method of its name (no `get_` prefix).
///
/// ```
/// use std::time::Duration;
/// use mcp::session::SessionLimits;
///
/// let limits = SessionLimits::default()
///     .with_idle_timeout(Duration::from_secs(900))
///     .with_max_per_owner(20);
/// assert_eq!(limits.idle_timeout(), Duration::from_secs(900));
/// assert_eq!((limits.max_per_owner(), limits.max_anonymous()), (20, 10_000));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionLimits {
    pub(crate) idle_timeout: Duration,
    pub(crate) max_per_owner: usize,
    pub(crate) max_anonymous: usize,
}

impl Default for SessionLimits {
    fn default() -> Self {
        Self {
            idle_timeout: Duration::from_secs(1800),
            max_per_owner: 100,
            max_anonymous: 10_000,
        }
    }
}

impl SessionLimits {
    /// Sets how long a session may go without a request before it expires.
    #[must_use]
    pub const fn with_idle_timeout(mut self, idle_timeout: Duration) -> Self {
        self.idle_timeout = idle_timeout;
        self
    }

    /// Sets how many sessions each identified caller may hold.
    #[must_use]
    pub const fn with_max_per_owner(mut self, max_per_owner: usize) -> Self {
        self.max_per_owner = max_per_owner;
        self
    }

    /// Sets how many sessions all callers that cannot be told apart may hold together.
    #[must_use]
    pub const fn with_max_anonymous(mut self, max_anonymous: usize) -> Self {
        self.max_anonymous = max_anonymous;
        self
    }

    /// How long a session may go without a request before it expires (default 1800 s).
    pub const fn idle_timeout(&self) -> Duration {
        self.idle_timeout
    }

    /// Sessions per identified caller (default 100).
    pub const fn max_per_owner(&self) -> usize {
        self.max_per_owner
    }

    /// Sessions of all callers that cannot be told apart, together (default 10,000).
    pub const fn max_anonymous(&self) -> usize {
        self.max_anonymous
    }

    /// The limit of `owner`'s pool.
    pub fn limit_of(&self, owner: &Owner) -> usize {
        match owner {
            Owner::Anonymous => self.max_anonymous,
            Owner::Caller(_) => self.max_per_owner,
        }
    }
}

/// Who a session belongs to. A request carrying another owner's session id is refused as if
/// the id were unknown.
///
/// Identified callers are built with [`Owner::token`] or [`Owner::user`], whose keys are
/// injective: the parts are encoded as a JSON array (`["token","<issuer>","<client>",
/// "<subject>"]`, `["basic","<user>"]`), so no two different callers share a key whatever
/// characters their claims contain. The same key owns the caller's sessions, counts against
/// its per-owner limit, names its Redis pool, and binds its request states.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Owner {
    /// Callers that cannot be told apart; their sessions share one pool.
    Anonymous,
    /// An identified caller (issuer, client and subject of a token, or a Basic user name),
    /// as an opaque key.
    Caller(Arc<str>),
}

impl Owner {
    /// The caller a token identifies: its issuer, client and subject (empty when the token
    /// names none).
    pub fn token(issuer: &str, client: &str, subject: &str) -> Self {
        Self::structured(&["token", issuer, client, subject])
    }

    /// The identity key of an identified caller (`None` for [`Owner::Anonymous`]).
    pub(crate) fn identity(&self) -> Option<&Arc<str>> {
        match self {
            Self::Caller(key) => Some(key),
            Self::Anonymous => None,
        }
    }

    /// A user authenticated by name (HTTP Basic).
    pub fn user(name: &str) -> Self {
        Self::structured(&["basic", name])
    }

    /// The key of `parts`: a JSON array of strings, which names `parts` and nothing else (and
    /// never contains a raw control character, unlike the keys of earlier versions).
    fn structured(parts: &[&str]) -> Self {
        Self::Caller(serde_json::Value::from(parts).to_string().into())
    }

    /// The owner key a store persists.
    pub fn key(&self) -> &str {
        match self {
            Self::Anonymous => "",
            Self::Caller(k) => k,
        }
    }

    /// The owner of a persisted key.
    pub fn from_key(key: &str) -> Self {
        if key.is_empty() {
            Self::Anonymous
        } else {
            Self::Caller(key.into())
        }
    }
}

/// What a store keeps about a session besides its values.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionInfo {
    /// The negotiated protocol version.
    pub protocol_version: String,
    /// The client capabilities declared at `initialize` (JSON).
    pub client_capabilities: Value,
}

/// The result of creating a session. `Debug` shows fingerprints of the session ids, as
/// [`Session`] does.
#[derive(Clone, PartialEq, Eq)]
pub struct Created {
    /// The new session id.
    pub id: String,
    /// Sessions evicted to make room (least recently used of the same pool).
    pub evicted: Vec<String>,
}

impl std::fmt::Debug for Created {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Created")
            .field("id", &Redacted::fingerprint(&self.id))
            .field(
                "evicted",
                &self
                    .evicted
                    .iter()
                    .map(Redacted::fingerprint)
                    .collect::<Vec<_>>(),
            )
            .finish()
    }
}

/// A store failure (the backing service is unreachable, a value is malformed, the session
/// is gone). The message says what failed; the underlying error (a Redis or JSON error) is
/// kept as [`source`](std::error::Error::source), not copied into the message.
#[derive(Debug, thiserror::Error)]
#[error("session store error: {message}")]
pub struct StoreError {
    message: String,
    #[source]
    source: Option<BoxError>,
}

impl StoreError {
    /// A store error saying what failed.
    #[must_use]
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            source: None,
        }
    }

    /// A store error saying what failed, caused by `source`.
    #[must_use]
    pub fn from_source(message: impl Into<String>, source: impl Into<BoxError>) -> Self {
        Self::new(message).with_source(source)
    }

    /// Sets the underlying error, replacing any earlier one.
    #[must_use]
    pub fn with_source(mut self, source: impl Into<BoxError>) -> Self {
        self.source = Some(source.into());
        self
    }

    /// What failed (without the source).
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// What the closure of [`SessionStore::update`] decides for a key.
#[derive(Clone, Debug, PartialEq)]
pub enum Update {
    /// Store this value.
    Set(Value),
    /// Remove the key.
    Remove,
    /// Leave the stored value exactly as it is (the update is abandoned, nothing is written).
    Keep,
}

/// Where legacy sessions live. Implementations must make [`update`](Self::update) atomic
/// per key and enforce limits and expiry even when several servers share the store.
///
/// Implement it with `async fn`, like [`AdvancedService`](crate::AdvancedService); the
/// server boxes the futures itself (through [`DynSessionStore`], which
/// [`ServerBuilder::session_store`](crate::ServerBuilder::session_store) builds from any
/// store). `mcp::session::contract` (cargo feature `test-util`) holds the behaviour every
/// store must have, as tests to run against yours.
pub trait SessionStore: Send + Sync + 'static {
    /// Creates a session for `owner`, evicting the least recently used sessions of the same
    /// pool (the owner's, or the anonymous pool) while it is at its limit.
    fn create(
        &self,
        owner: &Owner,
        info: SessionInfo,
        limits: &SessionLimits,
    ) -> impl Future<Output = Result<Created, StoreError>> + Send;

    /// Opens session `id` for a request of `owner`, refreshing its idle timer and recency.
    /// `None` when the id is unknown, expired, evicted or owned by someone else.
    fn open(
        &self,
        id: &str,
        owner: &Owner,
        limits: &SessionLimits,
    ) -> impl Future<Output = Result<Option<SessionInfo>, StoreError>> + Send;

    /// Deletes session `id` of `owner`; `false` when there was no such session.
    fn delete(
        &self,
        id: &str,
        owner: &Owner,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send;

    /// The value of `key`.
    fn get(
        &self,
        id: &str,
        key: &str,
    ) -> impl Future<Output = Result<Option<Value>, StoreError>> + Send;

    /// Sets `key`.
    fn set(
        &self,
        id: &str,
        key: &str,
        value: Value,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// Removes `key`, returning its value.
    fn remove(
        &self,
        id: &str,
        key: &str,
    ) -> impl Future<Output = Result<Option<Value>, StoreError>> + Send;

    /// The keys, sorted.
    fn keys(&self, id: &str) -> impl Future<Output = Result<Vec<String>, StoreError>> + Send;

    /// Atomically applies `f(current)` to the value of `key` ([`Update::Set`] replaces it,
    /// [`Update::Remove`] removes it, [`Update::Keep`] writes nothing) and returns the value
    /// the key holds afterwards. `f` may run more than once (optimistic stores retry); the
    /// decision of its last run is the one applied.
    fn update(
        &self,
        id: &str,
        key: &str,
        f: &(dyn Fn(Option<Value>) -> Update + Send + Sync),
    ) -> impl Future<Output = Result<Option<Value>, StoreError>> + Send;

    /// How many live sessions the store holds (for metrics and tests).
    fn len(&self) -> impl Future<Output = Result<usize, StoreError>> + Send;

    /// `true` when the store holds no live session.
    fn is_empty(&self) -> impl Future<Output = Result<bool, StoreError>> + Send {
        async move { self.len().await.map(|n| n == 0) }
    }
}

impl<T: SessionStore> SessionStore for Arc<T> {
    async fn create(
        &self,
        owner: &Owner,
        info: SessionInfo,
        limits: &SessionLimits,
    ) -> Result<Created, StoreError> {
        (**self).create(owner, info, limits).await
    }

    async fn open(
        &self,
        id: &str,
        owner: &Owner,
        limits: &SessionLimits,
    ) -> Result<Option<SessionInfo>, StoreError> {
        (**self).open(id, owner, limits).await
    }

    async fn delete(&self, id: &str, owner: &Owner) -> Result<bool, StoreError> {
        (**self).delete(id, owner).await
    }

    async fn get(&self, id: &str, key: &str) -> Result<Option<Value>, StoreError> {
        (**self).get(id, key).await
    }

    async fn set(&self, id: &str, key: &str, value: Value) -> Result<(), StoreError> {
        (**self).set(id, key, value).await
    }

    async fn remove(&self, id: &str, key: &str) -> Result<Option<Value>, StoreError> {
        (**self).remove(id, key).await
    }

    async fn keys(&self, id: &str) -> Result<Vec<String>, StoreError> {
        (**self).keys(id).await
    }

    async fn update(
        &self,
        id: &str,
        key: &str,
        f: &(dyn Fn(Option<Value>) -> Update + Send + Sync),
    ) -> Result<Option<Value>, StoreError> {
        (**self).update(id, key, f).await
    }

    async fn len(&self) -> Result<usize, StoreError> {
        (**self).len().await
    }

    async fn is_empty(&self) -> Result<bool, StoreError> {
        (**self).is_empty().await
    }
}

/// A new random session id: 128 bits, hex (visible ASCII, as the transport requires).
#[cfg_attr(not(feature = "redis"), allow(dead_code))]
pub(crate) fn new_session_id() -> String {
    let bytes: [u8; 16] = rand::random();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_keys_are_structured_and_distinct() {
        assert_eq!(
            Owner::token("https://as", "app", "a\u{1f}b").key(),
            r#"["token","https://as","app","a\u001fb"]"#
        );
        assert_eq!(Owner::user("alice").key(), r#"["basic","alice"]"#);
        let owners = contract::colliding_identities();
        let keys: std::collections::BTreeSet<&str> = owners.iter().map(Owner::key).collect();
        assert_eq!(keys.len(), owners.len());
        for owner in &owners[..owners.len() - 1] {
            assert!(!owner.key().contains('\u{1f}'), "{owner:?}");
            assert_eq!(Owner::from_key(owner.key()), *owner);
        }
    }
}
