//! `subscriptions/listen` on a modern stdio connection: the acknowledgement is a line, the
//! notifications are lines stamped with the listen id (several listens share stdout), and
//! `notifications/cancelled` naming the listen id ends it with nothing more written. A
//! listener dropped for not reading gets its `-32603` error line; when the input ends the
//! listens stop without a result (as the TypeScript server does on stdin EOF).

use std::sync::Arc;
use std::sync::atomic::Ordering;

use serde_json::Value;
use tokio::task::AbortHandle;

use super::link::Link;
use crate::base::Caller;
use crate::dispatch::{Reply, Server};
use crate::notify::listen::Listeners;
use crate::protocol::Request;

/// Serves one listen request; the handle of its task, if it stays open.
pub(super) async fn serve(
    server: &Server,
    link: &Arc<Link>,
    caller: &Caller,
    kind: crate::dispatch::TransportKind,
    request: Request,
    tasks: bool,
) -> Option<AbortHandle> {
    let id = serde_json::to_value(&request.id).unwrap_or(Value::Null);
    #[cfg(feature = "otel")]
    let span = server.observed().map(|o| {
        let network = crate::dispatch::network_of(kind, None);
        o.listening(&request, &network, None)
    });
    #[cfg(not(feature = "otel"))]
    let _ = kind;
    let opened = match Listeners::open(server.hub(), &id, request.params.as_ref(), caller, tasks) {
        Ok(o) => o,
        Err(error) => {
            #[cfg(feature = "otel")]
            if let Some(span) = span {
                span.refused(i64::from(error.code.0), &error.message);
            }
            link.send_reply(&request.id, &Reply::in_band(error)).await;
            return None;
        }
    };
    link.send_line(opened.ack.into_bytes()).await;
    if opened.empty {
        link.send_line(opened.result.into_bytes()).await;
        return None;
    }
    let (overflow_error, result) = (opened.overflow_error, opened.result);
    let link = Arc::clone(link);
    let key = request.id.clone();
    let mut handle = None;
    link.clone().register(key, |ticket| {
        let task = tokio::spawn(async move {
            let mut receiver = opened.receiver;
            let _guard = opened.guard;
            // With telemetry, the listen's span ends with this task (its end, or an abort).
            #[cfg(feature = "otel")]
            let _span = span;
            while let Some(message) = receiver.recv().await {
                if !link.send_line(message.as_bytes().to_vec()).await {
                    return;
                }
            }
            let last = if opened.overflow.load(Ordering::Relaxed) {
                Some(overflow_error)
            } else if opened.closed.load(Ordering::Relaxed) {
                Some(result)
            } else {
                None
            };
            // A listen cancelled first ends with nothing more written.
            if let (true, Some(last)) = (link.finished(&ticket), last) {
                link.send_line(last.into_bytes()).await;
            }
        })
        .abort_handle();
        handle = Some(task.clone());
        task
    });
    handle
}

/// A legacy connection's unsolicited notifications (§25.1): every advertised list change,
/// and `resources/updated` for the URIs its session subscribed to, as lines at any time
/// after `initialize`. Runs until aborted (end of input, another `initialize`).
pub(super) fn unsolicited(
    server: &Server,
    link: &Arc<Link>,
    session: Option<Arc<str>>,
) -> AbortHandle {
    let opened = Listeners::open_unsolicited(server.hub());
    let server = server.clone();
    let link = Arc::clone(link);
    tokio::spawn(async move {
        let mut receiver = opened.receiver;
        let _guard = opened.guard;
        while let Some(message) = receiver.recv().await {
            if message.contains("\"notifications/resources/updated\"")
                && !subscribed(&server, session.as_deref(), &message).await
            {
                continue;
            }
            if !link.send_line(message.as_bytes().to_vec()).await {
                return;
            }
        }
    })
    .abort_handle()
}

/// Whether the connection's session subscribed to the URI of `updated`.
async fn subscribed(server: &Server, session: Option<&str>, updated: &str) -> bool {
    let Some(session) = session.and_then(|id| server.session_handle(id)) else {
        return false;
    };
    let uri = serde_json::from_str::<Value>(updated)
        .ok()
        .and_then(|m| m["params"]["uri"].as_str().map(str::to_owned));
    match (uri, crate::session::subscriptions(&session).await) {
        (Some(uri), Ok(uris)) => uris.contains(&uri),
        _ => false,
    }
}
