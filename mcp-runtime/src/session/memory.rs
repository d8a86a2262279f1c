//! The in-memory session store: one map of sessions plus, per pool, an index ordered by
//! recency, so eviction takes the least recently used session in O(log n) and expiry walks
//! only the sessions that have expired (never a full scan per request).
//!
//! An idle session costs about 200 bytes: ids are kept as 128-bit numbers (not strings),
//! times as nanoseconds since the store was made, values only once a session has some, and
//! the session information (protocol version and client capabilities, as compact JSON) is
//! shared by every session that declared the same (almost all of them), and freed with the
//! last of them.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use rustc_hash::FxHashMap;

use serde_json::Value;

use super::{Created, Owner, SessionInfo, SessionLimits, SessionStore, StoreError, Update};
use crate::protocol::JsonObject;

/// How many expired sessions one operation removes at most (the sweep is amortized).
const SWEEP_BATCH: usize = 64;

/// A session id: the 128 random bits that [`super::new_session_id`] writes as 32 lowercase
/// hex digits.
type Id = u128;

/// The default session store: sessions in this process's memory.
pub struct MemoryStore {
    inner: Mutex<Inner>,
}

impl Default for MemoryStore {
    fn default() -> Self {
        Self {
            inner: Mutex::new(Inner {
                sessions: FxHashMap::default(),
                by_recency: BTreeMap::new(),
                pools: HashMap::new(),
                profiles: HashSet::new(),
                next_stamp: 0,
                epoch: Instant::now(),
            }),
        }
    }
}

impl std::fmt::Debug for MemoryStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryStore")
            .field("sessions", &self.lock().sessions.len())
            .finish()
    }
}

struct Inner {
    /// Keyed by random ids the store itself draws, so a fast non-keyed hash is safe here: a
    /// client can look ids up but cannot choose the ones inserted.
    sessions: FxHashMap<Id, Entry>,
    /// Recency stamp → id, for all sessions (oldest first): the expiry walk.
    by_recency: BTreeMap<u64, Id>,
    /// Per pool: recency stamp → id (oldest first): eviction.
    pools: HashMap<Owner, BTreeMap<u64, Id>>,
    /// The distinct session information of the live sessions.
    profiles: HashSet<Arc<Profile>>,
    next_stamp: u64,
    /// The origin of [`Entry::last_used`].
    epoch: Instant,
}

/// What `initialize` stored about a session, shared by the sessions that declared the same.
#[derive(PartialEq, Eq, Hash)]
struct Profile {
    protocol_version: Box<str>,
    /// The client capabilities as compact JSON.
    capabilities: Box<str>,
}

struct Entry {
    owner: Owner,
    stamp: u64,
    /// Nanoseconds since [`Inner::epoch`].
    last_used: u64,
    profile: Arc<Profile>,
    values: Option<Box<JsonObject>>,
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

/// The id of a session id string: `None` unless it is 32 lowercase hex digits (so one
/// session has exactly one id string).
fn parse_id(id: &str) -> Option<Id> {
    if id.len() != 32 || !id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return None;
    }
    Id::from_str_radix(id, 16).ok()
}

fn format_id(id: Id) -> String {
    format!("{id:032x}")
}

fn no_session(id: &str) -> StoreError {
    StoreError::new(format!(
        "no session {}",
        crate::redact::Redacted::fingerprint(id)
    ))
}

impl Inner {
    fn stamp(&mut self) -> u64 {
        self.next_stamp += 1;
        self.next_stamp
    }

    fn now(&self, now: Instant) -> u64 {
        u64::try_from(now.saturating_duration_since(self.epoch).as_nanos()).unwrap_or(u64::MAX)
    }

    fn expired(&self, entry: &Entry, limits: &SessionLimits, now: Instant) -> bool {
        let idle = u64::try_from(limits.idle_timeout.as_nanos()).unwrap_or(u64::MAX);
        self.now(now).saturating_sub(entry.last_used) >= idle
    }

    /// The shared profile equal to `profile`.
    fn intern(&mut self, profile: Profile) -> Arc<Profile> {
        if let Some(shared) = self.profiles.get(&profile) {
            return shared.clone();
        }
        let shared = Arc::new(profile);
        self.profiles.insert(shared.clone());
        shared
    }

    fn remove(&mut self, id: Id) -> Option<Entry> {
        let entry = self.sessions.remove(&id)?;
        self.by_recency.remove(&entry.stamp);
        if let Some(pool) = self.pools.get_mut(&entry.owner) {
            pool.remove(&entry.stamp);
            if pool.is_empty() {
                self.pools.remove(&entry.owner);
            }
        }
        // The set and this entry hold the last references: nobody else uses the profile.
        if Arc::strong_count(&entry.profile) == 2 {
            self.profiles.remove(&*entry.profile);
        }
        Some(entry)
    }

    /// Removes up to `SWEEP_BATCH` expired sessions, oldest first.
    fn sweep(&mut self, limits: &SessionLimits, now: Instant) {
        for _ in 0..SWEEP_BATCH {
            let Some((_, &id)) = self.by_recency.first_key_value() else {
                return;
            };
            let expired = self
                .sessions
                .get(&id)
                .is_none_or(|e| self.expired(e, limits, now));
            if !expired {
                return;
            }
            self.remove(id);
        }
    }

    fn touch(&mut self, id: Id, now: Instant) {
        let stamp = self.stamp();
        let now = self.now(now);
        let Some(entry) = self.sessions.get_mut(&id) else {
            return;
        };
        let old = std::mem::replace(&mut entry.stamp, stamp);
        entry.last_used = now;
        self.by_recency.remove(&old);
        self.by_recency.insert(stamp, id);
        if let Some(pool) = self.pools.get_mut(&entry.owner) {
            pool.remove(&old);
            pool.insert(stamp, id);
        }
    }

    fn entry(&mut self, id: &str) -> Result<&mut Entry, StoreError> {
        parse_id(id)
            .and_then(|key| self.sessions.get_mut(&key))
            .ok_or_else(|| no_session(id))
    }

    /// The values of session `id`, or `None` when it has none yet.
    fn values(&mut self, id: &str) -> Result<Option<&mut JsonObject>, StoreError> {
        Ok(self.entry(id)?.values.as_deref_mut())
    }

    /// The values of session `id`, made when it has none yet.
    fn values_mut(&mut self, id: &str) -> Result<&mut JsonObject, StoreError> {
        let values = self.entry(id)?.values.get_or_insert_default();
        Ok(&mut **values)
    }

    /// Drops the values of session `id` when none is left.
    fn shrink(&mut self, id: &str) {
        if let Ok(entry) = self.entry(id)
            && entry.values.as_ref().is_some_and(|v| v.is_empty())
        {
            entry.values = None;
        }
    }
}

/// The keys of a value map, sorted (whatever the `serde_json` map's own order is).
fn sorted_keys(values: &JsonObject) -> Vec<String> {
    let mut keys: Vec<String> = values.keys().cloned().collect();
    keys.sort();
    keys
}

fn ready<T>(value: T) -> std::future::Ready<T> {
    std::future::ready(value)
}

impl SessionStore for MemoryStore {
    fn create(
        &self,
        owner: &Owner,
        info: SessionInfo,
        limits: &SessionLimits,
    ) -> impl Future<Output = Result<Created, StoreError>> + Send {
        let capabilities = match serde_json::to_string(&info.client_capabilities) {
            Ok(c) => c,
            Err(e) => {
                return ready(Err(StoreError::from_source(
                    "cannot encode client capabilities",
                    e,
                )));
            }
        };
        let profile = Profile {
            protocol_version: info.protocol_version.into(),
            capabilities: capabilities.into(),
        };
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
                .map(|(_, &id)| id)
            else {
                break;
            };
            inner.remove(oldest);
            evicted.push(format_id(oldest));
        }
        let id = loop {
            let id: Id = rand::random();
            if !inner.sessions.contains_key(&id) {
                break id;
            }
        };
        let stamp = inner.stamp();
        let profile = inner.intern(profile);
        let last_used = inner.now(now);
        inner.sessions.insert(
            id,
            Entry {
                owner: owner.clone(),
                stamp,
                last_used,
                profile,
                values: None,
            },
        );
        inner.by_recency.insert(stamp, id);
        inner
            .pools
            .entry(owner.clone())
            .or_default()
            .insert(stamp, id);
        ready(Ok(Created {
            id: format_id(id),
            evicted,
        }))
    }

    fn open(
        &self,
        id: &str,
        owner: &Owner,
        limits: &SessionLimits,
    ) -> impl Future<Output = Result<Option<SessionInfo>, StoreError>> + Send {
        let now = Instant::now();
        let mut inner = self.lock();
        inner.sweep(limits, now);
        let Some(key) = parse_id(id) else {
            return ready(Ok(None));
        };
        let Some(entry) = inner.sessions.get(&key) else {
            return ready(Ok(None));
        };
        if &entry.owner != owner {
            return ready(Ok(None));
        }
        if inner.expired(entry, limits, now) {
            inner.remove(key);
            return ready(Ok(None));
        }
        let profile = entry.profile.clone();
        inner.touch(key, now);
        drop(inner);
        let info = serde_json::from_str(&profile.capabilities)
            .map(|client_capabilities| SessionInfo {
                protocol_version: profile.protocol_version.to_string(),
                client_capabilities,
            })
            .map_err(|e| StoreError::from_source("malformed client capabilities", e));
        ready(info.map(Some))
    }

    fn delete(
        &self,
        id: &str,
        owner: &Owner,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send {
        let Some(key) = parse_id(id) else {
            return ready(Ok(false));
        };
        let mut inner = self.lock();
        let owned = inner.sessions.get(&key).is_some_and(|e| &e.owner == owner);
        ready(Ok(owned && inner.remove(key).is_some()))
    }

    fn get(
        &self,
        id: &str,
        key: &str,
    ) -> impl Future<Output = Result<Option<Value>, StoreError>> + Send {
        let mut inner = self.lock();
        ready(
            inner
                .values(id)
                .map(|v| v.and_then(|v| v.get(key).cloned())),
        )
    }

    fn set(
        &self,
        id: &str,
        key: &str,
        value: Value,
    ) -> impl Future<Output = Result<(), StoreError>> + Send {
        let mut inner = self.lock();
        ready(inner.values_mut(id).map(|v| {
            v.insert(key.to_owned(), value);
        }))
    }

    fn remove(
        &self,
        id: &str,
        key: &str,
    ) -> impl Future<Output = Result<Option<Value>, StoreError>> + Send {
        let mut inner = self.lock();
        let removed = inner.values(id).map(|v| v.and_then(|v| v.remove(key)));
        inner.shrink(id);
        ready(removed)
    }

    fn keys(&self, id: &str) -> impl Future<Output = Result<Vec<String>, StoreError>> + Send {
        let mut inner = self.lock();
        ready(
            inner
                .values(id)
                .map(|v| v.map(|v| sorted_keys(v)).unwrap_or_default()),
        )
    }

    fn update(
        &self,
        id: &str,
        key: &str,
        f: &(dyn Fn(Option<Value>) -> Update + Send + Sync),
    ) -> impl Future<Output = Result<Option<Value>, StoreError>> + Send {
        let mut inner = self.lock();
        let result = inner
            .values_mut(id)
            .map(|values| match f(values.get(key).cloned()) {
                Update::Set(next) => {
                    values.insert(key.to_owned(), next.clone());
                    Some(next)
                }
                Update::Remove => {
                    values.remove(key);
                    None
                }
                Update::Keep => values.get(key).cloned(),
            });
        inner.shrink(id);
        ready(result)
    }

    fn len(&self) -> impl Future<Output = Result<usize, StoreError>> + Send {
        ready(Ok(self.lock().sessions.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::contract;
    use serde_json::json;
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
    async fn passes_the_store_contract() {
        contract::evicts_the_least_recently_used_of_the_same_pool(&MemoryStore::new()).await;
        contract::foreign_owners_see_nothing(&MemoryStore::new()).await;
        contract::identities_never_collide(&MemoryStore::new()).await;
        contract::values_get_set_remove_and_keys(&MemoryStore::new()).await;
        contract::update_is_atomic(&[Arc::new(MemoryStore::new())]).await;
        contract::update_keeps_what_it_cannot_change(Arc::new(MemoryStore::new())).await;
        contract::idle_sessions_expire(&MemoryStore::new(), Duration::from_millis(300)).await;
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
    async fn session_information_is_shared_and_freed_with_the_last_session() {
        let store = MemoryStore::new();
        let l = limits(10, 10);
        let caps = |v: Value| SessionInfo {
            protocol_version: "2025-06-18".into(),
            client_capabilities: v,
        };
        let a = store
            .create(
                &Owner::Anonymous,
                caps(json!({"roots": {"listChanged": true}})),
                &l,
            )
            .await
            .unwrap()
            .id;
        let b = store
            .create(
                &Owner::Anonymous,
                caps(json!({"roots": {"listChanged": true}})),
                &l,
            )
            .await
            .unwrap()
            .id;
        let c = store
            .create(&Owner::Anonymous, caps(json!({"sampling": {}})), &l)
            .await
            .unwrap()
            .id;
        assert_eq!(store.lock().profiles.len(), 2);
        assert_eq!(
            store.open(&b, &Owner::Anonymous, &l).await.unwrap(),
            Some(caps(json!({"roots": {"listChanged": true}})))
        );
        assert_eq!(
            store.open(&c, &Owner::Anonymous, &l).await.unwrap(),
            Some(caps(json!({"sampling": {}})))
        );
        store.delete(&a, &Owner::Anonymous).await.unwrap();
        assert_eq!(store.lock().profiles.len(), 2);
        store.delete(&b, &Owner::Anonymous).await.unwrap();
        store.delete(&c, &Owner::Anonymous).await.unwrap();
        assert!(store.lock().profiles.is_empty());
    }

    #[tokio::test]
    async fn ids_are_exact_and_values_live_with_the_session() {
        let store = MemoryStore::new();
        let l = limits(10, 10);
        let id = store
            .create(&Owner::Anonymous, info(), &l)
            .await
            .unwrap()
            .id;
        assert_eq!(id.len(), 32);
        // Only the exact id string names the session.
        for other in [
            id.to_uppercase(),
            format!("+{}", &id[1..]),
            "x".into(),
            String::new(),
        ] {
            assert!(
                store
                    .open(&other, &Owner::Anonymous, &l)
                    .await
                    .unwrap()
                    .is_none()
            );
            assert!(store.get(&other, "k").await.is_err());
            assert!(!store.delete(&other, &Owner::Anonymous).await.unwrap());
        }
        assert_eq!(store.get(&id, "k").await.unwrap(), None);
        assert!(store.keys(&id).await.unwrap().is_empty());
        assert_eq!(store.remove(&id, "k").await.unwrap(), None);
        store.set(&id, "k", json!(1)).await.unwrap();
        store.set(&id, "a", json!(2)).await.unwrap();
        assert_eq!(store.keys(&id).await.unwrap(), vec!["a", "k"]);
        assert_eq!(store.remove(&id, "k").await.unwrap(), Some(json!(1)));
        assert_eq!(
            store.update(&id, "a", &|_| Update::Remove).await.unwrap(),
            None
        );
        assert!(store.keys(&id).await.unwrap().is_empty());
        assert!(store.lock().sessions.values().all(|e| e.values.is_none()));
        store.delete(&id, &Owner::Anonymous).await.unwrap();
        assert!(store.set(&id, "k", json!(1)).await.is_err());
    }
}
