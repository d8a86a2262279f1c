//! Change notifications on legacy sessions: each replica sends them to the sessions whose
//! stream state it holds (a GET stream open here, or events kept here for `Last-Event-ID`),
//! unsolicited and without `params`, as the TypeScript server does. `resources/updated`
//! goes only to sessions subscribed to the URI (read from the session store).

use serde_json::json;

use super::{Change, Hub};
use crate::session::Session;

/// Whether the server advertises `change`'s notification to legacy clients.
fn advertised(hub: &Hub, change: &Change) -> bool {
    let can = hub.honourable;
    match change {
        Change::ToolsListChanged => can.tools,
        Change::PromptsListChanged => can.prompts,
        Change::ResourcesListChanged => can.resources,
        Change::ResourceUpdated { .. } => can.subscribe,
    }
}

/// Sends `change` to this replica's legacy sessions.
pub(super) fn fan_out(hub: &Hub, change: Change) {
    if !advertised(hub, &change) {
        return;
    }
    let sessions = hub.streams.local_sessions();
    if sessions.is_empty() {
        return;
    }
    match change {
        Change::ResourceUpdated { uri } => updated(hub, sessions, vec![uri]),
        change => {
            let message = json!({"jsonrpc": "2.0", "method": change.method()});
            for session in sessions {
                hub.streams.publish_local(&session, &message);
            }
        }
    }
}

/// After lost bus messages: every list change, and every subscribed resource updated.
pub(super) fn resync(hub: &Hub) {
    for change in [
        Change::ToolsListChanged,
        Change::PromptsListChanged,
        Change::ResourcesListChanged,
    ] {
        fan_out(hub, change);
    }
    if hub.honourable.subscribe {
        updated(hub, hub.streams.local_sessions(), Vec::new());
    }
}

/// `notifications/resources/updated` for `uris` (every subscribed URI when empty) to the
/// `sessions` subscribed to them; the subscriptions are read in the background.
fn updated(hub: &Hub, sessions: Vec<std::sync::Arc<str>>, uris: Vec<String>) {
    let Some(store) = hub.sessions.clone() else {
        return;
    };
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        tracing::warn!("no tokio runtime: resource updates were not sent to legacy sessions");
        return;
    };
    let streams = hub.streams.clone();
    runtime.spawn(async move {
        for id in sessions {
            let session = Session::new(id.clone(), store.clone(), streams.clone());
            let subscribed = match crate::session::subscriptions(&session).await {
                Ok(s) => s,
                Err(e) => {
                    tracing::debug!(error = %e, "cannot read a session's subscriptions");
                    continue;
                }
            };
            for uri in subscribed
                .iter()
                .filter(|u| uris.is_empty() || uris.contains(u))
            {
                let message = json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                                     "params": {"uri": uri}});
                streams.publish_local(&id, &message);
            }
        }
    });
}
