//! The Redis event bus against a real `redis-server` this test starts on a free port (it
//! must be on `PATH`; the test fails, never skips, without it): two replicas in one process
//! with their own `RedisBus`, a modern listener on one hearing changes raised on the other,
//! then Redis stopped during notifications (no panic, the publisher's own clients still
//! served) and started again: the listener is told every list may have changed (the
//! documented resync) and later changes flow again.
#![allow(missing_docs)]

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use axum::body::Body;
use http_body_util::BodyExt as _;
use mcp::notify::RedisBus;
use mcp::testing::{PATH, TestClient};
use serde_json::{Value, json};
use tower::ServiceExt as _;

struct Svc;

#[mcp::service(name = "bus-test", version = "1.0.0")]
impl Svc {
    /// Echoes.
    pub fn echo(&self, text: String) -> String {
        text
    }
}

/// A `redis-server` child on `port`; killed when dropped.
struct Redis {
    child: Child,
    port: u16,
}

impl Redis {
    fn start(port: u16) -> Self {
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start redis-server ({e}): install Redis (Debian: apt-get install redis-server); this test never skips"));
        Self { child, port }
    }

    async fn ready(&self) {
        for _ in 0..100 {
            if tokio::net::TcpStream::connect(("127.0.0.1", self.port))
                .await
                .is_ok()
            {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("redis-server did not listen on port {}", self.port);
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Reads SSE `data:` messages.
struct Sse {
    body: Body,
    buffer: String,
}

impl Sse {
    async fn next_within(&mut self, wait: Duration) -> Option<Value> {
        tokio::time::timeout(wait, async {
            loop {
                if let Some(end) = self.buffer.find("\n\n") {
                    let event: String = self.buffer.drain(..end + 2).collect();
                    let data: String = event
                        .lines()
                        .filter_map(|l| l.strip_prefix("data: "))
                        .collect();
                    if !data.is_empty() {
                        return Some(serde_json::from_str(&data).unwrap());
                    }
                    continue;
                }
                match self.body.frame().await {
                    Some(Ok(f)) => {
                        if let Ok(d) = f.into_data() {
                            self.buffer.push_str(&String::from_utf8_lossy(&d));
                        }
                    }
                    _ => return None,
                }
            }
        })
        .await
        .ok()
        .flatten()
    }
}

async fn replica(url: &str, channel: &str) -> mcp::Server {
    let bus = RedisBus::connect_to_channel(url, channel)
        .await
        .expect("bus");
    mcp::Server::builder(Svc)
        .list_changed(true)
        .event_bus(bus)
        .build()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn changes_cross_replicas_and_survive_a_redis_restart() {
    let port = free_port();
    let redis = Redis::start(port);
    redis.ready().await;
    let channel = format!("mcp-test:{}", std::process::id());
    let a = replica(&redis.url(), &channel).await;
    let b = replica(&redis.url(), &channel).await;
    let request = TestClient::new(a.clone()).modern_request(
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true}}),
    );
    let response = match mcp::transport::http::router(PATH, a.clone())
        .oneshot(request)
        .await
    {
        Ok(r) => r,
        Err(never) => match never {},
    };
    let mut sse = Sse {
        body: response.into_body(),
        buffer: String::new(),
    };
    let ack = sse.next_within(Duration::from_secs(5)).await.unwrap();
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");

    b.notifier().tools_changed();
    let heard = sse.next_within(Duration::from_secs(1)).await;
    assert_eq!(heard.unwrap()["method"], "notifications/tools/list_changed");

    // Redis goes away during notifications: publishing fails quietly.
    drop(redis);
    for _ in 0..5 {
        b.notifier().tools_changed();
    }
    // The publisher's own listeners are still served without Redis.
    let own = TestClient::new(b.clone()).modern_request(
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true}}),
    );
    let response = match mcp::transport::http::router(PATH, b.clone())
        .oneshot(own)
        .await
    {
        Ok(r) => r,
        Err(never) => match never {},
    };
    let mut own = Sse {
        body: response.into_body(),
        buffer: String::new(),
    };
    own.next_within(Duration::from_secs(5)).await.unwrap();
    b.notifier().tools_changed();
    assert_eq!(
        own.next_within(Duration::from_secs(1)).await.unwrap()["method"],
        "notifications/tools/list_changed"
    );
    tokio::time::sleep(Duration::from_millis(300)).await;

    // Redis comes back on the same port: the listener is told that the list may have
    // changed (resync), then later changes flow again.
    let redis = Redis::start(port);
    redis.ready().await;
    let resync = sse.next_within(Duration::from_secs(10)).await;
    assert_eq!(
        resync.unwrap()["method"],
        "notifications/tools/list_changed"
    );
    let mut delivered = false;
    for _ in 0..50 {
        b.notifier().tools_changed();
        if let Some(m) = sse.next_within(Duration::from_millis(200)).await {
            assert_eq!(m["method"], "notifications/tools/list_changed");
            delivered = true;
            break;
        }
    }
    assert!(delivered, "changes flow again after Redis is back");
    assert_eq!(a.notifier().listener_count(), 1);
}

#[tokio::test]
async fn an_unreachable_redis_is_a_typed_error_without_credentials() {
    let port = free_port();
    let err = RedisBus::connect(&format!("redis://user:s3cret@127.0.0.1:{port}"))
        .await
        .expect_err("nothing listens there");
    let text = err.to_string();
    assert!(matches!(err, mcp::notify::BusError::Unavailable(_)));
    assert!(!text.contains("s3cret"), "{text}");
    assert!(text.contains("127.0.0.1"), "{text}");
}
