//! Wire types of both MCP eras: the JSON-RPC 2.0 envelope, MCP messages, error codes and
//! protocol versions.
//!
//! This layer is plain serde: it performs no I/O and knows nothing of HTTP servers. The
//! field names here are MCP's wire names; everywhere else the crate uses Rust names.

/// Generates `with_*` setters of optional members (for the modules below).
macro_rules! setters {
    ($ty:ty { $($(#[$doc:meta])* $name:ident => $field:ident: $arg:ty),* $(,)? }) => {
        impl $ty {
            $(
                $(#[$doc])*
                #[must_use]
                pub fn $name(mut self, value: impl Into<$arg>) -> Self {
                    self.$field = Some(value.into());
                    self
                }
            )*
        }
    };
}

mod builders;
mod call_result;
mod content;
mod elicitation;
mod envelope;
mod error_code;
mod features;
pub mod headers;
mod jsonrpc;
mod logging;
mod prompts;
pub(crate) use jsonrpc::is_progress_token;
mod roots;
mod sampling;
mod tasks;
mod types;
pub(crate) mod wire;

pub use builders::IntoSchemaObject;
pub use call_result::StructuredContentError;
pub use content::{Annotations, Content, ResourceContents, Role};
pub use elicitation::{
    ELICITATION_CREATE, ElicitAction, ElicitRequest, ElicitRequestParams, ElicitResult,
    FormElicitationParams, UrlElicitationParams,
};
pub use envelope::{EnvelopeError, RESERVED_META_KEYS, RequestEnvelope};
pub use error_code::ErrorCode;
pub(crate) use features::Cacheable;
pub use features::{
    CompleteArgument, CompleteContext, CompleteParams, CompleteResult, Completion,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, MAX_COMPLETION_VALUES,
    PaginatedParams, ReadResourceParams, ReadResourceResult, Reference, Resource, ResourceTemplate,
    SubscribeParams,
};
#[cfg(test)]
pub(crate) use jsonrpc::SuccessOut;
pub use jsonrpc::{
    ErrorObject, JsonRpcError, JsonRpcResponse, Message, MessageError, Notification, Request,
    RequestId, ResponseId,
};
pub use logging::LogLevel;
pub use prompts::{
    GetPromptParams, GetPromptResponse, GetPromptResult, Prompt, PromptArgument, PromptMessage,
};
pub use roots::{ListRootsResult, ROOTS_LIST, ROOTS_LIST_CHANGED, Root};
pub use sampling::{SAMPLING_CREATE_MESSAGE, SamplingMessage, SamplingRequest, SamplingResult};
pub use tasks::{
    TASKS_CANCEL, TASKS_EXTENSION, TASKS_GET, TASKS_NOTIFICATION, TASKS_UPDATE, Task, TaskIdParams,
    TaskStatus, UpdateTaskParams, declares_tasks,
};
pub use types::*;

/// The modern protocol revision (sessionless, `server/discover`).
pub const MODERN_VERSION: &str = "2026-07-28";

/// Modern protocol versions this crate serves, newest first.
pub const MODERN_VERSIONS: &[&str] = &[MODERN_VERSION];

/// Legacy (initialize-based) protocol versions this crate serves, newest first.
pub const LEGACY_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// The version a legacy HTTP request without `MCP-Protocol-Version` is assumed to speak.
pub const DEFAULT_LEGACY_HTTP_VERSION: &str = "2025-03-26";

/// `_meta` key carrying the protocol version of a modern request (its presence is the
/// modern claim).
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key carrying the client capabilities of a modern request.
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key carrying the client identity of a modern request.
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key carrying the requested log level of a modern request.
pub const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// `_meta` key carrying the server identity on modern results.
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// Which generation of the protocol a request or connection speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Era {
    /// MCP 2026-07-28: sessionless, `server/discover`, per-request `_meta` envelope.
    Modern,
    /// MCP 2024-11-05 … 2025-11-25: `initialize` handshake, optional HTTP sessions.
    Legacy,
}

/// Which protocol eras a server accepts, or a client speaks. One type for both sides.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ProtocolMode {
    /// Both eras. A server decides per request (modern requests and legacy
    /// initialize-based requests); a client probes with `server/discover` and falls back to
    /// the legacy `initialize` handshake exactly when the probe's answer shows a server of
    /// the older era (see the client's `connect`).
    #[default]
    Auto,
    /// MCP 2026-07-28 only (a client never falls back).
    Modern,
    /// The `initialize` handshake only.
    Legacy,
}

/// `true` when `version` names a modern protocol revision (a plain string compare, as ISO
/// dates sort correctly).
pub fn is_modern_version(version: &str) -> bool {
    version >= MODERN_VERSION
}

/// `true` when this crate serves the modern revision `version`.
pub fn serves_modern_version(version: &str) -> bool {
    MODERN_VERSIONS.contains(&version)
}

/// `true` when this crate serves the legacy revision `version`.
pub fn serves_legacy_version(version: &str) -> bool {
    LEGACY_VERSIONS.contains(&version)
}

/// The legacy version a server answers to an `initialize` asking for `requested`: the same
/// version when it is served, else the newest legacy version.
pub fn negotiate_legacy_version(requested: &str) -> &'static str {
    LEGACY_VERSIONS
        .iter()
        .find(|v| **v == requested)
        .copied()
        .unwrap_or(LEGACY_VERSIONS[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn era_by_string_compare() {
        assert!(is_modern_version("2026-07-28"));
        assert!(is_modern_version("2027-01-01"));
        assert!(!is_modern_version("2025-11-25"));
        assert!(serves_modern_version("2026-07-28"));
        assert!(!serves_modern_version("2027-01-01"));
    }

    #[test]
    fn legacy_negotiation_echoes_or_falls_back_to_newest() {
        assert_eq!(negotiate_legacy_version("2024-11-05"), "2024-11-05");
        assert_eq!(negotiate_legacy_version("2025-06-18"), "2025-06-18");
        assert_eq!(negotiate_legacy_version("1999-01-01"), "2025-11-25");
        assert_eq!(negotiate_legacy_version("2026-07-28"), "2025-11-25");
    }
}
