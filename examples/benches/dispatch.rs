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

criterion_group!(benches, dispatch, middleware, rate_limit, client);
criterion_main!(benches);
