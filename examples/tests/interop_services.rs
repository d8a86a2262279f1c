//! Interoperability of the example services with the real TypeScript peers pinned in
//! `interop/`: `@modelcontextprotocol/client` 2.4.0 (`interop/client.mjs`, in `auto`,
//! `modern` and `legacy` mode), the v1 SDK client `@modelcontextprotocol/sdk` 1.32.2, and
//! `interop/url_flow.mjs` (the v2 client pinned to 2026-07-28, opening URL elicitations like
//! a browser would).
//!
//! - weather: generated input/output schemas (with `x-mcp-header`), the `Mcp-Param-Region`
//!   header the client derives (base64-wrapped for a non-ASCII value), 1.x shapes on the
//!   legacy era, tool errors vs binding errors;
//! - shopping cart (stateful, legacy-only): sessions kept across calls, the auto client's
//!   fallback, parallel peers kept apart;
//! - table booking: form elicitation, re-asked rounds, decline and cancel, on the modern era
//!   (`input_required`) and on stateful legacy sessions (pushed `elicitation/create`);
//! - calendar: URL elicitation with an out-of-band connect page that completes for the
//!   right user only.
//!
//! Every service is served in-process behind a recorder of the HTTP exchanges, so the tests
//! also check what travelled on the wire (headers, session ids, answers to pushed requests).
//! Needs `npm ci` in `interop/`.

mod interop_support;

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::middleware::{self, Next};
use axum::response::Response;
use http::{HeaderMap, Method, StatusCode};
use interop_support::{
    Events, LATEST_LEGACY, MODERN, PEER_TIMEOUT, Peer, ProcessOutput, interop_dir, node, run,
    run_peer,
};
use mcp_examples::calendar_connect::{self, Calendar};
use mcp_examples::shopping_cart::ShoppingCart;
use mcp_examples::table_booking::Restaurant;
use mcp_examples::weather::WeatherService;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

static SCRIPTS: AtomicUsize = AtomicUsize::new(0);

/// A steps file in the temporary directory, removed when dropped.
struct Script(PathBuf);

impl Script {
    fn new(steps: &Value) -> Self {
        let path = std::env::temp_dir().join(format!(
            "mcp-interop-services-{}-{}.json",
            std::process::id(),
            SCRIPTS.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::write(&path, steps.to_string()).expect("write the steps file");
        Self(path)
    }
}

impl Drop for Script {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Runs `interop/client.mjs` against `url` with `steps`; asserts that it exited 0 and that
/// every scripted expectation held.
async fn run_client(url: &str, peer: Peer, steps: &Value) -> Events {
    let script = Script::new(steps);
    let events = run_peer(url, peer, &script.0).await;
    let done = events.one("done");
    assert_eq!(
        done["steps"],
        steps["steps"].as_array().map_or(0, Vec::len),
        "{}",
        events.report
    );
    events
}

/// Runs `interop/url_flow.mjs` against `url` with `args`; the caller judges the exit status.
async fn run_url_flow(url: &str, args: &[&str]) -> (ProcessOutput, Events) {
    let mut all = vec!["url_flow.mjs", url, "--timeout", "20000"];
    all.extend_from_slice(args);
    let output = run(&node(), &all, &interop_dir(), PEER_TIMEOUT).await;
    let events = Events::parse(&output);
    assert!(
        output.status.is_some(),
        "url_flow.mjs was killed at the deadline\n{}",
        events.report
    );
    (output, events)
}

fn assert_connected(events: &Events, peer: Peer, era: &str, name: &str, instructions: &str) {
    let connected = events.one("connected");
    let version = if era == "modern" {
        MODERN
    } else {
        LATEST_LEGACY
    };
    assert_eq!(connected["sdk"], peer.sdk(), "{}", events.report);
    assert_eq!(connected["era"], era, "{}", events.report);
    assert_eq!(connected["protocolVersion"], version, "{}", events.report);
    assert_eq!(
        connected["serverInfo"],
        json!({"name": name, "version": "1.0.0"}),
        "{}",
        events.report
    );
    assert_eq!(
        connected["capabilities"],
        json!({"tools": {"listChanged": false}, "logging": {}}),
        "{}",
        events.report
    );
    assert_eq!(connected["instructions"], instructions, "{}", events.report);
}

/// The scripted call `step` returned `content` (one text block), `structured` and `is_error`.
fn assert_result(events: &Events, step: usize, text: &str, structured: Value, is_error: bool) {
    let got = events.step(step);
    assert_eq!(got["event"], "step", "step {step}\n{}", events.report);
    assert_eq!(
        got["content"],
        json!([{"type": "text", "text": text}]),
        "step {step}\n{}",
        events.report
    );
    assert_eq!(
        got["structuredContent"], structured,
        "step {step}\n{}",
        events.report
    );
    assert_eq!(got["isError"], is_error, "step {step}\n{}", events.report);
}

/// The scripted call `step` failed with the JSON-RPC error `code` / `message`.
fn assert_rpc_error(events: &Events, peer: Peer, step: usize, code: i64, message: &str) {
    let got = events.step(step);
    assert_eq!(got["event"], "error", "step {step}\n{}", events.report);
    assert_eq!(got["expected"], true, "step {step}\n{}", events.report);
    assert_eq!(got["code"], code, "step {step}\n{}", events.report);
    assert_eq!(
        got["message"],
        peer.error_message(code, message),
        "step {step}\n{}",
        events.report
    );
}

// ---------------------------------------------------------------------------------------
// An in-process server behind a recorder of HTTP exchanges
// ---------------------------------------------------------------------------------------

/// One HTTP exchange as the server saw it.
#[derive(Clone, Debug)]
struct Exchange {
    method: Method,
    uri: String,
    headers: HeaderMap,
    /// The request body as JSON (`Null` when empty or not JSON).
    body: Value,
    /// `None` while the handler runs.
    status: Option<StatusCode>,
    response_headers: HeaderMap,
}

impl Exchange {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    fn response_header(&self, name: &str) -> Option<&str> {
        self.response_headers
            .get(name)
            .and_then(|v| v.to_str().ok())
    }

    /// The JSON-RPC method of the request body.
    fn rpc_method(&self) -> Option<&str> {
        self.body["method"].as_str()
    }

    fn is_tool_call(&self, tool: &str) -> bool {
        self.rpc_method() == Some("tools/call") && self.body["params"]["name"] == tool
    }

    /// A POST carrying the client's JSON-RPC response to a request the server pushed.
    fn is_client_response(&self) -> bool {
        self.method == Method::POST
            && self.body.get("method").is_none()
            && self.body.get("id").is_some()
            && (self.body.get("result").is_some() || self.body.get("error").is_some())
    }
}

type Log = Arc<Mutex<Vec<Exchange>>>;

fn lock(log: &Log) -> MutexGuard<'_, Vec<Exchange>> {
    log.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

async fn record(State(log): State<Log>, request: Request, next: Next) -> Response {
    let (parts, body) = request.into_parts();
    let bytes = axum::body::to_bytes(body, 16 << 20)
        .await
        .expect("the recorder reads the request body");
    let index = {
        let mut log = lock(&log);
        log.push(Exchange {
            method: parts.method.clone(),
            uri: parts.uri.to_string(),
            headers: parts.headers.clone(),
            body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
            status: None,
            response_headers: HeaderMap::new(),
        });
        log.len() - 1
    };
    let response = next
        .run(Request::from_parts(parts, Body::from(bytes)))
        .await;
    let mut log = lock(&log);
    log[index].status = Some(response.status());
    log[index].response_headers = response.headers().clone();
    response
}

/// An app served in-process by `mcp::HttpServer` on `127.0.0.1:<free port>`, every exchange
/// recorded.
struct AppServer {
    addr: SocketAddr,
    /// `http://<addr>/mcp`.
    url: String,
    log: Log,
    shutdown: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<Result<(), mcp::Error>>>,
}

impl AppServer {
    /// Binds a loopback port and serves the router `make(addr)` builds (its MCP streams
    /// close when the server shuts down).
    async fn start(make: impl FnOnce(SocketAddr) -> Router) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("local address");
        let app = make(addr);
        let log = Log::default();
        let app = app.layer(middleware::from_fn_with_state(log.clone(), record));
        let (tx, rx) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            mcp::HttpServer::from_tcp(listener)
                .serve(app.into_make_service())
                .with_graceful_shutdown(async move {
                    let _ = rx.await;
                })
                .await
        });
        Self {
            addr,
            url: format!("http://{addr}/mcp"),
            log,
            shutdown: Some(tx),
            task: Some(task),
        }
    }

    /// Serves `builder`'s service at `/mcp`.
    async fn service(builder: mcp::ServerBuilder) -> Self {
        Self::start(move |_| {
            let server = builder.build().expect("a valid service configuration");
            mcp::transport::http::router("/mcp", server)
        })
        .await
    }

    /// The exchanges so far, in arrival order.
    fn exchanges(&self) -> Vec<Exchange> {
        lock(&self.log).clone()
    }

    /// The exchanges as a readable list, for failure messages.
    fn wire_report(&self) -> String {
        self.exchanges()
            .iter()
            .map(|e| {
                format!(
                    "{} {} -> {:?} {:?} session={:?} {}",
                    e.method,
                    e.uri,
                    e.status,
                    e.response_header("content-type"),
                    e.header("mcp-session-id"),
                    e.body
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Signals shutdown and asserts that the server stops cleanly within 10 seconds.
    async fn stop(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        let task = self.task.take().expect("the server task");
        match tokio::time::timeout(Duration::from_secs(10), task).await {
            Ok(Ok(Ok(()))) => {}
            Ok(Ok(Err(e))) => panic!("the server failed: {e}"),
            Ok(Err(e)) => panic!("the server task panicked: {e}"),
            Err(_) => panic!("the server did not shut down within 10 s"),
        }
    }
}

impl Drop for AppServer {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}

/// `GET path` on `addr` as a browser signed in as `user` would send it: `(status, body)`.
async fn browser_get(addr: SocketAddr, path: &str, user: &str) -> (u16, String) {
    let exchange = async {
        let mut stream = tokio::net::TcpStream::connect(addr).await?;
        let request = format!(
            "GET {path} HTTP/1.1\r\nHost: {addr}\r\nx-user: {user}\r\nConnection: close\r\n\r\n"
        );
        stream.write_all(request.as_bytes()).await?;
        let mut response = Vec::new();
        stream.read_to_end(&mut response).await?;
        Ok::<_, std::io::Error>(String::from_utf8_lossy(&response).into_owned())
    };
    let response = tokio::time::timeout(Duration::from_secs(10), exchange)
        .await
        .expect("the page answered within 10 s")
        .expect("GET the page");
    let (head, body) = response
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("not an HTTP response: {response:?}"));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line: {head:?}"));
    (status, body.to_owned())
}

// ---------------------------------------------------------------------------------------
// weather: generated schemas, a header argument, structured output per era
// ---------------------------------------------------------------------------------------

const SCHEMA_DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

fn weather_output_schema() -> Value {
    json!({
        "$schema": SCHEMA_DIALECT,
        "title": "Weather",
        "description": "Current conditions.",
        "type": "object",
        "properties": {
            "location": {"description": "Where.", "type": "string"},
            "temperature": {"description": "Degrees Celsius.", "type": "number"},
            "condition": {"description": "Sky conditions.", "type": "string"}
        },
        "required": ["location", "temperature", "condition"]
    })
}

/// `(name, description, inputSchema, outputSchema on the modern era)` of the weather tools.
fn weather_tools() -> Vec<(&'static str, &'static str, Value, Value)> {
    let input = |properties: Value, required: Value| {
        json!({
            "$schema": SCHEMA_DIALECT,
            "type": "object",
            "additionalProperties": false,
            "properties": properties,
            "required": required
        })
    };
    vec![
        (
            "get_current_weather",
            "Get current weather conditions for a location.",
            input(
                json!({"city": {"description": "The city to report on", "type": "string"}}),
                json!(["city"]),
            ),
            weather_output_schema(),
        ),
        (
            "get_weather_forecast",
            "Get a weather forecast for multiple days.",
            input(
                json!({
                    "location": {
                        "description": "The location for which to retrieve the weather forecast",
                        "type": "string"
                    },
                    "days": {
                        "description": "Number of days to include in the forecast (1 to 7)",
                        "type": "integer", "minimum": 0, "maximum": 255
                    }
                }),
                json!(["location", "days"]),
            ),
            json!({
                "$schema": SCHEMA_DIALECT,
                "title": "WeatherForecast",
                "description": "A multi-day forecast.",
                "type": "object",
                "properties": {
                    "location": {"description": "Where.", "type": "string"},
                    "days": {
                        "description": "The days, in order.",
                        "type": "array",
                        "items": {"$ref": "#/$defs/DayForecast"}
                    }
                },
                "required": ["location", "days"],
                "$defs": {"DayForecast": {
                    "description": "One day of a forecast.",
                    "type": "object",
                    "properties": {
                        "day": {"description": "Day number, 1 = tomorrow.", "type": "integer",
                                "minimum": 0, "maximum": 255},
                        "high": {"description": "Highest temperature, Celsius.", "type": "number"},
                        "low": {"description": "Lowest temperature, Celsius.", "type": "number"},
                        "condition": {"description": "Sky conditions.", "type": "string"}
                    },
                    "required": ["day", "high", "low", "condition"]
                }}
            }),
        ),
        (
            "regional_weather",
            "Current weather of a city in a region. The region travels in the \
             `Mcp-Param-Region` header too, so gateways can route on it.",
            input(
                json!({
                    "region": {
                        "description": "The region, such as `eu-west`",
                        "type": "string",
                        "x-mcp-header": "Region"
                    },
                    "city": {"description": "The city", "type": "string"}
                }),
                json!(["region", "city"]),
            ),
            weather_output_schema(),
        ),
    ]
}

const SAO_PAULO: &str = "São Paulo";
/// `Mcp-Param-Region` for "São Paulo": `=?base64?` + standard base64 of the UTF-8 bytes.
const SAO_PAULO_HEADER: &str = "=?base64?U8OjbyBQYXVsbw==?=";

fn weather_steps() -> Value {
    json!({"steps": [
        {"tool": "regional_weather", "arguments": {"region": SAO_PAULO, "city": "Centro"}},
        {"tool": "regional_weather", "arguments": {"region": "eu-west", "city": "Dublin"}},
        {"tool": "get_current_weather", "arguments": {"city": "Lisbon"}},
        {"tool": "get_weather_forecast", "arguments": {"location": "Oslo", "days": 2}},
        {"tool": "get_current_weather", "arguments": {"city": " "}},
        {"tool": "get_weather_forecast", "arguments": {"location": "Oslo", "days": 9}},
        {"tool": "get_weather_forecast", "arguments": {"location": "Oslo", "days": "three"},
         "expectError": -32602}
    ]})
}

async fn weather(peer: Peer) {
    let server = AppServer::service(mcp::Server::builder(WeatherService)).await;
    let events = run_client(&server.url, peer, &weather_steps()).await;
    let wire = server.wire_report();
    let exchanges = server.exchanges();
    server.stop().await;
    let modern = matches!(peer, Peer::Modern | Peer::Auto);
    assert_connected(
        &events,
        peer,
        if modern { "modern" } else { "legacy" },
        "weather",
        "Weather conditions and forecasts for any city.",
    );

    // The generated schemas. A legacy (1.x-shaped) listing carries no outputSchema.
    let page = events.one("tools_page");
    assert_eq!(
        page["names"],
        json!([
            "get_current_weather",
            "get_weather_forecast",
            "regional_weather"
        ]),
        "{}",
        events.report
    );
    assert_eq!(page["nextCursor"], Value::Null, "{}", events.report);
    let tools = events.of("tool");
    let expected = weather_tools();
    assert_eq!(tools.len(), expected.len(), "{}", events.report);
    for (tool, (name, description, input, output)) in tools.iter().zip(expected) {
        assert_eq!(tool["name"], name, "{}", events.report);
        assert_eq!(tool["description"], description, "{}", events.report);
        assert_eq!(tool["inputSchema"], input, "{name}\n{}", events.report);
        let output = if modern { output } else { Value::Null };
        assert_eq!(tool["outputSchema"], output, "{name}\n{}", events.report);
    }
    assert_eq!(
        tools[2]["inputSchema"]["properties"]["region"]["x-mcp-header"], "Region",
        "{}",
        events.report
    );

    // Results: structured content on the modern era only; the text is the same JSON. The
    // expected value goes through the same JSON parser as the peer's output (serde_json's
    // default float parsing is not round-trip exact, e.g. for 20.099999999999998).
    let structured = |value: &Value| {
        if modern {
            serde_json::from_str(&value.to_string()).expect("JSON")
        } else {
            Value::Null
        }
    };
    let weather = |location: &str, temperature: f64, condition: &str| json!({"location": location, "temperature": temperature, "condition": condition});
    let sao_paulo = weather("São Paulo/Centro", 18.8, "Rainy");
    let dublin = weather("eu-west/Dublin", 5.2, "Cloudy");
    let lisbon = weather("Lisbon", 27.6, "Sunny");
    let oslo = json!({"location": "Oslo", "days": [
        {"day": 1, "high": 23.2, "low": 17.099999999999998, "condition": "Rainy"},
        {"day": 2, "high": 20.099999999999998, "low": 15.399999999999999, "condition": "Cloudy"}
    ]});
    for (step, value) in [(0, &sao_paulo), (1, &dublin), (2, &lisbon), (3, &oslo)] {
        assert_result(&events, step, &value.to_string(), structured(value), false);
    }
    // A tool error is a result with isError; a binding error is a JSON-RPC error.
    assert_result(&events, 4, "The city name is empty", Value::Null, true);
    assert_result(
        &events,
        5,
        "days must be between 1 and 7, not 9",
        Value::Null,
        true,
    );
    assert_rpc_error(
        &events,
        peer,
        6,
        -32602,
        "Invalid argument `days`: invalid type: string \"three\", expected u8",
    );

    // On the wire: the modern client mirrored `region` into Mcp-Param-Region (base64 for
    // the non-ASCII value, raw for the plain one) and the server accepted both calls; the
    // legacy clients send no such header.
    let calls: Vec<_> = exchanges
        .iter()
        .filter(|e| e.rpc_method() == Some("tools/call"))
        .collect();
    assert_eq!(calls.len(), 7, "{wire}");
    let regional: Vec<_> = calls
        .iter()
        .filter(|e| e.is_tool_call("regional_weather"))
        .collect();
    assert_eq!(regional.len(), 2, "{wire}");
    for call in &calls {
        assert_eq!(call.status, Some(StatusCode::OK), "{wire}");
        if !(modern && call.is_tool_call("regional_weather")) {
            assert_eq!(call.header("mcp-param-region"), None, "{wire}");
        }
    }
    if modern {
        assert_eq!(
            regional[0].header("mcp-param-region"),
            Some(SAO_PAULO_HEADER),
            "{wire}"
        );
        assert_eq!(regional[0].body["params"]["arguments"]["region"], SAO_PAULO);
        assert_eq!(
            regional[1].header("mcp-param-region"),
            Some("eu-west"),
            "{wire}"
        );
        for call in &regional {
            assert_eq!(call.header("mcp-method"), Some("tools/call"), "{wire}");
            assert_eq!(call.header("mcp-name"), Some("regional_weather"), "{wire}");
            assert_eq!(call.header("mcp-protocol-version"), Some(MODERN), "{wire}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn weather_with_v2_client_modern() {
    weather(Peer::Modern).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn weather_with_v2_client_auto() {
    weather(Peer::Auto).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn weather_with_v2_client_legacy() {
    weather(Peer::Legacy).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn weather_with_v1_client() {
    weather(Peer::V1).await;
}

// ---------------------------------------------------------------------------------------
// shopping cart: a stateful, legacy-only service
// ---------------------------------------------------------------------------------------

fn cart(items: &[(&str, u32)]) -> Value {
    let lines: Vec<_> = items
        .iter()
        .map(|(name, quantity)| json!({"name": name, "quantity": quantity}))
        .collect();
    let total: u32 = items.iter().map(|(_, q)| q).sum();
    json!({"items": lines, "total_quantity": total})
}

/// Add `a`, add two of `b`, list, remove a product not in the cart, remove `a`, list.
fn cart_steps(a: &str, b: &str) -> Value {
    json!({"steps": [
        {"tool": "add_item", "arguments": {"name": a}},
        {"tool": "add_item", "arguments": {"name": b, "quantity": 2}},
        {"tool": "list_items"},
        {"tool": "remove_item", "arguments": {"name": "kiwi"}},
        {"tool": "remove_item", "arguments": {"name": a}},
        {"tool": "list_items"}
    ]})
}

fn assert_cart_run(events: &Events, peer: Peer, a: &str, b: &str) {
    assert_connected(
        events,
        peer,
        "legacy",
        "shopping-cart",
        "A shopping cart per session: add, remove and list items.",
    );
    assert_eq!(
        events.one("tools_page")["names"],
        json!(["add_item", "remove_item", "list_items", "clear_cart"]),
        "{}",
        events.report
    );
    let both = cart(&[(a, 1), (b, 2)]).to_string();
    assert_result(events, 0, &cart(&[(a, 1)]).to_string(), Value::Null, false);
    assert_result(events, 1, &both, Value::Null, false);
    // The session kept the cart between calls.
    assert_result(events, 2, &both, Value::Null, false);
    assert_result(events, 3, "kiwi is not in the cart", Value::Null, true);
    let only_b = cart(&[(b, 2)]).to_string();
    assert_result(events, 4, &only_b, Value::Null, false);
    assert_result(events, 5, &only_b, Value::Null, false);
}

/// The session the server issued in its `initialize` response of `exchanges`, and that every
/// later request of the client carried it; ends with the client's `DELETE`.
fn assert_one_session(exchanges: &[&Exchange], peer: Peer, wire: &str) -> String {
    let first = exchanges
        .iter()
        .position(|e| e.rpc_method() == Some("initialize"))
        .unwrap_or_else(|| panic!("no initialize\n{wire}"));
    let initialize = exchanges[first];
    assert_eq!(initialize.status, Some(StatusCode::OK), "{wire}");
    assert_eq!(initialize.header("mcp-session-id"), None, "{wire}");
    let session = initialize
        .response_header("mcp-session-id")
        .unwrap_or_else(|| panic!("initialize issued no Mcp-Session-Id\n{wire}"))
        .to_owned();
    assert!(!session.is_empty(), "{wire}");
    let later = &exchanges[first + 1..];
    assert!(
        later.len() >= 8,
        "initialized, tools/list, six calls, DELETE\n{wire}"
    );
    for exchange in later {
        assert_eq!(
            exchange.header("mcp-session-id"),
            Some(session.as_str()),
            "{peer:?} left its session\n{wire}"
        );
        assert!(
            exchange.status.is_some_and(|s| s.is_success()),
            "{peer:?}: {exchange:?}\n{wire}"
        );
    }
    assert_eq!(
        later
            .iter()
            .filter(|e| e.rpc_method() == Some("tools/call"))
            .count(),
        6,
        "{wire}"
    );
    let last = later.last().expect("a last exchange");
    assert_eq!(
        last.method,
        Method::DELETE,
        "the client ends its session\n{wire}"
    );
    session
}

async fn shopping_cart(peer: Peer) {
    let server = AppServer::service(mcp::Server::builder(ShoppingCart)).await;
    let events = run_client(&server.url, peer, &cart_steps("apple", "pear")).await;
    let wire = server.wire_report();
    let exchanges = server.exchanges();
    server.stop().await;
    assert_cart_run(&events, peer, "apple", "pear");
    let all: Vec<_> = exchanges.iter().collect();
    assert_one_session(&all, peer, &wire);
    if peer == Peer::Auto {
        // The auto client probed first, was told the modern era is not served (400 with a
        // JSON-RPC -32000, as a TypeScript legacy-only server answers), and fell back to
        // initialize.
        assert_eq!(all[0].rpc_method(), Some("server/discover"), "{wire}");
        assert_eq!(all[0].status, Some(StatusCode::BAD_REQUEST), "{wire}");
        assert_eq!(all[1].rpc_method(), Some("initialize"), "{wire}");
    } else {
        assert_eq!(all[0].rpc_method(), Some("initialize"), "{wire}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shopping_cart_with_v2_client_legacy() {
    shopping_cart(Peer::Legacy).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shopping_cart_with_v1_client() {
    shopping_cart(Peer::V1).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shopping_cart_with_v2_client_auto_falls_back_to_legacy() {
    shopping_cart(Peer::Auto).await;
}

/// Three peers at once on one server, each with its own products: three sessions, and
/// every cart holds its own client's items only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shopping_cart_sessions_of_parallel_peers_stay_apart() {
    let server = AppServer::service(mcp::Server::builder(ShoppingCart)).await;
    let runs = [
        (Peer::Legacy, "apple", "pear"),
        (Peer::V1, "plum", "fig"),
        (Peer::Auto, "lime", "mango"),
    ];
    let steps: Vec<_> = runs.iter().map(|(_, a, b)| cart_steps(a, b)).collect();
    let (first, second, third) = tokio::join!(
        run_client(&server.url, runs[0].0, &steps[0]),
        run_client(&server.url, runs[1].0, &steps[1]),
        run_client(&server.url, runs[2].0, &steps[2]),
    );
    let wire = server.wire_report();
    let exchanges = server.exchanges();
    server.stop().await;
    for (events, (peer, a, b)) in [first, second, third].iter().zip(runs) {
        assert_cart_run(events, peer, a, b);
    }
    // Group the exchanges by session: each session's calls name one client's products.
    let sessions: BTreeSet<_> = exchanges
        .iter()
        .filter(|e| e.rpc_method() == Some("initialize"))
        .filter_map(|e| e.response_header("mcp-session-id"))
        .collect();
    assert_eq!(sessions.len(), 3, "{wire}");
    for session in sessions {
        let mine: Vec<_> = exchanges
            .iter()
            .filter(|e| e.header("mcp-session-id") == Some(session))
            .collect();
        let names: BTreeSet<_> = mine
            .iter()
            .filter(|e| e.is_tool_call("add_item"))
            .filter_map(|e| e.body["params"]["arguments"]["name"].as_str())
            .collect();
        assert!(
            runs.iter()
                .any(|(_, a, b)| names == BTreeSet::from([*a, *b])),
            "session {session} added {names:?}\n{wire}"
        );
    }
}

// ---------------------------------------------------------------------------------------
// table booking: forms on the modern era and on stateful legacy sessions
// ---------------------------------------------------------------------------------------

fn booking_form() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "Who the table is for"},
            "guests": {"type": "integer", "description": "How many people are coming"},
            "seating": {"type": "string", "description": "Where to sit", "oneOf": [
                {"const": "indoor", "title": "Indoors"}, {"const": "patio", "title": "On the patio"}]},
            "notes": {"type": "string", "description": "Anything the kitchen should know"}
        },
        "required": ["name", "guests", "seating"]
    })
}

fn confirm_form() -> Value {
    json!({
        "type": "object",
        "properties": {"confirmed": {"type": "boolean", "description": "Confirm the cancellation"}},
        "required": ["confirmed"]
    })
}

/// `(step, tool, arguments, answers)`; every answer is one elicitation round.
fn booking_script() -> Vec<(&'static str, Value, Vec<Value>)> {
    let accept = |content: Value| json!({"action": "accept", "content": content});
    vec![
        (
            "book_table",
            json!({}),
            vec![accept(
                json!({"name": "Ada", "guests": 3, "seating": "patio", "notes": "by the window"}),
            )],
        ),
        // 40 guests is outside 1..=20: the server asks again, the second answer books.
        (
            "book_table",
            json!({}),
            vec![
                accept(json!({"name": "Bob", "guests": 40, "seating": "indoor"})),
                accept(json!({"name": "Bob", "guests": 2, "seating": "indoor"})),
            ],
        ),
        ("book_table", json!({}), vec![json!({"action": "decline"})]),
        ("book_table", json!({}), vec![json!({"action": "cancel"})]),
        (
            "cancel_booking",
            json!({"name": "Ada"}),
            vec![accept(json!({"confirmed": false}))],
        ),
        (
            "cancel_booking",
            json!({"name": "Ada"}),
            vec![accept(json!({"confirmed": true}))],
        ),
        // Nothing to cancel any more: a tool error before any question.
        ("cancel_booking", json!({"name": "Ada"}), vec![]),
        (
            "cancel_booking",
            json!({"name": "Bob"}),
            vec![json!({"action": "decline"})],
        ),
        ("list_bookings", json!({}), vec![]),
    ]
}

fn booking_steps() -> Value {
    let steps: Vec<_> = booking_script()
        .into_iter()
        .map(|(tool, arguments, answers)| {
            let mut step = json!({"tool": tool, "arguments": arguments});
            if !answers.is_empty() {
                step["elicit"] = Value::Array(answers);
            }
            step
        })
        .collect();
    json!({"steps": steps})
}

async fn table_booking(peer: Peer) {
    let server = AppServer::service(mcp::Server::builder(Restaurant::default())).await;
    let events = run_client(&server.url, peer, &booking_steps()).await;
    let wire = server.wire_report();
    let exchanges = server.exchanges();
    server.stop().await;
    let modern = peer == Peer::Modern;
    assert_connected(
        &events,
        peer,
        if modern { "modern" } else { "legacy" },
        "restaurant",
        "Table bookings.",
    );
    assert_eq!(
        events.one("tools_page")["names"],
        json!(["book_table", "cancel_booking", "list_bookings"]),
        "{}",
        events.report
    );

    // The questions asked, step by step, and the answers the client gave.
    let script = booking_script();
    let messages: [&[&str]; 9] = [
        &["Book a table"],
        &["Book a table", "Tables seat 1 to 20 guests. Book a table"],
        &["Book a table"],
        &["Book a table"],
        &["Cancel the booking for Ada?"],
        &["Cancel the booking for Ada?"],
        &[],
        &["Cancel the booking for Bob?"],
        &[],
    ];
    for (step, ((tool, _, answers), messages)) in script.iter().zip(messages).enumerate() {
        let asked = events.elicitations(step);
        assert_eq!(
            asked.len(),
            messages.len(),
            "step {step}\n{}",
            events.report
        );
        for ((ask, message), answer) in asked.iter().zip(messages).zip(answers) {
            assert_eq!(ask["mode"], "form", "step {step}\n{}", events.report);
            assert_eq!(ask["message"], *message, "step {step}\n{}", events.report);
            let form = if *tool == "book_table" {
                booking_form()
            } else {
                confirm_form()
            };
            assert_eq!(
                ask["requestedSchema"], form,
                "step {step}\n{}",
                events.report
            );
            assert_eq!(ask["answer"], *answer, "step {step}\n{}", events.report);
        }
    }

    // The outcomes. A string result is structured content of its own on the modern era.
    let text_result = |step: usize, text: &str| {
        let structured = if modern { json!(text) } else { Value::Null };
        assert_result(&events, step, text, structured, false);
    };
    text_result(0, "Booked a table for Ada (3 guests, patio)");
    text_result(1, "Booked a table for Bob (2 guests, indoor)");
    text_result(2, "No table was booked");
    text_result(3, "No table was booked");
    text_result(4, "Kept the booking for Ada");
    text_result(5, "Cancelled the booking for Ada");
    assert_result(&events, 6, "There is no booking for Ada", Value::Null, true);
    text_result(7, "Kept the booking for Bob");
    let bookings = json!([{"name": "Bob", "guests": 2, "seating": "indoor", "notes": null}]);
    let structured = if modern {
        bookings.clone()
    } else {
        Value::Null
    };
    assert_result(&events, 8, &bookings.to_string(), structured, false);

    // On the wire.
    let answers: Vec<&Value> = script.iter().flat_map(|(_, _, a)| a).collect();
    assert_eq!(answers.len(), 8);
    let calls: Vec<_> = exchanges
        .iter()
        .filter(|e| e.rpc_method() == Some("tools/call"))
        .collect();
    for exchange in &exchanges {
        assert!(
            exchange.status.is_some_and(|s| s.is_success()),
            "{exchange:?}\n{wire}"
        );
    }
    if modern {
        // Sessionless: each answer is a new tools/call carrying inputResponses.
        assert!(
            exchanges
                .iter()
                .all(|e| e.response_header("mcp-session-id").is_none()),
            "{wire}"
        );
        assert_eq!(calls.len(), 9 + 8, "{wire}");
        let retries: Vec<_> = calls
            .iter()
            .filter(|e| e.body["params"].get("inputResponses").is_some())
            .collect();
        assert_eq!(retries.len(), 8, "{wire}");
        for (retry, answer) in retries.iter().zip(&answers) {
            let responses = &retry.body["params"]["inputResponses"];
            let key = if retry.is_tool_call("book_table") {
                "booking"
            } else {
                "confirm"
            };
            assert_eq!(responses[key], **answer, "{wire}");
        }
    } else {
        // One tools/call per step; every question was pushed as `elicitation/create` on
        // the call's SSE response and answered with a POST of the client's response.
        assert_eq!(calls.len(), 9, "{wire}");
        let session = exchanges
            .iter()
            .find(|e| e.rpc_method() == Some("initialize"))
            .and_then(|e| e.response_header("mcp-session-id"))
            .unwrap_or_else(|| panic!("no session\n{wire}"));
        for (step, call) in calls.iter().enumerate() {
            assert_eq!(call.header("mcp-session-id"), Some(session), "{wire}");
            if !messages[step].is_empty() {
                assert!(
                    call.response_header("content-type")
                        .is_some_and(|t| t.starts_with("text/event-stream")),
                    "step {step}\n{wire}"
                );
            }
        }
        let replies: Vec<_> = exchanges
            .iter()
            .filter(|e| e.is_client_response())
            .collect();
        assert_eq!(replies.len(), 8, "{wire}");
        for (reply, answer) in replies.iter().zip(&answers) {
            assert_eq!(reply.header("mcp-session-id"), Some(session), "{wire}");
            assert_eq!(reply.body["result"], **answer, "{wire}");
            assert_eq!(reply.status, Some(StatusCode::ACCEPTED), "{wire}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn table_booking_with_v2_client_modern() {
    table_booking(Peer::Modern).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn table_booking_with_v2_client_legacy_session() {
    table_booking(Peer::Legacy).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn table_booking_with_v1_client_legacy_session() {
    table_booking(Peer::V1).await;
}

// ---------------------------------------------------------------------------------------
// calendar: URL elicitation with an out-of-band connect page
// ---------------------------------------------------------------------------------------

const CONNECTED_PAGE: &str = "Your calendar is connected. You can return to your assistant.";
const OTHER_USER_PAGE: &str = "This link was issued to another user.";

async fn calendar_server() -> AppServer {
    AppServer::start(|addr| {
        calendar_connect::app(Calendar::default(), addr).expect("the calendar app")
    })
    .await
}

/// The connect link of an elicitation event: `http://<addr>/connect?id=<32 hex digits>`.
fn assert_connect_link(ask: &Value, server: &AppServer, report: &str) -> String {
    assert_eq!(ask["mode"], "url", "{report}");
    assert_eq!(ask["message"], "Connect your calendar", "{report}");
    // 2026-07-28 URL elicitations carry no elicitationId.
    assert_eq!(ask.get("elicitationId"), None, "{report}");
    let url = ask["url"].as_str().expect("a URL");
    let prefix = format!("http://{}/connect?id=", server.addr);
    let id = url
        .strip_prefix(&prefix)
        .unwrap_or_else(|| panic!("{url} is not this server's connect page\n{report}"));
    assert_eq!(id.len(), 32, "{report}");
    assert!(id.bytes().all(|b| b.is_ascii_hexdigit()), "{report}");
    url.to_owned()
}

fn assert_events_of(events: &Events, user: &str) {
    let result = events.one("result");
    let list = json!([format!("09:00 Stand-up ({user})"), "12:30 Lunch"]);
    assert_eq!(
        result["content"],
        json!([{"type": "text", "text": list.to_string()}]),
        "{}",
        events.report
    );
    assert_eq!(result["structuredContent"], list, "{}", events.report);
    assert_eq!(result["isError"], false, "{}", events.report);
}

fn assert_modern_calendar(events: &Events) {
    let connected = events.one("connected");
    assert_eq!(connected["era"], "modern", "{}", events.report);
    assert_eq!(connected["protocolVersion"], MODERN, "{}", events.report);
    assert_eq!(
        connected["serverInfo"],
        json!({"name": "calendar", "version": "1.0.0"}),
        "{}",
        events.report
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calendar_url_elicitation_completes_for_the_user() {
    let server = calendar_server().await;
    let (output, events) = run_url_flow(&server.url, &["--user", "alice"]).await;
    assert!(output.success(), "{}", events.report);
    assert_modern_calendar(&events);
    let asked = events.of("elicitation");
    assert_eq!(asked.len(), 1, "{}", events.report);
    let url = assert_connect_link(asked[0], &server, &events.report);
    assert_eq!(
        asked[0]["opened"],
        json!({"as": "alice", "status": 200, "body": CONNECTED_PAGE}),
        "{}",
        events.report
    );
    assert_eq!(asked[0]["answer"], json!({"action": "accept"}));
    assert_events_of(&events, "alice");
    assert_eq!(events.one("done")["exitCode"], 0, "{}", events.report);

    // The wire: X-User on every MCP request; the retry echoed the signed request state
    // and answered the `connect` request; the page was opened once, as alice.
    let wire = server.wire_report();
    let exchanges = server.exchanges();
    let calls: Vec<_> = exchanges
        .iter()
        .filter(|e| e.is_tool_call("list_events"))
        .collect();
    assert_eq!(calls.len(), 2, "{wire}");
    assert!(
        calls[0].body["params"].get("requestState").is_none(),
        "{wire}"
    );
    assert!(
        calls[1].body["params"]["requestState"]
            .as_str()
            .is_some_and(|s| s.starts_with("v1.")),
        "{wire}"
    );
    assert_eq!(
        calls[1].body["params"]["inputResponses"],
        json!({"connect": {"action": "accept"}}),
        "{wire}"
    );
    for exchange in exchanges.iter().filter(|e| e.uri.starts_with("/mcp")) {
        assert_eq!(exchange.header("x-user"), Some("alice"), "{wire}");
    }
    let pages: Vec<_> = exchanges
        .iter()
        .filter(|e| e.uri.starts_with("/connect"))
        .collect();
    assert_eq!(pages.len(), 1, "{wire}");
    assert_eq!(url, format!("http://{}{}", server.addr, pages[0].uri));
    assert_eq!(pages[0].status, Some(StatusCode::OK), "{wire}");

    // Connected for good: the next call needs no elicitation.
    let (output, again) = run_url_flow(&server.url, &["--user", "alice"]).await;
    assert!(output.success(), "{}", again.report);
    assert!(again.of("elicitation").is_empty(), "{}", again.report);
    assert_events_of(&again, "alice");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calendar_link_opened_by_another_user_is_refused_until_the_client_gives_up() {
    let server = calendar_server().await;
    let (output, events) = run_url_flow(
        &server.url,
        &[
            "--user",
            "alice",
            "--open-as",
            "mallory",
            "--max-rounds",
            "3",
        ],
    )
    .await;
    assert_eq!(
        output.status.and_then(|s| s.code()),
        Some(1),
        "{}",
        events.report
    );
    assert_modern_calendar(&events);
    assert!(events.of("result").is_empty(), "{}", events.report);
    // Every round: the page refuses mallory, the server asks again with the same link
    // (carried in the request state); after three rounds the client gives up.
    let asked = events.of("elicitation");
    assert_eq!(asked.len(), 3, "{}", events.report);
    let url = assert_connect_link(asked[0], &server, &events.report);
    for (round, ask) in asked.iter().enumerate() {
        assert_eq!(ask["round"], round + 1, "{}", events.report);
        assert_eq!(ask["url"], url.as_str(), "{}", events.report);
        assert_eq!(
            ask["opened"],
            json!({"as": "mallory", "status": 403, "body": OTHER_USER_PAGE}),
            "{}",
            events.report
        );
        assert_eq!(ask["answer"], json!({"action": "accept"}));
    }
    let error = events.one("error");
    assert_eq!(error["phase"], "tools/call", "{}", events.report);
    assert_eq!(error["name"], "SdkError", "{}", events.report);
    assert_eq!(
        error["code"], "INPUT_REQUIRED_ROUNDS_EXCEEDED",
        "{}",
        events.report
    );
    assert_eq!(
        error["message"],
        "Multi-round-trip request 'tools/call' still required input after 3 rounds \
         (inputRequired.maxRounds)",
        "{}",
        events.report
    );
    assert_eq!(error["data"]["rounds"], 3, "{}", events.report);
    assert_eq!(
        error["data"]["lastResult"]["inputRequests"]["connect"],
        json!({"method": "elicitation/create", "params": {
            "mode": "url", "message": "Connect your calendar", "url": url
        }}),
        "{}",
        events.report
    );
    assert_eq!(events.one("done")["exitCode"], 1, "{}", events.report);

    let wire = server.wire_report();
    let exchanges = server.exchanges();
    let calls: Vec<_> = exchanges
        .iter()
        .filter(|e| e.is_tool_call("list_events"))
        .collect();
    assert_eq!(
        calls.len(),
        4,
        "the first call and three answered rounds\n{wire}"
    );
    let pages: Vec<_> = exchanges
        .iter()
        .filter(|e| e.uri.starts_with("/connect"))
        .collect();
    assert_eq!(pages.len(), 3, "{wire}");
    for page in pages {
        assert_eq!(page.header("x-user"), Some("mallory"), "{wire}");
        assert_eq!(page.status, Some(StatusCode::FORBIDDEN), "{wire}");
    }

    // Mallory connected nothing: her own calendar is still unconnected (she declines) ...
    let (output, mallory) = run_url_flow(&server.url, &["--user", "mallory", "--decline"]).await;
    assert!(output.success(), "{}", mallory.report);
    assert_eq!(
        mallory.one("result")["content"],
        json!([{"type": "text", "text": "The calendar is not connected"}]),
        "{}",
        mallory.report
    );
    // ... and alice's link is still pending: opened by alice, it connects her calendar.
    let path = url
        .strip_prefix(&format!("http://{}", server.addr))
        .expect("a link to this server");
    assert_eq!(
        browser_get(server.addr, path, "alice").await,
        (200, CONNECTED_PAGE.to_owned())
    );
    let (output, alice) = run_url_flow(&server.url, &["--user", "alice"]).await;
    assert!(output.success(), "{}", alice.report);
    assert!(alice.of("elicitation").is_empty(), "{}", alice.report);
    assert_events_of(&alice, "alice");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calendar_declined_connection_is_a_tool_error() {
    let server = calendar_server().await;
    let (output, events) = run_url_flow(&server.url, &["--user", "bob", "--decline"]).await;
    assert!(output.success(), "{}", events.report);
    assert_modern_calendar(&events);
    let asked = events.of("elicitation");
    assert_eq!(asked.len(), 1, "{}", events.report);
    assert_connect_link(asked[0], &server, &events.report);
    assert_eq!(asked[0].get("opened"), None, "{}", events.report);
    assert_eq!(asked[0]["answer"], json!({"action": "decline"}));
    let result = events.one("result");
    assert_eq!(
        result["content"],
        json!([{"type": "text", "text": "The calendar is not connected"}]),
        "{}",
        events.report
    );
    assert_eq!(
        result["structuredContent"],
        Value::Null,
        "{}",
        events.report
    );
    assert_eq!(result["isError"], true, "{}", events.report);
    let wire = server.wire_report();
    assert!(
        server
            .exchanges()
            .iter()
            .all(|e| !e.uri.starts_with("/connect")),
        "a declined link is never opened\n{wire}"
    );
    let calls: Vec<_> = server
        .exchanges()
        .into_iter()
        .filter(|e| e.is_tool_call("list_events"))
        .collect();
    assert_eq!(calls.len(), 2, "{wire}");
    assert_eq!(
        calls[1].body["params"]["inputResponses"],
        json!({"connect": {"action": "decline"}}),
        "{wire}"
    );
    server.stop().await;
}
