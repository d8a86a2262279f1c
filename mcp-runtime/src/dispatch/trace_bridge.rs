//! A `tracing` bridge: events a tool emits while it serves a call, under targets you name,
//! reach that call's client as log messages (`notifications/message`), filtered by the
//! client's threshold like [`Context::log`](super::Context::log).
//!
//! Only the named targets are forwarded: a library's own events (a database driver's debug
//! lines, an HTTP client's headers) never reach a client by accident.

use std::sync::atomic::Ordering;

use serde_json::{Map, Value, json};
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::layer::{Context as LayerContext, Layer};

use super::channel::LogLevel;

/// A [`tracing_subscriber::Layer`] that sends the events of the named targets, emitted on
/// the task serving a call, to that call's client as log messages: `ERROR` → `error`, `WARN`
/// → `warning`, `INFO` → `info`, `DEBUG` and `TRACE` → `debug`; the logger is the event's
/// target, the data its message (or an object of its message and fields).
///
/// ```
/// use tracing_subscriber::layer::SubscriberExt as _;
///
/// let subscriber = tracing_subscriber::registry().with(mcp::ClientLogLayer::new(["my_tools"]));
/// # let _ = subscriber;
/// // In a tool: tracing::info!(target: "my_tools", rows = 3, "loaded the table");
/// ```
///
/// Work the tool spawns runs on other tasks: its events are not forwarded (use
/// [`Context::log`](super::Context::log) there).
#[derive(Clone, Debug)]
pub struct ClientLogLayer {
    targets: Vec<String>,
}

impl ClientLogLayer {
    /// Forwards events whose target is one of `targets` or a module below one
    /// (`my_tools` covers `my_tools::db`).
    pub fn new<I, S>(targets: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        super::serve::PRIME_LOG_LEVELS.store(true, Ordering::Relaxed);
        Self {
            targets: targets.into_iter().map(Into::into).collect(),
        }
    }

    fn forwards(&self, target: &str) -> bool {
        self.targets.iter().any(|t| {
            target == t
                || target
                    .strip_prefix(t.as_str())
                    .is_some_and(|rest| rest.starts_with("::"))
        })
    }
}

fn level_of(level: &Level) -> LogLevel {
    match *level {
        Level::ERROR => LogLevel::Error,
        Level::WARN => LogLevel::Warning,
        Level::INFO => LogLevel::Info,
        _ => LogLevel::Debug,
    }
}

/// The message and fields of an event.
#[derive(Default)]
struct Fields {
    message: Option<String>,
    fields: Map<String, Value>,
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.put(field, json!(value));
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        self.put(field, json!(value));
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.put(field, json!(value));
    }
    fn record_f64(&mut self, field: &Field, value: f64) {
        self.put(field, json!(value));
    }
    fn record_bool(&mut self, field: &Field, value: bool) {
        self.put(field, json!(value));
    }
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.put(field, json!(format!("{value:?}")));
    }
}

impl Fields {
    fn put(&mut self, field: &Field, value: Value) {
        if field.name() == "message" {
            self.message = Some(match value {
                Value::String(s) => s,
                other => other.to_string(),
            });
        } else {
            self.fields.insert(field.name().to_owned(), value);
        }
    }

    fn into_data(self) -> Value {
        match (self.message, self.fields.is_empty()) {
            (Some(m), true) => Value::String(m),
            (message, _) => {
                let mut data = self.fields;
                if let Some(m) = message {
                    data.insert("message".into(), Value::String(m));
                }
                Value::Object(data)
            }
        }
    }
}

impl<S: Subscriber> Layer<S> for ClientLogLayer {
    fn on_event(&self, event: &Event<'_>, _ctx: LayerContext<'_, S>) {
        let meta = event.metadata();
        if !self.forwards(meta.target()) {
            return;
        }
        let Some(call) = super::serve::current_call() else {
            return;
        };
        let level = level_of(meta.level());
        let mut fields = Fields::default();
        event.record(&mut fields);
        let params = json!({"level": level, "logger": meta.target(), "data": fields.into_data()});
        match call.wants_now(level) {
            Some(false) => {}
            Some(true) => {
                call.try_notify("notifications/message", params);
            }
            // The session's threshold is not read yet: read it, then send.
            None => {
                tokio::spawn(async move {
                    if call.wants(level).await {
                        call.notify("notifications/message", params).await;
                    }
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_match_themselves_and_their_modules_only() {
        let layer = ClientLogLayer::new(["tools"]);
        assert!(layer.forwards("tools"));
        assert!(layer.forwards("tools::db"));
        assert!(!layer.forwards("toolset"));
        assert!(!layer.forwards("hyper"));
        assert!(!layer.forwards("mcp::transport"));
    }
}
