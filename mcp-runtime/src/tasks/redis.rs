//! [`RedisTaskStore`]: tasks in Redis, shared by every replica pointing at the same Redis
//! and key prefix. The owner limit and compare-and-set are Lua scripts (atomic in Redis).

use ::redis::Script;
use ::redis::aio::ConnectionManager;

use super::{StoredTask, TaskStore, TaskStoreError};
use crate::base::BoxFuture;

/// Creates a task: drops the owner's expired entries, refuses when it holds `limit`
/// active tasks, stores the task with its expiry and counts it.
const CREATE: &str = r"
local now = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if ARGV[5] == '1' and redis.call('ZCARD', KEYS[2]) >= limit then
  return 0
end
redis.call('HSET', KEYS[1], 'v', ARGV[4], 'o', ARGV[7], 'a', ARGV[5], 'd', ARGV[6])
local expires = tonumber(ARGV[8])
if expires >= 0 then
  redis.call('PEXPIREAT', KEYS[1], expires)
end
if ARGV[5] == '1' then
  local score = expires
  if expires < 0 then
    score = now + 315360000000
  end
  redis.call('ZADD', KEYS[2], score, ARGV[3])
  local ttl = redis.call('PTTL', KEYS[2])
  if ttl >= 0 and ttl < score - now then
    redis.call('PEXPIREAT', KEYS[2], score)
  elseif ttl == -1 then
    redis.call('PEXPIREAT', KEYS[2], score)
  end
end
return 1
";

/// Replaces a task when its version is the expected one; a task that stops being active
/// leaves its owner's count.
const REPLACE: &str = r"
local v = redis.call('HGET', KEYS[1], 'v')
if not v or v ~= ARGV[1] then
  return 0
end
local was = redis.call('HGET', KEYS[1], 'a')
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'a', ARGV[3], 'd', ARGV[4])
if was == '1' and ARGV[3] == '0' then
  redis.call('ZREM', KEYS[2], ARGV[5])
end
return 1
";

/// Tasks in Redis: a task created through one replica is read, answered and cancelled
/// through any other. Creation returns once Redis holds the task (SEP-2663's durable
/// creation).
///
/// With prefix `P` (default `mcp`), task `T` of owner `O`:
///
/// - `P:task:T`, a hash: `v` (version), `o` (owner), `a` (`1` while active), `d` (the
///   task, JSON); it expires with the task (`PEXPIREAT`);
/// - `P:tasks:O`, a sorted set of `O`'s active tasks scored by their expiry (expired
///   members are dropped before counting).
///
/// Round trips per operation: creating a task 1 (`EVALSHA`), reading 1 (`HMGET`),
/// updating 2 (a read, then the compare-and-set `EVALSHA`; more only under contention).
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let tasks = mcp::tasks::RedisTaskStore::connect("redis://127.0.0.1:6379").await?;
/// # struct Svc;
/// # #[mcp::service(name = "svc", version = "1.0.0")]
/// # impl Svc { pub fn ping(&self) -> String { "pong".into() } }
/// let server = mcp::Server::builder(Svc).task_store(tasks).build()?;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct RedisTaskStore {
    conn: ConnectionManager,
    prefix: String,
    create: Script,
    replace: Script,
}

impl std::fmt::Debug for RedisTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisTaskStore")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

impl RedisTaskStore {
    /// Connects to the Redis at `url` (as
    /// [`RedisStore::connect`](crate::session::RedisStore::connect) does), with the key
    /// prefix `mcp`.
    pub async fn connect(url: &str) -> Result<Self, TaskStoreError> {
        let store = crate::session::RedisStore::connect(url)
            .await
            .map_err(|e| TaskStoreError::Backend(Box::new(e)))?;
        Ok(Self::from_manager(store.connection()))
    }

    /// A store over a connection you configured yourself, with the key prefix `mcp`.
    pub fn from_manager(conn: ConnectionManager) -> Self {
        Self {
            conn,
            prefix: "mcp".into(),
            create: Script::new(CREATE),
            replace: Script::new(REPLACE),
        }
    }

    /// Uses `prefix` for every key (default `mcp`). Replicas sharing tasks use the same.
    #[must_use]
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    fn task_key(&self, id: &str) -> String {
        format!("{}:task:{id}", self.prefix)
    }

    fn owner_key(&self, owner: &str) -> String {
        format!("{}:tasks:{owner}", self.prefix)
    }
}

fn backend(e: ::redis::RedisError) -> TaskStoreError {
    TaskStoreError::Backend(Box::new(e))
}

impl TaskStore for RedisTaskStore {
    fn create(
        &self,
        task: StoredTask,
        max_active: usize,
    ) -> BoxFuture<'_, Result<(), TaskStoreError>> {
        Box::pin(async move {
            let mut conn = self.conn.clone();
            let created: i64 = self
                .create
                .key(self.task_key(&task.id))
                .key(self.owner_key(&task.owner))
                .arg(super::now_ms())
                .arg(max_active)
                .arg(&task.id)
                .arg(task.version)
                .arg(if task.active { "1" } else { "0" })
                .arg(&task.data)
                .arg(&task.owner)
                .arg(
                    task.expires_at_ms
                        .map_or(-1, |t| i64::try_from(t).unwrap_or(i64::MAX)),
                )
                .invoke_async(&mut conn)
                .await
                .map_err(backend)?;
            if created == 1 {
                Ok(())
            } else {
                Err(TaskStoreError::OwnerLimit { limit: max_active })
            }
        })
    }

    fn load<'a>(
        &'a self,
        id: &'a str,
    ) -> BoxFuture<'a, Result<Option<StoredTask>, TaskStoreError>> {
        Box::pin(async move {
            let mut conn = self.conn.clone();
            let key = self.task_key(id);
            let (version, owner, active, data, ttl): (
                Option<u64>,
                Option<String>,
                Option<String>,
                Option<String>,
                i64,
            ) = ::redis::pipe()
                .cmd("HMGET")
                .arg(&key)
                .arg("v")
                .arg("o")
                .arg("a")
                .arg("d")
                .cmd("PEXPIRETIME")
                .arg(&key)
                .query_async::<(
                    (Option<u64>, Option<String>, Option<String>, Option<String>),
                    i64,
                )>(&mut conn)
                .await
                .map(|((v, o, a, d), t)| (v, o, a, d, t))
                .map_err(backend)?;
            let (Some(version), Some(data)) = (version, data) else {
                return Ok(None);
            };
            Ok(Some(StoredTask::new(
                id,
                owner.unwrap_or_default(),
                version,
                active.as_deref() == Some("1"),
                u64::try_from(ttl).ok(),
                data,
            )))
        })
    }

    fn replace(
        &self,
        task: StoredTask,
        expected: u64,
    ) -> BoxFuture<'_, Result<bool, TaskStoreError>> {
        Box::pin(async move {
            let mut conn = self.conn.clone();
            let replaced: i64 = self
                .replace
                .key(self.task_key(&task.id))
                .key(self.owner_key(&task.owner))
                .arg(expected)
                .arg(task.version)
                .arg(if task.active { "1" } else { "0" })
                .arg(&task.data)
                .arg(&task.id)
                .invoke_async(&mut conn)
                .await
                .map_err(backend)?;
            Ok(replaced == 1)
        })
    }
}
