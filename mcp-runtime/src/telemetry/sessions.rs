//! How long legacy sessions last, on a server whose session store cannot say: each session
//! is clocked from its `initialize` to its `DELETE`, its eviction, or (when it simply goes
//! quiet) its last request before the idle timeout.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::{Network, Side, Telemetry};

/// One session under way.
#[derive(Debug)]
struct Clocked {
    started: Instant,
    last: Instant,
    version: String,
    network: Network,
}

/// The legacy sessions a server's telemetry clocks.
#[derive(Debug, Default)]
pub(crate) struct SessionClock {
    sessions: Mutex<HashMap<String, Clocked>>,
}

impl SessionClock {
    /// A session was created; sessions idle longer than `idle` end where their last request
    /// ended.
    pub(crate) fn opened(
        &self,
        telemetry: &Telemetry,
        id: &str,
        version: &str,
        network: Network,
        idle: Duration,
    ) {
        let now = Instant::now();
        let mut sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        sessions.retain(|_, s| {
            let quiet = now.saturating_duration_since(s.last) > idle;
            if quiet {
                let lasted = s.last.saturating_duration_since(s.started);
                telemetry.session_ended(Side::Received, lasted, Some(&s.version), &s.network, None);
            }
            !quiet
        });
        sessions.insert(
            id.to_owned(),
            Clocked {
                started: now,
                last: now,
                version: version.to_owned(),
                network,
            },
        );
    }

    /// A request of the session was served.
    pub(crate) fn used(&self, id: &str) {
        let mut sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(s) = sessions.get_mut(id) {
            s.last = Instant::now();
        }
    }

    /// The session ended: now when it was deleted, at its last request when it was found
    /// expired or evicted (`at_last_request`).
    pub(crate) fn closed(&self, telemetry: &Telemetry, id: &str, at_last_request: bool) {
        let ended = {
            let mut sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
            sessions.remove(id)
        };
        if let Some(s) = ended {
            let end = if at_last_request {
                s.last
            } else {
                Instant::now()
            };
            let lasted = end.saturating_duration_since(s.started);
            telemetry.session_ended(Side::Received, lasted, Some(&s.version), &s.network, None);
        }
    }
}
