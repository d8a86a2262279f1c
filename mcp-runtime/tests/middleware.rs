//! MCP-level middleware on every transport (Streamable HTTP, stdio, in-process) and in both
//! eras: what a layer sees, what it may change, how its refusals and failures reach a real
//! client, tower's own layers, and the stock rate, concurrency and deadline layers.
#![allow(missing_docs)]

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::task::{Context as TaskContext, Poll};
use std::time::Duration;

use mcp::client::{Client, ClientConfig};
use mcp::middleware::{ConcurrencyLimitLayer, DeadlineLayer, Next, Quota, RateLimitLayer};
use mcp::protocol::{ElicitRequest, ElicitResult, Era, ErrorCode, ErrorObject};
use mcp::{Caller, McpRequest, McpResponse, ToolOutput, TransportKind};
use serde_json::{Value, json};
use tower::{Service, ServiceExt as _};

mod stream;

use stream::{Wire, every};

struct Shop;

#[mcp::service(name = "shop", version = "1.0.0")]
impl Shop {
    /// Adds two numbers.
    pub fn add(&self, a: i64, b: i64) -> i64 {
        a + b
    }

    /// Takes its time (a second), unless dropped.
    pub async fn slow(&self) -> String {
        tokio::time::sleep(Duration::from_secs(1)).await;
        "slept".into()
    }

    /// Asks the user to confirm (two rounds on modern clients).
    pub async fn confirm(&self, ctx: mcp::Context) -> Result<ToolOutput<String>, mcp::ToolError> {
        stream::confirm_round(&ctx)
    }

    /// The greeting.
    #[resource(uri = "shop://hello", mime_type = "text/plain")]
    fn hello(&self) -> String {
        "hello".into()
    }

    /// Greets someone.
    #[prompt]
    fn greet(&self, name: String) -> String {
        format!("Say hello to {name}")
    }
}

/// What a recording layer saw of one request.
#[derive(Clone, Debug, PartialEq)]
struct Sight {
    method: String,
    target: Option<String>,
    arguments: Option<Value>,
    era: Era,
    transport: TransportKind,
    caller: Caller,
    continuation: bool,
    outcome: Result<(), i32>,
}

/// A layer that records what it sees, then passes the request on.
#[derive(Clone)]
struct Record {
    next: Next,
    seen: Arc<Mutex<Vec<Sight>>>,
}

impl Service<McpRequest> for Record {
    type Response = McpResponse;
    type Error = Infallible;
    type Future = mcp::BoxFuture<'static, Result<McpResponse, Infallible>>;

    fn poll_ready(&mut self, _: &mut TaskContext<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        let mut sight = Sight {
            method: request.method().to_owned(),
            target: request.target().map(str::to_owned),
            arguments: request.arguments().cloned().map(Value::Object),
            era: request.era(),
            transport: request.transport(),
            caller: request.caller(),
            continuation: request.is_continuation(),
            outcome: Ok(()),
        };
        let (next, seen) = (self.next.clone(), self.seen.clone());
        Box::pin(async move {
            let response = next.oneshot(request).await?;
            sight.outcome = response.error().map_or(Ok(()), |e| Err(e.code.get()));
            seen.lock().unwrap().push(sight);
            Ok(response)
        })
    }
}

fn recorder(seen: &Arc<Mutex<Vec<Sight>>>) -> impl tower::Layer<Next, Service = Record> + use<> {
    let seen = seen.clone();
    tower::layer::layer_fn(move |next| Record {
        next,
        seen: seen.clone(),
    })
}

/// A client that accepts every elicitation.
fn accepting() -> ClientConfig {
    ClientConfig::new().elicitation_handler(|_: ElicitRequest| async {
        Ok(ElicitResult::accept(
            json!({"ok": true}).as_object().cloned().unwrap_or_default(),
        ))
    })
}

async fn connect(wire: Wire, era: Era, server: mcp::Server) -> Client {
    stream::connect(wire, era, server, accepting()).await
}

fn transport_of(wire: Wire) -> TransportKind {
    match wire {
        Wire::Http => TransportKind::Http,
        Wire::Stdio => TransportKind::Stdio,
        Wire::InProcess => TransportKind::InProcess,
    }
}

/// The JSON-RPC error of a failed call.
fn rpc_error<T: std::fmt::Debug>(outcome: Result<T, mcp::client::ClientError>) -> ErrorObject {
    match outcome {
        Err(e) => e
            .rpc()
            .cloned()
            .unwrap_or_else(|| panic!("not a JSON-RPC error: {e}")),
        Ok(v) => panic!("expected a JSON-RPC error, got {v:?}"),
    }
}

#[tokio::test]
async fn a_server_layer_sees_every_request_typed() {
    every(|wire, era| async move {
        let seen = Arc::default();
        let server = mcp::Server::builder(Shop)
            .layer(recorder(&seen))
            .build()
            .unwrap();
        let client = connect(wire, era, server).await;
        let sum = stream::call(&client, "add", json!({"a": 2, "b": 3}))
            .await
            .unwrap();
        assert_eq!(sum.joined_text(), "5", "{wire:?} {era:?}");
        client
            .get_prompt("greet", BTreeMap::from([("name".into(), "Ada".into())]))
            .await
            .unwrap();
        client.read_resource("shop://hello").await.unwrap();
        let confirmed = client.call("confirm").send().await.unwrap();
        assert_eq!(
            confirmed.joined_text(),
            "confirmed true",
            "{wire:?} {era:?}"
        );

        let sights = seen.lock().unwrap().clone();
        let ctx = format!("{wire:?} {era:?}: {sights:#?}");
        for sight in &sights {
            assert_eq!(sight.era, era, "{ctx}");
            assert_eq!(sight.transport, transport_of(wire), "{ctx}");
            match (wire, &sight.caller) {
                (Wire::Http, Caller::Address(ip)) => assert!(ip.is_loopback(), "{ctx}"),
                (Wire::Stdio | Wire::InProcess, Caller::Connection(_)) => {}
                (_, other) => panic!("{ctx}: caller {other:?}"),
            }
        }
        let calls: Vec<_> = sights.iter().filter(|s| s.method == "tools/call").collect();
        let add = calls
            .iter()
            .find(|s| s.target.as_deref() == Some("add"))
            .expect(&ctx);
        assert_eq!(add.arguments, Some(json!({"a": 2, "b": 3})), "{ctx}");
        assert!(!add.continuation, "{ctx}");
        let prompt = sights
            .iter()
            .find(|s| s.method == "prompts/get")
            .expect(&ctx);
        assert_eq!(prompt.target.as_deref(), Some("greet"), "{ctx}");
        assert_eq!(prompt.arguments, Some(json!({"name": "Ada"})), "{ctx}");
        let read = sights
            .iter()
            .find(|s| s.method == "resources/read")
            .expect(&ctx);
        assert_eq!(read.target.as_deref(), Some("shop://hello"), "{ctx}");
        // A modern multi-round call is two requests, the second a continuation; a legacy
        // one asks the client inside one request.
        let rounds: Vec<bool> = calls
            .iter()
            .filter(|s| s.target.as_deref() == Some("confirm"))
            .map(|s| s.continuation)
            .collect();
        match era {
            Era::Modern => assert_eq!(rounds, [false, true], "{ctx}"),
            Era::Legacy => assert_eq!(rounds, [false], "{ctx}"),
        }
        if era == Era::Legacy {
            assert!(sights.iter().any(|s| s.method == "initialize"), "{ctx}");
        }
    })
    .await;
}

/// Multiplies the `a` argument of the calls it sees by 10.
fn tenfold_a(mut request: McpRequest) -> McpRequest {
    if let Some(a) = request.arguments_mut().and_then(|args| args.get_mut("a")) {
        *a = json!(a.as_i64().unwrap_or_default() * 10);
    }
    request
}

/// Appends " (checked)" to the text of a tool result.
fn stamp_result(response: McpResponse) -> McpResponse {
    let Some(mut result) = response.result_value() else {
        return response;
    };
    if let Some(text) = result["content"][0]["text"].as_str() {
        result["content"][0]["text"] = json!(format!("{text} (checked)"));
    }
    McpResponse::from_result(&result).unwrap()
}

#[tokio::test]
async fn layers_change_requests_and_results() {
    every(|wire, era| async move {
        let server = mcp::Server::builder(Shop)
            .tool_layer(
                "add",
                tower::layer::layer_fn(|next| tower::util::MapRequest::new(next, tenfold_a)),
            )
            .tool_layer(
                "add",
                tower::layer::layer_fn(|next: Next| {
                    tower::util::MapResponse::new(next, stamp_result)
                }),
            )
            .build()
            .unwrap();
        let client = connect(wire, era, server).await;
        let sum = stream::call(&client, "add", json!({"a": 2, "b": 3}))
            .await
            .unwrap();
        assert_eq!(sum.joined_text(), "23 (checked)", "{wire:?} {era:?}");
        // Other tools are untouched.
        let read = client.read_resource("shop://hello").await.unwrap();
        let read = serde_json::to_value(&read).unwrap();
        assert_eq!(read["contents"][0]["text"], "hello", "{wire:?} {era:?}");
    })
    .await;
}

#[tokio::test]
async fn stock_refusals_reach_the_client_as_documented_errors() {
    every(|wire, era| async move {
        let server = mcp::Server::builder(Shop)
            .tool_layer("add", RateLimitLayer::per_caller(Quota::per_minute(2)))
            .tool_layer("slow", DeadlineLayer::new(Duration::from_millis(100)))
            .prompt_layer("greet", ConcurrencyLimitLayer::total(1))
            .prompt_layer("greet", DeadlineLayer::new(Duration::from_secs(5)))
            .build()
            .unwrap();
        let client = connect(wire, era, server).await;
        let add = || {
            client
                .call("add")
                .arguments(json!({"a": 1, "b": 1}))
                .unwrap()
                .send()
        };
        add().await.unwrap();
        add().await.unwrap();
        let limited = rpc_error(add().await);
        assert_eq!(limited.code, ErrorCode::RATE_LIMITED, "{wire:?} {era:?}");
        assert_eq!(limited.message, "Rate limit exceeded", "{wire:?} {era:?}");
        let data = limited.data.clone().unwrap_or_default();
        let retry = data["retryAfterMs"].as_u64().unwrap_or_default();
        assert!(
            (25_000..=30_000).contains(&retry),
            "{wire:?} {era:?}: {data}"
        );
        assert_eq!(
            data["retryAfter"],
            json!(retry.div_ceil(1000)),
            "{wire:?} {era:?}"
        );

        let started = std::time::Instant::now();
        let late = rpc_error(client.call("slow").send().await);
        assert_eq!(late.code, ErrorCode::REQUEST_TIMEOUT, "{wire:?} {era:?}");
        assert_eq!(
            late.data,
            Some(json!({"timeoutMs": 100})),
            "{wire:?} {era:?}"
        );
        assert!(
            started.elapsed() < Duration::from_millis(900),
            "{wire:?} {era:?}: the handler was not dropped"
        );
        // The server goes on serving after the refusals.
        client
            .get_prompt("greet", BTreeMap::from([("name".into(), "Ada".into())]))
            .await
            .unwrap();
    })
    .await;
}

/// Panics on a call of `add` (a layer's bug).
fn panic_on_add(request: McpRequest) -> McpRequest {
    assert!(request.target() != Some("add"), "a layer bug");
    request
}

#[tokio::test]
async fn a_panicking_layer_answers_internal_error_and_the_server_keeps_serving() {
    every(|wire, era| async move {
        let server = mcp::Server::builder(Shop)
            .layer(tower::layer::layer_fn(|next| {
                tower::util::MapRequest::new(next, panic_on_add)
            }))
            .build()
            .unwrap();
        let client = connect(wire, era, server).await;
        for _ in 0..2 {
            let error = rpc_error(stream::call(&client, "add", json!({"a": 1, "b": 1})).await);
            assert_eq!(error.code, ErrorCode::INTERNAL_ERROR, "{wire:?} {era:?}");
            assert_eq!(error.message, "Internal error", "{wire:?} {era:?}");
            let read = client.read_resource("shop://hello").await.unwrap();
            let read = serde_json::to_value(&read).unwrap();
            assert_eq!(read["contents"][0]["text"], "hello", "{wire:?} {era:?}");
        }
    })
    .await;
}

#[tokio::test]
async fn towers_own_layers_work_as_they_are() {
    every(|wire, era| async move {
        let server = mcp::Server::builder(Shop)
            // tower's `RateLimit` must not be cloned: the server builds it once.
            .layer(tower::limit::RateLimitLayer::new(
                100,
                Duration::from_secs(1),
            ))
            .tool_layer(
                "slow",
                tower::timeout::TimeoutLayer::new(Duration::from_millis(50)),
            )
            .tool_layer(
                "confirm",
                tower::ServiceBuilder::new()
                    .load_shed()
                    .concurrency_limit(1)
                    .layer(DeadlineLayer::new(Duration::from_secs(10))),
            )
            .build()
            .unwrap();
        let client = connect(wire, era, server).await;
        let late = rpc_error(client.call("slow").send().await);
        assert_eq!(late.code, ErrorCode::REQUEST_TIMEOUT, "{wire:?} {era:?}");
        assert_eq!(late.message, "Request timed out", "{wire:?} {era:?}");
        let confirmed = client.call("confirm").send().await.unwrap();
        assert_eq!(
            confirmed.joined_text(),
            "confirmed true",
            "{wire:?} {era:?}"
        );
        let sum = stream::call(&client, "add", json!({"a": 4, "b": 5}))
            .await
            .unwrap();
        assert_eq!(sum.joined_text(), "9", "{wire:?} {era:?}");
    })
    .await;
}

/// Arguments `tool` takes.
fn arguments(tool: &str) -> Value {
    match tool {
        "add" => json!({"a": 1, "b": 2}),
        _ => json!({}),
    }
}

/// A `tools/call` of `tool` by `subject` (`None`: anonymous), for the server's tower
/// `Service`.
fn call(tool: &str, subject: Option<&str>) -> McpRequest {
    let request = mcp::protocol::Request {
        id: mcp::protocol::RequestId::Number(1),
        method: "tools/call".into(),
        params: json!({"name": tool, "arguments": arguments(tool)})
            .as_object()
            .cloned(),
    };
    let auth = subject.map(|s| mcp::AuthContext::new().with_issuer("test").with_subject(s));
    McpRequest::new(request, Era::Legacy, "2025-06-18").with_auth(auth)
}

#[tokio::test]
async fn a_burst_from_one_caller_is_refused_and_other_callers_are_served() {
    let server = mcp::Server::builder(Shop)
        .layer(RateLimitLayer::per_caller(Quota::per_minute(100)))
        .build()
        .unwrap();
    let burst: Vec<_> = (0..10_000)
        .map(|_| server.clone().oneshot(call("add", Some("mallory"))))
        .collect();
    let (mut served, mut refused) = (0, 0);
    for outcome in futures_util::future::join_all(burst).await {
        match outcome.unwrap().error() {
            None => served += 1,
            Some(e) if e.code == ErrorCode::RATE_LIMITED => refused += 1,
            Some(e) => panic!("unexpected {e:?}"),
        }
    }
    assert_eq!((served, refused), (100, 9_900));
    for who in ["alice", "bob"] {
        let answer = server
            .clone()
            .oneshot(call("add", Some(who)))
            .await
            .unwrap();
        assert_eq!(answer.error(), None, "{who}");
    }
}

#[tokio::test]
async fn a_concurrency_limit_per_caller_refuses_the_callers_extra_call_only() {
    let server = mcp::Server::builder(Shop)
        .tool_layer("slow", ConcurrencyLimitLayer::per_caller(1))
        .build()
        .unwrap();
    let first = tokio::spawn(server.clone().oneshot(call("slow", Some("alice"))));
    tokio::time::sleep(Duration::from_millis(100)).await;
    let extra = server
        .clone()
        .oneshot(call("slow", Some("alice")))
        .await
        .unwrap();
    let error = extra.error().expect("refused");
    assert_eq!(error.code, ErrorCode::OVERLOADED);
    assert_eq!(error.data, Some(json!({"limit": 1})));
    let other = server
        .clone()
        .oneshot(call("slow", Some("bob")))
        .await
        .unwrap();
    assert_eq!(other.error(), None);
    assert_eq!(first.await.unwrap().unwrap().error(), None);
    // The slot came back.
    let again = server
        .clone()
        .oneshot(call("slow", Some("alice")))
        .await
        .unwrap();
    assert_eq!(again.error(), None);
}

#[tokio::test]
async fn a_refusing_layer_answers_its_own_error() {
    let refuse = tower::layer::layer_fn(|_next: Next| {
        tower::service_fn(|_request: McpRequest| async {
            Err::<McpResponse, _>(mcp::middleware::Refusal::new(ErrorObject::new(
                ErrorCode::INVALID_PARAMS,
                "not today",
            )))
        })
    });
    let broken = tower::layer::layer_fn(|_next: Next| {
        tower::service_fn(|_request: McpRequest| async {
            Err::<McpResponse, _>(std::io::Error::other("the secret is 42"))
        })
    });
    let server = mcp::Server::builder(Shop)
        .tool_layer("add", refuse)
        .tool_layer("slow", broken)
        .build()
        .unwrap();
    let refused = server.clone().oneshot(call("add", None)).await.unwrap();
    assert_eq!(
        refused.error(),
        Some(ErrorObject::new(ErrorCode::INVALID_PARAMS, "not today"))
    );
    let failed = server.clone().oneshot(call("slow", None)).await.unwrap();
    let error = failed.error().unwrap();
    assert_eq!(
        (error.code, error.message.as_str()),
        (ErrorCode::INTERNAL_ERROR, "Internal error")
    );
    assert!(!format!("{error:?}").contains("secret"));
}

#[test]
fn a_layer_on_a_tool_the_service_lacks_is_a_build_error() {
    let error = mcp::Server::builder(Shop)
        .tool_layer("nope", DeadlineLayer::new(Duration::from_secs(1)))
        .build()
        .unwrap_err();
    assert!(error.to_string().contains("\"nope\""), "{error}");
}

/// A writer the test reads back.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn the_access_log_names_each_request_and_nothing_secret() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_env_filter("mcp::access=info")
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    let server = mcp::Server::builder(Shop)
        .layer(mcp::middleware::AccessLogLayer::new())
        .tool_layer("slow", RateLimitLayer::per_caller(Quota::per_minute(1)))
        .build()
        .unwrap();
    let mut request = call("add", Some("alice"));
    request = request.with_auth(Some(
        mcp::AuthContext::new()
            .with_issuer("test")
            .with_subject("alice")
            .with_token("sekrit-token"),
    ));
    server.clone().oneshot(request).await.unwrap();
    server.clone().oneshot(call("slow", None)).await.unwrap();
    server.clone().oneshot(call("slow", None)).await.unwrap();
    let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), 3, "{log}");
    for field in [
        "method=tools/call",
        "target=add",
        r#"caller=id:["token","test","","alice"]"#,
        "era=legacy",
        "transport=in-process",
        "continuation=false",
        "outcome=ok",
        "code=0",
        "duration_us=",
    ] {
        assert!(lines[0].contains(field), "{field} in {}", lines[0]);
    }
    assert!(
        lines[1].contains("target=slow") && lines[1].contains("outcome=ok"),
        "{log}"
    );
    assert!(
        lines[2].contains("outcome=error") && lines[2].contains("code=-32029"),
        "{log}"
    );
    assert!(!log.contains("sekrit") && !log.contains("\"a\""), "{log}");
}

#[tokio::test]
async fn towers_load_shedding_answers_server_overloaded() {
    let server = mcp::Server::builder(Shop)
        .tool_layer(
            "slow",
            tower::ServiceBuilder::new()
                .load_shed()
                .concurrency_limit(1),
        )
        .build()
        .unwrap();
    let first = tokio::spawn(server.clone().oneshot(call("slow", None)));
    tokio::time::sleep(Duration::from_millis(100)).await;
    let shed = server.clone().oneshot(call("slow", None)).await.unwrap();
    assert_eq!(
        shed.error(),
        Some(ErrorObject::new(ErrorCode::OVERLOADED, "Server overloaded"))
    );
    assert_eq!(first.await.unwrap().unwrap().error(), None);
}

#[test]
fn a_resource_layer_on_an_invalid_uri_template_is_a_build_error() {
    let error = mcp::Server::builder(Shop)
        .resource_layer("shop://{bad", DeadlineLayer::new(Duration::from_secs(1)))
        .build()
        .unwrap_err();
    assert!(error.to_string().contains("not a URI template"), "{error}");
}
