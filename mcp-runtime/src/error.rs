//! Errors of the server side: what handlers return ([`ServerError`]) and what attaching or
//! serving a service can fail with ([`Error`]).

use serde_json::Value;

use crate::protocol::{ErrorCode, ErrorObject};

/// An error a handler returns. It becomes a JSON-RPC error object on both eras:
/// [`ServerError::InvalidParams`] → `-32602` with its message, [`ServerError::Internal`] →
/// `-32603` with its message, [`ServerError::Rpc`] → the given code. A panic in a handler
/// becomes `-32603` with a generic message instead (the detail goes to `tracing`).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ServerError {
    /// The request's parameters are invalid (an unknown cursor, a missing argument).
    #[error("{0}")]
    InvalidParams(String),
    /// The handler failed; the message is sent to the client.
    #[error("{0}")]
    Internal(String),
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
    /// A `-32603` error whose message is sent to the client.
    pub fn new(message: impl Into<String>) -> Self {
        Self::Internal(message.into())
    }

    /// A `-32602` error.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::InvalidParams(message.into())
    }

    /// The JSON-RPC code this error is answered with.
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::InvalidParams(_) => ErrorCode::INVALID_PARAMS,
            Self::Internal(_) => ErrorCode::INTERNAL_ERROR,
            Self::Rpc { code, .. } => *code,
            Self::InsufficientScope(_) => ErrorCode::TRANSPORT,
        }
    }

    /// The JSON-RPC error object.
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
}

/// An advanced-service handler rejects the request's parameters: answered `-32602` with
/// this message on both eras.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidParamsError(pub String);

impl From<InvalidParamsError> for ServerError {
    fn from(e: InvalidParamsError) -> Self {
        Self::InvalidParams(e.0)
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
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
}
