//! Change notifications: the [`Notifier`] a server hands out, `subscriptions/listen`
//! listeners (modern era), `notifications/*` on legacy sessions' GET streams, and the
//! [`EventBus`] that carries all of it (and legacy sessions' server→client traffic) between
//! the replicas of a server.
//!
//! A change is delivered to this replica's clients at once, then published on the bus; the
//! other replicas deliver it to theirs. A replica ignores its own messages coming back.

mod bus;
mod legacy;
pub(crate) mod listen;
#[cfg(feature = "redis")]
mod redis;

use std::collections::HashSet;
use std::sync::{Arc, PoisonError, RwLock, Weak};

#[cfg(feature = "redis")]
pub use self::redis::RedisBus;
pub(crate) use bus::BusEvent;
pub use bus::{BusError, BusMessage, Change, Deliver, EventBus, InProcessBus};

use crate::protocol::JsonObject;
use crate::session::DynSessionStore;
use crate::session::streams::Streams;

/// The default cap on open `subscriptions/listen` streams of one server.
pub const DEFAULT_MAX_LISTENERS: usize = 10_000;
/// The default number of notifications queued for one listener that does not read; one
/// more drops the listener (its stream ends with an error).
pub const DEFAULT_LISTENER_QUEUE: usize = 256;
/// The default cap on the URIs of one `subscriptions/listen` filter
/// (`resourceSubscriptions`), as many as a legacy session may subscribe to
/// ([`MAX_SUBSCRIPTIONS`](crate::session::MAX_SUBSCRIPTIONS)).
pub const DEFAULT_MAX_LISTEN_URIS: usize = crate::session::MAX_SUBSCRIPTIONS;
/// The default cap on the length in bytes of one URI of a `subscriptions/listen` filter, as
/// for a legacy subscription
/// ([`MAX_SUBSCRIPTION_URI_BYTES`](crate::session::MAX_SUBSCRIPTION_URI_BYTES)).
pub const DEFAULT_MAX_LISTEN_URI_BYTES: usize = crate::session::MAX_SUBSCRIPTION_URI_BYTES;
/// The default cap on the `subscriptions/listen` streams one caller may have open.
pub const DEFAULT_MAX_LISTENERS_PER_CALLER: usize = 100;
/// The default cap on the bytes one caller's open listeners may hold (16 MiB: one filter
/// of [`DEFAULT_MAX_LISTEN_URIS`] URIs of [`DEFAULT_MAX_LISTEN_URI_BYTES`] fits); see
/// [`ServerBuilder::max_listen_bytes_per_caller`](crate::ServerBuilder::max_listen_bytes_per_caller)
/// for what a listener holds.
pub const DEFAULT_MAX_LISTEN_BYTES_PER_CALLER: usize = 16 << 20;
/// The default cap on the bytes all open listeners of a server may hold (64 MiB).
pub const DEFAULT_MAX_LISTEN_BYTES: usize = 64 << 20;

/// The notification settings a builder collects.
#[derive(Clone)]
pub(crate) struct Settings {
    pub(crate) bus: Option<Arc<dyn EventBus>>,
    pub(crate) list_changed: bool,
    pub(crate) resource_subscriptions: bool,
    pub(crate) max_listeners: usize,
    pub(crate) listener_queue: usize,
    pub(crate) listen_limits: listen::Limits,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            bus: None,
            list_changed: false,
            resource_subscriptions: false,
            max_listeners: DEFAULT_MAX_LISTENERS,
            listener_queue: DEFAULT_LISTENER_QUEUE,
            listen_limits: listen::Limits::default(),
        }
    }
}

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settings")
            .field("list_changed", &self.list_changed)
            .field("max_listeners", &self.max_listeners)
            .field("listener_queue", &self.listener_queue)
            .field("listen_limits", &self.listen_limits)
            .finish_non_exhaustive()
    }
}

/// Which notifications the server advertises (and so can honour).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Honourable {
    pub(crate) tools: bool,
    pub(crate) prompts: bool,
    pub(crate) resources: bool,
    pub(crate) subscribe: bool,
    /// The service runs tasks (`taskIds`, `notifications/tasks`).
    pub(crate) tasks: bool,
}

/// The notification hub of one server (one replica).
pub(crate) struct Hub {
    origin: String,
    publisher: Arc<Publisher>,
    pub(crate) streams: Arc<Streams>,
    pub(crate) sessions: Option<DynSessionStore>,
    pub(crate) honourable: Honourable,
    pub(crate) listeners: listen::Listeners,
    server_info_meta: JsonObject,
    disabled: RwLock<HashSet<String>>,
    /// Reads a task's `DetailedTask` from the server's task store.
    task_reader: std::sync::OnceLock<TaskReader>,
}

/// How a hub reads a task another replica changed.
pub(crate) type TaskReader =
    Arc<dyn Fn(String) -> crate::base::BoxFuture<'static, Option<JsonObject>> + Send + Sync>;

impl Hub {
    /// A hub on `settings`' bus (a fresh in-process one by default), subscribed to it.
    pub(crate) fn new(
        settings: &Settings,
        streams: Arc<Streams>,
        sessions: Option<DynSessionStore>,
        honourable: Honourable,
        server_info_meta: JsonObject,
    ) -> Arc<Self> {
        let bus = settings
            .bus
            .clone()
            .unwrap_or_else(|| Arc::new(InProcessBus::new()));
        let publisher = Arc::new(Publisher::new(bus.clone()));
        let hub = Arc::new(Self {
            origin: uuid::Uuid::new_v4().to_string(),
            publisher: publisher.clone(),
            streams: streams.clone(),
            sessions,
            honourable,
            listeners: listen::Listeners::new(
                settings.max_listeners,
                settings.listener_queue,
                settings.listen_limits,
            ),
            server_info_meta,
            disabled: RwLock::default(),
            task_reader: std::sync::OnceLock::new(),
        });
        let weak: Weak<Self> = Arc::downgrade(&hub);
        bus.subscribe(Arc::new(move |message: BusMessage| {
            if let Some(hub) = weak.upgrade() {
                hub.receive(message);
            }
        }));
        let relay = Relay {
            origin: hub.origin.clone(),
            publisher,
        };
        streams.set_relay(Arc::new(relay));
        hub
    }

    /// A message from the bus.
    fn receive(self: &Arc<Self>, message: BusMessage) {
        if message.origin == self.origin {
            return;
        }
        match message.event {
            BusEvent::TaskChanged { task_id, owner } => self.remote_task_changed(task_id, owner),
            event => self.apply(event),
        }
    }

    /// Applies an event to this replica's clients.
    fn apply(&self, event: BusEvent) {
        match event {
            BusEvent::Change { change } => {
                self.listeners.dispatch(&change);
                legacy::fan_out(self, change);
            }
            BusEvent::Resync => {
                tracing::info!("the event bus may have lost messages: telling every client");
                self.listeners.resync();
                legacy::resync(self);
            }
            BusEvent::SessionMessage { session, message } => {
                self.streams.deliver_relayed(&session, message.into());
            }
            BusEvent::Answer {
                session,
                id,
                answer,
            } => {
                if self.streams.answer_local(&session, &id, answer) {
                    tracing::debug!(%id, "a client's answer arrived through another replica");
                }
            }
            BusEvent::ToolEnabled { name, enabled } => self.set_enabled(&name, enabled),
            // Handled by `receive` (it reads the task first); never applied locally.
            BusEvent::TaskChanged { .. } => {}
        }
    }

    /// Tells the listeners of task `id` (owned by `owner`) its new state: here with
    /// `detail()` (the `DetailedTask`, built only when a listener here wants it), on the
    /// other replicas through the bus (they read the task from the shared store).
    pub(crate) fn announce_task(
        &self,
        id: &str,
        owner: &str,
        detail: impl FnOnce() -> Option<JsonObject>,
    ) {
        if self.listeners.wants_task(id, owner)
            && let Some(task) = detail()
        {
            self.listeners.dispatch_task(id, owner, task);
        }
        self.publisher.publish(BusMessage {
            origin: self.origin.clone(),
            event: BusEvent::TaskChanged {
                task_id: id.to_owned(),
                owner: owner.to_owned(),
            },
        });
    }

    /// Sets how this replica reads a task another replica changed (the server's task
    /// store).
    pub(crate) fn set_task_reader(&self, reader: TaskReader) {
        let _ = self.task_reader.set(reader);
    }

    /// A task changed on another replica: listeners here that want it get its state.
    fn remote_task_changed(self: &Arc<Self>, id: String, owner: String) {
        if !self.listeners.wants_task(&id, &owner) {
            return;
        }
        let Some(read) = self.task_reader.get().cloned() else {
            return;
        };
        let hub = Arc::clone(self);
        tokio::spawn(async move {
            if let Some(task) = read(id.clone()).await {
                hub.listeners.dispatch_task(&id, &owner, task);
            }
        });
    }

    /// Applies `event` here, then publishes it to the other replicas.
    fn announce(&self, event: BusEvent) {
        self.apply(event.clone());
        self.publisher.publish(BusMessage {
            origin: self.origin.clone(),
            event,
        });
    }

    fn set_enabled(&self, name: &str, enabled: bool) {
        let mut disabled = self
            .disabled
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        if enabled {
            disabled.remove(name);
        } else {
            disabled.insert(name.to_owned());
        }
    }

    /// Whether tool `name` was disabled at run time.
    pub(crate) fn is_disabled(&self, name: &str) -> bool {
        self.disabled
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(name)
    }

    /// Whether any tool is disabled.
    pub(crate) fn any_disabled(&self) -> bool {
        !self
            .disabled
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .is_empty()
    }

    /// The server-info `_meta` of graceful listen results.
    pub(crate) fn server_info_meta(&self) -> &JsonObject {
        &self.server_info_meta
    }
}

/// How many messages may wait for the bus; more are dropped (and logged).
const PUBLISH_QUEUE: usize = 4096;

/// Publishes on the bus in order, from one background task per server (started on first
/// use), through a bounded queue: a slow or unreachable bus never grows memory without
/// bound. This replica's clients already have every event; what cannot be published is
/// logged as lost for the other replicas.
struct Publisher {
    bus: Arc<dyn EventBus>,
    queue: std::sync::OnceLock<tokio::sync::mpsc::Sender<BusMessage>>,
}

impl Publisher {
    fn new(bus: Arc<dyn EventBus>) -> Self {
        Self {
            bus,
            queue: std::sync::OnceLock::new(),
        }
    }

    fn publish(&self, message: BusMessage) {
        let queue = match self.queue.get() {
            Some(q) => q,
            None => {
                let Ok(runtime) = tokio::runtime::Handle::try_current() else {
                    tracing::warn!(
                        "no tokio runtime: a message was not published to other replicas"
                    );
                    return;
                };
                self.queue.get_or_init(|| {
                    let (tx, mut rx) = tokio::sync::mpsc::channel::<BusMessage>(PUBLISH_QUEUE);
                    let bus = self.bus.clone();
                    runtime.spawn(async move {
                        while let Some(message) = rx.recv().await {
                            if let Err(e) = bus.publish(message).await {
                                tracing::warn!(error = %e, "a message did not reach the other replicas");
                            }
                        }
                    });
                    tx
                })
            }
        };
        if queue.try_send(message).is_err() {
            tracing::warn!("the event bus is behind: a message was dropped for the other replicas");
        }
    }
}

/// What [`Streams`] hands the bus: legacy GET-stream messages and client answers that no
/// stream or call of this replica takes.
struct Relay {
    origin: String,
    publisher: Arc<Publisher>,
}

impl crate::session::streams::Relay for Relay {
    fn session_message(&self, session: &str, message: &str) {
        self.publisher.publish(BusMessage {
            origin: self.origin.clone(),
            event: BusEvent::SessionMessage {
                session: session.to_owned(),
                message: message.to_owned(),
            },
        });
    }

    fn answer(&self, session: &str, id: &str, answer: crate::session::streams::ClientAnswer) {
        self.publisher.publish(BusMessage {
            origin: self.origin.clone(),
            event: BusEvent::Answer {
                session: session.to_owned(),
                id: id.to_owned(),
                answer,
            },
        });
    }
}

/// Announces changes to a server's clients, on every replica: modern listeners
/// (`subscriptions/listen`) whose filter asks for the change, and legacy sessions' GET
/// streams. Get one from [`Server::notifier`](crate::Server::notifier) (any time, from any
/// task) or, inside a handler, from [`Context::notifier`](crate::Context::notifier). Cheap to
/// clone.
///
/// List changes reach clients only when the server advertises them
/// ([`ServerBuilder::list_changed`](crate::ServerBuilder::list_changed)); resource updates
/// only when it advertises subscriptions
/// ([`Features::with_resource_subscriptions`](crate::Features::with_resource_subscriptions)),
/// and only to clients subscribed to that URI.
///
/// ```
/// struct Catalog;
///
/// #[mcp::service(name = "catalog", version = "1.0.0")]
/// impl Catalog {
///     /// Lists items.
///     pub fn items(&self) -> Vec<String> { vec![] }
///     /// Deletes everything.
///     pub fn purge(&self) -> String { "purged".into() }
/// }
///
/// let server = mcp::Server::builder(Catalog).list_changed(true).build()?;
/// let notifier = server.notifier();
/// notifier.disable_tool("purge"); // hidden from tools/list, announced to listeners
/// assert!(!notifier.is_tool_enabled("purge"));
/// notifier.enable_tool("purge");
/// # Ok::<(), mcp::Error>(())
/// ```
#[derive(Clone)]
pub struct Notifier {
    hub: Arc<Hub>,
}

impl std::fmt::Debug for Notifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Notifier")
            .field("origin", &self.hub.origin)
            .finish_non_exhaustive()
    }
}

impl Notifier {
    pub(crate) fn new(hub: Arc<Hub>) -> Self {
        Self { hub }
    }

    /// Announces `change`.
    pub fn announce(&self, change: Change) {
        self.hub.announce(BusEvent::Change { change });
    }

    /// The tool list changed: `notifications/tools/list_changed`.
    pub fn tools_changed(&self) {
        self.announce(Change::ToolsListChanged);
    }

    /// The prompt list changed: `notifications/prompts/list_changed`.
    pub fn prompts_changed(&self) {
        self.announce(Change::PromptsListChanged);
    }

    /// The resource list changed: `notifications/resources/list_changed`.
    pub fn resources_changed(&self) {
        self.announce(Change::ResourcesListChanged);
    }

    /// Resource `uri` changed: `notifications/resources/updated` to the clients subscribed
    /// to exactly this URI.
    pub fn resource_updated(&self, uri: impl Into<String>) {
        self.announce(Change::ResourceUpdated { uri: uri.into() });
    }

    /// Disables tool `name` on every replica: it disappears from `tools/list` and a call to
    /// it is refused like a call to an unknown tool. Announces the tool-list change when
    /// the tool was enabled.
    pub fn disable_tool(&self, name: &str) {
        self.toggle(name, false);
    }

    /// Enables tool `name` again (every tool is enabled at first). Announces the tool-list
    /// change when the tool was disabled.
    pub fn enable_tool(&self, name: &str) {
        self.toggle(name, true);
    }

    /// Whether tool `name` is enabled (not disabled with [`disable_tool`](Self::disable_tool)).
    pub fn is_tool_enabled(&self, name: &str) -> bool {
        !self.hub.is_disabled(name)
    }

    fn toggle(&self, name: &str, enabled: bool) {
        if self.is_tool_enabled(name) == enabled {
            return;
        }
        self.hub.announce(BusEvent::ToolEnabled {
            name: name.to_owned(),
            enabled,
        });
        self.tools_changed();
    }

    /// How many `subscriptions/listen` streams are open on this replica.
    pub fn listener_count(&self) -> usize {
        self.hub.listeners.len()
    }
}
