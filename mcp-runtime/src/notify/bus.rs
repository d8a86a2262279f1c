//! The event bus: how one replica's notifications, GET-stream messages and client answers
//! reach the others. [`InProcessBus`] is the default (one process; several servers built
//! with the same bus behave as replicas); `RedisBus` (feature `redis`) carries them
//! between processes.

use std::sync::{Arc, Mutex, PoisonError};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::base::BoxFuture;
use crate::protocol::ErrorObject;
use crate::redact::Redacted;

/// A change a server announces to its clients.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Change {
    /// The tool list changed (`notifications/tools/list_changed`).
    ToolsListChanged,
    /// The prompt list changed (`notifications/prompts/list_changed`).
    PromptsListChanged,
    /// The resource list changed (`notifications/resources/list_changed`).
    ResourcesListChanged,
    /// A resource changed (`notifications/resources/updated` to its subscribers).
    ResourceUpdated {
        /// The resource's URI (matched verbatim against subscriptions).
        uri: String,
    },
}

impl Change {
    /// The JSON-RPC method of the notification.
    pub fn method(&self) -> &'static str {
        match self {
            Self::ToolsListChanged => "notifications/tools/list_changed",
            Self::PromptsListChanged => "notifications/prompts/list_changed",
            Self::ResourcesListChanged => "notifications/resources/list_changed",
            Self::ResourceUpdated { .. } => "notifications/resources/updated",
        }
    }
}

/// What travels on the bus (opaque: serialize it with [`BusMessage::to_json`], read it back
/// with [`BusMessage::from_json`]). `Debug` shows the session ids of a legacy session's
/// messages as fingerprints, as [`Session`](crate::Session) does.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BusMessage {
    /// The replica that published it.
    pub(crate) origin: String,
    pub(crate) event: BusEvent,
}

#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum BusEvent {
    /// A change for every listener and legacy session.
    Change { change: Change },
    /// Something may have been missed (a replica reconnected to the bus): every client is
    /// told that every list changed, and subscribers that their resources did.
    Resync,
    /// A message for a legacy session's GET stream, held by some replica.
    SessionMessage { session: String, message: String },
    /// A client's answer to a server→client request of a legacy session.
    Answer {
        session: String,
        id: String,
        answer: Result<Value, ErrorObject>,
    },
    /// A tool of a basic service was enabled or disabled at run time.
    ToolEnabled { name: String, enabled: bool },
    /// A task changed: replicas with listeners of its owner that named it read it from the
    /// task store and send them `notifications/tasks`.
    TaskChanged { task_id: String, owner: String },
}

impl std::fmt::Debug for BusEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Change { change } => f.debug_struct("Change").field("change", change).finish(),
            Self::Resync => f.write_str("Resync"),
            Self::SessionMessage { session, message } => f
                .debug_struct("SessionMessage")
                .field("session", &Redacted::fingerprint(session))
                .field("message", message)
                .finish(),
            Self::Answer {
                session,
                id,
                answer,
            } => f
                .debug_struct("Answer")
                .field("session", &Redacted::fingerprint(session))
                .field("id", id)
                .field("answer", answer)
                .finish(),
            Self::ToolEnabled { name, enabled } => f
                .debug_struct("ToolEnabled")
                .field("name", name)
                .field("enabled", enabled)
                .finish(),
            Self::TaskChanged { task_id, .. } => f
                .debug_struct("TaskChanged")
                .field("task_id", &Redacted::fingerprint(task_id))
                .finish_non_exhaustive(),
        }
    }
}

impl BusMessage {
    /// The message as JSON text.
    pub fn to_json(&self) -> String {
        // A message holds only strings and JSON values: it always serializes.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// A message read back from [`to_json`](Self::to_json)'s text.
    pub fn from_json(text: &str) -> Result<Self, BusError> {
        serde_json::from_str(text).map_err(|e| BusError::Malformed(e.to_string()))
    }
}

/// Why a bus could not publish or read a message.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BusError {
    /// The bus is unreachable (for example Redis is down); the message was not sent to the
    /// other replicas.
    #[error("the event bus is unreachable: {0}")]
    Unavailable(String),
    /// A message read from the bus is not one a server published.
    #[error("a malformed event bus message: {0}")]
    Malformed(String),
}

/// Where a bus hands the messages it receives.
pub type Deliver = Arc<dyn Fn(BusMessage) + Send + Sync>;

/// Carries messages between the replicas of a server. Every message published is handed to
/// every subscriber of every replica (the publishing one included; a server ignores its own).
pub trait EventBus: Send + Sync + 'static {
    /// Publishes `message` to every replica.
    fn publish(&self, message: BusMessage) -> BoxFuture<'_, Result<(), BusError>>;

    /// Registers `deliver`: it gets every message published from now on. A bus that may
    /// have lost messages (it reconnected) delivers [`BusMessage::resync`] once it is back.
    fn subscribe(&self, deliver: Deliver);
}

impl BusMessage {
    /// The message a bus delivers after it may have lost messages (it reconnected): every
    /// server receiving it tells its clients that everything may have changed.
    pub fn resync() -> Self {
        Self {
            origin: String::new(),
            event: BusEvent::Resync,
        }
    }
}

impl<B: EventBus + ?Sized> EventBus for Arc<B> {
    fn publish(&self, message: BusMessage) -> BoxFuture<'_, Result<(), BusError>> {
        (**self).publish(message)
    }

    fn subscribe(&self, deliver: Deliver) {
        (**self).subscribe(deliver);
    }
}

/// The in-process bus: delivers synchronously to its subscribers. Share one (it is
/// cloneable) between servers of one process to make them behave as replicas.
#[derive(Clone, Default)]
pub struct InProcessBus {
    subscribers: Arc<Mutex<Vec<Deliver>>>,
}

impl std::fmt::Debug for InProcessBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InProcessBus").finish_non_exhaustive()
    }
}

impl InProcessBus {
    /// A bus with no subscriber yet.
    pub fn new() -> Self {
        Self::default()
    }
}

impl EventBus for InProcessBus {
    fn publish(&self, message: BusMessage) -> BoxFuture<'_, Result<(), BusError>> {
        let subscribers = self
            .subscribers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        for deliver in subscribers {
            deliver(message.clone());
        }
        Box::pin(async { Ok(()) })
    }

    fn subscribe(&self, deliver: Deliver) {
        self.subscribers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(deliver);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip_and_garbage_is_refused() {
        let m = BusMessage {
            origin: "a".into(),
            event: BusEvent::Change {
                change: Change::ResourceUpdated {
                    uri: "file:///x".into(),
                },
            },
        };
        assert_eq!(BusMessage::from_json(&m.to_json()).unwrap(), m);
        assert!(matches!(
            BusMessage::from_json("{\"origin\":1}"),
            Err(BusError::Malformed(_))
        ));
    }
}
