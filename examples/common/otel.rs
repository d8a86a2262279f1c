//! OpenTelemetry for the example servers (the `otel` feature): traces and metrics exported
//! over OTLP/HTTP, configured entirely by the standard environment variables.
//!
//! [`serve`](crate::serve) and [`serve_with`](crate::serve_with) call [`init`] before they
//! build the server and, when it set up an exporter, record the server's traffic with
//! [`mcp::otel::Telemetry::global`] ([`Providers::instrument`]); the providers are shut down,
//! flushing what is still buffered, when serving ends: SIGINT, SIGTERM, or the end of stdin
//! with `--stdio`. So every example served that way exports when built with
//! `--features otel` and started with an endpoint:
//!
//! ```sh
//! OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 OTEL_SERVICE_NAME=weather \
//!     cargo run --example weather --features mcp-examples/otel
//! ```
//!
//! What is read, by the SDK and the exporter themselves:
//!
//! - `OTEL_EXPORTER_OTLP_ENDPOINT` (the exporter appends `/v1/traces` and `/v1/metrics`),
//!   or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` / `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT` (used
//!   as they are) for one signal only: a signal without an endpoint is not exported;
//! - `OTEL_EXPORTER_OTLP_PROTOCOL` (`http/protobuf`, the only one built in),
//!   `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_EXPORTER_OTLP_TIMEOUT`, and their per-signal forms;
//! - `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES` (the service name defaults to the
//!   example's program name, `weather`);
//! - `OTEL_BSP_SCHEDULE_DELAY` (ms between span exports, 5000 by default) and the other
//!   `OTEL_BSP_*` settings, `OTEL_METRIC_EXPORT_INTERVAL` (ms between metric exports,
//!   60000 by default);
//! - `OTEL_SDK_DISABLED=true` turns it all off.
//!
//! Without any endpoint variable nothing is set up and the server records nothing.

use opentelemetry::KeyValue;
use opentelemetry_otlp::{MetricExporter, SpanExporter};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::SdkTracerProvider;

/// The endpoint of both signals.
const ENDPOINT: &str = "OTEL_EXPORTER_OTLP_ENDPOINT";
/// The endpoint of traces only.
const TRACES_ENDPOINT: &str = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT";
/// The endpoint of metrics only.
const METRICS_ENDPOINT: &str = "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT";

/// The providers [`init`] installed as the global ones. Dropping it (or calling
/// [`shutdown`](Self::shutdown)) shuts them down, exporting what is still buffered; keep it
/// alive for as long as the server runs.
#[must_use = "dropping the providers shuts them down: keep them while the server runs"]
#[derive(Debug)]
pub struct Providers {
    tracer: Option<SdkTracerProvider>,
    meter: Option<SdkMeterProvider>,
}

/// Whether environment variable `name` is set to something.
fn set(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|v| !v.is_empty())
}

/// The endpoint the log line names: the common one, else the per-signal ones.
fn endpoints() -> String {
    [ENDPOINT, TRACES_ENDPOINT, METRICS_ENDPOINT]
        .iter()
        .filter_map(|name| std::env::var(name).ok().filter(|v| !v.is_empty()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The SDK's default resource (`OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`, the SDK's
/// own attributes), named after the program when neither variable names the service.
fn resource() -> Resource {
    let resource = Resource::builder().build();
    let unnamed = resource
        .get(&opentelemetry::Key::from_static_str("service.name"))
        .is_none_or(|name| name.as_str().starts_with("unknown_service"));
    let program = std::env::args_os()
        .next()
        .as_deref()
        .map(std::path::Path::new)
        .and_then(|path| path.file_stem())
        .map(|stem| stem.to_string_lossy().into_owned());
    match program {
        Some(program) if unnamed => Resource::builder()
            .with_attribute(KeyValue::new("service.name", program))
            .build(),
        _ => resource,
    }
}

/// Sets up OTLP/HTTP export when an endpoint is configured (see the [module](self) docs):
/// a tracer provider with a batch span exporter and a meter provider with a periodic
/// reader, both with the default resource, installed as the global providers (so that
/// [`mcp::otel::Telemetry::global`], made afterwards, records with them). `None`, with
/// nothing installed, when no endpoint variable is set, when `OTEL_SDK_DISABLED=true`, or
/// when an exporter cannot be built (the reason is logged).
pub fn init() -> Option<Providers> {
    if std::env::var("OTEL_SDK_DISABLED").is_ok_and(|v| v.trim().eq_ignore_ascii_case("true")) {
        return None;
    }
    let traces = set(ENDPOINT) || set(TRACES_ENDPOINT);
    let metrics = set(ENDPOINT) || set(METRICS_ENDPOINT);
    if !traces && !metrics {
        return None;
    }
    let resource = resource();
    let tracer = if traces {
        match SpanExporter::builder().with_http().build() {
            Ok(exporter) => Some(
                SdkTracerProvider::builder()
                    .with_batch_exporter(exporter)
                    .with_resource(resource.clone())
                    .build(),
            ),
            Err(error) => {
                tracing::error!(%error, "cannot export traces over OTLP");
                None
            }
        }
    } else {
        None
    };
    let meter = if metrics {
        match MetricExporter::builder().with_http().build() {
            Ok(exporter) => Some(
                SdkMeterProvider::builder()
                    .with_reader(PeriodicReader::builder(exporter).build())
                    .with_resource(resource)
                    .build(),
            ),
            Err(error) => {
                tracing::error!(%error, "cannot export metrics over OTLP");
                None
            }
        }
    } else {
        None
    };
    if tracer.is_none() && meter.is_none() {
        return None;
    }
    if let Some(tracer) = &tracer {
        opentelemetry::global::set_tracer_provider(tracer.clone());
    }
    if let Some(meter) = &meter {
        opentelemetry::global::set_meter_provider(meter.clone());
    }
    tracing::info!(
        endpoint = %endpoints(),
        traces = tracer.is_some(),
        metrics = meter.is_some(),
        "exporting OpenTelemetry over OTLP/HTTP"
    );
    Some(Providers { tracer, meter })
}

impl Providers {
    /// Records the server's traffic (spans and the duration metrics of the MCP semantic
    /// conventions) with the global providers [`init`] installed.
    pub fn instrument(&self, builder: mcp::ServerBuilder) -> mcp::ServerBuilder {
        builder.telemetry(self.telemetry())
    }

    /// A [`mcp::otel::Telemetry`] over the installed global providers, for a server or a
    /// client (`ClientConfig::telemetry`).
    pub fn telemetry(&self) -> mcp::otel::Telemetry {
        mcp::otel::Telemetry::global()
    }

    /// Shuts both providers down, exporting what is still buffered (this blocks until the
    /// exports are answered or time out). Dropping the providers does the same.
    pub fn shutdown(mut self) {
        self.shut_down();
    }

    fn shut_down(&mut self) {
        if let Some(tracer) = self.tracer.take()
            && let Err(error) = tracer.shutdown()
        {
            tracing::warn!(%error, "the OpenTelemetry tracer provider did not shut down cleanly");
        }
        if let Some(meter) = self.meter.take()
            && let Err(error) = meter.shutdown()
        {
            tracing::warn!(%error, "the OpenTelemetry meter provider did not shut down cleanly");
        }
    }
}

impl Drop for Providers {
    fn drop(&mut self) {
        self.shut_down();
    }
}

/// `builder` with [`Providers::instrument`] applied when `providers` is `Some` (what
/// [`init`] returned), unchanged otherwise.
pub fn instrument(
    builder: mcp::ServerBuilder,
    providers: Option<&Providers>,
) -> mcp::ServerBuilder {
    match providers {
        Some(providers) => providers.instrument(builder),
        None => builder,
    }
}
