//! Interoperability of `mcp::Context`: a service that logs, reports progress, samples and
//! waits to be cancelled, served in-process and driven by the real TypeScript clients
//! (`interop/client.mjs` with `interop/steps/context.json`): `@modelcontextprotocol/client`
//! 2.4.0 in `modern` and `legacy` mode and the v1 SDK client, and by the Python SDK client
//! (`interop/python/client.py context`). Needs `npm ci` in `interop/` and the Python peer's
//! virtual environment (`scripts/test.sh`).

mod interop_support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use interop_support::{Events, Peer, TestServer, interop_dir, run_peer, run_python_peer};
use mcp::{Context, LogLevel, SamplingMessage, SamplingRequest};
use serde_json::{Value, json};

/// How many `slow` calls started, and how many were dropped before they finished.
#[derive(Default)]
struct Counters {
    started: AtomicUsize,
    dropped: AtomicUsize,
}

struct Dropped(Arc<Counters>);

impl Drop for Dropped {
    fn drop(&mut self) {
        self.0.dropped.fetch_add(1, Ordering::SeqCst);
    }
}

struct Talk(Arc<Counters>);

#[mcp::service(name = "talk", version = "1.0.0")]
impl Talk {
    /// Logs at three levels.
    pub async fn chatty(&self, ctx: Context) -> String {
        ctx.log(LogLevel::Debug, "debug detail").await;
        ctx.log_as("db", LogLevel::Info, json!({"rows": 2})).await;
        ctx.log(LogLevel::Error, "something failed").await;
        "chatted".into()
    }

    /// Reports progress 0, 50 and 100 of 100.
    pub async fn steps(&self, ctx: Context) -> String {
        for step in [0.0, 50.0, 100.0] {
            ctx.progress(step, 100.0, Some(&format!("step {step}")))
                .await;
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        "stepped".into()
    }

    /// Asks the client's model.
    pub async fn ask(&self, ctx: Context, question: String) -> Result<String, mcp::ToolError> {
        let ask = SamplingRequest::new(vec![SamplingMessage::user(question)], 50);
        let answer = ctx.sample(ask).await?;
        Ok(format!(
            "{}: {}",
            answer.model,
            answer.text().unwrap_or_default()
        ))
    }

    /// Waits far longer than the client does.
    pub async fn slow(&self) -> String {
        self.0.started.fetch_add(1, Ordering::SeqCst);
        let guard = Dropped(self.0.clone());
        tokio::time::sleep(Duration::from_secs(60)).await;
        std::mem::forget(guard);
        "too late".into()
    }
}

fn levels(events: &Events, step: usize) -> Vec<String> {
    events
        .of("log")
        .iter()
        .filter(|e| e["step"] == step)
        .map(|e| e["level"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// Runs the steps with `peer` and checks what the client saw and what the server did.
async fn context_with(peer: Peer) {
    let counters = Arc::new(Counters::default());
    let service = Talk(counters.clone());
    let server = TestServer::start(move |_| mcp::Server::builder(service)).await;
    let steps = interop_dir().join("steps").join("context.json");
    let events = run_peer(&server.url, peer, &steps).await;
    // Logs: the threshold filters `debug`; both eras deliver them on the call's stream.
    assert_eq!(levels(&events, 0), ["info", "error"], "{}", events.report);
    let info = events
        .of("log")
        .into_iter()
        .find(|e| e["level"] == "info")
        .cloned()
        .unwrap_or(Value::Null);
    assert_eq!(info["logger"], "db", "{}", events.report);
    assert_eq!(info["data"], json!({"rows": 2}), "{}", events.report);
    // The last call sets no level: a legacy session keeps `info`, a modern request without
    // a level gets no log.
    let expected: &[&str] = if peer.modern() {
        &[]
    } else {
        &["info", "error"]
    };
    assert_eq!(levels(&events, 4), expected, "{}", events.report);
    // Progress: three notifications routed to the call by the client's own token.
    let progress: Vec<_> = events
        .of("progress")
        .iter()
        .map(|e| (e["progress"].as_f64(), e["total"].as_f64()))
        .collect();
    assert_eq!(
        progress,
        [
            (Some(0.0), Some(100.0)),
            (Some(50.0), Some(100.0)),
            (Some(100.0), Some(100.0))
        ],
        "{}",
        events.report
    );
    // Sampling: one request, answered by the client's handler.
    let sampling = events.of("sampling");
    assert_eq!(sampling.len(), 1, "{}", events.report);
    assert_eq!(sampling[0]["step"], 2, "{}", events.report);
    assert_eq!(
        sampling[0]["messages"][0]["content"]["text"], "2+2?",
        "{}",
        events.report
    );
    // Cancellation: the client gave up, and the server dropped the tool.
    assert_eq!(events.one("cancelled")["step"], 3, "{}", events.report);
    let mut dropped = 0;
    for _ in 0..250 {
        dropped = counters.dropped.load(Ordering::SeqCst);
        if dropped > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(counters.started.load(Ordering::SeqCst), 1);
    assert_eq!(
        dropped, 1,
        "the cancelled call kept running\n{}",
        events.report
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_v2_modern() {
    context_with(Peer::Modern).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_v2_legacy() {
    context_with(Peer::Legacy).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_v1() {
    context_with(Peer::V1).await;
}

/// The Python SDK client: logs, progress and sampling on both eras (its `context` scenario
/// runs the same steps file).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_peer() {
    for mode in ["legacy", "2026-07-28"] {
        let counters = Arc::new(Counters::default());
        let service = Talk(counters.clone());
        let server = TestServer::start(move |_| mcp::Server::builder(service)).await;
        let steps = interop_dir().join("steps").join("context.json");
        let events = run_python_peer("context", &server.url, mode, Some(&steps)).await;
        assert_eq!(
            levels(&events, 0),
            ["info", "error"],
            "{mode}\n{}",
            events.report
        );
        let progress: Vec<_> = events
            .of("progress")
            .iter()
            .map(|e| e["progress"].as_f64())
            .collect();
        assert_eq!(
            progress,
            [Some(0.0), Some(50.0), Some(100.0)],
            "{mode}\n{}",
            events.report
        );
        assert_eq!(events.of("sampling").len(), 1, "{mode}\n{}", events.report);
        assert_eq!(
            events.one("cancelled")["step"],
            3,
            "{mode}\n{}",
            events.report
        );
        let mut dropped = 0;
        for _ in 0..250 {
            dropped = counters.dropped.load(Ordering::SeqCst);
            if dropped > 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(
            dropped, 1,
            "{mode}: the cancelled call kept running\n{}",
            events.report
        );
        server.stop().await;
    }
}
