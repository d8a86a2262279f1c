use mcp::{CallToolParams, CallToolResult, ListToolsResult, ServerError};

struct Echo;

#[mcp::service(name = "echo", advanced, legacy_structured_output = true)]
impl Echo {
    pub fn on_list_tools(&self) -> ListToolsResult {
        ListToolsResult::default()
    }

    pub fn on_call_tool(&self, _params: CallToolParams) -> Result<CallToolResult, ServerError> {
        Err(ServerError::client_message("none"))
    }
}

fn main() {}
