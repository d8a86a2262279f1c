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
const MAX_BOUND: usize = 2000;

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
