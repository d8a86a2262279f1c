//! Issue #26, item 1, over HTTP: `subscriptions/listen` filters cannot exhaust memory.
//! Callers (clients bound to 127.0.0.2 and up) open listens whose filters sit at the
//! per-listener bounds until the per-caller and server-wide budgets refuse more, on a real
//! socket (`mcp::HttpServer` on 127.0.0.1:0), and the process's resident memory (`VmRSS`;
//! the server runs in this process) grows by less than the server-wide budget plus the
//! allocator's slack ([`rss::SLACK`]).
//!
//! The only test of its binary: another test running beside it would move the RSS.
#![allow(missing_docs)]

mod rss;

use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use rss::{Answer, BUDGET, MIB, MODERN, SLACK, listen, refusal, set_id, settle, watched_server};
use serde_json::Value;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpSocket, TcpStream};
use tokio::sync::oneshot;

/// POSTs `body` from loopback address `from` and reads only the response head: an open
/// listen's acknowledgement (as long as its filter) is never read, as from a hostile
/// client, so the server keeps what the socket does not take.
async fn post_from(addr: SocketAddr, from: Ipv4Addr, body: &[u8]) -> (Answer, TcpStream) {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind((from, 0).into()).unwrap();
    let mut stream = socket.connect(addr).await.unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: {MODERN}\r\n\
         Mcp-Method: subscriptions/listen\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(body).await.unwrap();
    let mut got = Vec::new();
    let mut chunk = [0u8; 4096];
    let end = loop {
        let n = stream.read(&mut chunk).await.unwrap();
        assert!(n > 0, "no response head");
        got.extend_from_slice(&chunk[..n]);
        if let Some(end) = got.windows(4).position(|w| w == b"\r\n\r\n") {
            break end + 4;
        }
    };
    let head = String::from_utf8_lossy(&got[..end]).to_ascii_lowercase();
    assert!(head.starts_with("http/1.1 200 "), "{head}");
    if head.contains("content-type: text/event-stream") {
        return (Answer::Open, stream);
    }
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse().ok())
        .expect("a JSON answer with a length");
    while got.len() < end + length {
        let n = stream.read(&mut chunk).await.unwrap();
        assert!(n > 0, "the body ended early");
        got.extend_from_slice(&chunk[..n]);
    }
    let answer: Value = serde_json::from_slice(&got[end..end + length]).unwrap();
    (refusal(&answer["error"]), stream)
}

#[tokio::test(flavor = "current_thread")]
async fn large_filters_from_many_callers_stay_within_the_budget() {
    let server = watched_server();
    let notifier = server.notifier();

    // Over HTTP, with every default: 1,000 URIs (the bound) of 4,000 bytes, a 4 MB body
    // under the 4 MiB cap. Each listen is charged about 8 MB (its acknowledgement and its
    // URIs), so a caller gets two (16 MiB) and the server eight (64 MiB); six callers try
    // three each, 72 MB of filters in all (with the per-caller and server budgets lifted,
    // all 18 open and RSS grows by about 155 MiB).
    let mut body = listen(1000, 4000);
    assert!(body.len() < 4 * MIB, "{}", body.len());
    let listener = mcp::HttpServer::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (_stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(
        listener
            .serve(mcp::transport::http::router("/mcp", server.clone()).into_make_service())
            .with_graceful_shutdown(async move {
                let _ = stopped.await;
            })
            .into_future(),
    );
    // A small listen first, so that what the first request sets up lazily is in the base.
    let small = listen(1, 20);
    let (answer, warm) = post_from(addr, Ipv4Addr::new(127, 0, 0, 1), &small).await;
    assert_eq!(answer, Answer::Open);
    drop(warm);
    settle(&notifier, 0).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let before = rss::rss();
    let mut open = Vec::new();
    let mut refused = std::collections::BTreeMap::<String, usize>::new();
    for caller in 2..8u8 {
        for attempt in 0..3 {
            set_id(&mut body, attempt);
            let from = Ipv4Addr::new(127, 0, 0, caller);
            match post_from(addr, from, &body).await {
                (Answer::Open, stream) => open.push(stream),
                (Answer::Refused(setting), _) => *refused.entry(setting).or_default() += 1,
            }
        }
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let growth = rss::rss().saturating_sub(before);
    eprintln!(
        "HTTP: {} listens open, refused {refused:?}; RSS {} -> {} MiB (+{} MiB)",
        open.len(),
        before / MIB,
        (before + growth) / MIB,
        growth / MIB
    );
    assert_eq!(open.len(), 8);
    assert_eq!(notifier.listener_count(), 8);
    assert_eq!(
        refused,
        [
            ("max_listen_bytes".to_owned(), 6),
            ("max_listen_bytes_per_caller".to_owned(), 4)
        ]
        .into()
    );
    assert!(
        growth < BUDGET + SLACK,
        "RSS grew by {} MiB with {} listens open; the bound is {} MiB",
        growth / MIB,
        open.len(),
        (BUDGET + SLACK) / MIB
    );
}
