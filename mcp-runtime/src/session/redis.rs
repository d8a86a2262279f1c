//! [`RedisStore`]: legacy sessions in Redis, shared by every server that points at the same
//! Redis and key prefix. Limits, eviction and expiry are decided inside Redis (Lua scripts
//! run atomically, on Redis's clock), so they hold across processes. [`RedisStore`]
//! documents the key layout.

use std::sync::Arc;
use std::time::Duration;

use ::redis::Script;
use ::redis::aio::{ConnectionManager, ConnectionManagerConfig};
use serde_json::Value;

use super::{
    Created, Owner, SessionInfo, SessionLimits, SessionStore, StoreError, Update, new_session_id,
};
use crate::error::BoxError;

/// The default key prefix.
const DEFAULT_PREFIX: &str = "mcp";

/// The hash field prefix of session values.
const VALUE_FIELD: &str = "k:";

/// How often `update` retries when another writer changed the value in between.
const UPDATE_ATTEMPTS: usize = 10_000;

/// How often `create` draws a new id when the drawn one exists (practically never).
const CREATE_ATTEMPTS: usize = 3;

/// Shared Lua: the Redis clock in microseconds, and numbers formatted as integers.
const PRELUDE: &str = r"
local function now_us()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local function int(x)
  return string.format('%.0f', x)
end
-- Sets key's TTL to ms unless it already lives longer (or forever).
local function extend(key, ms)
  local ttl = redis.call('PTTL', key)
  if ttl >= 0 and ttl < ms then
    redis.call('PEXPIRE', key, ms)
  elseif ttl == -1 then
    redis.call('PEXPIRE', key, ms)
  end
end
-- A pool score newer than every member: now, or one more than the newest member.
local function next_score(pool, now)
  local top = redis.call('ZRANGE', pool, -1, -1, 'WITHSCORES')
  if top[2] and tonumber(top[2]) >= now then
    return tonumber(top[2]) + 1
  end
  return now
end
";

/// KEYS: session hash, pool, live index.
/// ARGV: id, owner key, protocol version, capabilities JSON, idle ms, pool limit,
/// session key prefix.
/// Returns the evicted ids, or nil when the id is taken.
const CREATE: &str = r"
if redis.call('EXISTS', KEYS[1]) == 1 then
  return false
end
local now = now_us()
local idle_ms = tonumber(ARGV[5])
local idle = idle_ms * 1000
local limit = tonumber(ARGV[6])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', int(now))
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', int(now - idle))
local evicted = {}
while redis.call('ZCARD', KEYS[2]) >= limit do
  local oldest = redis.call('ZPOPMIN', KEYS[2])
  if #oldest == 0 then
    break
  end
  redis.call('ZREM', KEYS[3], oldest[1])
  if redis.call('DEL', ARGV[7] .. oldest[1]) == 1 then
    table.insert(evicted, oldest[1])
  end
end
local score = next_score(KEYS[2], now)
redis.call('HSET', KEYS[1], 'o', ARGV[2], 'v', ARGV[3], 'c', ARGV[4], 't', int(now))
redis.call('PEXPIRE', KEYS[1], idle_ms)
redis.call('ZADD', KEYS[2], int(score), ARGV[1])
extend(KEYS[2], idle_ms)
redis.call('ZADD', KEYS[3], int(now + idle), ARGV[1])
extend(KEYS[3], idle_ms)
return evicted
";

/// KEYS: session hash, pool of the requesting owner, live index.
/// ARGV: id, owner key, idle ms.
/// Returns {version, capabilities}, or nil (unknown, foreign or expired).
const OPEN: &str = r"
local f = redis.call('HMGET', KEYS[1], 'o', 'v', 'c', 't')
if not f[1] or f[1] ~= ARGV[2] then
  return false
end
local now = now_us()
local idle_ms = tonumber(ARGV[3])
local idle = idle_ms * 1000
if now - tonumber(f[4] or '0') >= idle then
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
  redis.call('ZREM', KEYS[3], ARGV[1])
  return false
end
local score = next_score(KEYS[2], now)
redis.call('HSET', KEYS[1], 't', int(now))
redis.call('PEXPIRE', KEYS[1], idle_ms)
redis.call('ZADD', KEYS[2], int(score), ARGV[1])
extend(KEYS[2], idle_ms)
redis.call('ZADD', KEYS[3], int(now + idle), ARGV[1])
extend(KEYS[3], idle_ms)
return {f[2], f[3]}
";

/// KEYS: session hash, pool of the requesting owner, live index. ARGV: id, owner key.
/// Returns 1 when deleted, 0 when unknown or foreign.
const DELETE: &str = r"
if redis.call('HGET', KEYS[1], 'o') ~= ARGV[2] then
  return 0
end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
return 1
";

/// KEYS: session hash. ARGV: field, value. Returns 0 when there is no session.
const SET: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
";

/// KEYS: session hash. ARGV: field. Returns nil when there is no session, else {value}
/// (value nil when absent).
const REMOVE: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 then
  return false
end
local v = redis.call('HGET', KEYS[1], ARGV[1])
if v then
  redis.call('HDEL', KEYS[1], ARGV[1])
end
return {v}
";

/// Compare-and-set of one value. KEYS: session hash. ARGV: field, expected present ('1' or
/// '0'), expected value, new present ('1' or '0'), new value.
/// Returns -1 when there is no session, 0 when the value changed meanwhile, 1 when written.
const SWAP: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 then
  return -1
end
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if ARGV[2] == '1' then
  if cur ~= ARGV[3] then
    return 0
  end
elseif cur then
  return 0
end
if ARGV[4] == '1' then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[5])
else
  redis.call('HDEL', KEYS[1], ARGV[1])
end
return 1
";

/// KEYS: live index. Returns the number of sessions not yet expired.
const LEN: &str = r"
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', int(now_us()))
return redis.call('ZCARD', KEYS[1])
";

struct Scripts {
    create: Script,
    open: Script,
    delete: Script,
    set: Script,
    remove: Script,
    swap: Script,
    len: Script,
}

impl Scripts {
    fn new() -> Self {
        let script = |body: &str| Script::new(&format!("{PRELUDE}{body}"));
        Self {
            create: script(CREATE),
            open: script(OPEN),
            delete: script(DELETE),
            set: script(SET),
            remove: script(REMOVE),
            swap: script(SWAP),
            len: script(LEN),
        }
    }
}

/// A [`SessionStore`] in Redis (cargo feature `redis`): servers that share one Redis and
/// key prefix serve each other's sessions, and the session limits, least-recently-used
/// eviction and idle expiry hold across all of them (they are decided in Redis, on its
/// clock).
///
/// Each session is one hash whose TTL is the idle timeout, renewed whenever a request opens
/// the session; per pool (each identified caller, and all anonymous callers together) a
/// sorted set orders the sessions by last use for eviction. [`update`](SessionStore::update)
/// is an optimistic compare-and-set that retries, so its closure may run more than once.
///
/// Errors become [`StoreError`]s without credentials; the transport answers them with 503.
///
/// ```no_run
/// use std::sync::Arc;
///
/// use mcp::session::RedisStore;
///
/// # async fn run(service: impl mcp::IntoService) -> Result<(), Box<dyn std::error::Error>> {
/// let url = std::env::var("MCP_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
/// let store = RedisStore::connect(&url).await?.with_prefix("shop");
/// let server = mcp::Server::builder(service)
///     .session_store(Arc::new(store))
///     .build()?;
/// mcp::HttpServer::bind("127.0.0.1:8080")
///     .await?
///     .serve(mcp::transport::http::router("/mcp", server).into_make_service())
///     .with_graceful_shutdown(mcp::transport::shutdown_signal())
///     .await?;
/// # Ok(())
/// # }
/// ```
///
/// # Key layout
///
/// With prefix `P` (default `mcp`):
///
/// | key | type | content | TTL |
/// | --- | --- | --- | --- |
/// | `P:s:{id}` | hash | `o` owner key, `v` protocol version, `c` client capabilities (JSON), `t` last use (µs, Redis clock), `k:{key}` each value (JSON) | idle timeout, renewed on open |
/// | `P:pool:a`, `P:pool:c:{owner}` | sorted set | the session ids of the anonymous pool or of one caller, scored by last use (µs) | the longest idle timeout of its members |
/// | `P:live` | sorted set | every session id, scored by its expiry deadline (µs), for [`SessionStore::len`] | as above |
///
/// `{owner}` is the caller's [`Owner::key`], a JSON array (`["token","<issuer>","<client>",
/// "<subject>"]` or `["basic","<user>"]`). Earlier versions joined the parts with `\x1f`;
/// sessions stored under such keys are not found for any caller (their clients get `404`
/// and initialize again), anonymous ones (owner key empty) keep working, and the old pools
/// expire on their own.
///
/// Pool scores strictly increase within a pool (a use in the same microsecond as the newest
/// member scores one more), so the least recently used session is always the lowest score.
/// Members whose session expired leave their pool when a `create` of that pool drops the
/// scores older than the idle timeout, and evicting skips members whose hash is gone, so an
/// expired session never counts against a limit nor shows up as evicted.
///
/// The scripts compute the keys of evicted sessions themselves, so the store needs one Redis
/// server (replicas are fine), not Redis Cluster; Redis 5 or later (`ZPOPMIN`), or Valkey.
#[derive(Clone)]
pub struct RedisStore {
    conn: ConnectionManager,
    prefix: Arc<str>,
    scripts: Arc<Scripts>,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

impl RedisStore {
    /// Connects to the Redis at `url` (`redis://[user:password@]host[:port][/db]`, or
    /// `rediss://` when the `redis` crate is built with TLS), with the key prefix `mcp`.
    /// Connection and response timeouts are 5 s; a lost connection is re-established on
    /// the next operation.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        let shown = redact(url);
        let client = ::redis::Client::open(url).map_err(|e| {
            StoreError::from_source(format!("invalid Redis URL {shown}"), scrub(e, url))
        })?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(Duration::from_secs(5)))
            .set_response_timeout(Some(Duration::from_secs(5)))
            .set_number_of_retries(3);
        let conn = ConnectionManager::new_with_config(client, config)
            .await
            .map_err(|e| {
                StoreError::from_source(
                    format!("cannot connect to Redis at {shown}"),
                    scrub(e, url),
                )
            })?;
        Ok(Self::from_manager(conn))
    }

    /// A store over a connection you configured yourself, with the key prefix `mcp`.
    pub fn from_manager(conn: ConnectionManager) -> Self {
        Self {
            conn,
            prefix: DEFAULT_PREFIX.into(),
            scripts: Arc::new(Scripts::new()),
        }
    }

    /// Uses `prefix` for every key (default `mcp`), so several services, or tests, can share
    /// one Redis. Servers that share sessions must use the same prefix.
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into().into();
        self
    }

    /// The key prefix.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The store's connection (shared: clones multiplex one connection).
    pub fn connection(&self) -> ConnectionManager {
        self.conn.clone()
    }

    fn session_prefix(&self) -> String {
        format!("{}:s:", self.prefix)
    }

    fn session_key(&self, id: &str) -> String {
        format!("{}:s:{id}", self.prefix)
    }

    fn pool_key(&self, owner: &Owner) -> String {
        match owner {
            Owner::Anonymous => format!("{}:pool:a", self.prefix),
            Owner::Caller(k) => format!("{}:pool:c:{k}", self.prefix),
        }
    }

    fn live_key(&self) -> String {
        format!("{}:live", self.prefix)
    }

    async fn create_impl(
        &self,
        owner: &Owner,
        info: SessionInfo,
        limits: &SessionLimits,
    ) -> Result<Created, StoreError> {
        let capabilities = serde_json::to_string(&info.client_capabilities)
            .map_err(|e| StoreError::from_source("cannot encode client capabilities", e))?;
        let limit = limits.limit_of(owner).max(1);
        let mut conn = self.conn.clone();
        for _ in 0..CREATE_ATTEMPTS {
            let id = new_session_id();
            let evicted: Option<Vec<String>> = self
                .scripts
                .create
                .key(self.session_key(&id))
                .key(self.pool_key(owner))
                .key(self.live_key())
                .arg(&id)
                .arg(owner.key())
                .arg(&info.protocol_version)
                .arg(&capabilities)
                .arg(idle_ms(limits))
                .arg(limit)
                .arg(self.session_prefix())
                .invoke_async(&mut conn)
                .await
                .map_err(redis_error)?;
            if let Some(evicted) = evicted {
                return Ok(Created { id, evicted });
            }
        }
        Err(StoreError::new("could not draw an unused session id"))
    }

    async fn open_impl(
        &self,
        id: &str,
        owner: &Owner,
        limits: &SessionLimits,
    ) -> Result<Option<SessionInfo>, StoreError> {
        let mut conn = self.conn.clone();
        let found: Option<(String, String)> = self
            .scripts
            .open
            .key(self.session_key(id))
            .key(self.pool_key(owner))
            .key(self.live_key())
            .arg(id)
            .arg(owner.key())
            .arg(idle_ms(limits))
            .invoke_async(&mut conn)
            .await
            .map_err(redis_error)?;
        let Some((protocol_version, capabilities)) = found else {
            return Ok(None);
        };
        let client_capabilities = serde_json::from_str(&capabilities).map_err(|e| {
            StoreError::from_source("malformed client capabilities of a session", e)
        })?;
        Ok(Some(SessionInfo {
            protocol_version,
            client_capabilities,
        }))
    }

    async fn delete_impl(&self, id: &str, owner: &Owner) -> Result<bool, StoreError> {
        let mut conn = self.conn.clone();
        let deleted: i64 = self
            .scripts
            .delete
            .key(self.session_key(id))
            .key(self.pool_key(owner))
            .key(self.live_key())
            .arg(id)
            .arg(owner.key())
            .invoke_async(&mut conn)
            .await
            .map_err(redis_error)?;
        Ok(deleted == 1)
    }

    /// The raw value of `key` (`Err` when there is no session).
    async fn read(&self, id: &str, key: &str) -> Result<Option<String>, StoreError> {
        let mut conn = self.conn.clone();
        let (owner, value): (Option<String>, Option<String>) = ::redis::cmd("HMGET")
            .arg(self.session_key(id))
            .arg("o")
            .arg(field(key))
            .query_async(&mut conn)
            .await
            .map_err(redis_error)?;
        if owner.is_none() {
            return Err(no_session(id));
        }
        Ok(value)
    }

    async fn get_impl(&self, id: &str, key: &str) -> Result<Option<Value>, StoreError> {
        self.read(id, key)
            .await?
            .map(|raw| decode(key, &raw))
            .transpose()
    }

    async fn set_impl(&self, id: &str, key: &str, value: Value) -> Result<(), StoreError> {
        let mut conn = self.conn.clone();
        let written: i64 = self
            .scripts
            .set
            .key(self.session_key(id))
            .arg(field(key))
            .arg(encode(key, &value)?)
            .invoke_async(&mut conn)
            .await
            .map_err(redis_error)?;
        if written == 1 {
            Ok(())
        } else {
            Err(no_session(id))
        }
    }

    async fn remove_impl(&self, id: &str, key: &str) -> Result<Option<Value>, StoreError> {
        let mut conn = self.conn.clone();
        let removed: Option<Vec<Option<String>>> = self
            .scripts
            .remove
            .key(self.session_key(id))
            .arg(field(key))
            .invoke_async(&mut conn)
            .await
            .map_err(redis_error)?;
        let removed = removed.ok_or_else(|| no_session(id))?;
        removed
            .into_iter()
            .next()
            .flatten()
            .map(|raw| decode(key, &raw))
            .transpose()
    }

    async fn keys_impl(&self, id: &str) -> Result<Vec<String>, StoreError> {
        let mut conn = self.conn.clone();
        let fields: Vec<String> = ::redis::cmd("HKEYS")
            .arg(self.session_key(id))
            .query_async(&mut conn)
            .await
            .map_err(redis_error)?;
        if fields.is_empty() {
            return Err(no_session(id));
        }
        let mut keys: Vec<String> = fields
            .into_iter()
            .filter_map(|f| f.strip_prefix(VALUE_FIELD).map(str::to_owned))
            .collect();
        keys.sort_unstable();
        Ok(keys)
    }

    async fn update_impl(
        &self,
        id: &str,
        key: &str,
        f: &(dyn Fn(Option<Value>) -> Update + Send + Sync),
    ) -> Result<Option<Value>, StoreError> {
        let mut conn = self.conn.clone();
        let session = self.session_key(id);
        let field = field(key);
        for attempt in 0..UPDATE_ATTEMPTS {
            let raw = self.read(id, key).await?;
            let current = raw.as_deref().map(|r| decode(key, r)).transpose()?;
            let next = match f(current.clone()) {
                // Nothing is written: the value read is the value the key holds.
                Update::Keep => return Ok(current),
                Update::Set(next) => Some(next),
                Update::Remove => None,
            };
            let encoded = next.as_ref().map(|v| encode(key, v)).transpose()?;
            let swapped: i64 = self
                .scripts
                .swap
                .key(&session)
                .arg(&field)
                .arg(if raw.is_some() { "1" } else { "0" })
                .arg(raw.as_deref().unwrap_or(""))
                .arg(if encoded.is_some() { "1" } else { "0" })
                .arg(encoded.as_deref().unwrap_or(""))
                .invoke_async(&mut conn)
                .await
                .map_err(redis_error)?;
            match swapped {
                1 => return Ok(next),
                -1 => return Err(no_session(id)),
                _ if attempt % 8 == 7 => tokio::time::sleep(Duration::from_millis(1)).await,
                _ => tokio::task::yield_now().await,
            }
        }
        Err(StoreError::new(format!(
            "session value `{key}` kept changing: gave up after {UPDATE_ATTEMPTS} attempts"
        )))
    }

    async fn len_impl(&self) -> Result<usize, StoreError> {
        let mut conn = self.conn.clone();
        let n: usize = self
            .scripts
            .len
            .key(self.live_key())
            .invoke_async(&mut conn)
            .await
            .map_err(redis_error)?;
        Ok(n)
    }
}

impl SessionStore for RedisStore {
    fn create(
        &self,
        owner: &Owner,
        info: SessionInfo,
        limits: &SessionLimits,
    ) -> impl Future<Output = Result<Created, StoreError>> + Send {
        self.create_impl(owner, info, limits)
    }

    fn open(
        &self,
        id: &str,
        owner: &Owner,
        limits: &SessionLimits,
    ) -> impl Future<Output = Result<Option<SessionInfo>, StoreError>> + Send {
        self.open_impl(id, owner, limits)
    }

    fn delete(
        &self,
        id: &str,
        owner: &Owner,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send {
        self.delete_impl(id, owner)
    }

    fn get(
        &self,
        id: &str,
        key: &str,
    ) -> impl Future<Output = Result<Option<Value>, StoreError>> + Send {
        self.get_impl(id, key)
    }

    fn set(
        &self,
        id: &str,
        key: &str,
        value: Value,
    ) -> impl Future<Output = Result<(), StoreError>> + Send {
        self.set_impl(id, key, value)
    }

    fn remove(
        &self,
        id: &str,
        key: &str,
    ) -> impl Future<Output = Result<Option<Value>, StoreError>> + Send {
        self.remove_impl(id, key)
    }

    fn keys(&self, id: &str) -> impl Future<Output = Result<Vec<String>, StoreError>> + Send {
        self.keys_impl(id)
    }

    fn update(
        &self,
        id: &str,
        key: &str,
        f: &(dyn Fn(Option<Value>) -> Update + Send + Sync),
    ) -> impl Future<Output = Result<Option<Value>, StoreError>> + Send {
        self.update_impl(id, key, f)
    }

    fn len(&self) -> impl Future<Output = Result<usize, StoreError>> + Send {
        self.len_impl()
    }
}

/// The idle timeout in whole milliseconds (at least 1), as Redis TTLs take it.
fn idle_ms(limits: &SessionLimits) -> u64 {
    u64::try_from(limits.idle_timeout.as_millis())
        .unwrap_or(u64::MAX / 1000)
        .clamp(1, u64::MAX / 1000)
}

/// The hash field of value `key`.
fn field(key: &str) -> String {
    format!("{VALUE_FIELD}{key}")
}

fn encode(key: &str, value: &Value) -> Result<String, StoreError> {
    serde_json::to_string(value)
        .map_err(|e| StoreError::from_source(format!("cannot encode session value `{key}`"), e))
}

fn decode(key: &str, raw: &str) -> Result<Value, StoreError> {
    serde_json::from_str(raw).map_err(|e| {
        StoreError::from_source(format!("malformed session value `{key}` in Redis"), e)
    })
}

fn no_session(id: &str) -> StoreError {
    StoreError::new(format!(
        "no session {}",
        crate::redact::Redacted::fingerprint(id)
    ))
}

fn redis_error(e: ::redis::RedisError) -> StoreError {
    StoreError::from_source("Redis request failed", e)
}

/// `url` without its user name and password (for the Redis event bus's messages).
pub(crate) fn shown_url(url: &str) -> String {
    redact(url)
}

/// The text of `e` without any credential of `url` (for the Redis event bus's messages).
pub(crate) fn error_text(e: ::redis::RedisError, url: &str) -> String {
    chain(&*scrub(e, url))
}

/// `url` without its user name and password, for messages.
fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return "<unparsable URL>".into();
    };
    let host = match rest.rsplit_once('@') {
        Some((_, host)) => host,
        None => rest,
    };
    format!("{scheme}://{host}")
}

/// The error as a source that carries no credential of `url`: the error itself when no part
/// of its chain quotes one, else its text with every credential masked (a quoted password
/// must not reach a log through `source()`).
fn scrub(e: ::redis::RedisError, url: &str) -> BoxError {
    let Some((_, rest)) = url.split_once("://") else {
        return Box::new(e);
    };
    let Some((userinfo, _)) = rest.rsplit_once('@') else {
        return Box::new(e);
    };
    let secrets: Vec<&str> = userinfo.split(':').filter(|s| !s.is_empty()).collect();
    let text = chain(&e);
    if !secrets.iter().any(|s| text.contains(s)) {
        return Box::new(e);
    }
    let mut text = text;
    for secret in secrets {
        text = text.replace(secret, "***");
    }
    text.into()
}

/// An error and its sources, joined with `: `.
fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut next = e.source();
    while let Some(source) = next {
        text.push_str(": ");
        text.push_str(&source.to_string());
        next = source.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_shown_without_credentials() {
        assert_eq!(
            redact("redis://user:s3cret@db.example:6380/2"),
            "redis://db.example:6380/2"
        );
        assert_eq!(redact("redis://:s3cret@h"), "redis://h");
        assert_eq!(redact("redis://h:1"), "redis://h:1");
        assert_eq!(redact("nonsense"), "<unparsable URL>");
    }

    #[tokio::test]
    async fn connection_errors_carry_no_password() {
        let e = RedisStore::connect("redis://user:s3cret@127.0.0.1:1/0")
            .await
            .unwrap_err();
        let text = chain(&e);
        assert!(!text.contains("s3cret"), "{text}");
        assert!(text.contains("redis://127.0.0.1:1/0"), "{text}");
        assert!(std::error::Error::source(&e).is_some(), "{text}");
        let e = RedisStore::connect("http://user:s3cret@host/")
            .await
            .unwrap_err();
        let text = chain(&e);
        assert!(!text.contains("s3cret"), "{text}");
        assert!(std::error::Error::source(&e).is_some(), "{text}");
    }

    #[test]
    fn a_source_quoting_a_password_is_masked() {
        let e = ::redis::RedisError::from((
            ::redis::ErrorKind::Io,
            "refused",
            "user s3cret at host".to_owned(),
        ));
        let scrubbed = scrub(e, "redis://user:s3cret@host");
        let text = chain(&*scrubbed);
        assert!(!text.contains("s3cret") && text.contains("***"), "{text}");
        // An error quoting no credential is kept as it is.
        let e = ::redis::RedisError::from((::redis::ErrorKind::Io, "refused"));
        let kept = scrub(e, "redis://user:s3cret@host");
        assert!(kept.downcast_ref::<::redis::RedisError>().is_some());
    }
}
