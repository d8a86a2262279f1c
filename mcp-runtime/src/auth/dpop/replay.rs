//! The `jti` replay cache (RFC 9449 §11.1): a proof is accepted once. In memory by default
//! ([`MemoryReplayStore`], bounded), shared by replicas in Redis ([`RedisReplayStore`],
//! feature `redis`), or in a store of your own ([`DpopReplayStore`]).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::base::BoxFuture;
use crate::error::BoxError;

/// Where the server remembers the DPoP proofs it accepted, so that each is accepted once
/// (RFC 9449 §11.1). Implement it to keep them in a store of your own; the server calls it
/// only for proofs that passed every other check, so only holders of a valid DPoP-bound
/// token and its key can add entries.
///
/// ```
/// use std::time::SystemTime;
/// use mcp::BoxFuture;
/// use mcp::auth::DpopReplayStore;
///
/// /// Remembers nothing: accepts every proof (never do this outside a test).
/// struct Forgetful;
///
/// impl DpopReplayStore for Forgetful {
///     fn first_use<'a>(
///         &'a self,
///         _id: &'a str,
///         _until: SystemTime,
///     ) -> BoxFuture<'a, Result<bool, mcp::BoxError>> {
///         Box::pin(async { Ok(true) })
///     }
/// }
/// ```
pub trait DpopReplayStore: Send + Sync + 'static {
    /// Records the proof `id` as used until `until` and answers `Ok(true)`, or answers
    /// `Ok(false)` when `id` is recorded already (the proof is a replay). `Err` when the
    /// store cannot tell: the request is then refused with `503` (fail closed).
    ///
    /// `id` is 43 base64url characters (a SHA-256 of the proof's key and `jti`). A store
    /// that has to forget an entry before its `until` (to stay bounded) must from then on
    /// answer `Ok(false)` for every `id` whose `until` is not later than the forgotten
    /// one's, so that no replay gets through: [`MemoryReplayStore`] does.
    fn first_use<'a>(
        &'a self,
        id: &'a str,
        until: SystemTime,
    ) -> BoxFuture<'a, Result<bool, BoxError>>;
}

/// Seconds since the Unix epoch of `t` (0 before it).
fn unix(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// The default [`DpopReplayStore`]: in this process, bounded. Replicas behind a load
/// balancer need a shared one ([`RedisReplayStore`]), or a proof refused as a replay by one
/// replica is accepted by another.
///
/// It holds at most `capacity` proofs (default 100,000, about 150 bytes each). An entry
/// leaves when its proof is too old to be accepted anyway; when the store is full of live
/// entries it forgets the oldest one and from then on refuses every proof whose lifetime
/// ends no later than the forgotten one's (as a replay: the client retries with a fresh
/// proof). A flood therefore shortens the window in which proofs are accepted; it never
/// lets a replay through.
#[derive(Clone)]
pub struct MemoryReplayStore {
    inner: Arc<Mutex<Memory>>,
}

struct Memory {
    capacity: usize,
    /// Each id and the end of its lifetime (Unix seconds).
    seen: HashMap<Arc<str>, u64>,
    /// The ids in the order they were recorded, with their lifetimes.
    order: VecDeque<(u64, Arc<str>)>,
    /// Proofs whose lifetime ends at or before this are refused: an entry that lived as
    /// long was forgotten early.
    floor: u64,
}

impl std::fmt::Debug for MemoryReplayStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let memory = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        f.debug_struct("MemoryReplayStore")
            .field("capacity", &memory.capacity)
            .field("len", &memory.seen.len())
            .finish()
    }
}

impl Default for MemoryReplayStore {
    fn default() -> Self {
        Self::new(100_000)
    }
}

impl MemoryReplayStore {
    /// A store holding at most `capacity` proofs (at least one).
    pub fn new(capacity: usize) -> Self {
        Self {
            inner: Arc::new(Mutex::new(Memory {
                capacity: capacity.max(1),
                seen: HashMap::new(),
                order: VecDeque::new(),
                floor: 0,
            })),
        }
    }

    /// How many proofs it holds.
    pub fn len(&self) -> usize {
        self.inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .seen
            .len()
    }

    /// Whether it holds no proof.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn record(&self, id: &str, until: u64, now: u64) -> bool {
        let mut m = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let m = &mut *m;
        while let Some((end, _)) = m.order.front()
            && *end < now
        {
            m.forget_front();
        }
        if until <= m.floor || m.seen.get(id).is_some_and(|end| *end >= now) {
            return false;
        }
        while m.order.len() >= m.capacity {
            let oldest = m.order.front().map_or(0, |(end, _)| *end);
            if until <= m.floor.max(oldest) {
                // Forgetting the oldest would refuse this proof anyway.
                return false;
            }
            let end = m.forget_front();
            m.floor = m.floor.max(end);
        }
        let id: Arc<str> = id.into();
        m.seen.insert(id.clone(), until);
        m.order.push_back((until, id));
        true
    }
}

impl Memory {
    /// Removes the oldest entry; returns the end of its lifetime.
    fn forget_front(&mut self) -> u64 {
        let Some((end, id)) = self.order.pop_front() else {
            return 0;
        };
        // The id may have been recorded again since (after it expired): keep the newer.
        if self.seen.get(&id) == Some(&end) {
            self.seen.remove(&id);
        }
        end
    }
}

impl DpopReplayStore for MemoryReplayStore {
    fn first_use<'a>(
        &'a self,
        id: &'a str,
        until: SystemTime,
    ) -> BoxFuture<'a, Result<bool, BoxError>> {
        let fresh = self.record(id, unix(until), unix(SystemTime::now()));
        Box::pin(std::future::ready(Ok(fresh)))
    }
}

#[cfg(feature = "redis")]
pub use redis_store::RedisReplayStore;

#[cfg(feature = "redis")]
mod redis_store {
    use std::time::SystemTime;

    use ::redis::aio::ConnectionManager;

    use super::{DpopReplayStore, unix};
    use crate::base::BoxFuture;
    use crate::error::BoxError;
    use crate::session::RedisStore;

    /// A [`DpopReplayStore`] in Redis (feature `redis`): every replica that uses the same
    /// Redis and key prefix refuses a proof any of them accepted. One round trip per proof,
    /// `SET <prefix>:dpop:<id> 1 NX EX <seconds>`, so entries expire on their own when
    /// their proofs are too old to be accepted anyway.
    ///
    /// Configure Redis so that it does not evict these keys before they expire (a
    /// `maxmemory-policy` of `noeviction` or `volatile-*` with room to spare): an evicted
    /// key is a proof that can be replayed.
    ///
    /// ```no_run
    /// use mcp::auth::{DpopConfig, RedisReplayStore};
    ///
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// let replay = RedisReplayStore::connect("redis://127.0.0.1/").await?;
    /// let dpop = DpopConfig::new().replay_store(replay);
    /// # let _ = dpop;
    /// # Ok(())
    /// # }
    /// ```
    #[derive(Clone)]
    pub struct RedisReplayStore {
        conn: ConnectionManager,
        prefix: String,
    }

    impl std::fmt::Debug for RedisReplayStore {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.debug_struct("RedisReplayStore")
                .field("prefix", &self.prefix)
                .finish_non_exhaustive()
        }
    }

    impl RedisReplayStore {
        /// Connects to the Redis at `url` as [`RedisStore::connect`] does (5 s timeouts, a
        /// lost connection re-established on the next operation), with the key prefix `mcp`.
        ///
        /// # Errors
        ///
        /// When the URL is invalid or Redis cannot be reached (the message never shows a
        /// password).
        pub async fn connect(url: &str) -> Result<Self, crate::session::StoreError> {
            Ok(Self::sharing(&RedisStore::connect(url).await?))
        }

        /// A store on the connection and key prefix of a session store.
        pub fn sharing(sessions: &RedisStore) -> Self {
            Self::from_manager(sessions.connection()).with_prefix(sessions.prefix())
        }

        /// A store over a connection you configured yourself, with the key prefix `mcp`.
        pub fn from_manager(conn: ConnectionManager) -> Self {
            Self {
                conn,
                prefix: "mcp".into(),
            }
        }

        /// Uses `prefix` for every key (default `mcp`). Replicas that share the cache must
        /// use the same prefix.
        #[must_use]
        pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
            self.prefix = prefix.into();
            self
        }
    }

    impl DpopReplayStore for RedisReplayStore {
        fn first_use<'a>(
            &'a self,
            id: &'a str,
            until: SystemTime,
        ) -> BoxFuture<'a, Result<bool, BoxError>> {
            Box::pin(async move {
                let seconds = unix(until).saturating_sub(unix(SystemTime::now())).max(1);
                let mut conn = self.conn.clone();
                let set: Option<String> = ::redis::cmd("SET")
                    .arg(format!("{}:dpop:{id}", self.prefix))
                    .arg(1)
                    .arg("NX")
                    .arg("EX")
                    .arg(seconds)
                    .query_async(&mut conn)
                    .await?;
                Ok(set.is_some())
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_id_is_accepted_once_while_it_lives() {
        let store = MemoryReplayStore::new(10);
        assert!(store.record("a", 160, 100));
        assert!(!store.record("a", 160, 100), "a replay");
        assert!(!store.record("a", 170, 150), "a replay, later");
        assert!(store.record("b", 160, 100));
        assert_eq!(store.len(), 2);
        // Expired entries leave; an expired id may come back (its proof is refused by its
        // age before it gets here).
        assert!(store.record("c", 300, 200));
        assert_eq!(store.len(), 1);
        assert!(store.record("a", 300, 200));
        assert!(!store.record("a", 300, 200));
    }

    #[test]
    fn a_full_store_shortens_the_window_instead_of_forgetting_replays() {
        let store = MemoryReplayStore::new(3);
        for (id, until) in [("a", 150), ("b", 160), ("c", 170)] {
            assert!(store.record(id, until, 100));
        }
        // Full: `a` (lives to 150) is forgotten, so nothing living to 150 or less passes.
        assert!(store.record("d", 180, 100));
        assert_eq!(store.len(), 3);
        assert!(!store.record("a", 150, 100), "the forgotten replay");
        assert!(!store.record("e", 140, 100), "as old: refused");
        assert!(!store.record("b", 160, 100), "still remembered");
        // Forgetting `b` (160) would refuse `f` (160): refused, `b` kept. `g` lives longer:
        // `b` is forgotten for it, and still refused afterwards.
        assert!(!store.record("f", 160, 100));
        assert!(store.record("g", 190, 100));
        assert!(!store.record("b", 160, 100));
        assert_eq!(store.len(), 3);
    }

    #[test]
    fn re_recorded_ids_survive_their_old_entry() {
        let store = MemoryReplayStore::new(10);
        assert!(store.record("a", 110, 100));
        // `a` expired, recorded again (a new lifetime), then its old entry leaves first.
        assert!(store.record("a", 200, 120));
        assert!(!store.record("a", 200, 130));
    }
}
