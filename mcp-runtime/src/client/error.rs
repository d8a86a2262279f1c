//! The client's error hierarchy: [`ClientError`] and the four kinds it wraps —
//! [`TransportError`] (HTTP, timeouts, closed connections), [`ProtocolError`] (JSON-RPC
//! errors and bad responses), [`ToolCallError`] (calls the client refuses or cannot finish)
//! and [`StreamError`] (SSE).
//!
//! A tool that fails is not an error: its result comes back with
//! [`is_error()`](crate::protocol::CallToolResult::is_error) `true`.

use std::time::Duration;

use super::auth::AuthChallenge;
use crate::protocol::{ErrorCode, ErrorObject};

/// A boxed error source (the same type as `mcp::BoxError`).
pub use crate::error::BoxError;

/// Any failure of a [`Client`](super::Client) operation.
///
/// [`code`](Self::code) gives the JSON-RPC code of an error the server answered and
/// [`http_status`](Self::http_status) the HTTP status it came with.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The HTTP exchange failed.
    #[error(transparent)]
    Transport(#[from] TransportError),
    /// The server answered a JSON-RPC error, or something that is not valid MCP.
    #[error(transparent)]
    Protocol(#[from] ProtocolError),
    /// The client refused a tool call, or could not complete it.
    #[error(transparent)]
    ToolCall(#[from] ToolCallError),
    /// A `text/event-stream` response was broken.
    #[error(transparent)]
    Stream(#[from] StreamError),
    /// The server process of a stdio client could not start, or ended.
    #[error(transparent)]
    Process(#[from] super::ProcessError),
    /// The client configuration is invalid.
    #[error("invalid client configuration: {0}")]
    Config(String),
    /// An operation other than connecting was called before `connect`.
    #[error("the client is not connected: call `connect` (or `initialize_legacy`) first")]
    NotConnected,
    /// The `structuredContent` of a tool result could not be read as the requested type.
    #[error(transparent)]
    StructuredContent(#[from] crate::protocol::StructuredContentError),
    /// An OAuth flow failed (discovery, authorization, a token request); a rejected
    /// token request has an [`OAuthTokenError`](super::oauth::OAuthTokenError) in the
    /// source chain.
    #[cfg(feature = "oauth")]
    #[error("{0}")]
    OAuth(#[from] super::oauth::OAuthError),
    /// A handler (elicitation, sampling, roots) or the token provider failed.
    #[error("{message}")]
    Handler {
        /// What failed, as the handler described it.
        message: String,
        /// The underlying error, if the handler gave one ([`source`](std::error::Error::source);
        /// not repeated in the message).
        #[source]
        source: Option<BoxError>,
    },
}

impl ClientError {
    /// An error for an elicitation handler or token provider to return. The message is
    /// what a legacy server that pushed an elicitation gets back (`-32603`).
    pub fn handler(message: impl Into<String>) -> Self {
        Self::Handler {
            message: message.into(),
            source: None,
        }
    }

    /// [`handler`](Self::handler) with the error that caused it, kept as the
    /// [`source`](std::error::Error::source). When a legacy server pushed the elicitation,
    /// it is answered with `-32603` and the message; the source stays on the client:
    ///
    /// ```
    /// use mcp::client::ClientError;
    ///
    /// fn read_token(path: &str) -> Result<String, ClientError> {
    ///     std::fs::read_to_string(path)
    ///         .map_err(|e| ClientError::handler_with_source("cannot read the token file", e))
    /// }
    ///
    /// let err = read_token("/nonexistent/token").unwrap_err();
    /// assert_eq!(err.to_string(), "cannot read the token file");
    /// assert!(std::error::Error::source(&err).is_some());
    /// ```
    pub fn handler_with_source(message: impl Into<String>, source: impl Into<BoxError>) -> Self {
        Self::Handler {
            message: message.into(),
            source: Some(source.into()),
        }
    }

    /// The JSON-RPC code of the error the server answered, if any.
    pub fn code(&self) -> Option<ErrorCode> {
        match self {
            Self::Protocol(e) => e.code(),
            Self::Transport(_)
            | Self::Process(_)
            | Self::ToolCall(_)
            | Self::Stream(_)
            | Self::Config(_)
            | Self::NotConnected
            | Self::StructuredContent(_)
            | Self::Handler { .. } => None,
            #[cfg(feature = "oauth")]
            Self::OAuth(_) => None,
        }
    }

    /// The HTTP status the failure came with, if any.
    pub fn http_status(&self) -> Option<u16> {
        match self {
            Self::Transport(e) => e.http_status(),
            Self::Protocol(e) => e.http_status(),
            Self::ToolCall(_)
            | Self::Process(_)
            | Self::Stream(_)
            | Self::Config(_)
            | Self::NotConnected
            | Self::StructuredContent(_)
            | Self::Handler { .. } => None,
            #[cfg(feature = "oauth")]
            Self::OAuth(_) => None,
        }
    }

    /// The JSON-RPC error object the server answered, if this is one (the crate's one
    /// JSON-RPC error type, [`ErrorObject`], which servers answer with too); its HTTP status
    /// is [`http_status`](Self::http_status).
    pub fn rpc(&self) -> Option<&ErrorObject> {
        match self {
            Self::Protocol(ProtocolError::Rpc { error, .. }) => Some(error),
            _ => None,
        }
    }
}

/// The exchange failed on its way: HTTP, a timeout (any transport), or a closed connection.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TransportError {
    /// The request could not be sent, or the connection failed while reading.
    #[error("HTTP request to the MCP server failed")]
    Request {
        /// The underlying error.
        #[source]
        source: BoxError,
    },
    /// No answer within the exchange's timeout.
    #[error("the MCP server did not answer within {0:?}")]
    Timeout(Duration),
    /// `401 Unauthorized`.
    #[error("401 Unauthorized: the MCP server requires a valid bearer token")]
    Unauthorized {
        /// The parsed `WWW-Authenticate` challenge, if the server sent one.
        challenge: Option<Box<AuthChallenge>>,
    },
    /// `403 Forbidden` (with `error="insufficient_scope"` when a scope is missing).
    #[error("403 Forbidden{}", forbidden_suffix(.challenge.as_deref()))]
    Forbidden {
        /// The parsed `WWW-Authenticate` challenge, if the server sent one.
        challenge: Option<Box<AuthChallenge>>,
    },
    /// A non-success status whose body is not a JSON-RPC error.
    #[error("HTTP {status} from the MCP server: {body}")]
    Status {
        /// The HTTP status.
        status: u16,
        /// The start of the body, for diagnosis.
        body: String,
    },
    /// A success status with a content type that is neither JSON nor SSE.
    #[error("HTTP {status} with unexpected content type {content_type:?}")]
    UnexpectedContentType {
        /// The HTTP status.
        status: u16,
        /// The `Content-Type`, if any.
        content_type: Option<String>,
    },
    /// A success status whose JSON body cannot be read.
    #[error("HTTP {status} with an invalid JSON body: {reason}")]
    InvalidBody {
        /// The HTTP status.
        status: u16,
        /// What is wrong.
        reason: String,
    },
    /// The response body is larger than the configured limit.
    #[error("the response body exceeds the limit of {limit} bytes")]
    BodyTooLarge {
        /// The limit in bytes.
        limit: usize,
    },
    /// The connection is closed (an in-process pipe whose server, or whose client, is
    /// gone): nothing more can be sent on it.
    #[error("the connection to the MCP server is closed")]
    Closed,
}

fn forbidden_suffix(challenge: Option<&AuthChallenge>) -> &'static str {
    if challenge.is_some_and(AuthChallenge::is_insufficient_scope) {
        ": insufficient scope"
    } else {
        ""
    }
}

impl TransportError {
    /// The HTTP status the failure came with, if any.
    pub fn http_status(&self) -> Option<u16> {
        match self {
            Self::Unauthorized { .. } => Some(401),
            Self::Forbidden { .. } => Some(403),
            Self::Status { status, .. }
            | Self::UnexpectedContentType { status, .. }
            | Self::InvalidBody { status, .. } => Some(*status),
            Self::Request { .. } | Self::Timeout(_) | Self::BodyTooLarge { .. } | Self::Closed => {
                None
            }
        }
    }

    /// The `WWW-Authenticate` challenge of a 401 or 403.
    pub fn challenge(&self) -> Option<&AuthChallenge> {
        match self {
            Self::Unauthorized { challenge } | Self::Forbidden { challenge } => {
                challenge.as_deref()
            }
            _ => None,
        }
    }
}

/// The server answered a JSON-RPC error or something that is not valid MCP.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProtocolError {
    /// A JSON-RPC error object.
    #[error("{error}")]
    Rpc {
        /// The error object as the server sent it.
        error: ErrorObject,
        /// The HTTP status of the response that carried it.
        http_status: Option<u16>,
    },
    /// A result that does not have the shape the method requires.
    #[error("invalid `{method}` response: {reason}")]
    InvalidResponse {
        /// The request method.
        method: String,
        /// What is wrong.
        reason: String,
    },
    /// No protocol era could be agreed on (a pinned modern client meeting a legacy server,
    /// or a server listing only modern versions this client does not speak).
    #[error("protocol negotiation failed: {reason}")]
    Negotiation {
        /// Why.
        reason: String,
        /// The JSON-RPC code of the server's answer to the probe, if it was an error.
        code: Option<ErrorCode>,
        /// The HTTP status of the server's answer to the probe.
        http_status: Option<u16>,
    },
    /// The server answered `initialize` with a version this client does not speak.
    #[error("the server chose protocol version {0}, which this client does not support")]
    UnsupportedVersion(String),
}

impl ProtocolError {
    /// The JSON-RPC code, if the server answered an error.
    pub fn code(&self) -> Option<ErrorCode> {
        match self {
            Self::Rpc { error, .. } => Some(error.code),
            Self::Negotiation { code, .. } => *code,
            Self::InvalidResponse { .. } | Self::UnsupportedVersion(_) => None,
        }
    }

    /// The HTTP status, if known.
    pub fn http_status(&self) -> Option<u16> {
        match self {
            Self::Rpc { http_status, .. } => *http_status,
            Self::Negotiation { http_status, .. } => *http_status,
            Self::InvalidResponse { .. } | Self::UnsupportedVersion(_) => None,
        }
    }
}

/// The client refused a tool call, or could not complete it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToolCallError {
    /// An integer argument mirrored into a header is outside ±(2^53−1).
    #[error(
        "argument `{argument}` of tool `{tool}` is outside ±(2^53−1) and cannot be sent in header `{header}`"
    )]
    HeaderValueOutOfRange {
        /// The tool.
        tool: String,
        /// The argument's path, dot-separated.
        argument: String,
        /// The full header name (`Mcp-Param-…`).
        header: String,
    },
    /// The arguments are not a JSON object.
    #[error("the arguments of tool `{tool}` must be a JSON object")]
    InvalidArguments {
        /// The tool.
        tool: String,
    },
    /// The arguments could not be serialized to JSON.
    #[error("the arguments of tool `{tool}` cannot be serialized to JSON")]
    ArgumentsNotSerializable {
        /// The tool.
        tool: String,
        /// The serialization error.
        #[source]
        source: serde_json::Error,
    },
    /// A per-call header the client sets itself.
    #[error("header `{header}` is set by the client and cannot be passed to a tool call")]
    ReservedHeader {
        /// The header name.
        header: String,
    },
    /// The task running the call was cancelled.
    #[error("tool `{tool}` ran as task {task}, which was cancelled")]
    TaskCancelled {
        /// The tool (empty for a task resumed by id).
        tool: String,
        /// The task id.
        task: String,
    },
    /// The server still asked for input after `max_input_rounds` rounds.
    #[error("tool `{tool}` still required input after {rounds} rounds")]
    InputRoundsExhausted {
        /// The tool.
        tool: String,
        /// The rounds answered.
        rounds: u32,
    },
    /// The server asked for input but no elicitation handler is configured.
    #[error("tool `{tool}` asked for input, but no elicitation handler is configured")]
    NoElicitationHandler {
        /// The tool.
        tool: String,
    },
    /// The server asked for a kind of input this client cannot give.
    #[error("tool `{tool}` asked for unsupported input `{method}` (input request `{key}`)")]
    UnsupportedInputRequest {
        /// The tool.
        tool: String,
        /// The input request's key.
        key: String,
        /// Its method.
        method: String,
    },
}

/// A `text/event-stream` response was broken.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StreamError {
    /// The stream ended before the response to the request arrived.
    #[error("the event stream ended before the response arrived")]
    EndedWithoutResponse,
    /// An event is larger than the configured limit.
    #[error("an event exceeds the limit of {limit} bytes")]
    EventTooLarge {
        /// The limit in bytes.
        limit: usize,
    },
    /// An event's data is not a JSON-RPC message.
    #[error("an event carries an invalid JSON-RPC message: {reason}")]
    InvalidMessage {
        /// What is wrong.
        reason: String,
    },
}

impl ProtocolError {
    /// A JSON-RPC error answered with `http_status`.
    pub(crate) fn rpc(error: ErrorObject, http_status: Option<u16>) -> Self {
        Self::Rpc { error, http_status }
    }
}
