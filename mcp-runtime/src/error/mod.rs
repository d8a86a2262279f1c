//! Errors of the server side: what tools return ([`ToolError`], with [`ToolResultExt`] for
//! `?`), what handlers return ([`ServerError`]) and what attaching or serving a service can
//! fail with ([`Error`]).
//!
//! The rule all of them follow: what a client reads is written for the client. A source
//! error (an `io::Error` naming a path, a database error quoting a query) is kept as
//! [`std::error::Error::source`] and goes to `tracing`, never into a response. No error
//! repeats its source in its own message, so a report that walks the chain prints each
//! cause once.

mod tool;

use std::sync::Arc;

use serde_json::Value;

pub use tool::{ToolError, ToolResultExt};

use crate::protocol::{ErrorCode, ErrorObject};

/// A boxed error that can cross threads: what [`ServerError::internal`],
/// [`ToolError::with_source`] and [`ToolResultExt`] accept (any `std::error::Error + Send +
/// Sync`, and also a `String` or `&str`).
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// A shared source error.
type SharedError = Arc<dyn std::error::Error + Send + Sync + 'static>;

/// The message of [`ServerError::internal`].
const INTERNAL_ERROR: &str = "Internal error";

/// An error a handler returns. It becomes a JSON-RPC error object on both eras:
///
/// | constructor / variant | code | message the client reads |
/// | --- | --- | --- |
/// | [`ServerError::invalid_params`] | `-32602` | the given message |
/// | [`ServerError::internal`] | `-32603` | `Internal error` (the source goes to `tracing`) |
/// | [`ServerError::client_message`] | `-32603` | the given message, verbatim |
/// | [`ServerError::Rpc`] | the given code | the given message and data |
/// | [`ServerError::InsufficientScope`] | HTTP 403 `insufficient_scope` | |
///
/// A panic in a handler becomes `-32603` `Internal error` too (the panic message goes to
/// `tracing`).
///
/// Wrap a failure you did not write for the client with [`internal`](Self::internal):
///
/// ```
/// fn load(path: &str) -> Result<String, mcp::ServerError> {
///     std::fs::read_to_string(path).map_err(mcp::ServerError::internal)
/// }
/// let e = load("/nonexistent/secret.txt").unwrap_err();
/// assert_eq!(e.to_string(), "Internal error");
/// assert!(std::error::Error::source(&e).is_some());
/// ```
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServerError {
    /// The request's parameters are invalid (an unknown cursor, a missing argument):
    /// `-32602` with this message.
    #[error("{0}")]
    InvalidParams(String),
    /// The handler failed: `-32603` with `message`; `source`, when present, is logged and
    /// never sent. Built by [`ServerError::internal`] (generic message) or
    /// [`ServerError::client_message`] (your message, no source).
    #[error("{message}")]
    Internal {
        /// The message the client reads.
        message: String,
        /// The underlying error (logged, never sent).
        #[source]
        source: Option<Arc<dyn std::error::Error + Send + Sync + 'static>>,
    },
    /// Any JSON-RPC error, with code and data.
    #[error("{message}")]
    Rpc {
        /// The JSON-RPC code.
        code: ErrorCode,
        /// The message.
        message: String,
        /// Optional data.
        data: Option<Value>,
    },
    /// The caller's token lacks scopes this operation needs (a runtime step-up). On an
    /// OAuth-protected service the transport answers HTTP 403 with an `insufficient_scope`
    /// challenge naming [`InsufficientScopeError::scopes`].
    #[error("{0}")]
    InsufficientScope(InsufficientScopeError),
}

impl ServerError {
    /// A `-32603` error whose client-visible message is the generic `Internal error`;
    /// `source` is kept as [`source`](std::error::Error::source) and logged with `tracing`
    /// when the error is answered. This is the safe default for any failure you did not
    /// write for the client (I/O, database, a downstream service).
    #[must_use]
    pub fn internal(source: impl Into<BoxError>) -> Self {
        Self::Internal {
            message: INTERNAL_ERROR.into(),
            source: Some(Arc::from(source.into())),
        }
    }

    /// A `-32603` error whose `message` **is sent to the client verbatim**. Use it only for
    /// text written for the client (never `error.to_string()` of an underlying error: use
    /// [`internal`](Self::internal) for those).
    #[must_use]
    pub fn client_message(message: impl Into<String>) -> Self {
        Self::Internal {
            message: message.into(),
            source: None,
        }
    }

    /// A `-32602` error (invalid params) whose `message` is sent to the client.
    #[must_use]
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::InvalidParams(message.into())
    }

    /// `-32601 Method not found`: what the default resource, prompt and completion hooks
    /// answer (modern clients get it with HTTP 404).
    #[must_use]
    pub fn method_not_found() -> Self {
        Self::Rpc {
            code: ErrorCode::METHOD_NOT_FOUND,
            message: "Method not found".into(),
            data: None,
        }
    }

    /// `-32602 Resource not found: <uri>` with `data: {"uri": <uri>}`, the answer to a
    /// `resources/read` of a URI the service does not have (as the TypeScript server sends
    /// it in both eras).
    #[must_use]
    pub fn resource_not_found(uri: &str) -> Self {
        Self::Rpc {
            code: ErrorCode::INVALID_PARAMS,
            message: format!("Resource not found: {uri}"),
            data: Some(serde_json::json!({ "uri": uri })),
        }
    }

    /// `-32602 Prompt <name> not found`, the answer to a `prompts/get` (or a completion)
    /// naming a prompt the service does not have.
    #[must_use]
    pub fn prompt_not_found(name: &str) -> Self {
        Self::invalid_params(format!("Prompt {name} not found"))
    }

    /// `-32602 Resource template <uri> not found`, the answer to a completion naming a
    /// template the service does not have.
    #[must_use]
    pub fn template_not_found(uri_template: &str) -> Self {
        Self::invalid_params(format!("Resource template {uri_template} not found"))
    }

    /// The JSON-RPC code this error is answered with.
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::InvalidParams(_) => ErrorCode::INVALID_PARAMS,
            Self::Internal { .. } => ErrorCode::INTERNAL_ERROR,
            Self::Rpc { code, .. } => *code,
            Self::InsufficientScope(_) => ErrorCode::TRANSPORT,
        }
    }

    /// The JSON-RPC error object (what the client reads: never the source).
    pub fn to_error_object(&self) -> ErrorObject {
        let code = match self.code() {
            // -32002 is accepted from handlers but sent as -32602, as peers expect.
            ErrorCode::RESOURCE_NOT_FOUND => ErrorCode::INVALID_PARAMS,
            c => c,
        };
        let data = match self {
            Self::Rpc { data, .. } => data.clone(),
            _ => None,
        };
        ErrorObject {
            code,
            message: self.to_string(),
            data,
        }
    }

    /// Logs the source of an internal error (the part that is never sent) with `tracing`.
    pub(crate) fn log_source(&self) {
        if let Self::Internal {
            message,
            source: Some(source),
        } = self
        {
            tracing::error!(
                sent = %message,
                error = &**source as &(dyn std::error::Error + 'static),
                "a handler failed"
            );
        }
    }
}

/// A tool or advanced handler decides at runtime that the caller needs more scopes. The
/// server answers HTTP 403 with `WWW-Authenticate: Bearer error="insufficient_scope"` and
/// `scope` set to exactly [`scopes`](Self::scopes), so that an OAuth client can obtain a
/// token with those scopes and retry (step-up authorization).
///
/// ```
/// fn purge(auth: &mcp::AuthContext) -> Result<String, mcp::InsufficientScopeError> {
///     if !auth.scopes.contains("files:admin") {
///         return Err(mcp::InsufficientScopeError::new("purging needs files:admin", ["files:admin"]));
///     }
///     Ok("purged".into())
/// }
/// # assert!(purge(&mcp::AuthContext::default()).is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct InsufficientScopeError {
    message: String,
    scopes: Vec<String>,
}

impl InsufficientScopeError {
    /// The error with a human-readable `message` (sent as `error_description`) and the
    /// scopes the operation needs.
    pub fn new<S: Into<String>>(
        message: impl Into<String>,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        Self {
            message: message.into(),
            scopes: scopes.into_iter().map(Into::into).collect(),
        }
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The scopes the operation needs.
    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }
}

impl From<InsufficientScopeError> for ServerError {
    fn from(e: InsufficientScopeError) -> Self {
        Self::InsufficientScope(e)
    }
}

/// Why a service could not be attached or served.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The service configuration is invalid (checked when the service is attached, before
    /// anything is served).
    #[error("invalid service configuration: {0}")]
    Config(String),
    /// A tool's configuration is invalid.
    #[error("invalid configuration of tool `{tool}`: {message}")]
    Tool {
        /// The tool.
        tool: String,
        /// What is wrong.
        message: String,
    },
    /// Binding or serving failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// The error for a call to a tool the service does not have.
pub fn unknown_tool(name: &str) -> ServerError {
    ServerError::invalid_params(format!("Unknown tool: {name}"))
}
