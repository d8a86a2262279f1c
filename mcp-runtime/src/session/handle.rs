//! [`Session`]: the handle a tool binds to read and write its legacy session.

use std::sync::{Arc, Mutex, PoisonError};

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::streams::Streams;
use super::{DynSessionStore, StoreError, Update};

/// The legacy session of a request (over HTTP, the one `Mcp-Session-Id` names; over stdio and
/// in-process, the connection's): a key-value store whose values are kept as JSON,
/// so any [`SessionStore`](super::SessionStore) can hold them.
///
/// Its `Debug` shows a fingerprint of the session id (`<redacted sha256:1a2b3c4d>`), not
/// the id: whoever holds the id of a session without an owner can use it.
///
/// Bind it as `mcp::Session` (legacy requests with a session only) or
/// `Option<mcp::Session>` (`None` on modern and session-less requests).
///
/// **Concurrency**: each operation is atomic on its own. Two calls of one session that both
/// `get` a value, change it and `set` it may lose one change (last writer wins); use
/// [`update`](Self::update) or [`update_with`](Self::update_with), atomic read-modify-writes
/// in every store that never overwrite a value they cannot read, for values that concurrent
/// calls change.
///
/// ```no_run
/// # async fn add_item(session: mcp::Session, item: String) -> Result<usize, mcp::session::SessionError> {
/// let items: Vec<String> = session
///     .update("items", |items: Option<Vec<String>>| {
///         let mut items = items.unwrap_or_default();
///         items.push(item.clone());
///         items
///     })
///     .await?;
/// Ok(items.len())
/// # }
/// ```
#[derive(Clone)]
pub struct Session {
    id: Arc<str>,
    store: DynSessionStore,
    streams: Arc<Streams>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("id", &crate::redact::Redacted::fingerprint(&*self.id))
            .finish_non_exhaustive()
    }
}

/// A session operation failed. The message names the key; the store or JSON error behind
/// it is the [`source`](std::error::Error::source).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SessionError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The stored value of `key` does not convert to the type asked for (it has another
    /// shape). [`Session::update`] leaves such a value untouched.
    #[error("session value `{key}` has another shape than the type asked for")]
    WrongShape {
        /// The key.
        key: String,
        /// Why it does not convert.
        #[source]
        source: serde_json::Error,
    },
    /// A value could not be serialized to JSON; nothing was written.
    #[error("session value `{key}` cannot be serialized")]
    Serialize {
        /// The key.
        key: String,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
}

/// What the client reads when a handler's session operation fails (the detail is logged).
const SESSION_FAILED: &str = "Internal error: the session could not be read or written";

impl From<SessionError> for crate::error::ServerError {
    fn from(e: SessionError) -> Self {
        Self::Internal {
            message: SESSION_FAILED.into(),
            source: Some(Arc::new(e)),
        }
    }
}

impl From<SessionError> for crate::error::ToolError {
    fn from(e: SessionError) -> Self {
        Self::from_source("The session could not be read or written", e)
    }
}

impl Session {
    pub(crate) fn new(id: Arc<str>, store: DynSessionStore, streams: Arc<Streams>) -> Self {
        Self { id, store, streams }
    }

    /// The session id (`Mcp-Session-Id`).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The value of `key` converted to `T`; `Ok(None)` when absent,
    /// [`SessionError::WrongShape`] when the stored value does not convert to `T`.
    pub async fn get<T: DeserializeOwned>(&self, key: &str) -> Result<Option<T>, SessionError> {
        self.store
            .get(&self.id, key)
            .await?
            .map(|v| decode(key, v))
            .transpose()
    }

    /// Stores `value` under `key`.
    pub async fn set<T: Serialize>(&self, key: &str, value: T) -> Result<(), SessionError> {
        let value = serde_json::to_value(value).map_err(|source| SessionError::Serialize {
            key: key.into(),
            source,
        })?;
        Ok(self.store.set(&self.id, key, value).await?)
    }

    /// `true` when `key` holds a value.
    pub async fn has(&self, key: &str) -> Result<bool, SessionError> {
        Ok(self.store.get(&self.id, key).await?.is_some())
    }

    /// Removes `key`, returning its raw value.
    pub async fn remove(&self, key: &str) -> Result<Option<Value>, SessionError> {
        Ok(self.store.remove(&self.id, key).await?)
    }

    /// The keys, sorted.
    pub async fn keys(&self) -> Result<Vec<String>, SessionError> {
        Ok(self.store.keys(&self.id).await?)
    }

    /// Atomically replaces the value of `key` with `f(current)` and returns the new value
    /// (`current` is `None` when the key is absent).
    ///
    /// It never loses data: when the stored value does not convert to `T` the update fails
    /// with [`SessionError::WrongShape`], and when the new value does not serialize it fails
    /// with [`SessionError::Serialize`]; either way the stored value is left untouched. `f`
    /// may run more than once (stores shared between servers retry on conflict), so keep it
    /// free of side effects; to get something else out of it, use
    /// [`update_with`](Self::update_with).
    pub async fn update<T, F>(&self, key: &str, f: F) -> Result<T, SessionError>
    where
        T: Serialize + DeserializeOwned + Send,
        F: Fn(Option<T>) -> T + Send + Sync,
    {
        let (value, ()) = self.update_with(key, |current| (f(current), ())).await?;
        Ok(value)
    }

    /// Like [`update`](Self::update), for a closure that also computes an output: `f`
    /// returns the new value and an output, and both come back from the run whose value was
    /// stored (`f` may run more than once; only the last run counts).
    ///
    /// ```no_run
    /// # async fn take(session: mcp::Session, item: String) -> Result<(), mcp::session::SessionError> {
    /// let (items, removed) = session
    ///     .update_with("items", |items: Option<Vec<String>>| {
    ///         let mut items = items.unwrap_or_default();
    ///         let before = items.len();
    ///         items.retain(|i| *i != item);
    ///         let removed = items.len() < before;
    ///         (items, removed)
    ///     })
    ///     .await?;
    /// # let _ = (items, removed);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn update_with<T, R, F>(&self, key: &str, f: F) -> Result<(T, R), SessionError>
    where
        T: Serialize + DeserializeOwned + Send,
        R: Send,
        F: Fn(Option<T>) -> (T, R) + Send + Sync,
    {
        // What the last run of `apply` produced: the value and output, or why it wrote
        // nothing.
        let last: Mutex<Option<Result<(T, R), SessionError>>> = Mutex::new(None);
        let apply = |current: Option<Value>| {
            let (decision, outcome) = match current.map(|v| decode::<T>(key, v)).transpose() {
                Err(e) => (Update::Keep, Err(e)),
                Ok(current) => {
                    let (next, output) = f(current);
                    match serde_json::to_value(&next) {
                        Ok(json) => (Update::Set(json), Ok((next, output))),
                        Err(source) => (
                            Update::Keep,
                            Err(SessionError::Serialize {
                                key: key.into(),
                                source,
                            }),
                        ),
                    }
                }
            };
            *last.lock().unwrap_or_else(PoisonError::into_inner) = Some(outcome);
            decision
        };
        self.store.update(&self.id, key, &apply).await?;
        last.into_inner()
            .unwrap_or_else(PoisonError::into_inner)
            .unwrap_or_else(|| {
                Err(SessionError::Store(StoreError::new(format!(
                    "the store did not apply the update of `{key}`"
                ))))
            })
    }

    /// Sends a JSON-RPC notification to the client on the session's standalone stream (the
    /// GET stream). It is kept for replay with `Last-Event-ID`; returns `false` when no
    /// stream is connected right now.
    pub fn notify(&self, method: &str, params: Value) -> bool {
        let message = serde_json::json!({"jsonrpc": "2.0", "method": method, "params": params});
        self.streams.publish(&self.id, &message)
    }
}

/// `value` converted to `T`, or [`SessionError::WrongShape`].
fn decode<T: DeserializeOwned>(key: &str, value: Value) -> Result<T, SessionError> {
    serde_json::from_value(value).map_err(|source| SessionError::WrongShape {
        key: key.into(),
        source,
    })
}
