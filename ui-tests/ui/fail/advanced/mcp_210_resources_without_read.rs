struct Library;

#[mcp::service(name = "library", advanced)]
impl Library {
    pub fn on_list_tools(&self) -> mcp::ListToolsResult {
        mcp::ListToolsResult::default()
    }

    pub fn on_call_tool(&self, params: mcp::CallToolParams) -> mcp::CallToolResult {
        mcp::CallToolResult::text(params.name)
    }

    pub fn on_list_resources(&self) -> mcp::ListResourcesResult {
        mcp::ListResourcesResult::default()
    }
}

fn main() {}
