//! The middleware keys of `#[tool]`, `#[prompt]` and `#[resource]` act: a server built from
//! the attributes alone times out, rate-limits and bounds concurrency as the generated
//! layers say, through the in-process client (a real round trip, both eras), and once
//! through the server's `tower::Service` directly.
#![allow(missing_docs)]

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp::client::{Client, ClientConfig, ClientError, ProtocolMode};
use mcp::protocol::{ErrorCode, ErrorObject};
use mcp::{Implementation, McpRequest};
use serde_json::{Value, json};
use tokio::sync::Notify;

/// Tells the test when the slow tool has started, and lets it finish.
#[derive(Default)]
struct Gate {
    started: Notify,
    release: Notify,
}

struct Svc {
    gate: Arc<Gate>,
}

#[mcp::service(name = "middleware-attrs", version = "1.0.0")]
impl Svc {
    /// Sleeps for 5 s, past its deadline.
    #[tool(timeout = "50ms")]
    pub async fn slow(&self) -> String {
        tokio::time::sleep(Duration::from_secs(5)).await;
        "woke".into()
    }

    /// Two calls a minute for each caller.
    #[tool(rate_limit = "2/min")]
    pub fn limited(&self) -> String {
        "ok".into()
    }

    /// One call at a time, for all callers; waits until the test releases it.
    #[tool(concurrency = 1)]
    pub async fn single(&self) -> String {
        self.gate.started.notify_one();
        self.gate.release.notified().await;
        "done".into()
    }

    /// One prompt a minute for each caller.
    #[prompt(rate_limit = "1/min")]
    fn greet(&self, name: String) -> String {
        format!("Greet {name}")
    }

    /// A slow resource.
    #[resource(uri = "slow://resource", timeout = "50ms")]
    async fn slow_resource(&self) -> String {
        tokio::time::sleep(Duration::from_secs(5)).await;
        "late".into()
    }

    /// A template, one read a minute for each caller.
    #[resource(template = "notes://{name}", rate_limit = "1/min")]
    fn note(&self, name: String) -> String {
        name
    }
}

fn server() -> (mcp::Server, Arc<Gate>) {
    let gate = Arc::new(Gate::default());
    let server = mcp::Server::builder(Svc { gate: gate.clone() })
        .build()
        .unwrap();
    (server, gate)
}

/// A connected in-process client of `server` (a caller of its own).
async fn client(server: &mcp::Server, mode: ProtocolMode) -> Client {
    let config = ClientConfig::new()
        .protocol_mode(mode)
        .timeout(Duration::from_secs(10));
    let client = Client::in_process(server.clone().in_process(), config).unwrap();
    client
        .connect(Implementation::new("middleware-attrs-test", "1.0.0"))
        .await
        .unwrap();
    client
}

async fn bounded<T>(test: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(30), test)
        .await
        .expect("the test finished in time")
}

/// The JSON-RPC error a failed client call got.
fn rpc(result: Result<impl std::fmt::Debug, ClientError>) -> ErrorObject {
    match result {
        Ok(v) => panic!("expected a JSON-RPC error, got {v:?}"),
        Err(e) => e
            .rpc()
            .cloned()
            .unwrap_or_else(|| panic!("not a JSON-RPC error: {e:?}")),
    }
}

fn data(error: &ErrorObject, key: &str) -> Value {
    error
        .data
        .as_ref()
        .and_then(|d| d.get(key))
        .cloned()
        .unwrap_or_else(|| panic!("no `data.{key}` in {error:?}"))
}

fn assert_rate_limited(error: &ErrorObject) {
    assert_eq!(error.code, ErrorCode::RATE_LIMITED, "{error:?}");
    assert_eq!(error.message, "Rate limit exceeded");
    assert!(
        data(error, "retryAfterMs").as_u64().unwrap() > 0,
        "{error:?}"
    );
    assert!(data(error, "retryAfter").as_u64().unwrap() > 0, "{error:?}");
}

#[tokio::test]
async fn a_tool_timeout_answers_request_timed_out_in_both_eras() {
    bounded(async {
        let (server, _) = server();
        for mode in [ProtocolMode::Modern, ProtocolMode::Legacy] {
            let client = client(&server, mode).await;
            let started = Instant::now();
            let error = rpc(client.call("slow").await);
            assert!(started.elapsed() < Duration::from_secs(2), "{mode:?}");
            assert_eq!(
                error.code,
                ErrorCode::REQUEST_TIMEOUT,
                "{mode:?}: {error:?}"
            );
            assert_eq!(error.message, "Request timed out");
            assert_eq!(data(&error, "timeoutMs"), json!(50));
            client.close().await.unwrap();
        }
    })
    .await;
}

#[tokio::test]
async fn a_tool_rate_limit_counts_per_caller() {
    bounded(async {
        let (server, _) = server();
        let first = client(&server, ProtocolMode::Auto).await;
        for _ in 0..2 {
            let result = first.call("limited").await.unwrap();
            assert_eq!(result.joined_text(), "ok");
        }
        assert_rate_limited(&rpc(first.call("limited").await));
        // Another caller (another connection) has its own budget.
        let second = client(&server, ProtocolMode::Auto).await;
        assert_eq!(second.call("limited").await.unwrap().joined_text(), "ok");
        // The first caller is still refused.
        assert_rate_limited(&rpc(first.call("limited").await));
    })
    .await;
}

#[tokio::test]
async fn a_tool_concurrency_limit_refuses_a_second_call_in_flight() {
    bounded(async {
        let (server, gate) = server();
        // Two connections: an in-process client has one exchange at a time. The limit is
        // for all callers, so the second caller is refused while the first call runs.
        let first = client(&server, ProtocolMode::Auto).await;
        let second = client(&server, ProtocolMode::Legacy).await;
        let held = tokio::spawn(async move { first.call("single").await });
        gate.started.notified().await;
        let error = rpc(second.call("single").await);
        assert_eq!(error.code, ErrorCode::OVERLOADED, "{error:?}");
        assert_eq!(error.message, "Server overloaded");
        assert_eq!(data(&error, "limit"), json!(1));
        gate.release.notify_one();
        assert_eq!(held.await.unwrap().unwrap().joined_text(), "done");
        // The slot is free again.
        let again = tokio::spawn(async move { second.call("single").await });
        gate.started.notified().await;
        gate.release.notify_one();
        assert_eq!(again.await.unwrap().unwrap().joined_text(), "done");
    })
    .await;
}

#[tokio::test]
async fn prompt_and_resource_keys_act() {
    bounded(async {
        let (server, _) = server();
        let client = client(&server, ProtocolMode::Auto).await;
        let args = BTreeMap::from([("name".to_owned(), "Ada".to_owned())]);
        client.get_prompt("greet", args.clone()).await.unwrap();
        assert_rate_limited(&rpc(client.get_prompt("greet", args).await));

        let started = Instant::now();
        let error = rpc(client.read_resource("slow://resource").await);
        assert!(started.elapsed() < Duration::from_secs(2));
        assert_eq!(error.code, ErrorCode::REQUEST_TIMEOUT, "{error:?}");
        assert_eq!(data(&error, "timeoutMs"), json!(50));

        // A template's layers hold for every URI it matches, in one budget.
        client.read_resource("notes://a").await.unwrap();
        assert_rate_limited(&rpc(client.read_resource("notes://b").await));
    })
    .await;
}

#[tokio::test]
async fn the_server_as_a_tower_service_times_out_too() {
    bounded(async {
        let (server, _) = server();
        let request = McpRequest::new(
            mcp::protocol::Request {
                id: mcp::protocol::RequestId::Number(1),
                method: "tools/call".into(),
                params: json!({"name": "slow", "arguments": {}})
                    .as_object()
                    .cloned(),
            },
            mcp::protocol::Era::Legacy,
            "2025-06-18",
        );
        let response = tower::ServiceExt::oneshot(server.clone(), request)
            .await
            .unwrap();
        let error = response.error().expect("an error response");
        assert_eq!(error.code, ErrorCode::REQUEST_TIMEOUT, "{error:?}");
    })
    .await;
}
