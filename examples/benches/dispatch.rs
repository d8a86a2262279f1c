//! Per-request cost of the framework against a bare axum JSON handler, without sockets:
//! `cargo bench -p mcp-examples --bench dispatch`.
//!
//! Each benchmark sends one request through `tower::ServiceExt::oneshot` of a router and reads
//! the whole response body. The requests are the fixtures of [`mcp_examples::bench::Kind`]
//! (the same bytes `examples/load.rs` sends over TCP): a modern `tools/call` and a legacy
//! `tools/call` of the `add` tool ([`mcp_examples::bench::Add`]) and a `server/discover`, all through
//! `mcp::transport::http::router`, and the modern `tools/call` body through
//! [`mcp_examples::bench::bare_router`]. Requests are built outside the timed section.
//!
//! The `middleware` group sends the modern `tools/call` through the same router with the stock
//! layers on: an in-memory rate limit per caller that always serves, the same limit refusing
//! every call (what a burst from one caller costs once its budget is spent), and the access
//! log with its event disabled.
//!
//! The `tasks` group compares, on one service, a modern `tools/call` of a plain tool, of a
//! task-capable tool from a client without the tasks extension (a plain call), of the same
//! tool from a client that declares it (a task created in memory, settled and answered as a
//! handle: the tool returns at once), a `tasks/get` of a completed task, and the bare axum
//! handler.
//!
//! The `rate_limit` group times the modern `tools/call` through the in-process transport
//! without a rate limit, behind `RateLimitLayer::per_caller(1000000/sec)` in memory, and —
//! built with `--features redis` and `MCP_REDIS_URL` set — the same limit shared through
//! that Redis (`RedisRateStore`: one script round trip per call): `MCP_REDIS_URL=redis://…
//! cargo bench -p mcp-examples --features redis --bench dispatch -- rate_limit`.

// criterion_group! and criterion_main! generate undocumented public functions.
#![allow(missing_docs)]

use std::hint::black_box;

use axum::Router;
use axum::body::Body;
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use http_body_util::BodyExt as _;
use mcp_examples::bench::{Kind, bare_router};
use tower::ServiceExt as _;

fn routers() -> (Router, Router) {
    let server = mcp_examples::bench::server()
        .build()
        .expect("the add server builds");
    (
        mcp::transport::http::router("/mcp", server),
        bare_router("/mcp"),
    )
}

async fn roundtrip(router: Router, request: http::Request<Body>) -> bytes::Bytes {
    let response = router.oneshot(request).await.expect("infallible");
    assert!(response.status().is_success(), "{}", response.status());
    response
        .into_body()
        .collect()
        .await
        .expect("in-memory body")
        .to_bytes()
}

fn dispatch(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let (mcp_router, bare) = routers();

    // Fail fast on a fixture the server refuses instead of timing error paths.
    runtime.block_on(async {
        for kind in [Kind::Modern, Kind::Legacy, Kind::Discover] {
            let body = roundtrip(mcp_router.clone(), kind.request("/mcp")).await;
            assert!(
                !body.windows(8).any(|w| w == b"\"error\":"),
                "{kind:?}: {}",
                String::from_utf8_lossy(&body)
            );
        }
    });

    let mut group = c.benchmark_group("oneshot");
    group.throughput(Throughput::Elements(1));
    for (name, kind, router) in [
        ("mcp_modern_tools_call", Kind::Modern, &mcp_router),
        ("mcp_legacy_tools_call", Kind::Legacy, &mcp_router),
        ("mcp_server_discover", Kind::Discover, &mcp_router),
        ("bare_axum_json", Kind::Bare, &bare),
    ] {
        group.bench_function(name, |b| {
            b.to_async(&runtime).iter_batched(
                || (router.clone(), kind.request::<Body>("/mcp")),
                |(router, request)| async move { black_box(roundtrip(router, request).await) },
                BatchSize::SmallInput,
            );
        });
    }
    group.finish();

    // The same modern and legacy `tools/call` through the in-process transport: one
    // connection, each answer awaited before the next call (latency, not throughput).
    let mut group = c.benchmark_group("in_process");
    group.throughput(Throughput::Elements(1));
    for (name, legacy) in [
        ("mcp_modern_tools_call", false),
        ("mcp_legacy_session_tools_call", true),
    ] {
        let end = runtime.block_on(async {
            let server = mcp_examples::bench::server()
                .build()
                .expect("the add server builds");
            let mut end = server.in_process();
            if legacy {
                end.send(mcp_examples::bench::LEGACY_INITIALIZE.to_owned())
                    .await
                    .expect("served");
                end.recv().await.expect("initialized");
                end.send(mcp_examples::bench::LEGACY_INITIALIZED.to_owned())
                    .await
                    .expect("served");
            }
            end
        });
        let end = std::sync::Arc::new(tokio::sync::Mutex::new(end));
        let call = if legacy {
            mcp_examples::bench::ADD_LEGACY
        } else {
            mcp_examples::bench::ADD_MODERN
        };
        group.bench_function(name, |b| {
            b.to_async(&runtime).iter(|| {
                let end = end.clone();
                async move {
                    let mut end = end.lock().await;
                    end.send(call.to_owned()).await.expect("served");
                    black_box(end.recv().await.expect("answered"))
                }
            });
        });
    }
    group.finish();
}

/// The `add` server behind `layer`, as a router.
fn layered(layer: impl mcp::middleware::McpLayer) -> Router {
    let server = mcp_examples::bench::server()
        .layer(layer)
        .build()
        .expect("the add server builds");
    mcp::transport::http::router("/mcp", server)
}

fn middleware(c: &mut Criterion) {
    use mcp::middleware::{AccessLogLayer, Quota, RateLimitLayer};
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let (plain, _) = routers();
    let serving = layered(RateLimitLayer::per_caller(Quota::per_second(u32::MAX)));
    let refusing = layered(RateLimitLayer::per_caller(Quota::per_hour(1)));
    let logged = layered(AccessLogLayer::new());
    runtime.block_on(async {
        // Spend the refusing limit's budget, and check the others serve.
        roundtrip(refusing.clone(), Kind::Modern.request("/mcp")).await;
        let refused = roundtrip(refusing.clone(), Kind::Modern.request("/mcp")).await;
        assert!(
            refused.windows(6).any(|w| w == b"-32029"),
            "{}",
            String::from_utf8_lossy(&refused)
        );
        for router in [&serving, &logged] {
            let body = roundtrip(router.clone(), Kind::Modern.request("/mcp")).await;
            assert!(!body.windows(8).any(|w| w == b"\"error\":"));
        }
    });
    let mut group = c.benchmark_group("middleware");
    group.throughput(Throughput::Elements(1));
    for (name, router) in [
        ("no_layer", &plain),
        ("rate_limit_memory_served", &serving),
        ("rate_limit_memory_refused", &refusing),
        ("access_log_disabled", &logged),
    ] {
        group.bench_function(name, |b| {
            b.to_async(&runtime).iter_batched(
                || (router.clone(), Kind::Modern.request::<Body>("/mcp")),
                |(router, request)| async move { black_box(roundtrip(router, request).await) },
                BatchSize::SmallInput,
            );
        });
    }
    group.finish();
}

/// A server of `add` on the in-process transport, behind `limit` if any.
async fn in_process(
    limit: Option<mcp::middleware::RateLimitLayer>,
) -> mcp::transport::in_process::PipeEnd {
    let mut server = mcp_examples::bench::server();
    if let Some(limit) = limit {
        server = server.layer(limit);
    }
    server.build().expect("the add server builds").in_process()
}

fn rate_limit(c: &mut Criterion) {
    use mcp::middleware::{Quota, RateLimitLayer};

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    // So high it never refuses: every call pays the check.
    let limit = || RateLimitLayer::per_caller(Quota::per_second(1_000_000));
    #[cfg_attr(not(feature = "redis"), allow(unused_mut))]
    let mut cases = vec![
        ("none", runtime.block_on(in_process(None))),
        ("memory", runtime.block_on(in_process(Some(limit())))),
    ];
    #[cfg(feature = "redis")]
    if let Ok(url) = std::env::var("MCP_REDIS_URL") {
        let end = runtime.block_on(async {
            let store = mcp::middleware::RedisRateStore::connect(&url)
                .await
                .expect("MCP_REDIS_URL is reachable")
                .with_prefix(format!("mcp-bench:{}", std::process::id()));
            in_process(Some(limit().shared(store))).await
        });
        cases.push(("redis", end));
    }

    let mut group = c.benchmark_group("rate_limit");
    group.throughput(Throughput::Elements(1));
    for (name, end) in cases {
        let end = std::sync::Arc::new(tokio::sync::Mutex::new(end));
        runtime.block_on(async {
            let mut end = end.lock().await;
            end.send(mcp_examples::bench::ADD_MODERN.to_owned())
                .await
                .expect("served");
            let answer = end.recv().await.expect("answered");
            assert!(answer.contains(r#""sum":5"#), "{name}: {answer}");
        });
        group.bench_function(name, |b| {
            b.to_async(&runtime).iter(|| {
                let end = end.clone();
                async move {
                    let mut end = end.lock().await;
                    end.send(mcp_examples::bench::ADD_MODERN.to_owned())
                        .await
                        .expect("served");
                    black_box(end.recv().await.expect("answered"))
                }
            });
        });
    }
    group.finish();
}

/// A typed call against the untyped call builder, client included, over the in-process
/// transport on both eras: `cargo bench -p mcp-examples --bench dispatch -- client`.
fn client(c: &mut Criterion) {
    use mcp::client::{ProtocolMode, TypedClient as _};
    use mcp_examples::bench::{AddClient, in_process_client, typed_add, untyped_add};

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let mut group = c.benchmark_group("client");
    group.throughput(Throughput::Elements(1));
    for (era, mode) in [
        ("modern", ProtocolMode::Modern),
        ("legacy", ProtocolMode::Legacy),
    ] {
        let client = runtime
            .block_on(in_process_client(mode))
            .expect("connects in-process");
        let typed = AddClient::from_client(client.clone());
        runtime.block_on(async {
            assert_eq!(untyped_add(&client).await.expect("untyped"), 5);
            assert_eq!(typed_add(&typed).await.expect("typed"), 5);
        });
        group.bench_function(format!("untyped_{era}"), |b| {
            b.to_async(&runtime)
                .iter(|| async { black_box(untyped_add(&client).await.expect("untyped")) });
        });
        group.bench_function(format!("typed_{era}"), |b| {
            b.to_async(&runtime)
                .iter(|| async { black_box(typed_add(&typed).await.expect("typed")) });
        });
    }
    group.finish();
}

/// The `tasks` group's service: the same sum as a plain tool and as a task-capable one.
struct Jobs;

#[mcp::service(name = "jobs", version = "1.0.0")]
impl Jobs {
    /// Adds.
    pub fn add(&self, a: i64, b: i64) -> i64 {
        a + b
    }

    /// Adds, as a task when the client declares the tasks extension.
    #[tool(task = "optional")]
    pub fn add_task(&self, a: i64, b: i64) -> i64 {
        a + b
    }
}

/// A modern request of `method` with `params`, naming `name` in `Mcp-Name`; `tasks`
/// declares the tasks extension.
fn modern_request(
    method: &str,
    name: &str,
    params: &serde_json::Value,
    tasks: bool,
) -> http::Request<Body> {
    let mut params = params.clone();
    let capabilities = if tasks {
        serde_json::json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
    } else {
        serde_json::json!({})
    };
    params["_meta"] = serde_json::json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": capabilities
    });
    let body = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    http::Request::post("/mcp")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method)
        .header("mcp-name", name)
        .body(Body::from(body.to_string()))
        .expect("a request")
}

fn tasks(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    // Short-lived tasks, so the in-memory store stays small however long criterion runs.
    let server = mcp::Server::builder(Jobs)
        .tasks(mcp::tasks::TaskConfig::default().with_ttl(Some(std::time::Duration::from_secs(2))))
        .build()
        .expect("builds");
    let router = mcp::transport::http::router("/mcp", server);
    // The task `tasks_get` reads lives on a server of its own, with the default time to
    // live.
    let kept =
        mcp::transport::http::router("/mcp", mcp::Server::builder(Jobs).build().expect("builds"));
    let bare = bare_router("/mcp");
    let call = |tool: &str, tasks: bool| {
        modern_request(
            "tools/call",
            tool,
            &serde_json::json!({"name": tool, "arguments": {"a": 2, "b": 3}}),
            tasks,
        )
    };
    let task_id = runtime.block_on(async {
        let plain = roundtrip(router.clone(), call("add_task", false)).await;
        let plain: serde_json::Value = serde_json::from_slice(&plain).expect("JSON");
        assert_eq!(plain["result"]["structuredContent"], 5, "{plain}");
        let created = roundtrip(kept.clone(), call("add_task", true)).await;
        let created: serde_json::Value = serde_json::from_slice(&created).expect("JSON");
        assert_eq!(created["result"]["resultType"], "task", "{created}");
        assert_eq!(created["result"]["status"], "completed", "{created}");
        created["result"]["taskId"]
            .as_str()
            .expect("an id")
            .to_owned()
    });
    let get = serde_json::json!({"taskId": task_id});
    let mut group = c.benchmark_group("tasks");
    group.throughput(Throughput::Elements(1));
    type Make = Box<dyn Fn() -> http::Request<Body>>;
    let cases: [(&str, &Router, Make); 5] = [
        (
            "tools_call_plain_tool",
            &router,
            Box::new(move || call("add", false)),
        ),
        (
            "tools_call_task_capable_no_extension",
            &router,
            Box::new(move || call("add_task", false)),
        ),
        (
            "task_create_memory",
            &router,
            Box::new(move || call("add_task", true)),
        ),
        (
            "tasks_get",
            &router,
            Box::new(move || modern_request("tasks/get", &task_id, &get, true)),
        ),
        (
            "bare_axum_json",
            &bare,
            Box::new(|| Kind::Bare.request::<Body>("/mcp")),
        ),
    ];
    for (name, router, make) in &cases {
        group.bench_function(*name, |b| {
            b.to_async(&runtime).iter_batched(
                || ((*router).clone(), make()),
                |(router, request)| async move { black_box(roundtrip(router, request).await) },
                BatchSize::SmallInput,
            );
        });
    }
    group.finish();
}

criterion_group!(benches, dispatch, middleware, rate_limit, client, tasks);
criterion_main!(benches);
