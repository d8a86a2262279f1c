//! The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663): a `tools/call` answered
//! with a task handle (`resultType: "task"`), then `tasks/get`, `tasks/update` and
//! `tasks/cancel`, and `notifications/tasks` on a `subscriptions/listen` stream.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{ClientCapabilities, ErrorObject, JsonObject, ResultType};

/// The extension's identifier, under `capabilities.extensions` (server) and the
/// per-request `io.modelcontextprotocol/clientCapabilities.extensions` (client).
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";
/// `tasks/get`: a task's current state.
pub const TASKS_GET: &str = "tasks/get";
/// `tasks/update`: answers to a task's input requests.
pub const TASKS_UPDATE: &str = "tasks/update";
/// `tasks/cancel`: asks for a task to stop.
pub const TASKS_CANCEL: &str = "tasks/cancel";
/// `notifications/tasks`: a task's new state, on a `subscriptions/listen` stream.
pub const TASKS_NOTIFICATION: &str = "notifications/tasks";

/// Whether `capabilities` declare the tasks extension (an object under
/// `extensions["io.modelcontextprotocol/tasks"]`).
pub fn declares_tasks(capabilities: &ClientCapabilities) -> bool {
    capabilities
        .other
        .get("extensions")
        .and_then(|e| e.get(TASKS_EXTENSION))
        .is_some_and(Value::is_object)
}

/// A task's status. `completed`, `failed` and `cancelled` are terminal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// The request is being processed.
    Working,
    /// The server waits for answers to the task's `inputRequests` (`tasks/update`).
    InputRequired,
    /// The request completed; `result` holds what it returned (a tool error included).
    Completed,
    /// The request failed with a JSON-RPC error; `error` holds it.
    Failed,
    /// The task was cancelled.
    Cancelled,
}

impl TaskStatus {
    /// `true` for `completed`, `failed` and `cancelled`: the task does not change any more.
    pub const fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Cancelled)
    }

    /// The wire name (`"working"`, `"input_required"`, …).
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Working => "working",
            Self::InputRequired => "input_required",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }
}

impl std::fmt::Display for TaskStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A task as the wire carries it: a `CreateTaskResult` (`resultType: "task"`, no
/// `result`/`error`/`inputRequests`), a `tasks/get` result or a `notifications/tasks`
/// notification (a `DetailedTask`: `inputRequests` while `input_required`, `result` once
/// `completed`, `error` once `failed`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Task {
    /// The task's identifier (unguessable).
    pub task_id: String,
    /// Its status.
    pub status: TaskStatus,
    /// A message describing the current state (progress, the reason of a failure, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// When it was created (ISO 8601).
    pub created_at: String,
    /// When it last changed (ISO 8601).
    pub last_updated_at: String,
    /// How long from creation the server keeps it, in milliseconds; `null` for unlimited.
    #[serde(default)]
    pub ttl_ms: Option<u64>,
    /// The suggested polling interval, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
    /// The outstanding input requests (`input_required`), keyed as `tasks/update` answers
    /// them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<JsonObject>,
    /// What the request returned (`completed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<JsonObject>,
    /// The JSON-RPC error the request failed with (`failed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorObject>,
    /// `"task"` on a `CreateTaskResult`, `"complete"` on a `tasks/get` result, absent on a
    /// notification.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl Task {
    /// `true` once the task does not change any more.
    pub fn is_terminal(&self) -> bool {
        self.status.is_terminal()
    }
}

/// `tasks/get` and `tasks/cancel` params.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TaskIdParams {
    /// The task.
    pub task_id: String,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// `tasks/update` params.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UpdateTaskParams {
    /// The task.
    pub task_id: String,
    /// Answers keyed as the task's `inputRequests` (unknown or answered keys are ignored).
    pub input_responses: JsonObject,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_task_keeps_a_null_ttl_and_leaves_out_what_it_lacks() {
        let task = Task {
            task_id: "t".into(),
            status: TaskStatus::InputRequired,
            status_message: None,
            created_at: "2026-12-05T00:00:00.000Z".into(),
            last_updated_at: "2026-12-05T00:00:00.000Z".into(),
            ttl_ms: None,
            poll_interval_ms: Some(500),
            input_requests: Some(JsonObject::new()),
            result: None,
            error: None,
            result_type: Some(ResultType::Task),
            meta: None,
        };
        assert_eq!(
            serde_json::to_value(&task).unwrap(),
            json!({"taskId": "t", "status": "input_required", "createdAt": "2026-12-05T00:00:00.000Z",
                   "lastUpdatedAt": "2026-12-05T00:00:00.000Z", "ttlMs": null, "pollIntervalMs": 500,
                   "inputRequests": {}, "resultType": "task"})
        );
        let caps: ClientCapabilities =
            serde_json::from_value(json!({"extensions": {TASKS_EXTENSION: {}}})).unwrap();
        assert!(declares_tasks(&caps));
        assert!(!declares_tasks(&ClientCapabilities::default()));
    }
}
