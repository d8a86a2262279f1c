//! A client that opens its session's standalone SSE stream and never reads it cannot grow
//! the server's memory: 100,000 notifications of 1 KiB (100 MB if they were all kept) are
//! published at it over a real socket, and the server's resident memory (this process)
//! grows by far less, while other requests keep being answered. Its own test binary, so no
//! other test's allocations blur the reading.

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use mcp::{HttpServer, Session};
use serde_json::json;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

struct Flood;

#[mcp::service(
    name = "flood",
    version = "1.0.0",
    session_mode = "stateful",
    protocol_mode = "legacy"
)]
impl Flood {
    /// Publishes `count` notifications of `size` bytes on the caller's session stream;
    /// returns how many were queued for a connected stream.
    pub fn flood(&self, session: Session, count: u32, size: u32) -> u32 {
        let padding = "x".repeat(size as usize);
        let mut queued = 0;
        for n in 0..count {
            let params = json!({"level": "info", "data": {"n": n, "padding": padding}});
            if session.notify("notifications/message", params) {
                queued += 1;
            }
        }
        queued
    }
}

/// The resident memory of this process, in KiB.
fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("procfs");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .expect("VmRSS")
}

/// A legacy POST on a fresh connection: (status, session id header, body).
async fn post(
    addr: SocketAddr,
    session: Option<&str>,
    body: serde_json::Value,
) -> (u16, Option<String>, String) {
    let body = body.to_string();
    let session = session.map_or(String::new(), |id| {
        format!("Mcp-Session-Id: {id}\r\nMCP-Protocol-Version: 2025-11-25\r\n")
    });
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\n{session}Content-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
    let (status, head, body) = common::raw_exchange(addr, request.as_bytes()).await;
    let id = head.lines().find_map(|l| {
        l.to_ascii_lowercase()
            .strip_prefix("mcp-session-id: ")
            .map(str::to_owned)
    });
    (status, id, body)
}

async fn open_session(addr: SocketAddr) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "slow", "version": "1"}}});
    let (status, id, body) = post(addr, None, init).await;
    assert_eq!(status, 200, "{body}");
    let id = id.expect("a session id");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(addr, Some(&id), initialized).await.0, 202);
    id
}

fn flood_call(count: u32) -> serde_json::Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "flood", "arguments": {"count": count, "size": 1024}}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_that_is_never_read_does_not_grow_server_memory() {
    let listener = HttpServer::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = mcp::Server::builder(Flood).build().unwrap();
    tokio::spawn(
        listener
            .serve(mcp::transport::http::router("/mcp", server).into_make_service())
            .into_future(),
    );
    let slow = open_session(addr).await;

    // The slow reader: opens its stream, reads the answer's head, then nothing more.
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(
            format!(
                "GET /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n\
                 Mcp-Session-Id: {slow}\r\nMCP-Protocol-Version: 2025-11-25\r\n\r\n"
            )
            .as_bytes(),
        )
        .await
        .unwrap();
    let mut head = [0u8; 12];
    stream.read_exact(&mut head).await.unwrap();
    assert_eq!(&head, b"HTTP/1.1 200");

    // Warm up allocator and socket buffers, then measure the flood.
    let (status, _, body) = post(addr, Some(&slow), flood_call(2_000)).await;
    assert_eq!(status, 200, "{body}");
    tokio::time::sleep(Duration::from_millis(200)).await;
    let before = rss_kib();
    let (status, _, body) = post(addr, Some(&slow), flood_call(100_000)).await;
    assert_eq!(status, 200, "{body}");
    let queued: u64 =
        serde_json::from_str::<serde_json::Value>(&body).unwrap()["result"]["content"][0]["text"]
            .as_str()
            .and_then(|t| t.parse().ok())
            .expect("a count");
    tokio::time::sleep(Duration::from_millis(200)).await;
    let grown = rss_kib().saturating_sub(before);
    assert!(
        grown < 24 * 1024,
        "RSS grew by {grown} KiB for a reader that reads nothing (100,000 x 1 KiB published)"
    );
    assert!(
        queued < 1_000,
        "{queued} notifications queued for a reader that reads nothing"
    );

    // Others are still served, and so is a new session's flood.
    let other = open_session(addr).await;
    let (status, _, body) = post(addr, Some(&other), flood_call(10)).await;
    assert_eq!(status, 200, "{body}");
    eprintln!("slow reader: {queued} of 100,000 queued, RSS +{grown} KiB");
}
