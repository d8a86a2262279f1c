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
    sessions: Mutex<Clocks>,
}

/// The clocks, and when quiet sessions were last looked for.
#[derive(Debug, Default)]
struct Clocks {
    running: HashMap<String, Clocked>,
    swept: Option<Instant>,
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
        let mut clocks = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        // Looking for quiet sessions walks them all: at most once per eighth of the idle
        // timeout, so that creating sessions stays constant-time however many are open.
        let due = clocks
            .swept
            .is_none_or(|at| now.saturating_duration_since(at) >= idle / 8);
        if due {
            clocks.swept = Some(now);
            clocks.running.retain(|_, s| {
                let quiet = now.saturating_duration_since(s.last) > idle;
                if quiet {
                    let lasted = s.last.saturating_duration_since(s.started);
                    telemetry.session_ended(
                        Side::Received,
                        lasted,
                        Some(&s.version),
                        &s.network,
                        None,
                    );
                }
                !quiet
            });
        }
        clocks.running.insert(
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
        let mut clocks = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(s) = clocks.running.get_mut(id) {
            s.last = Instant::now();
        }
    }

    /// The session ended: now when it was deleted, at its last request when it was found
    /// expired or evicted (`at_last_request`).
    pub(crate) fn closed(&self, telemetry: &Telemetry, id: &str, at_last_request: bool) {
        let ended = {
            let mut clocks = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
            clocks.running.remove(id)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quiet_sessions_end_at_their_last_request_and_sweeps_are_spaced() {
        let telemetry = Telemetry::new(
            &opentelemetry_sdk::trace::SdkTracerProvider::builder().build(),
            &opentelemetry_sdk::metrics::SdkMeterProvider::builder().build(),
        );
        let clock = SessionClock::default();
        let idle = Duration::from_millis(80);
        clock.opened(&telemetry, "a", "2025-11-25", Network::local(false), idle);
        std::thread::sleep(Duration::from_millis(100));
        // Due (first sweep long ago): "a" is quiet and ends.
        clock.opened(&telemetry, "b", "2025-11-25", Network::local(false), idle);
        assert_eq!(clock.sessions.lock().unwrap().running.len(), 1);
        // Not due again yet: nothing is walked.
        clock.opened(&telemetry, "c", "2025-11-25", Network::local(false), idle);
        assert_eq!(clock.sessions.lock().unwrap().running.len(), 2);
        clock.closed(&telemetry, "b", false);
        clock.closed(&telemetry, "c", false);
        assert!(clock.sessions.lock().unwrap().running.is_empty());
    }
}
