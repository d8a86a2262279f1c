//! `legacy_structured_output` with real legacy clients: the TypeScript v1 client
//! (`@modelcontextprotocol/sdk` 1.32.2, `interop/client.mjs --v1`), the v2 client in legacy
//! mode, and the Python SDK (`mcp` 2.3.0, `interop/python/client.py`) list the tools of a
//! service that turns the switch on and call them: they get the modern era's `outputSchema`
//! and `structuredContent` — the same values a modern client gets — validate the structured
//! content against the schema (both SDKs do), and accept a tool error without structured
//! content. Tools that opt out or return a non-object root keep the 1.x shape.
//!
//! The Python client negotiates the modern era when the server offers it (`mode="auto"`, its
//! default, probes `server/discover`); against a legacy-only server it falls back to the
//! `initialize` handshake at 2025-11-25, and with `mode="legacy"` it always does.
//!
//! Needs `npm ci` in `interop/` and the Python venv that `scripts/test.sh` creates.

mod interop_support;

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use interop_support::{Events, LATEST_LEGACY, MODERN, Peer, TestServer, run_peer, run_python_peer};
use mcp::testing::TestClient;
use mcp::{ProtocolMode, ToolError};
use serde_json::{Value, json};

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Forecast {
    /// The city.
    city: String,
    /// The next days.
    days: Vec<Day>,
}

/// One day.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Day {
    /// Highest temperature, Celsius.
    high: i64,
    /// Sky conditions.
    condition: String,
}

fn forecast(city: String) -> Forecast {
    Forecast {
        city,
        days: vec![
            Day {
                high: 21,
                condition: "Sunny".into(),
            },
            Day {
                high: 17,
                condition: "Rainy".into(),
            },
        ],
    }
}

struct Forecasts;

#[mcp::service(name = "forecasts", version = "1.0.0", legacy_structured_output = true)]
impl Forecasts {
    /// The forecast of a city.
    pub fn forecast(&self, city: String) -> Forecast {
        forecast(city)
    }

    /// The forecast of a city, as text only for legacy clients.
    #[tool(legacy_structured_output = false)]
    pub fn forecast_text(&self, city: String) -> Forecast {
        forecast(city)
    }

    /// The highs of the next days (an array root: not for legacy clients).
    pub fn highs(&self, city: String) -> Vec<i64> {
        forecast(city).days.iter().map(|d| d.high).collect()
    }

    /// The forecast, or a tool error for an empty city.
    pub fn checked_forecast(&self, city: String) -> Result<Forecast, ToolError> {
        if city.trim().is_empty() {
            return Err(ToolError::new("The city name is empty"));
        }
        Ok(forecast(city))
    }
}

/// Which tools a legacy client gets structured output for.
const TOOLS: [(&str, bool); 4] = [
    ("forecast", true),
    ("forecast_text", false),
    ("highs", false),
    ("checked_forecast", true),
];

fn steps() -> Value {
    json!({"steps": [
        {"tool": "forecast", "arguments": {"city": "Oslo"}},
        {"tool": "forecast_text", "arguments": {"city": "Oslo"}},
        {"tool": "highs", "arguments": {"city": "Oslo"}},
        {"tool": "checked_forecast", "arguments": {"city": "Oslo"}},
        {"tool": "checked_forecast", "arguments": {"city": " "}}
    ]})
}

/// What a modern client gets: the tool definitions and the results of [`steps`], in order
/// (`_meta` and `resultType` left out).
async fn modern_shapes() -> (Vec<Value>, Vec<Value>) {
    let client = TestClient::new(mcp::Server::builder(Forecasts).build().expect("valid"));
    let tools = client.modern("tools/list", json!({})).await.result()["tools"]
        .as_array()
        .expect("tools")
        .clone();
    let mut results = Vec::new();
    for step in steps()["steps"].as_array().expect("steps") {
        let params = json!({"name": step["tool"], "arguments": step["arguments"]});
        let mut result = client.modern("tools/call", params).await.result().clone();
        let o = result.as_object_mut().expect("object");
        o.remove("_meta");
        o.remove("resultType");
        results.push(result);
    }
    (tools, results)
}

static SCRIPTS: AtomicUsize = AtomicUsize::new(0);

/// The steps file, in the temporary directory, removed when dropped.
struct Script(PathBuf);

impl Script {
    fn new() -> Self {
        let path = std::env::temp_dir().join(format!(
            "mcp-interop-structured-{}-{}.json",
            std::process::id(),
            SCRIPTS.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::write(&path, steps().to_string()).expect("write the steps file");
        Self(path)
    }
}

impl Drop for Script {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Asserts what a client on `version` saw: on the legacy era the modern shapes for the
/// tools that send structured output and the 1.x shape for the others; on the modern era
/// the modern shapes throughout.
async fn assert_shapes(events: &Events, era: &str, version: &str) {
    let connected = events.one("connected");
    assert_eq!(connected["era"], era, "{}", events.report);
    assert_eq!(connected["protocolVersion"], version, "{}", events.report);
    let legacy = era == "legacy";
    let (modern_tools, modern_results) = modern_shapes().await;

    let tools = events.of("tool");
    assert_eq!(tools.len(), TOOLS.len(), "{}", events.report);
    for ((tool, (name, structured)), modern) in tools.iter().zip(TOOLS).zip(&modern_tools) {
        assert_eq!(tool["name"], name, "{}", events.report);
        assert_eq!(
            tool["inputSchema"], modern["inputSchema"],
            "{name}\n{}",
            events.report
        );
        let expected = if structured || !legacy {
            modern["outputSchema"].clone()
        } else {
            Value::Null
        };
        assert!(modern["outputSchema"].is_object(), "{name}: {modern}");
        assert_eq!(tool["outputSchema"], expected, "{name}\n{}", events.report);
    }
    let forecast = &tools[0]["outputSchema"];
    assert_eq!(forecast["type"], "object", "{}", events.report);
    assert!(forecast["$defs"]["Day"].is_object(), "{}", events.report);

    let tool_of_step = [
        "forecast",
        "forecast_text",
        "highs",
        "checked_forecast",
        "checked_forecast",
    ];
    for (step, modern) in modern_results.iter().enumerate() {
        let got = events.step(step);
        assert_eq!(got["event"], "step", "step {step}\n{}", events.report);
        assert_eq!(
            got["content"], modern["content"],
            "step {step}\n{}",
            events.report
        );
        let structured = TOOLS
            .iter()
            .any(|(name, on)| *on && *name == tool_of_step[step]);
        let expected = if structured || !legacy {
            modern
                .get("structuredContent")
                .cloned()
                .unwrap_or(Value::Null)
        } else {
            Value::Null
        };
        assert_eq!(
            got["structuredContent"], expected,
            "step {step}\n{}",
            events.report
        );
        assert_eq!(
            got["isError"],
            modern.get("isError").cloned().unwrap_or(json!(false)),
            "step {step}\n{}",
            events.report
        );
    }
    // The structured forecast, and the tool error without structured content.
    assert_eq!(
        events.step(0)["structuredContent"],
        json!({"city": "Oslo", "days": [{"high": 21, "condition": "Sunny"},
                                         {"high": 17, "condition": "Rainy"}]}),
        "{}",
        events.report
    );
    let error = events.step(4);
    assert_eq!(error["isError"], true, "{}", events.report);
    assert_eq!(error["structuredContent"], Value::Null, "{}", events.report);
}

async fn typescript(peer: Peer, era: &str, version: &str) {
    let server = TestServer::start(|_| mcp::Server::builder(Forecasts)).await;
    let script = Script::new();
    let events = run_peer(&server.url, peer, &script.0).await;
    server.stop().await;
    assert_eq!(
        events.one("connected")["sdk"],
        peer.sdk(),
        "{}",
        events.report
    );
    assert_shapes(&events, era, version).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_v1_client_gets_structured_output_on_2025_11_25() {
    typescript(Peer::V1, "legacy", LATEST_LEGACY).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_v2_client_in_legacy_mode_gets_structured_output() {
    typescript(Peer::Legacy, "legacy", LATEST_LEGACY).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_v2_client_on_the_modern_era_gets_the_same_shapes() {
    typescript(Peer::Modern, "modern", MODERN).await;
}

async fn python(mode: &str, legacy_only: bool, era: &str, version: &str) {
    let server = TestServer::start(|_| {
        let server = mcp::Server::builder(Forecasts);
        if legacy_only {
            server.protocol_mode(ProtocolMode::Legacy)
        } else {
            server
        }
    })
    .await;
    let script = Script::new();
    let events = run_python_peer("tools", &server.url, mode, Some(&script.0)).await;
    server.stop().await;
    assert_eq!(
        events.one("connected")["sdk"],
        "mcp@2.3.0",
        "{}",
        events.report
    );
    assert_eq!(
        events.one("connected")["serverInfo"],
        json!({"name": "forecasts", "version": "1.0.0"}),
        "{}",
        events.report
    );
    assert_shapes(&events, era, version).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_client_in_auto_mode_falls_back_to_2025_11_25_on_a_legacy_only_server() {
    python("auto", true, "legacy", LATEST_LEGACY).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_client_in_legacy_mode_gets_structured_output() {
    python("legacy", false, "legacy", LATEST_LEGACY).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_client_in_auto_mode_takes_the_modern_era_when_offered() {
    python("auto", false, "modern", MODERN).await;
}
