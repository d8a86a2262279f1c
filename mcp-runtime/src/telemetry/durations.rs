//! A duration histogram that records each attribute set through a bound instrument: the
//! SDK then skips hashing the set's attributes (SipHash over every key and value, field by
//! field) on every request, which was a quarter of what telemetry cost a `tools/call`. The
//! bound instrument is found by the set's bytes, laid end to end in a reused buffer and
//! hashed in one go. The sets are few (methods × tools × versions × outcomes); past
//! [`MAX_BOUND`] of them, a point is recorded the ordinary way.

use std::collections::HashMap;
use std::sync::{Arc, PoisonError, RwLock};

use opentelemetry::metrics::{BoundHistogram, Histogram};
use opentelemetry::{KeyValue, Value};

/// How many attribute sets are bound at most (the SDK's default cardinality limit).
const MAX_BOUND: usize = 2000;

/// The bound instruments, by the bytes of their attribute set ([`key`]).
type Bound = HashMap<Box<[u8]>, BoundHistogram<f64>, foldhash::fast::RandomState>;

thread_local! {
    /// The buffer [`key`] writes into.
    static KEY: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Writes the attribute set `attributes` into `out` unambiguously: each key and value with
/// its length.
fn key(attributes: &[KeyValue], out: &mut Vec<u8>) {
    let mut field = |tag: u8, bytes: &[u8]| {
        out.push(tag);
        out.extend_from_slice(&u32::try_from(bytes.len()).unwrap_or(u32::MAX).to_le_bytes());
        out.extend_from_slice(bytes);
    };
    for kv in attributes {
        field(b'k', kv.key.as_str().as_bytes());
        match &kv.value {
            Value::String(s) => field(b's', s.as_str().as_bytes()),
            Value::I64(n) => field(b'i', &n.to_le_bytes()),
            Value::Bool(b) => field(b'b', &[u8::from(*b)]),
            Value::F64(f) => field(b'f', &f.to_le_bytes()),
            other => field(b'a', format!("{other:?}").as_bytes()),
        }
    }
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

    /// Records `seconds` with `attributes`.
    pub(crate) fn record(&self, seconds: f64, attributes: Vec<KeyValue>) {
        KEY.with_borrow_mut(|buffer| {
            buffer.clear();
            key(&attributes, buffer);
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
                let histogram = self.histogram.bind(&attributes);
                histogram.record(seconds);
                bound.insert(buffer.as_slice().into(), histogram);
            } else {
                drop(bound);
                self.histogram.record(seconds, &attributes);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_tell_attribute_sets_apart() {
        let of = |kvs: &[KeyValue]| {
            let mut out = Vec::new();
            key(kvs, &mut out);
            out
        };
        let a = of(&[KeyValue::new("a", "bc")]);
        assert_ne!(a, of(&[KeyValue::new("ab", "c")]));
        assert_ne!(
            a,
            of(&[KeyValue::new("a", "bc"), KeyValue::new("x", 1_i64)])
        );
        assert_eq!(a, of(&[KeyValue::new("a", "bc".to_owned())]));
        assert_ne!(
            of(&[KeyValue::new("p", 1_i64)]),
            of(&[KeyValue::new("p", 2_i64)])
        );
    }
}
