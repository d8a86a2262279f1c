//! Trace context in and out of a message: `params._meta` (unprefixed `traceparent`,
//! `tracestate`, `baggage`, SEP-414) and HTTP headers, which peers read either of.

use http::{HeaderMap, HeaderName};
use opentelemetry::Context;
use opentelemetry::propagation::{Extractor, Injector, TextMapPropagator};
use opentelemetry::trace::{Link, TraceContextExt as _};
use serde_json::Value;

use crate::protocol::JsonObject;

const TRACEPARENT: HeaderName = HeaderName::from_static("traceparent");
const BAGGAGE: HeaderName = HeaderName::from_static("baggage");

/// Reads the string members of a `_meta` object.
struct MetaReader<'a>(&'a JsonObject);

impl Extractor for MetaReader<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key)?.as_str()
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(String::as_str).collect()
    }
}

/// Writes members of a `_meta` object; what the caller put there already stays.
struct MetaWriter<'a>(&'a mut JsonObject);

impl Injector for MetaWriter<'_> {
    fn set(&mut self, key: &str, value: String) {
        self.0
            .entry(key.to_owned())
            .or_insert_with(|| Value::String(value));
    }
}

/// Reads HTTP headers.
struct HeaderReader<'a>(&'a HeaderMap);

impl Extractor for HeaderReader<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key)?.to_str().ok()
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(HeaderName::as_str).collect()
    }
}

/// Writes HTTP headers.
#[cfg(feature = "client")]
struct HeaderWriter<'a>(&'a mut HeaderMap);

#[cfg(feature = "client")]
impl Injector for HeaderWriter<'_> {
    fn set(&mut self, key: &str, value: String) {
        if let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(key.as_bytes()),
            http::HeaderValue::from_str(&value),
        ) {
            self.0.insert(name, value);
        }
    }
}

/// The parent of a received message's span and the links it carries: the context in its
/// `_meta` when there is a valid one, linked to the transport's (its HTTP headers) when
/// that is another; else the transport's context, else the ambient one.
pub(crate) fn received(
    propagator: &(dyn TextMapPropagator + Send + Sync),
    meta: Option<&JsonObject>,
    headers: Option<&HeaderMap>,
) -> (Context, Vec<Link>) {
    let ambient = Context::current();
    // Most requests carry no trace context: the headers are read only when they do.
    let transport = headers
        .filter(|h| h.contains_key(TRACEPARENT) || h.contains_key(BAGGAGE))
        .map(|h| propagator.extract_with_context(&ambient, &HeaderReader(h)))
        .filter(|cx| cx.span().span_context().is_valid());
    let in_meta = meta
        .filter(|m| m.contains_key("traceparent") || m.contains_key("baggage"))
        .map(|m| propagator.extract_with_context(&ambient, &MetaReader(m)))
        .filter(|cx| cx.span().span_context().is_valid());
    match (in_meta, transport) {
        (Some(parent), Some(transport)) => {
            let link = transport.span().span_context().clone();
            let links = if link.span_id() == parent.span().span_context().span_id() {
                Vec::new()
            } else {
                vec![Link::with_context(link)]
            };
            (parent, links)
        }
        (Some(parent), None) | (None, Some(parent)) => (parent, Vec::new()),
        (None, None) => (ambient, Vec::new()),
    }
}

/// The `_meta` of a message's params, where senders put their trace context.
pub(crate) fn meta_of(params: Option<&JsonObject>) -> Option<&JsonObject> {
    params?.get("_meta")?.as_object()
}

/// Writes the context of `cx` into the `_meta` of a message's `params` (made when absent;
/// keys already there stay). Params that are not an object are left alone.
pub(crate) fn into_params(
    propagator: &(dyn TextMapPropagator + Send + Sync),
    cx: &Context,
    params: &mut Value,
) {
    let Value::Object(params) = params else {
        return;
    };
    let meta = params
        .entry("_meta")
        .or_insert_with(|| Value::Object(JsonObject::new()));
    if let Value::Object(meta) = meta {
        propagator.inject_context(cx, &mut MetaWriter(meta));
    }
}

/// Writes the context of `cx` into HTTP headers.
#[cfg(feature = "client")]
pub(crate) fn into_headers(
    propagator: &(dyn TextMapPropagator + Send + Sync),
    cx: &Context,
    headers: &mut HeaderMap,
) {
    propagator.inject_context(cx, &mut HeaderWriter(headers));
}
