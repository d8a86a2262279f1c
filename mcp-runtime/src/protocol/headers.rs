//! The HTTP header names of MCP's Streamable HTTP transport, named once for the server, the
//! client and tests. Header names are case-insensitive; these are the lowercase forms `http`
//! stores.

use http::HeaderName;

/// `MCP-Protocol-Version`: the protocol version of a request (both eras; required on modern
/// requests and on legacy requests after `initialize`).
pub const MCP_PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");

/// `Mcp-Session-Id`: the legacy session a request belongs to.
pub const MCP_SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");

/// `Mcp-Method`: a modern request's JSON-RPC method, mirrored for routing.
pub const MCP_METHOD: HeaderName = HeaderName::from_static("mcp-method");

/// `Mcp-Name`: a modern request's tool, prompt or resource name, mirrored for routing.
pub const MCP_NAME: HeaderName = HeaderName::from_static("mcp-name");

/// `Last-Event-ID`: the SSE event a reconnecting client resumes after.
pub const LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");

/// The prefix of the headers modern clients mirror header arguments into
/// (`Mcp-Param-<name>`, from a property's `"x-mcp-header"`).
pub const MCP_PARAM_PREFIX: &str = "Mcp-Param-";
