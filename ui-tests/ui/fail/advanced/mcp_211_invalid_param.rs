struct Echo;

#[mcp::service(name = "echo", advanced)]
impl Echo {
    pub fn on_list_tools(&self, page: u32) -> mcp::ListToolsResult {
        let _ = page;
        mcp::ListToolsResult::default()
    }

    pub fn on_call_tool(&self, params: mcp::CallToolParams) -> mcp::CallToolResult {
        mcp::CallToolResult::text(params.name)
    }
}

fn main() {}
