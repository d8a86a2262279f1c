//! `subscriptions/listen` over Streamable HTTP: a `200 text/event-stream` response carrying
//! the acknowledgement, then the listener's notifications, a `: keepalive` comment every
//! 15 s, and at the end the graceful result (the serving stops, [`Server::close_streams`],
//! or nothing was honoured) or
//! the error of a listener dropped for not reading. A refused listen is answered in-band
//! (HTTP 200, JSON), as the TypeScript server does.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::time::Duration;

use axum::body::Body;
use axum::response::Response;
use bytes::Bytes;
use futures_util::stream;
use http::HeaderValue;
use serde_json::Value;
use tokio::sync::mpsc;

use crate::dispatch::{Reply, Server};
use crate::notify::listen::{Caller, Guard, Listeners};
use crate::protocol::Request;

/// How often an idle listen stream carries a comment.
const KEEPALIVE: Duration = Duration::from_secs(15);

struct Live {
    receiver: mpsc::Receiver<std::sync::Arc<str>>,
    overflow: std::sync::Arc<std::sync::atomic::AtomicBool>,
    closed: std::sync::Arc<std::sync::atomic::AtomicBool>,
    _guard: Guard,
    closing: Pin<Box<dyn Future<Output = ()> + Send>>,
    tick: tokio::time::Interval,
    /// The graceful result and the overflow error, sent last.
    result: String,
    overflow_error: String,
}

enum State {
    Live(Box<Live>),
    Last(String),
    Done,
}

fn frame(json: &str) -> Bytes {
    Bytes::from(format!("event: message\ndata: {json}\n\n"))
}

/// The caller of a listen request, for the per-caller bounds: its identity when it has one
/// (as for legacy sessions), else its address (`ConnectInfo`, which
/// [`HttpServer`](super::HttpServer) always gives).
fn caller(parts: &http::request::Parts) -> Caller {
    let auth = parts.extensions.get::<crate::base::AuthContext>();
    crate::session::identity::caller_of(auth, Some(&parts.extensions), None)
}

/// Serves one `subscriptions/listen` request whose envelope and headers were checked.
pub(super) fn serve(
    server: &Server,
    request: Request,
    parts: &http::request::Parts,
    tasks: bool,
) -> Response {
    let id = serde_json::to_value(&request.id).unwrap_or(Value::Null);
    let caller = caller(parts);
    #[cfg(feature = "otel")]
    let span = server.observed().map(|o| {
        let network =
            crate::dispatch::network_of(crate::dispatch::TransportKind::Http, Some(parts));
        o.listening(&request, &network, Some(&parts.headers))
    });
    let opened = match Listeners::open(server.hub(), &id, request.params.as_ref(), &caller, tasks) {
        Ok(o) => o,
        Err(error) => {
            #[cfg(feature = "otel")]
            if let Some(span) = span {
                span.refused(i64::from(error.code.0), &error.message);
            }
            tracing::debug!(message = %error.message, "refusing a listen request");
            return super::reply_response(&request.id, Reply::in_band(error), &parts.headers);
        }
    };
    let first = frame(&opened.ack);
    drop(opened.ack);
    let state = if opened.empty {
        State::Last(opened.result)
    } else {
        let closing = super::Closing::of(&parts.extensions);
        State::Live(Box::new(Live {
            receiver: opened.receiver,
            overflow: opened.overflow,
            closed: opened.closed,
            _guard: opened.guard,
            closing: Box::pin(closing.wait()),
            tick: tokio::time::interval_at(tokio::time::Instant::now() + KEEPALIVE, KEEPALIVE),
            result: opened.result,
            overflow_error: opened.overflow_error,
        }))
    };
    let rest = stream::unfold(state, |state| async move {
        match state {
            State::Done => None,
            State::Last(json) => Some((frame(&json), State::Done)),
            State::Live(mut live) => {
                tokio::select! {
                    message = live.receiver.recv() => match message {
                        Some(m) => Some((frame(&m), State::Live(live))),
                        None if live.overflow.load(Ordering::Relaxed) => {
                            Some((frame(&live.overflow_error), State::Done))
                        }
                        None if live.closed.load(Ordering::Relaxed) => {
                            Some((frame(&live.result), State::Done))
                        }
                        None => None,
                    },
                    () = &mut live.closing => Some((frame(&live.result), State::Done)),
                    _ = live.tick.tick() => {
                        Some((Bytes::from_static(b": keepalive\n\n"), State::Live(live)))
                    }
                }
            }
        }
    });
    // With telemetry, the listen's span ends with its stream (its end, or the client
    // going away).
    #[cfg(feature = "otel")]
    let rest = rest.inspect(move |_| {
        let _lasting = &span;
    });
    let body = stream::once(async move { first })
        .chain(rest)
        .map(Ok::<_, std::convert::Infallible>);
    let mut response = super::outbound::sse_response(Body::from_stream(body));
    response
        .headers_mut()
        .insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

use futures_util::StreamExt as _;
