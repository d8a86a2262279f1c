//! The HTTP side of [`ClientChannel`]: what a handler sends while it runs travels on its
//! request's own response. The response stays plain JSON while the handler sends nothing;
//! at the first notification or server→client request it becomes an SSE stream carrying
//! them and finally the response. A handler may end that stream early with a `retry` hint
//! ([`Context::close_stream`](crate::Context::close_stream), legacy sessions): the rest is
//! kept as a detached stream the client resumes with `GET` and `Last-Event-ID`.
//!
//! Dropping the response (the client closed its connection) drops the handler's future and
//! cancels the request's token; so does a legacy `notifications/cancelled` naming it. A
//! cancelled request gets no response. A closed connection is noticed when something is
//! written, so a call that runs longer than [`KEEPALIVE`] switches to SSE and writes a
//! comment every [`KEEPALIVE`] while it has nothing else to send.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::task::Poll;
use std::time::Duration;

use axum::body::Body;
use axum::response::Response;
use bytes::Bytes;
use futures_util::stream;
use http::{HeaderMap, HeaderValue, StatusCode, header};
use serde_json::{Value, json};
use tokio::sync::{Notify, mpsc, oneshot};
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::dispatch::{
    BoxFuture, ClientChannel, ClientRequester, McpRequest, McpResponse, Reply, Server,
};
use crate::protocol::{ErrorCode, ErrorObject, RequestId};
use crate::session::resume::InflightGuard;
use crate::session::streams::Streams;

/// How many messages a handler may queue ahead of a slow reader before it waits.
const QUEUE: usize = 32;

/// A call still running after this long gets an SSE response, and an SSE response with
/// nothing to send gets an SSE comment this often: only a write tells a client that closed
/// its connection from one that half-closed it (which the listener still answers), so this
/// is how a slow call notices its client is gone.
pub(crate) const KEEPALIVE: Duration = Duration::from_secs(1);

const KEEPALIVE_COMMENT: &[u8] = b": keepalive\n\n";

enum Outbound {
    Message(String),
    Close {
        retry: Duration,
        done: oneshot::Sender<bool>,
    },
}

/// The channel of one HTTP request. Its queue is created by the first message the handler
/// sends: most calls send none, and answer without paying for it.
struct HttpChannel {
    /// The client accepts an SSE response; without it nothing but the response is sent (as
    /// the TypeScript server's JSON response mode drops notifications).
    sse: bool,
    session: Option<Arc<str>>,
    streams: Arc<Streams>,
    /// The sending end of the queue, once created.
    events: OnceLock<mpsc::Sender<Outbound>>,
    /// The receiving end, until [`Running`] takes it.
    receiver: Mutex<Option<mpsc::Receiver<Outbound>>>,
    /// Tells [`Running`] the queue exists.
    created: Notify,
    closing: super::Closing,
}

impl HttpChannel {
    /// The sending end of the queue, created on first use.
    fn events(&self) -> &mpsc::Sender<Outbound> {
        self.events.get_or_init(|| {
            let (tx, rx) = mpsc::channel(QUEUE);
            *self.receiver.lock().unwrap_or_else(PoisonError::into_inner) = Some(rx);
            self.created.notify_one();
            tx
        })
    }

    /// The receiving end, if the queue was created and not taken yet.
    fn take_receiver(&self) -> Option<mpsc::Receiver<Outbound>> {
        self.receiver
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }
}

impl ClientChannel for HttpChannel {
    fn notify<'a>(&'a self, method: &'a str, params: Value) -> BoxFuture<'a, bool> {
        Box::pin(async move {
            if !self.sse {
                return false;
            }
            let message = json!({"jsonrpc": "2.0", "method": method, "params": params});
            self.events()
                .send(Outbound::Message(message.to_string()))
                .await
                .is_ok()
        })
    }

    fn try_notify(&self, method: &str, params: Value) -> bool {
        let message = json!({"jsonrpc": "2.0", "method": method, "params": params});
        self.sse
            && self
                .events()
                .try_send(Outbound::Message(message.to_string()))
                .is_ok()
    }

    fn close_stream(&self, retry: Duration) -> BoxFuture<'_, bool> {
        Box::pin(async move {
            if self.session.is_none() || !self.sse {
                return false;
            }
            let (done, answer) = oneshot::channel();
            if self
                .events()
                .send(Outbound::Close { retry, done })
                .await
                .is_err()
            {
                return false;
            }
            answer.await.unwrap_or(false)
        })
    }
}

impl ClientRequester for HttpChannel {
    fn request<'a>(
        &'a self,
        method: &'a str,
        params: Value,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<Value, ErrorObject>> {
        Box::pin(async move {
            let Some(session) = self.session.as_ref().filter(|_| self.sse) else {
                return Err(ErrorObject::new(
                    ErrorCode::INTERNAL_ERROR,
                    format!("{method} needs a legacy session to carry the answer"),
                ));
            };
            let id = format!("mcp-server-{}", uuid::Uuid::new_v4());
            let answer = self.streams.expect_answer(session, &id);
            let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
            if self
                .events()
                .send(Outbound::Message(message.to_string()))
                .await
                .is_err()
            {
                self.streams.forget(session, &id);
                return Err(ErrorObject::new(
                    ErrorCode::INTERNAL_ERROR,
                    "The client closed the response stream",
                ));
            }
            let answered = tokio::select! {
                answered = tokio::time::timeout(timeout, answer) => answered,
                // The serving stops: no answer can come any more.
                () = self.closing.clone().wait() => {
                    self.streams.forget(session, &id);
                    return Err(ErrorObject::new(
                        ErrorCode::INTERNAL_ERROR,
                        "The session ended while waiting for input",
                    ));
                }
            };
            match answered {
                Ok(Ok(Ok(result))) => Ok(result),
                Ok(Ok(Err(error))) => Err(ErrorObject::new(
                    ErrorCode::INTERNAL_ERROR,
                    format!(
                        "The client answered {method} with error {}: {}",
                        error.code, error.message
                    ),
                )),
                Ok(Err(_)) => Err(ErrorObject::new(
                    ErrorCode::INTERNAL_ERROR,
                    "The session ended while waiting for input",
                )),
                Err(_) => {
                    self.streams.forget(session, &id);
                    Err(ErrorObject::new(
                        ErrorCode::INTERNAL_ERROR,
                        format!(
                            "The client did not answer {method} within {} s",
                            timeout.as_secs()
                        ),
                    ))
                }
            }
        })
    }
}

type Handler = BoxFuture<'static, McpResponse>;

/// Everything that must live as long as the request runs.
struct Running {
    id: RequestId,
    handler: Handler,
    inbox: Inbox,
    cancel: CancellationToken,
    _cancel_on_drop: DropGuard,
    /// The request's entry in the session's in-flight registry (legacy sessions).
    inflight: Option<InflightGuard>,
    session: Option<Arc<str>>,
    streams: Arc<Streams>,
}

/// The receiving side of a request's [`HttpChannel`].
struct Inbox {
    channel: Arc<HttpChannel>,
    /// The channel's queue, once the handler has created it.
    events: Option<mpsc::Receiver<Outbound>>,
}

impl Inbox {
    /// The next message the handler sends; waits for the queue to be created first.
    async fn recv(&mut self) -> Option<Outbound> {
        loop {
            if let Some(events) = &mut self.events {
                return events.recv().await;
            }
            match self.channel.take_receiver() {
                Some(events) => self.events = Some(events),
                // `notify_one` keeps a permit when nobody waits: no creation is missed.
                None => self.channel.created.notified().await,
            }
        }
    }

    /// The queue, if the handler has created it.
    fn ready(&mut self) -> Option<&mut mpsc::Receiver<Outbound>> {
        if self.events.is_none() {
            self.events = self.channel.take_receiver();
        }
        self.events.as_mut()
    }
}

/// The identity of a request id in the in-flight registry (its JSON text).
pub(crate) fn id_key(id: &Value) -> Option<String> {
    match id {
        Value::String(_) | Value::Number(_) => serde_json::to_string(id).ok(),
        _ => None,
    }
}

/// Serves one request with a channel back to the client on its own response; `session` is
/// the legacy session it belongs to (server→client requests then travel on it).
pub(crate) async fn serve(
    server: &Server,
    request: McpRequest,
    session: Option<&str>,
    parts: &http::request::Parts,
) -> Response {
    let headers = &parts.headers;
    let session: Option<Arc<str>> = session.map(Arc::from);
    let streams = server.streams().clone();
    let sse = super::accepts_sse(headers);
    let channel = Arc::new(HttpChannel {
        sse,
        session: session.clone(),
        streams: streams.clone(),
        events: OnceLock::new(),
        receiver: Mutex::new(None),
        created: Notify::new(),
        closing: super::Closing::of(&parts.extensions),
    });
    let cancel = CancellationToken::new();
    let inflight = session.as_ref().and_then(|s| {
        // The id's JSON text, as `id_key` reads it from a cancellation's `requestId`.
        let key = serde_json::to_string(request.id()).ok()?;
        Some(streams.inflight.register(s, key, cancel.clone()))
    });
    let id = request.id().clone();
    let request = request
        .with_channel(channel.clone(), session.is_some())
        .with_cancel(cancel.clone());
    let handler = server.serve(request);
    let mut running = Box::new(Running {
        id,
        handler,
        inbox: Inbox {
            channel,
            events: None,
        },
        _cancel_on_drop: cancel.clone().drop_guard(),
        cancel,
        inflight,
        session,
        streams,
    });
    // Most calls finish at once: answer them without arming the keepalive timer.
    let first_poll =
        std::future::poll_fn(|cx| Poll::Ready(running.handler.as_mut().poll(cx))).await;
    if let Poll::Ready(response) = first_poll {
        return running.finished(response.into_reply(), headers);
    }
    let first = tokio::select! {
        response = &mut running.handler => return running.finished(response.into_reply(), headers),
        () = running.cancel.cancelled() => return sse_response(Body::empty()),
        () = tokio::time::sleep(KEEPALIVE), if sse => None,
        first = running.inbox.recv() => first,
    };
    let mut queue = VecDeque::new();
    let running = match first {
        Some(Outbound::Message(m)) => {
            queue.push_back(sse_event(&m));
            Some(running)
        }
        Some(Outbound::Close { retry, done }) => match running.detach(retry, done) {
            Ok(event) => {
                queue.push_back(event);
                None
            }
            Err(running) => Some(running),
        },
        None => {
            queue.push_back(Bytes::from_static(KEEPALIVE_COMMENT));
            Some(running)
        }
    };
    let body = stream::unfold((queue, running), |(mut queue, mut running)| async move {
        loop {
            if let Some(event) = queue.pop_front() {
                return Some((Ok::<_, Infallible>(event), (queue, running)));
            }
            let mut r = running.take()?;
            tokio::select! {
                response = &mut r.handler => {
                    let reply = response.into_reply();
                    for message in r.drain() {
                        queue.push_back(sse_event(&message));
                    }
                    if r.claim() {
                        queue.push_back(sse_event(&reply_json(&r.id, &reply)));
                    }
                }
                () = r.cancel.cancelled() => {}
                () = tokio::time::sleep(KEEPALIVE) => {
                    queue.push_back(Bytes::from_static(KEEPALIVE_COMMENT));
                    running = Some(r);
                }
                event = r.inbox.recv() => match event {
                    Some(Outbound::Message(m)) => {
                        queue.push_back(sse_event(&m));
                        running = Some(r);
                    }
                    Some(Outbound::Close { retry, done }) => match r.detach(retry, done) {
                        Ok(event) => queue.push_back(event),
                        Err(r) => running = Some(r),
                    },
                    None => running = Some(r),
                },
            }
        }
    });
    sse_response(Body::from_stream(body))
}

impl Running {
    /// Whether the reply may be written: a legacy request claims its answer from the
    /// in-flight registry, where an accepted `notifications/cancelled` (or the session's
    /// end) took it first. Checked where the reply is written, so a cancellation accepted
    /// before it is never followed by a result, however the `select!`s below resolve.
    fn claim(&self) -> bool {
        self.inflight.as_ref().is_none_or(InflightGuard::claim)
    }

    /// The response of a handler that finished before anything was written: JSON, or SSE
    /// carrying the queued messages first. An answer with its own HTTP status (400 for
    /// -32021, 403 for missing scopes) keeps it, and the queued messages are dropped.
    fn finished(&mut self, reply: Reply, headers: &HeaderMap) -> Response {
        if !self.claim() {
            return sse_response(Body::empty());
        }
        let queued = self.drain();
        let plain_ok = matches!(&reply, Reply::Ok(_))
            || matches!(&reply, Reply::Err { status, .. } if *status == StatusCode::OK);
        if queued.is_empty() || !plain_ok {
            return super::reply_response(&self.id, reply, headers);
        }
        let mut body = Vec::new();
        for message in queued {
            body.extend_from_slice(&sse_event(&message));
        }
        body.extend_from_slice(&sse_event(&reply_json(&self.id, &reply)));
        sse_response(Body::from(body))
    }

    /// The messages queued when the handler finished.
    fn drain(&mut self) -> Vec<String> {
        let mut out = Vec::new();
        let Some(events) = self.inbox.ready() else {
            return out;
        };
        while let Ok(event) = events.try_recv() {
            match event {
                Outbound::Message(m) => out.push(m),
                Outbound::Close { done, .. } => {
                    let _ = done.send(false);
                }
            }
        }
        out
    }

    /// Ends the POST stream: returns its last event (an id to resume from and the `retry`
    /// hint) and runs the rest of the request in its own task, into a detached stream.
    fn detach(
        self: Box<Self>,
        retry: Duration,
        done: oneshot::Sender<bool>,
    ) -> Result<Bytes, Box<Self>> {
        let Some(session) = self.session.clone() else {
            let _ = done.send(false);
            return Err(self);
        };
        let key = self.streams.detached.open(&session);
        let event = Bytes::from(format!(
            "id: {key}:0\nretry: {}\ndata: \n\n",
            retry.as_millis()
        ));
        let _ = done.send(true);
        tokio::spawn(self.run_detached(key));
        Ok(event)
    }

    async fn run_detached(mut self: Box<Self>, key: String) {
        let streams = self.streams.clone();
        let detached = |data: String, last: bool| {
            streams.detached.push(&key, data.into(), last);
        };
        loop {
            tokio::select! {
                response = &mut self.handler => {
                    for message in self.drain() {
                        detached(message, false);
                    }
                    if self.claim() {
                        detached(reply_json(&self.id, &response.into_reply()), true);
                    } else {
                        self.streams.detached.finish(&key);
                    }
                    return;
                }
                () = self.cancel.cancelled() => {
                    self.streams.detached.finish(&key);
                    return;
                }
                event = self.inbox.recv() => match event {
                    Some(Outbound::Message(m)) => detached(m, false),
                    Some(Outbound::Close { done, .. }) => {
                        let _ = done.send(false);
                    }
                    None => {}
                },
            }
        }
    }
}

fn reply_json(id: &RequestId, reply: &Reply) -> String {
    let mut json = Vec::with_capacity(256);
    super::write_reply(&mut json, id, reply);
    String::from_utf8_lossy(&json).into_owned()
}

fn sse_event(json: &str) -> Bytes {
    Bytes::from(format!("event: message\ndata: {json}\n\n"))
}

/// A `200` SSE response with `body`: `text/event-stream`, not cached or transformed. Every
/// SSE answer of the transport is built here.
pub(super) fn sse_response(body: Body) -> Response {
    let mut response = Response::new(body);
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("no-cache, no-transform"),
    );
    *response.status_mut() = StatusCode::OK;
    response
}

/// The SSE body of a resumed detached stream (`GET` with `Last-Event-ID: <key>:<seq>`).
pub(crate) fn resumed_body(key: String, resumed: crate::session::resume::Resumed) -> Body {
    let k = key.clone();
    let head = stream::iter(
        resumed
            .replay
            .into_iter()
            .map(move |(seq, data)| Ok::<_, Infallible>(id_event(&k, seq, &data))),
    );
    let live = stream::unfold(resumed.live, move |rx| {
        let key = key.clone();
        async move {
            let mut rx = rx?;
            let (seq, data) = rx.recv().await?;
            Some((Ok::<_, Infallible>(id_event(&key, seq, &data)), Some(rx)))
        }
    });
    Body::from_stream(futures_util::StreamExt::chain(head, live))
}

fn id_event(key: &str, seq: u64, data: &str) -> Bytes {
    Bytes::from(format!("id: {key}:{seq}\nevent: message\ndata: {data}\n\n"))
}

/// Parses `Last-Event-ID: <key>:<seq>` of a detached stream.
pub(crate) fn detached_event_id(value: &str) -> Option<(&str, u64)> {
    let (key, seq) = value.trim().split_once(':')?;
    Some((key, seq.parse().ok()?))
}
