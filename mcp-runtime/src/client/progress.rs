//! Progress of one call: a callback registered under a `progressToken` of the client's own,
//! found again when the server's `notifications/progress` names that token.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};

use serde_json::Value;

use super::Inner;
use crate::protocol::CallToolParams;

/// A progress report the server sent about a call (`notifications/progress`).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Progress {
    /// The progress so far (increases with every report).
    pub progress: f64,
    /// The total, when the server knows it.
    pub total: Option<f64>,
    /// A human-readable message, if the server sent one.
    pub message: Option<String>,
}

/// A call's progress callback.
pub(crate) type ProgressFn = Arc<dyn Fn(Progress) + Send + Sync>;

/// Unregisters a call's callback when the call ends (or its future is dropped).
pub(crate) struct ProgressWatch {
    inner: Weak<Inner>,
    token: String,
}

impl Drop for ProgressWatch {
    fn drop(&mut self) {
        if let Some(inner) = self.inner.upgrade() {
            inner.lock_progress().remove(&self.token);
        }
    }
}

impl Inner {
    fn lock_progress(
        &self,
    ) -> std::sync::MutexGuard<'_, rustc_hash::FxHashMap<String, ProgressFn>> {
        self.progress.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Registers `report` for the call of `params`, whose `_meta` gets the token.
    pub(crate) fn watch_progress(
        &self,
        params: &mut CallToolParams,
        report: ProgressFn,
    ) -> ProgressWatch {
        let n = self.progress_seq.fetch_add(1, Ordering::Relaxed);
        let token = format!("mcp-rs-progress-{n}");
        params
            .meta
            .get_or_insert_with(Default::default)
            .insert("progressToken".into(), Value::String(token.clone()));
        self.lock_progress().insert(token.clone(), report);
        ProgressWatch {
            inner: self.me.clone(),
            token,
        }
    }

    /// Hands a `notifications/progress` to the call that asked for it, if one is waiting.
    pub(crate) fn on_progress(&self, params: Option<&Value>) {
        let Some(params) = params else { return };
        let Some(Value::String(token)) = params.get("progressToken") else {
            return;
        };
        let Some(progress) = params.get("progress").and_then(Value::as_f64) else {
            return;
        };
        let Some(report) = self.lock_progress().get(token).cloned() else {
            return;
        };
        report(Progress {
            progress,
            total: params.get("total").and_then(Value::as_f64),
            message: params
                .get("message")
                .and_then(Value::as_str)
                .map(str::to_owned),
        });
    }
}
