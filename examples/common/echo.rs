//! A minimal advanced service: one `echo` tool, defined and dispatched by hand.

use mcp::{
    AdvancedService, CallToolParams, CallToolResponse, CallToolResult, ListToolsResult,
    RequestContext, ServerError, Tool,
};
use serde_json::json;

static TOOLS: std::sync::OnceLock<Vec<Tool>> = std::sync::OnceLock::new();

/// The tool list, built once.
fn echo_tools() -> Vec<Tool> {
    let input = json!({
        "type": "object",
        "properties": {"value": {"type": "string", "description": "The text to echo"}},
        "required": ["value"]
    });
    let output = json!({"type": "string"});
    vec![
        Tool::new("echo", object(input))
            .with_description("Echo the value back")
            .with_output_schema(object(output)),
    ]
}

/// The echo service.
#[derive(Clone, Copy, Debug, Default)]
pub struct Echo;

impl AdvancedService for Echo {
    fn info(&self) -> mcp::Implementation {
        mcp::Implementation::new("echo", env!("CARGO_PKG_VERSION"))
    }

    fn configure(builder: mcp::ServerBuilder) -> mcp::ServerBuilder {
        builder
            .instructions("Echoes text back.")
            // The tool list never changes: clients (and the server's own tool lookup) may
            // reuse it.
            .list_tools_cache(mcp::CacheHint::new(60_000, mcp::CacheScope::Public))
    }

    async fn on_list_tools(
        &self,
        cursor: Option<String>,
        _request: &RequestContext,
    ) -> Result<ListToolsResult, ServerError> {
        if let Some(cursor) = cursor {
            return Err(ServerError::invalid_params(format!(
                "Unknown cursor: {cursor}"
            )));
        }
        let tools = TOOLS.get_or_init(echo_tools).clone();
        Ok(ListToolsResult::new(tools))
    }

    async fn on_call_tool(
        &self,
        params: CallToolParams,
        _request: &RequestContext,
    ) -> Result<CallToolResponse, ServerError> {
        if params.name != "echo" {
            return Err(ServerError::invalid_params(format!(
                "Unknown tool: {}",
                params.name
            )));
        }
        let value = match params.arguments.as_ref().and_then(|a| a.get("value")) {
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(_) => return Err(ServerError::invalid_params("`value` must be a string")),
            None => return Err(ServerError::invalid_params("missing argument `value`")),
        };
        Ok(CallToolResult::text(value.clone())
            .with_structured(json!(value))
            .into())
    }
}

/// The echo server, ready to serve (its settings are the service's own, from
/// [`AdvancedService::configure`]).
pub fn server() -> mcp::ServerBuilder {
    mcp::Server::builder(Echo)
}

/// A JSON value known to be an object, as a map.
pub fn object(value: serde_json::Value) -> mcp::protocol::JsonObject {
    match value {
        serde_json::Value::Object(map) => map,
        _ => mcp::protocol::JsonObject::new(),
    }
}
