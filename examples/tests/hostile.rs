//! The hostile-input catalogue (issue 8, deliverable 1): requests a careless or malicious
//! client can send, served over a real TCP socket by [`mcp::HttpServer`], so
//! that hyper's own limits take part. Every case asserts
//!
//! - the exact HTTP status and JSON-RPC `error.code` (or the OAuth `error`, or the bare
//!   status hyper answers before the service runs),
//! - that neither the body nor a header value carries internal detail ([`assert_no_leak`]:
//!   panic text, source paths, Rust `Debug` dumps, the request-state key, JWT signing keys,
//!   and the argument values of the well-behaved client running next to it), and
//! - that the server still serves a well-behaved client: one round trip after every case,
//!   and a canary client looping modern and legacy `tools/call`s during the whole theme,
//!   which must see no failure.
//!
//! Themes, one `#[tokio::test]` each: malformed JSON-RPC, body limits, batches, methods and
//! params, headers (injection, sizes, version cross-checks, Origin), Host and CORS (DNS
//! rebinding, preflights), legacy sessions, request state, OAuth tokens, DPoP proofs
//! (RFC 9449: forged, misbound, replayed, stale, for another method, URL or token, private
//! keys, nonce games; `tests/dpop.rs` asserts their challenges exactly), and identity
//! binding (request state under listener authentication, identities that differ only in a
//! separator character on the in-memory and the Redis store, tokens that name nobody,
//! `crit` and private JWT header members, scopes split on spaces only), and change
//! notifications (`subscriptions/listen` filters and cap, resource subscriptions), and tasks
//! (unknown, malformed and other callers' task ids, a flood of task creations against the
//! per-caller cap, a result over the size cap, `tasks/update` answers that do not fit).
//!
//! Adding a case: add one line to the theme's table,
//! `case("what it is", &server, request, Expect::Rpc(400, -32600))`. Build the request with
//! [`modern`] or [`tool`] (envelope and standard headers added), [`legacy`],
//! [`legacy_call`], [`legacy_tool`] or [`legacy_text`], or [`post`] for any body; adjust it
//! with [`Http::with`], [`Http::also`] (a repeated header), [`Http::without`], and send it
//! through reqwest as is, written by hand on a fresh connection with [`Http::raw`] (for
//! bytes no HTTP client sends), or many times at once with [`Wire::Many`]. [`Expect`] lists
//! the possible answers. A theme's cases run in order (the session flood evicts the session
//! the next case uses), and their names are unique within the theme. The runner does the
//! rest; each theme prints its case count and run time (`-- --nocapture`).

mod dpop_support;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use dpop_support::{EC2_PEM, EC3_PEM, ED1_PEM, ProofKey, ath, b64};
use mcp::auth::{DpopConfig, ListenerAuth};
use mcp::session::{DynSessionStore, MemoryStore, SessionLimits};
use mcp::{Context, InputRequired, ProtocolMode, SessionMode, ToolOutput, ToolResultExt as _};
use mcp_examples::authz::{
    EC1_PEM, LocalAuthServer, RSA1_PEM, RSA1_PUBLIC_PEM, RSA2_PEM, SigningKey, now,
};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

/// The well-behaved client's argument values start with this; no other response may
/// contain it.
const CANARY: &str = "canary-arg-5d1e9b";
/// The request-state key of the attacked services.
const STATE_KEY: &[u8; 32] = b"hostile-catalogue-state-key-0001";
/// The key of another server, whose states the attacked services must refuse.
const OTHER_KEY: &[u8; 32] = b"another-server-state-key-0000002";
const MODERN: &str = "2026-07-28";
const ORIGIN: &str = "https://app.example.com";
const RESOURCE: &str = "https://mcp.example.com/mcp";
/// A panic message full of what must never reach a client.
const PANIC: &str = "internal detail at /home/build/src/vault.rs:42, set RUST_BACKTRACE=1";

// ----------------------------------------------------------------- the attacked services

/// The service most themes attack.
struct Target;

#[mcp::service(name = "target", version = "1.0.0")]
impl Target {
    /// Echo `text` back.
    pub fn echo(&self, text: String) -> String {
        text
    }

    /// Add two integers.
    pub fn add(&self, left: i64, right: i64) -> Result<i64, mcp::ToolError> {
        left.checked_add(right)
            .ok_or_else(|| mcp::ToolError::new("the sum overflows"))
    }

    /// A forecast; the region travels in `Mcp-Param-Region` too.
    pub fn regional(&self, #[argument(header = "Region")] region: String, days: u8) -> String {
        format!("{days} days of sun in {region}")
    }

    /// A page of results; the offset travels in `Mcp-Param-Offset` too.
    pub fn page(&self, #[argument(header = "Offset")] offset: i64) -> String {
        format!("page at {offset}")
    }

    /// Counts rounds in its request state.
    pub fn count(&self, label: String, context: Context) -> ToolOutput<String> {
        let n: u32 = context
            .request_state()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        if n >= 2 {
            return ToolOutput::Done(format!("{label} after {n} rounds"));
        }
        InputRequired::new().state((n + 1).to_string()).into()
    }

    /// Another tool with the same shape as `count`.
    pub fn recount(&self, label: String, context: Context) -> ToolOutput<String> {
        self.count(label, context)
    }

    /// Panics with internal detail in its message.
    pub fn explode(&self) -> String {
        panic!("{PANIC}")
    }

    /// Fails with a tool error whose source (an I/O error naming a path) must stay in the
    /// log.
    pub fn read_key(&self) -> Result<String, mcp::ToolError> {
        Err(leaky_io_error()).tool_err("could not read the key")
    }

    /// Fails with an internal error whose source (an I/O error naming a path) must stay in
    /// the log.
    pub fn unlock(&self) -> Result<String, mcp::ServerError> {
        Err(mcp::ServerError::internal(leaky_io_error()))
    }
}

/// An I/O error full of what must never reach a client.
fn leaky_io_error() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::PermissionDenied,
        format!("open /home/build/secrets/vault.key: {PANIC}"),
    )
}

/// An OAuth-protected service (`files:read` for everything).
struct Vault;

#[mcp::service(name = "vault", version = "1.0.0")]
impl Vault {
    /// Echo `text` back.
    pub fn echo(&self, text: String) -> String {
        text
    }

    /// Erase everything.
    #[tool(scopes = ["files:write"])]
    pub fn erase(&self) -> String {
        "erased".into()
    }

    /// Two rounds; the continuation is bound to the caller.
    pub fn step(&self, auth: mcp::AuthContext, context: Context) -> ToolOutput<String> {
        match context.request_state() {
            Some(state) => ToolOutput::Done(format!(
                "{} resumed {state}",
                auth.subject.unwrap_or_default()
            )),
            None => InputRequired::new().state("round-1").into(),
        }
    }
}

/// Builds `builder` and serves it on a fresh loopback port until the test ends.
async fn serve(builder: mcp::ServerBuilder) -> SocketAddr {
    let server = builder.build().expect("a valid service");
    let listener = mcp::HttpServer::bind("127.0.0.1:0")
        .await
        .expect("bind a loopback port");
    let addr = listener.local_addr().expect("the bound address");
    let app = mcp::transport::http::router("/mcp", server);
    tokio::spawn(listener.serve(app.into_make_service()).into_future());
    addr
}

/// [`Target`] as most themes serve it: auto era, auto sessions, one allowed Origin, a known
/// request-state key, and a 1 s body read timeout.
fn target() -> mcp::ServerBuilder {
    mcp::Server::builder(Target)
        .transport(|http: mcp::transport::http::HttpConfig| http.allowed_origins([ORIGIN]))
        .request_state_keys([STATE_KEY])
        .transport(|http: mcp::transport::http::HttpConfig| {
            http.body_read_timeout(Duration::from_secs(1))
        })
}

/// Which eras a server speaks, for the well-behaved client.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Eras {
    Both,
    Modern,
    Legacy,
}

/// A served endpoint, with what the well-behaved client sends it.
#[derive(Clone, Debug)]
struct Srv {
    addr: SocketAddr,
    eras: Eras,
    /// The well-behaved client's `Authorization`.
    auth: Option<String>,
    /// The well-behaved client's legacy session.
    session: Option<String>,
    /// The well-behaved client's DPoP key, when `auth` is a DPoP-bound token.
    dpop: Option<DpopClient>,
}

/// A well-behaved DPoP client: a fresh proof for each request.
#[derive(Clone)]
struct DpopClient {
    key: ProofKey,
    token: String,
    /// The server's nonce, when it asks for one.
    nonce: Option<String>,
}

impl std::fmt::Debug for DpopClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DpopClient")
            .field("nonce", &self.nonce)
            .finish_non_exhaustive()
    }
}

impl DpopClient {
    /// A proof for a POST to the endpoint.
    fn proof(&self) -> String {
        match &self.nonce {
            Some(nonce) => self
                .key
                .proof_with_nonce("POST", RESOURCE, &self.token, nonce),
            None => self.key.proof("POST", RESOURCE, &self.token),
        }
    }
}

impl Srv {
    fn new(addr: SocketAddr, eras: Eras) -> Self {
        Self {
            addr,
            eras,
            auth: None,
            session: None,
            dpop: None,
        }
    }
}

// ------------------------------------------------------------------------- requests

/// A request sent with reqwest.
#[derive(Clone, Debug)]
struct Http {
    method: &'static str,
    path: String,
    headers: Vec<(String, Vec<u8>)>,
    body: Vec<u8>,
}

/// A raw request's own `Host` line: replaced by the attacked server's address when sent,
/// so that it passes the loopback listener's `Host` check.
const BOUND_HOST: &[u8] = b"Host: {bound}\r\n";

/// How a case reaches the server.
#[derive(Clone, Debug)]
enum Wire {
    /// Through reqwest.
    Http(Http),
    /// Written by hand on a fresh connection, which stays open until the server closes it
    /// (`Connection: close`), or is half-closed at once (`eof`: the client is gone).
    Raw { bytes: Vec<u8>, eof: bool },
    /// The same request this many times, concurrently; every answer is checked.
    Many(usize, Box<Wire>),
}

impl From<Http> for Wire {
    fn from(h: Http) -> Self {
        Self::Http(h)
    }
}

impl Http {
    /// Sets header `name` (replacing any value).
    fn with(self, name: &str, value: impl AsRef<[u8]>) -> Self {
        let mut h = self.without(name);
        h.headers.push((name.to_owned(), value.as_ref().to_vec()));
        h
    }

    /// Adds another `name` header, keeping the ones present.
    fn also(mut self, name: &str, value: impl AsRef<[u8]>) -> Self {
        self.headers
            .push((name.to_owned(), value.as_ref().to_vec()));
        self
    }

    /// Removes header `name`.
    fn without(mut self, name: &str) -> Self {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self
    }

    fn method(mut self, method: &'static str) -> Self {
        self.method = method;
        self
    }

    fn path(mut self, path: &str) -> Self {
        self.path = path.to_owned();
        self
    }

    fn body(mut self, body: impl Into<Vec<u8>>) -> Self {
        self.body = body.into();
        self
    }

    /// This request written by hand, with `extra` header lines (raw bytes, CR LF added)
    /// after its own; `Content-Length` is added unless `extra` frames the body itself. The
    /// connection stays open until the server closes it, so a request cut short stalls.
    fn raw(&self, extra: &[&[u8]]) -> Wire {
        Wire::Raw {
            bytes: self.render(extra),
            eof: false,
        }
    }

    /// Like [`Self::raw`], half-closing the connection after the bytes are sent.
    fn raw_eof(&self, extra: &[&[u8]]) -> Wire {
        Wire::Raw {
            bytes: self.render(extra),
            eof: true,
        }
    }

    /// The request's bytes: its own `Host` line names the attacked server
    /// ([`BOUND_HOST`], filled in when sent) unless `extra` has one.
    fn render(&self, extra: &[&[u8]]) -> Vec<u8> {
        let mut out = format!("{} {} HTTP/1.1\r\n", self.method, self.path).into_bytes();
        if !extra
            .iter()
            .any(|line| line.to_ascii_lowercase().starts_with(b"host:"))
        {
            out.extend_from_slice(BOUND_HOST);
        }
        for (name, value) in &self.headers {
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(b": ");
            out.extend_from_slice(value);
            out.extend_from_slice(b"\r\n");
        }
        let framed = extra.iter().any(|line| {
            let line = String::from_utf8_lossy(line).to_ascii_lowercase();
            line.starts_with("content-length") || line.starts_with("transfer-encoding")
        });
        for line in extra {
            out.extend_from_slice(line);
            out.extend_from_slice(b"\r\n");
        }
        if !framed {
            out.extend_from_slice(format!("Content-Length: {}\r\n", self.body.len()).as_bytes());
        }
        out.extend_from_slice(b"Connection: close\r\n\r\n");
        out.extend_from_slice(&self.body);
        out
    }
}

/// A POST of `body` as JSON, accepting JSON and SSE.
fn post(body: impl Into<Vec<u8>>) -> Http {
    Http {
        method: "POST",
        path: "/mcp".into(),
        headers: vec![
            ("Content-Type".into(), b"application/json".to_vec()),
            (
                "Accept".into(),
                b"application/json, text/event-stream".to_vec(),
            ),
        ],
        body: body.into(),
    }
}

/// A legacy request: `body` as is, no `MCP-Protocol-Version`.
fn legacy(body: Value) -> Http {
    post(body.to_string())
}

/// A legacy request with id 1.
fn legacy_call(method: &str, params: Value) -> Http {
    legacy(json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
}

fn envelope() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": "hostile", "version": "1.0.0"},
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

/// The body of a modern request with id 1: the envelope keys `params._meta` lacks are
/// added.
fn modern_body(method: &str, mut params: Value) -> Value {
    if !params.is_object() {
        params = json!({});
    }
    let meta = params["_meta"].take();
    let mut merged = envelope();
    if let (Some(m), Value::Object(user)) = (merged.as_object_mut(), meta) {
        m.extend(user);
    }
    params["_meta"] = merged;
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
}

/// A modern request with id 1 and the standard headers (`Mcp-Param-*` are the case's).
fn modern(method: &str, params: Value) -> Http {
    let name = params
        .get("name")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let mut h = post(modern_body(method, params).to_string())
        .with("MCP-Protocol-Version", MODERN)
        .with("Mcp-Method", method);
    if let Some(name) = name {
        h = h.with("Mcp-Name", name);
    }
    h
}

/// A modern `tools/call` of `regional` with its `Mcp-Param-Region` header.
fn regional(region: &str) -> Http {
    modern(
        "tools/call",
        json!({"name": "regional", "arguments": {"region": region, "days": 3}}),
    )
    .with("Mcp-Param-Region", region)
}

/// A modern `tools/call` of `name` with `arguments`.
fn tool(name: &str, arguments: Value) -> Http {
    modern("tools/call", json!({"name": name, "arguments": arguments}))
}

/// A legacy `tools/call` of `name` with `arguments`.
fn legacy_tool(name: &str, arguments: Value) -> Http {
    legacy_call("tools/call", json!({"name": name, "arguments": arguments}))
}

/// A legacy request with id 1 whose params are the JSON text `params`, as is.
fn legacy_text(method: &str, params: &str) -> Http {
    post(format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{params}}}"#
    ))
}

/// The params of a valid legacy `initialize`.
fn init_params() -> Value {
    json!({"protocolVersion": "2025-11-25", "capabilities": {},
           "clientInfo": {"name": "c", "version": "1"}})
}

/// An HTTP Basic `Authorization` value.
fn basic(user: &str, password: &str) -> String {
    format!("Basic {}", STANDARD.encode(format!("{user}:{password}")))
}

/// `body` in the chunked transfer coding, in chunks of `size` bytes.
fn chunked(body: &[u8], size: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len() + body.len() / size * 12 + 8);
    for chunk in body.chunks(size) {
        out.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
        out.extend_from_slice(chunk);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"0\r\n\r\n");
    out
}

// ------------------------------------------------------------------------------ cases

/// What the server must answer.
#[derive(Clone, Copy, Debug)]
enum Expect {
    /// A JSON-RPC error: HTTP status and `error.code`.
    Rpc(u16, i64),
    /// HTTP 200 with a JSON-RPC result.
    Ok,
    /// HTTP 200 with an array of this many replies.
    Batch(usize),
    /// HTTP 202 with no body.
    Accepted,
    /// An OAuth refusal: HTTP status and the `error` member.
    OAuth(u16, &'static str),
    /// Refused by the HTTP layer before the service runs: this status, no JSON-RPC body.
    Hyper(u16),
    /// A CORS preflight answered before the service: HTTP 200, no body, and
    /// `Access-Control-Allow-Origin` with this value (`None`: absent).
    Preflight(Option<&'static str>),
}

/// One entry of a theme's table: what it is, where it goes, what it sends, what must come
/// back.
struct Case {
    name: String,
    to: Srv,
    wire: Wire,
    expect: Expect,
}

/// A [`Case`] (the table's one-liner).
fn case(name: impl Into<String>, to: &Srv, wire: impl Into<Wire>, expect: Expect) -> Case {
    Case {
        name: name.into(),
        to: to.clone(),
        wire: wire.into(),
        expect,
    }
}

/// What came back: status (0 when the connection closed without a response), header
/// lines, body.
struct Outcome {
    status: u16,
    head: String,
    body: Vec<u8>,
}

impl Outcome {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }

    /// The start of the body, for messages.
    fn excerpt(&self) -> String {
        let end = self.body.len().min(600);
        format!(
            "HTTP {} {:?}",
            self.status,
            String::from_utf8_lossy(&self.body[..end])
        )
    }
}

fn check(label: &str, expect: Expect, got: &Outcome) {
    let body = got.json();
    match expect {
        Expect::Rpc(status, code) => {
            assert_eq!(
                (got.status, body["error"]["code"].as_i64()),
                (status, Some(code)),
                "{label}: {}",
                got.excerpt()
            );
            assert_eq!(body["jsonrpc"], "2.0", "{label}: {}", got.excerpt());
            assert!(
                body["error"]["message"].is_string(),
                "{label}: {}",
                got.excerpt()
            );
        }
        Expect::Ok => assert!(
            got.status == 200 && body["result"].is_object(),
            "{label}: expected a result, got {}",
            got.excerpt()
        ),
        Expect::Batch(n) => {
            assert!(
                got.status == 200
                    && body.as_array().is_some_and(|replies| replies.len() == n
                        && replies.iter().all(|r| r["result"].is_object())),
                "{label}: expected {n} results, got {}",
                got.excerpt()
            )
        }
        Expect::Accepted => assert!(
            got.status == 202 && got.body.is_empty(),
            "{label}: expected 202, got {}",
            got.excerpt()
        ),
        Expect::OAuth(status, error) => {
            assert_eq!(
                (got.status, body["error"].as_str()),
                (status, Some(error)),
                "{label}: {}",
                got.excerpt()
            );
            assert!(body.get("jsonrpc").is_none(), "{label}: {}", got.excerpt());
        }
        Expect::Hyper(status) => assert!(
            got.status == status && body.get("jsonrpc").is_none(),
            "{label}: expected a bare {status}, got {} {}",
            got.excerpt(),
            got.head
        ),
        Expect::Preflight(origin) => {
            let allowed = got.head.lines().find_map(|l| {
                let (name, value) = l.split_once(':')?;
                name.eq_ignore_ascii_case("access-control-allow-origin")
                    .then(|| value.trim())
            });
            assert!(
                got.status == 200 && got.body.is_empty() && allowed == origin,
                "{label}: expected a preflight answer allowing {origin:?}, got {} {}",
                got.excerpt(),
                got.head
            );
        }
    }
}

/// Secrets known only at run time (tokens of the well-behaved client), checked by
/// [`assert_no_leak`] in every theme.
static SECRETS: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn register_secret(secret: impl Into<String>) {
    SECRETS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .push(secret.into());
}

/// What no response to a hostile request may contain.
fn forbidden() -> Vec<String> {
    let mut list: Vec<String> = [
        // panic text and backtraces
        "panicked",
        "RUST_BACKTRACE",
        "vault.rs",
        // source paths
        ".rs:",
        "/src/",
        "/home",
        "/root",
        "/work",
        "/rustc/",
        ".cargo/registry",
        // Debug dumps of Rust types
        "Error {",
        "kind:",
        "Os {",
        "Custom {",
        "Backtrace",
        // the well-behaved client's arguments
        CANARY,
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    for key in [&STATE_KEY[..], &OTHER_KEY[..]] {
        list.push(String::from_utf8_lossy(key).into_owned());
        list.push(key.iter().map(|b| format!("{b:02x}")).collect());
        list.push(STANDARD.encode(key));
        list.push(URL_SAFE_NO_PAD.encode(key));
    }
    // A line from the middle of each private signing key.
    for pem in [RSA1_PEM, RSA2_PEM, EC1_PEM, EC2_PEM, EC3_PEM, ED1_PEM] {
        list.extend(pem.lines().nth(1).map(str::to_owned));
    }
    list.extend(
        SECRETS
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .cloned(),
    );
    list
}

/// Fails `case` when `text` (a response's header lines and body) carries internal detail.
fn assert_no_leak(case: &str, text: &str) {
    let needles = forbidden();
    // One pass, comparing only where a needle could start: a `str::find` per needle is slow
    // on the 10 MB bodies of a debug build.
    let mut starts = [false; 256];
    for needle in &needles {
        starts[usize::from(needle.as_bytes()[0])] = true;
    }
    let bytes = text.as_bytes();
    for (at, byte) in bytes.iter().enumerate() {
        if !starts[usize::from(*byte)] {
            continue;
        }
        if let Some(needle) = needles
            .iter()
            .find(|n| bytes[at..].starts_with(n.as_bytes()))
        {
            let from = text.floor_char_boundary(at.saturating_sub(80));
            let to = text.ceil_char_boundary((at + needle.len() + 80).min(text.len()));
            panic!(
                "{case}: the response leaks {needle:?}: …{}…",
                &text[from..to]
            );
        }
    }
}

// ----------------------------------------------------------------------------- sending

fn http_client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
        .expect("an HTTP client")
}

async fn send_http(http: &reqwest::Client, addr: SocketAddr, req: &Http) -> Outcome {
    let method = reqwest::Method::from_bytes(req.method.as_bytes()).expect("a method");
    let mut b = http
        .request(method, format!("http://{addr}{}", req.path))
        .body(req.body.clone());
    for (name, value) in &req.headers {
        let value = reqwest::header::HeaderValue::from_bytes(value)
            .expect("a header value reqwest can send (use Http::raw for others)");
        b = b.header(name.as_str(), value);
    }
    match b.send().await {
        Ok(r) => {
            let status = r.status().as_u16();
            let head = r
                .headers()
                .iter()
                .map(|(n, v)| format!("{n}: {}\r\n", String::from_utf8_lossy(v.as_bytes())))
                .collect();
            let body = r.bytes().await.map(|b| b.to_vec()).unwrap_or_default();
            Outcome { status, head, body }
        }
        Err(e) => Outcome {
            status: 0,
            head: String::new(),
            body: format!("no response: {e}").into_bytes(),
        },
    }
}

async fn send_raw(addr: SocketAddr, bytes: &[u8], eof: bool) -> Outcome {
    const PATIENCE: Duration = Duration::from_secs(20);
    let filled;
    let bytes = match bytes
        .windows(BOUND_HOST.len())
        .position(|w| w == BOUND_HOST)
    {
        Some(at) => {
            let host = format!("Host: {addr}\r\n");
            filled = [
                &bytes[..at],
                host.as_bytes(),
                &bytes[at + BOUND_HOST.len()..],
            ]
            .concat();
            &filled[..]
        }
        None => bytes,
    };
    let stream = TcpStream::connect(addr).await.expect("connect");
    let (mut rd, mut wr) = stream.into_split();
    let answered = AtomicBool::new(false);
    let write = async {
        // Stop sending once the server answers: it closes without reading the rest, and the
        // bytes it leaves unread turn its close into a reset, which may discard the answer.
        for chunk in bytes.chunks(16 << 10) {
            if answered.load(Ordering::Relaxed) {
                break;
            }
            if !matches!(
                tokio::time::timeout(PATIENCE, wr.write_all(chunk)).await,
                Ok(Ok(()))
            ) {
                break;
            }
        }
        if eof {
            let _ = wr.shutdown().await;
        }
        wr
    };
    let read = async {
        let (mut buf, mut chunk) = (Vec::new(), vec![0; 16 << 10]);
        while let Ok(Ok(n @ 1..)) = tokio::time::timeout(PATIENCE, rd.read(&mut chunk)).await {
            answered.store(true, Ordering::Relaxed);
            buf.extend_from_slice(&chunk[..n]);
        }
        buf
    };
    // The write half stays open until the server has answered and closed.
    let (_write_half, buf) = tokio::join!(write, read);
    parse_response(&buf)
}

fn parse_response(buf: &[u8]) -> Outcome {
    let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") else {
        return Outcome {
            status: 0,
            head: String::from_utf8_lossy(buf).into_owned(),
            body: Vec::new(),
        };
    };
    let head = String::from_utf8_lossy(&buf[..end]).into_owned();
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let rest = &buf[end + 4..];
    let lower = head.to_ascii_lowercase();
    let length = lower
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse::<usize>().ok());
    let body = if lower.contains("transfer-encoding: chunked") {
        dechunk(rest)
    } else {
        rest[..length.unwrap_or(rest.len()).min(rest.len())].to_vec()
    };
    Outcome { status, head, body }
}

fn dechunk(mut rest: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(eol) = rest.windows(2).position(|w| w == b"\r\n") {
        let size = std::str::from_utf8(&rest[..eol])
            .ok()
            .and_then(|s| usize::from_str_radix(s.split(';').next().unwrap_or("").trim(), 16).ok())
            .unwrap_or(0);
        rest = &rest[eol + 2..];
        if size == 0 || rest.len() < size {
            break;
        }
        out.extend_from_slice(&rest[..size]);
        rest = &rest[(size + 2).min(rest.len())..];
    }
    out
}

async fn send_one(http: &reqwest::Client, addr: SocketAddr, wire: &Wire) -> Outcome {
    match wire {
        Wire::Http(req) => send_http(http, addr, req).await,
        Wire::Raw { bytes, eof } => send_raw(addr, bytes, *eof).await,
        Wire::Many(..) => unreachable!("Wire::Many does not nest"),
    }
}

/// Sends a case's request (all of them, for [`Wire::Many`]).
async fn exchange(http: &reqwest::Client, addr: SocketAddr, wire: &Wire) -> Vec<Outcome> {
    let Wire::Many(n, one) = wire else {
        return vec![send_one(http, addr, wire).await];
    };
    let mut outcomes = Vec::with_capacity(*n);
    let mut left = *n;
    while left > 0 {
        let mut set = tokio::task::JoinSet::new();
        for _ in 0..left.min(32) {
            let (http, one) = (http.clone(), (**one).clone());
            set.spawn(async move { send_one(&http, addr, &one).await });
        }
        left -= set.len();
        outcomes.extend(set.join_all().await);
    }
    outcomes
}

// ------------------------------------------------------------------- well-behaved client

static ROUND: AtomicU64 = AtomicU64::new(1);

/// One well-behaved `tools/call echo` per era `srv` speaks, each with a fresh canary value
/// that must come back unchanged.
async fn well_behaved(http: &reqwest::Client, srv: &Srv) -> Result<(), String> {
    let value = format!("{CANARY}-{}", ROUND.fetch_add(1, Ordering::Relaxed));
    let params = json!({"name": "echo", "arguments": {"text": value}});
    let mut calls = Vec::new();
    if srv.eras != Eras::Legacy {
        calls.push(("modern", modern("tools/call", params.clone())));
    }
    if srv.eras != Eras::Modern {
        let mut call = legacy_call("tools/call", params);
        if let Some(session) = &srv.session {
            call = call.with("Mcp-Session-Id", session);
        }
        calls.push(("legacy", call));
    }
    for (era, mut call) in calls {
        if let Some(auth) = &srv.auth {
            call = call.with("Authorization", auth);
        }
        if let Some(dpop) = &srv.dpop {
            call = call.with("DPoP", dpop.proof());
        }
        let got = send_http(http, srv.addr, &call).await;
        let body = got.json();
        if got.status != 200 || body["result"]["content"][0]["text"] != value.as_str() {
            return Err(format!("{era} call: {}", got.excerpt()));
        }
    }
    Ok(())
}

/// The canary: well-behaved round trips until `stop`, at least one; (successes, failures).
fn spawn_canary(srv: Srv, stop: Arc<AtomicBool>) -> tokio::task::JoinHandle<(usize, Vec<String>)> {
    tokio::spawn(async move {
        let http = http_client();
        let (mut ok, mut failures) = (0, Vec::new());
        loop {
            match well_behaved(&http, &srv).await {
                Ok(()) => ok += 1,
                Err(e) => failures.push(e),
            }
            if stop.load(Ordering::Relaxed) {
                return (ok, failures);
            }
            tokio::time::sleep(Duration::from_millis(3)).await;
        }
    })
}

/// Runs a theme's table while canaries call `canaries`; after every case, one well-behaved
/// round trip to the case's server must succeed.
async fn run(theme: &str, canaries: &[&Srv], cases: Vec<Case>) {
    let started = std::time::Instant::now();
    let stop = Arc::new(AtomicBool::new(false));
    let watchers: Vec<_> = canaries
        .iter()
        .map(|srv| spawn_canary((*srv).clone(), stop.clone()))
        .collect();
    let http = http_client();
    let mut names = std::collections::HashSet::new();
    for case in &cases {
        let label = format!("{theme} / {}", case.name);
        assert!(names.insert(&case.name), "{label}: duplicate case name");
        for got in exchange(&http, case.to.addr, &case.wire).await {
            check(&label, case.expect, &got);
            assert_no_leak(
                &label,
                &format!("{}\r\n\r\n{}", got.head, String::from_utf8_lossy(&got.body)),
            );
        }
        if let Err(e) = well_behaved(&http, &case.to).await {
            panic!("{label}: the server no longer serves a well-behaved client: {e}");
        }
    }
    stop.store(true, Ordering::Relaxed);
    for watcher in watchers {
        let (ok, failures) = watcher.await.expect("the canary runs");
        assert!(
            failures.is_empty(),
            "{theme}: the well-behaved client failed during the theme: {failures:#?}"
        );
        assert!(
            ok > 0,
            "{theme}: the well-behaved client made no round trip"
        );
    }
    eprintln!("{theme}: {} cases in {:?}", cases.len(), started.elapsed());
}

// ------------------------------------------------------------------------------ themes

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_json_rpc() {
    let main = Srv::new(serve(target()).await, Eras::Both);
    let m = &main;
    let nested = |open: &str, inner: &str, close: &str| {
        format!("{}{inner}{}", open.repeat(100_000), close.repeat(100_000))
    };
    // `echo` with `text` as the JSON text given, as is.
    let echo = |text: &str| {
        let params = format!(r#"{{"name":"echo","arguments":{{"text":{text}}}}}"#);
        legacy_text("tools/call", &params)
    };
    let echo_bytes = |text: &[u8]| {
        let mut body = echo(r#""@""#).body;
        let at = body.iter().position(|b| *b == b'@').unwrap_or_default();
        body.splice(at..=at, text.iter().copied());
        post(body)
    };
    let add = |left: &str| {
        let params = format!(r#"{{"name":"add","arguments":{{"left":{left},"right":1}}}}"#);
        legacy_text("tools/call", &params)
    };
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let utf16: Vec<u8> = [0xff, 0xfe]
        .into_iter()
        .chain(ping.encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    let list = modern("tools/list", json!({}));
    let list_body = modern_body("tools/list", json!({})).to_string();
    // Keys are sorted: `params` (holding only `_meta`) comes last.
    let second_meta = format!(r#"{},"_meta":{{}}}}}}"#, &list_body[..list_body.len() - 2]);
    let second_method = list_body.replacen(
        r#""method":"tools/list""#,
        r#""method":"tools/list","method":"ping""#,
        1,
    );
    let parse = Expect::Rpc(400, -32700);
    let invalid = Expect::Rpc(400, -32600);
    let in_band = Expect::Rpc(200, -32602);
    let ping_with = |members: Value| {
        let mut body = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
        for (k, v) in members.as_object().into_iter().flatten() {
            body[k.as_str()] = v.clone();
        }
        legacy(body)
    };
    let cases = vec![
        // not JSON
        case("empty body", m, post(""), parse),
        case("a lone brace", m, post("{"), parse),
        case("truncated mid-message", m, post(&ping[..25]), parse),
        case(
            "truncated before the last brace",
            m,
            post(&ping[..ping.len() - 1]),
            parse,
        ),
        case("trailing garbage", m, post(format!("{ping} x")), parse),
        case(
            "two messages back to back",
            m,
            post(format!("{ping}{ping}")),
            parse,
        ),
        case("single quotes", m, post(ping.replace('"', "'")), parse),
        case(
            "a comment",
            m,
            post(ping.replacen('{', "{/* hi */", 1)),
            parse,
        ),
        case(
            "a trailing comma",
            m,
            post(ping.replacen('}', ",}", 1)),
            parse,
        ),
        case("NaN", m, post(ping.replacen('1', "NaN", 1)), parse),
        case(
            "invalid UTF-8 in a string",
            m,
            echo_bytes(b"ab\xffcd"),
            parse,
        ),
        case(
            "an overlong UTF-8 sequence",
            m,
            echo_bytes(b"ab\xc0\xafcd"),
            parse,
        ),
        case(
            "invalid UTF-8 before the JSON",
            m,
            post(b"\xff{}".to_vec()),
            parse,
        ),
        case("a UTF-16 body", m, post(utf16), parse),
        case("a lone surrogate escape", m, echo(r#""\ud800""#), parse),
        case(
            "a raw control character in a string",
            m,
            echo_bytes(b"a\x07b"),
            parse,
        ),
        case(
            "arrays nested 100,000 deep",
            m,
            post(nested("[", "", "]")),
            parse,
        ),
        case(
            "objects nested 100,000 deep",
            m,
            post(nested(r#"{"a":"#, "1", "}")),
            parse,
        ),
        case(
            "arguments nested 100,000 deep",
            m,
            echo(&nested("[", "", "]")),
            parse,
        ),
        case("a number beyond f64", m, add("1e400"), parse),
        // JSON, but not JSON-RPC
        case(
            "jsonrpc 1.0",
            m,
            ping_with(json!({"jsonrpc": "1.0"})),
            invalid,
        ),
        case(
            "jsonrpc as a number",
            m,
            ping_with(json!({"jsonrpc": 2.0})),
            invalid,
        ),
        case(
            "jsonrpc missing",
            m,
            legacy(json!({"id": 1, "method": "ping"})),
            invalid,
        ),
        case("a null id", m, ping_with(json!({"id": null})), invalid),
        case("a fractional id", m, ping_with(json!({"id": 1.5})), invalid),
        case(
            "an object id",
            m,
            ping_with(json!({"id": {"a": 1}})),
            invalid,
        ),
        case(
            "an id beyond i64",
            m,
            post(ping.replacen('1', "9223372036854775808", 1)),
            invalid,
        ),
        case(
            "method is a number",
            m,
            ping_with(json!({"method": 5})),
            invalid,
        ),
        case(
            "params is an array",
            m,
            ping_with(json!({"params": [1]})),
            invalid,
        ),
        case(
            "an unknown top-level member",
            m,
            ping_with(json!({"extra": true})),
            invalid,
        ),
        case(
            "neither request nor response",
            m,
            legacy(json!({"jsonrpc": "2.0", "id": 1})),
            invalid,
        ),
        case("a bare string", m, legacy(json!("ping")), invalid),
        case(
            "no id: a notification, and nothing runs",
            m,
            legacy(
                json!({"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "explode"}}),
            ),
            Expect::Accepted,
        ),
        // duplicate keys: the last one wins, for the header checks as for dispatch
        case(
            "duplicate method keys",
            m,
            post(ping.replacen(r#""ping""#, r#""ping","method":"no/such""#, 1)),
            Expect::Rpc(200, -32601),
        ),
        case(
            "duplicate method keys and Mcp-Method naming the first",
            m,
            list.clone().body(second_method),
            Expect::Rpc(400, -32020),
        ),
        case(
            "duplicate _meta keys, the last without the envelope",
            m,
            list.clone().body(second_meta),
            Expect::Rpc(400, -32602),
        ),
        // numbers
        case(
            "an integer argument beyond i64",
            m,
            add("9223372036854775808"),
            in_band,
        ),
        case(
            "an integer argument below i64",
            m,
            add("-99999999999999999999"),
            in_band,
        ),
        case("a float where an i64 is expected", m, add("1.5"), in_band),
        case(
            "an integral float where an i64 is expected (JSON Schema's integer)",
            m,
            add("41.0"),
            Expect::Ok,
        ),
        case("1e300 where an i64 is expected", m, add("1e300"), in_band),
        case(
            "a string where an i64 is expected",
            m,
            add(r#""1""#),
            in_band,
        ),
        case(
            "a float where a u8 is expected",
            m,
            tool("regional", json!({"region": "eu", "days": 2.5})).with("Mcp-Param-Region", "eu"),
            in_band,
        ),
        case(
            "i64::MIN in a header-mirrored argument, no header",
            m,
            tool("page", json!({"offset": i64::MIN})),
            Expect::Ok,
        ),
        case(
            "2^53 in a header-mirrored argument, no header",
            m,
            tool("page", json!({"offset": 1_i64 << 53})),
            Expect::Ok,
        ),
        case(
            "a header-mirrored integer beyond i64",
            m,
            tool("page", json!({"offset": u64::MAX})),
            in_band,
        ),
        case(
            "a header-mirrored integer written 42.0 in its header",
            m,
            tool("page", json!({"offset": 42})).with("Mcp-Param-Offset", "42.0"),
            Expect::Ok,
        ),
        case(
            "a header-mirrored integer whose header differs",
            m,
            tool("page", json!({"offset": 42})).with("Mcp-Param-Offset", "43"),
            Expect::Rpc(400, -32020),
        ),
        case(
            "an integer beyond u8",
            m,
            legacy_tool("regional", json!({"region": "eu", "days": 256})),
            in_band,
        ),
        // HTTP framing of a JSON-RPC POST
        case(
            "Content-Type text/plain",
            m,
            post(ping).with("Content-Type", "text/plain"),
            Expect::Rpc(415, -32000),
        ),
        case(
            "Content-Type missing",
            m,
            post(ping).without("Content-Type"),
            Expect::Rpc(415, -32000),
        ),
        case(
            "Content-Type application/jsonx",
            m,
            post(ping).with("Content-Type", "application/jsonx"),
            Expect::Rpc(415, -32000),
        ),
        case(
            "a legacy Accept without SSE",
            m,
            post(ping).with("Accept", "application/json"),
            Expect::Rpc(406, -32000),
        ),
        case("PUT", m, post(ping).method("PUT"), Expect::Rpc(405, -32000)),
    ];
    run("malformed JSON-RPC", &[m], cases).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn body_limits() {
    const LIMIT: usize = 4 << 20;
    const TEN_MB: usize = 10_000_000;
    let main = Srv::new(serve(target()).await, Eras::Both);
    let big = mcp::Server::builder(Target)
        .transport(|http: mcp::transport::http::HttpConfig| http.max_body_bytes(16 << 20));
    let big = Srv::new(serve(big).await, Eras::Both);
    let (m, b) = (&main, &big);
    let echo = |text: &str| legacy_tool("echo", json!({"text": text}));
    let over = echo(&"x".repeat(5 << 20)).body;
    let mut at_limit = echo("padded").body;
    at_limit.resize(LIMIT, b' ');
    let mut one_over = at_limit.clone();
    one_over.push(b' ');
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let (half, full_length) = (&ping[..20], format!("Content-Length: {}", ping.len()));
    let ten_mb = "y".repeat(TEN_MB);
    let te_chunked: &[u8] = b"Transfer-Encoding: chunked";
    let too_large = Expect::Rpc(413, -32000);
    let cases = vec![
        case(
            "5 MiB with Content-Length",
            m,
            post(over.clone()).raw(&[]),
            too_large,
        ),
        case(
            "5 MiB chunked, without Content-Length",
            m,
            post(chunked(&over, 64 << 10)).raw(&[te_chunked]),
            too_large,
        ),
        case(
            "a 1 GB Content-Length, refused before any body arrives",
            m,
            post("{}").raw(&[b"Content-Length: 1000000000"]),
            too_large,
        ),
        case(
            "one byte over the limit",
            m,
            post(one_over).raw(&[]),
            too_large,
        ),
        case("exactly the limit", m, post(at_limit), Expect::Ok),
        case(
            "10 MB on a 4 MiB server",
            m,
            echo(&ten_mb).raw(&[]),
            too_large,
        ),
        case(
            "a Content-Length shorter than the body",
            m,
            post(ping).raw(&[b"Content-Length: 10"]),
            Expect::Rpc(400, -32700),
        ),
        case(
            "a body cut short, then EOF",
            m,
            post(half).raw_eof(&[full_length.as_bytes()]),
            Expect::Rpc(400, -32700),
        ),
        case(
            "a body cut short, then silence",
            m,
            post(half).raw(&[full_length.as_bytes()]),
            Expect::Rpc(408, -32000),
        ),
        case(
            "a chunked body cut mid-chunk, then EOF",
            m,
            post(&chunked(ping.as_bytes(), 64)[..20]).raw_eof(&[te_chunked]),
            Expect::Rpc(400, -32700),
        ),
        case(
            "an invalid chunk size",
            m,
            post(format!("zz\r\n{ping}\r\n0\r\n\r\n")).raw(&[te_chunked]),
            Expect::Rpc(400, -32700),
        ),
        case(
            "Content-Length and Transfer-Encoding: the coding wins",
            m,
            post(chunked(ping.as_bytes(), 8)).raw(&[b"Content-Length: 5", te_chunked]),
            Expect::Ok,
        ),
        case(
            "two different Content-Lengths",
            m,
            post(ping).raw(&[b"Content-Length: 40", b"Content-Length: 4"]),
            Expect::Hyper(400),
        ),
        case(
            "a negative Content-Length",
            m,
            post(ping).raw(&[b"Content-Length: -1"]),
            Expect::Hyper(400),
        ),
        case(
            "a transfer coding other than chunked",
            m,
            post(ping).raw(&[b"Transfer-Encoding: gzip"]),
            Expect::Hyper(400),
        ),
        case(
            "gzip under chunked: the body would be misread, so 501",
            m,
            post(chunked(ping.as_bytes(), 8)).raw(&[b"Transfer-Encoding: gzip, chunked"]),
            Expect::Rpc(501, -32000),
        ),
        case(
            "a Content-Encoding: the body is not decoded, so 415",
            m,
            post(ping).raw(&[b"Content-Encoding: gzip"]),
            Expect::Rpc(415, -32000),
        ),
        case("a 10 MB string argument", b, echo(&ten_mb), Expect::Ok),
        case(
            "a 10 MB method name",
            b,
            legacy(json!({"jsonrpc": "2.0", "id": 1, "method": ten_mb})),
            Expect::Rpc(200, -32601),
        ),
        case(
            "a 10 MB tool name without Mcp-Name",
            b,
            modern("tools/call", json!({"name": ten_mb})).without("Mcp-Name"),
            Expect::Rpc(400, -32020),
        ),
        case(
            "a 10 MB id",
            b,
            legacy(json!({"jsonrpc": "2.0", "id": ten_mb, "method": "ping"})),
            Expect::Ok,
        ),
        case(
            "a 10 MB argument name",
            b,
            legacy_tool("echo", json!({"text": "t", ten_mb.as_str(): 1})),
            Expect::Rpc(200, -32602),
        ),
        case(
            "10 MB of whitespace",
            b,
            post(" ".repeat(TEN_MB)),
            Expect::Rpc(400, -32700),
        ),
    ];
    run("body limits", &[m, b], cases).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batches() {
    let main = Srv::new(serve(target()).await, Eras::Both);
    let modern_only = target().protocol_mode(ProtocolMode::Modern);
    let modern_only = Srv::new(serve(modern_only).await, Eras::Modern);
    let legacy_only = target().protocol_mode(ProtocolMode::Legacy);
    let legacy_only = Srv::new(serve(legacy_only).await, Eras::Legacy);
    let (m, mo, lo) = (&main, &modern_only, &legacy_only);
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    let pings = |n: usize| {
        let batch = (0..n).map(|i| json!({"jsonrpc": "2.0", "id": i, "method": "ping"}));
        legacy(Value::Array(batch.collect()))
    };
    let initialize =
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init_params()});
    let notification = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let invalid = Expect::Rpc(400, -32600);
    let cases = vec![
        case("10,000 messages", m, pings(10_000), invalid),
        case("101 messages", m, pings(101), invalid),
        case("100 messages", m, pings(100), Expect::Batch(100)),
        case("an empty batch", m, legacy(json!([])), invalid),
        case("a batch on a modern-only server", mo, pings(2), invalid),
        case(
            "10,000 messages on a modern-only server",
            mo,
            pings(10_000),
            invalid,
        ),
        case(
            "10,000 messages on a legacy-only server",
            lo,
            pings(10_000),
            invalid,
        ),
        case(
            "a batch holding a modern request",
            m,
            legacy(json!([ping, modern_body("tools/list", json!({}))])),
            invalid,
        ),
        case(
            "a batch holding an invalid member",
            m,
            legacy(json!([ping, {"id": 2}])),
            invalid,
        ),
        case(
            "a batch holding initialize and more",
            m,
            legacy(json!([initialize, ping])),
            invalid,
        ),
        case(
            "a batch of batches",
            m,
            legacy(json!([[ping], [ping]])),
            invalid,
        ),
        case(
            "a batch of scalars",
            m,
            legacy(json!([1, "two", null])),
            invalid,
        ),
        case(
            "a batch with modern headers",
            m,
            pings(2).with("MCP-Protocol-Version", MODERN),
            Expect::Rpc(400, -32000),
        ),
        case(
            "a batch of notifications",
            m,
            legacy(json!([notification])),
            Expect::Accepted,
        ),
        case(
            "a batch of responses",
            m,
            legacy(json!([{"jsonrpc": "2.0", "id": 7, "result": {}}])),
            Expect::Accepted,
        ),
    ];
    run("batches", &[m, mo, lo], cases).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn methods_and_params() {
    let main = Srv::new(serve(target()).await, Eras::Both);
    let modern_only = target().protocol_mode(ProtocolMode::Modern);
    let modern_only = Srv::new(serve(modern_only).await, Eras::Modern);
    let legacy_only = target().protocol_mode(ProtocolMode::Legacy);
    let legacy_only = Srv::new(serve(legacy_only).await, Eras::Legacy);
    let (m, mo, lo) = (&main, &modern_only, &legacy_only);
    let call = |params: Value| modern("tools/call", params);
    let with_envelope = |key: &str, value: Value| {
        let mut meta = envelope();
        meta[format!("io.modelcontextprotocol/{key}")] = value;
        modern("tools/list", json!({"_meta": meta}))
    };
    let init = |change: Value| {
        let mut params = init_params();
        for (k, v) in change.as_object().into_iter().flatten() {
            params[k.as_str()] = v.clone();
        }
        if let Some(p) = params.as_object_mut() {
            p.retain(|_, v| !v.is_null());
        }
        legacy_call("initialize", params)
    };
    let with_raw_params = |method: &str, params: &str| legacy_text(method, params);
    let notification = |method: &str, meta: Value| {
        let body = json!({"jsonrpc": "2.0", "method": method, "params": {"_meta": meta}});
        modern(method, json!({}))
            .without("Mcp-Method")
            .body(body.to_string())
    };
    let in_band = Expect::Rpc(200, -32602);
    let envelope_error = Expect::Rpc(400, -32602);
    let not_found = Expect::Rpc(404, -32601);
    let legacy_not_found = Expect::Rpc(200, -32601);
    let crash = Expect::Rpc(200, -32603);
    let cases = vec![
        // modern: wrong-typed params of every method
        case(
            "tools/call: name is a number",
            m,
            call(json!({"name": 5})),
            in_band,
        ),
        case(
            "tools/call: no name",
            m,
            call(json!({"arguments": {}})),
            in_band,
        ),
        case(
            "tools/call: arguments is a string",
            m,
            tool("echo", json!("text")),
            in_band,
        ),
        case(
            "tools/call: arguments is an array",
            m,
            tool("echo", json!(["text"])),
            in_band,
        ),
        case(
            "tools/call: inputResponses is a string",
            m,
            call(json!({"name": "echo", "arguments": {"text": "t"}, "inputResponses": "yes"})),
            in_band,
        ),
        case(
            "tools/call: an unknown tool",
            m,
            tool("no_such_tool", json!({})),
            in_band,
        ),
        case(
            "tools/call: a missing argument",
            m,
            tool("echo", json!({})),
            in_band,
        ),
        case(
            "tools/call: an unknown argument",
            m,
            tool("echo", json!({"text": "t", "shell": "rm -rf /"})),
            in_band,
        ),
        case(
            "tools/call: a tool that panics",
            m,
            tool("explode", json!({})),
            crash,
        ),
        case(
            "tools/call: a tool error with an I/O source",
            m,
            tool("read_key", json!({})),
            Expect::Ok,
        ),
        case(
            "tools/call: an internal error with an I/O source",
            m,
            tool("unlock", json!({})),
            crash,
        ),
        case(
            "tools/list: cursor is a number",
            m,
            modern("tools/list", json!({"cursor": 5})),
            in_band,
        ),
        case(
            "tools/list: an unknown cursor",
            m,
            modern("tools/list", json!({"cursor": "p9"})),
            in_band,
        ),
        case(
            "server/discover: params is a string",
            m,
            modern("server/discover", json!({}))
                .body(r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":"all"}"#),
            Expect::Rpc(400, -32600),
        ),
        case(
            "server/discover: unexpected params are ignored",
            m,
            modern("server/discover", json!({"verbose": [1, 2]})),
            Expect::Ok,
        ),
        case(
            "envelope: protocolVersion is a number",
            m,
            with_envelope("protocolVersion", json!(20260728)),
            envelope_error,
        ),
        case(
            "envelope: clientCapabilities is a string",
            m,
            with_envelope("clientCapabilities", json!("all")),
            envelope_error,
        ),
        case(
            "envelope: clientInfo is a number",
            m,
            with_envelope("clientInfo", json!(1)),
            envelope_error,
        ),
        case(
            "envelope: an unknown logLevel",
            m,
            with_envelope("logLevel", json!("loud")),
            envelope_error,
        ),
        case(
            "a notification with an invalid envelope",
            m,
            notification(
                "notifications/cancelled",
                json!({"io.modelcontextprotocol/protocolVersion": 1}),
            ),
            envelope_error,
        ),
        // modern: methods outside the era's registry
        case(
            "modern: an unknown method",
            m,
            modern("no/such", json!({})),
            not_found,
        ),
        case("modern: ping", m, modern("ping", json!({})), not_found),
        case(
            "modern: initialize with an envelope",
            m,
            modern("initialize", json!({})),
            not_found,
        ),
        case(
            "modern: logging/setLevel",
            m,
            modern("logging/setLevel", json!({})),
            not_found,
        ),
        case(
            "modern: an empty method",
            m,
            modern("", json!({})),
            not_found,
        ),
        case(
            "modern: an unknown notification",
            m,
            notification("notifications/bogus", envelope()),
            Expect::Accepted,
        ),
        // legacy: wrong-typed params of every method
        case(
            "initialize: protocolVersion is a number",
            m,
            init(json!({"protocolVersion": 1})),
            in_band,
        ),
        case(
            "initialize: no clientInfo",
            m,
            init(json!({"clientInfo": null})),
            in_band,
        ),
        case(
            "initialize: capabilities is a string",
            m,
            init(json!({"capabilities": "all"})),
            in_band,
        ),
        case(
            "initialize: params is an array",
            m,
            with_raw_params("initialize", r#"["2025-11-25"]"#),
            Expect::Rpc(400, -32600),
        ),
        case(
            "ping: params is a number",
            m,
            with_raw_params("ping", "1"),
            Expect::Rpc(400, -32600),
        ),
        case(
            "tools/list: cursor is an object",
            m,
            legacy_call("tools/list", json!({"cursor": {}})),
            in_band,
        ),
        case(
            "tools/call: name is an array",
            m,
            legacy_call("tools/call", json!({"name": []})),
            in_band,
        ),
        case(
            "tools/call: arguments is a number",
            m,
            legacy_tool("echo", json!(1)),
            in_band,
        ),
        case(
            "tools/call: a tool that panics (legacy)",
            m,
            legacy_tool("explode", json!({})),
            crash,
        ),
        case(
            "tools/call: a tool error with an I/O source (legacy)",
            m,
            legacy_tool("read_key", json!({})),
            Expect::Ok,
        ),
        case(
            "tools/call: an internal error with an I/O source (legacy)",
            m,
            legacy_tool("unlock", json!({})),
            crash,
        ),
        // legacy: methods outside the era's registry
        case(
            "legacy: an unknown method",
            m,
            legacy_call("no/such", json!({})),
            legacy_not_found,
        ),
        case(
            "legacy: server/discover",
            m,
            legacy_call("server/discover", json!({})),
            legacy_not_found,
        ),
        case(
            "legacy: subscriptions/listen",
            m,
            legacy_call("subscriptions/listen", json!({"notifications": {}})),
            legacy_not_found,
        ),
        case(
            "legacy: an unknown notification",
            m,
            legacy(json!({"jsonrpc": "2.0", "method": "notifications/bogus"})),
            Expect::Accepted,
        ),
        // servers of one era
        case(
            "modern-only: a legacy initialize",
            mo,
            init(json!({})),
            Expect::Rpc(400, -32022),
        ),
        case(
            "modern-only: a legacy tools/list",
            mo,
            legacy_call("tools/list", json!({})),
            Expect::Rpc(400, -32022),
        ),
        case(
            "modern-only: a posted response",
            mo,
            legacy(json!({"jsonrpc": "2.0", "id": 1, "result": {}})),
            Expect::Rpc(400, -32600),
        ),
        case(
            "modern-only: GET",
            mo,
            post("").method("GET"),
            Expect::Rpc(405, -32000),
        ),
        case(
            "legacy-only: a modern request",
            lo,
            modern("tools/list", json!({})),
            Expect::Rpc(400, -32000),
        ),
        case(
            "legacy-only: DELETE without a session",
            lo,
            post("").method("DELETE"),
            Expect::Rpc(400, -32000),
        ),
    ];
    run("methods and params", &[m, mo, lo], cases).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn headers() {
    let main = Srv::new(serve(target()).await, Eras::Both);
    let legacy_only = target().protocol_mode(ProtocolMode::Legacy);
    let legacy_only = Srv::new(serve(legacy_only).await, Eras::Legacy);
    let (m, lo) = (&main, &legacy_only);
    let list = || modern("tools/list", json!({}));
    let lisbon = || regional("Lisbon").without("Mcp-Param-Region");
    let region = |value: &[u8]| lisbon().with("Mcp-Param-Region", value);
    let raw_region = |line: &[u8]| lisbon().raw(&[line]);
    // The listener caps a request head at 64 KiB, softly: hyper may read up to about twice
    // that before it refuses, so the oversized cases are far past it.
    let huge = format!("Mcp-Param-Region: {}", "a".repeat(2 << 20));
    let fillers: Vec<String> = (0..200).map(|i| format!("X-Filler-{i}: {i}")).collect();
    let fillers: Vec<&[u8]> = fillers.iter().map(|l| l.as_bytes()).collect();
    let long_target = post("{}").path(&format!("/mcp?q={}", "a".repeat(2 << 20)));
    let porto = format!("=?base64?{}?=", STANDARD.encode("Porto"));
    let long_region = "L".repeat(16 << 10);
    let in_envelope = |version: &str| {
        let meta = json!({"io.modelcontextprotocol/protocolVersion": version});
        modern("tools/list", json!({"_meta": meta})).with("MCP-Protocol-Version", version)
    };
    let from = |origin: &[u8]| list().with("Origin", origin);
    let evil = "https://evil.example.com";
    let mismatch = Expect::Rpc(400, -32020);
    let forbidden = Expect::Rpc(403, -32000);
    // A client that sends its headers one byte at a time and never finishes would go here:
    // the listener's header read timeout answers it (HttpServer's own tests).
    let cases = vec![
        // bytes no HTTP client sends: hyper refuses them before the service runs
        case(
            "a CR inside Mcp-Param-Region",
            m,
            raw_region(b"Mcp-Param-Region: Lis\rbon"),
            Expect::Hyper(400),
        ),
        case(
            "a NUL inside Mcp-Param-Region",
            m,
            raw_region(b"Mcp-Param-Region: Lis\0bon"),
            Expect::Hyper(400),
        ),
        case(
            "an obs-fold continuation line",
            m,
            lisbon().raw(&[b"Mcp-Param-Region: Lis", b" bon"]),
            Expect::Hyper(400),
        ),
        case(
            "a non-ASCII header name",
            m,
            raw_region("Mcp-Param-Régïon: Lisbon".as_bytes()),
            Expect::Hyper(400),
        ),
        case(
            "whitespace before the colon",
            m,
            raw_region(b"Mcp-Param-Region : Lisbon"),
            Expect::Hyper(400),
        ),
        case(
            "a header line without a colon",
            m,
            raw_region(b"Mcp-Param-Region Lisbon"),
            Expect::Hyper(400),
        ),
        case(
            "a 2 MiB header",
            m,
            raw_region(huge.as_bytes()),
            Expect::Hyper(431),
        ),
        case(
            "200 headers",
            m,
            regional("Lisbon").raw(&fillers),
            Expect::Hyper(431),
        ),
        case(
            "a 2 MiB request target",
            m,
            long_target.raw(&[]),
            Expect::Hyper(431),
        ),
        // line breaks that split one value into two
        case(
            "a LF inside Mcp-Param-Region smuggles a second value",
            m,
            raw_region(b"Mcp-Param-Region: Lisbon\nMcp-Param-Region: Evil"),
            mismatch,
        ),
        case(
            "CR LF inside Mcp-Param-Region smuggles a second value",
            m,
            raw_region(b"Mcp-Param-Region: Lisbon\r\nMcp-Param-Region: Evil"),
            mismatch,
        ),
        // Mcp-Param-* and Mcp-Name against the body
        case(
            "raw UTF-8 in Mcp-Param-Region",
            m,
            regional("São Paulo").with("Mcp-Param-Region", "São Paulo".as_bytes()),
            mismatch,
        ),
        case(
            "a Latin-1 byte in Mcp-Param-Region",
            m,
            region(b"Lisbon\xe9"),
            mismatch,
        ),
        case("Mcp-Param-Region missing", m, lisbon(), mismatch),
        case(
            "Mcp-Param-Region of another value",
            m,
            region(b"Porto"),
            mismatch,
        ),
        case(
            "Mcp-Param-Region: base64 of another value",
            m,
            region(porto.as_bytes()),
            mismatch,
        ),
        case(
            "Mcp-Param-Region: base64 of invalid UTF-8",
            m,
            region(b"=?base64?/w==?="),
            mismatch,
        ),
        case(
            "Mcp-Param-Region: unpadded base64",
            m,
            regional("Lisbon!").with("Mcp-Param-Region", "=?base64?TGlzYm9uIQ?="),
            mismatch,
        ),
        case(
            "Mcp-Param-Region: 16 KiB",
            m,
            region(long_region.as_bytes()),
            mismatch,
        ),
        case(
            "Mcp-Param-Region twice, the first matching",
            m,
            regional("Lisbon").also("Mcp-Param-Region", "Evil"),
            mismatch,
        ),
        case(
            "an undeclared Mcp-Param header is ignored",
            m,
            regional("Lisbon").with("Mcp-Param-Shell", "rm -rf /"),
            Expect::Ok,
        ),
        case(
            "Mcp-Name missing",
            m,
            regional("Lisbon").without("Mcp-Name"),
            mismatch,
        ),
        case(
            "Mcp-Name of another tool",
            m,
            regional("Lisbon").with("Mcp-Name", "echo"),
            mismatch,
        ),
        case(
            "Mcp-Name with invalid base64",
            m,
            regional("Lisbon").with("Mcp-Name", "=?base64?cmVnaW9uYWw?="),
            mismatch,
        ),
        case(
            "a Latin-1 byte in Mcp-Name",
            m,
            regional("Lisbon").with("Mcp-Name", b"regional\xe9"),
            mismatch,
        ),
        case(
            "Mcp-Name twice, the first matching",
            m,
            regional("Lisbon").also("Mcp-Name", "echo"),
            mismatch,
        ),
        // MCP-Protocol-Version, Mcp-Method and the envelope
        case(
            "MCP-Protocol-Version of a legacy revision, a modern envelope",
            m,
            list().with("MCP-Protocol-Version", "2025-06-18"),
            mismatch,
        ),
        case(
            "MCP-Protocol-Version missing",
            m,
            list().without("MCP-Protocol-Version"),
            mismatch,
        ),
        case(
            "MCP-Protocol-Version twice, the first matching",
            m,
            list().also("MCP-Protocol-Version", "2025-06-18"),
            mismatch,
        ),
        case(
            "a Latin-1 byte in MCP-Protocol-Version",
            m,
            list().with("MCP-Protocol-Version", b"2026-07-28\xe9"),
            mismatch,
        ),
        case(
            "MCP-Protocol-Version without an envelope",
            m,
            legacy_call("tools/list", json!({})).with("MCP-Protocol-Version", MODERN),
            Expect::Rpc(400, -32602),
        ),
        case(
            "an envelope naming an unserved revision",
            m,
            in_envelope("2027-01-01"),
            Expect::Rpc(400, -32022),
        ),
        case(
            "an envelope naming a legacy revision",
            m,
            in_envelope("2025-06-18"),
            Expect::Rpc(400, -32022),
        ),
        case(
            "initialize with a modern MCP-Protocol-Version",
            m,
            legacy_call("initialize", init_params()).with("MCP-Protocol-Version", MODERN),
            mismatch,
        ),
        case(
            "Mcp-Method missing",
            m,
            list().without("Mcp-Method"),
            mismatch,
        ),
        case(
            "Mcp-Method of another method",
            m,
            list().with("Mcp-Method", "tools/call"),
            mismatch,
        ),
        case(
            "Mcp-Method twice, the first matching",
            m,
            list().also("Mcp-Method", "tools/call"),
            mismatch,
        ),
        case(
            "a Latin-1 byte in Mcp-Method",
            m,
            list().with("Mcp-Method", b"tools/list\xe9"),
            mismatch,
        ),
        case(
            "a legacy request naming an unknown revision",
            m,
            legacy_call("tools/list", json!({})).with("MCP-Protocol-Version", "1999-01-01"),
            Expect::Rpc(400, -32000),
        ),
        case(
            "a modern request to a legacy-only server",
            lo,
            list(),
            Expect::Rpc(400, -32000),
        ),
        // Origin
        case("a foreign Origin", m, from(evil.as_bytes()), forbidden),
        case("Origin null", m, from(b"null"), forbidden),
        case("an empty Origin", m, from(b""), forbidden),
        case(
            "the allowed Origin, then a foreign one",
            m,
            from(ORIGIN.as_bytes()).also("Origin", evil),
            forbidden,
        ),
        case(
            "the allowed Origin twice",
            m,
            from(ORIGIN.as_bytes()).also("Origin", ORIGIN),
            Expect::Ok,
        ),
        case(
            "the allowed host as a prefix",
            m,
            from(b"https://app.example.com.evil.com"),
            forbidden,
        ),
        case(
            "the allowed host as userinfo",
            m,
            from(b"https://app.example.com@evil.com"),
            forbidden,
        ),
        case(
            "the allowed host over http",
            m,
            from(b"http://app.example.com"),
            forbidden,
        ),
        case(
            "the allowed origin with a path",
            m,
            from(b"https://app.example.com/"),
            forbidden,
        ),
        case(
            "an Origin with a Latin-1 byte",
            m,
            from(b"https://app.example.com\xe9"),
            forbidden,
        ),
        case(
            "a foreign Origin on a legacy request",
            m,
            legacy_call("ping", json!({})).with("Origin", evil),
            forbidden,
        ),
        case(
            "a foreign Origin on GET",
            m,
            post("").method("GET").with("Origin", evil),
            forbidden,
        ),
        case(
            "a foreign Origin on DELETE",
            m,
            post("").method("DELETE").with("Origin", evil),
            forbidden,
        ),
        case(
            "a foreign Origin with an unreadable body",
            m,
            post("{").with("Origin", evil),
            forbidden,
        ),
        case(
            "the allowed origin in upper case",
            m,
            from(b"HTTPS://APP.EXAMPLE.COM"),
            Expect::Ok,
        ),
    ];
    run("headers", &[m, lo], cases).await;
}

/// DNS rebinding and browser pages (issue 18, items 5 and 6): the loopback listener
/// accepts only `localhost` and loopback addresses with its bound port as `Host` (plus the
/// listed names; not at all with the check off), on every method of both eras, before the
/// Origin check, CORS, authentication and parsing; CORS preflights from the allowed origin
/// are answered before authentication, and foreign origins are refused first.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn host_and_cors() {
    let main = Srv::new(serve(target()).await, Eras::Both);
    let listed = target().transport(|http: mcp::transport::http::HttpConfig| {
        http.allowed_hosts(["mcp.example.com", "gateway.local:8443"])
    });
    let listed = Srv::new(serve(listed).await, Eras::Both);
    let open = Srv::new(
        serve(
            target()
                .transport(|http: mcp::transport::http::HttpConfig| http.host_validation(false)),
        )
        .await,
        Eras::Both,
    );
    let users = [("ada", "lovelace")];
    let guarded = Srv {
        auth: Some(basic("ada", "lovelace")),
        ..Srv::new(
            serve(target().listener_auth([ListenerAuth::basic(users)])).await,
            Eras::Both,
        )
    };
    let (m, l, o, g) = (&main, &listed, &open, &guarded);
    let port = m.addr.port();
    let list = || modern("tools/list", json!({}));
    let legacy_list = || legacy_call("tools/list", json!({}));
    let stream = || post("").method("GET").with("Accept", "text/event-stream");
    let delete = || post("").method("DELETE").with("Mcp-Session-Id", "0123");
    let host = |req: Http, value: &str| req.raw(&[format!("Host: {value}").as_bytes()]);
    let at = |srv: &Srv, value: &str| {
        host(
            list(),
            &value.replace("{port}", &srv.addr.port().to_string()),
        )
    };
    let without_host = |req: Http| match req.raw(&[]) {
        Wire::Raw { bytes, eof } => {
            let at = bytes
                .windows(BOUND_HOST.len())
                .position(|w| w == BOUND_HOST)
                .expect("the request's own Host line");
            let bytes = [&bytes[..at], &bytes[at + BOUND_HOST.len()..]].concat();
            Wire::Raw { bytes, eof }
        }
        other => other,
    };
    let preflight = |origin: &str, method: &str| {
        post("")
            .method("OPTIONS")
            .without("Content-Type")
            .without("Accept")
            .with("Origin", origin)
            .with("Access-Control-Request-Method", method)
            .with(
                "Access-Control-Request-Headers",
                "content-type,mcp-protocol-version,mcp-method,mcp-name,mcp-session-id,authorization",
            )
    };
    let evil = "evil.example";
    let forbidden = Expect::Rpc(403, -32000);
    let cases = vec![
        // a foreign Host (a rebound DNS name) on every method of both eras
        case(
            "modern POST for a foreign Host",
            m,
            host(list(), evil),
            forbidden,
        ),
        case(
            "legacy POST for a foreign Host",
            m,
            host(legacy_list(), evil),
            forbidden,
        ),
        case(
            "GET stream for a foreign Host",
            m,
            host(stream(), evil),
            forbidden,
        ),
        case(
            "DELETE for a foreign Host",
            m,
            host(delete(), evil),
            forbidden,
        ),
        case(
            "a preflight for a foreign Host",
            m,
            host(preflight(ORIGIN, "POST"), evil),
            forbidden,
        ),
        case(
            "a foreign Host with the allowed Origin",
            m,
            host(list().with("Origin", ORIGIN), evil),
            forbidden,
        ),
        case(
            "a foreign Host with an unreadable body",
            m,
            host(post("{"), evil),
            forbidden,
        ),
        case(
            "a foreign Host on a protected service, without credentials",
            g,
            host(list(), evil),
            forbidden,
        ),
        // local names with the wrong port, or not quite local
        case(
            "localhost with another port",
            m,
            host(
                list(),
                &format!("localhost:{}", port.wrapping_add(1).max(1)),
            ),
            forbidden,
        ),
        case(
            "127.0.0.1 without a port",
            m,
            host(list(), "127.0.0.1"),
            forbidden,
        ),
        case(
            "localhost. (trailing dot)",
            m,
            at(m, "localhost.:{port}"),
            forbidden,
        ),
        case(
            "a subdomain of localhost",
            m,
            at(m, "evil.localhost:{port}"),
            forbidden,
        ),
        case("0.0.0.0", m, at(m, "0.0.0.0:{port}"), forbidden),
        case("127.1 (short form)", m, at(m, "127.1:{port}"), forbidden),
        case(
            "user info in Host",
            m,
            at(m, "user@127.0.0.1:{port}"),
            forbidden,
        ),
        case("an unbracketed IPv6 address", m, at(m, "::1"), forbidden),
        case("an empty Host", m, host(list(), ""), forbidden),
        case("no Host (HTTP/1.1)", m, without_host(list()), forbidden),
        case(
            "a second, foreign Host line",
            m,
            list().raw(&[
                format!("Host: 127.0.0.1:{port}").as_bytes(),
                b"Host: evil.example",
            ]),
            forbidden,
        ),
        case(
            "an absolute-form target naming a foreign host",
            m,
            list().path("http://evil.example/mcp").raw(&[]),
            forbidden,
        ),
        // local names with the bound port
        case(
            "localhost with the bound port",
            m,
            at(m, "localhost:{port}"),
            Expect::Ok,
        ),
        case(
            "legacy POST to localhost",
            m,
            host(legacy_list(), &format!("localhost:{port}")),
            Expect::Ok,
        ),
        case(
            "LOCALHOST in upper case",
            m,
            at(m, "LOCALHOST:{port}"),
            Expect::Ok,
        ),
        case("the IPv6 loopback", m, at(m, "[::1]:{port}"), Expect::Ok),
        case(
            "another 127/8 address",
            m,
            at(m, "127.0.0.2:{port}"),
            Expect::Ok,
        ),
        case(
            "an IPv4-mapped loopback",
            m,
            at(m, "[::ffff:127.0.0.1]:{port}"),
            Expect::Ok,
        ),
        // the allowlist and the off switch
        case(
            "a listed name",
            l,
            host(list(), "mcp.example.com"),
            Expect::Ok,
        ),
        case(
            "a listed name with any port",
            l,
            host(list(), "MCP.example.com:9999"),
            Expect::Ok,
        ),
        case(
            "a listed host:port",
            l,
            host(list(), "gateway.local:8443"),
            Expect::Ok,
        ),
        case(
            "a listed host with another port",
            l,
            host(list(), "gateway.local:8444"),
            forbidden,
        ),
        case(
            "localhost beside the list",
            l,
            at(l, "localhost:{port}"),
            Expect::Ok,
        ),
        case(
            "a foreign Host beside the list",
            l,
            host(list(), evil),
            forbidden,
        ),
        case(
            "a foreign Host with the check off",
            o,
            host(list(), evil),
            Expect::Ok,
        ),
        case(
            "no Host with the check off",
            o,
            without_host(list()),
            Expect::Ok,
        ),
        // CORS
        case(
            "a preflight for POST from the allowed origin",
            m,
            preflight(ORIGIN, "POST"),
            Expect::Preflight(Some(ORIGIN)),
        ),
        case(
            "a preflight for GET from the allowed origin",
            m,
            preflight(ORIGIN, "GET"),
            Expect::Preflight(Some(ORIGIN)),
        ),
        case(
            "a preflight for DELETE from the allowed origin",
            m,
            preflight(ORIGIN, "DELETE"),
            Expect::Preflight(Some(ORIGIN)),
        ),
        case(
            "a preflight without credentials on a protected service",
            g,
            preflight(ORIGIN, "POST"),
            Expect::Preflight(Some(ORIGIN)),
        ),
        case(
            "a preflight from a foreign origin",
            m,
            preflight("https://evil.example.com", "POST"),
            forbidden,
        ),
        case(
            "a preflight from the null origin",
            m,
            preflight("null", "POST"),
            forbidden,
        ),
        case(
            "OPTIONS without Origin or a requested method",
            m,
            post("").method("OPTIONS"),
            Expect::Preflight(None),
        ),
        case(
            "a POST from the allowed origin",
            m,
            list().with("Origin", ORIGIN),
            Expect::Ok,
        ),
    ];
    run("host and CORS", &[m, l, o, g], cases).await;
}

/// A legacy `initialize` on `addr` (with `auth`); the issued session id.
async fn open_session(addr: SocketAddr, auth: Option<&str>) -> String {
    let mut init = legacy_call("initialize", init_params());
    if let Some(auth) = auth {
        init = init.with("Authorization", auth);
    }
    let got = send_http(&http_client(), addr, &init).await;
    let session = got
        .head
        .lines()
        .find_map(|l| l.strip_prefix("mcp-session-id: "))
        .map(|s| s.trim().to_owned());
    session.unwrap_or_else(|| panic!("initialize issued no session: {}", got.excerpt()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legacy_sessions() {
    let limits = SessionLimits::default()
        .with_idle_timeout(Duration::from_secs(1800))
        .with_max_per_owner(4)
        .with_max_anonymous(8);
    // Anonymous callers and identified ones (Basic) share one store, through two endpoints.
    let store = DynSessionStore::new(MemoryStore::new());
    let users = [("alice", "wonderland"), ("bob", "builder")];
    let open = mcp::Server::builder(Target)
        .session_store(store.clone())
        .session_limits(limits);
    let open = serve(open).await;
    let guarded = mcp::Server::builder(Target)
        .session_store(store)
        .listener_auth([ListenerAuth::basic(users)])
        .session_limits(limits);
    let guarded = serve(guarded).await;
    let strict = mcp::Server::builder(Target).session_mode(SessionMode::Stateful);
    let strict = serve(strict).await;
    let idle_timeout = Duration::from_millis(300);
    let expiring =
        mcp::Server::builder(Target).session_limits(limits.with_idle_timeout(idle_timeout));
    let expiring = serve(expiring).await;
    let (alice, bob) = (basic("alice", "wonderland"), basic("bob", "builder"));
    let expired = open_session(expiring, None).await;
    let alices = open_session(guarded, Some(&alice)).await;
    let bobs = open_session(guarded, Some(&bob)).await;
    let first_anonymous = open_session(open, None).await;
    let strict_session = open_session(strict, None).await;
    tokio::time::sleep(idle_timeout * 2).await;

    let open = Srv::new(open, Eras::Both);
    let guarded = Srv {
        auth: Some(alice.clone()),
        session: Some(alices.clone()),
        ..Srv::new(guarded, Eras::Both)
    };
    let strict = Srv {
        session: Some(strict_session),
        ..Srv::new(strict, Eras::Both)
    };
    let expiring = Srv::new(expiring, Eras::Both);
    let (o, g, s, e) = (&open, &guarded, &strict, &expiring);
    let ping = || legacy_call("ping", json!({}));
    let on = |session: &str| ping().with("Mcp-Session-Id", session);
    let bob_on = |session: &str| on(session).with("Authorization", &bob);
    let answer = || legacy(json!({"jsonrpc": "2.0", "id": 0, "result": {"action": "accept"}}));
    let initialized = legacy(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let not_found = Expect::Rpc(404, -32001);
    let unauthorized = Expect::Rpc(401, -32000);
    let cases = vec![
        case(
            "an unknown session id",
            o,
            on("0b0e8d2c-bd4e-4d8c-9c43-3b3f5f1f2a7e"),
            not_found,
        ),
        case("an empty session id", o, on(""), not_found),
        case(
            "a session id with a Latin-1 byte",
            o,
            ping().with("Mcp-Session-Id", b"ab\xe9"),
            not_found,
        ),
        case("an 8 KB session id", o, on(&"f".repeat(8 << 10)), not_found),
        case("an expired session", e, on(&expired), not_found),
        case("a session of another user", g, bob_on(&alices), not_found),
        case(
            "an identified session used anonymously",
            o,
            on(&alices),
            not_found,
        ),
        case(
            "an anonymous session used by a user",
            g,
            bob_on(&first_anonymous),
            not_found,
        ),
        case(
            "a DELETE of another user's session",
            g,
            bob_on(&alices).method("DELETE"),
            not_found,
        ),
        case(
            "a GET stream of another user's session",
            g,
            bob_on(&alices)
                .method("GET")
                .with("Accept", "text/event-stream"),
            not_found,
        ),
        case(
            "a DELETE of an unknown session",
            o,
            on("nope").method("DELETE"),
            not_found,
        ),
        case(
            "a notification on another user's session",
            g,
            initialized
                .with("Authorization", &bob)
                .with("Mcp-Session-Id", &alices),
            not_found,
        ),
        case(
            "an answer posted to another user's session",
            g,
            answer()
                .with("Authorization", &bob)
                .with("Mcp-Session-Id", &alices),
            not_found,
        ),
        case(
            "an answer posted to an unknown session",
            o,
            answer().with("Mcp-Session-Id", "nope"),
            not_found,
        ),
        case(
            "initialize carrying a session id",
            g,
            legacy_call("initialize", init_params())
                .with("Authorization", &alice)
                .with("Mcp-Session-Id", &alices),
            Expect::Rpc(400, -32600),
        ),
        case(
            "a stateful server without a session id",
            s,
            ping(),
            Expect::Rpc(400, -32000),
        ),
        case(
            "a wrong password",
            g,
            ping().with("Authorization", basic("alice", "x")),
            unauthorized,
        ),
        case(
            "an unknown user",
            g,
            ping().with("Authorization", basic("mallory", "x")),
            unauthorized,
        ),
        case(
            "a session id on a modern request is ignored",
            o,
            modern("tools/list", json!({})).with("Mcp-Session-Id", &alices),
            Expect::Ok,
        ),
        case(
            "500 anonymous initialize requests next to identified callers",
            o,
            Wire::Many(
                500,
                Box::new(legacy_call("initialize", init_params()).into()),
            ),
            Expect::Ok,
        ),
        case(
            "the anonymous session the flood evicted",
            o,
            on(&first_anonymous),
            not_found,
        ),
        case(
            "an identified session after the flood",
            g,
            bob_on(&bobs),
            Expect::Ok,
        ),
    ];
    run("legacy sessions", &[o, g], cases).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_state() {
    let main = serve(target()).await;
    let stranger = mcp::Server::builder(Target).request_state_keys([OTHER_KEY]);
    let stranger = serve(stranger).await;
    let short = mcp::Server::builder(Target)
        .request_state_keys([STATE_KEY])
        .request_state_ttl(Duration::from_secs(1));
    let short = serve(short).await;
    let http = http_client();
    let state_of = |addr: SocketAddr| {
        let http = http.clone();
        async move {
            let got = send_http(&http, addr, &tool("count", json!({"label": "a"}))).await;
            let state = got.json()["result"]["requestState"]
                .as_str()
                .map(str::to_owned);
            state.unwrap_or_else(|| panic!("a request state: {}", got.excerpt()))
        }
    };
    let issued = tokio::time::Instant::now();
    let expired = state_of(short).await;
    let genuine = state_of(main).await;
    let foreign = state_of(stranger).await;
    // Expiry counts whole seconds: a one-second state has expired two seconds later.
    tokio::time::sleep_until(issued + Duration::from_millis(2100)).await;

    let (head, tag) = genuine.rsplit_once('.').expect("v1.<payload>.<tag>");
    let forged = format!(
        "v1.{}.{tag}",
        URL_SAFE_NO_PAD.encode(r#"{"exp":9999999999,"p":"2"}"#)
    );
    let mut flipped = tag.as_bytes().to_vec();
    flipped[5] = if flipped[5] == b'A' { b'B' } else { b'A' };
    let flipped = format!("{head}.{}", String::from_utf8_lossy(&flipped));
    let huge = format!("v1.{}.{tag}", "A".repeat(100 << 10));
    let call = |tool: &str, label: &str, state: Value| {
        let params = json!({"name": tool, "arguments": {"label": label}, "requestState": state});
        modern("tools/call", params)
    };
    let resume = |state: &str| call("count", "a", json!(state));
    let main = Srv::new(main, Eras::Both);
    let m = &main;
    let refused = Expect::Rpc(200, -32602);
    let cases = vec![
        case(
            "a forged payload under a genuine tag",
            m,
            resume(&forged),
            refused,
        ),
        case(
            "a genuine payload under a flipped tag",
            m,
            resume(&flipped),
            refused,
        ),
        case(
            "a truncated state",
            m,
            resume(&genuine[..genuine.len() - 4]),
            refused,
        ),
        case("a state without its tag", m, resume(head), refused),
        case(
            "another version prefix",
            m,
            resume(&genuine.replacen("v1.", "v2.", 1)),
            refused,
        ),
        case("garbage", m, resume("v1.x.y"), refused),
        case("an empty state", m, resume(""), refused),
        case("a 100 KB state", m, resume(&huge), refused),
        case("a number", m, call("count", "a", json!(42)), refused),
        case(
            "an object",
            m,
            call("count", "a", json!({"p": "2"})),
            refused,
        ),
        case("an array", m, call("count", "a", json!([genuine])), refused),
        case("null", m, call("count", "a", Value::Null), refused),
        case(
            "a state of another tool",
            m,
            call("recount", "a", json!(genuine)),
            refused,
        ),
        case(
            "a state of other arguments",
            m,
            call("count", "b", json!(genuine)),
            refused,
        ),
        case(
            "a state signed with another server's key",
            m,
            resume(&foreign),
            refused,
        ),
        case("an expired state", m, resume(&expired), refused),
        case(
            "inputResponses that is not an object",
            m,
            modern(
                "tools/call",
                json!({"name": "count", "arguments": {"label": "a"}, "inputResponses": [1]}),
            ),
            refused,
        ),
        case(
            "a state replayed on a legacy call is ignored",
            m,
            legacy_call(
                "tools/call",
                json!({"name": "count", "arguments": {"label": "a"}, "requestState": genuine}),
            ),
            Expect::Rpc(200, -32603),
        ),
        case("the genuine state", m, resume(&genuine), Expect::Ok),
    ];
    run("request state", &[m], cases).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oauth_tokens() {
    let authz = LocalAuthServer::start().await;
    let rsa = SigningKey::rsa("rsa-1", RSA1_PEM);
    authz.publish(&rsa);
    authz.publish(&SigningKey::ec("ec-1", EC1_PEM));
    let config = mcp_examples::files::oauth_config(RESOURCE, &authz.issuer, &authz.jwks_url);
    let vault = mcp::Server::builder(Vault)
        .oauth(config)
        .transport(|http: mcp::transport::http::HttpConfig| http.allowed_origins([ORIGIN]));
    let vault = serve(vault).await;
    let token = |claims: Value| {
        let mut base =
            json!({"sub": "alice", "client_id": "app", "aud": RESOURCE, "scope": "files:read"});
        for (k, v) in claims.as_object().into_iter().flatten() {
            base[k.as_str()] = v.clone();
        }
        authz.issue(&rsa, &base)
    };
    let bearer = |t: &str| format!("Bearer {t}");
    let alice = token(json!({}));
    register_secret(alice.clone());
    let vault = Srv {
        auth: Some(bearer(&alice)),
        ..Srv::new(vault, Eras::Both)
    };
    let v = &vault;

    // Tokens that must be refused.
    let t = now();
    let claims = json!({"iss": authz.issuer, "sub": "alice", "aud": RESOURCE, "exp": t + 600,
                        "scope": "files:read"});
    let b64 = |text: &str| URL_SAFE_NO_PAD.encode(text);
    let none = format!(
        "{}.{}.",
        b64(r#"{"alg":"none","kid":"rsa-1"}"#),
        b64(&claims.to_string())
    );
    let mut hs_header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256);
    hs_header.kid = Some("rsa-1".into());
    let public_key = jsonwebtoken::EncodingKey::from_secret(RSA1_PUBLIC_PEM.as_bytes());
    let hs256 = jsonwebtoken::encode(&hs_header, &claims, &public_key).expect("an HS256 token");
    let signed_by = |key: SigningKey| {
        authz.issue(
            &key,
            &json!({"sub": "alice", "aud": RESOURCE, "scope": "files:read"}),
        )
    };
    let unpublished = signed_by(SigningKey::rsa("rsa-1", RSA2_PEM));
    let unknown_kid = signed_by(SigningKey::rsa("made-up", RSA2_PEM));
    let no_issuer = rsa.sign(&json!({"sub": "alice", "aud": RESOURCE, "exp": t + 600}));
    let deep = b64(&format!("{}{}", "[".repeat(10_000), "]".repeat(10_000)));
    let deep_header = format!("{deep}.{}.c2ln", b64(&claims.to_string()));
    let deep_claims = format!("{}.{deep}.c2ln", b64(r#"{"alg":"RS256","kid":"rsa-1"}"#));
    let expired = token(json!({"exp": t - 120}));
    let early = token(json!({"nbf": t + 600}));
    let elsewhere = token(json!({"aud": "https://other.example.com/mcp"}));
    let untrusted = token(json!({"iss": "https://evil.example.com"}));
    let profile_only = token(json!({"scope": "profile"}));
    let huge = "A".repeat(40 << 10);

    // Alice's continuation, and Bob's session.
    let http = http_client();
    let step = || modern("tools/call", json!({"name": "step"}));
    let first = send_http(&http, v.addr, &step().with("Authorization", bearer(&alice))).await;
    let state = first.json()["result"]["requestState"]
        .as_str()
        .map(str::to_owned);
    let state = state.unwrap_or_else(|| panic!("a request state: {}", first.excerpt()));
    let bobs = open_session(v.addr, Some(&bearer(&token(json!({"sub": "bob"}))))).await;

    let list = || modern("tools/list", json!({}));
    let with_token = |t: &str| list().with("Authorization", bearer(t));
    let resumed_by = |claims: Value| {
        let resume = modern("tools/call", json!({"name": "step", "requestState": state}));
        resume.with("Authorization", bearer(&token(claims)))
    };
    let as_alice = |call: Http| call.with("Authorization", bearer(&alice));
    let invalid = Expect::OAuth(401, "invalid_token");
    let insufficient = Expect::OAuth(403, "insufficient_scope");
    let cases = vec![
        case("no Authorization", v, list(), invalid),
        case(
            "Bearer without a token",
            v,
            list().with("Authorization", "Bearer"),
            invalid,
        ),
        case(
            "Bearer and spaces",
            v,
            list().with("Authorization", "Bearer    "),
            invalid,
        ),
        case(
            "Basic credentials",
            v,
            list().with("Authorization", basic("alice", "x")),
            invalid,
        ),
        case(
            "two Authorization headers",
            v,
            with_token(&alice).also("Authorization", bearer(&alice)),
            invalid,
        ),
        case(
            "a Latin-1 byte in the token",
            v,
            list().with("Authorization", b"Bearer a\xe9"),
            invalid,
        ),
        case(
            "a CR inside the token",
            v,
            list().raw(&[b"Authorization: Bearer a\rb"]),
            Expect::Hyper(400),
        ),
        case("alg none", v, with_token(&none), invalid),
        case(
            "HS256 keyed with the RSA public key",
            v,
            with_token(&hs256),
            invalid,
        ),
        case("an expired token", v, with_token(&expired), invalid),
        case("a token not yet valid", v, with_token(&early), invalid),
        case(
            "a token for another resource",
            v,
            with_token(&elsewhere),
            invalid,
        ),
        case("an untrusted issuer", v, with_token(&untrusted), invalid),
        case("no issuer", v, with_token(&no_issuer), invalid),
        case(
            "a forged signature under a published kid",
            v,
            with_token(&unpublished),
            invalid,
        ),
        case("an unknown kid", v, with_token(&unknown_kid), invalid),
        case("three garbage segments", v, with_token("a.b.c"), invalid),
        case(
            "a token whose header nests 10,000 deep",
            v,
            with_token(&deep_header),
            invalid,
        ),
        case(
            "a token whose claims nest 10,000 deep",
            v,
            with_token(&deep_claims),
            invalid,
        ),
        case("a 40 KiB token", v, with_token(&huge), invalid),
        case("an opaque token", v, with_token("opaque-token"), invalid),
        case(
            "a token in the query string",
            v,
            list().path(&format!("/mcp?access_token={alice}")),
            invalid,
        ),
        case(
            "200 forged tokens at once",
            v,
            Wire::Many(200, Box::new(with_token(&unpublished).into())),
            invalid,
        ),
        case(
            "a token lacking the required scope",
            v,
            with_token(&profile_only),
            insufficient,
        ),
        case(
            "a token lacking the tool's scope",
            v,
            as_alice(tool("erase", json!({}))),
            insufficient,
        ),
        case(
            "a legacy call lacking the tool's scope",
            v,
            as_alice(legacy_tool("erase", json!({}))),
            insufficient,
        ),
        case(
            "a request state of another subject",
            v,
            resumed_by(json!({"sub": "bob"})),
            Expect::Rpc(200, -32602),
        ),
        case(
            "a request state of another client",
            v,
            resumed_by(json!({"client_id": "other-app"})),
            Expect::Rpc(200, -32602),
        ),
        case(
            "a session of another subject",
            v,
            as_alice(legacy_call("ping", json!({}))).with("Mcp-Session-Id", &bobs),
            Expect::Rpc(404, -32001),
        ),
        case(
            "a valid token from a foreign Origin",
            v,
            with_token(&alice).with("Origin", "https://evil.example.com"),
            Expect::Rpc(403, -32000),
        ),
        case(
            "the scheme in lower case",
            v,
            list().with("Authorization", format!("bearer {alice}")),
            Expect::Ok,
        ),
    ];
    run("OAuth tokens", &[v], cases).await;
}

/// The nonce secret of the DPoP theme's nonce-requiring server.
const NONCE_SECRET: &[u8; 32] = b"hostile-catalogue-dpop-nonce-key";

/// DPoP-bound tokens (RFC 9449; `tests/dpop.rs` asserts each challenge exactly): forged,
/// misbound, replayed (alone and 200 at once), stale and future proofs, proofs for another
/// method, URL or token, private keys in the `jwk`, `alg: none` and HS256, two proofs, no
/// proof, oversized and deeply nested proofs, bound tokens used as bearer tokens, and the
/// nonce games of a server that requires DPoP and nonces. Both servers' canaries are
/// DPoP clients.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dpop_proofs() {
    let authz = LocalAuthServer::start().await;
    let rsa = SigningKey::rsa("rsa-1", RSA1_PEM);
    authz.publish(&rsa);
    let key = ProofKey::es256(EC2_PEM);
    let attacker = ProofKey::es256(EC3_PEM);
    let vault = |dpop: DpopConfig| {
        let config =
            mcp_examples::files::oauth_config(RESOURCE, &authz.issuer, &authz.jwks_url).dpop(dpop);
        mcp::Server::builder(Vault)
            .oauth(config)
            .transport(|http: mcp::transport::http::HttpConfig| http.allowed_origins([ORIGIN]))
    };
    let open = serve(vault(DpopConfig::new())).await;
    let strict = serve(vault(DpopConfig::new().require().nonce(NONCE_SECRET))).await;
    let token_bound_to = |jkt: Option<String>| {
        let mut claims =
            json!({"sub": "alice", "client_id": "app", "aud": RESOURCE, "scope": "files:read"});
        if let Some(jkt) = jkt {
            claims["cnf"] = json!({"jkt": jkt});
        }
        authz.issue(&rsa, &claims)
    };
    let token = token_bound_to(Some(key.jkt()));
    let unbound = token_bound_to(None);
    register_secret(token.clone());
    register_secret(unbound.clone());
    let scheme = format!("DPoP {token}");
    let list = || modern("tools/list", json!({})).with("Authorization", &scheme);
    let with_proof = |proof: String| list().with("DPoP", proof);
    let proof = |claims: Value| key.proof_with("POST", RESOURCE, &token, json!({}), claims);
    let http = http_client();

    // The strict server's nonce, from its first refusal; a proof of each server used once.
    let first = send_http(&http, strict, &with_proof(proof(json!({})))).await;
    let nonce = first
        .head
        .lines()
        .find_map(|l| l.strip_prefix("dpop-nonce: "))
        .unwrap_or_else(|| panic!("a DPoP-Nonce header: {}", first.head))
        .to_owned();
    let nonced = |claims: Value| {
        let mut claims = claims;
        claims["nonce"] = json!(nonce);
        proof(claims)
    };
    let used = proof(json!({}));
    let used_with_nonce = nonced(json!({}));
    for (addr, p) in [(open, &used), (strict, &used_with_nonce)] {
        let got = send_http(&http, addr, &with_proof(p.clone())).await;
        check("the first use of a proof", Expect::Ok, &got);
    }
    let client = |nonce: Option<String>| DpopClient {
        key: key.clone(),
        token: token.clone(),
        nonce,
    };
    let v = Srv {
        auth: Some(scheme.clone()),
        dpop: Some(client(None)),
        ..Srv::new(open, Eras::Both)
    };
    let n = Srv {
        auth: Some(scheme.clone()),
        dpop: Some(client(Some(nonce.clone()))),
        ..Srv::new(strict, Eras::Both)
    };
    let (v, n) = (&v, &n);

    // Proofs that must be refused.
    let t = now();
    let good = proof(json!({}));
    let mut parts = good.splitn(3, '.');
    let (head, _, signature) = (parts.next(), parts.next(), parts.next());
    let forged = format!(
        "{}.{}.{}",
        head.unwrap_or_default(),
        b64(
            &json!({"jti": "forged", "htm": "POST", "htu": RESOURCE, "iat": t, "ath": ath(&token)})
        ),
        signature.unwrap_or_default()
    );
    let scalar = p256_scalar(EC2_PEM);
    register_secret(scalar.clone());
    let mut private = key.jwk().clone();
    private["d"] = json!(scalar);
    let claims = json!({"jti": "x", "htm": "POST", "htu": RESOURCE, "iat": t, "ath": ath(&token)});
    let none = format!(
        "{}.{}.",
        b64(&json!({"typ": "dpop+jwt", "alg": "none", "jwk": key.jwk()})),
        b64(&claims)
    );
    let hs256 = {
        let header = json!({"typ": "dpop+jwt", "alg": "HS256", "jwk": key.jwk()});
        let message = format!("{}.{}", b64(&header), b64(&claims));
        let secret = jsonwebtoken::EncodingKey::from_secret(key.jwk().to_string().as_bytes());
        let mac =
            jsonwebtoken::crypto::sign(message.as_bytes(), &secret, jsonwebtoken::Algorithm::HS256)
                .expect("an HMAC");
        format!("{message}.{mac}")
    };
    let deep = URL_SAFE_NO_PAD.encode(format!("{}{}", "[".repeat(10_000), "]".repeat(10_000)));
    let deep_header = format!("{deep}.{}.c2ln", b64(&claims));
    let oversized = format!("{good}{}", "A".repeat(9 << 10));
    let invalid_proof = Expect::OAuth(401, "invalid_dpop_proof");
    let invalid_token = Expect::OAuth(401, "invalid_token");
    let use_nonce = Expect::OAuth(401, "use_dpop_nonce");
    let cases = vec![
        case("a forged signature", v, with_proof(forged), invalid_proof),
        case(
            "a proof signed by another key than cnf.jkt",
            v,
            with_proof(attacker.proof("POST", RESOURCE, &token)),
            invalid_token,
        ),
        case(
            "a replayed proof",
            v,
            with_proof(used.clone()),
            invalid_proof,
        ),
        case(
            "200 replays of one proof at once",
            v,
            Wire::Many(200, Box::new(with_proof(used).into())),
            invalid_proof,
        ),
        case(
            "a proof two minutes old",
            v,
            with_proof(proof(json!({"iat": t - 120}))),
            invalid_proof,
        ),
        case(
            "a proof a minute ahead",
            v,
            with_proof(proof(json!({"iat": t + 60}))),
            invalid_proof,
        ),
        case(
            "htm GET on a POST",
            v,
            with_proof(proof(json!({"htm": "GET"}))),
            invalid_proof,
        ),
        case(
            "htu of another path",
            v,
            with_proof(proof(json!({"htu": "https://mcp.example.com/other"}))),
            invalid_proof,
        ),
        case(
            "htu of another host",
            v,
            with_proof(proof(json!({"htu": "https://evil.example.com/mcp"}))),
            invalid_proof,
        ),
        case(
            "htu of the address the server listens on",
            v,
            with_proof(proof(json!({"htu": format!("http://{}/mcp", v.addr)}))),
            invalid_proof,
        ),
        case(
            "no ath",
            v,
            with_proof(proof(json!({"ath": null}))),
            invalid_proof,
        ),
        case(
            "ath of another token",
            v,
            with_proof(proof(json!({"ath": ath(&unbound)}))),
            invalid_proof,
        ),
        case(
            "a private key in the jwk",
            v,
            with_proof(key.proof_with(
                "POST",
                RESOURCE,
                &token,
                json!({"jwk": private}),
                json!({}),
            )),
            invalid_proof,
        ),
        case("alg none", v, with_proof(none), invalid_proof),
        case(
            "HS256 keyed with the jwk",
            v,
            with_proof(hs256),
            invalid_proof,
        ),
        case(
            "two DPoP headers",
            v,
            with_proof(proof(json!({}))).also("DPoP", proof(json!({}))),
            invalid_proof,
        ),
        case("the DPoP scheme without a proof", v, list(), invalid_proof),
        case(
            "the access token as the proof",
            v,
            with_proof(token.clone()),
            invalid_proof,
        ),
        case("a 9 KiB proof", v, with_proof(oversized), invalid_proof),
        case(
            "a proof whose header nests 10,000 deep",
            v,
            with_proof(deep_header),
            invalid_proof,
        ),
        case(
            "a Latin-1 byte in the proof",
            v,
            list().with("DPoP", b"a\xe9"),
            invalid_proof,
        ),
        case(
            "a CR inside the proof",
            v,
            list().raw(&[b"DPoP: a\rb"]),
            Expect::Hyper(400),
        ),
        case(
            "a DPoP-bound token as a bearer token",
            v,
            modern("tools/list", json!({})).with("Authorization", format!("Bearer {token}")),
            invalid_token,
        ),
        case(
            "an unbound token with a good proof",
            v,
            modern("tools/list", json!({}))
                .with("Authorization", format!("DPoP {unbound}"))
                .with("DPoP", key.proof("POST", RESOURCE, &unbound)),
            invalid_token,
        ),
        case(
            "200 forged proofs at once",
            v,
            Wire::Many(
                200,
                Box::new(with_proof(attacker.proof("POST", RESOURCE, &token)).into()),
            ),
            invalid_token,
        ),
        case(
            "the scheme in lower case",
            v,
            modern("tools/list", json!({}))
                .with("Authorization", format!("dpop {token}"))
                .with("DPoP", proof(json!({}))),
            Expect::Ok,
        ),
        case("no nonce", n, with_proof(proof(json!({}))), use_nonce),
        case(
            "a forged nonce",
            n,
            with_proof(proof(json!({"nonce": "AAAAAAAAAAAAAAAAAAAAAAAA"}))),
            use_nonce,
        ),
        case(
            "a nonce of another length",
            n,
            with_proof(proof(json!({"nonce": format!("{nonce}AAAA")}))),
            use_nonce,
        ),
        case(
            "a numeric nonce",
            n,
            with_proof(proof(json!({"nonce": 7}))),
            invalid_proof,
        ),
        case(
            "the nonce on a replayed proof",
            n,
            with_proof(used_with_nonce),
            invalid_proof,
        ),
        case(
            "the nonce on a proof for another URL",
            n,
            with_proof(nonced(json!({"htu": "https://mcp.example.com/other"}))),
            invalid_proof,
        ),
        case(
            "a bearer token where DPoP is required",
            n,
            modern("tools/list", json!({})).with("Authorization", format!("Bearer {unbound}")),
            invalid_token,
        ),
        case(
            "the nonce and a good proof",
            n,
            with_proof(nonced(json!({}))),
            Expect::Ok,
        ),
    ];
    run("DPoP proofs", &[v, n], cases).await;
}

/// The private scalar `d` (base64url) of a P-256 PKCS#8 PEM as OpenSSL writes it.
fn p256_scalar(pem: &str) -> String {
    let body: String = pem.lines().filter(|l| !l.starts_with("-----")).collect();
    let der = STANDARD.decode(body).expect("a PEM");
    URL_SAFE_NO_PAD.encode(&der[36..68])
}

/// The issuer listener authentication requires of its JWTs.
const LISTENER_ISSUER: &str = "https://issuer.example";

/// The `requestState` of the first round of `tool` (its arguments `arguments`), called with
/// `auth` (none: anonymously).
async fn first_state(addr: SocketAddr, name: &str, arguments: Value, auth: Option<&str>) -> String {
    let mut call = tool(name, arguments);
    if let Some(auth) = auth {
        call = call.with("Authorization", auth);
    }
    let got = send_http(&http_client(), addr, &call).await;
    let state = got.json()["result"]["requestState"]
        .as_str()
        .map(str::to_owned);
    state.unwrap_or_else(|| panic!("a request state: {}", got.excerpt()))
}

/// Asserts that a legacy `initialize` with `auth` succeeds without issuing a session.
async fn initialize_without_session(addr: SocketAddr, auth: &str) {
    let init = legacy_call("initialize", init_params()).with("Authorization", auth);
    let got = send_http(&http_client(), addr, &init).await;
    assert!(
        got.status == 200 && got.json()["result"].is_object(),
        "initialize: {}",
        got.excerpt()
    );
    assert!(
        !got.head.contains("mcp-session-id"),
        "a token naming nobody got a session: {}",
        got.head
    );
}

/// Who a request state, a legacy session and a per-owner limit belong to (issue 18): the
/// caller under listener authentication too, identities that differ in any character,
/// tokens that name nobody, and JWT headers and scopes read as strictly as the RFCs say.
/// The session cases run on the in-memory store and, with the `redis` feature, on a
/// [`mcp::session::RedisStore`] (`MCP_TEST_REDIS_URL`, default `redis://127.0.0.1:6379`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn identity_binding() {
    let authz = LocalAuthServer::start().await;
    let rsa = SigningKey::rsa("rsa-1", RSA1_PEM);
    authz.publish(&rsa);
    let oauth = || mcp_examples::files::oauth_config(RESOURCE, &authz.issuer, &authz.jwks_url);
    // One session per identified caller, so a collision of two identities would evict.
    let limits = SessionLimits::default()
        .with_idle_timeout(Duration::from_secs(120))
        .with_max_per_owner(1)
        .with_max_anonymous(8);
    let vault = |store: Option<DynSessionStore>, mode: SessionMode| {
        let mut b = mcp::Server::builder(Vault)
            .oauth(oauth())
            .session_limits(limits)
            .session_mode(mode)
            .request_state_keys([STATE_KEY]);
        if let Some(store) = store {
            b = b.session_store(store);
        }
        b
    };
    let users = [("alice", "wonderland"), ("bob", "builder")];
    let guarded = |mode: SessionMode| {
        let jwt = ListenerAuth::jwt(RSA1_PUBLIC_PEM, Some(LISTENER_ISSUER), None).expect("a key");
        mcp::Server::builder(Target)
            .listener_auth([ListenerAuth::basic(users), jwt])
            .session_limits(limits)
            .session_mode(mode)
            .request_state_keys([STATE_KEY])
    };
    let memory_vault = serve(vault(None, SessionMode::Auto)).await;
    let stores = vec![("memory", memory_vault)];
    #[cfg(feature = "redis")]
    let stores = {
        let mut stores = stores;
        let url =
            std::env::var("MCP_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
        let prefix = format!("mcp-hostile:{}:{}", std::process::id(), now());
        let store = mcp::session::RedisStore::connect(&url)
            .await
            .unwrap_or_else(|e| panic!("{e}: start redis-server or set MCP_TEST_REDIS_URL"))
            .with_prefix(prefix);
        stores.push((
            "redis",
            serve(vault(Some(DynSessionStore::new(store)), SessionMode::Auto)).await,
        ));
        stores
    };
    let strict_vault = serve(vault(None, SessionMode::Stateful)).await;
    let guarded_addr = serve(guarded(SessionMode::Auto)).await;
    let strict_guarded = serve(guarded(SessionMode::Stateful)).await;
    let open = serve(target()).await;

    // OAuth tokens.
    let token = |claims: Value| {
        let mut base =
            json!({"sub": "alice", "client_id": "app", "aud": RESOURCE, "scope": "files:read"});
        for (k, v) in claims.as_object().into_iter().flatten() {
            base[k.as_str()] = v.clone();
        }
        base.as_object_mut()
            .expect("an object")
            .retain(|_, v| !v.is_null());
        authz.issue(&rsa, &base)
    };
    let bearer = |t: &str| format!("Bearer {t}");
    let alice = bearer(&token(json!({})));
    register_secret(alice.clone());
    let ab = bearer(&token(json!({"sub": "ab"})));
    let a_b = bearer(&token(json!({"sub": "a\u{1f}b"})));
    let nobody = bearer(&token(json!({"sub": "", "client_id": null})));
    let nobody_empty_client = bearer(&token(json!({"sub": "", "client_id": ""})));
    let t = now();
    let claims = json!({"iss": authz.issuer, "sub": "alice", "client_id": "app", "aud": RESOURCE,
                        "exp": t + 600, "scope": "files:read"});
    let headed = |extra: Value| bearer(&rsa.sign_with_header(&extra, &claims));
    let scoped = |scope: &str| bearer(&token(json!({"scope": scope})));
    // Listener JWTs.
    let jwt = |claims: Value| {
        let mut base = json!({"iss": LISTENER_ISSUER, "exp": t + 600});
        for (k, v) in claims.as_object().into_iter().flatten() {
            base[k.as_str()] = v.clone();
        }
        bearer(&rsa.sign(&base))
    };
    let (basic_alice, basic_bob) = (basic("alice", "wonderland"), basic("bob", "builder"));
    let carol = jwt(json!({"sub": "carol", "client_id": "app"}));
    let carol_elsewhere = jwt(json!({"sub": "carol", "client_id": "other-app"}));
    let dave = jwt(json!({"sub": "dave", "client_id": "app"}));
    let jwt_alice = jwt(json!({"sub": "alice"}));
    let jwt_ab = jwt(json!({"sub": "ab"}));
    let jwt_a_b = jwt(json!({"sub": "a\u{1f}b"}));
    let jwt_nobody = jwt(json!({"sub": ""}));
    let listener_headed = |extra: Value| {
        let claims = json!({"iss": LISTENER_ISSUER, "sub": "carol", "exp": t + 600});
        bearer(&rsa.sign_with_header(&extra, &claims))
    };

    // Sessions and request states issued before the cases.
    let mut sessions = Vec::new();
    for (name, addr) in &stores {
        let of_ab = open_session(*addr, Some(&ab)).await;
        let of_a_b = open_session(*addr, Some(&a_b)).await;
        sessions.push((
            *name,
            Srv {
                auth: Some(alice.clone()),
                ..Srv::new(*addr, Eras::Both)
            },
            of_ab,
            of_a_b,
        ));
    }
    let listener_ab = open_session(guarded_addr, Some(&jwt_ab)).await;
    let strict_vault_session = open_session(strict_vault, Some(&alice)).await;
    let strict_guarded_session = open_session(strict_guarded, Some(&basic_alice)).await;
    let count = || json!({"label": "a"});
    let alices_state = first_state(guarded_addr, "count", count(), Some(&basic_alice)).await;
    let carols_state = first_state(guarded_addr, "count", count(), Some(&carol)).await;
    let anonymous_state = first_state(open, "count", count(), None).await;
    let ab_state = first_state(memory_vault, "step", json!({}), Some(&ab)).await;
    initialize_without_session(memory_vault, &nobody).await;
    initialize_without_session(memory_vault, &nobody_empty_client).await;
    initialize_without_session(guarded_addr, &jwt_nobody).await;

    let vault = Srv {
        auth: Some(alice.clone()),
        ..Srv::new(memory_vault, Eras::Both)
    };
    let strict_vault = Srv {
        auth: Some(alice.clone()),
        session: Some(strict_vault_session),
        ..Srv::new(strict_vault, Eras::Both)
    };
    let guarded = Srv {
        auth: Some(basic_alice.clone()),
        ..Srv::new(guarded_addr, Eras::Both)
    };
    let strict_guarded = Srv {
        auth: Some(basic_alice.clone()),
        session: Some(strict_guarded_session),
        ..Srv::new(strict_guarded, Eras::Both)
    };
    let (v, sv, g, sg) = (&vault, &strict_vault, &guarded, &strict_guarded);
    let ping = |auth: &str| legacy_call("ping", json!({})).with("Authorization", auth);
    let on = |auth: &str, session: &str| ping(auth).with("Mcp-Session-Id", session);
    let init = |auth: &str| legacy_call("initialize", init_params()).with("Authorization", auth);
    let resume = |state: &str, auth: &str| {
        let params = json!({"name": "count", "arguments": count(), "requestState": state});
        modern("tools/call", params).with("Authorization", auth)
    };
    let list = |auth: &str| modern("tools/list", json!({})).with("Authorization", auth);
    let erase = |auth: &str| tool("erase", json!({})).with("Authorization", auth);
    let not_found = Expect::Rpc(404, -32001);
    let bad_state = Expect::Rpc(200, -32602);
    let invalid = Expect::OAuth(401, "invalid_token");
    let insufficient = Expect::OAuth(403, "insufficient_scope");
    let no_session = Expect::Rpc(403, -32000);
    let mut cases = vec![
        // 1. Request state under listener authentication.
        case(
            "a Basic user's request state resumed by another user",
            g,
            resume(&alices_state, &basic_bob),
            bad_state,
        ),
        case(
            "a Basic user's request state resumed by a JWT with the same subject",
            g,
            resume(&alices_state, &jwt_alice),
            bad_state,
        ),
        case(
            "an anonymous request state resumed by a Basic user",
            g,
            resume(&anonymous_state, &basic_alice),
            bad_state,
        ),
        case(
            "a JWT caller's request state resumed by another subject",
            g,
            resume(&carols_state, &dave),
            bad_state,
        ),
        case(
            "a JWT caller's request state resumed by the same subject of another client",
            g,
            resume(&carols_state, &carol_elsewhere),
            bad_state,
        ),
        case(
            "a Basic user's request state resumed by the user",
            g,
            resume(&alices_state, &basic_alice),
            Expect::Ok,
        ),
        case(
            "a JWT caller's request state resumed by the caller",
            g,
            resume(&carols_state, &carol),
            Expect::Ok,
        ),
        // 2. Identities that differ only in a separator character.
        case(
            "a request state of subject ab resumed by subject a\\u001fb",
            v,
            modern(
                "tools/call",
                json!({"name": "step", "requestState": ab_state}),
            )
            .with("Authorization", &a_b),
            bad_state,
        ),
        case(
            "a listener session of subject ab used by subject a\\u001fb",
            g,
            on(&jwt_a_b, &listener_ab),
            not_found,
        ),
        case(
            "a listener session of subject ab used by subject ab",
            g,
            on(&jwt_ab, &listener_ab),
            Expect::Ok,
        ),
        // 3. Tokens that name neither a subject nor a client.
        case(
            "initialize by a token with an empty subject and no client (auto sessions)",
            v,
            init(&nobody),
            Expect::Ok,
        ),
        case(
            "initialize by a token with an empty subject and no client (stateful)",
            sv,
            init(&nobody),
            no_session,
        ),
        case(
            "initialize by a token with an empty subject and an empty client (stateful)",
            sv,
            init(&nobody_empty_client),
            no_session,
        ),
        case(
            "a modern call by a token with an empty subject and no client",
            v,
            list(&nobody),
            Expect::Ok,
        ),
        case(
            "initialize by a listener JWT with an empty subject (auto sessions)",
            g,
            init(&jwt_nobody),
            Expect::Ok,
        ),
        case(
            "initialize by a listener JWT with an empty subject (stateful)",
            sg,
            init(&jwt_nobody),
            no_session,
        ),
        // 4. JWT headers and scopes.
        case(
            "a crit header naming a registered claim",
            v,
            list(&headed(json!({"crit": ["exp"], "exp": t + 600}))),
            invalid,
        ),
        case(
            "a crit header naming an unsupported extension",
            v,
            list(&headed(json!({"crit": ["b64"], "b64": false}))),
            invalid,
        ),
        case(
            "an empty crit header",
            v,
            list(&headed(json!({"crit": []}))),
            invalid,
        ),
        case(
            "a crit header that is not a list",
            v,
            list(&headed(json!({"crit": "exp"}))),
            invalid,
        ),
        case(
            "a private header member that is a number",
            v,
            list(&headed(json!({"n": 7}))),
            Expect::Ok,
        ),
        case(
            "a private header member that is an object",
            v,
            list(&headed(json!({"ext": {"a": [1, true, null]}}))),
            Expect::Ok,
        ),
        case(
            "private header members that are a list, a boolean and null",
            v,
            list(&headed(json!({"l": [1], "b": false, "z": null}))),
            Expect::Ok,
        ),
        case(
            "a listener JWT with a crit header",
            g,
            ping(&listener_headed(json!({"crit": ["b64"], "b64": false}))),
            Expect::Rpc(401, -32000),
        ),
        case(
            "a listener JWT with a private header member that is a number",
            g,
            ping(&listener_headed(json!({"n": 7, "o": {}}))),
            Expect::Ok,
        ),
        case(
            "a listener JWT without the issuer the listener requires",
            g,
            ping(&bearer(&rsa.sign(&json!({"sub": "carol", "exp": t + 600})))),
            Expect::Rpc(401, -32000),
        ),
        case(
            "a second scope after a TAB",
            v,
            erase(&scoped("files:read x\tfiles:write")),
            insufficient,
        ),
        case(
            "a second scope after a line feed",
            v,
            erase(&scoped("files:read x\nfiles:write")),
            insufficient,
        ),
        case(
            "a second scope after a CR LF on a legacy call",
            v,
            legacy_tool("erase", json!({}))
                .with("Authorization", scoped("files:read x\r\nfiles:write")),
            insufficient,
        ),
        case(
            "the required scope joined to another by a TAB",
            v,
            list(&scoped("files:read\tfiles:write")),
            insufficient,
        ),
        case(
            "two scopes separated by a space",
            v,
            erase(&scoped("files:read files:write")),
            Expect::Ok,
        ),
    ];
    // 2, on each session store: sessions and per-owner pools of ab and a\u001fb.
    for (name, srv, of_ab, of_a_b) in &sessions {
        cases.extend([
            case(
                format!("{name}: a session of subject ab used by subject a\\u001fb"),
                srv,
                on(&a_b, of_ab),
                not_found,
            ),
            case(
                format!("{name}: a session of subject a\\u001fb used by subject ab"),
                srv,
                on(&ab, of_a_b),
                not_found,
            ),
            case(
                format!("{name}: a DELETE of subject ab's session by subject a\\u001fb"),
                srv,
                on(&a_b, of_ab).method("DELETE"),
                not_found,
            ),
            case(
                format!("{name}: subject ab initializes again (one session per owner)"),
                srv,
                init(&ab),
                Expect::Ok,
            ),
            case(
                format!("{name}: the session of a\\u001fb after ab initialized again"),
                srv,
                on(&a_b, of_a_b),
                Expect::Ok,
            ),
            case(
                format!("{name}: the session of ab that its new session evicted"),
                srv,
                on(&ab, of_ab),
                not_found,
            ),
        ]);
    }
    let canaries: Vec<&Srv> = [v, sv, g, sg]
        .into_iter()
        .chain(sessions.iter().map(|s| &s.1))
        .collect();
    run("identity binding", &canaries, cases).await;
}

// --------------------------------------------- resources, prompts and completion (issue 13)

/// A service with resources, a template, prompts and completers next to the canary's tool.
struct Library;

#[mcp::service(name = "library", version = "1.0.0")]
impl Library {
    /// Echo `text` back.
    pub fn echo(&self, text: String) -> String {
        text
    }

    /// A static page.
    #[resource(uri = "lib://readme", mime_type = "text/plain")]
    fn readme(&self) -> String {
        "read me".into()
    }

    /// A page per slug.
    #[resource(template = "lib://pages/{slug}")]
    fn page(&self, slug: String) -> String {
        format!("page {}", slug.len())
    }

    /// Panics with internal detail in its message.
    #[resource(uri = "lib://explode")]
    fn explode(&self) -> String {
        panic!("{PANIC}")
    }

    /// Fails with an I/O error naming a path.
    #[resource(uri = "lib://vault")]
    fn vault(&self) -> Result<String, std::io::Error> {
        Err(leaky_io_error())
    }

    /// Review a page.
    #[prompt]
    fn review(&self, slug: String, focus: Option<String>) -> String {
        format!("review {} {}", slug.len(), focus.map_or(0, |f| f.len()))
    }

    #[complete(prompt = "review", argument = "slug")]
    fn slugs(&self, prefix: String) -> Vec<String> {
        vec![format!("{}-slug", prefix.len())]
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resources_prompts_and_completion() {
    let builder = mcp::Server::builder(Library).request_state_keys([STATE_KEY]);
    let lib = Srv::new(serve(builder).await, Eras::Both);
    let tools_only = Srv::new(serve(target()).await, Eras::Both);
    let (l, t) = (&lib, &tools_only);
    let read = |uri: &str| legacy_call("resources/read", json!({"uri": uri}));
    let modern_read =
        |uri: &str| modern("resources/read", json!({"uri": uri})).with("Mcp-Name", uri);
    let get = |params: Value| legacy_call("prompts/get", params);
    let complete = |params: Value| legacy_call("completion/complete", params);
    let in_band = Expect::Rpc(200, -32602);
    let crash = Expect::Rpc(200, -32603);
    let huge = "a".repeat(1 << 20);
    let cases = vec![
        case(
            "read: a static resource",
            l,
            read("lib://readme"),
            Expect::Ok,
        ),
        case("read: a template", l, read("lib://pages/intro"), Expect::Ok),
        case(
            "read: an unknown URI (legacy)",
            l,
            read("lib://nope"),
            in_band,
        ),
        case(
            "read: an unknown URI (modern)",
            l,
            modern_read("lib://nope"),
            in_band,
        ),
        case("read: not a URI", l, read("not a uri"), in_band),
        case("read: an empty URI", l, read(""), in_band),
        case("read: a dot-dot value", l, read("lib://pages/.."), in_band),
        case(
            "read: an encoded dot-dot value",
            l,
            read("lib://pages/%2E%2E"),
            in_band,
        ),
        case(
            "read: an encoded slash",
            l,
            read("lib://pages/a%2Fb"),
            in_band,
        ),
        case(
            "read: an encoded NUL",
            l,
            read("lib://pages/a%00b"),
            in_band,
        ),
        case(
            "read: an encoded control character",
            l,
            read("lib://pages/a%1Bb"),
            in_band,
        ),
        case(
            "read: invalid UTF-8",
            l,
            read("lib://pages/%FF%FE"),
            in_band,
        ),
        case(
            "read: a 1 MiB value",
            l,
            read(&format!("lib://pages/{huge}")),
            in_band,
        ),
        case(
            "read: a 1 MiB unknown URI",
            l,
            read(&format!("lib://{huge}")),
            in_band,
        ),
        case(
            "read: uri is a number",
            l,
            legacy_call("resources/read", json!({"uri": 5})),
            in_band,
        ),
        case(
            "read: no params",
            l,
            legacy_call("resources/read", json!({})),
            in_band,
        ),
        case(
            "read: a resource that panics",
            l,
            read("lib://explode"),
            crash,
        ),
        case(
            "read: an I/O error with a path",
            l,
            read("lib://vault"),
            crash,
        ),
        case(
            "read: modern without Mcp-Name",
            l,
            modern("resources/read", json!({"uri": "lib://readme"})),
            Expect::Rpc(400, -32020),
        ),
        case(
            "read: modern with another Mcp-Name",
            l,
            modern("resources/read", json!({"uri": "lib://readme"}))
                .with("Mcp-Name", "lib://other"),
            Expect::Rpc(400, -32020),
        ),
        case(
            "list: an unknown cursor",
            l,
            legacy_call("resources/list", json!({"cursor": "x"})),
            in_band,
        ),
        case(
            "list: a numeric cursor",
            l,
            legacy_call("prompts/list", json!({"cursor": 1})),
            in_band,
        ),
        case(
            "templates: modern",
            l,
            modern("resources/templates/list", json!({})),
            Expect::Ok,
        ),
        case(
            "prompt: arguments",
            l,
            get(json!({"name": "review", "arguments": {"slug": "a"}})),
            Expect::Ok,
        ),
        case(
            "prompt: an unknown name",
            l,
            get(json!({"name": "nope"})),
            in_band,
        ),
        case(
            "prompt: an unknown name (modern)",
            l,
            modern("prompts/get", json!({"name": "nope"})),
            in_band,
        ),
        case(
            "prompt: a missing required argument",
            l,
            get(json!({"name": "review", "arguments": {"focus": "x"}})),
            in_band,
        ),
        case(
            "prompt: a numeric argument",
            l,
            get(json!({"name": "review", "arguments": {"slug": 1}})),
            in_band,
        ),
        case(
            "prompt: a null argument",
            l,
            get(json!({"name": "review", "arguments": {"slug": null}})),
            in_band,
        ),
        case(
            "prompt: an array argument",
            l,
            get(json!({"name": "review", "arguments": {"slug": "a", "focus": ["x"]}})),
            in_band,
        ),
        case(
            "prompt: an object argument (modern)",
            l,
            modern(
                "prompts/get",
                json!({"name": "review", "arguments": {"slug": {"a": 1}}}),
            ),
            in_band,
        ),
        case(
            "prompt: arguments is an array",
            l,
            get(json!({"name": "review", "arguments": ["a"]})),
            in_band,
        ),
        case(
            "prompt: a 1 MiB argument",
            l,
            get(json!({"name": "review", "arguments": {"slug": huge}})),
            Expect::Ok,
        ),
        case(
            "complete: a prompt argument",
            l,
            complete(
                json!({"ref": {"type": "ref/prompt", "name": "review"}, "argument": {"name": "slug", "value": "a"}}),
            ),
            Expect::Ok,
        ),
        case(
            "complete: an unknown prompt",
            l,
            complete(
                json!({"ref": {"type": "ref/prompt", "name": "nope"}, "argument": {"name": "slug", "value": ""}}),
            ),
            in_band,
        ),
        case(
            "complete: an unknown template",
            l,
            complete(
                json!({"ref": {"type": "ref/resource", "uri": "lib://{x}"}, "argument": {"name": "x", "value": ""}}),
            ),
            in_band,
        ),
        case(
            "complete: an unknown reference type",
            l,
            complete(
                json!({"ref": {"type": "ref/tool", "name": "echo"}, "argument": {"name": "text", "value": ""}}),
            ),
            in_band,
        ),
        case(
            "complete: no argument",
            l,
            complete(json!({"ref": {"type": "ref/prompt", "name": "review"}})),
            in_band,
        ),
        case(
            "complete: a numeric value",
            l,
            complete(
                json!({"ref": {"type": "ref/prompt", "name": "review"}, "argument": {"name": "slug", "value": 3}}),
            ),
            in_band,
        ),
        case(
            "complete: a 1 MiB value",
            l,
            complete(
                json!({"ref": {"type": "ref/prompt", "name": "review"}, "argument": {"name": "slug", "value": huge}}),
            ),
            Expect::Ok,
        ),
        case(
            "subscribe: not declared (legacy)",
            l,
            legacy_call("resources/subscribe", json!({"uri": "lib://readme"})),
            Expect::Rpc(200, -32601),
        ),
        case(
            "subscribe: modern",
            l,
            modern("resources/subscribe", json!({"uri": "lib://readme"})),
            Expect::Rpc(404, -32601),
        ),
        case(
            "tools only: resources/read (legacy)",
            t,
            read("lib://readme"),
            Expect::Rpc(200, -32601),
        ),
        case(
            "tools only: prompts/get (modern)",
            t,
            modern("prompts/get", json!({"name": "review"})),
            Expect::Rpc(404, -32601),
        ),
        case(
            "tools only: completion/complete (modern)",
            t,
            modern("completion/complete", json!({})),
            Expect::Rpc(404, -32601),
        ),
    ];
    run("resources, prompts and completion", &[l, t], cases).await;
    // A prompt argument of the wrong type names the prompt and the argument, on both eras.
    let http = http_client();
    for (era, wrong) in [
        (
            "legacy",
            get(json!({"name": "review", "arguments": {"slug": "a", "focus": ["x"]}})),
        ),
        (
            "modern",
            modern(
                "prompts/get",
                json!({"name": "review", "arguments": {"slug": "a", "focus": ["x"]}}),
            ),
        ),
    ] {
        let got = send_http(&http, l.addr, &wrong).await.json();
        assert_eq!(got["error"]["code"], -32602, "{era}: {got}");
        assert_eq!(
            got["error"]["message"],
            "Invalid arguments for prompt review: invalid argument `focus`: \
             invalid type: sequence, expected a string",
            "{era}"
        );
    }
}

/// A service whose tools talk back through [`Context`]: logs, progress and sampling.
struct Talker;

#[mcp::service(name = "talker", version = "1.0.0")]
impl Talker {
    /// Echo `text` back.
    pub fn echo(&self, text: String) -> String {
        text
    }

    /// Logs, reports progress, and answers.
    pub async fn work(&self, ctx: Context) -> String {
        ctx.log(mcp::LogLevel::Info, "working").await;
        ctx.progress(1.0, 2.0, None).await;
        "worked".into()
    }

    /// Asks the client's model.
    pub async fn ask(&self, ctx: Context, question: String) -> Result<String, mcp::ToolError> {
        let ask = mcp::SamplingRequest::new(vec![mcp::SamplingMessage::user(question)], 10);
        Ok(ctx.sample(ask).await?.model)
    }

    /// Works `micros` microseconds, or stops when the call is cancelled (as the `notes`
    /// example's `reindex` does), and says which happened.
    pub async fn race(&self, micros: u64, ctx: Context) -> String {
        tokio::select! {
            () = tokio::time::sleep(Duration::from_micros(micros)) => "finished".into(),
            () = ctx.cancelled() => "cancelled".into(),
        }
    }
}

/// A cancelled call stays cancelled: 1,000 legacy `tools/call`s on one session, each
/// cancelled at a random moment around the end of its work. A call whose tool saw the
/// cancellation (it answers "cancelled") was cancelled before it answered, and its result
/// must never be written; a call that finished first may answer ("finished"). Every call
/// ends one way or the other, and the session keeps serving.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelled_calls_stay_cancelled() {
    const CALLS: u64 = 1_000;
    let addr = serve(mcp::Server::builder(Talker)).await;
    let session = open_session(addr, None).await;
    let http = http_client();
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64);
    println!("cancelled_calls_stay_cancelled: seed {seed}");
    // splitmix64: random enough for moments, and reproducible from the printed seed.
    let random = move |i: u64| {
        let mut z = seed.wrapping_add(i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let slots = Arc::new(tokio::sync::Semaphore::new(32));
    let mut calls = tokio::task::JoinSet::new();
    for id in 0..CALLS {
        let permit = slots.clone().acquire_owned().await.unwrap();
        let (http, session) = (http.clone(), session.clone());
        // Work 0-2 ms; cancel 0-2 ms after sending: about half the calls finish first.
        let work = random(2 * id) % 2_000;
        let wait = random(2 * id + 1) % 2_000;
        calls.spawn(async move {
            let _permit = permit;
            let call = legacy(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "race", "arguments": {"micros": work}}}))
            .with("Mcp-Session-Id", &session);
            let cancel = legacy(
                json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": id, "reason": "race"}}),
            )
            .with("Mcp-Session-Id", &session);
            let answer = send_http(&http, addr, &call);
            let cancelled = async {
                tokio::time::sleep(Duration::from_micros(wait)).await;
                send_http(&http, addr, &cancel).await
            };
            let (answer, cancelled) = tokio::join!(answer, cancelled);
            assert_eq!(cancelled.status, 202, "{}", cancelled.excerpt());
            assert_eq!(answer.status, 200, "call {id}: {}", answer.excerpt());
            let body = String::from_utf8_lossy(&answer.body).into_owned();
            if body.contains(r#""text":"cancelled""#) {
                panic!("call {id} answered after its cancellation was accepted: {body}");
            }
            if body.contains(r#""text":"finished""#) {
                true
            } else {
                assert!(
                    !body.contains("\"result\"") && !body.contains("\"error\""),
                    "call {id}: {body}"
                );
                false
            }
        });
    }
    let (mut finished, mut unanswered) = (0, 0);
    while let Some(outcome) = calls.join_next().await {
        if outcome.expect("a call's task") {
            finished += 1;
        } else {
            unanswered += 1;
        }
    }
    println!("cancelled_calls_stay_cancelled: {finished} finished, {unanswered} cancelled");
    assert_eq!(finished + unanswered, CALLS);
    assert!(
        unanswered > 0,
        "no call was cancelled: the test proves nothing"
    );
    // The session still serves.
    let after = send_http(
        &http,
        addr,
        &legacy_tool("echo", json!({"text": "still here"})).with("Mcp-Session-Id", &session),
    )
    .await;
    assert!(
        String::from_utf8_lossy(&after.body).contains("still here"),
        "{}",
        after.excerpt()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn context_traffic() {
    let addr = serve(mcp::Server::builder(Talker).request_state_keys([STATE_KEY])).await;
    let session = open_session(addr, None).await;
    let http = http_client();
    let sampling = json!({"io.modelcontextprotocol/clientCapabilities": {"sampling": {}}});
    let ask = |extra: Value| {
        let mut params = json!({"name": "ask", "arguments": {"question": "q"}, "_meta": sampling});
        if let (Some(p), Value::Object(extra)) = (params.as_object_mut(), extra) {
            p.extend(extra);
        }
        modern("tools/call", params)
    };
    let first = send_http(&http, addr, &ask(json!({}))).await;
    let state = first.json()["result"]["requestState"]
        .as_str()
        .map(str::to_owned)
        .unwrap_or_else(|| panic!("a sampling round: {}", first.excerpt()));
    let srv = Srv {
        session: Some(session.clone()),
        ..Srv::new(addr, Eras::Both)
    };
    let t = &srv;
    let on = |h: Http| h.with("Mcp-Session-Id", &session);
    let set_level = |params: &str| on(legacy_text("logging/setLevel", params));
    let cancel = |params: Value| {
        on(legacy(
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params}),
        ))
    };
    // Valid tokens go to `echo` (a plain JSON answer), invalid ones to `work`.
    let with_token = |tool: &str, token: &str| {
        format!(
            r#"{{"name":"{tool}","arguments":{{"text":"x"}},"_meta":{{"progressToken":{token}}}}}"#
        )
    };
    let invalid = Expect::Rpc(400, -32600);
    let zod = Expect::Rpc(200, -32603);
    let mut cases = vec![
        case(
            "setLevel with an unknown level",
            t,
            set_level(r#"{"level":"loud"}"#),
            zod,
        ),
        case(
            "setLevel with an upper-case level",
            t,
            set_level(r#"{"level":"INFO"}"#),
            zod,
        ),
        case(
            "setLevel with a number",
            t,
            set_level(r#"{"level":3}"#),
            zod,
        ),
        case("setLevel with null", t, set_level(r#"{"level":null}"#), zod),
        case("setLevel without a level", t, set_level("{}"), zod),
        case(
            "setLevel with 1 MB of level",
            t,
            set_level(&format!(r#"{{"level":"{}"}}"#, "d".repeat(1 << 20))),
            zod,
        ),
        case(
            "setLevel without a session",
            t,
            legacy_call("logging/setLevel", json!({"level": "bogus"})),
            zod,
        ),
        case(
            "setLevel on the modern era",
            t,
            modern("logging/setLevel", json!({"level": "info"})),
            Expect::Rpc(404, -32601),
        ),
        case(
            "a modern envelope log level that is not a level",
            t,
            modern(
                "tools/call",
                json!({"name": "work", "arguments": {}, "_meta": {"io.modelcontextprotocol/logLevel": "loud"}}),
            ),
            Expect::Rpc(400, -32602),
        ),
        case(
            "a cancellation for an unknown request",
            t,
            cancel(json!({"requestId": 424_242})),
            Expect::Accepted,
        ),
        // Not id 1: the canary's calls on this session use it, and a cancellation of one of
        // them in flight is accepted (its answer is then never written).
        case(
            "a call that finishes",
            t,
            on(legacy(
                json!({"jsonrpc": "2.0", "id": 77, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "x"}}}),
            )),
            Expect::Ok,
        ),
        case(
            "a cancellation for a finished request",
            t,
            cancel(json!({"requestId": 77})),
            Expect::Accepted,
        ),
        case(
            "a cancellation without a requestId",
            t,
            cancel(json!({"reason": "x"})),
            Expect::Accepted,
        ),
        case(
            "a cancellation naming an object",
            t,
            cancel(json!({"requestId": {"id": 1}})),
            Expect::Accepted,
        ),
        case(
            "a cancellation without a session",
            t,
            legacy(
                json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}),
            ),
            Expect::Accepted,
        ),
        case(
            "a sampling answer that is not a sampling result",
            t,
            ask(
                json!({"requestState": state, "inputResponses": {"mcp-sampling-1": {"action": "accept"}}}),
            ),
            Expect::Rpc(200, -32602),
        ),
        case(
            "a sampling answer that is not an object",
            t,
            ask(json!({"requestState": state, "inputResponses": {"mcp-sampling-1": "4"}})),
            Expect::Rpc(200, -32602),
        ),
        case(
            "a sampling request to a client without the capability",
            t,
            tool("ask", json!({"question": "q"})),
            Expect::Rpc(400, -32021),
        ),
        case(
            "an answer to a sampling request nothing awaits",
            t,
            on(legacy(
                json!({"jsonrpc": "2.0", "id": "mcp-server-0", "result": {"role": "assistant", "content": {"type": "text", "text": "x"}, "model": "m"}}),
            )),
            Expect::Accepted,
        ),
        case(
            "a sampling request on a legacy session without the capability",
            t,
            on(legacy_tool("ask", json!({"question": "q"}))),
            Expect::Rpc(200, -32603),
        ),
    ];
    // `ProgressToken` is `string | integer` (a number without a fraction, as JavaScript
    // counts it); anything else is an invalid message on both eras, as from the TypeScript
    // server (checked against it: 400 / -32600 for 1.5, true, null, [1] and {}).
    // Integers must be safe (±(2^53 − 1)), as zod's `int()` in the TypeScript server has it.
    for token in ["\"t\"", "\"\"", "7", "-3", "0", "1.0", "9007199254740991"] {
        cases.push(case(
            format!("legacy progress token {token}"),
            t,
            on(legacy_text("tools/call", &with_token("echo", token))),
            Expect::Ok,
        ));
        let mut modern_params: Value = serde_json::from_str(&with_token("echo", "0")).unwrap();
        modern_params["_meta"]["progressToken"] = serde_json::from_str(token).unwrap();
        cases.push(case(
            format!("modern progress token {token}"),
            t,
            modern("tools/call", modern_params),
            Expect::Ok,
        ));
    }
    for token in [
        "1.5",
        "-0.5",
        "1e300",
        "9007199254740992",
        "12345678901234567",
        "true",
        "false",
        "null",
        "[1]",
        "[]",
        "{}",
        "{\"a\":1}",
    ] {
        cases.push(case(
            format!("legacy progress token {token}"),
            t,
            on(legacy_text("tools/call", &with_token("work", token))),
            invalid,
        ));
        let mut modern_params: Value = serde_json::from_str(&with_token("work", "0")).unwrap();
        modern_params["_meta"]["progressToken"] =
            serde_json::from_str(token).unwrap_or(Value::Null);
        cases.push(case(
            format!("modern progress token {token}"),
            t,
            modern("tools/call", modern_params),
            invalid,
        ));
    }
    run("context traffic", &[t], cases).await;
}

/// A service with change notifications: list changes advertised, resource subscriptions.
struct Watched;

#[mcp::service(name = "watched", version = "1.0.0")]
impl Watched {
    /// Echo `text` back.
    pub fn echo(&self, text: String) -> String {
        text
    }

    /// The stock.
    #[resource(uri = "watched://stock")]
    fn stock(&self) -> String {
        "3".into()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn change_notifications() {
    let watched = || {
        mcp::Server::builder(Watched)
            .list_changed(true)
            .resource_subscriptions(true)
    };
    let mut open = Srv::new(serve(watched()).await, Eras::Both);
    open.session = Some(open_session(open.addr, None).await);
    let full = Srv::new(serve(watched().max_listeners(0)).await, Eras::Both);
    let (w, f) = (&open, &full);
    // The per-caller and server-wide listen budgets (issue 26), each set too low for any
    // listen that honours something.
    let one_caller = Srv::new(
        serve(watched().max_listeners_per_caller(0)).await,
        Eras::Both,
    );
    let caller_bytes = Srv::new(
        serve(watched().max_listen_bytes_per_caller(100)).await,
        Eras::Both,
    );
    let all_bytes = Srv::new(serve(watched().max_listen_bytes(100)).await, Eras::Both);
    let (pc, pb, sb) = (&one_caller, &caller_bytes, &all_bytes);
    let uris = |n: usize, len: usize| -> Vec<String> {
        (0..n)
            .map(|i| format!("watched://{i:0>width$}", width = len.saturating_sub(10)))
            .collect()
    };
    let session = open.session.clone().expect("a session");
    let listen = |notifications: Option<Value>| {
        let params = match notifications {
            Some(n) => json!({"notifications": n}),
            None => json!({}),
        };
        modern("subscriptions/listen", params)
    };
    let subscribe = |uri: &str| {
        legacy_call("resources/subscribe", json!({"uri": uri})).with("Mcp-Session-Id", &session)
    };
    let invalid = Expect::Rpc(200, -32602);
    let cases = vec![
        case("listen: no filter", w, listen(None), invalid),
        case(
            "listen: a null filter",
            w,
            listen(Some(Value::Null)),
            invalid,
        ),
        case(
            "listen: an array filter",
            w,
            listen(Some(json!([]))),
            invalid,
        ),
        case(
            "listen: a string where a boolean goes",
            w,
            listen(Some(json!({"toolsListChanged": "yes"}))),
            invalid,
        ),
        case(
            "listen: a number among the subscribed URIs",
            w,
            listen(Some(
                json!({"resourceSubscriptions": ["watched://stock", 7]}),
            )),
            invalid,
        ),
        case(
            "listen: one more than the listener cap",
            f,
            listen(Some(json!({"toolsListChanged": true}))),
            Expect::Rpc(200, -32603),
        ),
        case(
            "listen: 150,000 URIs in a 3.4 MB filter",
            w,
            listen(Some(json!({"resourceSubscriptions": uris(150_000, 12)}))),
            invalid,
        ),
        case(
            "listen: one URI more than max_listen_uris",
            w,
            listen(Some(json!({"resourceSubscriptions": uris(1_001, 16)}))),
            invalid,
        ),
        case(
            "listen: a URI of 9 KB",
            w,
            listen(Some(json!({"resourceSubscriptions": uris(1, 9_000)}))),
            invalid,
        ),
        case(
            "listen: over max_listeners_per_caller",
            pc,
            listen(Some(json!({"toolsListChanged": true}))),
            invalid,
        ),
        case(
            "listen: over max_listen_bytes_per_caller",
            pb,
            listen(Some(json!({"resourceSubscriptions": uris(10, 64)}))),
            invalid,
        ),
        case(
            "listen: over max_listen_bytes",
            sb,
            listen(Some(json!({"resourceSubscriptions": uris(10, 64)}))),
            invalid,
        ),
        case(
            "listen: on the legacy era",
            w,
            legacy_call("subscriptions/listen", json!({"notifications": {}})),
            Expect::Rpc(200, -32601),
        ),
        case(
            "subscribe: a URI the service does not have (accepted, as by TypeScript)",
            w,
            subscribe("watched://nowhere"),
            Expect::Ok,
        ),
        case(
            "subscribe: an oversized URI",
            w,
            subscribe(&format!("watched://{}", "x".repeat(9000))),
            invalid,
        ),
        case(
            "subscribe: on the modern era",
            w,
            modern("resources/subscribe", json!({"uri": "watched://stock"})),
            Expect::Rpc(404, -32601),
        ),
    ];
    run("change notifications", &[w, f, pc, pb, sb], cases).await;
    // The refusals name the bound and the setting that raises it.
    let http = http_client();
    for (srv, filter, setting) in [
        (
            w,
            json!({"resourceSubscriptions": uris(150_000, 12)}),
            "ServerBuilder::max_listen_uris",
        ),
        (
            w,
            json!({"resourceSubscriptions": uris(1, 9_000)}),
            "max_listen_uri_bytes",
        ),
        (
            pc,
            json!({"toolsListChanged": true}),
            "max_listeners_per_caller",
        ),
        (
            pb,
            json!({"resourceSubscriptions": uris(10, 64)}),
            "max_listen_bytes_per_caller",
        ),
        (
            sb,
            json!({"resourceSubscriptions": uris(10, 64)}),
            "max_listen_bytes",
        ),
    ] {
        let got = send_http(&http, srv.addr, &listen(Some(filter)))
            .await
            .json();
        let message = got["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.starts_with("Invalid params: ") && message.contains(setting),
            "{setting}: {got}"
        );
    }
}

// ------------------------------------------------------------------------------ tasks

/// The service of the tasks theme.
struct Tasked;

#[mcp::service(name = "tasked", version = "1.0.0")]
impl Tasked {
    /// Echo `text` back (the well-behaved client's tool).
    pub fn echo(&self, text: String) -> String {
        text
    }

    /// Works for a long time, as a task.
    #[tool(task = "optional")]
    pub async fn slow(&self) -> String {
        tokio::time::sleep(Duration::from_secs(3600)).await;
        "done".into()
    }

    /// A result of `bytes` bytes, as a task.
    #[tool(task = "required")]
    pub async fn big(&self, bytes: usize) -> String {
        "x".repeat(bytes.min(1 << 20))
    }

    /// Asks a question through its task.
    #[tool(task = "optional")]
    pub async fn ask(&self, ctx: Context) -> ToolOutput<String> {
        tokio::time::sleep(Duration::from_millis(10)).await;
        match ctx.elicit_result("q") {
            Some(_) => ToolOutput::Done("answered".into()),
            None => InputRequired::new()
                .elicit(
                    "q",
                    mcp::elicit_form("Sure?", mcp::FormSchema::new().boolean("ok", "Sure", true)),
                )
                .into(),
        }
    }
}

/// The `_meta` of a request declaring the tasks extension (and elicitation).
fn with_tasks() -> Value {
    json!({"io.modelcontextprotocol/clientCapabilities": {
        "elicitation": {},
        "extensions": {"io.modelcontextprotocol/tasks": {}}
    }})
}

/// A `tasks/*` request about `id`, declaring the extension, with its `Mcp-Name`.
fn task_request(method: &str, id: &str, extra: Value) -> Http {
    let mut params = json!({"taskId": id, "_meta": with_tasks()});
    if let (Some(p), Value::Object(extra)) = (params.as_object_mut(), extra) {
        p.extend(extra);
    }
    modern(method, params).with("Mcp-Name", id)
}

/// Creates a task of `tool` with `arguments` on `addr`; its id.
async fn create_task(addr: SocketAddr, tool: &str, arguments: Value, auth: Option<&str>) -> String {
    let mut call = modern(
        "tools/call",
        json!({"name": tool, "arguments": arguments, "_meta": with_tasks()}),
    );
    if let Some(auth) = auth {
        call = call.with("Authorization", auth);
    }
    let got = send_http(&http_client(), addr, &call).await;
    let body = got.json();
    assert_eq!(body["result"]["resultType"], "task", "{}", got.excerpt());
    body["result"]["taskId"]
        .as_str()
        .expect("a task id")
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks() {
    let config = mcp::tasks::TaskConfig::default()
        .with_max_active_per_caller(3)
        .with_max_result_bytes(4096);
    let builder = || {
        mcp::Server::builder(Tasked)
            .tasks(config)
            .listener_auth([ListenerAuth::basic([
                ("alice", "alice-pw"),
                ("bob", "bob-pw"),
            ])])
    };
    let mut srv = Srv::new(serve(builder()).await, Eras::Both);
    let (alice, bob) = (basic("alice", "alice-pw"), basic("bob", "bob-pw"));
    srv.auth = Some(bob.clone());
    let s = &srv;
    // Alice fills her quota of active tasks; one of them waits for an answer.
    let asking = create_task(s.addr, "ask", json!({}), Some(&alice)).await;
    let mut held = vec![asking.clone()];
    for _ in 0..2 {
        held.push(create_task(s.addr, "slow", json!({}), Some(&alice)).await);
    }
    let http = http_client();
    for _ in 0..100 {
        let got = send_http(
            &http,
            s.addr,
            &task_request("tasks/get", &asking, json!({})).with("Authorization", &alice),
        )
        .await;
        if got.json()["result"]["status"] == "input_required" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let as_alice = |h: Http| h.with("Authorization", &alice);
    let as_bob = |h: Http| h.with("Authorization", &bob);
    let mine = held[1].clone();
    let unknown = "0".repeat(32);
    let long_id = "f".repeat(4096);
    let not_found = Expect::Rpc(200, -32602);
    let cases = vec![
        case(
            "get: an unknown id",
            s,
            as_alice(task_request("tasks/get", &unknown, json!({}))),
            not_found,
        ),
        case(
            "get: another caller's task",
            s,
            as_bob(task_request("tasks/get", &mine, json!({}))),
            not_found,
        ),
        case(
            "update: another caller's task",
            s,
            as_bob(task_request(
                "tasks/update",
                &asking,
                json!({"inputResponses": {"q": {"action": "accept", "content": {"ok": true}}}}),
            )),
            not_found,
        ),
        case(
            "cancel: another caller's task",
            s,
            as_bob(task_request("tasks/cancel", &mine, json!({}))),
            not_found,
        ),
        case(
            "get: a 4 KiB id",
            s,
            as_alice(task_request("tasks/get", &long_id, json!({}))),
            not_found,
        ),
        case(
            "get: a numeric task id",
            s,
            as_alice(
                modern("tasks/get", json!({"taskId": 7, "_meta": with_tasks()}))
                    .with("Mcp-Name", "7"),
            ),
            Expect::Rpc(200, -32602),
        ),
        case(
            "get: no task id",
            s,
            as_alice(modern("tasks/get", json!({"_meta": with_tasks()}))),
            Expect::Rpc(200, -32602),
        ),
        case(
            "get: without the extension",
            s,
            as_alice(modern("tasks/get", json!({"taskId": mine})).with("Mcp-Name", &mine)),
            Expect::Rpc(400, -32021),
        ),
        case(
            "get: an Mcp-Name naming another task",
            s,
            as_alice(task_request("tasks/get", &mine, json!({})).with("Mcp-Name", &unknown)),
            Expect::Rpc(400, -32020),
        ),
        case(
            "get: no Mcp-Name",
            s,
            as_alice(task_request("tasks/get", &mine, json!({})).without("Mcp-Name")),
            Expect::Rpc(400, -32020),
        ),
        case(
            "tasks/result is gone",
            s,
            as_alice(task_request("tasks/result", &mine, json!({})).without("Mcp-Name")),
            Expect::Rpc(404, -32601),
        ),
        case(
            "tasks/list is gone",
            s,
            as_alice(modern("tasks/list", json!({"_meta": with_tasks()}))),
            Expect::Rpc(404, -32601),
        ),
        case(
            "update: inputResponses missing",
            s,
            as_alice(task_request("tasks/update", &asking, json!({}))),
            Expect::Rpc(200, -32602),
        ),
        case(
            "update: inputResponses not an object",
            s,
            as_alice(task_request(
                "tasks/update",
                &asking,
                json!({"inputResponses": ["q"]}),
            )),
            Expect::Rpc(200, -32602),
        ),
        case(
            "update: an answer that is not an object",
            s,
            as_alice(task_request(
                "tasks/update",
                &asking,
                json!({"inputResponses": {"q": "yes"}}),
            )),
            Expect::Rpc(200, -32602),
        ),
        case(
            "update: a key never issued (ignored)",
            s,
            as_alice(task_request(
                "tasks/update",
                &asking,
                json!({"inputResponses": {"zzz": {"action": "accept"}}}),
            )),
            Expect::Ok,
        ),
        case(
            "a task over the per-caller limit",
            s,
            as_alice(modern(
                "tools/call",
                json!({"name": "slow", "arguments": {}, "_meta": with_tasks()}),
            )),
            Expect::Rpc(200, -32003),
        ),
        case(
            "twenty concurrent creations over the limit",
            s,
            Wire::Many(
                20,
                Box::new(
                    as_alice(modern(
                        "tools/call",
                        json!({"name": "slow", "arguments": {}, "_meta": with_tasks()}),
                    ))
                    .into(),
                ),
            ),
            Expect::Rpc(200, -32003),
        ),
        case(
            "a required task without the extension",
            s,
            as_bob(tool("big", json!({"bytes": 10}))),
            Expect::Rpc(400, -32021),
        ),
        case(
            "cancel: twice (idempotent)",
            s,
            as_alice(task_request("tasks/cancel", &held[2], json!({}))),
            Expect::Ok,
        ),
    ];
    run("tasks", &[s], cases).await;
    // Cancelled again: still acknowledged.
    let again = send_http(
        &http,
        s.addr,
        &as_alice(task_request("tasks/cancel", &held[2], json!({}))),
    )
    .await;
    assert_eq!(again.json()["result"]["resultType"], "complete");
    // A result over the size cap fails its task with the reason, and nothing of it.
    let big = create_task(s.addr, "big", json!({"bytes": 100_000}), Some(&bob)).await;
    let failed = loop {
        let got = send_http(
            &http,
            s.addr,
            &as_bob(task_request("tasks/get", &big, json!({}))),
        )
        .await;
        let task = got.json()["result"].clone();
        if task["status"] != "working" {
            break task;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(failed["status"], "failed");
    assert_eq!(failed["error"]["code"], -32603);
    assert!(
        failed["error"]["message"]
            .as_str()
            .unwrap()
            .contains("more than the 4096 bytes")
    );
    assert!(failed.get("result").is_none());
    assert!(
        failed.to_string().len() < 2048,
        "the failed task carries none of the result"
    );
}
