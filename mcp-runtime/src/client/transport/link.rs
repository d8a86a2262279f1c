//! The message stream that stdio and in-process share: one connection to one server, with
//! the framing left to the transport. A reader task sorts what arrives — responses to the
//! exchange in flight, server→client requests answered through the client's [`Peer`],
//! notifications dispatched, noise logged and skipped — and exchanges run one at a time,
//! each within its timeout, the time the client's own handlers spend not counted.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::Value;
use serde_json::value::RawValue;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::Peer;
use crate::base::BoxFuture;
use crate::client::wire::{Incoming, id_matches, rpc_error};
use crate::client::{ClientError, ProtocolError};
use crate::protocol::RequestId;

/// Responses queued between the reader and the exchange.
const RESPONSE_QUEUE: usize = 16;
/// How long the answer to a server request may wait to be sent.
const ANSWER_WAIT: Duration = Duration::from_secs(30);

/// The answer to a request: its result, or its error.
pub(crate) type Outcome = Result<Box<RawValue>, ClientError>;

/// The other side is gone: a message could not be sent.
#[derive(Debug)]
pub(crate) struct Closed;

/// Where a link's messages go: the framing of one transport (a line on a child's stdin,
/// a message on a pipe).
pub(crate) trait Outbox: Send + Sync + 'static {
    /// Sends one whole JSON-RPC message.
    fn send(&self, message: String) -> BoxFuture<'_, Result<(), Closed>>;
}

/// Where a link's messages come from.
pub(crate) trait Inbox: Send + 'static {
    /// The next whole message; `None` once the other side is gone.
    fn next(&mut self) -> BoxFuture<'_, Option<Vec<u8>>>;
}

/// Why an exchange got no outcome.
#[derive(Debug)]
pub(crate) enum LinkError {
    /// No answer in time.
    Timeout,
    /// The other side is gone.
    Closed,
}

/// Time the client's own handlers spend answering server requests: it does not count
/// against the exchange in flight.
#[derive(Default)]
struct HandlerClock {
    busy: AtomicUsize,
    credit_ns: AtomicU64,
}

/// One running connection.
pub(crate) struct Link {
    outbox: Arc<dyn Outbox>,
    responses: mpsc::Receiver<(Value, Outcome)>,
    reader: JoinHandle<()>,
    clock: Arc<HandlerClock>,
}

impl Drop for Link {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

impl Link {
    /// Starts reading `inbox`, answering server requests through `outbox`.
    pub(crate) fn start(outbox: Arc<dyn Outbox>, inbox: impl Inbox, peer: Peer) -> Self {
        let (tx, rx) = mpsc::channel(RESPONSE_QUEUE);
        let clock = Arc::<HandlerClock>::default();
        let reader = tokio::spawn(read_loop(
            inbox,
            tx,
            Arc::clone(&outbox),
            peer,
            Arc::clone(&clock),
        ));
        Self {
            outbox,
            responses: rx,
            reader,
            clock,
        }
    }

    /// Sends a message that gets no answer, by `deadline`.
    pub(crate) async fn send(&self, body: &Value, deadline: Instant) -> Result<(), LinkError> {
        send_by(&*self.outbox, body, deadline).await
    }

    /// One request/response exchange; `timeout` runs from now, the handlers' time added.
    pub(crate) async fn exchange(
        &mut self,
        body: &Value,
        id: &RequestId,
        timeout: Duration,
    ) -> Result<Outcome, LinkError> {
        let mut deadline = Instant::now() + timeout;
        self.clock.credit_ns.store(0, Ordering::Relaxed);
        // Leftovers of an earlier exchange (late answers to nothing) are stale.
        while self.responses.try_recv().is_ok() {}
        self.send(body, deadline).await?;
        loop {
            tokio::select! {
                received = self.responses.recv() => match received {
                    None => return Err(LinkError::Closed),
                    Some((rid, outcome)) if rid.is_null() || id_matches(&rid, id) => {
                        return Ok(outcome);
                    }
                    Some((rid, _)) => tracing::warn!(
                        id = %rid, expected = %id,
                        "the MCP server answered a request id that is not awaited; ignoring it"
                    ),
                },
                () = tokio::time::sleep_until(deadline) => {
                    if self.clock.busy.load(Ordering::Relaxed) > 0 {
                        deadline = Instant::now() + Duration::from_millis(100);
                        continue;
                    }
                    let credit = self.clock.credit_ns.swap(0, Ordering::Relaxed);
                    if credit > 0 {
                        deadline += Duration::from_nanos(credit);
                        continue;
                    }
                    return Err(LinkError::Timeout);
                }
            }
        }
    }
}

async fn send_by(outbox: &dyn Outbox, body: &Value, deadline: Instant) -> Result<(), LinkError> {
    match tokio::time::timeout_at(deadline, outbox.send(body.to_string())).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(Closed)) => Err(LinkError::Closed),
        Err(_) => Err(LinkError::Timeout),
    }
}

/// A message from the server, shortened for a log.
fn preview(message: &[u8]) -> String {
    let text = String::from_utf8_lossy(message);
    let mut s: String = text.chars().take(120).collect();
    if text.chars().count() > 120 {
        s.push('…');
    }
    s
}

/// Reads the server's messages until they end: responses go to the exchange, server
/// requests are answered, notifications dispatched, anything else logged and skipped.
async fn read_loop(
    mut inbox: impl Inbox,
    responses: mpsc::Sender<(Value, Outcome)>,
    outbox: Arc<dyn Outbox>,
    peer: Peer,
    clock: Arc<HandlerClock>,
) {
    while let Some(message) = inbox.next().await {
        let Ok(msg) = serde_json::from_slice::<Incoming>(&message) else {
            tracing::warn!(message = %preview(&message), "the MCP server sent a message that is not JSON-RPC; skipping it");
            continue;
        };
        let id = msg.id.filter(|v| !v.is_null());
        match (msg.method, id) {
            (Some(method), Some(id)) => {
                let (outbox, peer, clock) = (Arc::clone(&outbox), peer.clone(), Arc::clone(&clock));
                clock.busy.fetch_add(1, Ordering::Relaxed);
                tokio::spawn(async move {
                    let started = Instant::now();
                    let (body, failure) = peer.answer(id, &method, msg.params).await.into_parts();
                    if let Some(e) = failure {
                        tracing::warn!(%method, error = %e, "the handler of a server request failed");
                    }
                    let elapsed = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
                    clock.credit_ns.fetch_add(elapsed, Ordering::Relaxed);
                    clock.busy.fetch_sub(1, Ordering::Relaxed);
                    if send_by(&*outbox, &body, Instant::now() + ANSWER_WAIT)
                        .await
                        .is_err()
                    {
                        tracing::debug!(%method, "cannot answer a server request: the server is gone");
                    }
                });
            }
            (Some(method), None) => {
                tracing::trace!(%method, "notification from the MCP server");
                peer.notification(&method, msg.params);
            }
            (None, id) => {
                if id.is_none() && msg.error.is_none() {
                    tracing::warn!(message = %preview(&message), "the MCP server sent a response without an id; skipping it");
                    continue;
                }
                let outcome = match (msg.result, msg.error) {
                    (_, Some(error)) => Err(rpc_error(error, None)),
                    (Some(result), None) => Ok(result),
                    (None, None) => Err(ProtocolError::InvalidResponse {
                        method: "(stdio)".into(),
                        reason: "a response without result or error".into(),
                    }
                    .into()),
                };
                // An error without an id (the server could not read our message) answers
                // the exchange in flight.
                let id = id.unwrap_or(Value::Null);
                if responses.try_send((id, outcome)).is_err() {
                    tracing::debug!("dropping a response nothing awaits");
                }
            }
        }
    }
}
