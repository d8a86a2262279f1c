//! `#[mcp::service(advanced)]`: the application lists and dispatches its tools; the macro
//! binds the methods' parameters by type and maps their results.
#![deny(warnings)]

#[path = "support/mod.rs"]
mod support;

use mcp::protocol::Era;
use mcp::__private::{ServiceHandler as _, ServiceKind};
use mcp::{CallToolParams, CallToolResult, ListToolsResult, ServerError, Tool};
use serde_json::json;
use support::*;

struct Echo;

#[mcp::service(name = "echo", version = "1.0.0", advanced)]
impl Echo {
    pub async fn on_list_tools(&self, cursor: Option<String>) -> Result<ListToolsResult, ServerError> {
        if let Some(cursor) = cursor {
            return Err(ServerError::invalid_params(format!("Unknown cursor: {cursor}")));
        }
        let schema = json!({"type": "object", "properties": {"value": {"type": "string"}}, "required": ["value"]});
        let tool = Tool::new("echo", schema);
        Ok(ListToolsResult::new(vec![tool]))
    }

    pub fn on_call_tool(&self, params: CallToolParams, headers: http::HeaderMap) -> Result<CallToolResult, ServerError> {
        if params.name != "echo" {
            return Err(ServerError::invalid_params(format!("Unknown tool: {}", params.name)));
        }
        let value = params
            .arguments
            .as_ref()
            .and_then(|a| a.get("value"))
            .and_then(|v| v.as_str())
            .unwrap_or_default();
        let from = headers.get("x-from").and_then(|v| v.to_str().ok()).unwrap_or("?");
        Ok(CallToolResult::text(format!("{value} (from {from})")))
    }

    fn helper(&self) -> &'static str {
        "private helpers are allowed"
    }
}

fn main() {
    assert_eq!(Echo.kind(), ServiceKind::Advanced);
    assert_eq!(Echo.helper(), "private helpers are allowed");
    let tools = tools(&Echo);
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0].name, "echo");

    let cx = request(Era::Modern, &[]);
    let err = block_on(Echo.list_tools(Some("p2".into()), &cx)).unwrap_err();
    assert!(matches!(err, ServerError::InvalidParams(_)), "{err:?}");

    let cx = request(Era::Modern, &[("X-From", "ui")]);
    let r = complete(call_in(&Echo, &cx, "echo", json!({"value": "hi"})));
    assert_eq!(r.joined_text(), "hi (from ui)");
    assert!(call(&Echo, "nope", json!({})).is_err());

    let _ = mcp::transport::http::router("/mcp", server(Echo));
}
