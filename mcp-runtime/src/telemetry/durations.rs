//! A duration histogram that records each attribute set through a bound instrument: the
//! SDK then skips hashing the set's attributes (SipHash over every key and value, field by
//! field) on every request, which was a quarter of what telemetry cost a `tools/call`. The
//! bound instrument is found by the set's bytes, laid end to end in a reused buffer and
//! hashed in one go. The sets are few (methods × tools × versions × outcomes); past
//! [`MAX_BOUND`] of them, a point is recorded the ordinary way.

use std::collections::HashMap;
use std::sync::{Arc, PoisonError, RwLock};

use super::operation::Point;
use opentelemetry::metrics::{BoundHistogram, Histogram};

/// How many attribute sets are bound at most (the SDK's default cardinality limit).
pub(crate) const MAX_BOUND: usize = 2000;

/// The bound instruments, by the bytes of their attribute set ([`Point::key`]).
type Bound = HashMap<Box<[u8]>, BoundHistogram<f64>, foldhash::fast::RandomState>;

thread_local! {
    /// The buffer [`Point::key`] writes into.
    static KEY: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A histogram of durations in seconds, and its bound attribute sets.
#[derive(Clone)]
pub(crate) struct Durations {
    histogram: Histogram<f64>,
    bound: Arc<RwLock<Bound>>,
}

impl Durations {
    pub(crate) fn new(histogram: Histogram<f64>) -> Self {
        Self {
            histogram,
            bound: Arc::default(),
        }
    }

    /// Records `seconds` with the attributes of `point`.
    pub(crate) fn record(&self, seconds: f64, point: &Point) {
        KEY.with_borrow_mut(|buffer| {
            buffer.clear();
            point.key(buffer);
            {
                let bound = self.bound.read().unwrap_or_else(PoisonError::into_inner);
                if let Some(histogram) = bound.get(buffer.as_slice()) {
                    histogram.record(seconds);
                    return;
                }
            }
            let mut bound = self.bound.write().unwrap_or_else(PoisonError::into_inner);
            if let Some(histogram) = bound.get(buffer.as_slice()) {
                histogram.record(seconds);
            } else if bound.len() < MAX_BOUND {
                let histogram = self.histogram.bind(&point.attributes());
                histogram.record(seconds);
                bound.insert(buffer.as_slice().into(), histogram);
            } else {
                drop(bound);
                self.histogram.record(seconds, &point.attributes());
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::otel::{Facts, Network, Operation, Outcome, Side, Telemetry};
    use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData};
    use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};

    #[test]
    fn past_the_bound_points_are_recorded_unbound_and_none_is_lost() {
        let exporter = InMemoryMetricExporter::default();
        let meters = SdkMeterProvider::builder()
            .with_reader(PeriodicReader::builder(exporter.clone()).build())
            .build();
        let telemetry = Telemetry::new(
            &opentelemetry_sdk::trace::SdkTracerProvider::builder().build(),
            &meters,
        );
        let network = Network::local(false);
        let call = |tool: &str| {
            let facts = Facts {
                method: "tools/call",
                id: None,
                version: Some("2026-07-28"),
                target: Some(tool),
                session: None,
                arguments: None,
                network: &network,
            };
            let cx = opentelemetry::Context::new();
            Operation::start(&telemetry, Side::Received, &facts, &cx, Vec::new())
                .finish(Outcome::Result(None));
        };
        // One set more than are bound, and a bound one again.
        for n in 0..=MAX_BOUND {
            call(&format!("tool{n}"));
        }
        call("tool0");
        let bound = telemetry
            .shared
            .server_operation
            .bound
            .read()
            .unwrap()
            .len();
        assert_eq!(bound, MAX_BOUND);
        meters.force_flush().unwrap();
        let exported = exporter.get_finished_metrics().unwrap();
        let mut counted = 0;
        for scope in exported.last().unwrap().scope_metrics() {
            for metric in scope.metrics() {
                if let AggregatedMetrics::F64(MetricData::Histogram(h)) = metric.data() {
                    counted += h.data_points().map(|p| p.count()).sum::<u64>();
                }
            }
        }
        assert_eq!(counted, u64::try_from(MAX_BOUND).unwrap() + 2);
    }
}
