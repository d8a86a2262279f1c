//! Typed clients against real servers in other processes.
//!
//! - The client `#[mcp::service(client)]` generates for the weather service
//!   (`mcp_examples::weather::WeatherServiceClient`) against the `weather` example binary,
//!   over Streamable HTTP and over stdio (`--stdio`), on the modern and the legacy era:
//!   typed arguments and outputs (structured content on the modern era, JSON text on the
//!   legacy one), tool errors apart from protocol errors, a per-call timeout, `verify`, and
//!   the `Mcp-Param-Region` header the client mirrors from the `region` argument.
//! - Clients written as `#[mcp::client]` traits for peers not written with this crate: the
//!   TypeScript SDK v2 server (`interop/server.mjs`: its modern endpoint, its default
//!   stateless legacy serving, `--legacy sessionful`) and the v1 SDK server (`--v1`), and the
//!   Python `mcp` SDK (`interop/python/stdio_server.py` over stdio,
//!   `interop/python/otel_server.py --http` over HTTP), each era. For each peer an accurate
//!   trait calls every tool and `verify`s, and a deliberately wrong trait's `verify` reports
//!   exactly the mismatches it was written with.
//!
//! Needs `npm ci` in `interop/` and the Python venv that `scripts/test.sh` creates.

#![allow(missing_docs)] // the traits' types are `pub` for the generated clients

mod interop_support;

use std::future::Future;
use std::time::Duration;

use interop_support::{Served, example_binary, interop_dir, node, python, python_dir};
use mcp::client::typed::{Mismatch, TypedClient};
use mcp::client::{CallError, Client, ClientConfig, ProtocolMode, StdioCommand};
use mcp::protocol::Era;
use mcp::{ElicitRequest, ElicitResult, Implementation};
use mcp_examples::weather::{WeatherService, WeatherServiceClient};
use serde::{Deserialize, Serialize};
use tokio::io::AsyncReadExt as _;

/// The longest one test may run.
const TEST_TIMEOUT: Duration = Duration::from_secs(120);
/// Each request's timeout.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(20);

async fn bounded(body: impl Future<Output = ()>) {
    tokio::time::timeout(TEST_TIMEOUT, body)
        .await
        .expect("the test did not finish in time");
}

const ERAS: [(ProtocolMode, Era); 2] = [
    (ProtocolMode::Modern, Era::Modern),
    (ProtocolMode::Legacy, Era::Legacy),
];

fn config(mode: ProtocolMode) -> ClientConfig {
    ClientConfig::new()
        .protocol_mode(mode)
        .timeout(REQUEST_TIMEOUT)
        .elicitation_handler(|request: ElicitRequest| async move {
            let text = serde_json::to_string(&request).unwrap_or_default();
            assert!(text.contains("Delete"), "{text}");
            Ok(ElicitResult::accept(
                serde_json::json!({"confirm": true})
                    .as_object()
                    .cloned()
                    .unwrap_or_default(),
            ))
        })
}

fn identity() -> Implementation {
    Implementation::new("typed-client-test", "1.0.0")
}

/// Connects a client over HTTP in `mode` and checks the era it ended up on.
async fn http<C: TypedClient>(url: &str, mode: ProtocolMode, era: Era) -> C {
    let client = Client::new(url, config(mode)).expect("a client");
    client.connect(identity()).await.expect("connects");
    assert_eq!(client.connection().unwrap().era(), era, "{url} {mode:?}");
    C::from_client(client)
}

/// Connects a client over stdio in `mode` and checks the era it ended up on.
async fn stdio<C: TypedClient>(command: StdioCommand, mode: ProtocolMode, era: Era) -> C {
    let client = Client::stdio(command, config(mode)).expect("a client");
    client.connect(identity()).await.expect("connects");
    assert_eq!(client.connection().unwrap().era(), era, "{mode:?}");
    C::from_client(client)
}

// ---------------------------------------------------------------------------------------
// The generated client of the weather service against the `weather` example binary
// ---------------------------------------------------------------------------------------

async fn weather_http() -> Served {
    let mut command = tokio::process::Command::new(example_binary("weather"));
    command
        .env("MCP_ADDR", "127.0.0.1:0")
        .env("RUST_LOG", "warn")
        .env_remove("MCP_RATE_LIMIT");
    Served::spawn("weather", command, "listening ").await
}

/// The weather binary over stdio, through `sh` so that it writes its process id to
/// `pid_file` first (`exec` keeps the id).
fn weather_stdio(pid_file: &std::path::Path) -> StdioCommand {
    StdioCommand::new("sh")
        .arg("-c")
        .arg(r#"echo $$ > "$0" && exec "$1" --stdio"#)
        .arg(pid_file)
        .arg(example_binary("weather"))
        .env("RUST_LOG", "warn")
}

/// A TCP proxy in front of an HTTP server that can hold the server's answers back (they
/// are read, and forwarded once released; a connection the client dropped meanwhile just
/// ends).
struct HoldingProxy {
    url: String,
    held: tokio::sync::watch::Sender<bool>,
}

impl HoldingProxy {
    async fn start(upstream_url: &str) -> Self {
        let upstream: std::net::SocketAddr = upstream_url
            .trim_start_matches("http://")
            .trim_end_matches("/mcp")
            .parse()
            .expect("an address");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let url = format!("http://{}/mcp", listener.local_addr().expect("addr"));
        let (held, watch) = tokio::sync::watch::channel(false);
        tokio::spawn(async move {
            while let Ok((inbound, _)) = listener.accept().await {
                let mut watch = watch.clone();
                tokio::spawn(async move {
                    use tokio::io::AsyncWriteExt as _;
                    let Ok(outbound) = tokio::net::TcpStream::connect(upstream).await else {
                        return;
                    };
                    let (mut from_client, mut to_client) = inbound.into_split();
                    let (mut from_server, mut to_server) = outbound.into_split();
                    tokio::spawn(async move {
                        let _ = tokio::io::copy(&mut from_client, &mut to_server).await;
                        let _ = to_server.shutdown().await;
                    });
                    let mut buf = vec![0u8; 16 * 1024];
                    while let Ok(n) = from_server.read(&mut buf).await {
                        if n == 0 || watch.wait_for(|held| !*held).await.is_err() {
                            break;
                        }
                        if to_client.write_all(&buf[..n]).await.is_err() {
                            break;
                        }
                    }
                });
            }
        });
        Self { url, held }
    }

    fn hold(&self, held: bool) {
        self.held.send_replace(held);
    }
}

/// Sends `signal` (`-STOP`, `-CONT`) to process `pid`.
fn signal(pid: u32, signal: &str) {
    let sent = std::process::Command::new("kill")
        .args([signal, &pid.to_string()])
        .status()
        .expect("run kill");
    assert!(sent.success(), "kill {signal} {pid}");
}

/// Holds back the server's answers (`true`) or lets them through again (`false`).
type Stall<'a> = &'a (dyn Fn(bool) + Sync);

/// Every tool of the weather service through its generated client, checked against the
/// same service in-process (its answers are deterministic). `stall` holds the server's
/// answers back.
async fn drive_weather(weather: &WeatherServiceClient, stall: Stall<'_>, label: &str) {
    let local = mcp::client::typed::in_process(WeatherService)
        .await
        .expect("in-process weather");

    weather
        .verify()
        .await
        .unwrap_or_else(|e| panic!("{label}: {e}"));

    let oslo = weather
        .get_current_weather("Oslo")
        .await
        .unwrap_or_else(|e| panic!("{label}: {e:?}"));
    assert_eq!(oslo.location, "Oslo", "{label}");
    assert!((5.0..30.0).contains(&oslo.temperature), "{label}: {oslo:?}");
    assert_eq!(
        oslo,
        local.get_current_weather("Oslo").await.unwrap(),
        "{label}"
    );

    let forecast = weather
        .get_weather_forecast("Oslo", 3)
        .await
        .unwrap_or_else(|e| panic!("{label}: {e:?}"));
    assert_eq!(forecast.location, "Oslo", "{label}");
    let days: Vec<u8> = forecast.days.iter().map(|d| d.day).collect();
    assert_eq!(days, [1, 2, 3], "{label}");
    assert!(forecast.days.iter().all(|d| d.high >= d.low), "{label}");
    assert_eq!(
        forecast,
        local.get_weather_forecast("Oslo", 3).await.unwrap(),
        "{label}"
    );

    // A header argument: on a modern HTTP connection the client mirrors `region` into
    // `Mcp-Param-Region` (base64-encoded, for a value that is not ASCII); the server
    // refuses a call whose header is missing or differs with -32020.
    let regional = weather
        .regional_weather("São Paulo", "Santos")
        .await
        .unwrap_or_else(|e| panic!("{label}: {e:?}"));
    assert_eq!(regional.location, "São Paulo/Santos", "{label}");

    // Tool errors are `CallError::Tool`, with the tool's message.
    match weather.get_current_weather("").await {
        Err(CallError::Tool {
            tool,
            message,
            result,
        }) => {
            assert_eq!(tool, "get_current_weather", "{label}");
            assert_eq!(message, "The city name is empty", "{label}");
            assert!(result.is_error(), "{label}");
        }
        other => panic!("{label}: expected a tool error, got {other:?}"),
    }
    let e = weather.get_weather_forecast("x", 9).await.unwrap_err();
    assert!(
        matches!(&e, CallError::Tool { tool, message, .. }
            if tool == "get_weather_forecast" && message == "days must be between 1 and 7, not 9"),
        "{label}: {e:?}"
    );
    assert_eq!(e.code(), None, "{label}");

    // A per-call timeout: while the server's answers are held back the call ends at its
    // deadline, well before the client's request timeout; once they flow again a generous
    // timeout lets the next call finish on the same client.
    stall(true);
    let started = std::time::Instant::now();
    let late = weather
        .get_current_weather("Oslo")
        .timeout(Duration::from_millis(300))
        .await;
    let took = started.elapsed();
    stall(false);
    assert!(
        matches!(&late, Err(CallError::DeadlineExceeded { tool }) if tool == "get_current_weather"),
        "{label}: {late:?}"
    );
    assert!(
        took >= Duration::from_millis(300) && took < Duration::from_secs(5),
        "{label}: {took:?}"
    );
    let on_time = weather
        .get_current_weather("Bergen")
        .timeout(Duration::from_secs(10))
        .await
        .unwrap_or_else(|e| panic!("{label}: {e:?}"));
    assert_eq!(on_time.location, "Bergen", "{label}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_weather_client_over_http_on_both_eras() {
    bounded(async {
        let server = weather_http().await;
        // Through a proxy that can hold the answers back: signals proved racy on a loaded
        // machine (an answer of a stopped HTTP server reached the client once).
        let proxy = HoldingProxy::start(&server.url).await;
        // The server checks `Host` against its own address.
        let host = server
            .url
            .trim_start_matches("http://")
            .trim_end_matches("/mcp");
        let host = http::HeaderValue::from_str(host).expect("a host");
        for (mode, era) in ERAS {
            let config = config(mode).http(
                mcp::client::HttpConfig::new()
                    .timeout(REQUEST_TIMEOUT)
                    .header(http::header::HOST, host.clone()),
            );
            let client = Client::new(&proxy.url, config).expect("a client");
            client
                .connect(identity())
                .await
                .expect("connects through the proxy");
            assert_eq!(client.connection().unwrap().era(), era, "{mode:?}");
            let weather = WeatherServiceClient::from_client(client);
            let label = format!("http {mode:?}\n{}", server.report());
            drive_weather(&weather, &|held| proxy.hold(held), &label).await;
            weather.client().close().await.unwrap();
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_weather_client_over_stdio_on_both_eras() {
    bounded(async {
        for (mode, era) in ERAS {
            let pid_file = std::env::temp_dir().join(format!(
                "typed-client-weather-{}-{mode:?}.pid",
                std::process::id()
            ));
            let weather: WeatherServiceClient = stdio(weather_stdio(&pid_file), mode, era).await;
            assert!(weather.client().is_stdio());
            let pid = std::fs::read_to_string(&pid_file)
                .expect("the pid file")
                .trim()
                .parse()
                .expect("a process id");
            let _ = std::fs::remove_file(&pid_file);
            let stall = |held: bool| signal(pid, if held { "-STOP" } else { "-CONT" });
            drive_weather(&weather, &stall, &format!("stdio {mode:?}")).await;
            weather.client().close().await.unwrap();
        }
    })
    .await;
}

/// The header the typed call of `regional_weather` succeeds with is checked by the server:
/// the same modern request without it is refused with -32020.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_region_header_is_what_the_server_checks() {
    bounded(async {
        let server = weather_http().await;
        let weather: WeatherServiceClient =
            http(&server.url, ProtocolMode::Modern, Era::Modern).await;
        let ok = weather
            .regional_weather("eu-west", "Dublin")
            .await
            .unwrap_or_else(|e| panic!("{e:?}\n{}", server.report()));
        assert_eq!(ok.location, "eu-west/Dublin");
        // `TypedClient::connect`: the default identity and the auto era, which lands on the
        // modern one here and mirrors the header too.
        let connected = WeatherServiceClient::connect(&server.url)
            .await
            .unwrap_or_else(|e| panic!("{e:?}\n{}", server.report()));
        assert_eq!(connected.client().connection().unwrap().era(), Era::Modern);
        let ok = connected
            .regional_weather("eu-west", "Cork")
            .await
            .unwrap_or_else(|e| panic!("{e:?}\n{}", server.report()));
        assert_eq!(ok.location, "eu-west/Cork");

        let body = serde_json::json!({
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {
                "name": "regional_weather",
                "arguments": {"region": "eu-west", "city": "Dublin"},
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": interop_support::MODERN,
                    "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1.0.0"},
                    "io.modelcontextprotocol/clientCapabilities": {}
                }
            }
        });
        let http = reqwest::Client::new();
        let send = |region: Option<&'static str>| {
            let mut request = http
                .post(&server.url)
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("mcp-protocol-version", interop_support::MODERN)
                .header("mcp-method", "tools/call")
                .header("mcp-name", "regional_weather")
                .timeout(REQUEST_TIMEOUT)
                .body(body.to_string());
            if let Some(region) = region {
                request = request.header("mcp-param-region", region);
            }
            request.send()
        };
        for (region, refused) in [
            (None, true),
            (Some("us-east"), true),
            (Some("eu-west"), false),
        ] {
            let response = send(region).await.expect("a response");
            let status = response.status().as_u16();
            let text = response.text().await.unwrap();
            if refused {
                assert_eq!(status, 400, "{region:?}: {text}");
                assert!(text.contains("-32020"), "{region:?}: {text}");
            } else {
                assert_eq!(status, 200, "{region:?}: {text}");
                assert!(text.contains("eu-west/Dublin"), "{region:?}: {text}");
            }
        }
    })
    .await;
}

// ---------------------------------------------------------------------------------------
// The TypeScript SDK peers (interop/server.mjs)
// ---------------------------------------------------------------------------------------

#[derive(Serialize, Deserialize, schemars::JsonSchema, Debug, PartialEq)]
pub struct Sum {
    pub sum: i64,
}

#[derive(Serialize, Deserialize, schemars::JsonSchema, Debug, PartialEq)]
pub struct CannedForecast {
    pub city: String,
    pub region: String,
    pub forecast: String,
    /// The `Mcp-Param-Region` header the server saw (`null` when there was none).
    #[serde(rename = "regionHeader")]
    pub region_header: Option<String>,
}

#[derive(Serialize, Deserialize, schemars::JsonSchema, Debug, PartialEq, Clone, Copy)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Accept,
    Decline,
    Cancel,
}

#[derive(Serialize, Deserialize, schemars::JsonSchema, Debug, PartialEq)]
pub struct Deletion {
    pub item: String,
    pub deleted: bool,
    pub action: Action,
}

/// The harness tools of `interop/server.mjs`, as its source declares them.
#[mcp::client(name = "TsPeer")]
pub trait TypeScriptPeer {
    /// Adds two integers.
    async fn add(&self, a: i64, b: i64) -> Sum;
    /// Echoes the text.
    async fn echo(&self, text: String) -> String;
    /// A canned forecast; `region` is an `x-mcp-header` argument.
    async fn weather(&self, region: String, city: String) -> CannedForecast;
    /// Asks (elicitation) whether to delete the item.
    async fn confirm_delete(&self, item: String) -> Deletion;
    /// Always fails.
    async fn fail(&self, message: Option<String>);
}

#[derive(Serialize, Deserialize, schemars::JsonSchema, Debug)]
pub struct Temperature {
    pub city: String,
    pub temperature: f64,
}

/// The same peer described wrongly, one mistake per tool.
#[mcp::client(name = "WrongTsPeer")]
pub trait WrongTypeScriptPeer {
    /// Retyped argument.
    async fn add(&self, a: String, b: i64) -> Sum;
    /// Renamed argument.
    #[tool(name = "echo")]
    async fn say(&self, message: String) -> String;
    /// An argument the server requires left optional, and an output field it does not have.
    async fn weather(&self, region: Option<String>, city: String) -> Temperature;
    /// A required argument left out.
    async fn confirm_delete(&self) -> Deletion;
    /// Not served.
    async fn subtract(&self, a: i64, b: i64) -> Sum;
}

async fn ts_server(args: &[&str]) -> Served {
    let mut command = tokio::process::Command::new(node());
    command
        .arg("server.mjs")
        .args(["--port", "0"])
        .args(args)
        .current_dir(interop_dir());
    Served::spawn(&format!("server.mjs {args:?}"), command, "listening ").await
}

/// How confirm_delete ends: with the elicitation answered, or as a tool error where the
/// server has no way to ask (stateless legacy serving).
#[derive(Clone, Copy, Debug)]
enum Elicits {
    Answered,
    Impossible,
}

async fn drive_ts_peer(peer: &TsPeer, modern: bool, elicits: Elicits, label: &str) {
    peer.verify()
        .await
        .unwrap_or_else(|e| panic!("{label}: {e}"));
    assert_eq!(TsPeer::expected_tools().len(), 5);

    assert_eq!(peer.add(2, 40).await.unwrap(), Sum { sum: 42 }, "{label}");
    assert_eq!(peer.add(-7, 3).await.unwrap().sum, -4, "{label}");
    assert_eq!(peer.echo("héllo ✓").await.unwrap(), "héllo ✓", "{label}");

    let forecast = peer.weather("eu-west", "Dublin").await.unwrap();
    assert_eq!(forecast.city, "Dublin", "{label}");
    assert_eq!(forecast.region, "eu-west", "{label}");
    assert_eq!(forecast.forecast, "sunny, 21C", "{label}");
    // The server reports the header it received: the client mirrored the argument the
    // TypeScript server's schema marks `x-mcp-header` on the modern era only.
    let header = modern.then(|| "eu-west".to_owned());
    assert_eq!(forecast.region_header, header, "{label}");

    match (elicits, peer.confirm_delete("notes.txt").await) {
        (Elicits::Answered, Ok(done)) => assert_eq!(
            done,
            Deletion {
                item: "notes.txt".into(),
                deleted: true,
                action: Action::Accept
            },
            "{label}"
        ),
        (Elicits::Impossible, Err(CallError::Tool { tool, .. })) => {
            assert_eq!(tool, "confirm_delete", "{label}");
        }
        (elicits, other) => panic!("{label}: {elicits:?}: {other:?}"),
    }

    // `None` is left out (zod's `optional()` refuses `null`), `Some` is sent.
    for (message, expected) in [
        (None, "This tool always fails"),
        (Some("boom".to_owned()), "boom"),
    ] {
        match peer.fail(message).await {
            Err(CallError::Tool { tool, message, .. }) => {
                assert_eq!(tool, "fail", "{label}");
                assert_eq!(message, expected, "{label}");
            }
            other => panic!("{label}: expected a tool error, got {other:?}"),
        }
    }
}

fn t(s: &str) -> String {
    s.to_owned()
}

async fn assert_wrong_ts_peer(wrong: &WrongTsPeer, v1: bool, label: &str) {
    let e = wrong.verify().await.unwrap_err();
    assert_eq!(
        e.mismatches(),
        [
            Mismatch::RetypedArgument {
                tool: t("add"),
                argument: t("a"),
                sends: t("`string`"),
                accepts: t("`integer`")
            },
            Mismatch::UnknownArgument {
                tool: t("echo"),
                argument: t("message"),
                listed: vec![t("text")]
            },
            Mismatch::NewlyRequired {
                tool: t("echo"),
                argument: t("text")
            },
            Mismatch::RequiredByServer {
                tool: t("weather"),
                argument: t("region")
            },
            Mismatch::OutputSchema {
                tool: t("weather"),
                reason: t(
                    "the client needs field `temperature`, which the server's output does not have"
                )
            },
            Mismatch::NewlyRequired {
                tool: t("confirm_delete"),
                argument: t("item")
            },
            Mismatch::MissingTool {
                tool: t("subtract")
            },
        ],
        "{label}: {e}"
    );
    // What verify predicted: the server refuses the retyped argument and does not know the
    // missing tool. Both SDKs report a failed input validation as a tool error (`isError`,
    // not -32602); an unknown tool is -32602 from v2 and, again, a tool error from v1.
    match wrong.add("two", 40).await {
        Err(CallError::Tool { tool, message, .. }) => {
            assert_eq!(tool, "add", "{label}");
            assert!(
                message.contains("Input validation error")
                    && message.contains("expected number, received string"),
                "{label}: {message}"
            );
        }
        other => panic!("{label}: expected a tool error, got {other:?}"),
    }
    let unknown = wrong.subtract(2, 1).await.unwrap_err();
    if v1 {
        assert!(
            matches!(&unknown, CallError::Tool { message, .. }
                if message == "MCP error -32602: Tool subtract not found"),
            "{label}: {unknown:?}"
        );
    } else {
        assert_eq!(unknown.code(), Some(-32602), "{label}: {unknown:?}");
        assert!(
            unknown.to_string().contains("Tool subtract not found"),
            "{label}: {unknown}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trait_clients_of_the_typescript_v2_peer_on_both_eras() {
    bounded(async {
        // The default serving: the modern endpoint, and stateless legacy serving (no
        // server-to-client requests, so no elicitation).
        let server = ts_server(&[]).await;
        for (mode, era) in ERAS {
            let label = format!("v2 {mode:?}\n{}", server.report());
            let peer: TsPeer = http(&server.url, mode, era).await;
            let elicits = if era == Era::Modern {
                Elicits::Answered
            } else {
                Elicits::Impossible
            };
            drive_ts_peer(&peer, era == Era::Modern, elicits, &label).await;
            let wrong: WrongTsPeer = http(&server.url, mode, era).await;
            assert_wrong_ts_peer(&wrong, false, &label).await;
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trait_clients_of_the_typescript_sessionful_legacy_and_v1_peers() {
    bounded(async {
        for args in [&["--legacy", "sessionful"][..], &["--v1"]] {
            let server = ts_server(args).await;
            let label = format!("{args:?}\n{}", server.report());
            let peer: TsPeer = http(&server.url, ProtocolMode::Legacy, Era::Legacy).await;
            drive_ts_peer(&peer, false, Elicits::Answered, &label).await;
            let wrong: WrongTsPeer = http(&server.url, ProtocolMode::Legacy, Era::Legacy).await;
            assert_wrong_ts_peer(&wrong, args == ["--v1"], &label).await;
            peer.client().close().await.unwrap();
            wrong.client().close().await.unwrap();
        }
    })
    .await;
}

// ---------------------------------------------------------------------------------------
// The Python SDK peers (interop/python/)
// ---------------------------------------------------------------------------------------

/// How the Python SDK returns a function's `str` result as structured content.
#[derive(Serialize, Deserialize, schemars::JsonSchema, Debug, PartialEq)]
pub struct Wrapped {
    pub result: String,
}

/// `interop/python/stdio_server.py`: `add(a: int, b: int) -> str`, `echo(text: str) -> str`.
#[mcp::client(name = "PythonStdioPeer")]
pub trait PythonStdio {
    /// The sum, as the Python function's `str` result (wrapped in `{"result": ...}`).
    async fn add(&self, a: i64, b: i64) -> Wrapped;
    /// The text.
    async fn echo(&self, text: String) -> Wrapped;
}

/// The same server as a client that reads the text of the results.
#[mcp::client(name = "PythonStdioText")]
pub trait PythonStdioText {
    async fn add(&self, a: i64, b: i64) -> String;
    async fn echo(&self, text: String) -> String;
}

/// The same server described wrongly.
#[mcp::client(name = "WrongPythonStdioPeer")]
pub trait WrongPythonStdio {
    /// Retyped `a` (a float where the server takes integers), `b` left out.
    async fn add(&self, a: f64) -> Wrapped;
    /// Renamed argument.
    #[tool(name = "echo")]
    async fn repeat(&self, txt: String) -> Wrapped;
    /// Not served.
    async fn multiply(&self, a: i64, b: i64) -> Wrapped;
}

fn python_stdio_server() -> StdioCommand {
    StdioCommand::new(python())
        .arg(python_dir().join("stdio_server.py"))
        .current_dir(python_dir())
        .discard_stderr()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trait_clients_of_the_python_stdio_peer_on_both_eras() {
    bounded(async {
        for (mode, era) in ERAS {
            let label = format!("python stdio {mode:?}");
            let peer: PythonStdioPeer = stdio(python_stdio_server(), mode, era).await;
            peer.verify()
                .await
                .unwrap_or_else(|e| panic!("{label}: {e}"));
            assert_eq!(peer.add(2, 3).await.unwrap(), Wrapped { result: t("5") });
            assert_eq!(peer.echo("hi ✓").await.unwrap().result, "hi ✓");

            let text: PythonStdioText = PythonStdioText::from_client(peer.client().clone());
            assert_eq!(text.add(40, 2).await.unwrap(), "42", "{label}");
            assert_eq!(text.echo("plain").await.unwrap(), "plain", "{label}");
            // The Python SDK lists a `str` result as `{"result": string}` and sends it both as
            // that structured content and as text. A `String` output reads the text, so the
            // calls work and `verify` does not hold the output to the structured schema.
            text.verify()
                .await
                .unwrap_or_else(|e| panic!("{label}: a String output reads the text: {e}"));

            let wrong = WrongPythonStdioPeer::from_client(peer.client().clone());
            let e = wrong.verify().await.unwrap_err();
            assert_eq!(
                e.mismatches(),
                [
                    Mismatch::RetypedArgument {
                        tool: t("add"),
                        argument: t("a"),
                        sends: t("`number`"),
                        accepts: t("`integer`")
                    },
                    Mismatch::NewlyRequired {
                        tool: t("add"),
                        argument: t("b")
                    },
                    Mismatch::UnknownArgument {
                        tool: t("echo"),
                        argument: t("txt"),
                        listed: vec![t("text")]
                    },
                    Mismatch::NewlyRequired {
                        tool: t("echo"),
                        argument: t("text")
                    },
                    Mismatch::MissingTool {
                        tool: t("multiply")
                    },
                ],
                "{label}: {e}"
            );
            // What verify predicted: pydantic refuses the float (and the missing `b`), which
            // the SDK reports as a tool error, not -32602.
            match wrong.add(2.5).await {
                Err(CallError::Tool { tool, message, .. }) => {
                    assert_eq!(tool, "add", "{label}");
                    assert!(
                        message.starts_with("Error executing tool add:")
                            && message.contains("validation error"),
                        "{label}: {message}"
                    );
                }
                other => panic!("{label}: expected a tool error, got {other:?}"),
            }
            peer.client().close().await.unwrap();
        }
    })
    .await;
}

/// The span `interop/python/otel_server.py`'s `trace_context` tool reports.
#[derive(Serialize, Deserialize, schemars::JsonSchema, Debug)]
pub struct SpanReport {
    pub trace_id: String,
    pub span_id: String,
    pub parent_span_id: Option<String>,
    pub name: Option<String>,
    pub kind: Option<String>,
    pub trace_state: Option<String>,
}

/// `interop/python/otel_server.py`: `trace_context() -> dict[str, Any]`, `echo(text: str)`.
#[mcp::client(name = "PythonHttpPeer")]
pub trait PythonHttp {
    /// The current span, as a dictionary.
    async fn trace_context(&self) -> SpanReport;
    /// The text (wrapped in `{"result": ...}`).
    async fn echo(&self, text: String) -> Wrapped;
}

/// The same server described wrongly.
#[mcp::client(name = "WrongPythonHttpPeer")]
pub trait WrongPythonHttp {
    /// Retyped argument.
    async fn echo(&self, text: i64) -> Wrapped;
    /// Arguments the server does not list: it has no properties at all.
    async fn trace_context(&self, depth: u32) -> SpanReport;
    /// Not served.
    async fn span_count(&self) -> i64;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trait_clients_of_the_python_http_peer_on_both_eras() {
    bounded(async {
        let mut command = tokio::process::Command::new(python());
        command
            .arg(python_dir().join("otel_server.py"))
            .args(["--http", "0"])
            .current_dir(python_dir());
        let server = Served::spawn("otel_server.py", command, "listening on ").await;
        for (mode, era) in ERAS {
            let label = format!("python http {mode:?}\n{}", server.report());
            let peer: PythonHttpPeer = http(&server.url, mode, era).await;
            peer.verify()
                .await
                .unwrap_or_else(|e| panic!("{label}: {e}"));
            let span = peer.trace_context().await.unwrap();
            assert_eq!(span.trace_id.len(), 32, "{label}: {span:?}");
            assert_eq!(span.span_id.len(), 16, "{label}: {span:?}");
            assert_eq!(span.kind.as_deref(), Some("SERVER"), "{label}: {span:?}");
            assert_eq!(
                span.name.as_deref(),
                Some("tools/call trace_context"),
                "{label}: {span:?}"
            );
            assert_eq!(peer.echo("über").await.unwrap().result, "über", "{label}");

            let wrong: WrongPythonHttpPeer = http(&server.url, mode, era).await;
            let e = wrong.verify().await.unwrap_err();
            assert_eq!(
                e.mismatches(),
                [
                    Mismatch::RetypedArgument {
                        tool: t("echo"),
                        argument: t("text"),
                        sends: t("`integer`"),
                        accepts: t("`string`")
                    },
                    Mismatch::UnknownArgument {
                        tool: t("trace_context"),
                        argument: t("depth"),
                        listed: vec![]
                    },
                    Mismatch::MissingTool {
                        tool: t("span_count")
                    },
                ],
                "{label}: {e}"
            );
            peer.client().close().await.unwrap();
            wrong.client().close().await.unwrap();
        }
    })
    .await;
}
