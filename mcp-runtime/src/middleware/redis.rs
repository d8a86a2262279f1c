//! A [`RateStore`] in Redis ([`RedisRateStore`], feature `redis`): GCRA decided in one Lua
//! script on Redis's clock, so replicas share one budget per key.

use ::redis::Script;
use ::redis::aio::ConnectionManager;

use super::{Quota, RateStore};
use crate::base::BoxFuture;
use crate::error::BoxError;
use crate::session::RedisStore;

/// GCRA on the Redis clock, in microseconds. `KEYS[1]` holds the theoretical arrival time
/// of the next request; `ARGV[1]` is the interval between requests, `ARGV[2]` the burst
/// tolerance (`interval × (burst − 1)`). Answers -1 when the request is allowed (and moves
/// the arrival time one interval on), else the microseconds to wait.
const GCRA: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local tolerance = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]))
if not tat or tat < now then tat = now end
local allow_at = tat - tolerance
if now < allow_at then return allow_at - now end
local next_tat = tat + interval
redis.call('SET', KEYS[1], string.format('%d', next_tat), 'PX', math.ceil((next_tat - now) / 1000) + 1)
return -1
";

/// A [`RateStore`] in Redis (feature `redis`): every replica that uses the same Redis and key
/// prefix charges the same budget, decided in one round trip (a Lua script, GCRA on Redis's
/// clock, so replicas' clocks need not agree). A key lives as long as its budget takes to
/// come back, then expires.
///
/// Keys: `<prefix>:rl:<layer name>:<caller>`, `<prefix>:rl:<layer name>:all` for a
/// [`total`](super::RateLimitLayer::total) limit (the prefix is `mcp` unless set). Times
/// are counted in whole microseconds: a quota's interval (`period / count`) is rounded down
/// to one, and at least one (a quota of more than a million a second is a million a second).
///
/// ```no_run
/// use mcp::middleware::{Quota, RateLimitLayer, RedisRateStore};
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let store = RedisRateStore::connect("redis://127.0.0.1/").await?;
/// let limit = RateLimitLayer::per_caller(Quota::per_minute(100)).shared(store);
/// # let _ = limit;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct RedisRateStore {
    conn: ConnectionManager,
    prefix: String,
    script: Script,
}

impl std::fmt::Debug for RedisRateStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisRateStore")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

impl RedisRateStore {
    /// Connects to the Redis at `url` as [`RedisStore::connect`] does (5 s timeouts, a lost
    /// connection re-established on the next operation), with the key prefix `mcp`.
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
            script: Script::new(GCRA),
        }
    }

    /// Uses `prefix` for every key (default `mcp`).
    #[must_use]
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }
}

impl RateStore for RedisRateStore {
    fn acquire<'a>(
        &'a self,
        key: &'a str,
        quota: Quota,
    ) -> BoxFuture<'a, Result<Option<std::time::Duration>, BoxError>> {
        Box::pin(async move {
            let interval = u64::try_from(quota.interval().as_micros())
                .unwrap_or(u64::MAX)
                .max(1);
            let tolerance = interval.saturating_mul(u64::from(quota.count() - 1));
            let mut conn = self.conn.clone();
            let wait: i64 = self
                .script
                .key(format!("{}:rl:{key}", self.prefix))
                .arg(interval)
                .arg(tolerance)
                .invoke_async(&mut conn)
                .await?;
            Ok(u64::try_from(wait)
                .ok()
                .map(std::time::Duration::from_micros))
        })
    }
}
