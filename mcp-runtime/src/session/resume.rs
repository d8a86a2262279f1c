//! What a legacy session's requests leave behind while they run: the cancellation token of
//! each in-flight request (for `notifications/cancelled`) and the streams of requests whose
//! POST stream the server ended early (SSE polling), kept until the client resumes them
//! with `Last-Event-ID`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// Events kept per detached stream (the oldest are dropped beyond it).
pub(crate) const DETACHED_BUFFER: usize = 64;
/// The most detached streams a server keeps; the oldest finished ones go first.
pub(crate) const MAX_DETACHED: usize = 1024;
/// How long a finished detached stream waits for its client to resume it.
pub(crate) const DETACHED_TTL: Duration = Duration::from_secs(300);

type Key = (Arc<str>, String);

/// In-flight legacy requests by session and request id (the id's JSON text, so `1` and
/// `"1"` differ).
#[derive(Default)]
pub(crate) struct Inflight {
    tokens: Mutex<HashMap<Key, (u64, CancellationToken)>>,
    serial: AtomicU64,
}

/// Removes an in-flight entry when its request ends.
pub(crate) struct InflightGuard {
    inflight: Arc<Inflight>,
    key: Key,
    serial: u64,
    /// The request's token: cancelled, under the registry's lock, by an accepted
    /// cancellation or the end of the session.
    token: CancellationToken,
}

impl Drop for InflightGuard {
    fn drop(&mut self) {
        let mut tokens = self.inflight.lock();
        // A newer request with the same id keeps its own entry.
        if tokens
            .get(&self.key)
            .is_some_and(|(s, _)| *s == self.serial)
        {
            tokens.remove(&self.key);
        }
    }
}

impl InflightGuard {
    /// Claims the right to answer: `false` once a cancellation (or the end of the session)
    /// was accepted, and the request must not be answered; else `true`, and the request
    /// leaves the registry, so a later cancellation finds nothing (it comes too late). Both
    /// run under the registry's lock, so exactly one of them wins. A request whose entry a
    /// newer request with the same id replaced (a client reusing an id in flight) cannot be
    /// cancelled any more and is answered.
    pub(crate) fn claim(&self) -> bool {
        let mut tokens = self.inflight.lock();
        if self.token.is_cancelled() {
            return false;
        }
        if tokens
            .get(&self.key)
            .is_some_and(|(s, _)| *s == self.serial)
        {
            tokens.remove(&self.key);
        }
        true
    }
}

impl Inflight {
    fn lock(&self) -> MutexGuard<'_, HashMap<Key, (u64, CancellationToken)>> {
        self.tokens.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Registers request `id` of `session`; the entry lives as long as the guard.
    pub(crate) fn register(
        self: &Arc<Self>,
        session: &str,
        id: String,
        token: CancellationToken,
    ) -> InflightGuard {
        let key = (Arc::from(session), id);
        let serial = self.serial.fetch_add(1, Ordering::Relaxed);
        self.lock().insert(key.clone(), (serial, token.clone()));
        InflightGuard {
            inflight: self.clone(),
            key,
            serial,
            token,
        }
    }

    /// Cancels request `id` of `session`; `false` when no such request runs.
    pub(crate) fn cancel(&self, session: &str, id: &str) -> bool {
        let token = self.lock().remove(&(Arc::from(session), id.to_owned()));
        match token {
            Some((_, t)) => {
                t.cancel();
                true
            }
            None => false,
        }
    }

    /// Cancels every request of `session` (deleted, evicted).
    pub(crate) fn cancel_session(&self, session: &str) {
        self.lock().retain(|(s, _), (_, t)| {
            if &**s == session {
                t.cancel();
                false
            } else {
                true
            }
        });
    }
}

/// One request's stream after the server ended its POST response.
struct Detached {
    session: Arc<str>,
    /// `(sequence, JSON text)`, sequence from 1 (0 is the priming event).
    buffer: Vec<(u64, Arc<str>)>,
    next: u64,
    reader: Option<mpsc::Sender<(u64, Arc<str>)>>,
    finished: Option<Instant>,
    created: Instant,
}

/// The detached streams of a server, by stream key.
#[derive(Default)]
pub(crate) struct DetachedStreams {
    streams: Mutex<HashMap<String, Detached>>,
}

/// What a resuming client gets: the events after its `Last-Event-ID`, then the live ones
/// until the request's response (the receiver ends when it is sent).
pub(crate) struct Resumed {
    pub(crate) replay: Vec<(u64, Arc<str>)>,
    pub(crate) live: Option<mpsc::Receiver<(u64, Arc<str>)>>,
}

impl DetachedStreams {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, Detached>> {
        self.streams.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Opens a detached stream for `session`; returns its key.
    pub(crate) fn open(&self, session: &str) -> String {
        let key = uuid::Uuid::new_v4().simple().to_string();
        let mut streams = self.lock();
        let now = Instant::now();
        streams.retain(|_, d| {
            d.finished
                .is_none_or(|f| now.duration_since(f) < DETACHED_TTL)
        });
        if streams.len() >= MAX_DETACHED {
            // Drop the oldest finished stream, else the oldest one.
            let oldest = streams
                .iter()
                .min_by_key(|(_, d)| (d.finished.is_none(), d.created))
                .map(|(k, _)| k.clone());
            if let Some(k) = oldest {
                streams.remove(&k);
            }
        }
        streams.insert(
            key.clone(),
            Detached {
                session: Arc::from(session),
                buffer: Vec::new(),
                next: 1,
                reader: None,
                finished: None,
                created: now,
            },
        );
        key
    }

    /// Adds an event (the response last, with `last`); returns its sequence number.
    pub(crate) fn push(&self, key: &str, data: Arc<str>, last: bool) -> Option<u64> {
        let mut streams = self.lock();
        let d = streams.get_mut(key)?;
        let seq = d.next;
        d.next += 1;
        if d.buffer.len() == DETACHED_BUFFER {
            d.buffer.remove(0);
        }
        d.buffer.push((seq, data.clone()));
        if let Some(reader) = &d.reader
            && reader.try_send((seq, data)).is_err()
        {
            d.reader = None;
        }
        if last {
            d.finished = Some(Instant::now());
            d.reader = None;
        }
        Some(seq)
    }

    /// Ends a stream without a response (the request was cancelled).
    pub(crate) fn finish(&self, key: &str) {
        if let Some(d) = self.lock().get_mut(key) {
            d.finished = Some(Instant::now());
            d.reader = None;
        }
    }

    /// Resumes stream `key` of `session` after sequence `after`; `None` when no such stream
    /// exists for this session.
    pub(crate) fn resume(&self, session: &str, key: &str, after: u64) -> Option<Resumed> {
        let mut streams = self.lock();
        let d = streams.get_mut(key).filter(|d| &*d.session == session)?;
        let replay: Vec<_> = d
            .buffer
            .iter()
            .filter(|(seq, _)| *seq > after)
            .cloned()
            .collect();
        let live = if d.finished.is_some() {
            None
        } else {
            let (tx, rx) = mpsc::channel(DETACHED_BUFFER);
            d.reader = Some(tx);
            Some(rx)
        };
        Some(Resumed { replay, live })
    }

    /// Forgets the streams of `session`.
    pub(crate) fn close_session(&self, session: &str) {
        self.lock().retain(|_, d| &*d.session != session);
    }

    /// Forgets everything (shutdown).
    pub(crate) fn clear(&self) {
        self.lock().clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn detached_streams_replay_then_go_live_and_end() {
        let d = DetachedStreams::default();
        let key = d.open("s");
        assert_eq!(d.push(&key, "a".into(), false), Some(1));
        assert!(d.resume("other", &key, 0).is_none());
        assert!(d.resume("s", "nope", 0).is_none());
        let mut r = d.resume("s", &key, 0).unwrap();
        assert_eq!(r.replay.len(), 1);
        d.push(&key, "result".into(), true);
        let mut live = r.live.take().unwrap();
        assert_eq!(live.recv().await.unwrap().0, 2);
        assert!(live.recv().await.is_none());
        let again = d.resume("s", &key, 1).unwrap();
        assert_eq!(again.replay.len(), 1);
        assert!(again.live.is_none());
        d.close_session("s");
        assert!(d.resume("s", &key, 0).is_none());
    }

    #[test]
    fn cancel_hits_only_the_named_request() {
        let inflight = Arc::new(Inflight::default());
        let t = CancellationToken::new();
        let guard = inflight.register("s", "1".into(), t.clone());
        assert!(!inflight.cancel("s", "\"1\""));
        assert!(!inflight.cancel("t", "1"));
        assert!(!t.is_cancelled());
        assert!(inflight.cancel("s", "1"));
        assert!(t.is_cancelled());
        assert!(!inflight.cancel("s", "1"));
        assert!(
            !guard.claim(),
            "a cancelled request cannot claim its answer"
        );
        drop(guard);
    }

    #[test]
    fn claim_and_cancel_exclude_each_other() {
        let inflight = Arc::new(Inflight::default());
        let t = CancellationToken::new();
        let guard = inflight.register("s", "1".into(), t.clone());
        assert!(guard.claim());
        assert!(
            !inflight.cancel("s", "1"),
            "too late: the answer is claimed"
        );
        assert!(!t.is_cancelled());
        // A request whose id a newer one reuses while it runs is still answered, and a
        // cancellation of the id reaches the newer one only.
        let old = inflight.register("s", "3".into(), CancellationToken::new());
        let newer = inflight.register("s", "3".into(), CancellationToken::new());
        assert!(inflight.cancel("s", "3"));
        assert!(old.claim());
        assert!(!newer.claim());
        drop((guard, old, newer));
        let ended = inflight.register("s", "2".into(), CancellationToken::new());
        inflight.cancel_session("s");
        assert!(!ended.claim(), "the session's end cancels its requests");
    }
}
