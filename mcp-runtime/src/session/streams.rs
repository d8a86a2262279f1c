//! Per-session server→client streams: the standalone GET stream, a bounded buffer of recent
//! events for `Last-Event-ID` resumption, and bounded queues so a slow reader cannot grow
//! server memory.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use serde_json::Value;
use tokio::sync::mpsc;

/// Events kept per session for replay.
pub(crate) const REPLAY_BUFFER: usize = 64;
/// Events queued for a connected stream before new ones are dropped from the live queue
/// (they stay in the replay buffer).
pub(crate) const LIVE_QUEUE: usize = 64;

/// One server→client message with its event id.
#[derive(Clone, Debug)]
pub(crate) struct Event {
    pub(crate) id: u64,
    pub(crate) data: Arc<str>,
}

#[derive(Default)]
struct Channel {
    live: Option<(u64, mpsc::Sender<Event>)>,
    buffer: VecDeque<Event>,
    next_id: u64,
}

/// What [`Streams::record`] did with an event.
#[derive(Debug, PartialEq, Eq)]
enum Recorded {
    /// Sent to the attached stream.
    Sent,
    /// Kept for replay; the attached stream's queue is full.
    Full,
    /// Kept for replay; no stream is attached here.
    NoStream,
    /// Not recorded (no stream attached here).
    Nothing,
}

/// The answer a client POSTs to a server→client request.
pub(crate) type ClientAnswer = Result<Value, crate::protocol::ErrorObject>;

/// Where a replica sends what none of its streams or calls takes (the event bus).
pub(crate) trait Relay: Send + Sync {
    /// A message for a session's GET stream that no stream of this replica carries.
    fn session_message(&self, session: &str, message: &str);
    /// A client's answer that no call of this replica awaits.
    fn answer(&self, session: &str, id: &str, answer: ClientAnswer);
}

/// Server→client requests awaiting an answer, by session and request id.
type Pending = HashMap<(Arc<str>, String), tokio::sync::oneshot::Sender<ClientAnswer>>;

/// The stream registry of one server, and the server→client requests awaiting an answer.
#[derive(Default)]
pub(crate) struct Streams {
    channels: Mutex<HashMap<Arc<str>, Channel>>,
    pending: Mutex<Pending>,
    next_token: AtomicU64,
    live_streams: std::sync::atomic::AtomicUsize,
    /// In-flight requests of each session (`notifications/cancelled`).
    pub(crate) inflight: Arc<super::resume::Inflight>,
    /// Request streams the server ended early, awaiting `Last-Event-ID` (SSE polling).
    pub(crate) detached: super::resume::DetachedStreams,
    relay: std::sync::OnceLock<Arc<dyn Relay>>,
}

/// Why a standalone stream was not opened.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// One is already open for the session.
    Conflict,
    /// The server's cap on open streams is reached.
    Full,
}

/// The receiving end of an attached stream; detaches on drop.
pub(crate) struct Attached {
    pub(crate) replay: Vec<Event>,
    pub(crate) last_id: u64,
    pub(crate) receiver: mpsc::Receiver<Event>,
    pub(crate) guard: DetachGuard,
}

/// Clears the session's live stream when the HTTP response ends.
pub(crate) struct DetachGuard {
    streams: Arc<Streams>,
    session: Arc<str>,
    token: u64,
}

impl Drop for DetachGuard {
    fn drop(&mut self) {
        self.streams.live_streams.fetch_sub(1, Ordering::Relaxed);
        let mut channels = self.streams.lock();
        if let Some(c) = channels.get_mut(&self.session)
            && c.live.as_ref().is_some_and(|(t, _)| *t == self.token)
        {
            c.live = None;
        }
    }
}

impl Streams {
    fn lock(&self) -> MutexGuard<'_, HashMap<Arc<str>, Channel>> {
        self.channels.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Sets where messages and answers go that nothing of this replica takes.
    pub(crate) fn set_relay(&self, relay: Arc<dyn Relay>) {
        if self.relay.set(relay).is_err() {
            tracing::debug!("the streams already have a relay");
        }
    }

    /// Records `message` for the session and sends it to the connected stream, if any;
    /// without one here, the relay takes it to the replica holding the session's stream.
    pub(crate) fn publish(&self, session: &str, message: &Value) -> bool {
        let data: Arc<str> = message.to_string().into();
        match self.record(session, data.clone(), true) {
            Recorded::Sent => return true,
            // A stream is attached here but its reader is behind: the event stays in the
            // replay buffer only (no other replica holds this session's stream).
            Recorded::Full => return false,
            Recorded::NoStream | Recorded::Nothing => {}
        }
        if let Some(relay) = self.relay.get() {
            relay.session_message(session, &data);
        }
        false
    }

    /// Like [`publish`](Self::publish), for this replica's streams only (a message every
    /// replica sends itself).
    pub(crate) fn publish_local(&self, session: &str, message: &Value) -> bool {
        self.record(session, message.to_string().into(), true) == Recorded::Sent
    }

    /// A message another replica could not deliver: sent when the session's stream is open
    /// here.
    pub(crate) fn deliver_relayed(&self, session: &str, data: Arc<str>) -> bool {
        self.record(session, data, false) == Recorded::Sent
    }

    /// Records `data` for `session` (creating its state when `create`; otherwise only when
    /// a stream is attached here) and sends it to the attached stream.
    fn record(&self, session: &str, data: Arc<str>, create: bool) -> Recorded {
        let mut channels = self.lock();
        let channel = if create {
            channels.entry(Arc::from(session)).or_default()
        } else {
            match channels
                .get_mut(session)
                .filter(|c| c.live.as_ref().is_some_and(|(_, tx)| !tx.is_closed()))
            {
                Some(c) => c,
                None => return Recorded::Nothing,
            }
        };
        channel.next_id += 1;
        let event = Event {
            id: channel.next_id,
            data,
        };
        if channel.buffer.len() == REPLAY_BUFFER {
            channel.buffer.pop_front();
        }
        channel.buffer.push_back(event.clone());
        match &channel.live {
            Some((_, tx)) if !tx.is_closed() => match tx.try_send(event) {
                Ok(()) => Recorded::Sent,
                Err(_) => Recorded::Full,
            },
            _ => Recorded::NoStream,
        }
    }

    /// The sessions with stream state on this replica.
    pub(crate) fn local_sessions(&self) -> Vec<Arc<str>> {
        self.lock().keys().cloned().collect()
    }

    /// Attaches the standalone stream of `session`, replaying the buffered events after
    /// `last_event_id`.
    pub(crate) fn attach(
        self: &Arc<Self>,
        session: &str,
        last_event_id: Option<u64>,
        max_streams: usize,
    ) -> Result<Attached, Refused> {
        let mut channels = self.lock();
        let channel = channels.entry(Arc::from(session)).or_default();
        if channel.live.as_ref().is_some_and(|(_, tx)| !tx.is_closed()) {
            return Err(Refused::Conflict);
        }
        if self.live_streams.load(Ordering::Relaxed) >= max_streams {
            return Err(Refused::Full);
        }
        self.live_streams.fetch_add(1, Ordering::Relaxed);
        let (tx, receiver) = mpsc::channel(LIVE_QUEUE);
        let token = self.next_token.fetch_add(1, Ordering::Relaxed);
        channel.live = Some((token, tx));
        let replay = match last_event_id {
            Some(after) => channel
                .buffer
                .iter()
                .filter(|e| e.id > after)
                .cloned()
                .collect(),
            None => Vec::new(),
        };
        Ok(Attached {
            replay,
            last_id: channel.next_id,
            receiver,
            guard: DetachGuard {
                streams: self.clone(),
                session: Arc::from(session),
                token,
            },
        })
    }

    /// Ends every stream (server shutdown); buffered events are dropped.
    pub(crate) fn close_all(&self) {
        self.lock().clear();
        self.pending_lock().clear();
        self.detached.clear();
    }

    /// Forgets a session (deleted, evicted): its stream ends and its pending requests fail.
    pub(crate) fn close(&self, session: &str) {
        self.lock().remove(session);
        self.pending_lock().retain(|(s, _), _| &**s != session);
        self.inflight.cancel_session(session);
        self.detached.close_session(session);
    }

    fn pending_lock(&self) -> MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Registers a server→client request `id` of `session`; the receiver gets the answer.
    pub(crate) fn expect_answer(
        &self,
        session: &str,
        id: &str,
    ) -> tokio::sync::oneshot::Receiver<ClientAnswer> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.pending_lock()
            .insert((Arc::from(session), id.to_owned()), tx);
        rx
    }

    /// Delivers a client's answer to the call awaiting it here, or through the relay to
    /// the replica where it waits; `false` when nothing here awaits it and there is no relay.
    pub(crate) fn answer(&self, session: &str, id: &str, answer: ClientAnswer) -> bool {
        let key = (Arc::from(session), id.to_owned());
        let waiting = self.pending_lock().remove(&key);
        match (waiting, self.relay.get()) {
            (Some(tx), _) => tx.send(answer).is_ok(),
            (None, Some(relay)) => {
                relay.answer(session, id, answer);
                true
            }
            (None, None) => false,
        }
    }

    /// Delivers an answer relayed by another replica, if a call here awaits it.
    pub(crate) fn answer_local(&self, session: &str, id: &str, answer: ClientAnswer) -> bool {
        let key = (Arc::from(session), id.to_owned());
        match self.pending_lock().remove(&key) {
            Some(tx) => tx.send(answer).is_ok(),
            None => false,
        }
    }

    /// Stops waiting for request `id` (timed out).
    pub(crate) fn forget(&self, session: &str, id: &str) {
        self.pending_lock()
            .remove(&(Arc::from(session), id.to_owned()));
    }

    /// How many sessions have stream state (for tests).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[tokio::test]
    async fn replays_after_last_event_id_and_bounds_memory() {
        let streams = Arc::new(Streams::default());
        for i in 0..(REPLAY_BUFFER as u64 + 10) {
            streams.publish("s", &json!({"n": i}));
        }
        let attached = streams.attach("s", Some(70), 10).unwrap();
        let ids: Vec<_> = attached.replay.iter().map(|e| e.id).collect();
        assert_eq!(ids, (71..=74).collect::<Vec<_>>());
        // A second stream for the same session conflicts while the first is attached.
        assert_eq!(streams.attach("s", None, 10).err(), Some(Refused::Conflict));
        // The server-wide cap counts open streams; closing one frees its place.
        assert_eq!(streams.attach("t", None, 1).err(), Some(Refused::Full));
        drop(attached);
        assert!(streams.attach("t", None, 1).is_ok());
        let mut attached = streams.attach("s", None, 10).unwrap();
        assert!(attached.replay.is_empty());
        assert!(streams.publish("s", &json!({"live": true})));
        assert_eq!(
            attached.receiver.recv().await.unwrap().id,
            REPLAY_BUFFER as u64 + 11
        );
        // A slow reader: the live queue is bounded; extra events are kept for replay only.
        let accepted = (0..LIVE_QUEUE * 2)
            .filter(|_| streams.publish("s", &json!({})))
            .count();
        assert_eq!(accepted, LIVE_QUEUE);
        streams.close("s");
        streams.close("t");
        assert_eq!(streams.len(), 0);
    }
}
