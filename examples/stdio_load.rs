//! Latency and throughput of MCP over stdio, next to HTTP, and the memory of a stdio server
//! whose client stops reading.
//!
//! ```text
//! cargo build --release --example echo --example stdio_load
//! target/release/examples/stdio_load --server target/release/examples/echo [--duration 5]
//! ```
//!
//! Every run calls the echo example's `echo` tool with the modern (2026-07-28) body of
//! [`mcp_examples::bench::MODERN_CALL`]:
//!
//! - **server, raw pipe**: `<server> --stdio` driven by raw lines, with 1 and with 32
//!   requests in flight (the server serves a connection's requests concurrently);
//! - **client, stdio**: `mcp::client` over stdio to `<server> --stdio`, one call at a time
//!   (stdio exchanges are serialised by design);
//! - **client, HTTP**: the same client over Streamable HTTP to `<server>` on a loopback
//!   port, one call at a time, for comparison (`examples/load.rs` measures HTTP servers
//!   under concurrency);
//! - **memory**: `<server> --stdio` is sent requests while nobody reads its stdout until the
//!   pipe to its stdin stays full for a second; the server's peak RSS (`VmHWM`) before and
//!   after is reported (Linux).
//!
//! Each line of the report is one JSON object.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::{ExitCode, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use mcp::client::{Client, ClientConfig, ConnectOptions, ProtocolMode, StdioCommand};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::{Mutex, Semaphore};

const USAGE: &str = "usage: stdio_load --server PATH [--duration SECONDS (5)]";

fn call_line(id: u64) -> String {
    let body = mcp_examples::bench::MODERN_CALL.replacen("\"id\":1", &format!("\"id\":{id}"), 1);
    format!("{body}\n")
}

fn report(name: &str, histogram: &Histogram<u64>, elapsed: Duration, extra: Value) {
    let mut line = json!({
        "run": name,
        "requests": histogram.len(),
        "requests_per_s": (histogram.len() as f64 / elapsed.as_secs_f64()).round(),
        "p50_us": histogram.value_at_quantile(0.5),
        "p99_us": histogram.value_at_quantile(0.99),
    });
    if let (Value::Object(l), Value::Object(e)) = (&mut line, extra) {
        l.extend(e);
    }
    println!("{line}");
}

fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 60_000_000, 3).expect("valid histogram bounds")
}

fn spawn_stdio(server: &PathBuf) -> std::io::Result<Child> {
    Command::new(server)
        .arg("--stdio")
        .env("RUST_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
}

/// Raw lines to `<server> --stdio` with `inflight` requests outstanding.
async fn raw_pipe(server: &PathBuf, inflight: usize, duration: Duration) -> Result<(), String> {
    let mut child = spawn_stdio(server).map_err(|e| e.to_string())?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let started: Arc<Mutex<HashMap<u64, Instant>>> = Arc::default();
    let window = Arc::new(Semaphore::new(inflight));
    let reader = {
        let (started, window) = (Arc::clone(&started), Arc::clone(&window));
        tokio::spawn(async move {
            let mut lines = BufReader::new(stdout).lines();
            let mut h = histogram();
            let mut errors = 0u64;
            while let Ok(Some(line)) = lines.next_line().await {
                let v: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
                let Some(id) = v["id"].as_u64() else { continue };
                if v["result"]["isError"] == true || v.get("error").is_some() {
                    errors += 1;
                }
                if let Some(t) = started.lock().await.remove(&id) {
                    let _ = h.record(u64::try_from(t.elapsed().as_micros()).unwrap_or(u64::MAX));
                }
                window.add_permits(1);
            }
            (h, errors)
        })
    };
    let begin = Instant::now();
    let mut id = 0u64;
    while begin.elapsed() < duration {
        let permit = window.acquire().await.map_err(|e| e.to_string())?;
        permit.forget();
        id += 1;
        started.lock().await.insert(id, Instant::now());
        stdin
            .write_all(call_line(id).as_bytes())
            .await
            .map_err(|e| e.to_string())?;
    }
    // Let the last answers arrive, then end the input: the server stops by itself.
    let _ = window
        .acquire_many(u32::try_from(inflight).unwrap_or(1))
        .await;
    let elapsed = begin.elapsed();
    drop(stdin);
    let (h, errors) = reader.await.map_err(|e| e.to_string())?;
    let status = child.wait().await.map_err(|e| e.to_string())?;
    report(
        &format!("server stdio raw pipe, {inflight} in flight"),
        &h,
        elapsed,
        json!({"errors": errors, "server_exit": status.code()}),
    );
    Ok(())
}

async fn client_loop(name: &str, client: &Client, duration: Duration) -> Result<(), String> {
    let mut h = histogram();
    let args = json!({"value": mcp_examples::bench::ECHO_VALUE});
    let begin = Instant::now();
    let mut errors = 0u64;
    while begin.elapsed() < duration {
        let t = Instant::now();
        let result = client
            .call("echo")
            .arguments(args.clone())
            .map_err(|e| e.to_string())?
            .await;
        if !matches!(&result, Ok(r) if !r.is_error()) {
            errors += 1;
        }
        let _ = h.record(u64::try_from(t.elapsed().as_micros()).unwrap_or(u64::MAX));
    }
    report(name, &h, begin.elapsed(), json!({"errors": errors}));
    Ok(())
}

fn client_config() -> ClientConfig {
    // Modern, and no result cache: every call is a real exchange.
    ClientConfig::new()
        .protocol_mode(ProtocolMode::Modern)
        .result_cache(None)
}

async fn client_stdio(server: &PathBuf, duration: Duration) -> Result<(), String> {
    let command = StdioCommand::new(server)
        .arg("--stdio")
        .env("RUST_LOG", "warn")
        .discard_stderr();
    let client = Client::stdio(command, client_config()).map_err(|e| e.to_string())?;
    client
        .connect(ConnectOptions::default())
        .await
        .map_err(|e| e.to_string())?;
    client_loop("client stdio, 1 call at a time", &client, duration).await?;
    client.close().await.map_err(|e| e.to_string())
}

async fn client_http(server: &PathBuf, duration: Duration) -> Result<(), String> {
    let mut child = Command::new(server)
        .env("MCP_ADDR", "127.0.0.1:0")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| e.to_string())?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let mut lines = BufReader::new(stdout).lines();
    let url = loop {
        match lines.next_line().await {
            Ok(Some(l)) if l.starts_with("listening ") => break l["listening ".len()..].to_owned(),
            Ok(Some(_)) => {}
            _ => return Err("the HTTP server did not start".into()),
        }
    };
    let client = Client::new(&url, client_config()).map_err(|e| e.to_string())?;
    client
        .connect(ConnectOptions::default())
        .await
        .map_err(|e| e.to_string())?;
    client_loop("client HTTP, 1 call at a time", &client, duration).await?;
    let _ = child.start_kill();
    let _ = child.wait().await;
    Ok(())
}

fn vm_kib(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find(|l| l.starts_with(field))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// A client that writes requests and never reads the answers.
async fn memory(server: &PathBuf) -> Result<(), String> {
    let mut child = spawn_stdio(server).map_err(|e| e.to_string())?;
    let pid = child.id().ok_or("no pid")?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    // One answered request first, so the baseline is a server that has served.
    stdin
        .write_all(call_line(0).as_bytes())
        .await
        .map_err(|e| e.to_string())?;
    let mut lines = BufReader::new(stdout).lines();
    lines.next_line().await.map_err(|e| e.to_string())?;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let before = vm_kib(pid, "VmHWM:");
    let mut sent = 0u64;
    let mut bytes = 0u64;
    let begin = Instant::now();
    loop {
        let line = call_line(sent + 1);
        match tokio::time::timeout(Duration::from_secs(1), stdin.write_all(line.as_bytes())).await {
            Ok(Ok(())) => {
                sent += 1;
                bytes += line.len() as u64;
            }
            Ok(Err(e)) => return Err(format!("the server stopped reading with an error: {e}")),
            Err(_) => break, // blocked for a second: the server is pushing back
        }
        if begin.elapsed() > Duration::from_secs(60) {
            break;
        }
    }
    let blocked_after = begin.elapsed();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let peak = vm_kib(pid, "VmHWM:");
    let rss = vm_kib(pid, "VmRSS:");
    println!(
        "{}",
        json!({
            "run": "memory, client stops reading stdout",
            "requests_accepted_before_pushback": sent,
            "bytes_accepted_before_pushback": bytes,
            "seconds_until_pushback": blocked_after.as_secs_f64(),
            "peak_rss_kib_before": before,
            "peak_rss_kib_after": peak,
            "rss_kib_after": rss,
        })
    );
    drop(lines);
    let _ = child.start_kill();
    let _ = child.wait().await;
    Ok(())
}

async fn run(server: PathBuf, duration: Duration) -> Result<(), String> {
    raw_pipe(&server, 1, duration).await?;
    raw_pipe(&server, 32, duration).await?;
    client_stdio(&server, duration).await?;
    client_http(&server, duration).await?;
    memory(&server).await
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (mut server, mut duration) = (None, Duration::from_secs(5));
    while let Some(a) = args.next() {
        match (a.as_str(), args.next()) {
            ("--server", Some(v)) => server = Some(PathBuf::from(v)),
            ("--duration", Some(v)) => match v.parse() {
                Ok(s) => duration = Duration::from_secs(s),
                Err(_) => {
                    eprintln!("{USAGE}");
                    return ExitCode::from(2);
                }
            },
            _ => {
                eprintln!("{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let Some(server) = server else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("stdio_load: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(server, duration)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("stdio_load: {e}");
            ExitCode::FAILURE
        }
    }
}
