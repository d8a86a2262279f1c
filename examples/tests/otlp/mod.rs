//! A real OTLP/HTTP receiver for the tests that run an example server exporting its
//! telemetry with `opentelemetry-otlp` and then assert on what it exported.
//!
//! [`Receiver::start`] binds a loopback port and serves `POST /v1/traces`, `POST /v1/metrics`
//! and `POST /v1/logs` the way an OpenTelemetry collector does: the body is the official
//! `Export*ServiceRequest` message (decoded with `opentelemetry-proto`), in protobuf
//! (`application/x-protobuf`) or in the OTLP JSON encoding (`application/json`), optionally
//! `Content-Encoding: gzip`; the answer is `200` with an empty `Export*ServiceResponse` in the
//! request's encoding. A body that does not decode answers `400` (recorded in
//! [`Receiver::errors`]), an unknown content type or encoding `415`.
//!
//! What arrives is flattened into plain records that are easy to assert on: [`Span`],
//! [`HistogramPoint`], [`MetricPoint`] (sums and gauges) and [`LogRecord`]; ids are lowercase
//! hex and attribute values are JSON (see [`Span::attributes`]).
//!
//! ```ignore
//! mod otlp;
//!
//! let receiver = otlp::Receiver::start().await;
//! let child = Command::new(example_binary("echo"))
//!     .env("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint())
//!     .spawn()?;
//! // ... drive the server ...
//! let spans = receiver
//!     .wait_for_spans(|s| s.iter().any(|s| s.name == "tools/call echo"), Duration::from_secs(10))
//!     .await;
//! let call = spans.iter().find(|s| s.name == "tools/call echo").expect("the call's span");
//! assert_eq!(call.kind, "server");
//! ```
//!
//! The SDK batches: a child process exports spans every `OTEL_BSP_SCHEDULE_DELAY` ms (5000 by
//! default) and metrics every `OTEL_METRIC_EXPORT_INTERVAL` ms (60000), or when it shuts its
//! providers down. Set both low in the child's environment, and wait for the data before
//! killing it: `Child::kill` is SIGKILL, which flushes nothing.
//!
//! When the exporting SDK runs in the test's own process, the test needs a multi-thread
//! runtime (`#[tokio::test(flavor = "multi_thread")]`): the SDK's `shutdown()`/`force_flush()`
//! block their thread until the export is answered, and the receiver is a task on the same
//! runtime.

#![allow(dead_code)] // each test crate uses a different subset

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Read as _;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use opentelemetry_proto::tonic::collector::logs::v1::{
    ExportLogsServiceRequest, ExportLogsServiceResponse,
};
use opentelemetry_proto::tonic::collector::metrics::v1::{
    ExportMetricsServiceRequest, ExportMetricsServiceResponse,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::{AnyValue, InstrumentationScope, KeyValue, any_value};
use opentelemetry_proto::tonic::metrics::v1::{Metric, NumberDataPoint, metric, number_data_point};
use opentelemetry_proto::tonic::resource::v1::Resource;
use prost::Message as _;

/// Attribute key → value, with OTLP `AnyValue`s turned into JSON: string, integer, double
/// (`null` for NaN/infinity), bool, array, key-value list (an object); bytes become a
/// lowercase hex string.
pub type Attributes = BTreeMap<String, serde_json::Value>;

/// How often the `wait_for_*` methods look again.
const POLL: Duration = Duration::from_millis(50);
/// The largest request body accepted, before and after gzip.
const MAX_BODY: usize = 32 * 1024 * 1024;

/// One exported span, flattened with its scope and resource.
#[derive(Debug, Clone, PartialEq)]
pub struct Span {
    /// The span's name.
    pub name: String,
    /// `"internal"`, `"server"`, `"client"`, `"producer"`, `"consumer"` or `"unspecified"`.
    pub kind: &'static str,
    /// 32 lowercase hex digits.
    pub trace_id: String,
    /// 16 lowercase hex digits.
    pub span_id: String,
    /// The parent's span id (16 hex digits); `None` for a root span.
    pub parent_span_id: Option<String>,
    /// The span's attributes.
    pub attributes: Attributes,
    /// 0 unset, 1 ok, 2 error.
    pub status_code: i32,
    /// The status description (set with an error status).
    pub status_message: String,
    /// The links, as (trace id, span id) in hex.
    pub links: Vec<(String, String)>,
    /// The events, as (name, attributes).
    pub events: Vec<(String, Attributes)>,
    /// The instrumentation scope's name (the tracer's name).
    pub scope: String,
    /// The resource's attributes (`service.name`, …).
    pub resource: Attributes,
    /// Start time, nanoseconds since the Unix epoch.
    pub start_time_unix_nano: u64,
    /// End time, nanoseconds since the Unix epoch.
    pub end_time_unix_nano: u64,
}

/// One data point of a histogram metric (explicit buckets).
#[derive(Debug, Clone, PartialEq)]
pub struct HistogramPoint {
    /// The metric's (instrument's) name.
    pub metric: String,
    /// The metric's unit (`"s"`, `"ms"`, …).
    pub unit: String,
    /// The point's attributes.
    pub attributes: Attributes,
    /// How many values were recorded.
    pub count: u64,
    /// Their sum (0.0 when the exporter left it out).
    pub sum: f64,
    /// The explicit bucket boundaries.
    pub bounds: Vec<f64>,
    /// The count in each bucket (`bounds.len() + 1` of them).
    pub bucket_counts: Vec<u64>,
    /// The instrumentation scope's name (the meter's name).
    pub scope: String,
    /// The resource's attributes.
    pub resource: Attributes,
}

/// One data point of a sum (counter, up-down counter) or gauge metric. Exponential
/// histograms and summaries are not kept.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricPoint {
    /// The metric's (instrument's) name.
    pub metric: String,
    /// `"sum"` or `"gauge"`.
    pub kind: &'static str,
    /// The metric's unit.
    pub unit: String,
    /// The point's attributes.
    pub attributes: Attributes,
    /// The value (an integer point converted to `f64`).
    pub value: f64,
}

/// One exported log record.
#[derive(Debug, Clone, PartialEq)]
pub struct LogRecord {
    /// The body, as JSON (`null` when absent).
    pub body: serde_json::Value,
    /// The severity number (9 info, 13 warn, 17 error, …; 0 unset).
    pub severity_number: i32,
    /// The severity text (`"INFO"`, …).
    pub severity_text: String,
    /// The event name, if the record is an event.
    pub event_name: String,
    /// The record's attributes.
    pub attributes: Attributes,
    /// The trace it was emitted in (32 hex digits), if any.
    pub trace_id: Option<String>,
    /// The span it was emitted in (16 hex digits), if any.
    pub span_id: Option<String>,
    /// The instrumentation scope's name.
    pub scope: String,
    /// The resource's attributes.
    pub resource: Attributes,
}

/// Everything received so far.
#[derive(Default)]
struct Store {
    spans: Vec<Span>,
    histograms: Vec<HistogramPoint>,
    metric_points: Vec<MetricPoint>,
    log_records: Vec<LogRecord>,
    requests: Vec<(String, String)>,
    errors: Vec<String>,
}

type Shared = Arc<Mutex<Store>>;

/// Locks the store; a panic elsewhere while it was held does not make it unusable.
fn lock(store: &Mutex<Store>) -> MutexGuard<'_, Store> {
    store.lock().unwrap_or_else(PoisonError::into_inner)
}

/// An OTLP/HTTP receiver serving on a loopback port until it is dropped.
pub struct Receiver {
    addr: SocketAddr,
    store: Shared,
    server: tokio::task::JoinHandle<()>,
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.server.abort();
    }
}

impl Receiver {
    /// Binds `127.0.0.1:0` and serves the OTLP/HTTP routes on a task of the current tokio
    /// runtime. Panics if no loopback port can be bound.
    pub async fn start() -> Receiver {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
            .await
            .expect("bind the OTLP receiver to a loopback port");
        let addr = listener.local_addr().expect("the OTLP receiver's address");
        let store = Shared::default();
        let app = Router::new()
            .route("/v1/traces", post(traces))
            .route("/v1/metrics", post(metrics))
            .route("/v1/logs", post(logs))
            .fallback(unknown_path)
            .layer(DefaultBodyLimit::max(MAX_BODY))
            .with_state(store.clone());
        let server = tokio::spawn(async move {
            // Serving only ends with an accept error; the test then sees no data.
            let _ = axum::serve(listener, app).await;
        });
        Receiver {
            addr,
            store,
            server,
        }
    }

    /// `http://127.0.0.1:PORT`: the value for `OTEL_EXPORTER_OTLP_ENDPOINT` (the exporter adds
    /// `/v1/traces` etc. to it). An endpoint set in code with `with_endpoint`, or through
    /// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` and the like, is used as is: append the path.
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The spans received so far, in arrival order.
    pub fn spans(&self) -> Vec<Span> {
        lock(&self.store).spans.clone()
    }

    /// The histogram data points received so far, in arrival order. With cumulative
    /// temporality (the default) each export repeats every point, so look at the last one
    /// for a metric and attribute set.
    pub fn histograms(&self) -> Vec<HistogramPoint> {
        lock(&self.store).histograms.clone()
    }

    /// The sum and gauge data points received so far, in arrival order.
    pub fn metric_points(&self) -> Vec<MetricPoint> {
        lock(&self.store).metric_points.clone()
    }

    /// The log records received so far, in arrival order.
    pub fn log_records(&self) -> Vec<LogRecord> {
        lock(&self.store).log_records.clone()
    }

    /// Every request received, as (path, `Content-Type` header or `""`), including the ones
    /// answered with an error and those to unknown paths.
    pub fn requests(&self) -> Vec<(String, String)> {
        lock(&self.store).requests.clone()
    }

    /// Why requests were refused (`"POST /v1/traces: 400 Bad Request: …"`), in arrival order.
    pub fn errors(&self) -> Vec<String> {
        lock(&self.store).errors.clone()
    }

    /// Polls [`spans`](Self::spans) every 50 ms until `pred` holds or `timeout` passes, and
    /// returns the spans either way, so that the caller's assertion shows what did arrive.
    pub async fn wait_for_spans(
        &self,
        pred: impl Fn(&[Span]) -> bool,
        timeout: Duration,
    ) -> Vec<Span> {
        wait(|| self.spans(), pred, timeout).await
    }

    /// Like [`wait_for_spans`](Self::wait_for_spans), for [`histograms`](Self::histograms).
    pub async fn wait_for_histograms(
        &self,
        pred: impl Fn(&[HistogramPoint]) -> bool,
        timeout: Duration,
    ) -> Vec<HistogramPoint> {
        wait(|| self.histograms(), pred, timeout).await
    }

    /// Like [`wait_for_spans`](Self::wait_for_spans), for [`log_records`](Self::log_records).
    pub async fn wait_for_log_records(
        &self,
        pred: impl Fn(&[LogRecord]) -> bool,
        timeout: Duration,
    ) -> Vec<LogRecord> {
        wait(|| self.log_records(), pred, timeout).await
    }
}

async fn wait<T>(
    get: impl Fn() -> Vec<T>,
    pred: impl Fn(&[T]) -> bool,
    timeout: Duration,
) -> Vec<T> {
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        let items = get();
        if pred(&items) || tokio::time::Instant::now() >= deadline {
            return items;
        }
        tokio::time::sleep(POLL).await;
    }
}

// ---- the HTTP side ----

async fn traces(
    State(store): State<Shared>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    handle(
        &store,
        "/v1/traces",
        &headers,
        body,
        |bytes| serde_json::from_slice::<ExportTraceServiceRequest>(bytes),
        ExportTraceServiceResponse::default().encode_to_vec(),
        ingest_traces,
    )
}

async fn metrics(
    State(store): State<Shared>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    handle(
        &store,
        "/v1/metrics",
        &headers,
        body,
        |bytes| serde_json::from_slice::<ExportMetricsServiceRequest>(bytes),
        ExportMetricsServiceResponse::default().encode_to_vec(),
        ingest_metrics,
    )
}

async fn logs(
    State(store): State<Shared>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    handle(
        &store,
        "/v1/logs",
        &headers,
        body,
        |bytes| serde_json::from_slice::<ExportLogsServiceRequest>(bytes),
        ExportLogsServiceResponse::default().encode_to_vec(),
        ingest_logs,
    )
}

async fn unknown_path(State(store): State<Shared>, uri: Uri, headers: HeaderMap) -> StatusCode {
    let mut store = lock(&store);
    store
        .requests
        .push((uri.path().to_owned(), content_type(&headers)));
    store.errors.push(format!(
        "{}: 404 Not Found: not an OTLP/HTTP path",
        uri.path()
    ));
    StatusCode::NOT_FOUND
}

/// The two OTLP/HTTP encodings.
#[derive(Clone, Copy)]
enum Format {
    Protobuf,
    Json,
}

/// Records the request, decodes the body and answers; `empty_protobuf` is the protobuf
/// encoding of the empty `Export*ServiceResponse` (whose JSON encoding is `{}`).
fn handle<T: prost::Message + Default>(
    store: &Shared,
    path: &str,
    headers: &HeaderMap,
    body: Result<Bytes, BytesRejection>,
    from_json: fn(&[u8]) -> serde_json::Result<T>,
    empty_protobuf: Vec<u8>,
    ingest: fn(&mut Store, T),
) -> Response {
    lock(store)
        .requests
        .push((path.to_owned(), content_type(headers)));
    match decode(headers, body, from_json) {
        Ok((request, format)) => {
            ingest(&mut lock(store), request);
            match format {
                Format::Protobuf => (
                    [(header::CONTENT_TYPE, "application/x-protobuf")],
                    empty_protobuf,
                )
                    .into_response(),
                Format::Json => {
                    ([(header::CONTENT_TYPE, "application/json")], "{}").into_response()
                }
            }
        }
        Err((status, why)) => {
            lock(store)
                .errors
                .push(format!("POST {path}: {status}: {why}"));
            (status, why).into_response()
        }
    }
}

fn content_type(headers: &HeaderMap) -> String {
    headers
        .get(header::CONTENT_TYPE)
        .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned())
        .unwrap_or_default()
}

fn decode<T: prost::Message + Default>(
    headers: &HeaderMap,
    body: Result<Bytes, BytesRejection>,
    from_json: fn(&[u8]) -> serde_json::Result<T>,
) -> Result<(T, Format), (StatusCode, String)> {
    let body = body.map_err(|rejection| (rejection.status(), rejection.body_text()))?;

    let content_type = content_type(headers);
    let media_type = content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    let format = match media_type.as_str() {
        "application/x-protobuf" | "application/protobuf" => Format::Protobuf,
        "application/json" => Format::Json,
        _ => {
            return Err((
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                format!("unsupported content type {content_type:?}"),
            ));
        }
    };

    let encoding = headers
        .get(header::CONTENT_ENCODING)
        .map(|value| {
            String::from_utf8_lossy(value.as_bytes())
                .trim()
                .to_ascii_lowercase()
        })
        .unwrap_or_default();
    let gunzipped;
    let bytes: &[u8] = match encoding.as_str() {
        "" | "identity" => &body,
        "gzip" => {
            gunzipped = gunzip(&body)?;
            &gunzipped
        }
        other => {
            return Err((
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                format!("unsupported content encoding {other:?}"),
            ));
        }
    };

    let request = match format {
        Format::Protobuf => T::decode(bytes).map_err(|error| {
            (
                StatusCode::BAD_REQUEST,
                format!("invalid protobuf body: {error}"),
            )
        })?,
        Format::Json => from_json(bytes).map_err(|error| {
            (
                StatusCode::BAD_REQUEST,
                format!("invalid OTLP JSON body: {error}"),
            )
        })?,
    };
    Ok((request, format))
}

fn gunzip(body: &[u8]) -> Result<Vec<u8>, (StatusCode, String)> {
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(body)
        .take(MAX_BODY as u64 + 1)
        .read_to_end(&mut out)
        .map_err(|error| {
            (
                StatusCode::BAD_REQUEST,
                format!("invalid gzip body: {error}"),
            )
        })?;
    if out.len() > MAX_BODY {
        return Err((
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("gzip body inflates past {MAX_BODY} bytes"),
        ));
    }
    Ok(out)
}

// ---- flattening ----

fn ingest_traces(store: &mut Store, request: ExportTraceServiceRequest) {
    for resource_spans in request.resource_spans {
        let resource = resource_attributes(resource_spans.resource.as_ref());
        for scope_spans in resource_spans.scope_spans {
            let scope = scope_name(scope_spans.scope.as_ref());
            for span in scope_spans.spans {
                let (status_code, status_message) = span
                    .status
                    .map(|status| (status.code, status.message))
                    .unwrap_or_default();
                store.spans.push(Span {
                    name: span.name,
                    kind: span_kind(span.kind),
                    trace_id: hex(&span.trace_id),
                    span_id: hex(&span.span_id),
                    parent_span_id: (!span.parent_span_id.is_empty())
                        .then(|| hex(&span.parent_span_id)),
                    attributes: attributes(&span.attributes),
                    status_code,
                    status_message,
                    links: span
                        .links
                        .iter()
                        .map(|link| (hex(&link.trace_id), hex(&link.span_id)))
                        .collect(),
                    events: span
                        .events
                        .iter()
                        .map(|event| (event.name.clone(), attributes(&event.attributes)))
                        .collect(),
                    scope: scope.clone(),
                    resource: resource.clone(),
                    start_time_unix_nano: span.start_time_unix_nano,
                    end_time_unix_nano: span.end_time_unix_nano,
                });
            }
        }
    }
}

fn ingest_metrics(store: &mut Store, request: ExportMetricsServiceRequest) {
    for resource_metrics in request.resource_metrics {
        let resource = resource_attributes(resource_metrics.resource.as_ref());
        for scope_metrics in resource_metrics.scope_metrics {
            let scope = scope_name(scope_metrics.scope.as_ref());
            for mut metric in scope_metrics.metrics {
                match metric.data.take() {
                    Some(metric::Data::Histogram(histogram)) => {
                        for point in histogram.data_points {
                            store.histograms.push(HistogramPoint {
                                metric: metric.name.clone(),
                                unit: metric.unit.clone(),
                                attributes: attributes(&point.attributes),
                                count: point.count,
                                sum: point.sum.unwrap_or_default(),
                                bounds: point.explicit_bounds,
                                bucket_counts: point.bucket_counts,
                                scope: scope.clone(),
                                resource: resource.clone(),
                            });
                        }
                    }
                    Some(metric::Data::Sum(sum)) => {
                        number_points(store, &metric, "sum", sum.data_points);
                    }
                    Some(metric::Data::Gauge(gauge)) => {
                        number_points(store, &metric, "gauge", gauge.data_points);
                    }
                    Some(metric::Data::ExponentialHistogram(_) | metric::Data::Summary(_))
                    | None => {}
                }
            }
        }
    }
}

fn number_points(
    store: &mut Store,
    metric: &Metric,
    kind: &'static str,
    points: Vec<NumberDataPoint>,
) {
    for point in points {
        let value = match point.value {
            Some(number_data_point::Value::AsDouble(value)) => value,
            Some(number_data_point::Value::AsInt(value)) => value as f64,
            None => 0.0,
        };
        store.metric_points.push(MetricPoint {
            metric: metric.name.clone(),
            kind,
            unit: metric.unit.clone(),
            attributes: attributes(&point.attributes),
            value,
        });
    }
}

fn ingest_logs(store: &mut Store, request: ExportLogsServiceRequest) {
    for resource_logs in request.resource_logs {
        let resource = resource_attributes(resource_logs.resource.as_ref());
        for scope_logs in resource_logs.scope_logs {
            let scope = scope_name(scope_logs.scope.as_ref());
            for record in scope_logs.log_records {
                store.log_records.push(LogRecord {
                    body: to_json(record.body.as_ref()),
                    severity_number: record.severity_number,
                    severity_text: record.severity_text,
                    event_name: record.event_name,
                    attributes: attributes(&record.attributes),
                    trace_id: (!record.trace_id.is_empty()).then(|| hex(&record.trace_id)),
                    span_id: (!record.span_id.is_empty()).then(|| hex(&record.span_id)),
                    scope: scope.clone(),
                    resource: resource.clone(),
                });
            }
        }
    }
}

fn span_kind(kind: i32) -> &'static str {
    match kind {
        1 => "internal",
        2 => "server",
        3 => "client",
        4 => "producer",
        5 => "consumer",
        _ => "unspecified",
    }
}

fn scope_name(scope: Option<&InstrumentationScope>) -> String {
    scope.map(|scope| scope.name.clone()).unwrap_or_default()
}

fn resource_attributes(resource: Option<&Resource>) -> Attributes {
    resource
        .map(|resource| attributes(&resource.attributes))
        .unwrap_or_default()
}

fn attributes(pairs: &[KeyValue]) -> Attributes {
    pairs
        .iter()
        .map(|pair| (pair.key.clone(), to_json(pair.value.as_ref())))
        .collect()
}

fn to_json(value: Option<&AnyValue>) -> serde_json::Value {
    use any_value::Value;
    match value.and_then(|value| value.value.as_ref()) {
        None | Some(Value::StringValueStrindex(_)) => serde_json::Value::Null,
        Some(Value::StringValue(value)) => value.clone().into(),
        Some(Value::BoolValue(value)) => (*value).into(),
        Some(Value::IntValue(value)) => (*value).into(),
        // `From<f64>` gives null for NaN and the infinities.
        Some(Value::DoubleValue(value)) => (*value).into(),
        Some(Value::ArrayValue(array)) => array
            .values
            .iter()
            .map(|value| to_json(Some(value)))
            .collect(),
        Some(Value::KvlistValue(list)) => serde_json::Value::Object(
            list.values
                .iter()
                .map(|pair| (pair.key.clone(), to_json(pair.value.as_ref())))
                .collect(),
        ),
        Some(Value::BytesValue(bytes)) => hex(bytes).into(),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut out, byte| {
            let _ = write!(out, "{byte:02x}");
            out
        })
}
