//! [`RedisStore`] against a real Redis (`MCP_TEST_REDIS_URL`, default
//! `redis://127.0.0.1:6379`; `scripts/test.sh` starts a throwaway one and sets it). These
//! tests never skip: without Redis they fail and say how to start it.
//!
//! The store contract (the cases of the in-memory store's tests: LRU eviction per pool,
//! foreign owners, expiry, atomic `update`, updates that never lose data), then two separate
//! server processes (this test binary started again in server mode, see [`child_server`])
//! that share one Redis and serve one session alternately, with limits and expiry holding
//! across them.

use std::io::{BufRead as _, BufReader};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use mcp::session::{Owner, SessionInfo, SessionLimits, SessionStore, contract};
use mcp::{Session, SessionMode};
use serde_json::{Value, json};

mod test_redis;

use test_redis::{connect, redis_url, unique_prefix};

/// Every test finishes within this or fails.
const TEST_DEADLINE: Duration = Duration::from_secs(60);

/// The environment variable that turns this binary into a server process (its value is the
/// server's configuration as JSON).
const CHILD_ENV: &str = "MCP_REDIS_TEST_CHILD";

/// How long a server process lives at most.
const CHILD_LIFETIME: Duration = Duration::from_secs(120);

/// The keys under `prefix` (to check what the store leaves behind).
async fn keys_under(prefix: &str) -> Vec<String> {
    let client = redis::Client::open(redis_url()).unwrap();
    let mut conn = client.get_multiplexed_async_connection().await.unwrap();
    let mut keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{prefix}:*"))
        .query_async(&mut conn)
        .await
        .unwrap();
    keys.sort();
    keys
}

/// Removes the keys under `prefix`.
async fn cleanup(prefix: &str) {
    let keys = keys_under(prefix).await;
    if keys.is_empty() {
        return;
    }
    let client = redis::Client::open(redis_url()).unwrap();
    let mut conn = client.get_multiplexed_async_connection().await.unwrap();
    let _: () = redis::cmd("DEL")
        .arg(&keys)
        .query_async(&mut conn)
        .await
        .unwrap();
}

async fn bounded<F: std::future::Future<Output = ()>>(test: F) {
    tokio::time::timeout(TEST_DEADLINE, test)
        .await
        .expect("the test did not finish within its deadline");
}

fn info() -> SessionInfo {
    SessionInfo {
        protocol_version: "2025-11-25".into(),
        client_capabilities: json!({"elicitation": {}, "roots": {"listChanged": true}}),
    }
}

fn limits(per_owner: usize, anonymous: usize) -> SessionLimits {
    SessionLimits::default()
        .with_idle_timeout(Duration::from_secs(60))
        .with_max_per_owner(per_owner)
        .with_max_anonymous(anonymous)
}

#[tokio::test]
async fn evicts_the_least_recently_used_of_the_same_pool() {
    bounded(async {
        let prefix = unique_prefix("lru");
        contract::evicts_the_least_recently_used_of_the_same_pool(&connect(&prefix).await).await;
        cleanup(&prefix).await;
    })
    .await;
}

#[tokio::test]
async fn foreign_owners_see_nothing() {
    bounded(async {
        let prefix = unique_prefix("foreign");
        contract::foreign_owners_see_nothing(&connect(&prefix).await).await;
        cleanup(&prefix).await;
    })
    .await;
}

#[tokio::test]
async fn identities_never_collide() {
    bounded(async {
        let prefix = unique_prefix("identities");
        contract::identities_never_collide(&connect(&prefix).await).await;
        cleanup(&prefix).await;
    })
    .await;
}

/// Each identity has its own pool key, named by its structured key.
#[tokio::test]
async fn each_identity_has_its_own_pool() {
    bounded(async {
        let prefix = unique_prefix("pools");
        let store = connect(&prefix).await;
        let owners = contract::colliding_identities();
        for owner in &owners {
            store.create(owner, info(), &limits(1, 1)).await.unwrap();
        }
        let pools: Vec<String> = keys_under(&prefix)
            .await
            .into_iter()
            .filter(|k| k.starts_with(&format!("{prefix}:pool:c:")))
            .collect();
        assert_eq!(pools.len(), owners.len(), "{pools:?}");
        assert!(pools.contains(&format!(
            r#"{prefix}:pool:c:["token","https://as","app","a\u001fb"]"#
        )));
        cleanup(&prefix).await;
    })
    .await;
}

/// A session written by an earlier version (owner key `issuer\x1fclient\x1fsubject`) is
/// not found by any caller of this version, so its client initializes again (the README's
/// migration note); an anonymous one (owner key empty) keeps working.
#[tokio::test]
async fn sessions_of_earlier_versions_migrate() {
    bounded(async {
        let prefix = unique_prefix("migrate");
        let store = connect(&prefix).await;
        let client = redis::Client::open(redis_url()).unwrap();
        let mut conn = client.get_multiplexed_async_connection().await.unwrap();
        let (secs, micros): (u64, u64) = redis::cmd("TIME").query_async(&mut conn).await.unwrap();
        let now = (secs * 1_000_000 + micros).to_string();
        for (id, owner) in [
            ("old-caller", "https://as\u{1f}app\u{1f}ab"),
            ("old-anon", ""),
        ] {
            let _: () = redis::cmd("HSET")
                .arg(format!("{prefix}:s:{id}"))
                .arg(&["o", owner, "v", "2025-06-18", "c", "{}", "t", &now])
                .query_async(&mut conn)
                .await
                .unwrap();
        }
        let l = limits(5, 5);
        for owner in [
            Owner::token("https://as", "app", "ab"),
            Owner::token("https://as", "app", "a\u{1f}b"),
            Owner::Anonymous,
        ] {
            assert_eq!(store.open("old-caller", &owner, &l).await.unwrap(), None);
        }
        let anonymous = store.open("old-anon", &Owner::Anonymous, &l).await.unwrap();
        assert_eq!(
            anonymous.map(|i| i.protocol_version).as_deref(),
            Some("2025-06-18")
        );
        cleanup(&prefix).await;
    })
    .await;
}

#[tokio::test]
async fn values_get_set_remove_and_keys() {
    bounded(async {
        let prefix = unique_prefix("values");
        contract::values_get_set_remove_and_keys(&connect(&prefix).await).await;
        // Writing values of an unknown session created no session hash.
        assert!(
            keys_under(&prefix).await.iter().all(|k| !k.contains(":s:")),
            "no session hash is left: {:?}",
            keys_under(&prefix).await
        );
        cleanup(&prefix).await;
    })
    .await;
}

#[tokio::test]
async fn idle_sessions_expire_and_leave_nothing_behind() {
    bounded(async {
        let prefix = unique_prefix("expiry");
        let store = connect(&prefix).await;
        contract::idle_sessions_expire(&store, Duration::from_secs(2)).await;
        // Once everything is idle for the timeout, Redis holds no key of the store.
        tokio::time::sleep(Duration::from_millis(2300)).await;
        assert_eq!(store.len().await.unwrap(), 0);
        assert_eq!(keys_under(&prefix).await, Vec::<String>::new());
    })
    .await;
}

#[tokio::test]
async fn update_is_atomic_under_concurrency() {
    bounded(async {
        let prefix = unique_prefix("update");
        // Two stores (two connections), as two servers would have.
        let stores = [
            Arc::new(connect(&prefix).await),
            Arc::new(connect(&prefix).await),
        ];
        contract::update_is_atomic(&stores).await;
        cleanup(&prefix).await;
    })
    .await;
}

#[tokio::test]
async fn update_keeps_what_it_cannot_change() {
    bounded(async {
        let prefix = unique_prefix("update-keeps");
        contract::update_keeps_what_it_cannot_change(Arc::new(connect(&prefix).await)).await;
        cleanup(&prefix).await;
    })
    .await;
}

#[tokio::test]
async fn stores_sharing_a_prefix_share_sessions_and_other_prefixes_do_not() {
    bounded(async {
        let prefix = unique_prefix("shared");
        let one = connect(&prefix).await;
        let two = connect(&prefix).await;
        let other = connect(&unique_prefix("other")).await;
        let l = limits(5, 5);
        let id = one.create(&Owner::Anonymous, info(), &l).await.unwrap().id;
        assert_eq!(
            two.open(&id, &Owner::Anonymous, &l).await.unwrap(),
            Some(info())
        );
        assert!(
            other
                .open(&id, &Owner::Anonymous, &l)
                .await
                .unwrap()
                .is_none()
        );
        two.set(&id, "k", json!("v")).await.unwrap();
        assert_eq!(one.get(&id, "k").await.unwrap(), Some(json!("v")));
        cleanup(&prefix).await;
    })
    .await;
}

// --- Two server processes sharing one Redis -------------------------------------------------

/// The stateful cart the server processes serve.
struct Cart;

#[mcp::service(
    name = "cart",
    version = "1.0.0",
    protocol_mode = "legacy",
    session_mode = "stateful"
)]
impl Cart {
    /// Add an item to the cart; returns the number of items.
    pub async fn add_item(&self, session: Session, item: String) -> Result<usize, mcp::ToolError> {
        let items: Vec<String> = session
            .update("items", |items: Option<Vec<String>>| {
                let mut items = items.unwrap_or_default();
                items.push(item.clone());
                items
            })
            .await?;
        Ok(items.len())
    }

    /// The items.
    pub async fn list_items(&self, session: Session) -> Result<Vec<String>, mcp::ToolError> {
        Ok(session.get("items").await?.unwrap_or_default())
    }
}

/// Not a test of its own: when started with [`CHILD_ENV`] set (by [`ServerProcess::start`]),
/// this test binary becomes a server process serving [`Cart`] with a [`RedisStore`]; it prints
/// `listening http://<addr>/mcp` and serves until its standard input closes (the parent
/// ended) or [`CHILD_LIFETIME`] passes. Without the variable it returns at once.
#[test]
fn child_server() {
    let Ok(config) = std::env::var(CHILD_ENV) else {
        return;
    };
    let config: Value = serde_json::from_str(&config).expect("child configuration");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        let store = connect(config["prefix"].as_str().unwrap()).await;
        let limits = SessionLimits::default()
            .with_idle_timeout(Duration::from_millis(config["idle_ms"].as_u64().unwrap()))
            .with_max_per_owner(100)
            .with_max_anonymous(config["max_anonymous"].as_u64().unwrap() as usize);
        let server = mcp::Server::builder(Cart)
            .session_mode(SessionMode::Stateful)
            .session_limits(limits)
            .session_store(Arc::new(store))
            .build()
            .unwrap();
        let listener = mcp::HttpServer::bind("127.0.0.1:0").await.unwrap();
        println!("listening http://{}/mcp", listener.local_addr().unwrap());
        let stop = async {
            let stdin_closed = tokio::task::spawn_blocking(|| {
                let mut sink = String::new();
                while std::io::stdin().read_line(&mut sink).is_ok_and(|n| n > 0) {}
            });
            tokio::select! {
                _ = stdin_closed => {}
                () = tokio::time::sleep(CHILD_LIFETIME) => {}
            }
        };
        listener
            .serve(mcp::transport::http::router("/mcp", server).into_make_service())
            .with_graceful_shutdown(stop)
            .await
            .expect("serve");
    });
}

/// A server process started from this test binary; killed when dropped.
struct ServerProcess {
    child: Child,
    _stdin: ChildStdin,
    url: String,
}

impl ServerProcess {
    /// Starts a server process over the Redis keys under `prefix`.
    fn start(prefix: &str, max_anonymous: usize, idle: Duration) -> Self {
        let config = json!({
            "prefix": prefix,
            "max_anonymous": max_anonymous,
            "idle_ms": idle.as_millis() as u64,
        });
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args(["child_server", "--exact", "--nocapture", "--test-threads=1"])
            .env(CHILD_ENV, config.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start a server process");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            // Reads every line (so the child never blocks on a full pipe), reporting the
            // listening line.
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                // libtest prints `test child_server ... ` before the test's own output.
                if let Some((_, url)) = line.split_once("listening ") {
                    let _ = tx.send(url.trim().to_owned());
                }
            }
        });
        let url = match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(url) => url,
            Err(_) => {
                let _ = child.kill();
                panic!("the server process did not print its listening line within 30 s");
            }
        };
        Self {
            child,
            _stdin: stdin,
            url,
        }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A reply: status, session id header, and the JSON-RPC message (from JSON or SSE).
struct Reply {
    status: u16,
    session: Option<String>,
    body: Value,
}

impl Reply {
    /// The text of a tool result.
    #[track_caller]
    fn text(&self) -> String {
        assert_eq!(self.status, 200, "{}", self.body);
        assert_ne!(self.body["result"]["isError"], json!(true), "{}", self.body);
        self.body["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_owned()
    }
}

async fn send(
    http: &reqwest::Client,
    method: reqwest::Method,
    url: &str,
    session: Option<&str>,
    body: Option<Value>,
) -> Reply {
    let mut request = http
        .request(method, url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25");
    if let Some(id) = session {
        request = request.header("mcp-session-id", id);
    }
    if let Some(body) = body {
        request = request.body(body.to_string());
    }
    let response = request.send().await.expect("HTTP request");
    let status = response.status().as_u16();
    let session = response
        .headers()
        .get("mcp-session-id")
        .map(|v| v.to_str().unwrap().to_owned());
    let sse = response
        .headers()
        .get("content-type")
        .is_some_and(|v| v.to_str().unwrap_or("").starts_with("text/event-stream"));
    let text = response.text().await.expect("response body");
    let body = if sse {
        text.lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .filter_map(|d| serde_json::from_str(d).ok())
            .next_back()
            .unwrap_or(Value::Null)
    } else {
        serde_json::from_str(&text).unwrap_or(Value::Null)
    };
    Reply {
        status,
        session,
        body,
    }
}

async fn initialize(http: &reqwest::Client, server: &ServerProcess) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "redis-test", "version": "1"}}});
    let r = send(http, reqwest::Method::POST, &server.url, None, Some(init)).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let id = r.session.expect("initialize issues a session id");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let r = send(
        http,
        reqwest::Method::POST,
        &server.url,
        Some(&id),
        Some(initialized),
    )
    .await;
    assert_eq!(r.status, 202);
    id
}

async fn call(
    http: &reqwest::Client,
    server: &ServerProcess,
    session: &str,
    tool: &str,
    args: Value,
) -> Reply {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": tool, "arguments": args}});
    send(
        http,
        reqwest::Method::POST,
        &server.url,
        Some(session),
        Some(body),
    )
    .await
}

fn http_client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap()
}

#[tokio::test]
async fn two_server_processes_serve_one_session_alternately() {
    bounded(async {
        let prefix = unique_prefix("processes");
        connect(&prefix).await; // fail loudly here when Redis is missing
        let a = ServerProcess::start(&prefix, 100, Duration::from_secs(60));
        let b = ServerProcess::start(&prefix, 100, Duration::from_secs(60));
        let http = http_client();
        let id = initialize(&http, &a).await;
        let item = |name: &str| json!({"item": name});
        assert_eq!(
            call(&http, &b, &id, "add_item", item("apple")).await.text(),
            "1"
        );
        assert_eq!(
            call(&http, &a, &id, "add_item", item("pear")).await.text(),
            "2"
        );
        assert_eq!(
            call(&http, &b, &id, "add_item", item("plum")).await.text(),
            "3"
        );
        assert_eq!(
            call(&http, &a, &id, "list_items", json!({})).await.text(),
            r#"["apple","pear","plum"]"#
        );
        // DELETE on B ends the session for A too.
        let r = send(&http, reqwest::Method::DELETE, &b.url, Some(&id), None).await;
        assert_eq!(r.status, 200);
        let r = call(&http, &a, &id, "list_items", json!({})).await;
        assert_eq!(r.status, 404, "{}", r.body);
        let r = send(&http, reqwest::Method::DELETE, &a.url, Some(&id), None).await;
        assert_eq!(r.status, 404);
        cleanup(&prefix).await;
    })
    .await;
}

#[tokio::test]
async fn limits_and_expiry_hold_across_server_processes() {
    bounded(async {
        let prefix = unique_prefix("process-limits");
        connect(&prefix).await;
        let a = ServerProcess::start(&prefix, 2, Duration::from_secs(60));
        let b = ServerProcess::start(&prefix, 2, Duration::from_secs(60));
        let http = http_client();
        // max_anonymous 2: three initializes spread over A and B evict the first.
        let s1 = initialize(&http, &a).await;
        let s2 = initialize(&http, &b).await;
        let s3 = initialize(&http, &a).await;
        for server in [&a, &b] {
            let r = call(&http, server, &s1, "list_items", json!({})).await;
            assert_eq!(r.status, 404, "{}", r.body);
        }
        assert_eq!(
            call(&http, &a, &s2, "list_items", json!({})).await.text(),
            "[]"
        );
        assert_eq!(
            call(&http, &b, &s3, "list_items", json!({})).await.text(),
            "[]"
        );
        // s2 was used before s3, so a fourth session (on B) evicts s2.
        let s4 = initialize(&http, &b).await;
        let r = call(&http, &a, &s2, "list_items", json!({})).await;
        assert_eq!(r.status, 404, "{}", r.body);
        assert_eq!(
            call(&http, &a, &s4, "list_items", json!({})).await.text(),
            "[]"
        );
        drop((a, b));

        // Idle expiry (3 s) across processes: used on A, kept alive by B, then expired.
        let prefix2 = unique_prefix("process-expiry");
        let a = ServerProcess::start(&prefix2, 10, Duration::from_secs(3));
        let b = ServerProcess::start(&prefix2, 10, Duration::from_secs(3));
        let id = initialize(&http, &a).await;
        tokio::time::sleep(Duration::from_millis(1800)).await;
        assert_eq!(
            call(&http, &b, &id, "list_items", json!({})).await.text(),
            "[]"
        );
        tokio::time::sleep(Duration::from_millis(1800)).await;
        // 3.6 s after initialize but 1.8 s after B's request: still alive.
        assert_eq!(
            call(&http, &a, &id, "list_items", json!({})).await.text(),
            "[]"
        );
        tokio::time::sleep(Duration::from_millis(3300)).await;
        let r = call(&http, &b, &id, "list_items", json!({})).await;
        assert_eq!(r.status, 404, "{}", r.body);
        cleanup(&prefix).await;
        cleanup(&prefix2).await;
    })
    .await;
}
