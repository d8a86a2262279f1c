//! [`MemoryTaskStore`]: tasks in this process, bounded in bytes.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use super::{StoredTask, TaskStore, TaskStoreError, now_ms};
use crate::base::BoxFuture;

/// Tasks in this process (the default): lost when it stops, and not shared with other
/// replicas (use [`RedisTaskStore`](super::RedisTaskStore) for that). Bounded: at most
/// [`with_max_bytes`](Self::with_max_bytes) bytes of task records (default 256 MiB); a
/// creation past it is refused, never an unexpired task evicted. Expired tasks are dropped
/// as new ones are created.
///
/// ```
/// let store = mcp::tasks::MemoryTaskStore::new().with_max_bytes(64 << 20);
/// assert_eq!(store.max_bytes(), 64 << 20);
/// ```
#[derive(Clone, Debug)]
pub struct MemoryTaskStore {
    inner: Arc<Mutex<Inner>>,
    max_bytes: usize,
}

#[derive(Debug, Default)]
struct Inner {
    tasks: HashMap<String, StoredTask>,
    /// `(expires_at_ms, id)` of the tasks that expire.
    expiry: BTreeSet<(u64, String)>,
    /// Active tasks per owner.
    active: HashMap<String, usize>,
    bytes: usize,
}

impl Default for MemoryTaskStore {
    fn default() -> Self {
        Self::new()
    }
}

impl MemoryTaskStore {
    /// An empty store of at most 256 MiB.
    pub fn new() -> Self {
        Self {
            inner: Arc::default(),
            max_bytes: 256 << 20,
        }
    }

    /// Bounds the bytes of the records kept.
    #[must_use]
    pub fn with_max_bytes(mut self, bytes: usize) -> Self {
        self.max_bytes = bytes;
        self
    }

    /// The byte bound.
    pub fn max_bytes(&self) -> usize {
        self.max_bytes
    }

    /// The tasks kept (expired ones not yet dropped included).
    pub fn len(&self) -> usize {
        self.lock().tasks.len()
    }

    /// `true` when no task is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes of the records kept.
    pub fn bytes(&self) -> usize {
        self.lock().bytes
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Inner {
    fn remove(&mut self, id: &str) {
        if let Some(task) = self.tasks.remove(id) {
            self.bytes -= task.size();
            if let Some(at) = task.expires_at_ms {
                self.expiry.remove(&(at, task.id.clone()));
            }
            if task.active {
                self.release(&task.owner);
            }
        }
    }

    fn release(&mut self, owner: &str) {
        if let Some(n) = self.active.get_mut(owner) {
            *n -= 1;
            if *n == 0 {
                self.active.remove(owner);
            }
        }
    }

    fn sweep(&mut self, now: u64) {
        while let Some((at, id)) = self.expiry.first().cloned() {
            if at > now {
                break;
            }
            self.remove(&id);
        }
    }
}

impl TaskStore for MemoryTaskStore {
    fn create(
        &self,
        task: StoredTask,
        max_active: usize,
    ) -> BoxFuture<'_, Result<(), TaskStoreError>> {
        let result = (|| {
            let mut inner = self.lock();
            inner.sweep(now_ms());
            let active = inner.active.get(&task.owner).copied().unwrap_or(0);
            if task.active && active >= max_active {
                return Err(TaskStoreError::OwnerLimit { limit: max_active });
            }
            if inner.bytes + task.size() > self.max_bytes {
                return Err(TaskStoreError::Full {
                    limit: self.max_bytes,
                });
            }
            inner.remove(&task.id);
            inner.bytes += task.size();
            if let Some(at) = task.expires_at_ms {
                inner.expiry.insert((at, task.id.clone()));
            }
            if task.active {
                *inner.active.entry(task.owner.clone()).or_default() += 1;
            }
            inner.tasks.insert(task.id.clone(), task);
            Ok(())
        })();
        Box::pin(std::future::ready(result))
    }

    fn load<'a>(
        &'a self,
        id: &'a str,
    ) -> BoxFuture<'a, Result<Option<StoredTask>, TaskStoreError>> {
        let mut inner = self.lock();
        let now = now_ms();
        let expired = inner
            .tasks
            .get(id)
            .is_some_and(|t| t.expires_at_ms.is_some_and(|at| at <= now));
        if expired {
            inner.remove(id);
        }
        let task = inner.tasks.get(id).cloned();
        Box::pin(std::future::ready(Ok(task)))
    }

    fn replace(
        &self,
        mut task: StoredTask,
        expected: u64,
    ) -> BoxFuture<'_, Result<bool, TaskStoreError>> {
        let result = (|| {
            let mut inner = self.lock();
            let Some(old) = inner.tasks.get(&task.id) else {
                return Ok(false);
            };
            if old.version != expected {
                return Ok(false);
            }
            let grown = task.size().saturating_sub(old.size());
            if grown > 0 && inner.bytes + grown > self.max_bytes {
                return Err(TaskStoreError::Full {
                    limit: self.max_bytes,
                });
            }
            let (was_active, old_size, expires, owner) =
                (old.active, old.size(), old.expires_at_ms, old.owner.clone());
            task.expires_at_ms = expires;
            task.owner = owner;
            inner.bytes = inner.bytes - old_size + task.size();
            if was_active && !task.active {
                inner.release(&task.owner);
            }
            task.active &= was_active;
            inner.tasks.insert(task.id.clone(), task);
            Ok(true)
        })();
        Box::pin(std::future::ready(result))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(id: &str, owner: &str, expires: Option<u64>) -> StoredTask {
        StoredTask::new(id, owner, 1, true, expires, "{}")
    }

    #[tokio::test]
    async fn keeps_the_task_store_contract() {
        crate::tasks::contract::check(std::sync::Arc::new(MemoryTaskStore::new()), "memory").await;
    }

    #[tokio::test]
    async fn limits_owners_and_bytes_and_forgets_expired_tasks() {
        let store = MemoryTaskStore::new().with_max_bytes(200);
        store.create(task("a", "alice", None), 2).await.unwrap();
        store.create(task("b", "alice", None), 2).await.unwrap();
        assert!(matches!(
            store.create(task("c", "alice", None), 2).await,
            Err(TaskStoreError::OwnerLimit { limit: 2 })
        ));
        // A finished task no longer counts.
        let mut done = store.load("a").await.unwrap().unwrap();
        done.active = false;
        done.version = 2;
        assert!(!store.replace(done.clone(), 7).await.unwrap());
        assert!(store.replace(done, 1).await.unwrap());
        store.create(task("c", "alice", None), 2).await.unwrap();
        // Bytes.
        let big = StoredTask::new("d", "bob", 1, true, None, "x".repeat(200));
        assert!(matches!(
            store.create(big, 10).await,
            Err(TaskStoreError::Full { limit: 200 })
        ));
        // Expiry.
        store.create(task("e", "bob", Some(1)), 10).await.unwrap();
        assert!(store.load("e").await.unwrap().is_none());
        assert_eq!(store.len(), 3);
        assert_eq!(store.bytes(), 3 * (1 + 5 + 2));
    }
}
