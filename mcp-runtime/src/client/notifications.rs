//! Notifications from the server: what a [`ClientConfig::notification_handler`] receives.
//!
//! [`ClientConfig::notification_handler`]: super::ClientConfig::notification_handler

use serde_json::Value;

/// A notification the server sent while the client was connected: log messages
/// (`notifications/message`), progress (`notifications/progress`, for requests whose `_meta`
/// carried a `progressToken`), list changes (`notifications/tools/list_changed`, …),
/// resource updates, or any other method.
#[derive(Clone, Debug, PartialEq)]
pub struct ServerNotification {
    method: String,
    params: Value,
}

impl ServerNotification {
    pub(crate) fn new(method: &str, params: Value) -> Self {
        Self {
            method: method.to_owned(),
            params,
        }
    }

    /// The notification's method, e.g. `notifications/message`.
    pub fn method(&self) -> &str {
        &self.method
    }

    /// Its params (`null` when it had none).
    pub fn params(&self) -> &Value {
        &self.params
    }

    /// For `notifications/message`: the level and the data.
    pub fn log(&self) -> Option<(&str, &Value)> {
        if self.method != "notifications/message" {
            return None;
        }
        Some((
            self.params.get("level")?.as_str()?,
            self.params.get("data")?,
        ))
    }

    /// For `notifications/progress`: the token, the progress and the total, if any.
    pub fn progress(&self) -> Option<(&Value, f64, Option<f64>)> {
        if self.method != "notifications/progress" {
            return None;
        }
        let token = self.params.get("progressToken")?;
        let progress = self.params.get("progress")?.as_f64()?;
        Some((
            token,
            progress,
            self.params.get("total").and_then(Value::as_f64),
        ))
    }
}
