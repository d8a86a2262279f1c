//! Memory per idle legacy session, and sessions created per second, with the in-memory store:
//!
//! ```text
//! cargo run --release --example session_memory -- [--mode store|http] [--check] N
//! ```
//!
//! Creates `N` idle sessions and reports the growth of the resident set (`VmRSS` of
//! `/proc/self/status`) divided by `N`, and the creation rate. The baseline is taken after a
//! warm-up that starts the runtime and creates and drops a hundred sessions, so
//! start-up costs are not counted.
//!
//! * `--mode store` (default): [`SessionStore::create`] on a [`MemoryStore`] with the
//!   session information a real `initialize` stores (protocol version and typical client
//!   capabilities): the store's own cost.
//! * `--mode http`: a real `initialize` POST through the in-process router of a stateful
//!   service (`ShoppingCart`), one after the other on one thread: everything the server keeps
//!   per session, and the end-to-end creation rate.
//!
//! Prints a summary and one JSON line (`{"bench":"session_memory",...}`). With `--check`
//! it exits with status 1 when a session takes more than 1 KiB or 100,000 sessions more
//! than 150 MB. Linux only (reads `/proc`).

use std::time::{Duration, Instant};

use axum::body::Body;
use http::Request;
use mcp::session::{DynSessionStore, MemoryStore, Owner, SessionInfo, SessionLimits, SessionStore};
use serde_json::{Value, json};
use tower::ServiceExt as _;

/// The target: at most 1 KiB per idle in-memory session.
const TARGET_BYTES_PER_SESSION: f64 = 1024.0;
/// The target: 100,000 sessions within 150 MB.
const TARGET_100K_BYTES: f64 = 150.0 * 1_000_000.0;
/// Sessions created (and dropped) during the warm-up: few, so the memory they free and
/// the allocator reuses does not hide the cost of the measured ones.
const WARMUP: usize = 100;
/// Stop regardless after this long.
const DEADLINE: Duration = Duration::from_secs(300);

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Store,
    Http,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Self::Store => "store",
            Self::Http => "http",
        }
    }
}

/// The resident set size of this process, in bytes.
fn rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kib| kib * 1024)
        .expect("VmRSS in /proc/self/status")
}

/// The capabilities a typical client declares at `initialize`.
fn client_capabilities() -> Value {
    json!({"roots": {"listChanged": true}, "sampling": {}, "elicitation": {}})
}

fn limits(n: usize) -> SessionLimits {
    SessionLimits::default()
        .with_idle_timeout(Duration::from_secs(3600))
        .with_max_per_owner(100)
        .with_max_anonymous(n.max(1))
}

async fn fill_store(store: &impl SessionStore, n: usize) {
    let limits = limits(n);
    let deadline = Instant::now() + DEADLINE;
    for i in 0..n {
        let info = SessionInfo {
            protocol_version: "2025-11-25".to_owned(),
            client_capabilities: client_capabilities(),
        };
        let created = store
            .create(&Owner::Anonymous, info, &limits)
            .await
            .expect("create");
        assert!(
            created.evicted.is_empty(),
            "nothing is evicted below the limit"
        );
        if i % 1024 == 0 {
            assert!(Instant::now() < deadline, "gave up after {DEADLINE:?}");
        }
    }
}

fn initialize_request() -> Request<Body> {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": client_capabilities(),
        "clientInfo": {"name": "session-memory", "version": "1.0.0"}}});
    Request::post("/mcp")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(Body::from(body.to_string()))
        .expect("request")
}

fn http_server(n: usize) -> (mcp::Server, axum::Router) {
    let server = mcp::Server::builder(mcp_examples::shopping_cart::ShoppingCart)
        .session_limits(limits(n))
        .build()
        .expect("server");
    (server.clone(), mcp::transport::http::router("/mcp", server))
}

async fn fill_http(router: &axum::Router, n: usize) {
    let deadline = Instant::now() + DEADLINE;
    for i in 0..n {
        let response = match router.clone().oneshot(initialize_request()).await {
            Ok(r) => r,
            Err(never) => match never {},
        };
        assert_eq!(response.status(), 200, "initialize answered 200");
        assert!(response.headers().contains_key("mcp-session-id"));
        let body = http_body_util::BodyExt::collect(response.into_body())
            .await
            .expect("body");
        drop(body);
        if i % 1024 == 0 {
            assert!(Instant::now() < deadline, "gave up after {DEADLINE:?}");
        }
    }
}

fn usage() -> ! {
    eprintln!("usage: session_memory [--mode store|http] [--check] N");
    std::process::exit(2);
}

fn main() {
    let mut mode = Mode::Store;
    let mut check = false;
    let mut count = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--mode" => {
                mode = match args.next().as_deref() {
                    Some("store") => Mode::Store,
                    Some("http") => Mode::Http,
                    _ => usage(),
                }
            }
            "--check" => check = true,
            "-h" | "--help" => usage(),
            n => {
                count = Some(
                    n.replace(['_', ','], "")
                        .parse::<usize>()
                        .unwrap_or_else(|_| usage()),
                )
            }
        }
    }
    let Some(n) = count.filter(|n| *n > 0) else {
        usage()
    };

    // One thread: no allocator arenas per worker, and the rate is that of one core.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let (before, after, elapsed, held) = runtime.block_on(async move {
        // Warm-up: the same work on a throwaway store or server, then dropped.
        match mode {
            Mode::Store => fill_store(&MemoryStore::new(), WARMUP).await,
            Mode::Http => fill_http(&http_server(WARMUP).1, WARMUP).await,
        }
        let (store, router) = match mode {
            Mode::Store => (DynSessionStore::new(MemoryStore::new()), None),
            Mode::Http => {
                let (server, router) = http_server(n);
                let store = server.session_store().expect("a stateful server").clone();
                (store, Some(router))
            }
        };
        let before = rss_bytes();
        let start = Instant::now();
        match &router {
            None => fill_store(&store, n).await,
            Some(router) => fill_http(router, n).await,
        }
        let elapsed = start.elapsed();
        let after = rss_bytes();
        let held = store.len().await.expect("len");
        drop(router);
        (before, after, elapsed, held)
    });
    assert_eq!(held, n, "every session is still held");

    let growth = after.saturating_sub(before) as f64;
    let per_session = growth / n as f64;
    let rate = n as f64 / elapsed.as_secs_f64();
    let projected_100k = per_session * 100_000.0;
    println!(
        "session_memory ({}): {n} idle sessions: RSS {:.1} MiB -> {:.1} MiB, +{:.1} MiB",
        mode.name(),
        before as f64 / 1048576.0,
        after as f64 / 1048576.0,
        growth / 1048576.0,
    );
    println!(
        "  {per_session:.0} bytes per session (target <= 1024: {}), 100,000 sessions ~ {:.1} MB (target <= 150 MB: {})",
        verdict(per_session <= TARGET_BYTES_PER_SESSION),
        projected_100k / 1_000_000.0,
        verdict(projected_100k <= TARGET_100K_BYTES),
    );
    println!(
        "  {rate:.0} sessions created per second ({:.2} s, one thread)",
        elapsed.as_secs_f64()
    );
    println!(
        "{}",
        json!({
            "bench": "session_memory",
            "mode": mode.name(),
            "sessions": n,
            "rss_before_bytes": before,
            "rss_after_bytes": after,
            "bytes_per_session": per_session.round(),
            "sessions_per_sec": rate.round(),
            "elapsed_ms": elapsed.as_millis() as u64,
            "projected_100k_mb": (projected_100k / 1e4).round() / 100.0,
        })
    );
    if check && (per_session > TARGET_BYTES_PER_SESSION || projected_100k > TARGET_100K_BYTES) {
        std::process::exit(1);
    }
}

fn verdict(ok: bool) -> &'static str {
    if ok { "met" } else { "MISSED" }
}
