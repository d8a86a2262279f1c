//! `subscriptions/listen` listeners: the filter, its honoured subset, the registry of open
//! listeners with its cap, and each listener's bounded queue.
//!
//! Errors are the TypeScript server's: `-32603 "Subscription limit reached"` past the cap
//! (checked first), `-32602 "Invalid params: 'notifications' is required and must be a valid
//! SubscriptionFilter"` for a missing or mistyped filter; unknown filter members are ignored
//! (the TypeScript schema strips them). A listener whose queue fills up is dropped: its
//! stream ends with [`overflow_error`].

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use serde::Deserialize;
use serde_json::{Map, Value, json};
use tokio::sync::mpsc;

use super::{Change, Honourable};
use crate::protocol::{ErrorCode, ErrorObject, JsonObject};

/// The `_meta` key stamping a listen stream's messages.
pub(crate) const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// The filter of a `subscriptions/listen` request (members the schema does not know are
/// ignored).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Requested {
    tools_list_changed: Option<bool>,
    prompts_list_changed: Option<bool>,
    resources_list_changed: Option<bool>,
    resource_subscriptions: Option<Vec<String>>,
}

/// The honoured subset of a filter.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Filter {
    tools: bool,
    prompts: bool,
    resources: bool,
    uris: Vec<String>,
    /// Every `resources/updated` (a legacy stdio connection, which checks its session's
    /// subscriptions itself).
    all_uris: bool,
}

impl Filter {
    fn honour(requested: Requested, can: Honourable) -> Self {
        Self {
            tools: requested.tools_list_changed == Some(true) && can.tools,
            prompts: requested.prompts_list_changed == Some(true) && can.prompts,
            resources: requested.resources_list_changed == Some(true) && can.resources,
            uris: if can.subscribe {
                requested.resource_subscriptions.unwrap_or_default()
            } else {
                Vec::new()
            },
            all_uris: false,
        }
    }

    fn is_empty(&self) -> bool {
        !self.tools && !self.prompts && !self.resources && self.uris.is_empty()
    }

    fn accepts(&self, change: &Change) -> bool {
        match change {
            Change::ToolsListChanged => self.tools,
            Change::PromptsListChanged => self.prompts,
            Change::ResourcesListChanged => self.resources,
            Change::ResourceUpdated { uri } => self.all_uris || self.uris.iter().any(|u| u == uri),
        }
    }

    /// The acknowledged filter: only the honoured members.
    fn to_json(&self) -> Value {
        let mut m = Map::new();
        for (key, on) in [
            ("toolsListChanged", self.tools),
            ("promptsListChanged", self.prompts),
            ("resourcesListChanged", self.resources),
        ] {
            if on {
                m.insert(key.into(), json!(true));
            }
        }
        if !self.uris.is_empty() {
            m.insert("resourceSubscriptions".into(), json!(self.uris));
        }
        Value::Object(m)
    }
}

/// A notification stamped with the listen request's id, as one JSON text.
fn stamped(method: &str, mut params: JsonObject, id: &Value) -> String {
    params.insert("_meta".into(), json!({ SUBSCRIPTION_ID: id }));
    json!({"jsonrpc": "2.0", "method": method, "params": params}).to_string()
}

/// The notification of `change`: stamped with the listen id (`id`, as JSON text), or
/// unsolicited (legacy: without `params` for list changes). Built by concatenation: a
/// change goes to every listener, each with its own id.
fn change_message(change: &Change, id: Option<&str>) -> String {
    let method = change.method();
    let uri = match change {
        Change::ResourceUpdated { uri } => Some(Value::from(uri.as_str()).to_string()),
        _ => None,
    };
    match (id, uri) {
        (Some(id), Some(uri)) => format!(
            r#"{{"jsonrpc":"2.0","method":"{method}","params":{{"uri":{uri},"_meta":{{"{SUBSCRIPTION_ID}":{id}}}}}}}"#
        ),
        (Some(id), None) => format!(
            r#"{{"jsonrpc":"2.0","method":"{method}","params":{{"_meta":{{"{SUBSCRIPTION_ID}":{id}}}}}}}"#
        ),
        (None, Some(uri)) => {
            format!(r#"{{"jsonrpc":"2.0","method":"{method}","params":{{"uri":{uri}}}}}"#)
        }
        (None, None) => format!(r#"{{"jsonrpc":"2.0","method":"{method}"}}"#),
    }
}

struct Entry {
    filter: Arc<Filter>,
    /// The listen id as JSON text (`None`: unsolicited legacy notifications).
    id: Option<String>,
    tx: mpsc::Sender<Arc<str>>,
    overflow: Arc<AtomicBool>,
    closed: Arc<AtomicBool>,
}

/// The open listeners of one server.
pub(crate) struct Listeners {
    map: Mutex<HashMap<u64, Entry>>,
    next: AtomicU64,
    max: usize,
    queue: usize,
}

/// An accepted listen request.
pub(crate) struct Opened {
    /// The acknowledgement, to send first.
    pub(crate) ack: String,
    /// The honoured subset is empty: after the ack, the graceful result at once.
    pub(crate) empty: bool,
    /// The notifications.
    pub(crate) receiver: mpsc::Receiver<Arc<str>>,
    /// Set when the listener was dropped for not reading.
    pub(crate) overflow: Arc<AtomicBool>,
    /// Set when the server ended the listener gracefully ([`Listeners::close_all`]).
    pub(crate) closed: Arc<AtomicBool>,
    /// Unregisters the listener when dropped.
    pub(crate) guard: Guard,
}

/// Unregisters a listener when its stream ends.
pub(crate) struct Guard {
    listeners: Option<(Arc<super::Hub>, u64)>,
}

impl Drop for Guard {
    fn drop(&mut self) {
        if let Some((hub, key)) = self.listeners.take() {
            hub.listeners.lock().remove(&key);
        }
    }
}

/// `-32603 Subscription limit reached` (the TypeScript server's words).
pub(crate) fn limit_reached() -> ErrorObject {
    ErrorObject::new(ErrorCode::INTERNAL_ERROR, "Subscription limit reached")
}

/// `-32602` for a missing or invalid filter (the TypeScript server's words).
pub(crate) fn invalid_filter() -> ErrorObject {
    ErrorObject::new(
        ErrorCode::INVALID_PARAMS,
        "Invalid params: 'notifications' is required and must be a valid SubscriptionFilter",
    )
}

/// The error ending the stream of a listener dropped for not reading.
pub(crate) fn overflow_error(id: &Value, queue: usize) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": {
        "code": ErrorCode::INTERNAL_ERROR,
        "message": format!("Subscription dropped: the listener fell {queue} notifications behind; listen again and re-read the lists"),
    }})
    .to_string()
}

/// The graceful end of a listen stream.
pub(crate) fn graceful_result(id: &Value, server_info_meta: &JsonObject) -> String {
    let mut meta = server_info_meta.clone();
    meta.insert(SUBSCRIPTION_ID.into(), id.clone());
    json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "complete", "_meta": meta}})
        .to_string()
}

impl Listeners {
    pub(crate) fn new(max: usize, queue: usize) -> Self {
        Self {
            map: Mutex::default(),
            next: AtomicU64::new(0),
            max,
            queue: queue.max(1),
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<u64, Entry>> {
        self.map.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// How many listeners are open.
    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }

    /// The queue bound of one listener.
    pub(crate) fn queue(&self) -> usize {
        self.queue
    }

    /// Opens a listener for request `id` with `params` (the request's params).
    pub(crate) fn open(
        hub: &Arc<super::Hub>,
        id: &Value,
        params: Option<&JsonObject>,
    ) -> Result<Opened, ErrorObject> {
        let this = &hub.listeners;
        if this.len() >= this.max {
            tracing::warn!(max = this.max, "refusing a listener: the cap is reached");
            return Err(limit_reached());
        }
        let requested = params
            .and_then(|p| p.get("notifications"))
            .filter(|n| n.is_object())
            .and_then(|n| Requested::deserialize(n).ok())
            .ok_or_else(invalid_filter)?;
        let filter = Filter::honour(requested, hub.honourable);
        let ack = stamped(
            "notifications/subscriptions/acknowledged",
            [("notifications".to_owned(), filter.to_json())]
                .into_iter()
                .collect(),
            id,
        );
        let (tx, receiver) = mpsc::channel(this.queue);
        let overflow = Arc::new(AtomicBool::new(false));
        let closed = Arc::new(AtomicBool::new(false));
        let empty = filter.is_empty();
        let guard = if empty {
            Guard { listeners: None }
        } else {
            let mut map = this.lock();
            // Checked again under the lock: concurrent opens cannot pass the cap together.
            if map.len() >= this.max {
                return Err(limit_reached());
            }
            let key = this.next.fetch_add(1, Ordering::Relaxed);
            map.insert(
                key,
                Entry {
                    filter: Arc::new(filter),
                    id: Some(id.to_string()),
                    tx,
                    overflow: overflow.clone(),
                    closed: closed.clone(),
                },
            );
            Guard {
                listeners: Some((hub.clone(), key)),
            }
        };
        Ok(Opened {
            ack,
            empty,
            receiver,
            overflow,
            closed,
            guard,
        })
    }

    /// Registers a legacy stdio connection: every advertised list change and every resource
    /// update, unsolicited (the connection filters updates by its session's subscriptions).
    pub(crate) fn open_unsolicited(hub: &Arc<super::Hub>) -> Opened {
        let can = hub.honourable;
        let filter = Filter {
            tools: can.tools,
            prompts: can.prompts,
            resources: can.resources,
            uris: Vec::new(),
            all_uris: can.subscribe,
        };
        let this = &hub.listeners;
        let (tx, receiver) = mpsc::channel(this.queue);
        let overflow = Arc::new(AtomicBool::new(false));
        let closed = Arc::new(AtomicBool::new(false));
        let key = this.next.fetch_add(1, Ordering::Relaxed);
        this.lock().insert(
            key,
            Entry {
                filter: Arc::new(filter),
                id: None,
                tx,
                overflow: overflow.clone(),
                closed: closed.clone(),
            },
        );
        Opened {
            ack: String::new(),
            empty: false,
            receiver,
            overflow,
            closed,
            guard: Guard {
                listeners: Some((hub.clone(), key)),
            },
        }
    }

    /// Ends every `subscriptions/listen` stream gracefully: each gets what is queued, then
    /// the graceful result (legacy stdio connections keep their notifications).
    pub(crate) fn close_all(&self) {
        self.lock().retain(|_, entry| {
            if entry.id.is_none() {
                return true;
            }
            entry.closed.store(true, Ordering::Relaxed);
            false
        });
    }

    /// Queues `change` for every listener that asked for it; a listener whose queue is full
    /// is dropped.
    pub(crate) fn dispatch(&self, change: &Change) {
        self.each(|entry| {
            if entry.filter.accepts(change) {
                vec![change_message(change, entry.id.as_deref())]
            } else {
                Vec::new()
            }
        });
    }

    /// After lost bus messages: every listener hears every change it asked for.
    pub(crate) fn resync(&self) {
        self.each(|entry| {
            let f = &entry.filter;
            let mut changes = Vec::new();
            for (on, change) in [
                (f.tools, Change::ToolsListChanged),
                (f.prompts, Change::PromptsListChanged),
                (f.resources, Change::ResourcesListChanged),
            ] {
                if on {
                    changes.push(change);
                }
            }
            for uri in &f.uris {
                changes.push(Change::ResourceUpdated { uri: uri.clone() });
            }
            changes
                .iter()
                .map(|c| change_message(c, entry.id.as_deref()))
                .collect()
        });
    }

    fn each(&self, messages: impl Fn(&Entry) -> Vec<String>) {
        let mut map = self.lock();
        map.retain(|_, entry| {
            for message in messages(entry) {
                match entry.tx.try_send(message.into()) {
                    Ok(()) => {}
                    Err(mpsc::error::TrySendError::Full(_)) => {
                        tracing::warn!(id = ?entry.id, "dropping a listener that does not read");
                        entry.overflow.store(true, Ordering::Relaxed);
                        return false;
                    }
                    Err(mpsc::error::TrySendError::Closed(_)) => return false,
                }
            }
            true
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all() -> Honourable {
        Honourable {
            tools: true,
            prompts: true,
            resources: true,
            subscribe: true,
        }
    }

    #[test]
    fn the_honoured_subset_follows_the_capabilities() {
        let requested: Requested = serde_json::from_value(json!({
            "toolsListChanged": true, "promptsListChanged": false, "resourcesListChanged": true,
            "resourceSubscriptions": ["a://x"], "bogus": 1
        }))
        .unwrap();
        let only_tools = Honourable {
            tools: true,
            ..Honourable::default()
        };
        assert_eq!(
            Filter::honour(requested, only_tools).to_json(),
            json!({"toolsListChanged": true})
        );
        let requested: Requested =
            serde_json::from_value(json!({"resourceSubscriptions": ["a://x"]})).unwrap();
        let f = Filter::honour(requested, all());
        assert!(f.accepts(&Change::ResourceUpdated {
            uri: "a://x".into()
        }));
        assert!(!f.accepts(&Change::ResourceUpdated {
            uri: "a://x/".into()
        }));
        assert!(!f.accepts(&Change::ToolsListChanged));
    }

    #[tokio::test]
    async fn the_ten_thousand_and_first_listener_is_refused() {
        let hub = super::super::Hub::new(
            &super::super::Settings::default(),
            Arc::default(),
            None,
            all(),
            JsonObject::new(),
        );
        let params = json!({"notifications": {"toolsListChanged": true}});
        let mut open = Vec::new();
        for i in 0..super::super::DEFAULT_MAX_LISTENERS {
            open.push(Listeners::open(&hub, &json!(i), params.as_object()).unwrap());
        }
        let refused = Listeners::open(&hub, &json!("one more"), params.as_object()).err();
        assert_eq!(refused, Some(limit_reached()));
        assert_eq!(limit_reached().code, ErrorCode::INTERNAL_ERROR);
        assert_eq!(limit_reached().message, "Subscription limit reached");
        drop(open.pop());
        assert!(Listeners::open(&hub, &json!("again"), params.as_object()).is_ok());
    }

    #[test]
    fn a_full_queue_drops_the_listener_after_what_it_holds() {
        let hub = super::super::Hub::new(
            &super::super::Settings {
                listener_queue: 2,
                ..super::super::Settings::default()
            },
            Arc::default(),
            None,
            all(),
            JsonObject::new(),
        );
        let params = json!({"notifications": {"toolsListChanged": true}});
        let mut opened = Listeners::open(&hub, &json!(1), params.as_object()).unwrap();
        for _ in 0..3 {
            hub.listeners.dispatch(&Change::ToolsListChanged);
        }
        assert_eq!(hub.listeners.len(), 0);
        assert!(opened.overflow.load(Ordering::Relaxed));
        assert!(opened.receiver.try_recv().is_ok());
        assert!(opened.receiver.try_recv().is_ok());
        assert!(opened.receiver.try_recv().is_err());
    }

    #[test]
    fn messages_are_stamped_with_the_listen_id() {
        let updated = Change::ResourceUpdated {
            uri: "a://\"quoted\"\n".into(),
        };
        let parse = |m: String| serde_json::from_str::<Value>(&m).unwrap();
        assert_eq!(
            parse(change_message(&updated, Some(r#""listen:0""#))),
            json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                   "params": {"uri": "a://\"quoted\"\n", "_meta": {SUBSCRIPTION_ID: "listen:0"}}})
        );
        assert_eq!(
            parse(change_message(&Change::ToolsListChanged, Some("7"))),
            json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
                   "params": {"_meta": {SUBSCRIPTION_ID: 7}}})
        );
        assert_eq!(
            parse(change_message(&updated, None)),
            json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                   "params": {"uri": "a://\"quoted\"\n"}})
        );
        assert_eq!(
            parse(change_message(&Change::PromptsListChanged, None)),
            json!({"jsonrpc": "2.0", "method": "notifications/prompts/list_changed"})
        );
    }
}
