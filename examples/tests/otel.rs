//! OpenTelemetry end to end (the `otel` feature): the example servers export their spans and
//! metrics over OTLP/HTTP to a real receiver ([`otlp`], decoding the official protobuf
//! messages), and trace context crosses the wire both ways with the Python `mcp` SDK peers
//! of `interop/python/` (`otel_client.py`, `otel_server.py`, each with a recording
//! OpenTelemetry SDK):
//!
//! - the weather and echo example binaries, built with `--features otel` and started with
//!   `OTEL_EXPORTER_OTLP_ENDPOINT`, export `tools/call <tool>` SERVER spans with the MCP
//!   semantic conventions' attributes, the operation and session duration histograms, and
//!   flush on SIGTERM and at the end of stdin;
//! - the Python client's `tools/call` span is the parent of our server's span (modern and
//!   legacy over HTTP, and over stdio);
//! - our client's `tools/call` span is the parent of the Python server's span (modern and
//!   legacy over HTTP, and over stdio).
//!
//! The example binaries must have been built with the feature: `cargo test -p mcp-examples
//! --features otel` builds them (a run restricted to `--test otel` does not: build them
//! first with `cargo build -p mcp-examples --features otel --examples`). Needs the Python
//! venv of `interop/python/` (`scripts/test.sh` installs it).

mod interop_support;
mod otlp;

use std::time::Duration;

use interop_support::{
    LATEST_LEGACY, MODERN, PEER_TIMEOUT, Served, example_binary, python, python_dir,
};
use mcp::Implementation;
use mcp::client::typed::TypedClient as _;
use mcp::client::{Client, ClientConfig, ConnectOptions, ProtocolMode, StdioCommand};
use mcp::otel::attributes as attr;
use mcp_examples::weather::WeatherServiceClient;
use opentelemetry::trace::SpanKind;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use serde_json::{Value, json};
use sha2::Digest as _;

/// How long exported data may take to reach the receiver.
const EXPORT_WAIT: Duration = Duration::from_secs(15);
/// The weather example's tool and its span's name.
const WEATHER_TOOL: &str = "get_current_weather";
const WEATHER_SPAN: &str = "tools/call get_current_weather";
/// The line the examples log on stderr when they export (`mcp_examples::otel::init`).
const EXPORTING: &str = "exporting OpenTelemetry over OTLP/HTTP";

/// Attribute `key` of `attributes`, `null` when it is missing.
fn at<'a>(attributes: &'a otlp::Attributes, key: &str) -> &'a Value {
    attributes.get(key).unwrap_or(&Value::Null)
}

/// The environment that points an example at `receiver`, with short export intervals
/// (`fast`) or intervals so long that only the shutdown flush can deliver anything.
fn otel_env(receiver: &otlp::Receiver, fast: bool) -> Vec<(&'static str, String)> {
    let (spans, metrics) = if fast {
        ("100", "200")
    } else {
        ("60000", "60000")
    };
    vec![
        ("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint()),
        ("OTEL_BSP_SCHEDULE_DELAY", spans.into()),
        ("OTEL_METRIC_EXPORT_INTERVAL", metrics.into()),
        ("OTEL_SERVICE_NAME", "mcp-e2e".into()),
        ("RUST_LOG", "info".into()),
    ]
}

impl Served {
    /// Starts example `name` on `127.0.0.1:0` with `env`, and checks that it exports (it
    /// logs [`EXPORTING`]).
    async fn example(name: &'static str, env: &[(&'static str, String)]) -> Self {
        let mut command = tokio::process::Command::new(example_binary(name));
        command
            .env("MCP_ADDR", "127.0.0.1:0")
            .envs(env.iter().map(|(k, v)| (k, v)));
        let example = Self::spawn(name, command, "listening ").await;
        example.expect_exporting().await;
        example
    }

    /// Starts `interop/python/otel_server.py --http 0`.
    async fn python_server() -> Self {
        let mut command = tokio::process::Command::new(python());
        command
            .arg(python_dir().join("otel_server.py"))
            .args(["--http", "0"])
            .current_dir(python_dir());
        Self::spawn("otel_server.py", command, "listening on ").await
    }

    /// Fails with the way out when the binary was built without the `otel` feature.
    async fn expect_exporting(&self) {
        for _ in 0..100 {
            if self.stderr().contains(EXPORTING) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!(
            "{}: does not export OpenTelemetry (no {EXPORTING:?} on stderr): was the example \
             built without the `otel` feature? `cargo test -p mcp-examples --features otel` \
             builds the examples with it; a run restricted to `--test otel` does not (run \
             `cargo build -p mcp-examples --features otel --examples` first)\n--- stderr ---\n{}",
            self.name,
            self.stderr()
        );
    }

    /// Sends SIGTERM and asserts a clean exit (status 0) within 10 seconds.
    async fn terminate(mut self) {
        let pid = self.child.id().expect("the example runs");
        let sent = std::process::Command::new("kill")
            .args(["-TERM", &pid.to_string()])
            .status()
            .expect("run kill");
        assert!(sent.success(), "kill -TERM {pid}");
        let status = tokio::time::timeout(Duration::from_secs(10), self.child.wait())
            .await
            .unwrap_or_else(|_| panic!("{}: did not exit within 10 s of SIGTERM", self.name))
            .expect("wait for the example");
        assert!(
            status.success(),
            "{}: {status}\n--- stderr ---\n{}",
            self.name,
            self.stderr()
        );
    }
}

fn options() -> ConnectOptions {
    ConnectOptions::new(Implementation::new("otel-e2e", "1.0.0"))
}

/// Our client (without telemetry) in `mode`, connected to `url`.
async fn connect(url: &str, mode: ProtocolMode) -> Client {
    let client = Client::new(url, ClientConfig::new().protocol_mode(mode)).expect("a client");
    client.connect(options()).await.expect("connect");
    client
}

/// Calls `get_current_weather` for Lisbon (through the weather service's typed client) and
/// checks that it answered.
async fn call_weather(client: &Client) {
    let weather = WeatherServiceClient::from_client(client.clone())
        .get_current_weather("Lisbon")
        .await
        .expect("tools/call");
    assert_eq!(weather.location, "Lisbon");
}

/// The server spans named `name` whose protocol version is `version`.
fn server_spans<'a>(spans: &'a [otlp::Span], name: &str, version: &str) -> Vec<&'a otlp::Span> {
    spans
        .iter()
        .filter(|s| {
            s.name == name
                && s.kind == "server"
                && at(&s.attributes, attr::MCP_PROTOCOL_VERSION) == version
        })
        .collect()
}

/// A report of what arrived, for failure messages.
fn arrived(receiver: &otlp::Receiver) -> String {
    let mut out = String::from("--- spans ---\n");
    for span in receiver.spans() {
        out.push_str(&format!(
            "{} [{}] trace {} span {} parent {:?} {}\n",
            span.name,
            span.kind,
            span.trace_id,
            span.span_id,
            span.parent_span_id,
            json!(span.attributes)
        ));
    }
    out.push_str("--- histograms ---\n");
    for point in receiver.histograms() {
        out.push_str(&format!(
            "{} ({}) count {} {}\n",
            point.metric,
            point.unit,
            point.count,
            json!(point.attributes)
        ));
    }
    if !receiver.errors().is_empty() {
        out.push_str(&format!(
            "--- receiver errors ---\n{:?}\n",
            receiver.errors()
        ));
    }
    out
}

/// The attributes every `tools/call` server span of the weather tool has, whatever the
/// transport.
fn assert_call_span(span: &otlp::Span, version: &str) {
    let a = &span.attributes;
    assert_eq!(span.kind, "server", "{span:?}");
    assert_eq!(span.scope, "mcp", "{span:?}");
    assert_eq!(at(a, attr::MCP_METHOD_NAME), "tools/call", "{span:?}");
    assert_eq!(at(a, attr::MCP_PROTOCOL_VERSION), version, "{span:?}");
    assert_eq!(at(a, attr::GEN_AI_TOOL_NAME), WEATHER_TOOL, "{span:?}");
    assert_eq!(
        at(a, attr::GEN_AI_OPERATION_NAME),
        "execute_tool",
        "{span:?}"
    );
    assert!(
        at(a, attr::JSONRPC_REQUEST_ID)
            .as_str()
            .is_some_and(|id| !id.is_empty()),
        "{span:?}"
    );
    assert_eq!(span.status_code, 0, "{span:?}");
    assert!(!a.contains_key(attr::ERROR_TYPE), "{span:?}");
    // Sensitive data is off by default.
    assert!(
        !a.contains_key(attr::GEN_AI_TOOL_CALL_ARGUMENTS),
        "{span:?}"
    );
    assert!(!a.contains_key(attr::GEN_AI_TOOL_CALL_RESULT), "{span:?}");
    assert_eq!(at(&span.resource, "service.name"), "mcp-e2e", "{span:?}");
    assert!(span.end_time_unix_nano >= span.start_time_unix_nano);
}

/// The attributes of a `tools/call` server span over Streamable HTTP.
fn assert_http_span(span: &otlp::Span) {
    let a = &span.attributes;
    assert_eq!(at(a, attr::NETWORK_TRANSPORT), "tcp", "{span:?}");
    assert_eq!(at(a, attr::NETWORK_PROTOCOL_NAME), "http", "{span:?}");
    assert_eq!(at(a, attr::CLIENT_ADDRESS), "127.0.0.1", "{span:?}");
    assert!(
        at(a, attr::CLIENT_PORT).as_i64().is_some_and(|p| p > 0),
        "{span:?}"
    );
}

/// The last exported point of histogram `metric` whose attributes include `with`.
fn last_point<'a>(
    points: &'a [otlp::HistogramPoint],
    metric: &str,
    with: &[(&str, &str)],
) -> Option<&'a otlp::HistogramPoint> {
    points.iter().rev().find(|p| {
        p.metric == metric
            && with
                .iter()
                .all(|(k, v)| p.attributes.get(*k) == Some(&json!(v)))
    })
}

fn assert_duration_point(point: &otlp::HistogramPoint) {
    assert_eq!(point.unit, "s", "{point:?}");
    assert_eq!(point.bounds, attr::DURATION_BUCKETS.to_vec(), "{point:?}");
    assert_eq!(
        point.bucket_counts.len(),
        attr::DURATION_BUCKETS.len() + 1,
        "{point:?}"
    );
    assert!(point.count >= 1, "{point:?}");
    assert_eq!(point.scope, "mcp", "{point:?}");
    assert_eq!(at(&point.resource, "service.name"), "mcp-e2e", "{point:?}");
}

// ---------------------------------------------------------------------------------------
// The example servers export (OTLP/HTTP to the receiver)
// ---------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn weather_exports_server_spans_and_metrics_over_http_in_both_eras() {
    let receiver = otlp::Receiver::start().await;
    let example = Served::example("weather", &otel_env(&receiver, true)).await;

    let modern = connect(&example.url, ProtocolMode::Modern).await;
    call_weather(&modern).await;
    let legacy = connect(&example.url, ProtocolMode::Legacy).await;
    let session_id = legacy.session_id().expect("a legacy session");
    call_weather(&legacy).await;
    // Ends the legacy session with DELETE: its duration is recorded.
    legacy.close().await.expect("close the legacy session");
    modern.close().await.expect("close");

    let spans = receiver
        .wait_for_spans(
            |s| {
                !server_spans(s, WEATHER_SPAN, MODERN).is_empty()
                    && !server_spans(s, WEATHER_SPAN, LATEST_LEGACY).is_empty()
            },
            EXPORT_WAIT,
        )
        .await;
    let report = arrived(&receiver);
    let modern_span = *server_spans(&spans, WEATHER_SPAN, MODERN)
        .first()
        .unwrap_or_else(|| panic!("no modern tools/call span\n{report}"));
    assert_call_span(modern_span, MODERN);
    assert_http_span(modern_span);
    assert!(
        !modern_span.attributes.contains_key(attr::MCP_SESSION_ID),
        "a modern request has no session: {modern_span:?}"
    );
    let legacy_span = *server_spans(&spans, WEATHER_SPAN, LATEST_LEGACY)
        .first()
        .unwrap_or_else(|| panic!("no legacy tools/call span\n{report}"));
    assert_call_span(legacy_span, LATEST_LEGACY);
    assert_http_span(legacy_span);
    // A fingerprint of the session id (the first 8 bytes of its SHA-256), never the id.
    let digest = sha2::Sha256::digest(session_id.as_bytes());
    let fingerprint: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(
        at(&legacy_span.attributes, attr::MCP_SESSION_ID).as_str(),
        Some(fingerprint.as_str()),
        "{legacy_span:?}"
    );
    // Our client sent no trace context: each call is the root of its own trace.
    assert_eq!(modern_span.parent_span_id, None, "{modern_span:?}");
    assert_ne!(modern_span.trace_id, legacy_span.trace_id);
    // The legacy handshake is traced too.
    assert!(
        spans
            .iter()
            .any(|s| s.name == "initialize" && s.kind == "server"),
        "{report}"
    );
    eprintln!("modern server span: {modern_span:#?}");
    eprintln!("legacy server span: {legacy_span:#?}");

    let operation = |version: &'static str| {
        move |points: &[otlp::HistogramPoint]| {
            last_point(
                points,
                attr::MCP_SERVER_OPERATION_DURATION,
                &[
                    (attr::MCP_METHOD_NAME, "tools/call"),
                    (attr::GEN_AI_TOOL_NAME, WEATHER_TOOL),
                    (attr::MCP_PROTOCOL_VERSION, version),
                ],
            )
            .is_some()
        }
    };
    let session = |points: &[otlp::HistogramPoint]| {
        last_point(
            points,
            attr::MCP_SERVER_SESSION_DURATION,
            &[(attr::MCP_PROTOCOL_VERSION, LATEST_LEGACY)],
        )
        .is_some()
    };
    let points = receiver
        .wait_for_histograms(
            |p| operation(MODERN)(p) && operation(LATEST_LEGACY)(p) && session(p),
            EXPORT_WAIT,
        )
        .await;
    let report = arrived(&receiver);
    for version in [MODERN, LATEST_LEGACY] {
        let point = last_point(
            &points,
            attr::MCP_SERVER_OPERATION_DURATION,
            &[
                (attr::MCP_METHOD_NAME, "tools/call"),
                (attr::GEN_AI_TOOL_NAME, WEATHER_TOOL),
                (attr::MCP_PROTOCOL_VERSION, version),
            ],
        )
        .unwrap_or_else(|| panic!("no {version} operation duration point\n{report}"));
        assert_duration_point(point);
        let a = &point.attributes;
        assert_eq!(
            at(a, attr::GEN_AI_OPERATION_NAME),
            "execute_tool",
            "{point:?}"
        );
        assert_eq!(at(a, attr::NETWORK_TRANSPORT), "tcp", "{point:?}");
        assert_eq!(at(a, attr::NETWORK_PROTOCOL_NAME), "http", "{point:?}");
        // Low cardinality: no request id, session or peer on a metric.
        for key in [
            attr::JSONRPC_REQUEST_ID,
            attr::MCP_SESSION_ID,
            attr::CLIENT_ADDRESS,
            attr::CLIENT_PORT,
        ] {
            assert!(!a.contains_key(key), "{key} on {point:?}");
        }
    }
    let point = last_point(
        &points,
        attr::MCP_SERVER_SESSION_DURATION,
        &[(attr::MCP_PROTOCOL_VERSION, LATEST_LEGACY)],
    )
    .unwrap_or_else(|| panic!("no session duration point after DELETE\n{report}"));
    assert_duration_point(point);
    assert_eq!(
        at(&point.attributes, attr::NETWORK_PROTOCOL_NAME),
        "http",
        "{point:?}"
    );
    assert!(receiver.errors().is_empty(), "{report}");

    example.terminate().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn weather_over_stdio_exports_pipe_spans_and_flushes_when_stdin_ends() {
    let receiver = otlp::Receiver::start().await;
    // Export intervals of a minute: only the flush at the end of stdin delivers anything.
    let mut command = StdioCommand::new(example_binary("weather")).arg("--stdio");
    for (key, value) in otel_env(&receiver, false) {
        // Its logs go to the test's stderr: warnings only.
        let value = if key == "RUST_LOG" {
            "warn".into()
        } else {
            value
        };
        command = command.env(key, value);
    }
    for (mode, version) in [
        (ProtocolMode::Modern, MODERN),
        (ProtocolMode::Legacy, LATEST_LEGACY),
    ] {
        let client = Client::stdio(command.clone(), ClientConfig::new().protocol_mode(mode))
            .expect("a stdio client");
        client.connect(options()).await.expect("connect over stdio");
        call_weather(&client).await;
        // Closes the server's stdin: it shuts down, flushing.
        client.close().await.expect("close");

        let spans = receiver
            .wait_for_spans(
                |s| !server_spans(s, WEATHER_SPAN, version).is_empty(),
                EXPORT_WAIT,
            )
            .await;
        let report = arrived(&receiver);
        let span = *server_spans(&spans, WEATHER_SPAN, version)
            .first()
            .unwrap_or_else(|| {
                panic!(
                    "no {version} tools/call span from the stdio server (is the example built \
                     with `--features otel`? `cargo build -p mcp-examples --features otel \
                     --examples`)\n{report}"
                )
            });
        assert_call_span(span, version);
        let a = &span.attributes;
        assert_eq!(at(a, attr::NETWORK_TRANSPORT), "pipe", "{span:?}");
        for key in [attr::NETWORK_PROTOCOL_NAME, attr::CLIENT_ADDRESS] {
            assert!(!a.contains_key(key), "{key} on a stdio span: {span:?}");
        }
        // A legacy stdio connection is one session (in the server's store): its id's
        // fingerprint is recorded; a modern request has no session.
        if version == MODERN {
            assert!(!a.contains_key(attr::MCP_SESSION_ID), "{span:?}");
        } else {
            assert!(
                at(a, attr::MCP_SESSION_ID)
                    .as_str()
                    .is_some_and(|f| f.len() == 16 && f.chars().all(|c| c.is_ascii_hexdigit())),
                "{span:?}"
            );
        }

        // The connection's duration, recorded when stdin ended and exported by the flush.
        let session = |p: &[otlp::HistogramPoint]| {
            last_point(
                p,
                attr::MCP_SERVER_SESSION_DURATION,
                &[(attr::MCP_PROTOCOL_VERSION, version)],
            )
            .is_some()
        };
        let points = receiver.wait_for_histograms(session, EXPORT_WAIT).await;
        let report = arrived(&receiver);
        let point = last_point(
            &points,
            attr::MCP_SERVER_SESSION_DURATION,
            &[(attr::MCP_PROTOCOL_VERSION, version)],
        )
        .unwrap_or_else(|| panic!("no {version} stdio session duration point\n{report}"));
        assert_duration_point(point);
        assert!(
            !point.attributes.contains_key(attr::NETWORK_PROTOCOL_NAME),
            "{point:?}"
        );
        let call = last_point(
            &points,
            attr::MCP_SERVER_OPERATION_DURATION,
            &[
                (attr::MCP_PROTOCOL_VERSION, version),
                (attr::GEN_AI_TOOL_NAME, WEATHER_TOOL),
            ],
        )
        .unwrap_or_else(|| panic!("no {version} stdio operation duration point\n{report}"));
        assert_duration_point(call);
        assert_eq!(
            at(&call.attributes, attr::NETWORK_TRANSPORT),
            "pipe",
            "{call:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn echo_flushes_its_spans_and_metrics_on_sigterm() {
    let receiver = otlp::Receiver::start().await;
    // Export intervals of a minute: only the shutdown flush delivers anything.
    let example = Served::example("echo", &otel_env(&receiver, false)).await;
    let client = connect(&example.url, ProtocolMode::Modern).await;
    let result = client
        .call("echo")
        .arguments(json!({"value": "flushed"}))
        .unwrap()
        .await
        .expect("tools/call echo");
    assert_eq!(result.joined_text(), "flushed");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        receiver.spans().is_empty(),
        "exported before the shutdown: {}",
        arrived(&receiver)
    );
    example.terminate().await;

    let spans = receiver
        .wait_for_spans(
            |s| s.iter().any(|s| s.name == "tools/call echo"),
            EXPORT_WAIT,
        )
        .await;
    let report = arrived(&receiver);
    let span = spans
        .iter()
        .find(|s| s.name == "tools/call echo")
        .unwrap_or_else(|| panic!("no tools/call echo span after SIGTERM\n{report}"));
    assert_eq!(span.kind, "server");
    assert_eq!(at(&span.attributes, attr::GEN_AI_TOOL_NAME), "echo");
    assert_eq!(at(&span.attributes, attr::MCP_PROTOCOL_VERSION), MODERN);
    assert_eq!(at(&span.resource, "service.name"), "mcp-e2e");
    let points = receiver
        .wait_for_histograms(
            |p| {
                last_point(
                    p,
                    attr::MCP_SERVER_OPERATION_DURATION,
                    &[(attr::GEN_AI_TOOL_NAME, "echo")],
                )
                .is_some()
            },
            EXPORT_WAIT,
        )
        .await;
    let point = last_point(
        &points,
        attr::MCP_SERVER_OPERATION_DURATION,
        &[(attr::GEN_AI_TOOL_NAME, "echo")],
    )
    .unwrap_or_else(|| {
        panic!(
            "no echo operation duration point after SIGTERM\n{}",
            arrived(&receiver)
        )
    });
    assert_duration_point(point);
}

// ---------------------------------------------------------------------------------------
// The Python client's trace continues in our server
// ---------------------------------------------------------------------------------------

/// Runs `interop/python/otel_client.py` with `target` (`--url URL` or `--stdio CMD`),
/// calling the weather tool in `era`; its report.
async fn python_client(target: &[&str], era: &str) -> Value {
    let args_json = json!({"city": "Lisbon"}).to_string();
    let mut args = vec!["otel_client.py"];
    args.extend_from_slice(target);
    args.extend_from_slice(&["--tool", WEATHER_TOOL, "--args", &args_json, "--era", era]);
    let output = interop_support::run(&python(), &args, &python_dir(), PEER_TIMEOUT).await;
    assert!(
        output.success(),
        "the Python client failed\n{}",
        output.report()
    );
    let line = output.stdout.lines().last().unwrap_or_default();
    let report: Value = serde_json::from_str(line)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {line}\n{}", output.report()));
    assert_eq!(report["isError"], false, "{report}");
    report
}

/// The Python client's span of its `tools/call`.
fn python_call_span(report: &Value) -> &Value {
    let name = format!("MCP send tools/call {WEATHER_TOOL}");
    report["spans"]
        .as_array()
        .and_then(|spans| spans.iter().find(|s| s["name"] == name.as_str()))
        .unwrap_or_else(|| panic!("no {name:?} span in the Python client's report: {report}"))
}

/// Asserts that our server exported the `tools/call` span of `report`'s call as the child
/// of the Python client's span, and returns it.
async fn assert_continues(receiver: &otlp::Receiver, report: &Value, version: &str) -> otlp::Span {
    let client_span = python_call_span(report);
    assert_eq!(client_span["kind"], "CLIENT", "{client_span}");
    let trace_id = client_span["trace_id"]
        .as_str()
        .expect("trace_id")
        .to_owned();
    let span_id = client_span["span_id"].as_str().expect("span_id").to_owned();
    let spans = receiver
        .wait_for_spans(
            |s| {
                s.iter()
                    .any(|s| s.name == WEATHER_SPAN && s.trace_id == trace_id)
            },
            EXPORT_WAIT,
        )
        .await;
    let span = spans
        .iter()
        .find(|s| s.name == WEATHER_SPAN && s.trace_id == trace_id)
        .unwrap_or_else(|| {
            panic!(
                "no server span in the Python client's trace {trace_id}\nclient span: \
                 {client_span}\n{}",
                arrived(receiver)
            )
        })
        .clone();
    assert_eq!(span.kind, "server", "{span:?}");
    assert_eq!(
        span.parent_span_id.as_deref(),
        Some(span_id.as_str()),
        "our server span's parent is not the Python client span {client_span}: {span:?}"
    );
    assert_eq!(
        at(&span.attributes, attr::MCP_PROTOCOL_VERSION),
        version,
        "{span:?}"
    );
    span
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_client_spans_are_the_parents_of_our_server_spans() {
    // Fails early, with the way to install it, when the venv is missing.
    let _ = python();
    let receiver = otlp::Receiver::start().await;
    let env = otel_env(&receiver, true);
    let example = Served::example("weather", &env).await;

    let report = python_client(&["--url", &example.url], "modern").await;
    assert_eq!(report["protocolVersion"], MODERN, "{report}");
    let span = assert_continues(&receiver, &report, MODERN).await;
    assert_eq!(at(&span.attributes, attr::NETWORK_TRANSPORT), "tcp");

    let report = python_client(&["--url", &example.url], "legacy").await;
    assert_eq!(report["protocolVersion"], LATEST_LEGACY, "{report}");
    let span = assert_continues(&receiver, &report, LATEST_LEGACY).await;
    assert!(
        span.attributes.contains_key(attr::MCP_SESSION_ID),
        "{span:?}"
    );
    example.terminate().await;

    // Over stdio: the Python SDK passes the child only a few variables of its own
    // environment, so the exporter's settings go through `env`.
    let binary = example_binary("weather");
    let mut command = String::from("env");
    for (key, value) in &env {
        command.push_str(&format!(" {key}='{value}'"));
    }
    command.push_str(&format!(" '{}' --stdio", binary.display()));
    let report = python_client(&["--stdio", &command], "modern").await;
    assert_eq!(report["protocolVersion"], MODERN, "{report}");
    let span = assert_continues(&receiver, &report, MODERN).await;
    assert_eq!(at(&span.attributes, attr::NETWORK_TRANSPORT), "pipe");
}

// ---------------------------------------------------------------------------------------
// Our client's trace continues in the Python server
// ---------------------------------------------------------------------------------------

/// Our client's telemetry, recording spans in memory.
fn recording() -> (
    mcp::otel::Telemetry,
    InMemorySpanExporter,
    SdkTracerProvider,
) {
    let exporter = InMemorySpanExporter::default();
    let tracer_provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let meter_provider = SdkMeterProvider::builder().build();
    let telemetry = mcp::otel::Telemetry::new(&tracer_provider, &meter_provider);
    (telemetry, exporter, tracer_provider)
}

/// Calls the Python server's `trace_context` tool with `client`; its report of its span.
async fn python_trace_context(client: &Client) -> Value {
    let result = client
        .call("trace_context")
        .arguments(json!({}))
        .unwrap()
        .await
        .expect("tools/call trace_context");
    assert_ne!(result.is_error, Some(true), "{result:?}");
    let text = result.joined_text();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// Asserts that the Python server's span (`context`, from `trace_context`) is the child of
/// our client's `tools/call trace_context` span; returns that span.
async fn assert_parent_of(
    exporter: &InMemorySpanExporter,
    context: &Value,
    what: &str,
) -> SpanData {
    let trace_id = context["trace_id"].as_str().expect("trace_id").to_owned();
    let mut spans: Vec<SpanData> = Vec::new();
    for _ in 0..100 {
        spans = exporter.get_finished_spans().expect("the finished spans");
        if spans
            .iter()
            .any(|s| s.span_context.trace_id().to_string() == trace_id)
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let ours = spans
        .iter()
        .find(|s| {
            s.name == "tools/call trace_context"
                && s.span_context.trace_id().to_string() == trace_id
        })
        .unwrap_or_else(|| {
            let names: Vec<_> = spans
                .iter()
                .map(|s| format!("{} {:?} {}", s.name, s.span_kind, s.span_context.trace_id()))
                .collect();
            panic!(
                "{what}: the Python server's trace {trace_id} is none of our client spans' \
                 ({context}): {names:#?}"
            )
        });
    assert_eq!(ours.span_kind, SpanKind::Client, "{what}: {ours:?}");
    assert_eq!(
        context["parent_span_id"].as_str(),
        Some(ours.span_context.span_id().to_string().as_str()),
        "{what}: the Python server span's parent is not our client span ({context})"
    );
    assert_eq!(context["kind"], "SERVER", "{what}: {context}");
    assert_eq!(
        sdk_attribute(ours, attr::MCP_METHOD_NAME).as_deref(),
        Some("tools/call"),
        "{what}: {ours:?}"
    );
    assert_eq!(
        sdk_attribute(ours, attr::GEN_AI_TOOL_NAME).as_deref(),
        Some("trace_context"),
        "{what}: {ours:?}"
    );
    ours.clone()
}

/// Attribute `key` of an in-memory span, as a string.
fn sdk_attribute(span: &SpanData, key: &str) -> Option<String> {
    span.attributes
        .iter()
        .find(|kv| kv.key.as_str() == key)
        .map(|kv| kv.value.to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_spans_are_the_parents_of_python_server_spans() {
    let (telemetry, exporter, provider) = recording();
    let server = Served::python_server().await;
    let url = server.url.clone();
    for (mode, version) in [
        (ProtocolMode::Modern, MODERN),
        (ProtocolMode::Legacy, LATEST_LEGACY),
    ] {
        let client = Client::new(
            &url,
            ClientConfig::new()
                .protocol_mode(mode)
                .telemetry(telemetry.clone()),
        )
        .expect("a client");
        let info = client.connect(options()).await.expect("connect");
        assert_eq!(info.protocol_version(), version);
        let context = python_trace_context(&client).await;
        let what = format!("HTTP {version}");
        let ours = assert_parent_of(&exporter, &context, &what).await;
        assert_eq!(
            sdk_attribute(&ours, attr::MCP_PROTOCOL_VERSION).as_deref(),
            Some(version),
            "{what}: {ours:?}"
        );
        assert_eq!(
            sdk_attribute(&ours, attr::NETWORK_TRANSPORT).as_deref(),
            Some("tcp"),
            "{what}: {ours:?}"
        );
        assert_eq!(
            sdk_attribute(&ours, attr::SERVER_ADDRESS).as_deref(),
            Some("127.0.0.1"),
            "{what}: {ours:?}"
        );
        client.close().await.expect("close");
    }

    for (mode, what) in [
        (ProtocolMode::Auto, "stdio auto"),
        (ProtocolMode::Legacy, "stdio legacy"),
    ] {
        let command = StdioCommand::new(python())
            .arg(python_dir().join("otel_server.py"))
            .current_dir(python_dir());
        let client = Client::stdio(
            command,
            ClientConfig::new()
                .protocol_mode(mode)
                .telemetry(telemetry.clone()),
        )
        .expect("a stdio client");
        client.connect(options()).await.expect("connect over stdio");
        let context = python_trace_context(&client).await;
        let ours = assert_parent_of(&exporter, &context, what).await;
        // The client span says it went through a pipe.
        assert_eq!(
            sdk_attribute(&ours, attr::NETWORK_TRANSPORT).as_deref(),
            Some("pipe"),
            "{what}: {ours:?}"
        );
        client.close().await.expect("close");
    }
    let _ = provider.shutdown();
}
