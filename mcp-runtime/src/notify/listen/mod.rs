//! `subscriptions/listen` listeners: the filter, its honoured subset, the registry of open
//! listeners with its caps and byte budgets, and each listener's bounded queue.
//!
//! Errors are the TypeScript server's: `-32603 "Subscription limit reached"` past the cap
//! (checked first), `-32602 "Invalid params: 'notifications' is required and must be a valid
//! SubscriptionFilter"` for a missing or mistyped filter; unknown filter members are ignored
//! (the TypeScript schema strips them). A listener whose queue fills up is dropped: its
//! stream ends with [`overflow_error`].
//!
//! A filter is bounded ([`Limits`]): its URIs in number and length, and what open listeners
//! hold ([`cost`]) per caller and in all, with the number of a caller's open listeners. A
//! listen over a bound gets `-32602` naming the bound and its [`ServerBuilder`] setting
//! ([`OverBound`]). The budget a listener takes is returned when its stream ends.
//!
//! [`ServerBuilder`]: crate::ServerBuilder

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use serde::Deserialize;
use serde_json::{Map, Value, json};
use tokio::sync::mpsc;

mod limits;

pub(crate) use limits::{Caller, Limits, OverBound, URI_OVERHEAD};

use super::{Change, Honourable};
use crate::protocol::{ErrorCode, ErrorObject, JsonObject, TASKS_EXTENSION, TASKS_NOTIFICATION};

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
    task_ids: Option<Vec<String>>,
}

/// The honoured subset of a filter.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Filter {
    tools: bool,
    prompts: bool,
    resources: bool,
    /// The subscribed URIs, for matching an update without a scan (the acknowledgement
    /// keeps the request's order).
    uris: HashSet<Box<str>>,
    /// Every `resources/updated` (a legacy stdio connection, which checks its session's
    /// subscriptions itself).
    all_uris: bool,
    /// The tasks whose `notifications/tasks` the listener asked for (delivered only when
    /// the listener's caller owns the task).
    tasks: HashSet<Box<str>>,
}

impl Filter {
    /// The honoured subset of `requested`, and the acknowledged filter: only the honoured
    /// members, the URIs in the request's order.
    fn honour(requested: Requested, can: Honourable) -> (Self, Value) {
        let ordered = if can.subscribe {
            requested.resource_subscriptions.unwrap_or_default()
        } else {
            Vec::new()
        };
        let filter = Self {
            tools: requested.tools_list_changed == Some(true) && can.tools,
            prompts: requested.prompts_list_changed == Some(true) && can.prompts,
            resources: requested.resources_list_changed == Some(true) && can.resources,
            uris: ordered.iter().map(|u| Box::from(u.as_str())).collect(),
            all_uris: false,
            tasks: HashSet::new(),
        };
        let task_ids = if can.tasks {
            requested.task_ids.unwrap_or_default()
        } else {
            Vec::new()
        };
        let mut filter = filter;
        filter.tasks = task_ids.iter().map(|t| Box::from(t.as_str())).collect();
        let mut acknowledged = Map::new();
        for (key, on) in [
            ("toolsListChanged", filter.tools),
            ("promptsListChanged", filter.prompts),
            ("resourcesListChanged", filter.resources),
        ] {
            if on {
                acknowledged.insert(key.into(), json!(true));
            }
        }
        if !ordered.is_empty() {
            acknowledged.insert(
                "resourceSubscriptions".into(),
                Value::Array(ordered.into_iter().map(Value::String).collect()),
            );
        }
        if !task_ids.is_empty() {
            acknowledged.insert(
                "taskIds".into(),
                Value::Array(task_ids.into_iter().map(Value::String).collect()),
            );
        }
        (filter, Value::Object(acknowledged))
    }

    fn is_empty(&self) -> bool {
        !self.tools
            && !self.prompts
            && !self.resources
            && self.uris.is_empty()
            && self.tasks.is_empty()
    }

    fn accepts(&self, change: &Change) -> bool {
        match change {
            Change::ToolsListChanged => self.tools,
            Change::PromptsListChanged => self.prompts,
            Change::ResourcesListChanged => self.resources,
            Change::ResourceUpdated { uri } => self.all_uris || self.uris.contains(uri.as_str()),
        }
    }

    /// The bytes keeping the URIs costs ([`URI_OVERHEAD`] each besides their own).
    fn kept_bytes(&self) -> usize {
        self.uris
            .iter()
            .chain(&self.tasks)
            .map(|u| u.len() + URI_OVERHEAD)
            .sum()
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
    /// The identity key of the listener's caller (empty when anonymous): it hears only
    /// the tasks it owns.
    owner: Box<str>,
    /// The listen id as JSON text (`None`: unsolicited legacy notifications).
    id: Option<String>,
    tx: mpsc::Sender<Arc<str>>,
    overflow: Arc<AtomicBool>,
    closed: Arc<AtomicBool>,
}

/// What one caller's open listeners hold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Usage {
    listeners: usize,
    bytes: usize,
}

/// The registry: the open listeners, and what they hold per caller and in all. A listener
/// stays counted until its stream ends ([`Guard`]), also when [`Listeners::close_all`] or
/// a full queue took it out of `map` first: its stream still holds its messages.
#[derive(Default)]
struct Registry {
    map: HashMap<u64, Entry>,
    callers: HashMap<Caller, Usage>,
    bytes: usize,
}

impl Registry {
    /// Charges `cost` to `caller` when every budget allows it.
    fn charge(&mut self, caller: &Caller, cost: usize, limits: &Limits) -> Result<(), OverBound> {
        let usage = self.callers.get(caller).copied().unwrap_or_default();
        if usage.listeners >= limits.listeners_per_caller {
            return Err(OverBound::CallerListeners {
                open: usage.listeners,
                limit: limits.listeners_per_caller,
            });
        }
        if usage.bytes.saturating_add(cost) > limits.bytes_per_caller {
            return Err(OverBound::CallerBytes {
                cost,
                held: usage.bytes,
                limit: limits.bytes_per_caller,
            });
        }
        if self.bytes.saturating_add(cost) > limits.bytes {
            return Err(OverBound::ServerBytes {
                cost,
                limit: limits.bytes,
            });
        }
        let usage = self.callers.entry(caller.clone()).or_default();
        usage.listeners += 1;
        usage.bytes += cost;
        self.bytes += cost;
        Ok(())
    }

    /// Returns what [`charge`](Self::charge) took.
    fn release(&mut self, caller: &Caller, cost: usize) {
        if let Some(usage) = self.callers.get_mut(caller) {
            usage.listeners = usage.listeners.saturating_sub(1);
            usage.bytes = usage.bytes.saturating_sub(cost);
            if usage.listeners == 0 {
                self.callers.remove(caller);
            }
        }
        self.bytes = self.bytes.saturating_sub(cost);
    }
}

/// The open listeners of one server.
pub(crate) struct Listeners {
    registry: Mutex<Registry>,
    next: AtomicU64,
    max: usize,
    queue: usize,
    limits: Limits,
}

/// An accepted listen request.
pub(crate) struct Opened {
    /// The acknowledgement, to send first.
    pub(crate) ack: String,
    /// The honoured subset is empty: after the ack, the graceful result at once.
    pub(crate) empty: bool,
    /// The graceful result, sent last when the server ends the listener (or at once when
    /// `empty`).
    pub(crate) result: String,
    /// The error ending the stream of a listener dropped for not reading.
    pub(crate) overflow_error: String,
    /// The notifications.
    pub(crate) receiver: mpsc::Receiver<Arc<str>>,
    /// Set when the listener was dropped for not reading.
    pub(crate) overflow: Arc<AtomicBool>,
    /// Set when the server ended the listener gracefully ([`Listeners::close_all`]).
    pub(crate) closed: Arc<AtomicBool>,
    /// Unregisters the listener, and returns what it was charged, when dropped.
    pub(crate) guard: Guard,
}

/// Unregisters a listener when its stream ends, returning its caller's budget.
pub(crate) struct Guard {
    listener: Option<Registered>,
}

struct Registered {
    hub: Arc<super::Hub>,
    key: u64,
    /// `None`: a legacy stdio connection, charged nothing.
    charged: Option<(Caller, usize)>,
}

impl Drop for Guard {
    fn drop(&mut self) {
        if let Some(Registered { hub, key, charged }) = self.listener.take() {
            let mut registry = hub.listeners.lock();
            registry.map.remove(&key);
            if let Some((caller, cost)) = charged {
                registry.release(&caller, cost);
            }
        }
    }
}

/// `-32603 Subscription limit reached` (the TypeScript server's words).
fn limit_reached() -> ErrorObject {
    ErrorObject::new(ErrorCode::INTERNAL_ERROR, "Subscription limit reached")
}

/// `-32602` for a missing or invalid filter (the TypeScript server's words).
fn invalid_filter() -> ErrorObject {
    ErrorObject::new(
        ErrorCode::INVALID_PARAMS,
        "Invalid params: 'notifications' is required and must be a valid SubscriptionFilter",
    )
}

/// The error ending the stream of a listener dropped for not reading.
fn overflow_error(id: &Value, queue: usize) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": {
        "code": ErrorCode::INTERNAL_ERROR,
        "message": format!("Subscription dropped: the listener fell {queue} notifications behind; listen again and re-read the lists"),
    }})
    .to_string()
}

/// The graceful end of a listen stream.
fn graceful_result(id: &Value, server_info_meta: &JsonObject) -> String {
    let mut meta = server_info_meta.clone();
    meta.insert(SUBSCRIPTION_ID.into(), id.clone());
    json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "complete", "_meta": meta}})
        .to_string()
}

/// The bytes a listener is charged, what its filter makes the server hold while its stream
/// is open: the messages kept for it (the acknowledgement, which echoes the filter and is
/// held until the client reads it; the graceful result and the overflow error), its id, and
/// each URI kept for matching with [`URI_OVERHEAD`].
fn cost(opened: &Opened, id: &str, filter: &Filter) -> usize {
    opened.ack.len()
        + opened.result.len()
        + opened.overflow_error.len()
        + id.len()
        + filter.kept_bytes()
}

impl Listeners {
    pub(crate) fn new(max: usize, queue: usize, limits: Limits) -> Self {
        Self {
            registry: Mutex::default(),
            next: AtomicU64::new(0),
            max,
            queue: queue.max(1),
            limits,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Registry> {
        self.registry.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// How many listeners are open.
    pub(crate) fn len(&self) -> usize {
        self.lock().map.len()
    }

    /// Opens a listener of `caller` for request `id` with `params` (the request's params);
    /// `tasks`: the request's client capabilities declare the tasks extension.
    pub(crate) fn open(
        hub: &Arc<super::Hub>,
        id: &Value,
        params: Option<&JsonObject>,
        caller: &Caller,
        tasks: bool,
    ) -> Result<Opened, ErrorObject> {
        let this = &hub.listeners;
        if this.len() >= this.max {
            tracing::warn!(max = this.max, "refusing a listener: the cap is reached");
            return Err(limit_reached());
        }
        let notifications = params
            .and_then(|p| p.get("notifications"))
            .filter(|n| n.is_object())
            .ok_or_else(invalid_filter)?;
        this.limits.check_filter(notifications)?;
        let requested = Requested::deserialize(notifications).map_err(|_| invalid_filter())?;
        if requested.task_ids.as_ref().is_some_and(|t| !t.is_empty())
            && hub.honourable.tasks
            && !tasks
        {
            return Err(ErrorObject::new(
                ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
                format!("Task notifications need the {TASKS_EXTENSION} extension: declare it in the request's client capabilities"),
            )
            .with_data(json!({"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}})));
        }
        let (filter, acknowledged) = Filter::honour(requested, hub.honourable);
        let ack = stamped(
            "notifications/subscriptions/acknowledged",
            [("notifications".to_owned(), acknowledged)]
                .into_iter()
                .collect(),
            id,
        );
        let (tx, receiver) = mpsc::channel(this.queue);
        let mut opened = Opened {
            ack,
            empty: filter.is_empty(),
            result: graceful_result(id, hub.server_info_meta()),
            overflow_error: overflow_error(id, this.queue),
            receiver,
            overflow: Arc::new(AtomicBool::new(false)),
            closed: Arc::new(AtomicBool::new(false)),
            guard: Guard { listener: None },
        };
        if opened.empty {
            return Ok(opened);
        }
        let id = id.to_string();
        let cost = cost(&opened, &id, &filter);
        let mut registry = this.lock();
        // Checked again under the lock: concurrent opens cannot pass the cap together.
        if registry.map.len() >= this.max {
            return Err(limit_reached());
        }
        if let Err(over) = registry.charge(caller, cost, &this.limits) {
            tracing::warn!(?caller, %over, "refusing a listener over its bounds");
            return Err(over.into());
        }
        let key = this.next.fetch_add(1, Ordering::Relaxed);
        registry.map.insert(
            key,
            Entry {
                filter: Arc::new(filter),
                owner: match caller {
                    Caller::Identified(key) => Box::from(&**key),
                    _ => Box::default(),
                },
                id: Some(id),
                tx,
                overflow: opened.overflow.clone(),
                closed: opened.closed.clone(),
            },
        );
        opened.guard = Guard {
            listener: Some(Registered {
                hub: hub.clone(),
                key,
                charged: Some((caller.clone(), cost)),
            }),
        };
        Ok(opened)
    }

    /// Registers a legacy stdio connection: every advertised list change and every resource
    /// update, unsolicited (the connection filters updates by its session's subscriptions).
    pub(crate) fn open_unsolicited(hub: &Arc<super::Hub>) -> Opened {
        let can = hub.honourable;
        let filter = Filter {
            tools: can.tools,
            prompts: can.prompts,
            resources: can.resources,
            uris: HashSet::new(),
            all_uris: can.subscribe,
            tasks: HashSet::new(),
        };
        let this = &hub.listeners;
        let (tx, receiver) = mpsc::channel(this.queue);
        let overflow = Arc::new(AtomicBool::new(false));
        let closed = Arc::new(AtomicBool::new(false));
        let key = this.next.fetch_add(1, Ordering::Relaxed);
        this.lock().map.insert(
            key,
            Entry {
                filter: Arc::new(filter),
                owner: Box::default(),
                id: None,
                tx,
                overflow: overflow.clone(),
                closed: closed.clone(),
            },
        );
        Opened {
            ack: String::new(),
            empty: false,
            result: String::new(),
            overflow_error: String::new(),
            receiver,
            overflow,
            closed,
            guard: Guard {
                listener: Some(Registered {
                    hub: hub.clone(),
                    key,
                    charged: None,
                }),
            },
        }
    }

    /// Ends every `subscriptions/listen` stream gracefully: each gets what is queued, then
    /// the graceful result (legacy stdio connections keep their notifications).
    pub(crate) fn close_all(&self) {
        self.lock().map.retain(|_, entry| {
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

    /// Whether a listener of `owner` here asked for task `id`.
    pub(crate) fn wants_task(&self, id: &str, owner: &str) -> bool {
        self.lock()
            .map
            .values()
            .any(|e| e.id.is_some() && *e.owner == *owner && e.filter.tasks.contains(id))
    }

    /// Queues `notifications/tasks` with `task` for the listeners of task `id` whose caller
    /// is `owner`.
    pub(crate) fn dispatch_task(&self, id: &str, owner: &str, task: JsonObject) {
        let mut text = None;
        self.each(|entry| {
            if entry.id.is_none() || !entry.filter.tasks.contains(id) || *entry.owner != *owner {
                return Vec::new();
            }
            let params = text.get_or_insert_with(|| Value::Object(task.clone()).to_string());
            let listen_id = entry.id.as_deref().unwrap_or("null");
            // `_meta` stamped by concatenation: the task is the same for every listener.
            let params = match params.strip_suffix('}') {
                Some(body) if body.len() > 1 => {
                    format!(r#"{body},"_meta":{{"{SUBSCRIPTION_ID}":{listen_id}}}}}"#)
                }
                _ => format!(r#"{{"_meta":{{"{SUBSCRIPTION_ID}":{listen_id}}}}}"#),
            };
            vec![format!(
                r#"{{"jsonrpc":"2.0","method":"{TASKS_NOTIFICATION}","params":{params}}}"#
            )]
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
                changes.push(Change::ResourceUpdated {
                    uri: uri.as_ref().into(),
                });
            }
            changes
                .iter()
                .map(|c| change_message(c, entry.id.as_deref()))
                .collect()
        });
    }

    fn each(&self, mut messages: impl FnMut(&Entry) -> Vec<String>) {
        self.lock().map.retain(|_, entry| {
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

#[cfg(any(test, feature = "fuzz"))]
impl Listeners {
    /// Asserts that the accounting adds up and keeps within the limits; returns how many
    /// listeners are registered, how many callers hold a charge, and the bytes charged.
    pub(crate) fn audit(&self) -> (usize, usize, usize) {
        let registry = self.lock();
        let limits = &self.limits;
        assert!(registry.map.len() <= self.max, "over max_listeners");
        let mut bytes = 0;
        for (caller, usage) in &registry.callers {
            assert!(usage.listeners > 0, "{caller:?} holds no listener");
            assert!(
                usage.listeners <= limits.listeners_per_caller,
                "{caller:?}: {usage:?}"
            );
            assert!(
                usage.bytes <= limits.bytes_per_caller,
                "{caller:?}: {usage:?}"
            );
            bytes += usage.bytes;
        }
        assert_eq!(bytes, registry.bytes, "the callers' bytes do not add up");
        assert!(registry.bytes <= limits.bytes, "over max_listen_bytes");
        for entry in registry.map.values() {
            let f = &entry.filter;
            assert!(f.uris.len() <= limits.uris);
            assert!(f.uris.iter().all(|u| u.len() <= limits.uri_bytes));
        }
        (registry.map.len(), registry.callers.len(), registry.bytes)
    }
}

#[cfg(test)]
mod tests;
