//! A closed-loop HTTP load generator for the MCP examples and the bare-axum baseline.
//!
//! ```text
//! cargo run --release --example load -- --url http://127.0.0.1:9090/mcp --kind modern \
//!     [--concurrency 32] [--duration 10] [--warmup 2] [--threads N]
//! ```
//!
//! Each of `--concurrency` workers owns one keep-alive HTTP/1.1 connection (hyper 1 through
//! hyper-util's tokio glue) and sends the same request over it in a loop, each request as
//! soon as the previous answer has been read. Requests started during the warm-up are not
//! counted; after it, every answer's latency goes into an HDR histogram, and an answer that is
//! not 2xx, is not a JSON-RPC result, or is a tool result with `isError: true` counts as an
//! error. The requests are the fixtures of [`mcp_examples::bench::Kind`]: `modern` (an
//! enveloped 2026-07-28 `tools/call` of the `add` example's `add` tool), `legacy` (a
//! stateless 2025-11-25 `tools/call` of the same tool), `session` (the same on a legacy
//! session), `discover` (`server/discover`), `list` (`tools/list`), `legacy-list` (a
//! stateless legacy `tools/list`) and `bare` (the modern body, sent to
//! `examples/bare_axum.rs`).
//!
//! With `--tool NAME` a call kind (`modern`, `legacy`, `session`, `bare`) calls tool `NAME`
//! (same arguments) instead of `add`: the tool-count rows of `scripts/scale.sh` call the last
//! of `examples/scale_server.rs`'s generated tools. With `--arg-bytes N` it calls the `size`
//! tool (`mcp_examples::bench::Size`, or `bare_axum` with `BARE_HANDLER=size`) with a text of
//! N bytes. With `--arguments JSON` (a JSON object) it passes those arguments instead: the
//! cluster benchmarks call the inventory example's `echo` with
//! `--tool echo --arguments '{"value":"hello, benchmark"}'`.
//!
//! With `--server-pid PID` (Linux) it also reads the server's CPU time from `/proc` at the
//! start and end of the measured window and reports the server's CPU time per request, a
//! figure that other work on the machine disturbs far less than throughput.
//!
//! With `--requests N` it instead sends exactly N requests one after the other on one
//! connection, each of which must succeed, and reports nothing else: `scripts/instructions.sh`
//! counts the server's instructions for two such runs.
//!
//! `session` (a stateless call's body on a legacy session) opens its session on each
//! connection first: `initialize`, then `notifications/initialized`.
//!
//! The report is printed twice: for people, then as one JSON line (the line starting with
//! `{`) for scripts such as `scripts/load.sh`; the JSON line also gives the request body's
//! size and that of the preflight answer (`request_bytes`, `response_bytes`).

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use hdrhistogram::Histogram;
use http_body_util::Full;
use hyper::header::{HOST, HeaderMap, HeaderName, HeaderValue};
use hyper::{Method, Request, Uri};
use mcp_examples::bench::{Kind, LEGACY_INITIALIZE, LEGACY_INITIALIZED};
use mcp_examples::loadgen::{self, exchange};

const USAGE: &str = "usage: load --url http://127.0.0.1:PORT/mcp \
--kind modern|legacy|session|discover|list|legacy-list|bare \
[--tool NAME] [--arg-bytes N | --arguments JSON] [--concurrency N (32)] [--duration SECONDS (10)] [--warmup SECONDS (2)] [--threads N (CPUs)] \
[--server-pid PID] [--requests N]";

const WARMUP: u8 = 0;
const MEASURE: u8 = 1;
const STOP: u8 = 2;

/// The command line.
#[derive(Debug)]
struct Args {
    url: String,
    kind: Kind,
    concurrency: usize,
    duration: Duration,
    warmup: Duration,
    threads: usize,
    server_pid: Option<u32>,
    requests: Option<u64>,
    tool: Option<String>,
    arg_bytes: Option<usize>,
    /// `--arguments`: the text of a JSON object.
    arguments: Option<String>,
}

impl Args {
    fn parse() -> Result<Self, String> {
        let mut args = Args {
            url: String::new(),
            kind: Kind::Modern,
            concurrency: 32,
            duration: Duration::from_secs(10),
            warmup: Duration::from_secs(2),
            threads: std::thread::available_parallelism().map_or(2, |n| n.get()),
            server_pid: None,
            requests: None,
            tool: None,
            arg_bytes: None,
            arguments: None,
        };
        let mut it = std::env::args().skip(1);
        while let Some(arg) = it.next() {
            let (flag, inline) = match arg.split_once('=') {
                Some((f, v)) => (f.to_owned(), Some(v.to_owned())),
                None => (arg, None),
            };
            if flag == "-h" || flag == "--help" {
                return Err(String::new());
            }
            let value = match inline.or_else(|| it.next()) {
                Some(v) => v,
                None => return Err(format!("{flag} needs a value")),
            };
            let bad = |what: &str| format!("{flag}: {what}, got {value:?}");
            match flag.as_str() {
                "--url" | "-u" => args.url = value,
                "--kind" | "-k" => {
                    args.kind = Kind::from_name(&value).ok_or_else(|| bad("unknown kind"))?;
                }
                "--concurrency" | "-c" => {
                    args.concurrency = value
                        .parse()
                        .ok()
                        .filter(|n| *n > 0)
                        .ok_or_else(|| bad("expected a positive integer"))?;
                }
                "--threads" | "-t" => {
                    args.threads = value
                        .parse()
                        .ok()
                        .filter(|n| *n > 0)
                        .ok_or_else(|| bad("expected a positive integer"))?;
                }
                "--duration" | "-d" => {
                    args.duration = seconds(&value)
                        .filter(|d| !d.is_zero())
                        .ok_or_else(|| bad("expected positive seconds"))?;
                }
                "--server-pid" | "-p" => {
                    args.server_pid = Some(value.parse().map_err(|_| bad("expected a pid"))?);
                }
                "--requests" | "-n" => {
                    args.requests = Some(
                        value
                            .parse()
                            .ok()
                            .filter(|n| *n > 0)
                            .ok_or_else(|| bad("expected a positive integer"))?,
                    );
                }
                "--tool" => args.tool = Some(value),
                "--arg-bytes" => {
                    args.arg_bytes = Some(value.parse().map_err(|_| bad("expected bytes"))?);
                }
                "--arguments" => {
                    serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&value)
                        .map_err(|_| bad("expected a JSON object"))?;
                    args.arguments = Some(value);
                }
                "--warmup" | "-w" => {
                    args.warmup = seconds(&value).ok_or_else(|| bad("expected seconds"))?;
                }
                _ => return Err(format!("unknown option {flag}")),
            }
        }
        if args.url.is_empty() {
            return Err("--url is required".into());
        }
        if args.arg_bytes.is_some() && args.arguments.is_some() {
            return Err("--arg-bytes and --arguments exclude each other".into());
        }
        if args.changes_the_call() && !args.kind.is_call() {
            return Err(format!(
                "--tool, --arg-bytes and --arguments apply to the call kinds, not {}",
                args.kind.name()
            ));
        }
        Ok(args)
    }
}

impl Args {
    /// Whether the call is not the fixture's (`add` with `{"a":2,"b":3}`).
    fn changes_the_call(&self) -> bool {
        self.tool.is_some() || self.arg_bytes.is_some() || self.arguments.is_some()
    }
}

fn seconds(s: &str) -> Option<Duration> {
    s.parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(Duration::from_secs_f64)
}

/// Where requests go and what they are; built once, cloned per request.
struct Target {
    kind: Kind,
    addr: SocketAddr,
    path: Uri,
    headers: HeaderMap,
    body: Bytes,
}

impl Target {
    fn new(args: &Args) -> Result<Self, String> {
        let (url, kind) = (args.url.as_str(), args.kind);
        let (addr, path, authority) = loadgen::resolve(url)?;
        let mut headers = HeaderMap::new();
        headers.insert(
            HOST,
            HeaderValue::from_str(&authority).map_err(|e| e.to_string())?,
        );
        for (name, value) in kind.headers() {
            headers.insert(
                HeaderName::from_static(name),
                HeaderValue::from_static(value),
            );
        }
        let mut body = Bytes::from_static(kind.body().as_bytes());
        if args.changes_the_call() {
            let default = if args.arg_bytes.is_some() {
                "size"
            } else {
                "add"
            };
            let tool = args.tool.as_deref().unwrap_or(default);
            let arguments = match (&args.arguments, args.arg_bytes) {
                (Some(arguments), _) => arguments.clone(),
                (None, Some(bytes)) => mcp_examples::bench::size_arguments(bytes),
                (None, None) => r#"{"a":2,"b":3}"#.to_owned(),
            };
            let call = kind
                .call_body(tool, &arguments)
                .ok_or("--tool, --arg-bytes and --arguments apply to the call kinds")?;
            body = Bytes::from(call);
            if headers.contains_key("mcp-name") {
                let name = HeaderValue::from_str(tool).map_err(|e| format!("--tool: {e}"))?;
                headers.insert("mcp-name", name);
            }
        }
        Ok(Target {
            kind,
            addr,
            path,
            headers,
            body,
        })
    }

    /// The request, on `session` when there is one.
    fn request(&self, session: Option<&HeaderValue>) -> Request<Full<Bytes>> {
        self.post(self.body.clone(), session)
    }

    fn post(&self, body: Bytes, session: Option<&HeaderValue>) -> Request<Full<Bytes>> {
        let mut request = Request::new(Full::new(body));
        *request.method_mut() = Method::POST;
        *request.uri_mut() = self.path.clone();
        *request.headers_mut() = self.headers.clone();
        if let Some(id) = session {
            request.headers_mut().insert(SESSION, id.clone());
        }
        request
    }

    /// A connection ready for this kind's requests: for [`Kind::Session`], with a legacy
    /// session opened on it (`initialize`, then `notifications/initialized`).
    async fn open(&self) -> Result<(loadgen::Sender, Option<HeaderValue>), String> {
        let mut sender = loadgen::connect(self.addr).await?;
        if !self.kind.needs_session() {
            return Ok((sender, None));
        }
        let mut init = self.post(Bytes::from_static(LEGACY_INITIALIZE.as_bytes()), None);
        init.headers_mut().remove("mcp-protocol-version");
        let answer = exchange(&mut sender, init)
            .await
            .map_err(|e| format!("initialize: {e}"))?;
        let session = answer
            .headers
            .get(SESSION)
            .filter(|_| answer.ok)
            .cloned()
            .ok_or_else(|| format!("initialize: no session: {}", answer.describe()))?;
        let initialized = self.post(
            Bytes::from_static(LEGACY_INITIALIZED.as_bytes()),
            Some(&session),
        );
        let answer = exchange(&mut sender, initialized)
            .await
            .map_err(|e| format!("notifications/initialized: {e}"))?;
        if answer.status != 202 {
            return Err(format!("notifications/initialized: {}", answer.describe()));
        }
        Ok((sender, Some(session)))
    }
}

/// The legacy session header.
const SESSION: HeaderName = HeaderName::from_static("mcp-session-id");

/// What one worker measured.
struct Tally {
    latency_ns: Histogram<u64>,
    ok: u64,
    errors: u64,
    first_error: Option<String>,
}

fn histogram() -> Histogram<u64> {
    // 1 ns … 60 s at three significant digits.
    Histogram::new_with_bounds(1, 60_000_000_000, 3).expect("static histogram bounds are valid")
}

async fn worker(target: Arc<Target>, phase: Arc<AtomicU8>) -> Tally {
    let mut tally = Tally {
        latency_ns: histogram(),
        ok: 0,
        errors: 0,
        first_error: None,
    };
    let mut sender = None;
    loop {
        let started_in = phase.load(Ordering::Relaxed);
        if started_in == STOP {
            break;
        }
        let counted =
            |phase: &AtomicU8| started_in == MEASURE && phase.load(Ordering::Relaxed) == MEASURE;
        let s = match &mut sender {
            Some(s) => s,
            None => match target.open().await {
                Ok(s) => sender.insert(s),
                Err(e) => {
                    if counted(&phase) {
                        tally.errors += 1;
                    }
                    tally.first_error.get_or_insert(e);
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            },
        };
        let start = Instant::now();
        let outcome = exchange(&mut s.0, target.request(s.1.as_ref())).await;
        let elapsed = start.elapsed();
        let counted = counted(&phase);
        match outcome {
            Ok(answer) => {
                if counted {
                    let ns = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX);
                    tally.latency_ns.saturating_record(ns.max(1));
                    if answer.ok {
                        tally.ok += 1;
                    } else {
                        tally.errors += 1;
                    }
                }
                if !answer.ok && tally.first_error.is_none() {
                    tally.first_error = Some(answer.describe());
                }
            }
            Err(e) => {
                sender = None;
                if counted {
                    tally.errors += 1;
                }
                tally.first_error.get_or_insert_with(|| e.to_string());
            }
        }
    }
    tally
}

/// `--requests N`: `n` requests one after the other on one connection (after its session
/// handshake for [`Kind::Session`]), each of which must succeed; for instruction counts
/// (`scripts/instructions.sh`), where only the number of requests matters.
async fn fixed(args: &Args, n: u64) -> Result<(), String> {
    let target = Target::new(args)?;
    let (mut sender, session) = target.open().await?;
    for i in 0..n {
        let answer = exchange(&mut sender, target.request(session.as_ref()))
            .await
            .map_err(|e| format!("request {i}: {e}"))?;
        if !answer.ok {
            return Err(format!("request {i}: {}", answer.describe()));
        }
    }
    Ok(())
}

/// The run's result.
struct Report {
    ok: u64,
    errors: u64,
    elapsed: Duration,
    latency_ns: Histogram<u64>,
    first_error: Option<String>,
    server_cpu: Option<Duration>,
    /// The server's resident memory at the end of the measured window, in KiB.
    server_rss_kib: Option<u64>,
    /// The size of the request body.
    request_bytes: usize,
    /// The size of the preflight answer's body.
    response_bytes: usize,
}

async fn run(args: &Args) -> Result<Report, String> {
    let target = Arc::new(Target::new(args)?);

    // One request first, so that a misconfigured run fails loudly instead of measuring errors.
    let (mut sender, session) = target.open().await?;
    let answer = exchange(&mut sender, target.request(session.as_ref()))
        .await
        .map_err(|e| format!("preflight request failed: {e}"))?;
    if !answer.ok {
        return Err(format!(
            "preflight answer is an error: {}",
            answer.describe()
        ));
    }
    eprintln!("preflight: {}", answer.describe());
    let response_bytes = answer.body.len();
    drop(sender);

    let phase = Arc::new(AtomicU8::new(if args.warmup.is_zero() {
        MEASURE
    } else {
        WARMUP
    }));
    let workers: Vec<_> = (0..args.concurrency)
        .map(|_| tokio::spawn(worker(target.clone(), phase.clone())))
        .collect();
    tokio::time::sleep(args.warmup).await;
    phase.store(MEASURE, Ordering::Relaxed);
    let start = Instant::now();
    let cpu_start = args.server_pid.and_then(loadgen::cpu_time);
    tokio::time::sleep(args.duration).await;
    phase.store(STOP, Ordering::Relaxed);
    let elapsed = start.elapsed();
    let cpu_end = args.server_pid.and_then(loadgen::cpu_time);
    let server_rss_kib = args.server_pid.and_then(loadgen::rss_kib);
    if args.server_pid.is_some() && cpu_end.is_none() {
        eprintln!("load: cannot read the server's CPU time from /proc");
    }

    let mut report = Report {
        ok: 0,
        errors: 0,
        elapsed,
        latency_ns: histogram(),
        first_error: None,
        server_cpu: cpu_start.zip(cpu_end).map(|(a, b)| b.saturating_sub(a)),
        server_rss_kib,
        request_bytes: target.body.len(),
        response_bytes,
    };
    for w in workers {
        let tally = w.await.map_err(|e| format!("a worker failed: {e}"))?;
        report.ok += tally.ok;
        report.errors += tally.errors;
        report
            .latency_ns
            .add(&tally.latency_ns)
            .map_err(|e| format!("merging histograms: {e}"))?;
        if report.first_error.is_none() {
            report.first_error = tally.first_error;
        }
    }
    Ok(report)
}

fn millis(ns: u64) -> f64 {
    ns as f64 / 1e6
}

/// Microseconds, to 0.1 µs.
fn micros(ns: u64) -> f64 {
    (ns as f64 / 100.0).round() / 10.0
}

fn main() -> ExitCode {
    let args = match Args::parse() {
        Ok(a) => a,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("load: {e}");
            }
            eprintln!("{USAGE}");
            return if e.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(2)
            };
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(args.threads)
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("load: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(n) = args.requests {
        return match runtime.block_on(fixed(&args, n)) {
            Ok(()) => {
                println!("{}: {n} requests answered", args.kind.name());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("load: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let report = match runtime.block_on(run(&args)) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("load: {e}");
            return ExitCode::FAILURE;
        }
    };

    let secs = report.elapsed.as_secs_f64();
    let rps = report.ok as f64 / secs;
    let h = &report.latency_ns;
    let (p50, p90, p99, max) = (
        h.value_at_quantile(0.50),
        h.value_at_quantile(0.90),
        h.value_at_quantile(0.99),
        h.max(),
    );
    println!(
        "{kind}: {url}, concurrency {c}, {t} client threads, warm-up {w:.1} s, measured {secs:.2} s",
        kind = args.kind.name(),
        url = args.url,
        c = args.concurrency,
        t = args.threads,
        w = args.warmup.as_secs_f64(),
    );
    println!(
        "  {ok} ok, {errors} errors, {rps:.0} req/s",
        ok = report.ok,
        errors = report.errors
    );
    println!(
        "  latency p50 {:.3} ms, p90 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
        millis(p50),
        millis(p90),
        millis(p99),
        millis(max)
    );
    let done = report.ok + report.errors;
    let cpu_per_request = report
        .server_cpu
        .filter(|_| done > 0)
        .map(|cpu| cpu.as_secs_f64() * 1e6 / done as f64);
    if let (Some(cpu), Some(per)) = (report.server_cpu, cpu_per_request) {
        println!(
            "  server CPU {:.2} s = {:.0}% of one core, {per:.1} µs per request",
            cpu.as_secs_f64(),
            cpu.as_secs_f64() / secs * 100.0
        );
    }
    if let Some(rss) = report.server_rss_kib {
        println!("  server RSS {:.1} MiB", rss as f64 / 1024.0);
    }
    if let Some(e) = &report.first_error {
        println!("  first error: {e}");
    }
    let line = serde_json::json!({
        "kind": args.kind.name(),
        "url": args.url,
        "concurrency": args.concurrency,
        "threads": args.threads,
        "warmup_s": args.warmup.as_secs_f64(),
        "duration_s": secs,
        "requests": report.ok,
        "errors": report.errors,
        "rps": (rps * 10.0).round() / 10.0,
        "p50_us": micros(p50),
        "p90_us": micros(p90),
        "p99_us": micros(p99),
        "max_us": micros(max),
        "server_cpu_us_per_req": cpu_per_request.map(|v| (v * 100.0).round() / 100.0),
        "server_rss_kib": report.server_rss_kib,
        "request_bytes": report.request_bytes,
        "response_bytes": report.response_bytes,
    });
    println!("{line}");
    if report.errors > 0 {
        ExitCode::from(3)
    } else {
        ExitCode::SUCCESS
    }
}
