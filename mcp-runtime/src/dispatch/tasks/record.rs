//! A task's record (what the [`TaskStore`] keeps of it) and a server's access to its
//! store: reads, compare-and-set updates, and the errors a store failure or a missing task
//! is answered with.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::dispatch::reply::Reply;
use crate::protocol::{ErrorCode, ErrorObject, JsonObject, TASKS_EXTENSION, Task, TaskStatus};
use crate::tasks::{StoredTask, TaskConfig, TaskStore, TaskStoreError, new_task_id, now_ms};

/// A task's record: what the store keeps as its data.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct Record {
    /// The identity key of the caller that owns it (empty: anonymous).
    #[serde(default)]
    pub(super) owner: String,
    pub(super) status: TaskStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) message: Option<String>,
    pub(super) created: u64,
    pub(super) updated: u64,
    pub(super) ttl: Option<u64>,
    pub(super) poll: u64,
    pub(super) tool: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) arguments: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) meta: Option<JsonObject>,
    /// The outstanding input requests, by the key the client answers.
    #[serde(default, skip_serializing_if = "JsonObject::is_empty")]
    pub(super) pending: JsonObject,
    /// For each outstanding key, the tool's own key (they differ when the tool reused a key
    /// an earlier round already issued: keys are unique over a task's life).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(super) keys: BTreeMap<String, String>,
    /// The answers gathered for the next round, by the tool's keys.
    #[serde(default, skip_serializing_if = "JsonObject::is_empty")]
    pub(super) answers: JsonObject,
    /// Every key issued so far.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub(super) issued: BTreeSet<String>,
    /// Rounds run so far.
    #[serde(default)]
    pub(super) rounds: u32,
    /// The tool's request state for the next round.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) state: Option<String>,
    /// The result, as the tool's round serialized it (read back only by `tasks/get`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) result: Option<Box<RawValue>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) error: Option<ErrorObject>,
    /// The replica running the task and until when its claim holds (ms since the epoch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) lease: Option<(String, u64)>,
}

impl Record {
    pub(super) fn finish(&mut self, status: TaskStatus, message: Option<String>) {
        self.status = status;
        self.message = message;
        self.pending.clear();
        self.keys.clear();
        self.answers.clear();
        self.state = None;
        self.lease = None;
    }

    /// The `DetailedTask` of `notifications/tasks` (no `resultType`).
    pub(super) fn detailed(&self, id: &str) -> Option<JsonObject> {
        match serde_json::to_value(self.to_task(id, true)) {
            Ok(Value::Object(task)) => Some(task),
            _ => None,
        }
    }

    /// The wire task: `detailed` adds `inputRequests`, `result` and `error`.
    pub(super) fn to_task(&self, id: &str, detailed: bool) -> Task {
        let input = self.status == TaskStatus::InputRequired;
        Task {
            task_id: id.to_owned(),
            status: self.status,
            status_message: self.message.clone(),
            created_at: timestamp(self.created),
            last_updated_at: timestamp(self.updated),
            ttl_ms: self.ttl,
            poll_interval_ms: Some(self.poll),
            input_requests: (detailed && input).then(|| self.pending.clone()),
            result: self
                .result
                .as_ref()
                .filter(|_| detailed)
                .and_then(|r| serde_json::from_str(r.get()).ok()),
            error: self.error.clone().filter(|_| detailed),
            result_type: None,
            meta: None,
        }
    }
}

/// ISO 8601 (UTC, milliseconds) of `ms` since the epoch.
fn timestamp(ms: u64) -> String {
    humantime::format_rfc3339_millis(UNIX_EPOCH + Duration::from_millis(ms)).to_string()
}

/// A server's tasks: the store, the settings, this replica's name in leases, and the
/// cancellation handles of the rounds running here.
pub(crate) struct Tasks {
    pub(super) store: Arc<dyn TaskStore>,
    pub(crate) config: TaskConfig,
    pub(super) runner: String,
    pub(super) running: Mutex<HashMap<String, CancellationToken>>,
}

impl std::fmt::Debug for Tasks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tasks")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// The most times a compare-and-set update is retried before it gives up.
const UPDATE_ATTEMPTS: usize = 64;

impl Tasks {
    pub(crate) fn new(store: Arc<dyn TaskStore>, config: TaskConfig) -> Self {
        Self {
            store,
            config,
            runner: new_task_id(),
            running: Mutex::default(),
        }
    }

    /// How the notification hub reads a task another replica changed.
    pub(crate) fn reader(tasks: &Arc<Self>) -> crate::notify::TaskReader {
        let tasks = Arc::clone(tasks);
        Arc::new(move |id: String| {
            let tasks = Arc::clone(&tasks);
            Box::pin(async move {
                let (_, record) = tasks.load(&id).await.ok()??;
                record.detailed(&id)
            })
        })
    }

    pub(super) fn running(&self) -> std::sync::MutexGuard<'_, HashMap<String, CancellationToken>> {
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(super) async fn load(&self, id: &str) -> Result<Option<(StoredTask, Record)>, ErrorObject> {
        let Some(stored) = self.store.load(id).await.map_err(store_error)? else {
            return Ok(None);
        };
        match serde_json::from_str(&stored.data) {
            Ok(record) => Ok(Some((stored, record))),
            Err(e) => {
                tracing::error!(error = %e, "a stored task does not read back");
                Err(internal("Internal error: a stored task is unreadable"))
            }
        }
    }

    /// Applies `change` to task `id` (compare-and-set, retried on a concurrent write):
    /// `change` returns `false` to leave the task as it is. The task as stored afterwards,
    /// and whether `change` wrote it; `None` when there is no such task.
    pub(super) async fn update(
        &self,
        id: &str,
        change: impl FnMut(&mut Record) -> bool,
    ) -> Result<Option<(Record, bool)>, ErrorObject> {
        self.update_from(id, None, change).await
    }

    /// [`update`](Self::update) starting from `read`, the task as just read (one store
    /// round trip fewer); later attempts read it again.
    pub(super) async fn update_from(
        &self,
        id: &str,
        mut read: Option<(StoredTask, Record)>,
        mut change: impl FnMut(&mut Record) -> bool,
    ) -> Result<Option<(Record, bool)>, ErrorObject> {
        for _ in 0..UPDATE_ATTEMPTS {
            let current = match read.take() {
                Some(r) => Some(r),
                None => self.load(id).await?,
            };
            let Some((stored, mut record)) = current else {
                return Ok(None);
            };
            if !change(&mut record) {
                return Ok(Some((record, false)));
            }
            record.updated = now_ms().max(record.updated);
            let data = serde_json::to_string(&record).map_err(|e| internal(&e.to_string()))?;
            let next = StoredTask::new(
                id,
                stored.owner.clone(),
                stored.version + 1,
                !record.status.is_terminal(),
                stored.expires_at_ms,
                data,
            );
            if self
                .store
                .replace(next, stored.version)
                .await
                .map_err(store_error)?
            {
                return Ok(Some((record, true)));
            }
        }
        Err(internal(
            "Internal error: the task changed too often to update",
        ))
    }
}

/// `-32603` with `message`.
pub(super) fn internal(message: &str) -> ErrorObject {
    ErrorObject::new(ErrorCode::INTERNAL_ERROR, message)
}

/// The error answered for a store failure (its detail logged, not sent).
pub(super) fn store_error(e: TaskStoreError) -> ErrorObject {
    match e {
        TaskStoreError::OwnerLimit { limit } => ErrorObject::new(
            ErrorCode::OVERLOADED,
            format!("Too many active tasks: this caller already has {limit} unfinished tasks; wait for one to finish or cancel one"),
        )
        .with_data(json!({"limit": limit})),
        TaskStoreError::Full { .. } => ErrorObject::new(
            ErrorCode::OVERLOADED,
            "The server holds as many tasks as it can; try again later",
        ),
        e => {
            tracing::error!(error = %e, "task store failure");
            internal("Internal error: the task store is unavailable")
        }
    }
}

/// `-32602` for a task that does not exist, expired, or belongs to another caller (the
/// three are not told apart).
pub(super) fn not_found() -> Reply {
    Reply::in_band(ErrorObject::new(
        ErrorCode::INVALID_PARAMS,
        "Failed to retrieve task: Task not found",
    ))
}

/// `-32021` naming the tasks extension.
pub(crate) fn missing_extension(message: String) -> ErrorObject {
    ErrorObject::new(ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY, message)
        .with_data(json!({"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}}))
}

/// The JSON-RPC error a failed round's reply carries.
pub(super) fn error_of(reply: Option<Reply>) -> ErrorObject {
    match reply {
        Some(Reply::Err { error, .. }) => error,
        Some(Reply::InsufficientScope(e)) => {
            ErrorObject::new(ErrorCode::INTERNAL_ERROR, e.to_string())
        }
        _ => internal("Internal error"),
    }
}
