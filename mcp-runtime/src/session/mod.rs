//! Legacy HTTP sessions. Serving is stateless for now: no `Mcp-Session-Id` is issued; the
//! [`HttpSession`] type is the handle tools bind, and its store plugs in here.

use std::sync::{Arc, Mutex};

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::protocol::JsonObject;

/// The legacy HTTP session of a request, as a typed key-value store whose values are kept as
/// JSON. Bind it as `mcp::HttpSession` (legacy requests only) or `Option<mcp::HttpSession>`
/// (`None` on modern requests).
#[derive(Clone, Debug, Default)]
pub struct HttpSession {
    values: Arc<Mutex<JsonObject>>,
}

impl HttpSession {
    fn lock(&self) -> std::sync::MutexGuard<'_, JsonObject> {
        self.values
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The value of `key` converted to `T`; `None` when absent or not convertible.
    pub fn get<T: DeserializeOwned>(&self, key: &str) -> Option<T> {
        let value = self.lock().get(key).cloned()?;
        serde_json::from_value(value).ok()
    }

    /// Stores `value` under `key`.
    pub fn set<T: Serialize>(&self, key: &str, value: T) -> Result<(), serde_json::Error> {
        let value = serde_json::to_value(value)?;
        self.lock().insert(key.to_owned(), value);
        Ok(())
    }

    /// `true` when `key` holds a value.
    pub fn has(&self, key: &str) -> bool {
        self.lock().contains_key(key)
    }

    /// Removes `key`, returning its raw value.
    pub fn remove(&self, key: &str) -> Option<Value> {
        self.lock().remove(key)
    }

    /// The keys, in order.
    pub fn keys(&self) -> Vec<String> {
        self.lock().keys().cloned().collect()
    }
}
