//! Smoke test of the built example binaries (`cargo test` builds the examples into
//! `target/<profile>/examples/`): each one started the way scripts start it
//! (`MCP_ADDR=127.0.0.1:0`) prints `listening http://<addr>/mcp`, answers a real HTTP
//! `initialize` on that address, and exits with status 0 on SIGTERM. `weather` with
//! `MCP_RATE_LIMIT` refuses the tool calls beyond it with `-32029`, and does not start with a
//! value that is not a rate.

mod interop_support;

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const STARTUP: Duration = Duration::from_secs(30);
const SHUTDOWN: Duration = Duration::from_secs(5);

/// Kills the child when a test fails half-way.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// POSTs the JSON-RPC message `body` to `/mcp` with protocol version `version` over a plain
/// TCP connection; returns the response's head and body.
fn post(addr: SocketAddr, version: &str, body: &Value) -> (String, Value) {
    let body = body.to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: {version}\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = TcpStream::connect(addr).expect("connect to the example");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("read timeout");
    stream.write_all(request.as_bytes()).expect("send request");
    let mut response = String::new();
    stream
        .read_to_string(&mut response)
        .expect("read the response");
    let (head, body) = response
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("no HTTP header/body separator in {response:?}"));
    let body = serde_json::from_str(body)
        .unwrap_or_else(|e| panic!("the body is not JSON ({e}): {response:?}"));
    (head.to_owned(), body)
}

/// One `initialize` POST over a plain TCP connection; returns the status line, the body and
/// the session id.
fn initialize(addr: SocketAddr) -> (String, Value, Option<String>) {
    let (head, body) = post(
        addr,
        "2025-11-25",
        &json!({
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "smoke-test", "version": "1.0.0"}
            }
        }),
    );
    let status = head.lines().next().unwrap_or_default().to_owned();
    let session = head
        .lines()
        .find_map(|l| {
            l.split_once(':')
                .filter(|(k, _)| k.eq_ignore_ascii_case("mcp-session-id"))
        })
        .map(|(_, v)| v.trim().to_owned());
    (status, body, session)
}

/// Opens the session's standalone SSE stream (GET) and waits for its first bytes; the
/// connection stays open until the returned stream is dropped.
fn open_stream(addr: SocketAddr, session: &str) -> TcpStream {
    let request = format!(
        "GET /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n\
         Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\n\r\n"
    );
    let mut stream = TcpStream::connect(addr).expect("connect to the example");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("read timeout");
    stream.write_all(request.as_bytes()).expect("send request");
    let mut first = [0u8; 64];
    let n = stream.read(&mut first).expect("read the stream's head");
    assert!(
        String::from_utf8_lossy(&first[..n]).starts_with("HTTP/1.1 200"),
        "GET stream refused"
    );
    stream
}

fn smoke(name: &str, server_name: &str) {
    let binary = interop_support::example_binary(name);
    let child = Command::new(&binary)
        .env("MCP_ADDR", "127.0.0.1:0")
        .env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display()));
    let mut child = Running(child);
    let mut stderr = child.0.stderr.take().expect("stderr");
    let stderr = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });

    // The first stdout line announces the address.
    let addr = listening(&mut child, name);
    assert!(addr.ip().is_loopback(), "{name} bound {addr}");
    assert_ne!(addr.port(), 0, "{name} printed port 0");

    let (status, body, session) = initialize(addr);
    assert_eq!(status, "HTTP/1.1 200 OK", "{name}: {body}");
    assert_eq!(body["id"], 1, "{name}: {body}");
    assert_eq!(
        body["result"]["protocolVersion"], "2025-11-25",
        "{name}: {body}"
    );
    assert_eq!(
        body["result"]["serverInfo"]["name"], server_name,
        "{name}: {body}"
    );

    // An open standalone SSE stream must not keep the server from shutting down.
    let _stream = session.map(|id| open_stream(addr, &id));

    let pid = child.0.id().to_string();
    let killed = Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("run kill");
    assert!(killed.success(), "kill -TERM {pid} failed");
    let deadline = Instant::now() + SHUTDOWN;
    let status = loop {
        if let Some(status) = child.0.try_wait().expect("wait for the example") {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "{name} did not exit within {SHUTDOWN:?} of SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let stderr = stderr.join().unwrap_or_default();
    assert_eq!(
        status.code(),
        Some(0),
        "{name} exited with {status} after SIGTERM\n--- stderr ---\n{stderr}"
    );
    assert!(
        stderr.contains("shut down"),
        "{name} did not log its shutdown\n--- stderr ---\n{stderr}"
    );
}

#[test]
fn echo_binary_serves_and_exits_cleanly_on_sigterm() {
    smoke("echo", "echo");
}

#[test]
fn crypto_binary_serves_and_exits_cleanly_on_sigterm() {
    smoke("crypto", "crypto");
}

#[test]
fn conformance_binary_serves_and_exits_cleanly_on_sigterm() {
    smoke("conformance", "mcp-conformance");
}

#[test]
fn notes_binary_serves_and_exits_cleanly_on_sigterm() {
    smoke("notes", "notes");
}

#[test]
fn weather_binary_serves_and_exits_cleanly_on_sigterm() {
    smoke("weather", "weather");
}

#[test]
fn add_benchmark_binary_serves_and_exits_cleanly_on_sigterm() {
    smoke("add", "add");
}

#[test]
fn calculator_binary_serves_and_exits_cleanly_on_sigterm() {
    smoke("calculator", "calculator");
}

#[test]
fn shopping_cart_binary_serves_and_exits_cleanly_on_sigterm() {
    smoke("shopping_cart", "shopping-cart");
}

#[test]
fn table_booking_binary_serves_and_exits_cleanly_on_sigterm() {
    smoke("table_booking", "restaurant");
}

#[test]
fn calendar_connect_binary_serves_and_exits_cleanly_on_sigterm() {
    smoke("calendar_connect", "calendar");
}

/// The address example `name` announces on its first stdout line, `listening
/// http://<addr>/mcp` (its stdout is drained afterwards).
fn listening(child: &mut Running, name: &str) -> SocketAddr {
    let stdout = child.0.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut lines = BufReader::new(stdout).lines();
        let _ = tx.send(lines.next());
        for _ in lines {}
    });
    let line = match rx.recv_timeout(STARTUP) {
        Ok(Some(Ok(line))) => line,
        other => panic!("{name}: no `listening` line within {STARTUP:?}: {other:?}"),
    };
    let url = line
        .strip_prefix("listening ")
        .unwrap_or_else(|| panic!("{name}: unexpected first line {line:?}"));
    url.strip_prefix("http://")
        .and_then(|rest| rest.strip_suffix("/mcp"))
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| panic!("{name}: not `http://<addr>/mcp`: {url:?}"))
}

/// Starts example `name` with `MCP_ADDR=127.0.0.1:0` and `env`; its address once it listens.
fn start(name: &str, env: &[(&str, &str)]) -> (Running, SocketAddr) {
    let binary = interop_support::example_binary(name);
    let mut child = Running(
        Command::new(&binary)
            .env("MCP_ADDR", "127.0.0.1:0")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display())),
    );
    let addr = listening(&mut child, name);
    (child, addr)
}

/// One sessionless legacy `tools/call` POST over a plain TCP connection; the JSON-RPC
/// response.
fn call_tool(addr: SocketAddr, tool: &str, arguments: Value) -> Value {
    let message = json!({
        "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments}
    });
    post(addr, "2025-06-18", &message).1
}

#[test]
fn weather_binary_with_a_rate_limit_refuses_the_calls_beyond_it() {
    let (_child, addr) = start("weather", &[("MCP_RATE_LIMIT", "2/min")]);
    let city = json!({"city": "Lisbon"});
    for _ in 0..2 {
        let answer = call_tool(addr, "get_current_weather", city.clone());
        assert!(answer["result"]["content"].is_array(), "{answer}");
    }
    let refused = call_tool(addr, "get_current_weather", city);
    assert_eq!(refused["error"]["code"], -32029, "{refused}");
    assert_eq!(refused["error"]["message"], "Rate limit exceeded");
    let ms = refused["error"]["data"]["retryAfterMs"].as_u64().unwrap();
    assert!(ms > 0 && ms <= 30_000, "{refused}");
    // Only tool calls are charged: the handshake still works.
    let (status, body, _) = initialize(addr);
    assert_eq!(status, "HTTP/1.1 200 OK", "{body}");
}

#[test]
fn weather_binary_refuses_to_start_with_a_bad_rate_limit() {
    let output = Command::new(interop_support::example_binary("weather"))
        .env("MCP_ADDR", "127.0.0.1:0")
        .env("MCP_RATE_LIMIT", "often")
        .stdin(Stdio::null())
        .output()
        .expect("run weather");
    assert!(!output.status.success(), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(r#"MCP_RATE_LIMIT: "often" is not a rate such as "10/min""#),
        "{stderr}"
    );
    assert!(!String::from_utf8_lossy(&output.stdout).contains("listening"));
}
