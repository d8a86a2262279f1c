//! OpenTelemetry by the MCP semantic conventions (the `otel` feature), on every transport
//! (Streamable HTTP, stdio, in-process) and in both eras, against the SDK's in-memory span
//! and metric exporters: exact span names, kinds, attributes, status and parentage per
//! method family and error class; the duration histograms and their buckets; trace context
//! in `_meta` and HTTP headers; multi-round calls; server→client requests; log events;
//! session durations; sensitive data off by default.
#![allow(missing_docs)]

use std::collections::BTreeMap;
use std::time::Duration;

use mcp::client::{Client, ClientConfig};
use mcp::otel::{Telemetry, attributes as attr};
use mcp::protocol::{ElicitRequest, ElicitResult, Era};
use opentelemetry::trace::{SpanKind, Status};
use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData};
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use serde_json::json;

mod stream;

use stream::{Svc, Wire, call, connect};

/// A tracer and meter provider over in-memory exporters.
struct Recorder {
    spans: InMemorySpanExporter,
    metrics: InMemoryMetricExporter,
    tracer_provider: SdkTracerProvider,
    meter_provider: SdkMeterProvider,
}

/// A span as the tests read it.
#[derive(Clone, Debug)]
struct Seen {
    name: String,
    kind: SpanKind,
    trace: String,
    id: String,
    parent: String,
    attributes: BTreeMap<String, String>,
    status: Status,
    links: Vec<String>,
    events: Vec<(String, BTreeMap<String, String>)>,
}

impl Seen {
    fn of(span: &SpanData) -> Self {
        let attrs = |kvs: &[opentelemetry::KeyValue]| {
            kvs.iter()
                .map(|kv| (kv.key.to_string(), kv.value.to_string()))
                .collect::<BTreeMap<_, _>>()
        };
        Self {
            name: span.name.to_string(),
            kind: span.span_kind.clone(),
            trace: span.span_context.trace_id().to_string(),
            id: span.span_context.span_id().to_string(),
            parent: span.parent_span_id.to_string(),
            attributes: attrs(&span.attributes),
            status: span.status.clone(),
            links: span
                .links
                .iter()
                .map(|l| l.span_context.span_id().to_string())
                .collect(),
            events: span
                .events
                .iter()
                .map(|e| (e.name.to_string(), attrs(&e.attributes)))
                .collect(),
        }
    }

    fn attr(&self, key: &str) -> Option<&str> {
        self.attributes.get(key).map(String::as_str)
    }
}

/// One histogram point: its attributes, count and bounds.
#[derive(Clone, Debug)]
struct Point {
    attributes: BTreeMap<String, String>,
    count: u64,
    bounds: Vec<f64>,
}

impl Recorder {
    fn new() -> Self {
        let spans = InMemorySpanExporter::default();
        let metrics = InMemoryMetricExporter::default();
        let tracer_provider = SdkTracerProvider::builder()
            .with_simple_exporter(spans.clone())
            .build();
        let meter_provider = SdkMeterProvider::builder()
            .with_reader(PeriodicReader::builder(metrics.clone()).build())
            .build();
        Self {
            spans,
            metrics,
            tracer_provider,
            meter_provider,
        }
    }

    fn telemetry(&self) -> Telemetry {
        Telemetry::new(&self.tracer_provider, &self.meter_provider)
    }

    fn spans(&self) -> Vec<Seen> {
        self.spans
            .get_finished_spans()
            .unwrap()
            .iter()
            .map(Seen::of)
            .collect()
    }

    /// The finished spans named `name`, of `kind` when given, in the order they ended.
    fn named(&self, name: &str, kind: Option<SpanKind>) -> Vec<Seen> {
        self.spans()
            .into_iter()
            .filter(|s| s.name == name && kind.as_ref().is_none_or(|k| *k == s.kind))
            .collect()
    }

    /// Waits (at most 5 s) for a span named `name` of `kind`.
    async fn span(&self, name: &str, kind: SpanKind) -> Seen {
        for _ in 0..100 {
            if let Some(s) = self
                .spans()
                .into_iter()
                .find(|s| s.name == name && s.kind == kind)
            {
                return s;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("no {kind:?} span {name:?} in {:#?}", self.spans());
    }

    /// The points of histogram `name` in the latest export.
    fn histogram(&self, name: &str) -> Vec<Point> {
        self.meter_provider.force_flush().unwrap();
        let exported = self.metrics.get_finished_metrics().unwrap();
        let mut points = Vec::new();
        if let Some(last) = exported.last() {
            for scope in last.scope_metrics() {
                for metric in scope.metrics().filter(|m| m.name() == name) {
                    assert_eq!(metric.unit(), "s", "{name}");
                    if let AggregatedMetrics::F64(MetricData::Histogram(h)) = metric.data() {
                        for p in h.data_points() {
                            points.push(Point {
                                attributes: p
                                    .attributes()
                                    .map(|kv| (kv.key.to_string(), kv.value.to_string()))
                                    .collect(),
                                count: p.count(),
                                bounds: p.bounds().collect(),
                            });
                        }
                    }
                }
            }
        }
        points
    }
}

fn prompt_args() -> BTreeMap<String, String> {
    BTreeMap::from([("name".to_owned(), "Ada".to_owned())])
}

fn server(recorder: &Recorder) -> mcp::Server {
    mcp::Server::builder(Svc)
        .telemetry(recorder.telemetry())
        .build()
        .unwrap()
}

fn client_config(recorder: &Recorder) -> ClientConfig {
    ClientConfig::new().telemetry(recorder.telemetry())
}

/// `config` with an elicitation handler that accepts, confirming.
fn confirming(config: ClientConfig) -> ClientConfig {
    config.elicitation_handler(|_: ElicitRequest| async {
        Ok(ElicitResult::accept(
            json!({"ok": true}).as_object().unwrap().clone(),
        ))
    })
}

fn version(era: Era) -> &'static str {
    match era {
        Era::Modern => "2026-07-28",
        Era::Legacy => "2025-11-25",
    }
}

/// `network.transport` of each side of `wire`: (client, server).
fn transports(wire: Wire) -> (&'static str, &'static str) {
    match wire {
        Wire::Http => ("tcp", "tcp"),
        // The stdio bridge: the client talks to an in-process pipe end, the server reads
        // stdio framing.
        Wire::Stdio => ("inproc", "pipe"),
        Wire::InProcess => ("inproc", "inproc"),
    }
}

async fn every<F, Fut>(test: F)
where
    F: Fn(Wire, Era) -> Fut,
    Fut: Future<Output = ()>,
{
    stream::every(test).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_call_is_a_client_span_parent_of_a_server_span_with_the_conventions_attributes() {
    every(|wire, era| async move {
        let recorder = Recorder::new();
        let client = connect(wire, era, server(&recorder), client_config(&recorder)).await;
        let text = call(&client, "echo", json!({"text": "hi"}))
            .await
            .unwrap()
            .joined_text();
        assert_eq!(text, "hi");
        let here = format!("{wire:?} {era:?}");
        let sent = recorder.span("tools/call echo", SpanKind::Client).await;
        let served = recorder.span("tools/call echo", SpanKind::Server).await;
        assert_eq!(served.trace, sent.trace, "{here}");
        assert_eq!(
            served.parent, sent.id,
            "{here}: the server span is the client's child"
        );
        let (client_net, server_net) = transports(wire);
        for (span, net) in [(&sent, client_net), (&served, server_net)] {
            assert_eq!(
                span.attr(attr::MCP_METHOD_NAME),
                Some("tools/call"),
                "{here}"
            );
            assert_eq!(span.attr(attr::GEN_AI_TOOL_NAME), Some("echo"), "{here}");
            assert_eq!(span.attr(attr::GEN_AI_OPERATION_NAME), Some("execute_tool"));
            assert_eq!(
                span.attr(attr::MCP_PROTOCOL_VERSION),
                Some(version(era)),
                "{here}"
            );
            assert_eq!(span.attr(attr::NETWORK_TRANSPORT), Some(net), "{here}");
            assert!(span.attr(attr::JSONRPC_REQUEST_ID).is_some(), "{here}");
            assert_eq!(span.attr(attr::ERROR_TYPE), None, "{here}");
            assert_eq!(span.status, Status::Unset, "{here}");
            // Sensitive data is off by default.
            assert_eq!(span.attr(attr::GEN_AI_TOOL_CALL_ARGUMENTS), None, "{here}");
            assert_eq!(span.attr(attr::GEN_AI_TOOL_CALL_RESULT), None, "{here}");
        }
        let session = served.attr(attr::MCP_SESSION_ID);
        match (wire, era) {
            (_, Era::Modern) => assert_eq!(session, None, "{here}: never on 2026-07-28"),
            (Wire::Http, Era::Legacy) => {
                let id = client.session_id().unwrap();
                assert_eq!(session.map(str::len), Some(16), "{here}");
                assert!(
                    !id.contains(session.unwrap()),
                    "{here}: a fingerprint, not the id"
                );
            }
            _ => {}
        }
        if wire == Wire::Http {
            assert_eq!(served.attr(attr::NETWORK_PROTOCOL_NAME), Some("http"));
            assert_eq!(served.attr(attr::NETWORK_PROTOCOL_VERSION), Some("1.1"));
            assert_eq!(served.attr(attr::CLIENT_ADDRESS), Some("127.0.0.1"));
            assert!(served.attr(attr::CLIENT_PORT).is_some());
            assert_eq!(sent.attr(attr::SERVER_ADDRESS), Some("127.0.0.1"));
            assert!(sent.attr(attr::SERVER_PORT).is_some());
        }
        for (metric, with_peer) in [
            (attr::MCP_SERVER_OPERATION_DURATION, false),
            (attr::MCP_CLIENT_OPERATION_DURATION, wire == Wire::Http),
        ] {
            let points = recorder.histogram(metric);
            let call = points
                .iter()
                .find(|p| {
                    p.attributes.get(attr::GEN_AI_TOOL_NAME).map(String::as_str) == Some("echo")
                })
                .unwrap_or_else(|| panic!("{here}: no {metric} point for the call in {points:#?}"));
            assert_eq!(call.count, 1, "{here}");
            assert_eq!(call.bounds, attr::DURATION_BUCKETS.to_vec(), "{here}");
            let a = &call.attributes;
            assert_eq!(a.get(attr::MCP_METHOD_NAME).unwrap(), "tools/call");
            assert_eq!(a.get(attr::MCP_PROTOCOL_VERSION).unwrap(), version(era));
            assert_eq!(a.get(attr::GEN_AI_OPERATION_NAME).unwrap(), "execute_tool");
            assert!(
                !a.contains_key(attr::JSONRPC_REQUEST_ID),
                "{here}: not a metric label"
            );
            assert!(
                !a.contains_key(attr::MCP_SESSION_ID),
                "{here}: not a metric label"
            );
            assert!(!a.contains_key(attr::CLIENT_ADDRESS), "{here}");
            assert_eq!(a.contains_key(attr::SERVER_ADDRESS), with_peer, "{here}");
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_are_classified_as_the_conventions_say_on_each_side() {
    every(|wire, era| async move {
        let recorder = Recorder::new();
        let client = connect(wire, era, server(&recorder), client_config(&recorder)).await;
        let here = format!("{wire:?} {era:?}");

        // A panic: -32603, an error on both sides.
        let err = call(&client, "boom", json!({})).await.unwrap_err();
        assert_eq!(err.code().map(|c| c.0), Some(-32603), "{here}");
        for kind in [SpanKind::Server, SpanKind::Client] {
            let s = recorder.span("tools/call boom", kind.clone()).await;
            assert_eq!(
                s.attr(attr::RPC_RESPONSE_STATUS_CODE),
                Some("-32603"),
                "{here} {kind:?}"
            );
            assert_eq!(s.attr(attr::ERROR_TYPE), Some("-32603"), "{here} {kind:?}");
            assert!(matches!(s.status, Status::Error { .. }), "{here} {kind:?}");
        }

        // An unknown tool: -32602, the caller's mistake on the server, an error on the client.
        let err = call(&client, "nope", json!({})).await.unwrap_err();
        assert_eq!(err.code().map(|c| c.0), Some(-32602), "{here}");
        let served = recorder.span("tools/call nope", SpanKind::Server).await;
        assert_eq!(
            served.attr(attr::RPC_RESPONSE_STATUS_CODE),
            Some("-32602"),
            "{here}"
        );
        assert_eq!(served.attr(attr::ERROR_TYPE), None, "{here}");
        assert_eq!(served.status, Status::Unset, "{here}");
        let sent = recorder.span("tools/call nope", SpanKind::Client).await;
        assert_eq!(sent.attr(attr::ERROR_TYPE), Some("-32602"), "{here}");
        assert!(matches!(sent.status, Status::Error { .. }), "{here}");

        // A tool error: a result with isError, `tool_error` on both sides.
        let tool_error = match call(&client, "count", json!({})).await {
            Ok(result) => result.is_error(),
            Err(e) => matches!(e, mcp::client::ClientError::ToolCall(_)),
        };
        let s = recorder.span("tools/call count", SpanKind::Server).await;
        if tool_error {
            assert_eq!(s.attr(attr::ERROR_TYPE), Some("tool_error"), "{here}");
            assert!(matches!(s.status, Status::Error { .. }), "{here}");
            let c = recorder.span("tools/call count", SpanKind::Client).await;
            assert_eq!(c.attr(attr::ERROR_TYPE), Some("tool_error"), "{here}");
        } else {
            assert_eq!(s.attr(attr::ERROR_TYPE), None, "{here}");
        }

        let errors: Vec<_> = recorder
            .histogram(attr::MCP_SERVER_OPERATION_DURATION)
            .into_iter()
            .filter_map(|p| p.attributes.get(attr::ERROR_TYPE).cloned())
            .collect();
        assert!(errors.contains(&"-32603".to_owned()), "{here}: {errors:?}");
        assert!(!errors.contains(&"-32602".to_owned()), "{here}: {errors:?}");
    })
    .await;
}

struct Library;

#[mcp::service(name = "library", version = "1.0.0")]
impl Library {
    /// Greets someone.
    #[prompt]
    fn greet(&self, name: String) -> String {
        format!("Say hello to {name}")
    }

    /// The greeting.
    #[resource(uri = "library://hello", mime_type = "text/plain")]
    fn hello(&self) -> String {
        "hello".into()
    }

    /// Adds.
    pub fn add(&self, a: i64, b: i64) -> i64 {
        a + b
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prompts_resources_and_lists_are_named_by_their_method_and_target() {
    every(|wire, era| async move {
        let recorder = Recorder::new();
        let server = mcp::Server::builder(Library)
            .telemetry(recorder.telemetry())
            .build()
            .unwrap();
        let client = connect(wire, era, server, client_config(&recorder)).await;
        let here = format!("{wire:?} {era:?}");
        client.list_tools().await.unwrap();
        client.get_prompt("greet", prompt_args()).await.unwrap();
        client.read_resource("library://hello").await.unwrap();

        let prompt = recorder.span("prompts/get greet", SpanKind::Server).await;
        assert_eq!(
            prompt.attr(attr::GEN_AI_PROMPT_NAME),
            Some("greet"),
            "{here}"
        );
        assert_eq!(prompt.attr(attr::GEN_AI_OPERATION_NAME), None, "{here}");
        assert_eq!(
            prompt.attr("gen_ai.prompt.variable.name"),
            None,
            "{here}: opt-in"
        );
        let read = recorder.span("resources/read", SpanKind::Server).await;
        assert_eq!(
            read.attr(attr::MCP_RESOURCE_URI),
            Some("library://hello"),
            "{here}"
        );
        let list = recorder.span("tools/list", SpanKind::Server).await;
        assert_eq!(list.attr(attr::GEN_AI_TOOL_NAME), None, "{here}");
        let sent = recorder.span("tools/list", SpanKind::Client).await;
        assert_eq!(list.parent, sent.id, "{here}");
        // The resource URI is a span attribute, not a metric label.
        let points = recorder.histogram(attr::MCP_SERVER_OPERATION_DURATION);
        assert!(
            points
                .iter()
                .all(|p| !p.attributes.contains_key(attr::MCP_RESOURCE_URI)),
            "{here}"
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sensitive_data_is_recorded_only_when_turned_on() {
    let recorder = Recorder::new();
    let server = mcp::Server::builder(Library)
        .telemetry(recorder.telemetry().with_sensitive_data(true))
        .build()
        .unwrap();
    let client = Client::in_process(server.in_process(), ClientConfig::new()).unwrap();
    client
        .connect(mcp::Implementation::new("t", "1"))
        .await
        .unwrap();
    call(&client, "add", json!({"a": 2, "b": 3})).await.unwrap();
    client.get_prompt("greet", prompt_args()).await.unwrap();
    let call = recorder.span("tools/call add", SpanKind::Server).await;
    assert_eq!(
        call.attr(attr::GEN_AI_TOOL_CALL_ARGUMENTS),
        Some(r#"{"a":2,"b":3}"#)
    );
    assert!(
        call.attr(attr::GEN_AI_TOOL_CALL_RESULT)
            .unwrap()
            .contains('5')
    );
    let prompt = recorder.span("prompts/get greet", SpanKind::Server).await;
    assert_eq!(prompt.attr("gen_ai.prompt.variable.name"), Some("Ada"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_round_of_a_multi_round_call_is_its_own_span_linked_to_the_first() {
    let recorder = Recorder::new();
    let config = confirming(client_config(&recorder));
    let client = connect(Wire::Http, Era::Modern, server(&recorder), config).await;
    let text = call(&client, "confirm", json!({}))
        .await
        .unwrap()
        .joined_text();
    assert_eq!(text, "confirmed true");
    let sent: Vec<_> = recorder.named("tools/call confirm", Some(SpanKind::Client));
    assert_eq!(sent.len(), 2, "{sent:#?}");
    assert!(sent[0].links.is_empty());
    assert_eq!(
        sent[1].links,
        vec![sent[0].id.clone()],
        "the second round links the first"
    );
    let served: Vec<_> = recorder.named("tools/call confirm", Some(SpanKind::Server));
    assert_eq!(served.len(), 2);
    for round in &served {
        assert!(
            sent.iter().any(|c| c.id == round.parent),
            "each round has its client parent"
        );
    }
    // On the server too, whatever the client: the first round's span travels, sealed, in
    // the request state.
    assert!(served[0].links.is_empty());
    assert_eq!(served[1].links, vec![served[0].id.clone()], "{served:#?}");
}

/// A call of three rounds keeping its own state.
struct Steps;

#[mcp::service(name = "steps", version = "1.0.0")]
impl Steps {
    /// Asks twice, counting the rounds in its request state.
    pub async fn steps(
        &self,
        context: mcp::Context,
    ) -> Result<mcp::ToolOutput<String>, mcp::ToolError> {
        let form = || mcp::elicit_form("Sure?", mcp::form_of::<stream::Confirm>());
        match context.request_state() {
            None => Ok(mcp::InputRequired::new()
                .elicit("a", form())
                .state("1")
                .into()),
            Some("1") => Ok(mcp::InputRequired::new()
                .elicit("b", form())
                .state("2")
                .into()),
            Some(other) => Ok(mcp::ToolOutput::Done(format!("state {other}"))),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_handler_sees_its_own_state_and_every_round_links_the_first() {
    let recorder = Recorder::new();
    let server = mcp::Server::builder(Steps)
        .telemetry(recorder.telemetry())
        .build()
        .unwrap();
    let config = confirming(ClientConfig::new());
    let client = connect(Wire::Http, Era::Modern, server, config).await;
    let text = call(&client, "steps", json!({}))
        .await
        .unwrap()
        .joined_text();
    assert_eq!(text, "state 2", "the mark never reaches the handler");
    let served: Vec<_> = recorder.named("tools/call steps", None);
    assert_eq!(served.len(), 3, "{served:#?}");
    assert!(served[0].links.is_empty());
    assert_eq!(served[1].links, vec![served[0].id.clone()]);
    assert_eq!(
        served[2].links,
        vec![served[0].id.clone()],
        "the first, not the previous"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_later_round_links_the_first_on_the_server_without_client_telemetry() {
    // A client that records nothing (as the TypeScript one): the server still links its
    // rounds, and the handler never sees the mark in its state.
    let recorder = Recorder::new();
    let config = confirming(ClientConfig::new());
    let client = connect(Wire::InProcess, Era::Modern, server(&recorder), config).await;
    let text = call(&client, "confirm", json!({}))
        .await
        .unwrap()
        .joined_text();
    assert_eq!(text, "confirmed true");
    let served: Vec<_> = recorder.named("tools/call confirm", None);
    assert_eq!(served.len(), 2, "{served:#?}");
    assert_eq!(served[1].links, vec![served[0].id.clone()]);
    assert_ne!(
        served[0].trace, served[1].trace,
        "two requests, two traces, one link"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_legacy_elicitation_is_a_client_span_on_the_server_and_a_server_span_on_the_client() {
    for wire in [Wire::Http, Wire::Stdio] {
        let recorder = Recorder::new();
        let config = confirming(client_config(&recorder));
        let client = connect(wire, Era::Legacy, server(&recorder), config).await;
        let text = call(&client, "confirm", json!({}))
            .await
            .unwrap()
            .joined_text();
        assert_eq!(text, "confirmed true", "{wire:?}");
        let call = recorder.span("tools/call confirm", SpanKind::Server).await;
        let asked = recorder.span("elicitation/create", SpanKind::Client).await;
        assert_eq!(
            asked.parent, call.id,
            "{wire:?}: asked while serving the call"
        );
        assert_eq!(
            asked.attr(attr::MCP_METHOD_NAME),
            Some("elicitation/create")
        );
        let answered = recorder.span("elicitation/create", SpanKind::Server).await;
        assert_eq!(
            answered.parent, asked.id,
            "{wire:?}: the client's span is the child"
        );
        assert_eq!(answered.trace, call.trace, "{wire:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn log_messages_land_in_the_call_span_whatever_the_client_asked() {
    every(|wire, era| async move {
        let recorder = Recorder::new();
        let client = connect(wire, era, server(&recorder), ClientConfig::new()).await;
        call(&client, "work", json!({})).await.unwrap();
        let served = recorder.span("tools/call work", SpanKind::Server).await;
        let (name, event) = served
            .events
            .iter()
            .find(|(n, _)| n == attr::LOG_EVENT)
            .unwrap_or_else(|| panic!("{wire:?} {era:?}: no log event in {served:#?}"));
        assert_eq!(name, attr::LOG_EVENT);
        assert_eq!(event.get(attr::LOG_LEVEL).map(String::as_str), Some("info"));
        assert_eq!(
            event.get(attr::LOG_DATA).map(String::as_str),
            Some("working")
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_log_message_is_a_client_span_of_the_call_on_the_server_and_a_server_span_on_the_client()
{
    for wire in [Wire::Http, Wire::Stdio, Wire::InProcess] {
        // A legacy session gets every level until it sets one.
        let recorder = Recorder::new();
        let client = connect(
            wire,
            Era::Legacy,
            server(&recorder),
            client_config(&recorder),
        )
        .await;
        call(&client, "work", json!({})).await.unwrap();
        let served = recorder.span("tools/call work", SpanKind::Server).await;
        let sent = recorder
            .span("notifications/message", SpanKind::Client)
            .await;
        assert_eq!(
            sent.parent, served.id,
            "{wire:?}: sent while serving the call"
        );
        let received = recorder
            .span("notifications/message", SpanKind::Server)
            .await;
        assert_eq!(
            received.parent, sent.id,
            "{wire:?}: its context travels in _meta"
        );
        assert_eq!(received.attr(attr::JSONRPC_REQUEST_ID), None);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notifications_are_spans_on_the_receiving_side() {
    let recorder = Recorder::new();
    let _client = connect(
        Wire::Http,
        Era::Legacy,
        server(&recorder),
        client_config(&recorder),
    )
    .await;
    let sent = recorder
        .span("notifications/initialized", SpanKind::Client)
        .await;
    let received = recorder
        .span("notifications/initialized", SpanKind::Server)
        .await;
    assert_eq!(received.parent, sent.id);
    assert_eq!(
        received.attr(attr::JSONRPC_REQUEST_ID),
        None,
        "a notification has no id"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_and_connections_record_their_duration_on_both_sides() {
    // A legacy HTTP session, ended by the client's DELETE.
    let recorder = Recorder::new();
    let client = connect(
        Wire::Http,
        Era::Legacy,
        server(&recorder),
        client_config(&recorder),
    )
    .await;
    call(&client, "echo", json!({"text": "x"})).await.unwrap();
    client.close().await.unwrap();
    let served = recorder.histogram(attr::MCP_SERVER_SESSION_DURATION);
    assert_eq!(served.len(), 1, "{served:#?}");
    assert_eq!(served[0].count, 1);
    assert_eq!(served[0].bounds, attr::DURATION_BUCKETS.to_vec());
    let a = &served[0].attributes;
    assert_eq!(
        a.get(attr::MCP_PROTOCOL_VERSION).map(String::as_str),
        Some("2025-11-25")
    );
    assert_eq!(
        a.get(attr::NETWORK_PROTOCOL_NAME).map(String::as_str),
        Some("http")
    );
    let sent = recorder.histogram(attr::MCP_CLIENT_SESSION_DURATION);
    assert_eq!(sent.len(), 1, "{sent:#?}");
    assert!(sent[0].attributes.contains_key(attr::SERVER_ADDRESS));

    // A stdio connection of either era, ended by the end of its input.
    for era in [Era::Legacy, Era::Modern] {
        let recorder = Recorder::new();
        let client = connect(Wire::Stdio, era, server(&recorder), ClientConfig::new()).await;
        call(&client, "echo", json!({"text": "x"})).await.unwrap();
        client.close().await.unwrap();
        drop(client);
        let mut points = Vec::new();
        for _ in 0..100 {
            points = recorder.histogram(attr::MCP_SERVER_SESSION_DURATION);
            if !points.is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(points.len(), 1, "{era:?}: {points:#?}");
        assert_eq!(
            points[0]
                .attributes
                .get(attr::MCP_PROTOCOL_VERSION)
                .map(String::as_str),
            Some(version(era)),
        );
        assert!(
            !points[0]
                .attributes
                .contains_key(attr::NETWORK_PROTOCOL_NAME)
        );
    }
}

/// Posts a modern `tools/call` of `echo` with `traceparent` in `_meta` and/or a header.
async fn post(url: &str, in_meta: Option<&str>, in_header: Option<&str>) {
    let mut meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
    });
    if let Some(tp) = in_meta {
        meta["traceparent"] = json!(tp);
    }
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "x"}, "_meta": meta}});
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "echo")
        .json(&body);
    if let Some(tp) = in_header {
        request = request.header("traceparent", tp);
    }
    let response = request.send().await.unwrap();
    assert_eq!(response.status(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_meta_context_is_the_parent_and_the_http_one_a_link() {
    let recorder = Recorder::new();
    let listener = mcp::HttpServer::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let app = mcp::transport::http::router("/mcp", server(&recorder));
    tokio::spawn(async move { listener.serve(app.into_make_service()).await });

    let meta = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    let header = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    // Both: `_meta` is the parent, the HTTP request's context a link.
    post(&url, Some(meta), Some(header)).await;
    let both = recorder.span("tools/call echo", SpanKind::Server).await;
    assert_eq!(both.trace, "4bf92f3577b34da6a3ce929d0e0e4736");
    assert_eq!(both.parent, "00f067aa0ba902b7");
    assert_eq!(both.links, vec!["b7ad6b7169203331".to_owned()]);
    recorder.spans.reset();
    // Only the header: it is the parent.
    post(&url, None, Some(header)).await;
    let only = recorder.span("tools/call echo", SpanKind::Server).await;
    assert_eq!(only.trace, "0af7651916cd43dd8448eb211c80319c");
    assert_eq!(only.parent, "b7ad6b7169203331");
    assert!(only.links.is_empty());
    recorder.spans.reset();
    // A malformed one: a new trace.
    post(&url, Some("00-zz-yy-01"), None).await;
    let root = recorder.span("tools/call echo", SpanKind::Server).await;
    assert_eq!(root.parent, "0000000000000000");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_made_inside_a_tool_continues_the_trace() {
    // The client's span is the child of whatever span is current where it is called.
    let recorder = Recorder::new();
    let client = connect(
        Wire::InProcess,
        Era::Modern,
        server(&recorder),
        client_config(&recorder),
    )
    .await;
    let tracer = opentelemetry::trace::TracerProvider::tracer(&recorder.tracer_provider, "app");
    let parent = opentelemetry::trace::Tracer::start(&tracer, "app work");
    let cx = opentelemetry::trace::TraceContextExt::current_with_span(parent);
    let parent_id = opentelemetry::trace::TraceContextExt::span(&cx)
        .span_context()
        .span_id()
        .to_string();
    opentelemetry::trace::FutureExt::with_context(call(&client, "echo", json!({"text": "x"})), cx)
        .await
        .unwrap();
    let sent = recorder.span("tools/call echo", SpanKind::Client).await;
    assert_eq!(sent.parent, parent_id);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listen_is_one_span_that_lasts_as_long_as_its_stream() {
    // The server needs list changes to listen for.
    let recorder = Recorder::new();
    let server = mcp::Server::builder(Svc)
        .list_changed(true)
        .telemetry(recorder.telemetry())
        .build()
        .unwrap();
    let listener = mcp::HttpServer::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let app = mcp::transport::http::router("/mcp", server);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        listener
            .serve(app.into_make_service())
            .with_graceful_shutdown(async {
                let _ = stopped.await;
            })
            .await
    });
    let parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    let body = json!({"jsonrpc": "2.0", "id": "l1", "method": "subscriptions/listen",
        "params": {"notifications": {"toolsListChanged": true}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {},
            "traceparent": parent}}});
    let mut response = reqwest::Client::new()
        .post(&url)
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "subscriptions/listen")
        .json(&body)
        .send()
        .await
        .unwrap();
    let ack = response.chunk().await.unwrap().unwrap();
    assert!(
        String::from_utf8_lossy(&ack).contains("l1"),
        "the acknowledgement"
    );
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(
        recorder.named("subscriptions/listen", None).is_empty(),
        "the span lasts while the stream is open"
    );
    // Shutting down ends the stream (with its result); the span ends with it.
    stop.send(()).unwrap();
    while response.chunk().await.ok().flatten().is_some() {}
    let span = recorder
        .span("subscriptions/listen", SpanKind::Server)
        .await;
    assert_eq!(span.parent, "00f067aa0ba902b7");
    assert_eq!(span.attr(attr::JSONRPC_REQUEST_ID), Some("l1"));
    assert_eq!(span.attr(attr::MCP_PROTOCOL_VERSION), Some("2026-07-28"));
    assert_eq!(span.status, Status::Unset);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_without_an_answer_is_an_error_of_its_transport_on_the_client() {
    // Nothing listens on port 1: the discovery request never reaches a server.
    let recorder = Recorder::new();
    let config = client_config(&recorder).protocol_mode(mcp::client::ProtocolMode::Modern);
    let client = Client::new("http://127.0.0.1:1/mcp", config).unwrap();
    client
        .connect(mcp::Implementation::new("t", "1"))
        .await
        .unwrap_err();
    let sent = recorder.span("server/discover", SpanKind::Client).await;
    assert_eq!(sent.attr(attr::ERROR_TYPE), Some("transport"));
    assert_eq!(
        sent.attr(attr::RPC_RESPONSE_STATUS_CODE),
        None,
        "no answer, no code"
    );
    assert!(matches!(sent.status, Status::Error { .. }));
    assert_eq!(sent.attr(attr::SERVER_PORT), Some("1"));
}
