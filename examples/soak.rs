//! A soak client: mixed modern and legacy traffic against the weather example at a fixed
//! rate for a long time, sampling the server's resident memory.
//!
//! ```text
//! cargo run --release --example soak -- --url http://127.0.0.1:9090/mcp --server-pid PID \
//!     [--rate REQ_PER_S (0: as fast as possible)] [--duration SECONDS (600)] \
//!     [--concurrency N (16)] [--warmup SECONDS (60)] [--sample SECONDS (5)] \
//!     [--session-calls N (50)] [--csv FILE]
//! ```
//!
//! Half of the `--concurrency` workers speak the modern era: enveloped 2026-07-28 requests
//! with their `Mcp-Method`, `Mcp-Name` and `Mcp-Param-Region` headers, cycling through the
//! three weather tools and `tools/list`. The other half speak the legacy era with sessions:
//! `initialize`, `notifications/initialized`, `--session-calls` tool calls on the session,
//! then `DELETE` of the session and a new `initialize`, so sessions are created and ended
//! all the time. Each worker keeps one keep-alive connection and paces itself to its share
//! of `--rate`. Every exchange counts as a request; an error is any answer other than the
//! expected one (a JSON-RPC result that is not a tool error, 202 for the notification, 2xx
//! for the `DELETE`) or a transport failure.
//!
//! Every `--sample` seconds the server's RSS (`VmRSS` of `/proc/PID/status`) is recorded
//! (and written to `--csv`). The report gives the error count, the throughput, and the RSS
//! trend after the warm-up: the least-squares slope and the mean of the first and the last
//! minute. The last line of output is the report as JSON; the exit code is 3 when there
//! were errors.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{HOST, HeaderName, HeaderValue};
use hyper::{Method, Request, Uri};
use mcp_examples::loadgen::{self, Answer, Sender, exchange};
use serde_json::{Value, json};

const USAGE: &str = "usage: soak --url http://127.0.0.1:PORT/mcp --server-pid PID [--rate N (0)] \
[--duration SECONDS (600)] [--concurrency N (16)] [--warmup SECONDS (60)] [--sample SECONDS (5)] \
[--session-calls N (50)] [--csv FILE]";

const MODERN: &str = "2026-07-28";
const LEGACY: &str = "2025-11-25";

/// The command line.
struct Args {
    url: String,
    server_pid: Option<u32>,
    rate: f64,
    duration: Duration,
    concurrency: usize,
    warmup: Duration,
    sample: Duration,
    session_calls: u32,
    csv: Option<String>,
}

impl Args {
    fn parse() -> Result<Self, String> {
        let mut args = Args {
            url: String::new(),
            server_pid: None,
            rate: 0.0,
            duration: Duration::from_secs(600),
            concurrency: 16,
            warmup: Duration::from_secs(60),
            sample: Duration::from_secs(5),
            session_calls: 50,
            csv: None,
        };
        let mut it = std::env::args().skip(1);
        while let Some(flag) = it.next() {
            if flag == "-h" || flag == "--help" {
                return Err(String::new());
            }
            let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
            let bad = |what: &str| format!("{flag}: expected {what}, got {value:?}");
            let secs = |v: &str| {
                v.parse::<f64>()
                    .ok()
                    .filter(|s| s.is_finite() && *s >= 0.0)
                    .map(Duration::from_secs_f64)
            };
            match flag.as_str() {
                "--url" => args.url = value,
                "--server-pid" => args.server_pid = Some(value.parse().map_err(|_| bad("a pid"))?),
                "--rate" => {
                    args.rate = value
                        .parse()
                        .ok()
                        .filter(|r: &f64| r.is_finite() && *r >= 0.0)
                        .ok_or_else(|| bad("requests per second"))?;
                }
                "--duration" => args.duration = secs(&value).ok_or_else(|| bad("seconds"))?,
                "--warmup" => args.warmup = secs(&value).ok_or_else(|| bad("seconds"))?,
                "--sample" => {
                    args.sample = secs(&value)
                        .filter(|d| !d.is_zero())
                        .ok_or_else(|| bad("positive seconds"))?;
                }
                "--concurrency" => {
                    args.concurrency = value
                        .parse()
                        .ok()
                        .filter(|n| *n >= 2)
                        .ok_or_else(|| bad("an integer of at least 2"))?;
                }
                "--session-calls" => {
                    args.session_calls = value
                        .parse()
                        .ok()
                        .filter(|n| *n > 0)
                        .ok_or_else(|| bad("a positive integer"))?;
                }
                "--csv" => args.csv = Some(value),
                _ => return Err(format!("unknown option {flag}")),
            }
        }
        if args.url.is_empty() {
            return Err("--url is required".into());
        }
        Ok(args)
    }
}

/// What every worker adds to.
#[derive(Default)]
struct Counters {
    ok: AtomicU64,
    errors: AtomicU64,
    stop: AtomicBool,
    first_error: std::sync::Mutex<Option<String>>,
}

impl Counters {
    fn record(&self, outcome: Result<(), String>) {
        match outcome {
            Ok(()) => {
                self.ok.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => {
                self.errors.fetch_add(1, Ordering::Relaxed);
                let mut first = self.first_error.lock().unwrap_or_else(|p| p.into_inner());
                first.get_or_insert(e);
            }
        }
    }
}

/// Where requests go.
struct Target {
    addr: SocketAddr,
    path: Uri,
    host: HeaderValue,
}

impl Target {
    fn post(&self, body: &Bytes, headers: &[(&'static str, String)]) -> Request<Full<Bytes>> {
        self.request(Method::POST, body.clone(), headers)
    }

    fn request(
        &self,
        method: Method,
        body: Bytes,
        headers: &[(&'static str, String)],
    ) -> Request<Full<Bytes>> {
        let mut request = Request::new(Full::new(body));
        *request.method_mut() = method;
        *request.uri_mut() = self.path.clone();
        let map = request.headers_mut();
        map.insert(HOST, self.host.clone());
        map.insert(
            "accept",
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        map.insert("content-type", HeaderValue::from_static("application/json"));
        for (name, value) in headers {
            if let Ok(value) = HeaderValue::from_str(value) {
                map.insert(HeaderName::from_static(name), value);
            }
        }
        request
    }
}

/// One modern request: its body and its headers.
struct Fixture {
    body: Bytes,
    headers: Vec<(&'static str, String)>,
}

fn modern(id: u64, method: &str, params: Value) -> Fixture {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": "mcp-soak", "version": "0.1.0"},
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    let mut headers = vec![
        ("mcp-protocol-version", MODERN.to_owned()),
        ("mcp-method", method.to_owned()),
    ];
    if let Some(name) = params["name"].as_str() {
        headers.push(("mcp-name", name.to_owned()));
    }
    if let Some(region) = params["arguments"]["region"].as_str() {
        headers.push(("mcp-param-region", region.to_owned()));
    }
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    Fixture {
        body: Bytes::from(body.to_string()),
        headers,
    }
}

fn modern_fixtures() -> Vec<Fixture> {
    vec![
        modern(
            1,
            "tools/call",
            json!({"name": "get_current_weather", "arguments": {"city": "Oslo"}}),
        ),
        modern(
            2,
            "tools/call",
            json!({"name": "regional_weather", "arguments": {"region": "eu-west", "city": "Lyon"}}),
        ),
        modern(
            3,
            "tools/call",
            json!({"name": "get_weather_forecast", "arguments": {"location": "Lima", "days": 3}}),
        ),
        modern(4, "tools/list", json!({})),
    ]
}

/// Paces a worker to `rate` requests per second (no pacing at 0).
struct Pace(Option<tokio::time::Interval>);

impl Pace {
    fn new(rate: f64) -> Self {
        Pace((rate > 0.0).then(|| {
            let mut interval = tokio::time::interval(Duration::from_secs_f64(1.0 / rate));
            interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            interval
        }))
    }

    async fn wait(&mut self) {
        if let Some(interval) = &mut self.0 {
            interval.tick().await;
        }
    }
}

/// A worker's connection, reopened after a transport failure.
struct Connection<'t> {
    target: &'t Target,
    sender: Option<Sender>,
}

impl Connection<'_> {
    async fn send(&mut self, request: Request<Full<Bytes>>) -> Result<Answer, String> {
        let sender = match &mut self.sender {
            Some(s) => s,
            None => self
                .sender
                .insert(loadgen::connect(self.target.addr).await?),
        };
        exchange(sender, request).await.map_err(|e| {
            self.sender = None;
            e.to_string()
        })
    }
}

fn expect_result(answer: Answer) -> Result<Answer, String> {
    if answer.ok {
        Ok(answer)
    } else {
        Err(answer.describe())
    }
}

async fn modern_worker(target: Arc<Target>, counters: Arc<Counters>, rate: f64) {
    let fixtures = modern_fixtures();
    let mut pace = Pace::new(rate);
    let mut connection = Connection {
        target: &target,
        sender: None,
    };
    for fixture in fixtures.iter().cycle() {
        if counters.stop.load(Ordering::Relaxed) {
            break;
        }
        pace.wait().await;
        let answer = connection
            .send(target.post(&fixture.body, &fixture.headers))
            .await;
        counters.record(answer.and_then(expect_result).map(drop));
    }
}

/// One step of a legacy session's life.
async fn legacy_step(
    connection: &mut Connection<'_>,
    session: &mut Option<(String, u32)>,
    session_calls: u32,
    bodies: &LegacyBodies,
) -> Result<(), String> {
    let target = connection.target;
    let Some((id, calls)) = session else {
        let answer = expect_result(
            connection
                .send(target.post(&bodies.initialize, &[]))
                .await?,
        )?;
        let id = answer
            .headers
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .ok_or("initialize answered without an Mcp-Session-Id")?
            .to_owned();
        let headers = [
            ("mcp-session-id", id.clone()),
            ("mcp-protocol-version", LEGACY.to_owned()),
        ];
        let answer = connection
            .send(target.post(&bodies.initialized, &headers))
            .await?;
        if answer.status != 202 {
            return Err(format!("notifications/initialized: {}", answer.describe()));
        }
        *session = Some((id, 0));
        return Ok(());
    };
    let headers = [
        ("mcp-session-id", id.clone()),
        ("mcp-protocol-version", LEGACY.to_owned()),
    ];
    if *calls >= session_calls {
        let request = target.request(Method::DELETE, Bytes::new(), &headers);
        let answer = connection.send(request).await?;
        *session = None;
        return if (200..300).contains(&answer.status) {
            Ok(())
        } else {
            Err(format!("DELETE: {}", answer.describe()))
        };
    }
    *calls += 1;
    expect_result(connection.send(target.post(&bodies.call, &headers)).await?).map(drop)
}

/// The legacy requests' bodies.
struct LegacyBodies {
    initialize: Bytes,
    initialized: Bytes,
    call: Bytes,
}

async fn legacy_worker(target: Arc<Target>, counters: Arc<Counters>, rate: f64, calls: u32) {
    let bodies = LegacyBodies {
        initialize: Bytes::from(
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": LEGACY, "capabilities": {},
                "clientInfo": {"name": "mcp-soak", "version": "0.1.0"}}})
            .to_string(),
        ),
        initialized: Bytes::from_static(
            br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        ),
        call: Bytes::from(
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
                "name": "get_weather_forecast", "arguments": {"location": "Oslo", "days": 2}}})
            .to_string(),
        ),
    };
    let mut pace = Pace::new(rate);
    let mut connection = Connection {
        target: &target,
        sender: None,
    };
    let mut session = None;
    while !counters.stop.load(Ordering::Relaxed) {
        pace.wait().await;
        let outcome = legacy_step(&mut connection, &mut session, calls, &bodies).await;
        if outcome.is_err() {
            session = None;
        }
        counters.record(outcome);
    }
}

/// The RSS trend after the warm-up.
struct Trend {
    samples: usize,
    min: u64,
    max: u64,
    first_minute: f64,
    last_minute: f64,
    slope_per_min: f64,
}

/// Least-squares slope (KiB per minute) and first/last-minute means of `(seconds, KiB)`.
fn trend(samples: &[(f64, u64)]) -> Option<Trend> {
    let n = samples.len();
    if n < 2 {
        return None;
    }
    let mean_t = samples.iter().map(|s| s.0).sum::<f64>() / n as f64;
    let mean_r = samples.iter().map(|s| s.1 as f64).sum::<f64>() / n as f64;
    let (mut num, mut den) = (0.0, 0.0);
    for &(t, r) in samples {
        num += (t - mean_t) * (r as f64 - mean_r);
        den += (t - mean_t) * (t - mean_t);
    }
    let (start, end) = (samples[0].0, samples[n - 1].0);
    let window_mean = |keep: &dyn Fn(f64) -> bool| {
        let w: Vec<f64> = samples
            .iter()
            .filter(|s| keep(s.0))
            .map(|s| s.1 as f64)
            .collect();
        w.iter().sum::<f64>() / w.len().max(1) as f64
    };
    Some(Trend {
        samples: n,
        min: samples.iter().map(|s| s.1).min()?,
        max: samples.iter().map(|s| s.1).max()?,
        first_minute: window_mean(&|t| t <= start + 60.0),
        last_minute: window_mean(&|t| t >= end - 60.0),
        slope_per_min: if den > 0.0 { num / den * 60.0 } else { 0.0 },
    })
}

async fn run(args: &Args) -> Result<Value, String> {
    let (addr, path, authority) = loadgen::resolve(&args.url)?;
    let target = Arc::new(Target {
        addr,
        path,
        host: HeaderValue::from_str(&authority).map_err(|e| e.to_string())?,
    });
    let counters = Arc::new(Counters::default());
    let per_worker = args.rate / args.concurrency as f64;
    let workers: Vec<_> = (0..args.concurrency)
        .map(|i| {
            let (target, counters) = (target.clone(), counters.clone());
            if i % 2 == 0 {
                tokio::spawn(modern_worker(target, counters, per_worker))
            } else {
                tokio::spawn(legacy_worker(
                    target,
                    counters,
                    per_worker,
                    args.session_calls,
                ))
            }
        })
        .collect();

    let mut csv = match &args.csv {
        Some(path) => {
            let mut file = std::fs::File::create(path).map_err(|e| format!("{path}: {e}"))?;
            use std::io::Write as _;
            writeln!(file, "seconds,rss_kib,ok,errors").map_err(|e| e.to_string())?;
            Some(file)
        }
        None => None,
    };
    let started = Instant::now();
    let mut after_warmup = Vec::new();
    let (mut ok_mark, mut mark) = (0, Instant::now());
    let mut measured = (0u64, Duration::ZERO);
    let mut ticker = tokio::time::interval(args.sample);
    ticker.tick().await;
    while started.elapsed() < args.duration {
        ticker.tick().await;
        let t = started.elapsed().as_secs_f64();
        let ok = counters.ok.load(Ordering::Relaxed);
        let errors = counters.errors.load(Ordering::Relaxed);
        let rss = args.server_pid.and_then(loadgen::rss_kib);
        let rps = (ok - ok_mark) as f64 / mark.elapsed().as_secs_f64();
        if started.elapsed() >= args.warmup {
            measured.0 += ok - ok_mark;
            measured.1 += mark.elapsed();
            if let Some(rss) = rss {
                after_warmup.push((t, rss));
            }
        }
        (ok_mark, mark) = (ok, Instant::now());
        eprintln!(
            "soak: t={t:>6.0}s ok={ok} errors={errors} rps={rps:.0} rss={}",
            rss.map_or("?".to_owned(), |r| format!("{r} KiB"))
        );
        if let Some(file) = &mut csv {
            use std::io::Write as _;
            let rss = rss.map_or(String::new(), |r| r.to_string());
            writeln!(file, "{t:.1},{rss},{ok},{errors}").map_err(|e| e.to_string())?;
        }
    }
    counters.stop.store(true, Ordering::Relaxed);
    for worker in workers {
        let _ = tokio::time::timeout(Duration::from_secs(10), worker).await;
    }
    let trend = trend(&after_warmup);
    let first_error = counters
        .first_error
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone();
    Ok(json!({
        "url": args.url,
        "duration_s": started.elapsed().as_secs_f64().round(),
        "concurrency": args.concurrency,
        "rate_target": args.rate,
        "rps_after_warmup": (measured.0 as f64 / measured.1.as_secs_f64().max(1e-9)).round(),
        "ok": counters.ok.load(Ordering::Relaxed),
        "errors": counters.errors.load(Ordering::Relaxed),
        "first_error": first_error,
        "rss_kib": trend.map(|t| json!({
            "samples": t.samples,
            "min": t.min,
            "max": t.max,
            "first_minute_mean": t.first_minute.round(),
            "last_minute_mean": t.last_minute.round(),
            "slope_per_min": (t.slope_per_min * 10.0).round() / 10.0,
        })),
    }))
}

fn main() -> ExitCode {
    let args = match Args::parse() {
        Ok(a) => a,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("soak: {e}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(if e.is_empty() { 0 } else { 2 });
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("soak: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(&args)) {
        Ok(report) => {
            println!("{report}");
            if report["errors"].as_u64() == Some(0) {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(3)
            }
        }
        Err(e) => {
            eprintln!("soak: {e}");
            ExitCode::FAILURE
        }
    }
}
