//! A hand-written `mcp::AdvancedService` must say who it is: `info` has no default, so a
//! service without a name and a version does not compile (it used to fail at run time).
use mcp::{CallToolParams, CallToolResponse, ListToolsResult, RequestContext, ServerError};

struct Anonymous;

impl mcp::AdvancedService for Anonymous {
    async fn on_list_tools(&self, _: Option<String>, _: &RequestContext) -> Result<ListToolsResult, ServerError> {
        Ok(ListToolsResult::default())
    }

    async fn on_call_tool(&self, params: CallToolParams, _: &RequestContext) -> Result<CallToolResponse, ServerError> {
        Err(ServerError::invalid_params(format!("Unknown tool: {}", params.name)))
    }
}

fn main() {
    let _ = mcp::Server::builder(Anonymous).build();
}
