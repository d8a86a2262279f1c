use serde::{Deserialize, Serialize};

/// A JSON-RPC error code. The set is open, so this is a newtype with the codes MCP uses as
/// associated constants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ErrorCode(pub i32);

impl ErrorCode {
    /// The body is not JSON.
    pub const PARSE_ERROR: Self = Self(-32700);
    /// The body is not a valid JSON-RPC message.
    pub const INVALID_REQUEST: Self = Self(-32600);
    /// The method does not exist in the request's era.
    pub const METHOD_NOT_FOUND: Self = Self(-32601);
    /// Invalid method parameters (also: unknown tool, bad cursor, bad request state).
    pub const INVALID_PARAMS: Self = Self(-32602);
    /// Internal error.
    pub const INTERNAL_ERROR: Self = Self(-32603);
    /// Transport-defined error of the Streamable HTTP transport.
    pub const TRANSPORT: Self = Self(-32000);
    /// Legacy "Session not found".
    pub const SESSION_NOT_FOUND: Self = Self(-32001);
    /// Old "resource not found"; accepted from peers, sent as [`Self::INVALID_PARAMS`].
    pub const RESOURCE_NOT_FOUND: Self = Self(-32002);
    /// Request headers and body disagree (`MCP-Protocol-Version`, `Mcp-Method`,
    /// `Mcp-Name`, `Mcp-Param-*`).
    pub const HEADER_MISMATCH: Self = Self(-32020);
    /// The request's client capabilities lack one the operation needs.
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: Self = Self(-32021);
    /// The protocol revision the request names is not served.
    pub const UNSUPPORTED_PROTOCOL_VERSION: Self = Self(-32022);
    /// A middleware concurrency limit or load shedding refused the request ("Server
    /// overloaded"; this framework's, in the implementation-defined range).
    pub const OVERLOADED: Self = Self(-32003);
    /// A middleware deadline passed before the request was answered ("Request timed out";
    /// this framework's).
    pub const REQUEST_TIMEOUT: Self = Self(-32008);
    /// A middleware rate limit refused the request ("Rate limit exceeded"; its `data` says
    /// when to retry; this framework's).
    pub const RATE_LIMITED: Self = Self(-32029);
    /// Legacy 2025-11-25 only: a URL elicitation is required.
    pub const URL_ELICITATION_REQUIRED: Self = Self(-32042);

    /// The numeric code.
    pub const fn get(self) -> i32 {
        self.0
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}
