//! The way back to the client while one request is served: per-request notifications
//! (`notifications/message`, `notifications/progress`), server→client requests
//! (`sampling/createMessage`, `elicitation/create`) and the end of the request's stream.
//!
//! A transport implements [`ClientChannel`] for each request it serves; the HTTP transport
//! writes to the request's own response stream (switching it from JSON to SSE at the first
//! message), a stdio transport would write lines before the response. Everything a handler
//! sends through [`Context`](super::Context) goes through this one trait.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::OnceCell;
use tokio_util::sync::CancellationToken;

use super::{BoxFuture, ClientRequester};
use crate::protocol::{ErrorObject, JsonObject};
use crate::session::Session;

pub use crate::protocol::LogLevel;

/// The transport side of one request: what [`Context`](super::Context) sends to the client.
pub trait ClientChannel: ClientRequester {
    /// Sends a notification related to the request being served (before its response).
    /// `false` when it could not be sent (the client went away).
    fn notify<'a>(&'a self, method: &'a str, params: Value) -> BoxFuture<'a, bool>;

    /// Sends a notification without waiting (for callers that cannot `.await`, such as
    /// [`ClientLogLayer`](crate::ClientLogLayer)); `false` when it was not queued. The
    /// default queues nothing.
    fn try_notify(&self, method: &str, params: Value) -> bool {
        let _ = (method, params);
        false
    }

    /// Ends the request's response stream now, telling the client to reconnect after
    /// `retry` (SSE polling); what the handler sends afterwards, its response included, is
    /// delivered on the session's stream when the client resumes it with `Last-Event-ID`.
    /// `false` when this request's transport cannot do that (no session, modern protocol,
    /// stdio): the stream then stays open.
    fn close_stream(&self, retry: Duration) -> BoxFuture<'_, bool> {
        let _ = retry;
        Box::pin(async { false })
    }
}

/// The session attribute holding a legacy session's `logging/setLevel` threshold.
pub(crate) const SESSION_LOG_LEVEL_KEY: &str = "mcp.logLevel";

/// Which log messages a request's client wants.
#[derive(Clone, Debug)]
pub(crate) enum Threshold {
    /// None (modern request without `io.modelcontextprotocol/logLevel`, or no channel).
    Off,
    /// Messages at this level or above.
    AtLeast(LogLevel),
    /// The threshold `logging/setLevel` stored in the session, every level when none.
    Session(Session),
}

/// What one request's handler shares with the transport that serves it.
pub(crate) struct CallState {
    pub(crate) era: crate::protocol::Era,
    /// The client declared `sampling`.
    pub(crate) client_sampling: bool,
    /// The request belongs to a legacy session (server→client requests can be answered).
    pub(crate) has_session: bool,
    /// How long a server→client request waits for its answer.
    pub(crate) timeout: Duration,
    pub(crate) channel: Option<Arc<dyn ClientChannel>>,
    threshold: Threshold,
    resolved: OnceCell<Option<LogLevel>>,
    pub(crate) cancel: CancellationToken,
    /// Modern sampling: the requests asked in this round and the first failure.
    pub(crate) sampling: Mutex<SamplingRound>,
    sample_count: AtomicUsize,
    /// The last progress value sent, to keep it increasing.
    last_progress: Mutex<Option<f64>>,
    /// The notifier of the server serving the call, for [`super::current_notifier`].
    pub(crate) notifier: Option<crate::notify::Notifier>,
    /// Set on a task's rounds: progress becomes the task's status message.
    pub(crate) task: Option<super::TaskReporter>,
    /// What the handler's requests to the client are recorded with (the `otel` feature).
    #[cfg(feature = "otel")]
    pub(crate) telemetry: Option<crate::otel::Outbound>,
}

/// The sampling requests of one modern round, and the error that ends the call, if any.
#[derive(Default)]
pub(crate) struct SamplingRound {
    /// `(input key, sampling/createMessage params)` asked in this round.
    pub(crate) pending: Vec<(String, JsonObject)>,
    /// A failure the call is answered with when the tool gives up.
    pub(crate) failure: Option<ErrorObject>,
    /// The answers used so far (carried to later rounds in the request state).
    pub(crate) answered: JsonObject,
}

impl std::fmt::Debug for CallState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallState")
            .field("channel", &self.channel.is_some())
            .field("threshold", &self.threshold)
            .field("cancelled", &self.cancel.is_cancelled())
            .finish_non_exhaustive()
    }
}

impl Default for CallState {
    fn default() -> Self {
        Self::new(
            crate::protocol::Era::Legacy,
            None,
            Threshold::Off,
            CancellationToken::new(),
        )
    }
}

impl CallState {
    pub(crate) fn new(
        era: crate::protocol::Era,
        channel: Option<Arc<dyn ClientChannel>>,
        threshold: Threshold,
        cancel: CancellationToken,
    ) -> Self {
        Self {
            era,
            client_sampling: false,
            has_session: false,
            timeout: Duration::from_secs(300),
            channel,
            threshold,
            resolved: OnceCell::new(),
            cancel,
            sampling: Mutex::default(),
            sample_count: AtomicUsize::new(0),
            last_progress: Mutex::new(None),
            notifier: None,
            task: None,
            #[cfg(feature = "otel")]
            telemetry: None,
        }
    }

    /// Sends the handler's request `method` to the client through `requester` and waits
    /// (at most `timeout`) for the answer; with telemetry, in an `mcp.client` span.
    pub(crate) async fn ask(
        &self,
        requester: &dyn ClientRequester,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, ErrorObject> {
        #[cfg(feature = "otel")]
        if let Some(telemetry) = &self.telemetry {
            let mut params = params;
            let operation = telemetry.start(method, &mut params);
            let answer = requester.request(method, params, timeout).await;
            crate::otel::Outbound::finish(operation, &answer);
            return answer;
        }
        requester.request(method, params, timeout).await
    }

    /// The threshold of this request: `None` sends nothing.
    async fn threshold(&self) -> Option<LogLevel> {
        match &self.threshold {
            Threshold::Off => None,
            Threshold::AtLeast(l) => Some(*l),
            Threshold::Session(session) => *self
                .resolved
                .get_or_init(|| async {
                    match session.get::<LogLevel>(SESSION_LOG_LEVEL_KEY).await {
                        Ok(level) => Some(level.unwrap_or(LogLevel::Debug)),
                        Err(e) => {
                            tracing::warn!(error = %e, "cannot read the session's log level; sending every level");
                            Some(LogLevel::Debug)
                        }
                    }
                })
                .await,
        }
    }

    /// Whether a message of `level` goes to the client.
    pub(crate) async fn wants(&self, level: LogLevel) -> bool {
        self.channel.is_some() && self.threshold().await.is_some_and(|t| level >= t)
    }

    /// Reads the session's threshold now (a no-op for other thresholds).
    pub(crate) async fn prime(&self) {
        self.threshold().await;
    }

    /// Whether a message of `level` goes to the client, when that is known without
    /// waiting (`None`: the session's threshold is not read yet).
    pub(crate) fn wants_now(&self, level: LogLevel) -> Option<bool> {
        if self.channel.is_none() {
            return Some(false);
        }
        let threshold = match &self.threshold {
            Threshold::Off => None,
            Threshold::AtLeast(l) => Some(*l),
            Threshold::Session(_) => *self.resolved.get()?,
        };
        Some(threshold.is_some_and(|t| level >= t))
    }

    pub(crate) fn try_notify(&self, method: &str, params: Value) -> bool {
        let Some(channel) = &self.channel else {
            return false;
        };
        #[cfg(feature = "otel")]
        let (operation, params) = self.notifying(method, params);
        let sent = channel.try_notify(method, params);
        #[cfg(feature = "otel")]
        crate::otel::Outbound::notified(operation, sent);
        sent
    }

    /// Sends a notification related to the call; with telemetry, as an `mcp.client` span
    /// whose context travels in the notification's `_meta`.
    pub(crate) async fn notify(&self, method: &str, params: Value) -> bool {
        let Some(channel) = &self.channel else {
            return false;
        };
        #[cfg(feature = "otel")]
        let (operation, params) = self.notifying(method, params);
        let sent = channel.notify(method, params).await;
        #[cfg(feature = "otel")]
        crate::otel::Outbound::notified(operation, sent);
        sent
    }

    /// The span of the notification `method` about to be sent, when the call is recorded,
    /// and its params with the span's context in `_meta`.
    #[cfg(feature = "otel")]
    fn notifying(
        &self,
        method: &str,
        mut params: Value,
    ) -> (Option<crate::otel::Operation>, Value) {
        let operation = self
            .telemetry
            .as_ref()
            .map(|telemetry| telemetry.start(method, &mut params));
        (operation, params)
    }

    /// The input key of the next sampling request of this call.
    pub(crate) fn next_sample_key(&self) -> String {
        let n = self.sample_count.fetch_add(1, Ordering::Relaxed) + 1;
        format!("mcp-sampling-{n}")
    }

    /// Records a progress value; `false` when it does not increase.
    pub(crate) fn advance(&self, progress: f64) -> bool {
        let mut last = self
            .last_progress
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if last.is_some_and(|l| progress <= l) {
            return false;
        }
        *last = Some(progress);
        true
    }

    pub(crate) fn sampling(&self) -> std::sync::MutexGuard<'_, SamplingRound> {
        self.sampling.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_order_and_names() {
        assert!(LogLevel::Debug < LogLevel::Emergency);
        for l in LogLevel::ALL {
            assert_eq!(LogLevel::parse(l.as_str()), Some(l));
            assert_eq!(serde_json::to_value(l).unwrap(), l.as_str());
        }
        assert_eq!(LogLevel::parse("loud"), None);
        assert_eq!(LogLevel::parse("INFO"), None);
    }

    #[tokio::test]
    async fn no_channel_sends_nothing_and_progress_must_increase() {
        let state = CallState::new(
            crate::protocol::Era::Modern,
            None,
            Threshold::AtLeast(LogLevel::Debug),
            CancellationToken::new(),
        );
        assert!(!state.wants(LogLevel::Emergency).await);
        assert!(state.advance(0.0));
        assert!(state.advance(0.5));
        assert!(!state.advance(0.5));
        assert!(!state.advance(0.1));
        assert_eq!(state.next_sample_key(), "mcp-sampling-1");
        assert_eq!(state.next_sample_key(), "mcp-sampling-2");
    }
}
