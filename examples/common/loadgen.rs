//! The HTTP/1.1 client side of the load tools (`examples/load.rs`, `examples/soak.rs`):
//! keep-alive connections through hyper, one exchange at a time, the success test of an MCP
//! answer, and the server-process readings (CPU time, resident memory) taken from `/proc`.

use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper::client::conn::http1::{self, SendRequest};
use hyper::header::{CONTENT_TYPE, HeaderMap};
use hyper::{Request, Uri};
use hyper_util::rt::TokioIo;
use serde::Deserialize;
use serde::de::IgnoredAny;

/// A connection's request sender.
pub type Sender = SendRequest<Full<Bytes>>;

/// Opens a keep-alive HTTP/1.1 connection to `addr` (TCP_NODELAY on).
pub async fn connect(addr: SocketAddr) -> Result<Sender, String> {
    let stream = tokio::net::TcpStream::connect(addr)
        .await
        .map_err(|e| format!("connect {addr}: {e}"))?;
    let _ = stream.set_nodelay(true);
    let (sender, connection) = http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| format!("handshake: {e}"))?;
    tokio::spawn(async move {
        let _ = connection.await;
    });
    Ok(sender)
}

/// The address and path of an `http://` URL.
pub fn resolve(url: &str) -> Result<(SocketAddr, Uri, String), String> {
    let uri: Uri = url.parse().map_err(|e| format!("bad --url {url}: {e}"))?;
    if uri.scheme_str() != Some("http") {
        return Err(format!("--url must be an http:// URL, got {url}"));
    }
    let authority = uri.authority().ok_or("--url has no host")?.clone();
    let port = authority.port_u16().unwrap_or(80);
    let addr = std::net::ToSocketAddrs::to_socket_addrs(&(authority.host(), port))
        .map_err(|e| format!("cannot resolve {authority}: {e}"))?
        .next()
        .ok_or_else(|| format!("{authority} resolves to no address"))?;
    let path: Uri = uri
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .parse()
        .map_err(|e| format!("bad path in {url}: {e}"))?;
    Ok((addr, path, authority.to_string()))
}

/// One answer: its HTTP status, headers and body, and whether it is an MCP success (a 2xx
/// whose JSON-RPC answer is a result that is not a tool error).
pub struct Answer {
    /// The HTTP status.
    pub status: u16,
    /// The response headers.
    pub headers: HeaderMap,
    /// The whole body.
    pub body: Bytes,
    /// Whether it counts as a success.
    pub ok: bool,
}

impl Answer {
    /// The status and the start of the body, for error reports.
    pub fn describe(&self) -> String {
        let body = String::from_utf8_lossy(&self.body);
        let body: String = body.chars().take(400).collect();
        format!("HTTP {}: {body}", self.status)
    }
}

/// Sends `request` on `sender` and reads the whole answer.
pub async fn exchange(
    sender: &mut Sender,
    request: Request<Full<Bytes>>,
) -> Result<Answer, hyper::Error> {
    sender.ready().await?;
    let response = sender.send_request(request).await?;
    let status = response.status();
    let headers = response.headers().clone();
    let sse = headers
        .get(CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"));
    let body = response.into_body().collect().await?.to_bytes();
    let ok = status.is_success() && is_success(&body, sse);
    Ok(Answer {
        status: status.as_u16(),
        headers,
        body,
        ok,
    })
}

/// The parts of a JSON-RPC response that decide success; everything else is skipped.
#[derive(Deserialize)]
struct ResponseProbe {
    result: Option<ResultProbe>,
    error: Option<IgnoredAny>,
}

#[derive(Deserialize)]
struct ResultProbe {
    #[serde(rename = "isError", default)]
    is_error: bool,
}

/// A JSON-RPC result that is not a tool error; for SSE, the last `data:` line is the answer.
pub fn is_success(body: &[u8], sse: bool) -> bool {
    let json = if sse {
        match body
            .split(|b| *b == b'\n')
            .filter_map(|line| line.strip_prefix(b"data:"))
            .next_back()
        {
            Some(data) => data,
            None => return false,
        }
    } else {
        body
    };
    match serde_json::from_slice::<ResponseProbe>(json) {
        Ok(r) => r.error.is_none() && r.result.is_some_and(|r| !r.is_error),
        Err(_) => false,
    }
}

/// The CPU time (user + system) all threads of process `pid` have used so far, from
/// `/proc/PID/task/*/schedstat` (nanosecond resolution); `None` where that is unavailable.
pub fn cpu_time(pid: u32) -> Option<Duration> {
    let mut total = 0u64;
    for task in std::fs::read_dir(format!("/proc/{pid}/task")).ok()? {
        let stat = std::fs::read_to_string(task.ok()?.path().join("schedstat")).ok()?;
        total += stat.split_whitespace().next()?.parse::<u64>().ok()?;
    }
    Some(Duration::from_nanos(total))
}

/// The resident set size of process `pid` in KiB (`VmRSS` of `/proc/PID/status`).
pub fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}
