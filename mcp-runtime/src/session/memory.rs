//! The in-memory session store: one map of sessions plus, per pool, an index ordered by
//! recency, so eviction takes the least recently used session in O(log n) and expiry walks
//! only the sessions that have expired (never a full scan per request).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use serde_json::Value;

use super::{Created, Owner, SessionInfo, SessionLimits, SessionStore, StoreError, new_session_id};
use crate::dispatch::BoxFuture;
use crate::protocol::JsonObject;

/// How many expired sessions one operation removes at most (the sweep is amortized).
const SWEEP_BATCH: usize = 64;

/// The default session store: sessions in this process's memory.
#[derive(Default)]
pub struct MemoryStore {
    inner: Mutex<Inner>,
}

impl std::fmt::Debug for MemoryStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryStore")
            .field("sessions", &self.lock().sessions.len())
            .finish()
    }
}

#[derive(Default)]
struct Inner {
    sessions: HashMap<Arc<str>, Entry>,
    /// Recency stamp → id, for all sessions (oldest first): the expiry walk.
    by_recency: BTreeMap<u64, Arc<str>>,
    /// Per pool: recency stamp → id (oldest first): eviction.
    pools: HashMap<Owner, BTreeMap<u64, Arc<str>>>,
    next_stamp: u64,
}

struct Entry {
    owner: Owner,
    stamp: u64,
    last_used: Instant,
    info: Box<SessionInfo>,
    values: JsonObject,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Inner {
    fn stamp(&mut self) -> u64 {
        self.next_stamp += 1;
        self.next_stamp
    }

    fn remove(&mut self, id: &str) -> Option<Entry> {
        let entry = self.sessions.remove(id)?;
        self.by_recency.remove(&entry.stamp);
        if let Some(pool) = self.pools.get_mut(&entry.owner) {
            pool.remove(&entry.stamp);
            if pool.is_empty() {
                self.pools.remove(&entry.owner);
            }
        }
        Some(entry)
    }

    /// Removes up to `SWEEP_BATCH` expired sessions, oldest first.
    fn sweep(&mut self, limits: &SessionLimits, now: Instant) {
        for _ in 0..SWEEP_BATCH {
            let Some((_, id)) = self.by_recency.first_key_value() else {
                return;
            };
            let id = id.clone();
            let expired = self
                .sessions
                .get(&id)
                .is_none_or(|e| now.duration_since(e.last_used) >= limits.idle_timeout);
            if !expired {
                return;
            }
            self.remove(&id);
        }
    }

    fn touch(&mut self, id: &Arc<str>, now: Instant) {
        let stamp = self.stamp();
        let Some(entry) = self.sessions.get_mut(id) else {
            return;
        };
        let old = std::mem::replace(&mut entry.stamp, stamp);
        entry.last_used = now;
        let owner = entry.owner.clone();
        self.by_recency.remove(&old);
        self.by_recency.insert(stamp, id.clone());
        if let Some(pool) = self.pools.get_mut(&owner) {
            pool.remove(&old);
            pool.insert(stamp, id.clone());
        }
    }

    fn values(&mut self, id: &str) -> Result<&mut JsonObject, StoreError> {
        self.sessions
            .get_mut(id)
            .map(|e| &mut e.values)
            .ok_or_else(|| StoreError(format!("no session {id}")))
    }
}

fn ready<'a, T: Send + 'a>(value: T) -> BoxFuture<'a, T> {
    Box::pin(std::future::ready(value))
}

impl SessionStore for MemoryStore {
    fn create<'a>(
        &'a self,
        owner: &'a Owner,
        info: SessionInfo,
        limits: &'a SessionLimits,
    ) -> BoxFuture<'a, Result<Created, StoreError>> {
        let now = Instant::now();
        let mut inner = self.lock();
        inner.sweep(limits, now);
        let limit = limits.limit_of(owner).max(1);
        let mut evicted = Vec::new();
        while inner.pools.get(owner).is_some_and(|p| p.len() >= limit) {
            let Some(oldest) = inner
                .pools
                .get(owner)
                .and_then(|p| p.first_key_value())
                .map(|(_, id)| id.clone())
            else {
                break;
            };
            inner.remove(&oldest);
            evicted.push(oldest.to_string());
        }
        let id: Arc<str> = new_session_id().into();
        let stamp = inner.stamp();
        inner.sessions.insert(
            id.clone(),
            Entry {
                owner: owner.clone(),
                stamp,
                last_used: now,
                info: Box::new(info),
                values: JsonObject::new(),
            },
        );
        inner.by_recency.insert(stamp, id.clone());
        inner
            .pools
            .entry(owner.clone())
            .or_default()
            .insert(stamp, id.clone());
        ready(Ok(Created {
            id: id.to_string(),
            evicted,
        }))
    }

    fn open<'a>(
        &'a self,
        id: &'a str,
        owner: &'a Owner,
        limits: &'a SessionLimits,
    ) -> BoxFuture<'a, Result<Option<SessionInfo>, StoreError>> {
        let now = Instant::now();
        let mut inner = self.lock();
        inner.sweep(limits, now);
        let Some((key, entry)) = inner.sessions.get_key_value(id) else {
            return ready(Ok(None));
        };
        if &entry.owner != owner {
            return ready(Ok(None));
        }
        if now.duration_since(entry.last_used) >= limits.idle_timeout {
            inner.remove(id);
            return ready(Ok(None));
        }
        let key = key.clone();
        let info = (*entry.info).clone();
        inner.touch(&key, now);
        ready(Ok(Some(info)))
    }

    fn delete<'a>(
        &'a self,
        id: &'a str,
        owner: &'a Owner,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        let mut inner = self.lock();
        let owned = inner.sessions.get(id).is_some_and(|e| &e.owner == owner);
        ready(Ok(owned && inner.remove(id).is_some()))
    }

    fn get<'a>(
        &'a self,
        id: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Option<Value>, StoreError>> {
        let mut inner = self.lock();
        ready(inner.values(id).map(|v| v.get(key).cloned()))
    }

    fn set<'a>(
        &'a self,
        id: &'a str,
        key: &'a str,
        value: Value,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        let mut inner = self.lock();
        ready(inner.values(id).map(|v| {
            v.insert(key.to_owned(), value);
        }))
    }

    fn remove<'a>(
        &'a self,
        id: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Option<Value>, StoreError>> {
        let mut inner = self.lock();
        ready(inner.values(id).map(|v| v.remove(key)))
    }

    fn keys<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Vec<String>, StoreError>> {
        let mut inner = self.lock();
        ready(inner.values(id).map(|v| v.keys().cloned().collect()))
    }

    fn update<'a>(
        &'a self,
        id: &'a str,
        key: &'a str,
        f: &'a (dyn Fn(Option<Value>) -> Option<Value> + Send + Sync),
    ) -> BoxFuture<'a, Result<Option<Value>, StoreError>> {
        let mut inner = self.lock();
        let result = inner.values(id).map(|values| {
            let next = f(values.remove(key));
            if let Some(v) = &next {
                values.insert(key.to_owned(), v.clone());
            }
            next
        });
        ready(result)
    }

    fn len(&self) -> BoxFuture<'_, Result<usize, StoreError>> {
        ready(Ok(self.lock().sessions.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn info() -> SessionInfo {
        SessionInfo {
            protocol_version: "2025-11-25".into(),
            client_capabilities: Value::Null,
        }
    }

    fn limits(per_owner: usize, anonymous: usize) -> SessionLimits {
        SessionLimits {
            idle_timeout: Duration::from_secs(60),
            max_per_owner: per_owner,
            max_anonymous: anonymous,
        }
    }

    #[tokio::test]
    async fn evicts_the_least_recently_used_of_the_same_pool() {
        let store = MemoryStore::new();
        let l = limits(2, 3);
        let alice = Owner::Caller("alice".into());
        let a1 = store.create(&alice, info(), &l).await.unwrap().id;
        let a2 = store.create(&alice, info(), &l).await.unwrap().id;
        // Touch a1 so a2 is the least recently used.
        assert!(store.open(&a1, &alice, &l).await.unwrap().is_some());
        // A flood of anonymous sessions never evicts alice's.
        let mut anon = Vec::new();
        for _ in 0..10 {
            anon.push(store.create(&Owner::Anonymous, info(), &l).await.unwrap());
        }
        assert!(store.open(&a1, &alice, &l).await.unwrap().is_some());
        assert!(store.open(&a2, &alice, &l).await.unwrap().is_some());
        assert_eq!(anon[3].evicted, vec![anon[0].id.clone()]);
        // Touch a1 again, then a third alice session evicts a2 (least recently used).
        store.open(&a1, &alice, &l).await.unwrap();
        let a3 = store.create(&alice, info(), &l).await.unwrap();
        assert_eq!(a3.evicted, vec![a2.clone()]);
        assert!(store.open(&a2, &alice, &l).await.unwrap().is_none());
        assert_eq!(store.len().await.unwrap(), 2 + 3);
    }

    #[tokio::test]
    async fn foreign_owners_see_nothing() {
        let store = MemoryStore::new();
        let l = limits(5, 5);
        let alice = Owner::Caller("alice".into());
        let bob = Owner::Caller("bob".into());
        let a = store.create(&alice, info(), &l).await.unwrap().id;
        assert!(store.open(&a, &bob, &l).await.unwrap().is_none());
        assert!(
            store
                .open(&a, &Owner::Anonymous, &l)
                .await
                .unwrap()
                .is_none()
        );
        assert!(!store.delete(&a, &bob).await.unwrap());
        assert!(store.open(&a, &alice, &l).await.unwrap().is_some());
        assert!(store.delete(&a, &alice).await.unwrap());
        assert!(store.open(&a, &alice, &l).await.unwrap().is_none());
    }

    #[tokio::test]
    async fn idle_sessions_expire_and_are_swept() {
        let store = MemoryStore::new();
        let l = SessionLimits {
            idle_timeout: Duration::from_millis(30),
            ..limits(10, 10)
        };
        let id = store
            .create(&Owner::Anonymous, info(), &l)
            .await
            .unwrap()
            .id;
        for _ in 0..50 {
            store
                .create(
                    &Owner::Anonymous,
                    info(),
                    &SessionLimits {
                        max_anonymous: 1000,
                        ..l
                    },
                )
                .await
                .unwrap();
        }
        tokio::time::sleep(Duration::from_millis(40)).await;
        assert!(
            store
                .open(&id, &Owner::Anonymous, &l)
                .await
                .unwrap()
                .is_none()
        );
        // The sweep on open removed the expired ones (up to a batch each operation).
        let _ = store.open("x", &Owner::Anonymous, &l).await.unwrap();
        assert_eq!(store.len().await.unwrap(), 0);
    }

    #[tokio::test]
    async fn update_is_atomic_under_concurrency() {
        let store = Arc::new(MemoryStore::new());
        let l = limits(10, 10);
        let id = store
            .create(&Owner::Anonymous, info(), &l)
            .await
            .unwrap()
            .id;
        let mut tasks = Vec::new();
        for _ in 0..8 {
            let (store, id) = (store.clone(), id.clone());
            tasks.push(tokio::spawn(async move {
                for _ in 0..250 {
                    let inc = |v: Option<Value>| {
                        Some(Value::from(v.and_then(|v| v.as_i64()).unwrap_or(0) + 1))
                    };
                    store.update(&id, "n", &inc).await.unwrap();
                }
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
        assert_eq!(store.get(&id, "n").await.unwrap(), Some(Value::from(2000)));
    }
}
