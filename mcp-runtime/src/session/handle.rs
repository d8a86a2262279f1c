//! [`HttpSession`]: the handle a tool binds to read and write its legacy session.

use std::sync::Arc;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::streams::Streams;
use super::{SessionStore, StoreError};

/// The legacy HTTP session of a request: a key-value store whose values are kept as JSON,
/// so any [`SessionStore`] can hold them.
///
/// Bind it as `mcp::HttpSession` (legacy requests with a session only) or
/// `Option<mcp::HttpSession>` (`None` on modern and session-less requests).
///
/// **Concurrency**: each operation is atomic on its own. Two calls of one session that both
/// `get` a value, change it and `set` it may lose one change (last writer wins); use
/// [`update`](Self::update), which is an atomic read-modify-write in every store, for values
/// that concurrent calls change.
///
/// ```no_run
/// # async fn add_item(session: mcp::HttpSession, item: String) -> Result<usize, mcp::session::SessionError> {
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
pub struct HttpSession {
    id: Arc<str>,
    store: Arc<dyn SessionStore>,
    streams: Arc<Streams>,
}

impl std::fmt::Debug for HttpSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpSession")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

/// A session operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SessionError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A value did not convert to or from JSON.
    #[error("session value `{key}` has the wrong shape: {source}")]
    Value {
        /// The key.
        key: String,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
}

impl From<SessionError> for crate::error::ServerError {
    fn from(e: SessionError) -> Self {
        tracing::error!(error = %e, "session operation failed");
        Self::new("Internal error: the session could not be read or written")
    }
}

impl From<SessionError> for crate::dispatch::ToolError {
    fn from(e: SessionError) -> Self {
        tracing::error!(error = %e, "session operation failed");
        Self::new("The session could not be read or written")
    }
}

impl HttpSession {
    pub(crate) fn new(id: Arc<str>, store: Arc<dyn SessionStore>, streams: Arc<Streams>) -> Self {
        Self { id, store, streams }
    }

    /// The session id (`Mcp-Session-Id`).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The value of `key` converted to `T`; `Ok(None)` when absent.
    pub async fn get<T: DeserializeOwned>(&self, key: &str) -> Result<Option<T>, SessionError> {
        match self.store.get(&self.id, key).await? {
            None => Ok(None),
            Some(v) => serde_json::from_value(v)
                .map(Some)
                .map_err(|source| SessionError::Value {
                    key: key.into(),
                    source,
                }),
        }
    }

    /// Stores `value` under `key`.
    pub async fn set<T: Serialize>(&self, key: &str, value: T) -> Result<(), SessionError> {
        let value = serde_json::to_value(value).map_err(|source| SessionError::Value {
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

    /// Atomically replaces the value of `key` with `f(current)` and returns it. `f` may run
    /// more than once (stores shared between servers retry on conflict), so keep it pure. A
    /// current value that does not convert to `T` is passed as `None`.
    pub async fn update<T, F>(&self, key: &str, f: F) -> Result<T, SessionError>
    where
        T: Serialize + DeserializeOwned,
        F: Fn(Option<T>) -> T + Send + Sync,
    {
        let error = std::sync::Mutex::new(None);
        let apply = |current: Option<Value>| {
            let current = current.and_then(|v| serde_json::from_value::<T>(v).ok());
            match serde_json::to_value(f(current)) {
                Ok(v) => Some(v),
                Err(e) => {
                    *error
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(e);
                    None
                }
            }
        };
        let next = self.store.update(&self.id, key, &apply).await?;
        if let Some(source) = error
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
        {
            return Err(SessionError::Value {
                key: key.into(),
                source,
            });
        }
        let next = next.unwrap_or(Value::Null);
        serde_json::from_value(next).map_err(|source| SessionError::Value {
            key: key.into(),
            source,
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
