struct Echo;

#[mcp::service(name = "echo", advanced)]
impl Echo {
    pub fn on_list_tools(&self, cursor: Option<String>) -> mcp::ListToolsResult {
        let _ = cursor;
        mcp::ListToolsResult::default()
    }

    pub fn on_call_tool(&self, params: mcp::CallToolParams, again: mcp::CallToolParams) -> mcp::CallToolResult {
        let _ = again;
        mcp::CallToolResult::text(params.name)
    }
}

fn main() {}
