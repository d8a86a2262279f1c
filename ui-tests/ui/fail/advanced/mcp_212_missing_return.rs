struct Router;

#[mcp::service(name = "router", advanced)]
impl Router {
    pub fn on_list_tools(&self) -> mcp::ListToolsResult {
        mcp::ListToolsResult::default()
    }

    pub async fn on_call_tool(&self, params: mcp::CallToolParams) {
        let _ = params;
    }
}

fn main() {}
