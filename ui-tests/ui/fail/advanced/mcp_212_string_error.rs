struct Router;

#[mcp::service(name = "router", advanced)]
impl Router {
    pub fn on_list_tools(&self) -> Result<mcp::ListToolsResult, String> {
        Ok(mcp::ListToolsResult::default())
    }

    pub fn on_call_tool(&self, params: mcp::CallToolParams) -> Result<mcp::CallToolResult, String> {
        Err(params.name)
    }
}

fn main() {}
