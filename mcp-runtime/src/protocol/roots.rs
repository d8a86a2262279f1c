//! Roots (`roots/list`): the directories or other URIs a client lets a server work in.
//! Deprecated as of 2026-07-28 but still on the wire: a legacy server sends `roots/list` as
//! a server→client request, a modern one as an input request of an `input_required` result.

use serde::{Deserialize, Serialize};

use super::JsonObject;

/// The method name of a roots request.
pub const ROOTS_LIST: &str = "roots/list";

/// The notification a legacy client sends when its roots change.
pub const ROOTS_LIST_CHANGED: &str = "notifications/roots/list_changed";

/// One root: a URI (usually `file://`) and an optional display name.
///
/// ```
/// let root = mcp::protocol::Root::new("file:///home/me/project").with_name("project");
/// assert_eq!(
///     serde_json::to_value(&root).unwrap(),
///     serde_json::json!({"uri": "file:///home/me/project", "name": "project"})
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Root {
    /// The root's URI.
    pub uri: String,
    /// A human-readable name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl Root {
    /// A root at `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            name: None,
            meta: None,
        }
    }

    /// Sets the display name.
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }
}

/// The answer to `roots/list`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ListRootsResult {
    /// The client's roots.
    pub roots: Vec<Root>,
}

impl ListRootsResult {
    /// A result listing `roots`.
    pub fn new(roots: Vec<Root>) -> Self {
        Self { roots }
    }
}
