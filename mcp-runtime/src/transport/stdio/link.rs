//! What the tasks of one stdio connection share: the output queue, the server→client
//! requests awaiting an answer (the [`ClientRequester`] of legacy calls), and the requests
//! in flight (so `notifications/cancelled` can stop one).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};
use tokio::task::AbortHandle;

use crate::dispatch::{BoxFuture, ClientChannel, ClientRequester, Reply};
use crate::protocol::{
    ErrorCode, ErrorObject, JsonRpcError, JsonRpcResponse, RequestId, ResponseId,
};

/// A client's answer to a server→client request.
type Answer = Result<Value, ErrorObject>;

/// The shared state of one connection.
pub(crate) struct Link {
    out: mpsc::Sender<Vec<u8>>,
    /// `None` once the input ended: no answer can come any more.
    pending: Mutex<Option<HashMap<String, oneshot::Sender<Answer>>>>,
    next_id: AtomicU64,
    in_flight: Mutex<HashMap<RequestId, InFlight>>,
}

/// A request in flight: its task, and whether a cancellation of it was accepted.
struct InFlight {
    task: AbortHandle,
    cancelled: Arc<AtomicBool>,
}

/// What the task serving a request holds to claim its answer ([`Link::finished`]).
pub(crate) struct Ticket {
    id: RequestId,
    cancelled: Arc<AtomicBool>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Link {
    pub(crate) fn new(out: mpsc::Sender<Vec<u8>>) -> Self {
        Self {
            out,
            pending: Mutex::new(Some(HashMap::new())),
            next_id: AtomicU64::new(0),
            in_flight: Mutex::new(HashMap::new()),
        }
    }

    /// Queues one line (a newline is added). `false` when the output is gone.
    pub(crate) async fn send_line(&self, mut line: Vec<u8>) -> bool {
        line.push(b'\n');
        self.out.send(line).await.is_ok()
    }

    /// Queues the response to request `id`.
    pub(crate) async fn send_reply(&self, id: &RequestId, reply: &Reply) -> bool {
        let mut line = Vec::with_capacity(256);
        crate::dispatch::write_reply(&mut line, id, reply);
        self.send_line(line).await
    }

    /// Queues an error response.
    pub(crate) async fn send_error(&self, id: ResponseId, error: ErrorObject) -> bool {
        match serde_json::to_vec(&JsonRpcError::new(id, error)) {
            Ok(line) => self.send_line(line).await,
            Err(e) => {
                tracing::error!(error = %e, "failed to serialize an error response");
                true
            }
        }
    }

    /// Routes a client's response to the server→client request it answers; a response to
    /// nothing awaited is logged and dropped.
    pub(crate) fn deliver(&self, response: JsonRpcResponse) {
        let key = match &response.id {
            RequestId::String(s) => s.clone(),
            RequestId::Number(n) => n.to_string(),
        };
        let waiter = lock(&self.pending).as_mut().and_then(|p| p.remove(&key));
        match waiter {
            Some(w) => {
                let _ = w.send(response.outcome);
            }
            None => {
                tracing::debug!(id = %response.id, "a client answered a request nothing awaits")
            }
        }
    }

    /// The input ended: every server→client request fails now, and later ones at once.
    pub(crate) fn close_input(&self) {
        lock(&self.pending).take();
    }

    /// Runs `spawn` (which starts the task serving request `id`, handing it the ticket it
    /// finishes with) with the in-flight table locked, so the task cannot finish before it
    /// is registered.
    pub(crate) fn register(&self, id: RequestId, spawn: impl FnOnce(Ticket) -> AbortHandle) {
        let cancelled = Arc::new(AtomicBool::new(false));
        let ticket = Ticket {
            id: id.clone(),
            cancelled: Arc::clone(&cancelled),
        };
        let mut table = lock(&self.in_flight);
        let task = spawn(ticket);
        table.insert(id, InFlight { task, cancelled });
    }

    /// Forgets a finished request; `false` when a cancellation was accepted first, and the
    /// request must not be answered. Both take the in-flight table's lock, so exactly one
    /// of them wins: a cancellation after this finds nothing and comes too late. (A request
    /// whose id a newer request reused while it ran can no longer be cancelled, and is
    /// answered.)
    #[must_use = "a cancelled request must not be answered"]
    pub(crate) fn finished(&self, ticket: &Ticket) -> bool {
        let mut table = lock(&self.in_flight);
        if ticket.cancelled.load(Ordering::Relaxed) {
            return false;
        }
        if table
            .get(&ticket.id)
            .is_some_and(|r| Arc::ptr_eq(&r.cancelled, &ticket.cancelled))
        {
            table.remove(&ticket.id);
        }
        true
    }

    /// Stops the request `id` (`notifications/cancelled`): it is not answered.
    pub(crate) fn cancel(&self, id: &RequestId) -> bool {
        match lock(&self.in_flight).remove(id) {
            Some(r) => {
                r.cancelled.store(true, Ordering::Relaxed);
                r.task.abort();
                true
            }
            None => false,
        }
    }

    /// Stops every request in flight (the output is gone: no answer can be delivered).
    pub(crate) fn abort_all(&self) {
        for (_, r) in lock(&self.in_flight).drain() {
            r.cancelled.store(true, Ordering::Relaxed);
            r.task.abort();
        }
    }
}

/// Notifications of a call (logs, progress) are lines on stdout before its response, like
/// any other message: the same writer keeps their order.
impl ClientChannel for Link {
    fn notify<'a>(&'a self, method: &'a str, params: Value) -> BoxFuture<'a, bool> {
        Box::pin(async move {
            let message = json!({"jsonrpc": "2.0", "method": method, "params": params});
            self.send_line(message.to_string().into_bytes()).await
        })
    }

    fn try_notify(&self, method: &str, params: Value) -> bool {
        let message = json!({"jsonrpc": "2.0", "method": method, "params": params});
        let mut line = message.to_string().into_bytes();
        line.push(b'\n');
        self.out.try_send(line).is_ok()
    }
}

impl ClientRequester for Link {
    fn request<'a>(
        &'a self,
        method: &'a str,
        params: Value,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<Value, ErrorObject>> {
        Box::pin(async move {
            let n = self.next_id.fetch_add(1, Ordering::Relaxed);
            let id = format!("mcp-server-{n}");
            let (tx, rx) = oneshot::channel();
            match lock(&self.pending).as_mut() {
                Some(p) => p.insert(id.clone(), tx),
                None => return Err(ended()),
            };
            let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
            if !self.send_line(message.to_string().into_bytes()).await {
                self.forget(&id);
                return Err(ErrorObject::new(
                    ErrorCode::INTERNAL_ERROR,
                    "The client closed the connection",
                ));
            }
            match tokio::time::timeout(timeout, rx).await {
                Ok(Ok(Ok(result))) => Ok(result),
                Ok(Ok(Err(error))) => Err(ErrorObject::new(
                    ErrorCode::INTERNAL_ERROR,
                    format!(
                        "The client answered {method} with error {}: {}",
                        error.code, error.message
                    ),
                )),
                Ok(Err(_)) => Err(ended()),
                Err(_) => {
                    self.forget(&id);
                    Err(ErrorObject::new(
                        ErrorCode::INTERNAL_ERROR,
                        format!(
                            "The client did not answer {method} within {}",
                            readable(timeout)
                        ),
                    ))
                }
            }
        })
    }
}

impl Link {
    fn forget(&self, id: &str) {
        if let Some(p) = lock(&self.pending).as_mut() {
            p.remove(id);
        }
    }
}

/// `300 ms`, `5 s`.
fn readable(d: Duration) -> String {
    if d.subsec_nanos() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{} ms", d.as_millis())
    }
}

fn ended() -> ErrorObject {
    ErrorObject::new(
        ErrorCode::INTERNAL_ERROR,
        "The client closed its input while the server waited for its answer",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request's answer and its cancellation exclude each other: whichever takes the
    /// in-flight entry first wins, and the other finds nothing.
    #[tokio::test]
    async fn finishing_and_cancelling_exclude_each_other() {
        let (out, _rx) = mpsc::channel(1);
        let link = Link::new(out);
        let mut tickets = Vec::new();
        let mut register = |id: i64| {
            link.register(RequestId::Number(id), |t| {
                tickets.push(t);
                tokio::spawn(std::future::pending::<()>()).abort_handle()
            });
        };
        register(1);
        register(2);
        register(3);
        register(3);
        let [one, two, three, three_again] = <[Ticket; 4]>::try_from(tickets).ok().unwrap();
        assert!(link.cancel(&RequestId::Number(1)));
        assert!(!link.finished(&one), "a cancelled request is not answered");
        assert!(link.finished(&two));
        assert!(
            !link.cancel(&RequestId::Number(2)),
            "too late: the answer is on its way"
        );
        // A reused id: the cancellation reaches the newer request; the older is answered.
        assert!(link.cancel(&RequestId::Number(3)));
        assert!(link.finished(&three));
        assert!(!link.finished(&three_again));
    }
}
