//! Notification fan-out: how long a change takes to reach 1,000 and 10,000
//! `subscriptions/listen` streams, and what one open listener costs in memory.
//!
//! ```text
//! cargo run --release --example notify_bench -- [--listeners 1000,10000] [--rounds 20]
//! ```
//!
//! In one process, without sockets: each listener is a modern `subscriptions/listen`
//! request sent through `mcp::transport::http::router` (`tower::ServiceExt::oneshot`), whose SSE
//! body a task of its own reads, as hyper would. Each round announces one
//! `tools/list_changed` and records, for every listener, the time from the announcement to
//! the moment its reader has the event; the report gives p50/p99/max over all listeners and
//! rounds. Memory per listener: the growth of resident memory while the listeners were
//! opened, divided by their number (it includes the reader tasks). `scripts/notify_bench.sh`
//! runs this and the cluster throughput benchmark.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::body::Body;
use hdrhistogram::Histogram;
use http_body_util::BodyExt as _;
use tokio::sync::mpsc;
use tower::ServiceExt as _;

const LISTEN: &str = concat!(
    r#"{"jsonrpc":"2.0","id":"listen:0","method":"subscriptions/listen","params":{"#,
    r#""notifications":{"toolsListChanged":true},"_meta":{"#,
    r#""io.modelcontextprotocol/protocolVersion":"2026-07-28","#,
    r#""io.modelcontextprotocol/clientCapabilities":{},"#,
    r#""io.modelcontextprotocol/clientInfo":{"name":"notify-bench","version":"0.1.0"}}}}"#
);

fn listen_request() -> http::Request<Body> {
    http::Request::post("/mcp")
        .header("host", "127.0.0.1")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "subscriptions/listen")
        .body(Body::from(LISTEN))
        .expect("a request")
}

fn rss_kib() -> u64 {
    mcp_examples::loadgen::rss_kib(std::process::id()).unwrap_or(0)
}

/// Reads one listener's stream: tells `acked` once, then sends the arrival time of every
/// `tools/list_changed` event to `arrivals`.
async fn reader(body: Body, acked: Arc<AtomicUsize>, arrivals: mpsc::UnboundedSender<Instant>) {
    let mut body = body;
    let mut buffer = Vec::new();
    while let Some(Ok(frame)) = body.frame().await {
        let Ok(data) = frame.into_data() else {
            continue;
        };
        buffer.extend_from_slice(&data);
        while let Some(end) = buffer.windows(2).position(|w| w == b"\n\n") {
            let event: Vec<u8> = buffer.drain(..end + 2).collect();
            let text = String::from_utf8_lossy(&event);
            if text.contains("subscriptions/acknowledged") {
                acked.fetch_add(1, Ordering::Relaxed);
            } else if text.contains("tools/list_changed") {
                let _ = arrivals.send(Instant::now());
            }
        }
    }
}

struct Report {
    listeners: usize,
    p50: Duration,
    p99: Duration,
    max: Duration,
    bytes_per_listener: f64,
}

async fn fan_out(listeners: usize, rounds: usize) -> Report {
    let server = mcp_examples::inventory::Inventory::new("bench")
        .builder()
        .max_listeners(listeners)
        // Every listener comes from this process, one caller: lift the per-caller bounds.
        .max_listeners_per_caller(listeners)
        .max_listen_bytes_per_caller(usize::MAX)
        .max_listen_bytes(usize::MAX)
        .transport(|http: mcp::transport::http::HttpConfig| http.host_validation(false))
        .build()
        .expect("a valid server");
    let notifier = server.notifier();
    let router = mcp::transport::http::router("/mcp", server);
    let acked = Arc::new(AtomicUsize::new(0));
    let (tx, mut arrivals) = mpsc::unbounded_channel();
    let before = rss_kib();
    let mut tasks = Vec::with_capacity(listeners);
    for _ in 0..listeners {
        let response = match router.clone().oneshot(listen_request()).await {
            Ok(r) => r,
            Err(never) => match never {},
        };
        assert_eq!(response.status(), http::StatusCode::OK);
        tasks.push(tokio::spawn(reader(
            response.into_body(),
            acked.clone(),
            tx.clone(),
        )));
    }
    while acked.load(Ordering::Relaxed) < listeners {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let after = rss_kib();
    assert_eq!(notifier.listener_count(), listeners);
    let mut histogram = Histogram::<u64>::new(3).expect("a histogram");
    for _ in 0..rounds {
        let start = Instant::now();
        notifier.tools_changed();
        for _ in 0..listeners {
            let at = arrivals.recv().await.expect("an arrival");
            let nanos = u64::try_from(at.duration_since(start).as_nanos()).unwrap_or(u64::MAX);
            histogram.record(nanos.max(1)).expect("a recordable value");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    for task in tasks {
        task.abort();
    }
    Report {
        listeners,
        p50: Duration::from_nanos(histogram.value_at_quantile(0.5)),
        p99: Duration::from_nanos(histogram.value_at_quantile(0.99)),
        max: Duration::from_nanos(histogram.max()),
        bytes_per_listener: (after.saturating_sub(before) * 1024) as f64 / listeners as f64,
    }
}

fn main() -> std::process::ExitCode {
    let mut sizes = vec![1_000, 10_000];
    let mut rounds = 20;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().unwrap_or_default();
        match flag.as_str() {
            "--listeners" => {
                sizes = value.split(',').filter_map(|n| n.parse().ok()).collect();
            }
            "--rounds" => rounds = value.parse().unwrap_or(rounds),
            _ => {
                eprintln!("usage: notify_bench [--listeners 1000,10000] [--rounds 20]");
                return std::process::ExitCode::from(2);
            }
        }
    }
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    println!("| listeners | p50 | p99 | max | memory per listener |");
    println!("| ---: | ---: | ---: | ---: | ---: |");
    for n in sizes {
        let r = runtime.block_on(fan_out(n, rounds));
        println!(
            "| {} | {:.2} ms | {:.2} ms | {:.2} ms | {:.1} KiB |",
            r.listeners,
            r.p50.as_secs_f64() * 1e3,
            r.p99.as_secs_f64() * 1e3,
            r.max.as_secs_f64() * 1e3,
            r.bytes_per_listener / 1024.0
        );
    }
    std::process::ExitCode::SUCCESS
}
