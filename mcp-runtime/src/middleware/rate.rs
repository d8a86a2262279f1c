//! The stock rate limit ([`RateLimitLayer`]): GCRA per caller or for all callers, in memory
//! (governor's keyed limiter) or in a [`RateStore`] that replicas share.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use futures_util::future::Either;
use governor::clock::Clock as _;
use tower::{Layer, Service};

use super::{Quota, Refusal};
use crate::base::{BoxFuture, Caller};
use crate::dispatch::{McpRequest, McpResponse};
use crate::error::BoxError;

/// Where replicas keep one shared budget per key: [`RedisRateStore`](super::RedisRateStore)
/// (feature `redis`), or your own.
pub trait RateStore: Send + Sync + 'static {
    /// Takes one request from the budget `key` has under `quota` (GCRA, with the store's
    /// clock): `Ok(None)` when allowed, `Ok(Some(wait))` when refused (the budget comes back
    /// after `wait`), `Err` when the store cannot tell.
    fn acquire<'a>(
        &'a self,
        key: &'a str,
        quota: Quota,
    ) -> BoxFuture<'a, Result<Option<Duration>, BoxError>>;
}

/// What a shared rate limit does when its [`RateStore`] fails or does not answer within its
/// timeout.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum FailPolicy {
    /// Serve the request (the default): an outage of the store never takes the server down
    /// with it. Logged as a warning.
    #[default]
    Open,
    /// Refuse the request with `-32029` `Rate limit exceeded`, retry after one second.
    Closed,
}

/// The default bound on one [`RateStore`] operation: 250 ms.
pub const DEFAULT_STORE_TIMEOUT: Duration = Duration::from_millis(250);

/// Who shares one budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scope {
    PerCaller,
    Total,
}

/// A rate limit: [`Quota`] requests per period for each caller ([`per_caller`](Self::per_caller),
/// keyed on [`McpRequest::caller`]) or for all of them ([`total`](Self::total)), refused
/// with `-32029` `Rate limit exceeded` and `data` `{"retryAfterMs": …, "retryAfter": …}`
/// (seconds, rounded up).
///
/// In memory by default (each `layer` call, that is each place it is attached, has its own
/// budget); [`shared`](Self::shared) keeps it in a [`RateStore`] so that replicas share one
/// budget, one round trip per request, bounded by [`store_timeout`](Self::store_timeout),
/// with the [`FailPolicy`] deciding when the store fails.
///
/// ```
/// use mcp::middleware::{Quota, RateLimitLayer};
///
/// struct Svc;
///
/// #[mcp::service(name = "svc", version = "1.0.0")]
/// impl Svc {
///     /// Searches.
///     pub fn search(&self, q: String) -> String { q }
/// }
///
/// let server = mcp::Server::builder(Svc)
///     .layer(RateLimitLayer::per_caller(Quota::per_minute(600)))
///     .tool_layer("search", RateLimitLayer::per_caller(Quota::per_second(2)).named("search"))
///     .build()?;
/// # let _ = server;
/// # Ok::<(), mcp::Error>(())
/// ```
#[derive(Clone)]
pub struct RateLimitLayer {
    quota: Quota,
    scope: Scope,
    name: Arc<str>,
    store: Option<Arc<dyn RateStore>>,
    fail: FailPolicy,
    store_timeout: Duration,
}

impl std::fmt::Debug for RateLimitLayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RateLimitLayer")
            .field("quota", &self.quota)
            .field("scope", &self.scope)
            .field("name", &self.name)
            .field("shared", &self.store.is_some())
            .field("fail", &self.fail)
            .finish()
    }
}

impl RateLimitLayer {
    /// `quota` for each caller.
    pub fn per_caller(quota: Quota) -> Self {
        Self::new(quota, Scope::PerCaller)
    }

    /// `quota` for all callers together.
    pub fn total(quota: Quota) -> Self {
        Self::new(quota, Scope::Total)
    }

    fn new(quota: Quota, scope: Scope) -> Self {
        Self {
            quota,
            scope,
            name: "server".into(),
            store: None,
            fail: FailPolicy::default(),
            store_timeout: DEFAULT_STORE_TIMEOUT,
        }
    }

    /// Names the budget in a shared store (default `server`; `#[tool(rate_limit = ...)]`
    /// names it `tool:<name>`): the store keeps a per-caller budget under
    /// `<name>:<caller>` and a total one under `<name>:all`. Two layers with the same name,
    /// scope and quota share a budget across replicas, two names never do: give two
    /// per-caller (or two total) limits of one server different names.
    #[must_use]
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = name.into().into();
        self
    }

    /// Keeps the budget in `store`, shared by every replica that uses it.
    #[must_use]
    pub fn shared(mut self, store: impl RateStore) -> Self {
        self.store = Some(Arc::new(store));
        self
    }

    /// What to do when the store fails or times out (default [`FailPolicy::Open`]).
    #[must_use]
    pub fn on_store_failure(mut self, policy: FailPolicy) -> Self {
        self.fail = policy;
        self
    }

    /// The bound on one store operation (default 250 ms).
    #[must_use]
    pub fn store_timeout(mut self, timeout: Duration) -> Self {
        self.store_timeout = timeout;
        self
    }
}

impl<S> Layer<S> for RateLimitLayer {
    type Service = RateLimit<S>;

    fn layer(&self, inner: S) -> RateLimit<S> {
        let backend = match &self.store {
            None => Backend::Memory(Arc::new(Memory {
                limiter: governor::RateLimiter::dashmap_with_clock_and_hasher(
                    self.quota.governor(),
                    governor::clock::MonotonicClock,
                    foldhash::fast::RandomState::default(),
                ),
                checks: AtomicU32::new(0),
            })),
            Some(store) => Backend::Store(Arc::new(Shared {
                store: Arc::clone(store),
                quota: self.quota,
                prefix: format!("{}:", self.name),
                scope: self.scope,
                fail: self.fail,
                timeout: self.store_timeout,
            })),
        };
        RateLimit {
            inner,
            scope: self.scope,
            backend,
        }
    }
}

/// The service of a [`RateLimitLayer`].
#[derive(Clone)]
pub struct RateLimit<S> {
    inner: S,
    scope: Scope,
    backend: Backend,
}

#[derive(Clone)]
enum Backend {
    Memory(Arc<Memory>),
    Store(Arc<Shared>),
}

/// governor's keyed GCRA over a concurrent map, hashed with foldhash (its seed random per
/// process; the keys are callers' addresses and identities).
type Limiter = governor::RateLimiter<
    Caller,
    governor::state::keyed::DashMapStateStore<Caller, foldhash::fast::RandomState>,
    governor::clock::MonotonicClock,
>;

struct Memory {
    limiter: Limiter,
    /// Checks since the last sweep of idle callers.
    checks: AtomicU32,
}

/// Callers kept before idle ones are swept out (every [`SWEEP_EVERY`] checks).
const SWEEP_ABOVE: usize = 1024;
const SWEEP_EVERY: u32 = 4096;

impl Memory {
    /// Takes one request from `caller`'s budget: `Some(wait)` when refused.
    fn acquire(&self, caller: &Caller) -> Option<Duration> {
        if self.checks.fetch_add(1, Ordering::Relaxed) % SWEEP_EVERY == SWEEP_EVERY - 1
            && self.limiter.len() > SWEEP_ABOVE
        {
            self.limiter.retain_recent();
        }
        match self.limiter.check_key(caller) {
            Ok(()) => None,
            Err(not_until) => Some(not_until.wait_time_from(self.limiter.clock().now())),
        }
    }
}

struct Shared {
    store: Arc<dyn RateStore>,
    quota: Quota,
    /// `<layer name>:`.
    prefix: String,
    scope: Scope,
    fail: FailPolicy,
    timeout: Duration,
}

impl Shared {
    /// Takes one request from the budget of `caller` (of everyone, for a total limit) in the
    /// store: `Some(wait)` when refused, or when the store fails and the policy is closed.
    async fn acquire(&self, caller: &Caller) -> Option<Duration> {
        // A total limit's key is `<name>:all`, which no caller's key (`id:`, `ip:`, `conn:`,
        // `anonymous`) can be: a per-caller limit and a total one of the same name (both
        // `server` unless named) never charge one key with two quotas.
        let key = match self.scope {
            Scope::PerCaller => format!("{}{caller}", self.prefix),
            Scope::Total => format!("{}all", self.prefix),
        };
        let outcome =
            tokio::time::timeout(self.timeout, self.store.acquire(&key, self.quota)).await;
        let failure = match outcome {
            Ok(Ok(wait)) => return wait,
            Ok(Err(error)) => error.to_string(),
            Err(_) => format!("no answer within {:?}", self.timeout),
        };
        match self.fail {
            FailPolicy::Open => {
                tracing::warn!(%failure, "the rate limit store failed; serving the request");
                None
            }
            FailPolicy::Closed => {
                tracing::warn!(%failure, "the rate limit store failed; refusing the request");
                Some(Duration::from_secs(1))
            }
        }
    }
}

fn refuse<E>(wait: Duration) -> Result<McpResponse, E> {
    tracing::debug!(?wait, "rate limit exceeded");
    Ok(McpResponse::from_error(Refusal::rate_limited(wait).error))
}

impl<S> Service<McpRequest> for RateLimit<S>
where
    S: Service<McpRequest, Response = McpResponse> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
{
    type Response = McpResponse;
    type Error = S::Error;
    type Future = Either<
        std::future::Ready<Result<McpResponse, S::Error>>,
        Either<S::Future, BoxFuture<'static, Result<McpResponse, S::Error>>>,
    >;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        let caller = match self.scope {
            Scope::PerCaller => request.caller(),
            Scope::Total => Caller::Anonymous,
        };
        match &self.backend {
            Backend::Memory(memory) => match memory.acquire(&caller) {
                Some(wait) => Either::Left(std::future::ready(refuse(wait))),
                None => Either::Right(Either::Left(self.inner.call(request))),
            },
            Backend::Store(shared) => {
                let shared = Arc::clone(shared);
                // The inner service was made ready for this request: take it, leave a clone.
                let clone = self.inner.clone();
                let mut inner = std::mem::replace(&mut self.inner, clone);
                Either::Right(Either::Right(Box::pin(async move {
                    match shared.acquire(&caller).await {
                        Some(wait) => refuse(wait),
                        None => inner.call(request).await,
                    }
                })))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memory(quota: Quota) -> Memory {
        Memory {
            limiter: governor::RateLimiter::dashmap_with_clock_and_hasher(
                quota.governor(),
                governor::clock::MonotonicClock,
                foldhash::fast::RandomState::default(),
            ),
            checks: AtomicU32::new(0),
        }
    }

    #[test]
    fn idle_callers_are_swept_once_more_than_the_bound_are_kept() {
        let memory = memory(Quota::new(1, Duration::from_millis(10)).unwrap());
        let callers = u64::try_from(SWEEP_ABOVE).unwrap() + 1;
        for n in 0..callers {
            assert_eq!(memory.acquire(&Caller::Connection(n)), None);
        }
        assert_eq!(memory.limiter.len(), SWEEP_ABOVE + 1);
        // Every budget is back: the next sweep (on the SWEEP_EVERY-th check) drops them all
        // but the one caller still checking.
        std::thread::sleep(Duration::from_millis(30));
        let first = u64::from(SWEEP_EVERY) - callers - 1;
        for _ in 0..first {
            memory.acquire(&Caller::Anonymous);
        }
        assert_eq!(
            memory.limiter.len(),
            SWEEP_ABOVE + 2,
            "no sweep before the bound"
        );
        memory.acquire(&Caller::Anonymous);
        assert!(memory.limiter.len() <= 1, "swept: {}", memory.limiter.len());
    }

    #[test]
    fn at_the_bound_nothing_is_swept() {
        let memory = memory(Quota::new(1, Duration::from_millis(10)).unwrap());
        for n in 0..u64::try_from(SWEEP_ABOVE - 1).unwrap() {
            memory.acquire(&Caller::Connection(n));
        }
        std::thread::sleep(Duration::from_millis(30));
        for _ in 0..SWEEP_EVERY {
            memory.acquire(&Caller::Anonymous);
        }
        assert_eq!(memory.limiter.len(), SWEEP_ABOVE, "kept up to the bound");
    }
}
