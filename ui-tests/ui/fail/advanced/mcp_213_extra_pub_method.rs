struct Echo;

#[mcp::service(name = "echo", advanced)]
impl Echo {
    pub fn on_list_tools(&self, cursor: Option<String>) -> mcp::ListToolsResult {
        let _ = cursor;
        mcp::ListToolsResult::default()
    }

    pub fn on_call_tool(&self, params: mcp::CallToolParams) -> mcp::CallToolResult {
        mcp::CallToolResult::text(params.name)
    }

    pub fn echo(&self, value: String) -> String {
        value
    }
}

fn main() {}
