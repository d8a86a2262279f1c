//! OpenTelemetry traces and metrics by the MCP semantic conventions
//! (`open-telemetry/semantic-conventions-genai`, `docs/gen-ai/mcp.md`), on the server and the
//! client, over every transport and in both eras (the `otel` feature).
//!
//! One line turns it on: [`ServerBuilder::telemetry`](crate::ServerBuilder::telemetry) for a
//! server, `ClientConfig::telemetry` for a client, each with a [`Telemetry`] over your
//! tracer and meter providers (or the global ones). Exporters stay your choice: OTLP, stdout,
//! Prometheus, anything the `opentelemetry_sdk` takes.
//!
//! What you get:
//!
//! - a span per request and notification: `mcp.server` (kind `SERVER`) for what a side
//!   receives, `mcp.client` (kind `CLIENT`) for what it sends, named
//!   `{mcp.method.name} {target}` (`tools/call get_weather`, `prompts/get summarize`) or just
//!   the method, with the [`attributes`] the conventions list; a server's requests to its
//!   client (elicitation, sampling, roots) are `mcp.client` spans on the server;
//! - the four duration histograms ([`attributes::MCP_SERVER_OPERATION_DURATION`] and its
//!   siblings) with the conventions' buckets;
//! - trace context carried in `params._meta` (`traceparent`, `tracestate`, `baggage`) and in
//!   HTTP headers: a received request's span is the child of the sender's, whatever SDK
//!   sent it, and links the HTTP request's context when that is another;
//! - [`Context::log`](crate::Context::log) messages as span events ([`attributes::LOG_EVENT`])
//!   of the call's span, whether or not the client asked for log messages.
//!
//! Error status follows the conventions: on the server, `-32603` and `-32000`…`-32099`
//! (the server's own failures) set `error.type` and an `ERROR` status, while a request the
//! server could not serve (`-32602`, `-32601`, …) only records `rpc.response.status_code`; on
//! the client every JSON-RPC error counts. A tool result with `isError: true` is
//! `error.type = tool_error`.
//!
//! Sensitive data (a call's arguments and result, a prompt's variables) is recorded only
//! when you turn it on ([`Telemetry::with_sensitive_data`]); a legacy session id is recorded
//! as a fingerprint, never as the id.

pub mod attributes;
mod durations;
mod operation;
mod outbound;
mod propagate;
mod sessions;

use std::sync::Arc;

use opentelemetry::global::BoxedTracer;
use opentelemetry::metrics::{Histogram, MeterProvider};
use opentelemetry::propagation::{TextMapCompositePropagator, TextMapPropagator};
use opentelemetry::trace::{TraceContextExt as _, TracerProvider};
use opentelemetry::{InstrumentationScope, KeyValue};

pub(crate) use operation::{Facts, Lasting, Network, Operation, Outcome, Peer, Side};
pub(crate) use outbound::Outbound;
#[cfg(feature = "client")]
pub(crate) use propagate::into_headers;
pub(crate) use propagate::{into_params, meta_of, received};
pub(crate) use sessions::SessionClock;

/// What a server or a client records its MCP traffic with: a tracer, the four duration
/// histograms, the propagator that carries trace context in `_meta` and headers, and what
/// is recorded beyond the defaults. Cheap to clone.
///
/// ```
/// struct Echo;
///
/// #[mcp::service(name = "echo", version = "1.0.0")]
/// impl Echo {
///     /// Echoes its input.
///     pub fn echo(&self, text: String) -> String { text }
/// }
///
/// let server = mcp::Server::builder(Echo)
///     .telemetry(mcp::otel::Telemetry::global())
///     .build()?;
/// # let _ = server;
/// # Ok::<(), mcp::Error>(())
/// ```
#[derive(Clone)]
pub struct Telemetry {
    /// One allocation: an operation holds a reference for its whole life.
    shared: Arc<Shared>,
}

/// What a [`Telemetry`] and its clones share.
#[derive(Clone)]
struct Shared {
    tracer: Arc<BoxedTracer>,
    server_operation: durations::Durations,
    client_operation: durations::Durations,
    server_session: Histogram<f64>,
    client_session: Histogram<f64>,
    propagator: Arc<dyn TextMapPropagator + Send + Sync>,
    sensitive: bool,
    uri_in_name: bool,
}

impl std::fmt::Debug for Telemetry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Telemetry")
            .field("sensitive", &self.shared.sensitive)
            .field("uri_in_name", &self.shared.uri_in_name)
            .finish_non_exhaustive()
    }
}

/// The instrumentation scope the spans and metrics are recorded under: `mcp`, at this
/// crate's version.
fn scope() -> InstrumentationScope {
    InstrumentationScope::builder("mcp")
        .with_version(env!("CARGO_PKG_VERSION"))
        .build()
}

impl Telemetry {
    /// Records with the global tracer and meter providers
    /// (`opentelemetry::global::set_tracer_provider`, `set_meter_provider`): set them before
    /// the first request (a provider set later is not seen).
    pub fn global() -> Self {
        let tracer = opentelemetry::global::tracer_provider().tracer_with_scope(scope());
        Self::with_tracer(tracer, &*opentelemetry::global::meter_provider())
    }

    /// Records with `tracer_provider` and `meter_provider`.
    ///
    /// ```
    /// use opentelemetry_sdk::metrics::SdkMeterProvider;
    /// use opentelemetry_sdk::trace::SdkTracerProvider;
    ///
    /// let telemetry = mcp::otel::Telemetry::new(
    ///     &SdkTracerProvider::builder().build(),
    ///     &SdkMeterProvider::builder().build(),
    /// );
    /// # let _ = telemetry;
    /// ```
    pub fn new<T, M>(tracer_provider: &T, meter_provider: &M) -> Self
    where
        T: TracerProvider,
        T::Tracer: Send + Sync + 'static,
        <T::Tracer as opentelemetry::trace::Tracer>::Span: Send + Sync + 'static,
        M: MeterProvider,
    {
        let tracer = BoxedTracer::new(Box::new(tracer_provider.tracer_with_scope(scope())));
        Self::with_tracer(tracer, meter_provider)
    }

    fn with_tracer(tracer: BoxedTracer, meter_provider: &(impl MeterProvider + ?Sized)) -> Self {
        let meter = meter_provider.meter_with_scope(scope());
        let histogram = |name: &'static str, description: &'static str| {
            meter
                .f64_histogram(name)
                .with_unit("s")
                .with_description(description)
                .with_boundaries(attributes::DURATION_BUCKETS.to_vec())
                .build()
        };
        let shared = Shared {
            tracer: Arc::new(tracer),
            server_operation: durations::Durations::new(histogram(
                attributes::MCP_SERVER_OPERATION_DURATION,
                "MCP request or notification duration as observed on the receiver",
            )),
            client_operation: durations::Durations::new(histogram(
                attributes::MCP_CLIENT_OPERATION_DURATION,
                "MCP request or notification duration as observed on the sender",
            )),
            server_session: histogram(
                attributes::MCP_SERVER_SESSION_DURATION,
                "The duration of the MCP session as observed on the MCP server",
            ),
            client_session: histogram(
                attributes::MCP_CLIENT_SESSION_DURATION,
                "The duration of the MCP session as observed on the MCP client",
            ),
            propagator: Arc::new(TextMapCompositePropagator::new(vec![
                Box::new(opentelemetry_sdk::propagation::TraceContextPropagator::new()),
                Box::new(opentelemetry_sdk::propagation::BaggagePropagator::new()),
            ])),
            sensitive: false,
            uri_in_name: false,
        };
        Self {
            shared: Arc::new(shared),
        }
    }

    /// Also records what may be sensitive: a `tools/call`'s arguments
    /// (`gen_ai.tool.call.arguments`) and result (`gen_ai.tool.call.result`), a
    /// `prompts/get`'s arguments (`gen_ai.prompt.variable.<name>`). Off by default.
    #[must_use]
    pub fn with_sensitive_data(mut self, on: bool) -> Self {
        Arc::make_mut(&mut self.shared).sensitive = on;
        self
    }

    /// Names a resource request's span after its URI too (`resources/read file:///a.txt`).
    /// Off by default: URIs make span names of high cardinality.
    #[must_use]
    pub fn with_resource_uri_in_span_name(mut self, on: bool) -> Self {
        Arc::make_mut(&mut self.shared).uri_in_name = on;
        self
    }

    /// Carries trace context with `propagator` instead of W3C Trace Context and Baggage
    /// (`traceparent`, `tracestate`, `baggage`).
    #[must_use]
    pub fn with_propagator(
        mut self,
        propagator: impl TextMapPropagator + Send + Sync + 'static,
    ) -> Self {
        Arc::make_mut(&mut self.shared).propagator = Arc::new(propagator);
        self
    }

    /// The propagator.
    pub(crate) fn propagator(&self) -> &(dyn TextMapPropagator + Send + Sync) {
        &*self.shared.propagator
    }

    /// Records a session's (or connection's) end: `started` is when it began, `error` what
    /// ended it, if it failed.
    pub(crate) fn session_ended(
        &self,
        side: Side,
        lasted: std::time::Duration,
        version: Option<&str>,
        network: &Network,
        error: Option<&'static str>,
    ) {
        let mut points = Vec::with_capacity(5);
        if let Some(version) = version {
            points.push(KeyValue::new(
                attributes::MCP_PROTOCOL_VERSION,
                version.to_owned(),
            ));
        }
        if network.http {
            points.push(KeyValue::new(attributes::NETWORK_PROTOCOL_NAME, "http"));
        }
        if let Some(error) = error {
            points.push(KeyValue::new(attributes::ERROR_TYPE, error));
        }
        let histogram = match side {
            Side::Received => &self.shared.server_session,
            Side::Sent => {
                if let Some(peer) = &network.peer {
                    points.push(KeyValue::new(attributes::SERVER_ADDRESS, peer.address()));
                    points.push(KeyValue::new(
                        attributes::SERVER_PORT,
                        i64::from(peer.port()),
                    ));
                }
                &self.shared.client_session
            }
        };
        histogram.record(lasted.as_secs_f64(), &points);
    }
}

/// Adds a log message to the span of the operation the current task runs in, if it
/// records: what [`Context::log`](crate::Context::log) sends a client also lands in the
/// trace.
pub(crate) fn log_event(level: &str, logger: Option<&str>, data: &serde_json::Value) {
    opentelemetry::Context::map_current(|cx| {
        let span = cx.span();
        if !span.is_recording() {
            return;
        }
        let mut event = Vec::with_capacity(3);
        event.push(KeyValue::new(attributes::LOG_LEVEL, level.to_owned()));
        if let Some(logger) = logger {
            event.push(KeyValue::new(attributes::LOG_LOGGER, logger.to_owned()));
        }
        let data = match data {
            serde_json::Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        event.push(KeyValue::new(attributes::LOG_DATA, data));
        span.add_event(attributes::LOG_EVENT, event);
    });
}
