//! [`RedisRateStore`] against a real Redis (`MCP_TEST_REDIS_URL`, default
//! `redis://127.0.0.1:6379`; `scripts/test.sh` starts a throwaway one and sets it). These
//! tests never skip: without Redis they fail and say how to start it.
//!
//! Two servers stand for two replicas: each has its own
//! `RateLimitLayer::per_caller(..).shared(RedisRateStore)` over one Redis and one key prefix
//! (a prefix per test), and the test hands them requests in turn through their
//! `tower::Service`, authenticated as the same caller. They prove that
//!
//! - the replicas charge one budget: a caller gets `N` calls in all, not `2N` (and, as a
//!   control, two replicas with in-memory limits do serve `2N`);
//! - a refusal is `-32029` `Rate limit exceeded` with a plausible `retryAfterMs` and
//!   `retryAfter`, and the budget is back once `retryAfterMs` has passed;
//! - two callers have separate budgets, a `total` limit one budget for all, and a
//!   per-caller and a total limit of one name keep apart;
//! - the key is `<prefix>:rl:<layer name>:<caller>` (`all` for a total) and expires;
//! - when Redis stalls or goes away (behind a TCP proxy the test controls), `FailPolicy::Open`
//!   serves and `FailPolicy::Closed` refuses with `-32029`, each call answered within the
//!   store timeout plus slack, never hanging; when Redis is back, the limit works again.

use std::time::{Duration, Instant};

use mcp::middleware::{FailPolicy, Quota, RateLimitLayer, RedisRateStore};
use mcp::protocol::{Era, ErrorCode, Request, RequestId};
use mcp::{AuthContext, McpRequest, Server};
use serde_json::json;
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tower::ServiceExt as _;

mod test_redis;

use test_redis::{connect, redis_url, unique_prefix};

/// Every test finishes within this or fails.
const TEST_DEADLINE: Duration = Duration::from_secs(60);

/// The store timeout of the outage test.
const STORE_TIMEOUT: Duration = Duration::from_millis(300);

/// What a call may take beyond the store timeout when the store fails: scheduling on a
/// loaded machine, never a hang.
const SLACK: Duration = Duration::from_millis(1500);

/// A rate store on the test Redis with key prefix `prefix`, failing loudly when Redis is
/// unreachable.
async fn store(prefix: &str) -> RedisRateStore {
    RedisRateStore::sharing(&connect(prefix).await)
}

/// A plain connection to the test Redis, to look at the keys.
async fn redis() -> redis::aio::MultiplexedConnection {
    redis::Client::open(redis_url())
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap()
}

/// The keys under `prefix`.
async fn keys_under(prefix: &str) -> Vec<String> {
    let mut keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{prefix}:*"))
        .query_async(&mut redis().await)
        .await
        .unwrap();
    keys.sort();
    keys
}

/// Removes the keys under `prefix`.
async fn cleanup(prefix: &str) {
    let keys = keys_under(prefix).await;
    if !keys.is_empty() {
        let _: () = redis::cmd("DEL")
            .arg(&keys)
            .query_async(&mut redis().await)
            .await
            .unwrap();
    }
}

async fn bounded<F: std::future::Future<Output = ()>>(test: F) {
    tokio::time::timeout(TEST_DEADLINE, test)
        .await
        .expect("the test did not finish within its deadline");
}

/// A replica: its one tool names it.
struct Replica {
    name: &'static str,
}

#[mcp::service(name = "replica", version = "1.0.0")]
impl Replica {
    /// The replica's name.
    pub fn whoami(&self) -> String {
        self.name.to_owned()
    }
}

/// Replica `name` behind `layer`.
fn replica(name: &'static str, layer: RateLimitLayer) -> Server {
    Server::builder(Replica { name })
        .layer(layer)
        .build()
        .unwrap()
}

/// What a call got.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Outcome {
    /// Served by the replica of this name.
    Served(String),
    /// Refused with `-32029`, retry after this many milliseconds.
    Refused(u64),
}

impl Outcome {
    fn served(&self) -> bool {
        matches!(self, Self::Served(_))
    }
}

/// Calls `whoami` on `server` as `caller` (authenticated; `None`: anonymous), through the
/// server's `tower::Service`, and checks the shape of a refusal.
async fn call(server: &Server, caller: Option<&str>) -> Outcome {
    let request = Request {
        id: RequestId::Number(1),
        method: "tools/call".into(),
        params: json!({"name": "whoami", "arguments": {}})
            .as_object()
            .cloned(),
    };
    let auth = caller.map(|subject| {
        AuthContext::new()
            .with_issuer("https://issuer.test")
            .with_subject(subject)
    });
    let request = McpRequest::new(request, Era::Legacy, "2025-06-18").with_auth(auth);
    let response = server.clone().oneshot(request).await.unwrap();
    if let Some(error) = response.error() {
        assert_eq!(error.code, ErrorCode::RATE_LIMITED, "{error:?}");
        assert_eq!(error.code, ErrorCode(-32029));
        assert_eq!(error.message, "Rate limit exceeded");
        let data = error.data.expect("a refusal has data");
        let ms = data["retryAfterMs"].as_u64().expect("retryAfterMs");
        assert_eq!(
            data["retryAfter"].as_u64(),
            Some(ms.div_ceil(1000)),
            "retryAfter is retryAfterMs in seconds, rounded up: {data}"
        );
        return Outcome::Refused(ms);
    }
    let result = response.result_value().expect("a result");
    Outcome::Served(result["content"][0]["text"].as_str().unwrap().to_owned())
}

/// `calls` calls as `caller`, alternating between `replicas` (the first call on the first).
async fn alternate(replicas: &[&Server], caller: Option<&str>, calls: usize) -> Vec<Outcome> {
    let mut outcomes = Vec::new();
    for i in 0..calls {
        outcomes.push(call(replicas[i % replicas.len()], caller).await);
    }
    outcomes
}

/// The replicas' names of the calls that were served.
fn served_by(outcomes: &[Outcome]) -> Vec<&str> {
    outcomes
        .iter()
        .filter_map(|o| match o {
            Outcome::Served(name) => Some(name.as_str()),
            Outcome::Refused(_) => None,
        })
        .collect()
}

#[tokio::test]
async fn replicas_charge_one_budget_per_caller() {
    bounded(async {
        const N: usize = 5;
        let prefix = unique_prefix("rate-one-budget");
        let limit = || RateLimitLayer::per_caller(Quota::per_minute(N as u32));
        let a = replica("a", limit().shared(store(&prefix).await));
        let b = replica("b", limit().shared(store(&prefix).await));

        let outcomes = alternate(&[&a, &b], Some("alice"), 2 * N).await;
        assert_eq!(
            served_by(&outcomes),
            ["a", "b", "a", "b", "a"],
            "N calls in all, the first N, served by both replicas: {outcomes:?}"
        );
        // Each refusal waits for one interval (60 s / N) to come back, less the time the
        // calls took.
        let interval = 60_000 / N as u64;
        for outcome in &outcomes[N..] {
            let Outcome::Refused(ms) = outcome else {
                panic!("refused after N calls: {outcomes:?}");
            };
            assert!(
                *ms > interval - 5_000 && *ms <= interval,
                "retryAfterMs {ms} is about {interval}: {outcomes:?}"
            );
        }

        // One key per caller and layer name, under the prefix, expiring once the budget is
        // whole again (at most a minute).
        let keys = keys_under(&prefix).await;
        assert_eq!(keys.len(), 1, "{keys:?}");
        assert!(
            keys[0].starts_with(&format!("{prefix}:rl:server:id:")) && keys[0].contains("alice"),
            "{keys:?}"
        );
        let ttl: i64 = redis::cmd("PTTL")
            .arg(&keys[0])
            .query_async(&mut redis().await)
            .await
            .unwrap();
        assert!(ttl > 0 && ttl <= 60_001, "PTTL {ttl}");
        cleanup(&prefix).await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_calls_on_both_replicas_get_exactly_the_budget() {
    bounded(async {
        const N: usize = 10;
        let prefix = unique_prefix("rate-concurrent");
        let limit = || RateLimitLayer::per_caller(Quota::per_minute(N as u32));
        let a = replica("a", limit().shared(store(&prefix).await));
        let b = replica("b", limit().shared(store(&prefix).await));
        // 4N calls at once, half on each replica: the script decides each atomically.
        let calls: Vec<_> = (0..4 * N)
            .map(|i| {
                let server = if i % 2 == 0 { a.clone() } else { b.clone() };
                tokio::spawn(async move { call(&server, Some("alice")).await })
            })
            .collect();
        let mut outcomes = Vec::new();
        for c in calls {
            outcomes.push(c.await.unwrap());
        }
        assert_eq!(served_by(&outcomes).len(), N, "{outcomes:?}");
        cleanup(&prefix).await;
    })
    .await;
}

#[tokio::test]
async fn without_a_store_each_replica_counts_alone() {
    bounded(async {
        // The control: what the shared store is for. In memory, each replica has a budget
        // of its own, so a caller alternating between two gets 2N calls.
        const N: usize = 5;
        let limit = || RateLimitLayer::per_caller(Quota::per_minute(N as u32));
        let a = replica("a", limit());
        let b = replica("b", limit());
        let outcomes = alternate(&[&a, &b], Some("alice"), 2 * N + 2).await;
        assert_eq!(served_by(&outcomes).len(), 2 * N, "{outcomes:?}");
        assert!(!outcomes[2 * N].served() && !outcomes[2 * N + 1].served());
    })
    .await;
}

#[tokio::test]
async fn the_budget_comes_back_after_its_interval() {
    bounded(async {
        let prefix = unique_prefix("rate-comes-back");
        // Two a second: one call's budget comes back every 500 ms.
        let limit = || RateLimitLayer::per_caller(Quota::per_second(2));
        let a = replica("a", limit().shared(store(&prefix).await));
        let b = replica("b", limit().shared(store(&prefix).await));

        let outcomes = alternate(&[&a, &b], Some("alice"), 3).await;
        assert_eq!(served_by(&outcomes), ["a", "b"], "{outcomes:?}");
        let Outcome::Refused(wait) = outcomes[2] else {
            panic!("the third call is refused: {outcomes:?}");
        };
        assert!(wait > 0 && wait <= 500, "retryAfterMs {wait}");

        // Retrying after exactly `retryAfterMs` succeeds (on either replica), once: the
        // budget has one call back, not two.
        tokio::time::sleep(Duration::from_millis(wait)).await;
        assert_eq!(call(&b, Some("alice")).await, Outcome::Served("b".into()));
        assert!(!call(&a, Some("alice")).await.served());

        // After a whole period the burst is back.
        tokio::time::sleep(Duration::from_millis(1000)).await;
        let outcomes = alternate(&[&a, &b], Some("alice"), 3).await;
        assert_eq!(served_by(&outcomes), ["a", "b"], "{outcomes:?}");
        cleanup(&prefix).await;
    })
    .await;
}

#[tokio::test]
async fn callers_have_separate_budgets() {
    bounded(async {
        let prefix = unique_prefix("rate-callers");
        let limit = || RateLimitLayer::per_caller(Quota::per_minute(3));
        let a = replica("a", limit().shared(store(&prefix).await));
        let b = replica("b", limit().shared(store(&prefix).await));

        let alice = alternate(&[&a, &b], Some("alice"), 4).await;
        assert_eq!(served_by(&alice), ["a", "b", "a"], "{alice:?}");
        // Bob's budget is whole, though Alice's is spent.
        let bob = alternate(&[&b, &a], Some("bob"), 4).await;
        assert_eq!(served_by(&bob), ["b", "a", "b"], "{bob:?}");
        assert!(!call(&a, Some("alice")).await.served());
        // Anonymous in-process requests (no connection, no address) are one more caller.
        let anonymous = alternate(&[&a, &b], None, 4).await;
        assert_eq!(served_by(&anonymous).len(), 3, "{anonymous:?}");

        assert_eq!(keys_under(&prefix).await.len(), 3);
        cleanup(&prefix).await;
    })
    .await;
}

#[tokio::test]
async fn a_total_limit_is_one_budget_for_every_caller() {
    bounded(async {
        let prefix = unique_prefix("rate-total");
        let limit = || RateLimitLayer::total(Quota::per_minute(4));
        let a = replica("a", limit().shared(store(&prefix).await));
        let b = replica("b", limit().shared(store(&prefix).await));

        let mut outcomes = Vec::new();
        for (i, caller) in ["alice", "bob", "carol", "dave", "erin", "alice"]
            .into_iter()
            .enumerate()
        {
            let server = if i % 2 == 0 { &a } else { &b };
            outcomes.push(call(server, Some(caller)).await);
        }
        assert_eq!(
            served_by(&outcomes),
            ["a", "b", "a", "b"],
            "four calls in all, whoever makes them: {outcomes:?}"
        );
        assert_eq!(
            keys_under(&prefix).await,
            [format!("{prefix}:rl:server:all")]
        );
        cleanup(&prefix).await;
    })
    .await;
}

#[tokio::test]
async fn a_per_caller_and_a_total_limit_of_one_name_keep_apart() {
    bounded(async {
        // Both layers are named `server` (the default). An anonymous caller's key must not
        // be the total limit's, or one key would be charged with two quotas.
        let prefix = unique_prefix("rate-scopes");
        let store = store(&prefix).await;
        let server = Server::builder(Replica { name: "a" })
            .layer(RateLimitLayer::per_caller(Quota::per_minute(2)).shared(store.clone()))
            .layer(RateLimitLayer::total(Quota::per_minute(100)).shared(store))
            .build()
            .unwrap();
        let outcomes = alternate(&[&server], None, 3).await;
        assert_eq!(served_by(&outcomes), ["a", "a"], "{outcomes:?}");
        assert_eq!(
            keys_under(&prefix).await,
            [
                format!("{prefix}:rl:server:all"),
                format!("{prefix}:rl:server:anonymous")
            ]
        );
        cleanup(&prefix).await;
    })
    .await;
}

#[tokio::test]
async fn layers_of_different_names_never_share() {
    bounded(async {
        let prefix = unique_prefix("rate-names");
        let quota = Quota::per_minute(2);
        let a = replica(
            "a",
            RateLimitLayer::per_caller(quota)
                .named("search")
                .shared(store(&prefix).await),
        );
        let b = replica(
            "b",
            RateLimitLayer::per_caller(quota)
                .named("fetch")
                .shared(store(&prefix).await),
        );
        let outcomes = alternate(&[&a, &b], Some("alice"), 6).await;
        assert_eq!(served_by(&outcomes), ["a", "b", "a", "b"], "{outcomes:?}");
        let keys = keys_under(&prefix).await;
        assert_eq!(keys.len(), 2, "{keys:?}");
        assert!(
            keys[0].starts_with(&format!("{prefix}:rl:fetch:id:")),
            "{keys:?}"
        );
        assert!(
            keys[1].starts_with(&format!("{prefix}:rl:search:id:")),
            "{keys:?}"
        );
        cleanup(&prefix).await;
    })
    .await;
}

#[tokio::test]
async fn connecting_to_a_closed_port_fails() {
    bounded(async {
        let port = {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            listener.local_addr().unwrap().port()
        };
        let url = format!("redis://127.0.0.1:{port}/");
        let error = RedisRateStore::connect(&url)
            .await
            .expect_err("nothing listens there");
        assert!(error.to_string().contains("cannot connect"), "{error}");
    })
    .await;
}

/// What the [`Proxy`] does with the bytes between a client and Redis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Passes them on.
    Forward,
    /// Holds them: Redis looks alive but never answers.
    Stall,
    /// Drops every connection and accepts none: Redis is gone.
    Down,
}

/// A TCP proxy in front of the test Redis, so a test can stall it or take it away without
/// touching the Redis other tests share.
struct Proxy {
    port: u16,
    mode: watch::Sender<Mode>,
    task: tokio::task::JoinHandle<()>,
}

impl Proxy {
    async fn start(upstream: (String, u16)) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let (mode, watching) = watch::channel(Mode::Forward);
        let task = tokio::spawn(async move {
            loop {
                let Ok((inbound, _)) = listener.accept().await else {
                    continue;
                };
                if *watching.borrow() == Mode::Down {
                    continue;
                }
                let upstream = upstream.clone();
                let watching = watching.clone();
                tokio::spawn(async move {
                    let Ok(outbound) = TcpStream::connect((upstream.0.as_str(), upstream.1)).await
                    else {
                        return;
                    };
                    let (from_client, to_client) = inbound.into_split();
                    let (from_redis, to_redis) = outbound.into_split();
                    tokio::select! {
                        () = pump(from_client, to_redis, watching.clone()) => {}
                        () = pump(from_redis, to_client, watching) => {}
                    }
                });
            }
        });
        Self { port, mode, task }
    }

    fn set(&self, mode: Mode) {
        self.mode.send_replace(mode);
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.set(Mode::Down);
        self.task.abort();
    }
}

/// Copies `from` to `to` while the proxy forwards; holds what it read while it stalls;
/// returns (dropping the connection) when it is down or either side closes.
async fn pump(
    mut from: impl AsyncRead + Unpin,
    mut to: impl AsyncWrite + Unpin,
    mut mode: watch::Receiver<Mode>,
) {
    let mut buf = vec![0; 16 * 1024];
    loop {
        let n = tokio::select! {
            read = from.read(&mut buf) => match read {
                Ok(0) | Err(_) => return,
                Ok(n) => n,
            },
            _ = mode.wait_for(|m| *m == Mode::Down) => return,
        };
        let now = mode.wait_for(|m| *m != Mode::Stall).await.map(|m| *m).ok();
        if now != Some(Mode::Forward) || to.write_all(&buf[..n]).await.is_err() {
            return;
        }
    }
}

/// Calls `server` and checks the call took at most the store timeout plus slack.
async fn timed_call(server: &Server) -> Outcome {
    let start = Instant::now();
    let outcome = call(server, Some("alice")).await;
    let took = start.elapsed();
    assert!(
        took <= STORE_TIMEOUT + SLACK,
        "a call took {took:?} with the store failing: bounded by the store timeout \
         ({STORE_TIMEOUT:?}) plus slack, never a hang"
    );
    outcome
}

#[tokio::test]
async fn when_redis_fails_open_serves_and_closed_refuses_within_the_timeout() {
    bounded(async {
        let prefix = unique_prefix("rate-outage");
        let info = redis::IntoConnectionInfo::into_connection_info(redis_url().as_str()).unwrap();
        let upstream = match info.addr() {
            redis::ConnectionAddr::Tcp(host, port) => (host.clone(), *port),
            other => panic!("the outage test needs the test Redis on plain TCP, not {other:?}"),
        };
        let proxy = Proxy::start(upstream).await;
        let via_proxy = info.set_addr(redis::ConnectionAddr::Tcp("127.0.0.1".into(), proxy.port));
        let manager = tokio::time::timeout(
            Duration::from_secs(15),
            redis::Client::open(via_proxy)
                .unwrap()
                .get_connection_manager(),
        )
        .await
        .expect("Redis answers within 15 s (start redis-server or set MCP_TEST_REDIS_URL)")
        .expect("Redis is reachable (start redis-server or set MCP_TEST_REDIS_URL)");
        let store = RedisRateStore::from_manager(manager).with_prefix(prefix.as_str());
        let limit = |policy| {
            RateLimitLayer::per_caller(Quota::per_minute(10_000))
                .shared(store.clone())
                .on_store_failure(policy)
                .store_timeout(STORE_TIMEOUT)
        };
        let open = replica("open", limit(FailPolicy::Open));
        let closed = replica("closed", limit(FailPolicy::Closed));

        // Redis answers: both serve, and the budget is charged in Redis.
        assert_eq!(
            call(&open, Some("alice")).await,
            Outcome::Served("open".into())
        );
        assert_eq!(
            call(&closed, Some("alice")).await,
            Outcome::Served("closed".into())
        );
        assert_eq!(keys_under(&prefix).await.len(), 1);

        for mode in [Mode::Stall, Mode::Down] {
            proxy.set(mode);
            for _ in 0..3 {
                assert_eq!(
                    timed_call(&open).await,
                    Outcome::Served("open".into()),
                    "{mode:?}: fail open serves"
                );
                assert_eq!(
                    timed_call(&closed).await,
                    Outcome::Refused(1000),
                    "{mode:?}: fail closed refuses, retry after a second"
                );
            }
        }

        // Redis is back: the connection comes back and the limit with it.
        proxy.set(Mode::Forward);
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if call(&closed, Some("alice")).await.served() {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "Redis came back, the store did not"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        cleanup(&prefix).await;
    })
    .await;
}
