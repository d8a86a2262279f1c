//! `HttpServer` over real sockets: slow and silent clients are cut off by the
//! header read timeout, the connection cap holds new connections back without refusing
//! them, and shutdown drains in-flight requests (for at most the drain timeout).

mod common;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use common::{TestService, modern_body};
use mcp::HttpServer;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// A listener serving the test service on a free loopback port until `stop` is sent.
struct Running {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<Result<(), mcp::Error>>,
}

async fn start(configure: impl FnOnce(HttpServer) -> HttpServer) -> Running {
    let listener = configure(HttpServer::bind("127.0.0.1:0").await.unwrap());
    let addr = listener.local_addr().unwrap();
    let server = mcp::Server::builder(TestService::default())
        .info("t", "1")
        .build()
        .unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(
        listener
            .serve(mcp::transport::http::router("/mcp", server).into_make_service())
            .with_graceful_shutdown(async move {
                let _ = stopped.await;
            })
            .into_future(),
    );
    Running {
        addr,
        stop: Some(stop),
        task,
    }
}

impl Running {
    /// Starts shutdown and waits for `serve` to return; returns how long that took.
    async fn shut_down(&mut self) -> Duration {
        let started = Instant::now();
        let _ = self.stop.take().expect("not yet stopped").send(());
        (&mut self.task).await.unwrap().unwrap();
        started.elapsed()
    }
}

/// The bytes of a modern `tools/call` over HTTP/1.1 (`Connection: close`).
fn call(addr: SocketAddr, tool: &str, arguments: Value) -> Vec<u8> {
    let body = modern_body(
        json!(1),
        "tools/call",
        json!({"name": tool, "arguments": arguments}),
    )
    .to_string();
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: {}\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: {tool}\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        common::MODERN,
        body.len()
    )
    .into_bytes()
}

/// Sends `request` on a new connection and reads the whole response: (status, body).
async fn exchange(addr: SocketAddr, request: &[u8]) -> (u16, String) {
    let (status, _, body) = common::raw_exchange(addr, request).await;
    (status, body)
}

/// One well-behaved round trip: a modern `echo` call answers 200 with the text.
async fn assert_serving(addr: SocketAddr) {
    let (status, body) = exchange(addr, &call(addr, "echo", json!({"text": "still here"}))).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("still here"), "{body}");
}

/// Reads from `stream` until the server closes it; returns how long that took. Fails if the
/// server answers with bytes first or the connection stays open for `limit`.
async fn closed_within(stream: &mut TcpStream, limit: Duration) -> Duration {
    let started = Instant::now();
    let mut buf = Vec::new();
    let read = tokio::time::timeout(limit, stream.read_to_end(&mut buf)).await;
    assert!(read.is_ok(), "connection still open after {limit:?}");
    started.elapsed()
}

#[tokio::test]
async fn headers_sent_too_slowly_get_the_connection_closed() {
    let mut server = start(|l| l.header_read_timeout(Duration::from_millis(300))).await;
    let mut slow = TcpStream::connect(server.addr).await.unwrap();
    // A slowloris client: the request line and one header, then a byte every 100 ms, never
    // the blank line that ends the headers.
    slow.write_all(b"POST /mcp HTTP/1.1\r\nHost: x\r\n")
        .await
        .unwrap();
    let trickle = async {
        for _ in 0..50 {
            tokio::time::sleep(Duration::from_millis(100)).await;
            if slow.write_all(b"X").await.is_err() {
                break;
            }
        }
    };
    let serving = async {
        // Others are served while the slow client holds its connection.
        assert_serving(server.addr).await;
    };
    tokio::join!(trickle, serving);
    let took = closed_within(&mut slow, Duration::from_secs(3)).await;
    assert!(took < Duration::from_secs(3));
    assert_serving(server.addr).await;
    server.shut_down().await;
}

#[tokio::test]
async fn silent_and_idle_connections_are_closed() {
    let mut server = start(|l| {
        l.header_read_timeout(Duration::from_millis(300))
            .idle_timeout(Duration::from_millis(400))
    })
    .await;
    let started = Instant::now();
    let mut silent = TcpStream::connect(server.addr).await.unwrap();
    closed_within(&mut silent, Duration::from_secs(3)).await;
    assert!(
        started.elapsed() >= Duration::from_millis(250),
        "closed before the timeout"
    );

    // A kept-alive connection that goes quiet after one answer is closed by the idle timeout.
    let mut idle = TcpStream::connect(server.addr).await.unwrap();
    let request = String::from_utf8(call(server.addr, "echo", json!({"text": "one"})))
        .unwrap()
        .replace("Connection: close\r\n", "");
    idle.write_all(request.as_bytes()).await.unwrap();
    let mut first = [0u8; 12];
    idle.read_exact(&mut first).await.unwrap();
    assert_eq!(&first, b"HTTP/1.1 200");
    let took = closed_within(&mut idle, Duration::from_secs(3)).await;
    assert!(took >= Duration::from_millis(300), "closed after {took:?}");
    assert_serving(server.addr).await;
    server.shut_down().await;
}

#[tokio::test]
async fn a_quiet_request_outlasting_the_idle_timeout_still_gets_its_answer() {
    let mut server = start(|l| l.idle_timeout(Duration::from_millis(200))).await;
    let (status, body) =
        exchange(server.addr, &call(server.addr, "sleep", json!({"ms": 800}))).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("slept 800 ms"), "{body}");
    server.shut_down().await;
}

#[tokio::test]
async fn a_client_that_half_closes_after_its_request_gets_the_answer() {
    let mut server = start(|l| l).await;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    stream
        .write_all(&call(server.addr, "echo", json!({"text": "half"})))
        .await
        .unwrap();
    stream.shutdown().await.unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await.unwrap();
    let text = String::from_utf8_lossy(&response);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert!(text.contains("half"), "{text}");
    server.shut_down().await;
}

#[tokio::test]
async fn request_heads_over_the_cap_get_431() {
    let mut server = start(|l| l).await;
    // 140 KiB of headers: past the 64 KiB read buffer even after hyper's last read step.
    let padding = format!("X-Pad: {}\r\n", "a".repeat(1000)).repeat(140);
    let request = String::from_utf8(call(server.addr, "echo", json!({"text": "big"})))
        .unwrap()
        .replacen("\r\n", &format!("\r\n{padding}"), 1);
    let (status, _) = exchange(server.addr, request.as_bytes()).await;
    assert_eq!(status, 431);
    // 24 KiB of headers are fine.
    let padding = format!("X-Pad: {}\r\n", "a".repeat(1000)).repeat(24);
    let request = String::from_utf8(call(server.addr, "echo", json!({"text": "ok"})))
        .unwrap()
        .replacen("\r\n", &format!("\r\n{padding}"), 1);
    let (status, body) = exchange(server.addr, request.as_bytes()).await;
    assert_eq!(status, 200, "{body}");
    assert_serving(server.addr).await;
    server.shut_down().await;
}

#[tokio::test]
async fn http2_with_prior_knowledge_is_served_with_its_own_header_cap() {
    let mut server = start(|l| l).await;
    let client = reqwest::Client::builder()
        .http2_prior_knowledge()
        .build()
        .unwrap();
    let body = modern_body(
        json!(1),
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "h2"}}),
    );
    let request = |pad: usize| {
        client
            .post(format!("http://{}/mcp", server.addr))
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", common::MODERN)
            .header("mcp-method", "tools/call")
            .header("mcp-name", "echo")
            .header("x-pad", "a".repeat(pad))
            .body(body.to_string())
            .send()
    };
    let response = request(10).await.unwrap();
    assert_eq!(response.version(), http::Version::HTTP_2);
    assert_eq!(response.status(), 200);
    assert!(response.text().await.unwrap().contains("h2"));
    // Header lists over 16 KiB are refused.
    assert_eq!(request(20 * 1024).await.unwrap().status(), 431);
    assert_serving(server.addr).await;
    server.shut_down().await;
}

#[tokio::test]
async fn at_the_connection_cap_new_connections_wait_instead_of_failing() {
    let mut server = start(|l| l.max_connections(2)).await;
    let mut held: Vec<TcpStream> = Vec::new();
    for _ in 0..2 {
        held.push(TcpStream::connect(server.addr).await.unwrap());
    }
    // Let the accept loop take both.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let addr = server.addr;
    let waiting = tokio::spawn(async move {
        exchange(addr, &call(addr, "echo", json!({"text": "queued"}))).await
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        !waiting.is_finished(),
        "served past the cap of 2 connections"
    );
    drop(held.pop());
    let (status, body) = tokio::time::timeout(Duration::from_secs(5), waiting)
        .await
        .expect("served once a connection closed")
        .unwrap();
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("queued"));
    drop(held);
    server.shut_down().await;
}

#[tokio::test]
async fn shutdown_lets_in_flight_requests_finish_and_refuses_new_connections() {
    let mut server = start(|l| l).await;
    let addr = server.addr;
    let in_flight =
        tokio::spawn(async move { exchange(addr, &call(addr, "sleep", json!({"ms": 500}))).await });
    tokio::time::sleep(Duration::from_millis(150)).await;
    let took = server.shut_down().await;
    let (status, body) = in_flight.await.unwrap();
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("slept 500 ms"), "{body}");
    assert!(
        took >= Duration::from_millis(250),
        "returned before the request finished"
    );
    assert!(TcpStream::connect(addr).await.is_err(), "still accepting");
}

#[tokio::test]
async fn shutdown_gives_up_on_requests_that_outlast_the_drain_timeout() {
    let mut server = start(|l| l.drain_timeout(Duration::from_millis(200))).await;
    let addr = server.addr;
    let stuck = tokio::spawn(async move {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream
            .write_all(&call(addr, "sleep", json!({"ms": 60_000})))
            .await
            .unwrap();
        let mut buf = Vec::new();
        let _ = stream.read_to_end(&mut buf).await;
    });
    tokio::time::sleep(Duration::from_millis(150)).await;
    let took = server.shut_down().await;
    assert!(took < Duration::from_secs(5), "shutdown waited {took:?}");
    stuck.abort();
}
