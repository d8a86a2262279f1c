//! The names of the MCP semantic conventions (`open-telemetry/semantic-conventions-genai`,
//! `model/mcp/`): the attributes a span or a metric point carries, the metrics and their
//! buckets. No crate publishes them as Rust constants; these are the ones `mcp::otel`
//! records, for dashboards and tests to name.

/// `mcp.method.name`: the request's or notification's method (`tools/call`). Always set.
pub const MCP_METHOD_NAME: &str = "mcp.method.name";
/// `mcp.protocol.version`: the protocol revision of the request (`2025-11-25`, `2026-07-28`).
pub const MCP_PROTOCOL_VERSION: &str = "mcp.protocol.version";
/// `mcp.session.id`: the legacy session (`Mcp-Session-Id`), never set on a 2026-07-28
/// request. The value is a fingerprint of the id (the first 8 bytes of its SHA-256, in
/// hex), not the id: a session id is a credential.
pub const MCP_SESSION_ID: &str = "mcp.session.id";
/// `mcp.resource.uri`: the URI of a `resources/read`, `resources/subscribe` or
/// `resources/unsubscribe` (spans only: it is not a low-cardinality metric attribute).
pub const MCP_RESOURCE_URI: &str = "mcp.resource.uri";
/// `gen_ai.tool.name`: the tool of a `tools/call`.
pub const GEN_AI_TOOL_NAME: &str = "gen_ai.tool.name";
/// `gen_ai.prompt.name`: the prompt of a `prompts/get`.
pub const GEN_AI_PROMPT_NAME: &str = "gen_ai.prompt.name";
/// `gen_ai.operation.name`: `execute_tool` on a `tools/call`, absent otherwise.
pub const GEN_AI_OPERATION_NAME: &str = "gen_ai.operation.name";
/// `gen_ai.tool.call.arguments`: a call's arguments as JSON (opt-in: sensitive).
pub const GEN_AI_TOOL_CALL_ARGUMENTS: &str = "gen_ai.tool.call.arguments";
/// `gen_ai.tool.call.result`: a call's result as JSON (opt-in: sensitive).
pub const GEN_AI_TOOL_CALL_RESULT: &str = "gen_ai.tool.call.result";
/// `gen_ai.prompt.variable.<name>`: each argument of a `prompts/get` (opt-in: sensitive).
pub const GEN_AI_PROMPT_VARIABLE_PREFIX: &str = "gen_ai.prompt.variable.";
/// `jsonrpc.request.id`: the request's id as a string (absent on notifications).
pub const JSONRPC_REQUEST_ID: &str = "jsonrpc.request.id";
/// `rpc.response.status_code`: the JSON-RPC error code as a string, when the answer is an
/// error.
pub const RPC_RESPONSE_STATUS_CODE: &str = "rpc.response.status_code";
/// `error.type`: the error code (as a string) of an answer that counts as a failure,
/// `tool_error` for a tool result with `isError: true`, or what ended an exchange without
/// an answer (`timeout`, `transport`, `cancelled`).
pub const ERROR_TYPE: &str = "error.type";
/// `network.transport`: `tcp` for Streamable HTTP, `pipe` for stdio, `inproc` for an
/// in-process connection.
pub const NETWORK_TRANSPORT: &str = "network.transport";
/// `network.protocol.name`: `http` over Streamable HTTP.
pub const NETWORK_PROTOCOL_NAME: &str = "network.protocol.name";
/// `network.protocol.version`: the HTTP version (`1.1`, `2`).
pub const NETWORK_PROTOCOL_VERSION: &str = "network.protocol.version";
/// `client.address`: the peer's IP address, on the server.
pub const CLIENT_ADDRESS: &str = "client.address";
/// `client.port`: the peer's port, on the server.
pub const CLIENT_PORT: &str = "client.port";
/// `server.address`: the server's host, on the client.
pub const SERVER_ADDRESS: &str = "server.address";
/// `server.port`: the server's port, on the client.
pub const SERVER_PORT: &str = "server.port";

/// `mcp.server.operation.duration` (histogram, seconds): a request or notification as the
/// receiver saw it, from its arrival to its answer.
pub const MCP_SERVER_OPERATION_DURATION: &str = "mcp.server.operation.duration";
/// `mcp.client.operation.duration` (histogram, seconds): a request or notification as the
/// sender saw it, from sending it to its answer.
pub const MCP_CLIENT_OPERATION_DURATION: &str = "mcp.client.operation.duration";
/// `mcp.server.session.duration` (histogram, seconds): a legacy session or a stdio
/// connection as the server saw it.
pub const MCP_SERVER_SESSION_DURATION: &str = "mcp.server.session.duration";
/// `mcp.client.session.duration` (histogram, seconds): a connection as the client saw it.
pub const MCP_CLIENT_SESSION_DURATION: &str = "mcp.client.session.duration";

/// The bucket boundaries (seconds) of the four duration histograms.
pub const DURATION_BUCKETS: [f64; 14] = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

/// The span event a [`Context::log`](crate::Context::log) message becomes.
pub const LOG_EVENT: &str = "mcp.log";
/// The level of a log event (`info`, `warning`, …).
pub const LOG_LEVEL: &str = "mcp.log.level";
/// The logger a log event names, if any.
pub const LOG_LOGGER: &str = "mcp.log.logger";
/// The data of a log event: its text, or its JSON.
pub const LOG_DATA: &str = "mcp.log.data";
