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
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use serde::Deserialize;
use serde_json::{Map, Value, json};
use tokio::sync::mpsc;

use super::{Change, Honourable};
use crate::protocol::{ErrorCode, ErrorObject, JsonObject};
use crate::session::Owner;

/// The `_meta` key stamping a listen stream's messages.
pub(crate) const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// What keeping one URI of a filter costs besides its bytes (its place in the hash set and
/// the allocator's rounding), in the bytes a listener is charged.
pub(crate) const URI_OVERHEAD: usize = 64;

/// The bounds of `subscriptions/listen` filters (the `ServerBuilder::max_listen_*` settings).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Limits {
    /// URIs in one filter's `resourceSubscriptions`.
    pub(crate) uris: usize,
    /// Bytes of one URI.
    pub(crate) uri_bytes: usize,
    /// Open listeners of one caller.
    pub(crate) listeners_per_caller: usize,
    /// Bytes ([`cost`]) the open listeners of one caller hold.
    pub(crate) bytes_per_caller: usize,
    /// Bytes ([`cost`]) all open listeners hold.
    pub(crate) bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            uris: super::DEFAULT_MAX_LISTEN_URIS,
            uri_bytes: super::DEFAULT_MAX_LISTEN_URI_BYTES,
            listeners_per_caller: super::DEFAULT_MAX_LISTENERS_PER_CALLER,
            bytes_per_caller: super::DEFAULT_MAX_LISTEN_BYTES_PER_CALLER,
            bytes: super::DEFAULT_MAX_LISTEN_BYTES,
        }
    }
}

/// Who opened a listener, for the per-caller bounds.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Caller {
    /// An authenticated caller: its [`Owner`] key (token issuer, client and subject, or
    /// Basic user name).
    Identified(Arc<str>),
    /// An anonymous HTTP caller, by the address it connects from (an IPv6 address by its
    /// /64 prefix, the block one host usually has; an IPv4-mapped address as IPv4).
    Address(IpAddr),
    /// A stdio connection (its number in this process).
    Connection(u64),
    /// Anonymous callers whose address is unknown (an app serving the endpoint without
    /// `ConnectInfo`): one shared budget.
    Anonymous,
}

impl Caller {
    /// The caller of an HTTP request: its identity when it has one, else its address.
    pub(crate) fn http(owner: &Owner, peer: Option<IpAddr>) -> Self {
        match (owner, peer) {
            (Owner::Caller(key), _) => Self::Identified(key.clone()),
            (Owner::Anonymous, Some(ip)) => Self::Address(address_block(ip)),
            (Owner::Anonymous, None) => Self::Anonymous,
        }
    }

    /// A new stdio connection, unlike every other.
    pub(crate) fn connection() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        Self::Connection(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

/// The block of addresses one anonymous caller is taken to have: an IPv4 address, or the
/// /64 of an IPv6 address (a host can pick any address of its /64).
fn address_block(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6((u128::from(v6) & !u128::from(u64::MAX)).into()),
        },
    }
}

/// A listen request over one of the [`Limits`]: `-32602`, naming the limit and the
/// [`ServerBuilder`](crate::ServerBuilder) setting that raises it.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum OverBound {
    #[error(
        "Invalid params: resourceSubscriptions has {count} URIs; the limit is {limit} (ServerBuilder::max_listen_uris)"
    )]
    Uris { count: usize, limit: usize },
    #[error(
        "Invalid params: resourceSubscriptions[{index}] is {len} bytes long; the limit is {limit} (ServerBuilder::max_listen_uri_bytes)"
    )]
    UriBytes {
        index: usize,
        len: usize,
        limit: usize,
    },
    #[error(
        "Invalid params: this caller has {open} listen streams open; the limit is {limit} (ServerBuilder::max_listeners_per_caller)"
    )]
    CallerListeners { open: usize, limit: usize },
    #[error(
        "Invalid params: this listen takes {cost} bytes and this caller's open listens take {held}; the limit is {limit} (ServerBuilder::max_listen_bytes_per_caller)"
    )]
    CallerBytes {
        cost: usize,
        held: usize,
        limit: usize,
    },
    #[error(
        "Invalid params: this listen takes {cost} bytes, more than the server has left for listen filters; the limit is {limit} in all (ServerBuilder::max_listen_bytes)"
    )]
    ServerBytes { cost: usize, limit: usize },
}

impl OverBound {
    pub(crate) fn code(&self) -> ErrorCode {
        match self {
            Self::Uris { .. }
            | Self::UriBytes { .. }
            | Self::CallerListeners { .. }
            | Self::CallerBytes { .. }
            | Self::ServerBytes { .. } => ErrorCode::INVALID_PARAMS,
        }
    }
}

impl From<OverBound> for ErrorObject {
    fn from(over: OverBound) -> Self {
        ErrorObject::new(over.code(), over.to_string())
    }
}

impl Limits {
    /// Checks the URIs of a filter (`notifications`, an object) against the per-listener
    /// bounds, before anything is copied out of it. Members of the wrong type are left to
    /// the filter's parse.
    fn check_filter(&self, notifications: &Value) -> Result<(), OverBound> {
        let Some(uris) = notifications
            .get("resourceSubscriptions")
            .and_then(Value::as_array)
        else {
            return Ok(());
        };
        if uris.len() > self.uris {
            return Err(OverBound::Uris {
                count: uris.len(),
                limit: self.uris,
            });
        }
        for (index, uri) in uris.iter().enumerate() {
            if let Some(uri) = uri.as_str()
                && uri.len() > self.uri_bytes
            {
                return Err(OverBound::UriBytes {
                    index,
                    len: uri.len(),
                    limit: self.uri_bytes,
                });
            }
        }
        Ok(())
    }
}

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
    /// The subscribed URIs, for matching an update without a scan (the acknowledgement
    /// keeps the request's order).
    uris: HashSet<Box<str>>,
    /// Every `resources/updated` (a legacy stdio connection, which checks its session's
    /// subscriptions itself).
    all_uris: bool,
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
        };
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
        (filter, Value::Object(acknowledged))
    }

    fn is_empty(&self) -> bool {
        !self.tools && !self.prompts && !self.resources && self.uris.is_empty()
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
        self.uris.iter().map(|u| u.len() + URI_OVERHEAD).sum()
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

    /// Opens a listener of `caller` for request `id` with `params` (the request's params).
    pub(crate) fn open(
        hub: &Arc<super::Hub>,
        id: &Value,
        params: Option<&JsonObject>,
        caller: &Caller,
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

    fn each(&self, messages: impl Fn(&Entry) -> Vec<String>) {
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
            Filter::honour(requested, only_tools).1,
            json!({"toolsListChanged": true})
        );
        let requested: Requested =
            serde_json::from_value(json!({"resourceSubscriptions": ["a://x"]})).unwrap();
        let (f, _) = Filter::honour(requested, all());
        assert!(f.accepts(&Change::ResourceUpdated {
            uri: "a://x".into()
        }));
        assert!(!f.accepts(&Change::ResourceUpdated {
            uri: "a://x/".into()
        }));
        assert!(!f.accepts(&Change::ToolsListChanged));
    }

    fn hub(settings: &super::super::Settings) -> Arc<super::super::Hub> {
        super::super::Hub::new(settings, Arc::default(), None, all(), JsonObject::new())
    }

    fn usage(hub: &super::super::Hub) -> (usize, usize, usize) {
        hub.listeners.audit()
    }

    #[tokio::test]
    async fn the_ten_thousand_and_first_listener_is_refused() {
        let hub = hub(&super::super::Settings::default());
        let params = json!({"notifications": {"toolsListChanged": true}});
        let mut open = Vec::new();
        for i in 0..super::super::DEFAULT_MAX_LISTENERS {
            let caller = Caller::Connection(i as u64);
            open.push(Listeners::open(&hub, &json!(i), params.as_object(), &caller).unwrap());
        }
        let caller = Caller::Anonymous;
        let refused = Listeners::open(&hub, &json!("one more"), params.as_object(), &caller).err();
        assert_eq!(refused, Some(limit_reached()));
        assert_eq!(limit_reached().code, ErrorCode::INTERNAL_ERROR);
        assert_eq!(limit_reached().message, "Subscription limit reached");
        drop(open.pop());
        assert!(Listeners::open(&hub, &json!("again"), params.as_object(), &caller).is_ok());
    }

    /// `count` URIs of `len` bytes each, all different.
    fn uris(count: usize, len: usize) -> Vec<String> {
        (0..count)
            .map(|i| format!("{i:0len$}", len = len))
            .collect()
    }

    #[test]
    fn each_bound_refuses_with_its_setting_named() {
        let settings = super::super::Settings {
            listen_limits: Limits {
                uris: 3,
                uri_bytes: 10,
                listeners_per_caller: 2,
                bytes_per_caller: 2_000,
                bytes: 3_000,
            },
            ..super::super::Settings::default()
        };
        let hub = hub(&settings);
        let open = |id: i64, filter: Value, caller: &Caller| {
            Listeners::open(
                &hub,
                &json!(id),
                json!({"notifications": filter}).as_object(),
                caller,
            )
        };
        let a = Caller::Connection(1);
        let message = |r: Result<Opened, ErrorObject>| {
            let e = r.err().expect("refused");
            assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
            e.message
        };
        assert_eq!(
            message(open(1, json!({"resourceSubscriptions": uris(4, 1)}), &a)),
            "Invalid params: resourceSubscriptions has 4 URIs; the limit is 3 (ServerBuilder::max_listen_uris)"
        );
        assert_eq!(
            message(open(
                1,
                json!({"resourceSubscriptions": ["a", "bbbbbbbbbbb"]}),
                &a
            )),
            "Invalid params: resourceSubscriptions[1] is 11 bytes long; the limit is 10 (ServerBuilder::max_listen_uri_bytes)"
        );
        // Counted on the request, duplicates and all, before the filter's parse.
        assert!(
            open(
                1,
                json!({"resourceSubscriptions": ["a", "a", "a", "a"]}),
                &a
            )
            .is_err()
        );
        assert_eq!(
            message(open(
                1,
                json!({"resourceSubscriptions": ["a", 1, 2, 3]}),
                &a
            )),
            "Invalid params: resourceSubscriptions has 4 URIs; the limit is 3 (ServerBuilder::max_listen_uris)"
        );
        assert_eq!(usage(&hub), (0, 0, 0));
        let first = open(1, json!({"toolsListChanged": true}), &a).unwrap();
        let second = open(2, json!({"toolsListChanged": true}), &a).unwrap();
        assert_eq!(
            message(open(3, json!({"toolsListChanged": true}), &a)),
            "Invalid params: this caller has 2 listen streams open; the limit is 2 (ServerBuilder::max_listeners_per_caller)"
        );
        drop((first, second));
        assert_eq!(usage(&hub), (0, 0, 0));
        // A filter of three 10-byte URIs and a long id: what it costs.
        let big = json!({"resourceSubscriptions": uris(3, 10)});
        let long = "x".repeat(100);
        let opened = Listeners::open(
            &hub,
            &json!(long),
            json!({"notifications": big}).as_object(),
            &a,
        )
        .unwrap();
        let cost = usage(&hub).2;
        assert_eq!(
            cost,
            opened.ack.len()
                + opened.result.len()
                + opened.overflow_error.len()
                + long.len()
                + 2
                + 3 * (10 + URI_OVERHEAD)
        );
        assert!(cost > 1_000 && cost < 2_000, "{cost}");
        let refused = Listeners::open(
            &hub,
            &json!(long),
            json!({"notifications": big}).as_object(),
            &a,
        );
        assert_eq!(
            message(refused),
            format!(
                "Invalid params: this listen takes {cost} bytes and this caller's open listens take {cost}; the limit is 2000 (ServerBuilder::max_listen_bytes_per_caller)"
            )
        );
        let b = Caller::Connection(2);
        let other = Listeners::open(
            &hub,
            &json!(long),
            json!({"notifications": big}).as_object(),
            &b,
        )
        .unwrap();
        let c = Caller::Connection(3);
        let refused = Listeners::open(
            &hub,
            &json!(long),
            json!({"notifications": big}).as_object(),
            &c,
        );
        assert_eq!(
            message(refused),
            format!(
                "Invalid params: this listen takes {cost} bytes, more than the server has left for listen filters; the limit is 3000 in all (ServerBuilder::max_listen_bytes)"
            )
        );
        assert_eq!(usage(&hub), (2, 2, 2 * cost));
        drop(opened);
        assert_eq!(usage(&hub), (1, 1, cost));
        drop(other);
        assert_eq!(usage(&hub), (0, 0, 0));
    }

    #[test]
    fn budgets_come_back_however_a_listener_ends() {
        let hub = hub(&super::super::Settings {
            listener_queue: 1,
            ..super::super::Settings::default()
        });
        let caller = Caller::Address("2001:db8::1".parse().unwrap());
        let params = json!({"notifications": {"toolsListChanged": true, "resourceSubscriptions": ["a://x"]}});
        // Ended by the server (close_all), dropped for not reading, ended by the client.
        let closed = Listeners::open(&hub, &json!(1), params.as_object(), &caller).unwrap();
        hub.listeners.close_all();
        assert_eq!(usage(&hub).0, 0);
        assert_eq!(usage(&hub).1, 1, "counted until its stream ends");
        let overflowing = Listeners::open(&hub, &json!(2), params.as_object(), &caller).unwrap();
        hub.listeners.dispatch(&Change::ToolsListChanged);
        hub.listeners.dispatch(&Change::ToolsListChanged);
        assert!(overflowing.overflow.load(Ordering::Relaxed));
        let plain = Listeners::open(&hub, &json!(3), params.as_object(), &caller).unwrap();
        assert!(usage(&hub).2 > 0);
        drop((closed, overflowing, plain));
        assert_eq!(usage(&hub), (0, 0, 0));
        // An empty honoured filter ends at once and is charged nothing.
        let empty = json!({"notifications": {"resourceSubscriptions": []}});
        let opened = Listeners::open(&hub, &json!(4), empty.as_object(), &caller).unwrap();
        assert!(opened.empty);
        assert_eq!(usage(&hub), (0, 0, 0));
    }

    #[test]
    fn callers_are_told_apart_by_identity_then_address_block() {
        let v6 = |s: &str| Caller::http(&Owner::Anonymous, Some(s.parse().unwrap()));
        assert_eq!(v6("2001:db8::1"), v6("2001:db8::ffff:1"));
        assert_ne!(v6("2001:db8::1"), v6("2001:db8:0:1::1"));
        assert_eq!(v6("::ffff:192.0.2.7"), v6("192.0.2.7"));
        assert_ne!(v6("192.0.2.7"), v6("192.0.2.8"));
        let user = Owner::user("alice");
        assert_eq!(
            Caller::http(&user, Some("192.0.2.7".parse().unwrap())),
            Caller::http(&user, Some("192.0.2.8".parse().unwrap()))
        );
        assert_eq!(Caller::http(&Owner::Anonymous, None), Caller::Anonymous);
        assert_ne!(Caller::connection(), Caller::connection());
    }

    #[test]
    fn updates_match_through_the_set_and_the_ack_keeps_the_request_order() {
        let hub = hub(&super::super::Settings::default());
        let list = ["z://last", "a://first", "m://mid", "a://first"];
        let params = json!({"notifications": {"resourceSubscriptions": list}});
        let caller = Caller::Anonymous;
        let opened = Listeners::open(&hub, &json!(1), params.as_object(), &caller).unwrap();
        let ack: Value = serde_json::from_str(&opened.ack).unwrap();
        assert_eq!(
            ack["params"]["notifications"]["resourceSubscriptions"],
            json!(list)
        );
        let registry = hub.listeners.lock();
        let filter = &registry.map.values().next().unwrap().filter;
        assert_eq!(filter.uris.len(), 3);
        for uri in list {
            assert!(filter.accepts(&Change::ResourceUpdated { uri: uri.into() }));
        }
        assert!(!filter.accepts(&Change::ResourceUpdated {
            uri: "a://firs".into()
        }));
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
        let mut opened =
            Listeners::open(&hub, &json!(1), params.as_object(), &Caller::Anonymous).unwrap();
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
