//! Where tasks live (the tasks extension, `io.modelcontextprotocol/tasks`): the
//! [`TaskStore`] trait, its in-memory default ([`MemoryTaskStore`]) and, with the `redis`
//! feature, [`RedisTaskStore`], shared by every replica pointing at the same Redis; and
//! the settings of a server's tasks ([`TaskConfig`]).
//!
//! A store keeps opaque records ([`StoredTask`]: the serialized task with its owner, a
//! version for compare-and-set updates, whether it is still active, and when it expires).
//! What a task means (its status, input rounds, result) is the dispatch layer's; a store
//! only guarantees that a created task can be read back at once (SEP-2663's durable
//! creation), that an update applies only to the version it was computed from, that an
//! owner holds at most a given number of active tasks, and that a task disappears once it
//! expires.

#[cfg(any(test, feature = "test-util"))]
pub mod contract;
mod memory;
#[cfg(feature = "redis")]
mod redis;

use std::time::Duration;

pub use memory::MemoryTaskStore;
#[cfg(feature = "redis")]
pub use redis::RedisTaskStore;

use crate::base::BoxFuture;
use crate::error::BoxError;

/// One task as a store keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct StoredTask {
    /// The task id (unguessable: 128 random bits).
    pub id: String,
    /// The caller that owns it (empty for callers that cannot be told apart).
    pub owner: String,
    /// Incremented by every update; [`TaskStore::replace`] compares it.
    pub version: u64,
    /// `false` once the task is terminal: it no longer counts against its owner's limit.
    pub active: bool,
    /// When the task expires, in milliseconds since the Unix epoch (`None`: never).
    pub expires_at_ms: Option<u64>,
    /// The task, serialized by the server (JSON text).
    pub data: String,
}

impl StoredTask {
    /// A record (the server builds them; public for [`TaskStore`] implementations and
    /// their tests).
    pub fn new(
        id: impl Into<String>,
        owner: impl Into<String>,
        version: u64,
        active: bool,
        expires_at_ms: Option<u64>,
        data: impl Into<String>,
    ) -> Self {
        Self {
            id: id.into(),
            owner: owner.into(),
            version,
            active,
            expires_at_ms,
            data: data.into(),
        }
    }

    /// The bytes the record holds (its id, owner and data).
    pub fn size(&self) -> usize {
        self.id.len() + self.owner.len() + self.data.len()
    }
}

/// Why a store could not do what it was asked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TaskStoreError {
    /// The owner already holds `limit` active tasks.
    #[error("the caller already has {limit} active tasks")]
    OwnerLimit {
        /// The limit.
        limit: usize,
    },
    /// The store holds as much as it may ([`MemoryTaskStore::with_max_bytes`]).
    #[error("the task store is full ({limit} bytes)")]
    Full {
        /// The store's byte budget.
        limit: usize,
    },
    /// The backend failed (Redis unreachable, …).
    #[error("task store error: {0}")]
    Backend(#[source] BoxError),
}

/// Where a server keeps its tasks. Implement it to keep them elsewhere; every replica of
/// a service must share one store for a task to be polled through any of them.
pub trait TaskStore: Send + Sync + 'static {
    /// Stores a new task, unless its owner already holds `max_active` active tasks
    /// ([`TaskStoreError::OwnerLimit`]; expired tasks do not count). Once this returns,
    /// [`load`](Self::load) finds the task on every replica.
    fn create(
        &self,
        task: StoredTask,
        max_active: usize,
    ) -> BoxFuture<'_, Result<(), TaskStoreError>>;

    /// The task `id`, `None` when there is none (never created, or expired).
    fn load<'a>(&'a self, id: &'a str)
    -> BoxFuture<'a, Result<Option<StoredTask>, TaskStoreError>>;

    /// Replaces the task `task.id` with `task` when the stored version is `expected`
    /// (`Ok(false)` otherwise, or when the task is gone). Keeps its expiry.
    fn replace(
        &self,
        task: StoredTask,
        expected: u64,
    ) -> BoxFuture<'_, Result<bool, TaskStoreError>>;
}

/// How a server runs tasks: how long it keeps them, what it suggests to pollers, and the
/// bounds that protect it from a flood. Start from [`default`](Self::default).
///
/// ```
/// use std::time::Duration;
/// use mcp::tasks::TaskConfig;
///
/// let config = TaskConfig::default()
///     .with_ttl(Some(Duration::from_secs(600)))
///     .with_max_active_per_caller(10);
/// assert_eq!(config.ttl(), Some(Duration::from_secs(600)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskConfig {
    pub(crate) ttl: Option<Duration>,
    pub(crate) poll_interval: Duration,
    pub(crate) max_active_per_caller: usize,
    pub(crate) max_active_anonymous: usize,
    pub(crate) max_result_bytes: usize,
    pub(crate) lease: Duration,
    pub(crate) sync_window: Duration,
}

impl Default for TaskConfig {
    fn default() -> Self {
        Self {
            ttl: Some(Duration::from_secs(3600)),
            poll_interval: Duration::from_millis(500),
            max_active_per_caller: 100,
            max_active_anonymous: 1000,
            max_result_bytes: 1 << 20,
            lease: Duration::from_secs(30),
            sync_window: Duration::ZERO,
        }
    }
}

impl TaskConfig {
    /// How long a task is kept from its creation (`ttlMs`; `None`: until the store drops
    /// it). Default one hour.
    #[must_use]
    pub const fn with_ttl(mut self, ttl: Option<Duration>) -> Self {
        self.ttl = ttl;
        self
    }

    /// The polling interval suggested to clients (`pollIntervalMs`). Default 500 ms.
    #[must_use]
    pub const fn with_poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval;
        self
    }

    /// How many unfinished tasks one identified caller may hold. Default 100.
    #[must_use]
    pub const fn with_max_active_per_caller(mut self, tasks: usize) -> Self {
        self.max_active_per_caller = tasks;
        self
    }

    /// How many unfinished tasks callers that cannot be told apart hold together.
    /// Default 1000.
    #[must_use]
    pub const fn with_max_active_anonymous(mut self, tasks: usize) -> Self {
        self.max_active_anonymous = tasks;
        self
    }

    /// The largest result (serialized) a task keeps; a larger one fails the task with
    /// `-32603`. Default 1 MiB.
    #[must_use]
    pub const fn with_max_result_bytes(mut self, bytes: usize) -> Self {
        self.max_result_bytes = bytes;
        self
    }

    /// How long a replica's claim on a running task lasts without renewal (it renews it
    /// every third of this while the task runs). A working task whose claim lapsed — its
    /// replica stopped — is failed (`-32603`, with the reason) when it is next read.
    /// Default 30 s.
    #[must_use]
    pub const fn with_lease(mut self, lease: Duration) -> Self {
        self.lease = lease;
        self
    }

    /// How long a call waits for the tool before it answers with a task. An
    /// `input_required` the tool marks [`before_task`](crate::InputRequired::before_task)
    /// within this window is answered in the request itself (SEP-2322 rounds, before any
    /// task exists); after it, through the task. Default zero: the tool runs until it
    /// first waits.
    #[must_use]
    pub const fn with_sync_window(mut self, window: Duration) -> Self {
        self.sync_window = window;
        self
    }

    /// See [`with_ttl`](Self::with_ttl).
    pub const fn ttl(&self) -> Option<Duration> {
        self.ttl
    }

    /// See [`with_poll_interval`](Self::with_poll_interval).
    pub const fn poll_interval(&self) -> Duration {
        self.poll_interval
    }

    /// See [`with_max_active_per_caller`](Self::with_max_active_per_caller).
    pub const fn max_active_per_caller(&self) -> usize {
        self.max_active_per_caller
    }

    /// See [`with_max_active_anonymous`](Self::with_max_active_anonymous).
    pub const fn max_active_anonymous(&self) -> usize {
        self.max_active_anonymous
    }

    /// See [`with_max_result_bytes`](Self::with_max_result_bytes).
    pub const fn max_result_bytes(&self) -> usize {
        self.max_result_bytes
    }

    /// See [`with_lease`](Self::with_lease).
    pub const fn lease(&self) -> Duration {
        self.lease
    }

    /// See [`with_sync_window`](Self::with_sync_window).
    pub const fn sync_window(&self) -> Duration {
        self.sync_window
    }
}

/// A task id: 128 random bits, hex.
pub(crate) fn new_task_id() -> String {
    let bits: u128 = rand::random();
    format!("{bits:032x}")
}

/// Milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}
