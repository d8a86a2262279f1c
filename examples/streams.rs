//! Memory per open SSE stream (issue #17's scaling table): opens N streams to a server, each
//! on a connection of its own, and reports how much the server's resident memory grew.
//!
//! ```text
//! cargo run --release --example streams -- --url http://127.0.0.1:PORT/mcp \
//!     --kind listen|get|bare --server-pid PID [-n 10000] [--concurrency 64]
//! ```
//!
//! * `listen`: a modern `subscriptions/listen` asking for tool-list changes (the server must
//!   advertise them: `examples/scale_server.rs` with `SCALE_SERVICE=streams`); a stream counts
//!   as open once its acknowledgement has arrived.
//! * `get`: the legacy standalone `GET` stream of a session: N sessions are opened first
//!   (`initialize`, `notifications/initialized`) and measured on their own, then a `GET` on
//!   each; a stream counts as open once its first event (the priming event) has arrived.
//! * `bare`: `GET` to the bare axum baseline (`examples/bare_axum.rs` with
//!   `BARE_HANDLER=sse`), which sends one event and holds the response open.
//!
//! Before the measured streams, 100 are opened and closed (a warm-up, so the server's
//! start-up allocations are not counted). The server's RSS (`VmRSS` of `/proc/PID/status`)
//! is read before the measured streams and again one second after the last one opened;
//! the growth divided by N is the memory per stream, its connection included. All streams
//! stay open until the report is printed. Each connection takes a descriptor on both sides:
//! raise the open-file limit (`ulimit -n`) for 10,000 streams. The report is printed for
//! people, then as one JSON line (starting with `{`). Exits with status 1 when any stream
//! failed to open.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper::body::Incoming;
use hyper::header::{ACCEPT, CONTENT_TYPE, HOST, HeaderValue};
use hyper::{Method, Request, Uri};
use mcp_examples::bench::{LEGACY_INITIALIZE, LEGACY_INITIALIZED};
use mcp_examples::loadgen::{self, Sender, exchange};

const USAGE: &str = "usage: streams --url http://127.0.0.1:PORT/mcp --kind listen|get|bare \
--server-pid PID [-n STREAMS (10000)] [--concurrency N (64)]";

/// Streams opened and closed before the measurement.
const WARMUP: usize = 100;
/// How long one stream may take to open.
const OPEN_TIMEOUT: Duration = Duration::from_secs(30);

/// Which stream to open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Listen,
    Get,
    Bare,
}

/// The command line.
struct Args {
    url: String,
    kind: Kind,
    streams: usize,
    concurrency: usize,
    server_pid: u32,
}

impl Args {
    fn parse() -> Result<Self, String> {
        let (mut url, mut kind, mut streams, mut concurrency, mut pid) =
            (None, None, 10_000, 64, None);
        let mut it = std::env::args().skip(1);
        while let Some(flag) = it.next() {
            if flag == "-h" || flag == "--help" {
                return Err(String::new());
            }
            let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
            let count = |v: &str| {
                v.replace([',', '_'], "")
                    .parse::<usize>()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| format!("{flag}: expected a positive integer, got {v:?}"))
            };
            match flag.as_str() {
                "--url" | "-u" => url = Some(value),
                "--kind" | "-k" => {
                    kind = Some(match value.as_str() {
                        "listen" => Kind::Listen,
                        "get" => Kind::Get,
                        "bare" => Kind::Bare,
                        _ => return Err(format!("--kind: unknown kind {value:?}")),
                    });
                }
                "-n" | "--streams" => streams = count(&value)?,
                "--concurrency" | "-c" => concurrency = count(&value)?,
                "--server-pid" | "-p" => {
                    pid = Some(
                        value
                            .parse()
                            .map_err(|_| format!("--server-pid: expected a pid, got {value:?}"))?,
                    );
                }
                _ => return Err(format!("unknown option {flag}")),
            }
        }
        Ok(Args {
            url: url.ok_or("--url is required")?,
            kind: kind.ok_or("--kind is required")?,
            streams,
            concurrency,
            server_pid: pid.ok_or("--server-pid is required")?,
        })
    }
}

/// Where the streams go.
struct Target {
    kind: Kind,
    addr: SocketAddr,
    path: Uri,
    host: HeaderValue,
}

/// An open stream: its connection and the response body, held until dropped.
struct Open {
    _sender: Sender,
    _body: Incoming,
}

impl Target {
    fn request(&self, method: Method, body: &'static str) -> Request<Full<Bytes>> {
        let mut request = Request::new(Full::new(Bytes::from_static(body.as_bytes())));
        *request.method_mut() = method;
        *request.uri_mut() = self.path.clone();
        request.headers_mut().insert(HOST, self.host.clone());
        request
    }

    /// Opens a legacy session (`initialize`, `notifications/initialized`) on `sender`.
    async fn session(&self, sender: &mut Sender) -> Result<HeaderValue, String> {
        let mut init = self.request(Method::POST, LEGACY_INITIALIZE);
        let headers = init.headers_mut();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(
            ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        let mut initialized = init.clone();
        *initialized.body_mut() = Full::new(Bytes::from_static(LEGACY_INITIALIZED.as_bytes()));
        let answer = exchange(sender, init)
            .await
            .map_err(|e| format!("initialize: {e}"))?;
        let session = answer
            .headers
            .get("mcp-session-id")
            .filter(|_| answer.ok)
            .cloned()
            .ok_or_else(|| format!("initialize: no session: {}", answer.describe()))?;
        let headers = initialized.headers_mut();
        headers.insert("mcp-session-id", session.clone());
        headers.insert(
            "mcp-protocol-version",
            HeaderValue::from_static("2025-11-25"),
        );
        let answer = exchange(sender, initialized)
            .await
            .map_err(|e| format!("notifications/initialized: {e}"))?;
        if answer.status != 202 {
            return Err(format!("notifications/initialized: {}", answer.describe()));
        }
        Ok(session)
    }

    /// Opens one stream on a connection of its own (on `session` for [`Kind::Get`]) and
    /// waits for its first event.
    async fn open(&self, session: Option<&HeaderValue>) -> Result<Open, String> {
        let mut sender = loadgen::connect(self.addr).await?;
        let mut request = match self.kind {
            Kind::Listen => {
                let mut r = self.request(Method::POST, LISTEN);
                let h = r.headers_mut();
                h.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
                h.insert(
                    ACCEPT,
                    HeaderValue::from_static("application/json, text/event-stream"),
                );
                h.insert(
                    "mcp-protocol-version",
                    HeaderValue::from_static("2026-07-28"),
                );
                h.insert(
                    "mcp-method",
                    HeaderValue::from_static("subscriptions/listen"),
                );
                r
            }
            Kind::Get | Kind::Bare => {
                let mut r = self.request(Method::GET, "");
                r.headers_mut()
                    .insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
                r
            }
        };
        if let Some(id) = session {
            let h = request.headers_mut();
            h.insert("mcp-session-id", id.clone());
            h.insert(
                "mcp-protocol-version",
                HeaderValue::from_static("2025-11-25"),
            );
        }
        sender
            .ready()
            .await
            .map_err(|e| format!("connection: {e}"))?;
        let response = sender
            .send_request(request)
            .await
            .map_err(|e| format!("request: {e}"))?;
        let sse = response
            .headers()
            .get(CONTENT_TYPE)
            .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"));
        if response.status() != 200 || !sse {
            let status = response.status();
            let body = response.into_body().collect().await.map(|b| b.to_bytes());
            let body = body
                .as_deref()
                .map(String::from_utf8_lossy)
                .unwrap_or_default();
            return Err(format!("HTTP {status}, not an event stream: {body}"));
        }
        let mut body = response.into_body();
        let mut seen = Vec::new();
        loop {
            let frame = body
                .frame()
                .await
                .ok_or_else(|| {
                    format!(
                        "the stream ended after {:?}",
                        String::from_utf8_lossy(&seen)
                    )
                })?
                .map_err(|e| format!("reading the stream: {e}"))?;
            if let Some(data) = frame.data_ref() {
                seen.extend_from_slice(data);
            }
            let first_event = seen.windows(2).any(|w| w == b"\n\n");
            let wanted =
                self.kind != Kind::Listen || seen.windows(ACK.len()).any(|w| w == ACK.as_bytes());
            if first_event && wanted {
                break;
            }
        }
        Ok(Open {
            _sender: sender,
            _body: body,
        })
    }
}

/// The modern listen request: tool-list changes.
const LISTEN: &str = concat!(
    r#"{"jsonrpc":"2.0","id":"listen:0","method":"subscriptions/listen","params":{"#,
    r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","#,
    r#""io.modelcontextprotocol/clientInfo":{"name":"mcp-streams","version":"0.1.0"},"#,
    r#""io.modelcontextprotocol/clientCapabilities":{}},"#,
    r#""notifications":{"toolsListChanged":true}}}"#
);

/// What the listen acknowledgement contains.
const ACK: &str = "notifications/subscriptions/acknowledged";

/// Opens one stream per entry of `sessions` (or `count` streams without sessions), `c` at a
/// time; the open streams, or the first error and the number of failures.
async fn open_all(
    target: &Arc<Target>,
    count: usize,
    sessions: Option<Arc<Vec<HeaderValue>>>,
    c: usize,
) -> Result<Vec<Open>, (usize, String)> {
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..c.min(count) {
        let (target, next, sessions) = (target.clone(), next.clone(), sessions.clone());
        tasks.spawn(async move {
            let mut opened = Vec::new();
            let mut failed: Option<(usize, String)> = None;
            loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= count {
                    break;
                }
                let session = sessions.as_ref().map(|s| &s[i]);
                match tokio::time::timeout(OPEN_TIMEOUT, target.open(session)).await {
                    Ok(Ok(open)) => opened.push(open),
                    Ok(Err(e)) => failed.get_or_insert((0, e)).0 += 1,
                    Err(_) => failed.get_or_insert((0, "timed out".into())).0 += 1,
                }
            }
            (opened, failed)
        });
    }
    let mut all = Vec::with_capacity(count);
    let mut failed: Option<(usize, String)> = None;
    while let Some(done) = tasks.join_next().await {
        let (opened, f) = done.map_err(|e| (1, format!("a task failed: {e}")))?;
        all.extend(opened);
        if let Some((n, e)) = f {
            failed.get_or_insert((0, e)).0 += n;
        }
    }
    match failed {
        Some(f) => Err(f),
        None => Ok(all),
    }
}

/// Opens `count` legacy sessions, `c` connections at a time.
async fn sessions(
    target: &Arc<Target>,
    count: usize,
    c: usize,
) -> Result<Vec<HeaderValue>, String> {
    let mut tasks = tokio::task::JoinSet::new();
    let c = c.min(count);
    for k in 0..c {
        let target = target.clone();
        let mine = count / c + usize::from(k < count % c);
        tasks.spawn(async move {
            let mut sender = loadgen::connect(target.addr).await?;
            let mut ids = Vec::with_capacity(mine);
            for _ in 0..mine {
                ids.push(target.session(&mut sender).await?);
            }
            Ok::<_, String>(ids)
        });
    }
    let mut all = Vec::with_capacity(count);
    while let Some(done) = tasks.join_next().await {
        all.extend(done.map_err(|e| format!("a task failed: {e}"))??);
    }
    Ok(all)
}

/// The server's RSS in bytes.
fn rss(pid: u32) -> Result<u64, String> {
    loadgen::rss_kib(pid)
        .map(|kib| kib * 1024)
        .ok_or_else(|| format!("cannot read the RSS of process {pid} from /proc"))
}

/// What was measured.
struct Report {
    rss_before: u64,
    rss_after: u64,
    open_secs: f64,
    /// For `get`: the RSS before the sessions were opened.
    rss_before_sessions: Option<u64>,
}

async fn run(args: &Args) -> Result<Report, String> {
    let (addr, path, authority) = loadgen::resolve(&args.url)?;
    let target = Arc::new(Target {
        kind: args.kind,
        addr,
        path,
        host: HeaderValue::from_str(&authority).map_err(|e| e.to_string())?,
    });
    let c = args.concurrency;
    let failure = |what: &str, (n, e): (usize, String)| format!("{n} {what} failed; first: {e}");
    let mut rss_before_sessions = None;
    let (warmup, measured) = if args.kind == Kind::Get {
        let before = rss(args.server_pid)?;
        let ids = sessions(&target, WARMUP + args.streams, c).await?;
        rss_before_sessions = Some(before);
        let (warmup, measured) = ids.split_at(WARMUP);
        (
            Some(Arc::new(warmup.to_vec())),
            Some(Arc::new(measured.to_vec())),
        )
    } else {
        (None, None)
    };
    let opened = open_all(&target, WARMUP, warmup, c)
        .await
        .map_err(|f| failure("warm-up streams", f))?;
    drop(opened);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let rss_before = rss(args.server_pid)?;
    let start = Instant::now();
    let streams = open_all(&target, args.streams, measured, c)
        .await
        .map_err(|f| failure("streams", f))?;
    let open_secs = start.elapsed().as_secs_f64();
    tokio::time::sleep(Duration::from_secs(1)).await;
    let rss_after = rss(args.server_pid)?;
    drop(streams);
    Ok(Report {
        rss_before,
        rss_after,
        open_secs,
        rss_before_sessions,
    })
}

fn main() -> ExitCode {
    let args = match Args::parse() {
        Ok(a) => a,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("streams: {e}");
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
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("streams: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let report = match runtime.block_on(run(&args)) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("streams: {e}");
            return ExitCode::FAILURE;
        }
    };
    let kind = match args.kind {
        Kind::Listen => "listen",
        Kind::Get => "get",
        Kind::Bare => "bare",
    };
    let n = args.streams as f64;
    let mib = |b: u64| b as f64 / 1_048_576.0;
    let growth = report.rss_after.saturating_sub(report.rss_before);
    let per_stream = growth as f64 / n;
    println!(
        "streams ({kind}): {} open streams: server RSS {:.1} MiB -> {:.1} MiB, +{:.1} MiB, \
         {per_stream:.0} bytes per stream; opened in {:.2} s",
        args.streams,
        mib(report.rss_before),
        mib(report.rss_after),
        mib(growth),
        report.open_secs,
    );
    let per_session = report.rss_before_sessions.map(|before| {
        // The warm-up sessions are among those counted here.
        let growth = report.rss_before.saturating_sub(before);
        let per = growth as f64 / (args.streams + WARMUP) as f64;
        println!(
            "  the {} sessions under them: +{:.1} MiB before the streams, {per:.0} bytes per session",
            args.streams + WARMUP,
            mib(growth)
        );
        per.round()
    });
    println!(
        "{}",
        serde_json::json!({
            "bench": "streams",
            "kind": kind,
            "streams": args.streams,
            "rss_before_bytes": report.rss_before,
            "rss_after_bytes": report.rss_after,
            "bytes_per_stream": per_stream.round(),
            "bytes_per_session": per_session,
            "open_s": (report.open_secs * 100.0).round() / 100.0,
        })
    );
    ExitCode::SUCCESS
}
